//! The first implementation of the HTML selectors, kept as the reference that the
//! faster one in `html.rs` is compared with (`differential_html` in `tests.rs`): a `*`
//! handler sees every element and keeps a stack of all open elements, each with an end
//! tag handler.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, EndTag, TextChunk};
use lol_html::{ElementContentHandlers, HandlerResult, Selector};

use super::html::{
    append_text, final_value, rewrite, settings_for, AllFound, Css, State, Tag, CLOSE_P,
};

#[derive(Default)]
struct Slot {
    state: State,
    /// Our id of the element whose text is being collected.
    elem: u32,
    /// Its tag name, for the rules of omitted end tags.
    tag: String,
    /// Open lists, `dl`s and tables inside it, which make an `li`, `dd` or `td` there a
    /// descendant rather than a sibling.
    nested: [u32; 3],
    /// Text of the current text node that may hold entities, decoded when it ends.
    pending: String,
    value: String,
}

struct Shared {
    slots: Vec<Slot>,
    left: usize,
    /// Our own stack of open elements (lol_html does not close elements whose end tag
    /// is omitted): ids grow with each element, so an element is open while its id is.
    stack: Vec<(u32, Tag)>,
    next_id: u32,
}

type Cell = Rc<RefCell<Shared>>;

impl Shared {
    /// Ends slot `k`'s value; `Err` stops the pass when it was the last one.
    fn finish(&mut self, k: usize) -> HandlerResult {
        let Some(slot) = self.slots.get_mut(k) else {
            return Ok(());
        };
        if slot.state == State::Done {
            return Ok(());
        }
        let pending = std::mem::take(&mut slot.pending);
        slot.value.push_str(&htmlize::unescape(pending));
        slot.state = State::Done;
        self.left = self.left.saturating_sub(1);
        if self.left == 0 {
            return Err(Box::new(AllFound));
        }
        Ok(())
    }

    /// Whether an element named `name` starting now closes the element collected by
    /// slot `k` (HTML's optional end tags: `<p>a<p>b`, `<li>a<li>b`, `<p>a<div>`).
    fn closes(&self, k: usize, name: &str) -> bool {
        let Some(slot) = self.slots.get(k) else {
            return false;
        };
        // Whether a container of that kind makes `name` a descendant, not a sibling.
        let nested = |kind: Tag| slot.nested.get(kind as usize).is_some_and(|&n| n > 0);
        match slot.tag.as_str() {
            "p" => CLOSE_P.contains(&name),
            "li" => name == "li" && !nested(Tag::List),
            "dt" | "dd" => matches!(name, "dt" | "dd") && !nested(Tag::Dl),
            "td" | "th" => {
                matches!(name, "td" | "th" | "tr" | "tbody" | "thead" | "tfoot")
                    && !nested(Tag::Table)
            }
            "tr" => matches!(name, "tr" | "tbody" | "thead" | "tfoot") && !nested(Tag::Table),
            "option" => matches!(name, "option" | "optgroup"),
            _ => false,
        }
    }
}

/// Every element, before the selectors' handlers see it: keeps the stack of open
/// elements and applies the omitted-end-tag rules to the texts being collected.
fn on_any(shared: &Cell, el: &mut Element) -> HandlerResult {
    let mut s = shared.borrow_mut();
    // Names matter only inside an element being collected.
    let collecting = s.slots.iter().any(|x| x.state == State::Collecting);
    let name = if collecting {
        el.tag_name()
    } else {
        String::new()
    };
    if collecting {
        for k in 0..s.slots.len() {
            if s.slots.get(k).is_some_and(|x| x.state == State::Collecting) && s.closes(k, &name) {
                s.finish(k)?;
            }
        }
    }
    if !el.can_have_content() {
        return Ok(());
    }
    let Some(handlers) = el.end_tag_handlers() else {
        return Ok(());
    };
    let id = s.next_id;
    s.next_id = s.next_id.saturating_add(1);
    let tag = Tag::of(&name);
    s.stack.push((id, tag));
    if tag != Tag::Other {
        for slot in s.slots.iter_mut().filter(|x| x.state == State::Collecting) {
            if let Some(n) = slot.nested.get_mut(tag as usize) {
                *n += 1;
            }
        }
    }
    let shared = Rc::clone(shared);
    handlers.push(Box::new(move |_: &mut EndTag| {
        let mut s = shared.borrow_mut();
        // Closing an element closes those opened inside it whose end tags were omitted.
        if let Some(at) = s.stack.iter().rposition(|(i, _)| *i == id) {
            let Shared { stack, slots, .. } = &mut *s;
            for (popped, tag) in stack.drain(at..) {
                if tag == Tag::Other {
                    continue;
                }
                for slot in slots.iter_mut() {
                    if slot.state == State::Collecting && slot.elem < popped {
                        if let Some(n) = slot.nested.get_mut(tag as usize) {
                            *n = n.saturating_sub(1);
                        }
                    }
                }
            }
        }
        for k in 0..s.slots.len() {
            if s.slots
                .get(k)
                .is_some_and(|x| x.state == State::Collecting && x.elem >= id)
            {
                s.finish(k)?;
            }
        }
        Ok(())
    }));
    Ok(())
}

fn on_element(shared: &Cell, k: usize, attr: Option<&str>, el: &mut Element) -> HandlerResult {
    let mut s = shared.borrow_mut();
    let top = s.stack.last().map(|(id, _)| *id);
    let Some(slot) = s.slots.get_mut(k) else {
        return Ok(());
    };
    if slot.state != State::Waiting {
        return Ok(());
    }
    if let Some(attr) = attr {
        if let Some(v) = el.get_attribute(attr) {
            slot.value = htmlize::unescape_attribute(v).into_owned();
        }
    } else if el.can_have_content() && el.end_tag_handlers().is_some() {
        // `on_any` has just pushed this element.
        if let Some(id) = top {
            slot.state = State::Collecting;
            slot.elem = id;
            slot.tag = el.tag_name();
            return Ok(());
        }
    }
    s.finish(k)
}

fn on_text(shared: &Cell, k: usize, t: &TextChunk) -> HandlerResult {
    let mut s = shared.borrow_mut();
    let Some(slot) = s.slots.get_mut(k) else {
        return Ok(());
    };
    if slot.state != State::Collecting {
        return Ok(());
    }
    append_text(&mut slot.pending, &mut slot.value, t);
    Ok(())
}

/// Runs the selectors over `body`; `charset` from the content type (UTF-8 without one, or
/// the one a `<meta charset>` names). Returns one value per selector, `None` for no match.
pub fn select(sels: &[&Css], body: &[u8], charset: Option<&str>) -> Vec<Option<Vec<u8>>> {
    let shared: Cell = Rc::new(RefCell::new(Shared {
        slots: sels.iter().map(|_| Slot::default()).collect(),
        left: sels.len(),
        stack: Vec::new(),
        next_id: 1,
    }));
    let any: Selector = match "*".parse() {
        Ok(s) => s,
        Err(_) => return vec![None; sels.len()],
    };
    {
        let mut settings = settings_for(charset);
        if sels.iter().any(|c| c.attr.is_none()) {
            let s0 = Rc::clone(&shared);
            settings = settings.append_element_content_handler((
                Cow::Borrowed(&any),
                ElementContentHandlers::default().element(move |el: &mut Element| on_any(&s0, el)),
            ));
        }
        for (k, css) in sels.iter().enumerate() {
            let attr = css.attr.clone();
            let s1 = Rc::clone(&shared);
            let mut handlers = ElementContentHandlers::default()
                .element(move |el: &mut Element| on_element(&s1, k, attr.as_deref(), el));
            if css.attr.is_none() {
                let s2 = Rc::clone(&shared);
                handlers = handlers.text(move |t: &mut TextChunk| on_text(&s2, k, t));
            }
            settings =
                settings.append_element_content_handler((Cow::Borrowed(&css.selector), handlers));
        }
        rewrite(settings, body);
    }
    let mut s = shared.borrow_mut();
    s.slots
        .iter_mut()
        .map(|slot| {
            let matched = slot.state != State::Waiting;
            final_value(&mut slot.pending, &mut slot.value, matched)
        })
        .collect()
}
