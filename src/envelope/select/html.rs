//! CSS selectors over an HTML body, all in one lol_html pass: the value is the text of
//! the first matching element (all its descendant text, entities decoded, trimmed of
//! ASCII white space at both ends) or, with ` @attr`, an attribute of the first match.
//! The pass stops as soon as every selector has its value.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, EndTag, TextChunk};
use lol_html::{
    AsciiCompatibleEncoding, ElementContentHandlers, HandlerResult, HtmlRewriter, Selector,
    Settings,
};

/// A compiled CSS selector with its optional attribute.
#[derive(Debug)]
pub struct Css {
    pub selector: Selector,
    pub attr: Option<String>,
    /// For a text selector: the elements inside its matches (`SELECTOR *`), which the
    /// omitted-end-tag rules look at while a value is being collected; `*` when the
    /// selector's text cannot be extended safely.
    pub inside: Option<Selector>,
}

/// Splits ` @attr` off a selector's text: the last `@` followed by an attribute name to
/// the end. Returns the CSS part and the attribute.
pub fn split_attr(text: &str) -> (&str, Option<&str>) {
    if let Some(at) = text.rfind('@') {
        let attr = &text[at + 1..];
        let ok = !attr.is_empty()
            && attr
                .bytes()
                .all(|c| !c.is_ascii_whitespace() && !b"\"'>/=[]()@,".contains(&c));
        if ok {
            return (text[..at].trim_end(), Some(attr));
        }
    }
    (text, None)
}

/// Parses a CSS selector (with an optional ` @attr`); the error is lol_html's message.
pub fn compile(text: &str) -> Result<Css, String> {
    let (css, attr) = split_attr(text);
    if css.trim().is_empty() {
        return Err("a CSS selector is missing before '@'".into());
    }
    let selector: Selector = css.parse().map_err(|e: lol_html::errors::SelectorError| {
        let m = e.to_string();
        m.trim_end_matches('.').to_string()
    })?;
    let inside = match attr {
        Some(_) => None,
        None => inside(css).or_else(|| "*".parse().ok()),
    };
    Ok(Css {
        selector,
        attr: attr.map(str::to_ascii_lowercase),
        inside,
    })
}

/// `SEL *` for every selector of the list `css` (`h1, h2` gives `h1 *, h2 *`): the
/// elements inside a match. `None` when the text has escapes, comments, or unbalanced
/// quotes or brackets, where appending to it could change what it means.
fn inside(css: &str) -> Option<Selector> {
    if css.contains('\\') || css.contains("/*") {
        return None;
    }
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut from) = (0usize, None, 0);
    for (i, c) in css.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth = depth.checked_sub(1)?,
            (None, ',') if depth == 0 => {
                parts.push(&css[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 || quote.is_some() {
        return None;
    }
    parts.push(&css[from..]);
    let text: Vec<String> = parts.iter().map(|p| format!("{p} *")).collect();
    text.join(",").parse().ok()
}

#[derive(Default)]
struct Slot {
    state: State,
    /// The end-tag rule of the element whose text is being collected.
    rule: Rule,
    /// Open lists, `dl`s and tables inside it, which make an `li`, `dd` or `td` there a
    /// descendant rather than a sibling.
    nested: [u32; 3],
    /// Text of the current text node that may hold entities, decoded when it ends.
    pending: String,
    value: String,
}

#[derive(Default, PartialEq, Eq, Clone, Copy, Debug)]
enum State {
    #[default]
    Waiting,
    Collecting,
    Done,
}

/// Which starting elements end the collected element without its end tag.
#[derive(Default, PartialEq, Eq, Clone, Copy, Debug)]
enum Rule {
    /// None: only its end tag or an enclosing element's ends it.
    #[default]
    None,
    P,
    Li,
    DtDd,
    Cell,
    Tr,
    Option,
}

impl Rule {
    fn of(name: &str) -> Rule {
        match name {
            "p" => Rule::P,
            "li" => Rule::Li,
            "dt" | "dd" => Rule::DtDd,
            "td" | "th" => Rule::Cell,
            "tr" => Rule::Tr,
            "option" => Rule::Option,
            _ => Rule::None,
        }
    }
}

/// A handler's error that ends the pass early once every value is known.
#[derive(Debug)]
struct AllFound;

impl std::fmt::Display for AllFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("all selectors matched")
    }
}

impl std::error::Error for AllFound {}

/// What the omitted-end-tag rules need to know of an open element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    /// `ul`, `ol`, `menu`: an `li` inside is not a sibling.
    List = 0,
    Dl = 1,
    Table = 2,
    Other = 3,
}

impl Tag {
    fn of(name: &str) -> Tag {
        match name {
            "ul" | "ol" | "menu" => Tag::List,
            "dl" => Tag::Dl,
            "table" => Tag::Table,
            _ => Tag::Other,
        }
    }
}

struct Shared {
    slots: Vec<Slot>,
    left: usize,
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
}

impl Slot {
    /// Whether an element named `name` starting now closes the element being collected
    /// (HTML's optional end tags: `<p>a<p>b`, `<li>a<li>b`, `<p>a<div>`).
    fn closed_by(&self, name: &str) -> bool {
        // Whether a container of that kind makes `name` a descendant, not a sibling.
        let nested = |kind: Tag| self.nested.get(kind as usize).is_some_and(|&n| n > 0);
        match self.rule {
            Rule::None => false,
            Rule::P => CLOSE_P.contains(&name),
            Rule::Li => name == "li" && !nested(Tag::List),
            Rule::DtDd => matches!(name, "dt" | "dd") && !nested(Tag::Dl),
            Rule::Cell => {
                matches!(name, "td" | "th" | "tr" | "tbody" | "thead" | "tfoot")
                    && !nested(Tag::Table)
            }
            Rule::Tr => matches!(name, "tr" | "tbody" | "thead" | "tfoot") && !nested(Tag::Table),
            Rule::Option => matches!(name, "option" | "optgroup"),
        }
    }
}

/// The elements whose start closes an open `p`.
const CLOSE_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "dialog",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "search",
    "section",
    "table",
    "ul",
];

// How a value ends. lol_html keeps a stack of open elements that closes an element at
// its own end tag or at the end tag of an element around it, and calls the element's end
// tag handlers in both cases; that stack does not know HTML's omitted end tags. So the
// match gets one end tag handler, and while its value is collected the elements inside
// it (`SELECTOR *`) are checked against the omitted-end-tag rules. Elsewhere no handler
// runs, and lol_html only scans for tags.

/// An element inside a match of slot `k`: ends the value when HTML's rules close the
/// collected element here, and counts the lists and tables opened inside it.
fn on_inside(shared: &Cell, k: usize, el: &mut Element) -> HandlerResult {
    let mut s = shared.borrow_mut();
    let Some(slot) = s.slots.get_mut(k) else {
        return Ok(());
    };
    if slot.state != State::Collecting || slot.rule == Rule::None {
        return Ok(());
    }
    let name = el.tag_name();
    if slot.closed_by(&name) {
        return s.finish(k);
    }
    let tag = Tag::of(&name);
    if tag == Tag::Other || !el.can_have_content() {
        return Ok(());
    }
    let Some(handlers) = el.end_tag_handlers() else {
        return Ok(());
    };
    if let Some(n) = slot.nested.get_mut(tag as usize) {
        *n += 1;
    }
    let shared = Rc::clone(shared);
    handlers.push(Box::new(move |_: &mut EndTag| {
        let mut s = shared.borrow_mut();
        if let Some(slot) = s.slots.get_mut(k) {
            if slot.state == State::Collecting {
                if let Some(n) = slot.nested.get_mut(tag as usize) {
                    *n = n.saturating_sub(1);
                }
            }
        }
        Ok(())
    }));
    Ok(())
}

fn on_element(shared: &Cell, k: usize, attr: Option<&str>, el: &mut Element) -> HandlerResult {
    let mut s = shared.borrow_mut();
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
    } else if el.can_have_content() {
        let rule = Rule::of(&el.tag_name());
        if let Some(handlers) = el.end_tag_handlers() {
            slot.state = State::Collecting;
            slot.rule = rule;
            let shared = Rc::clone(shared);
            // Its own end tag, or that of an element around it.
            handlers.push(Box::new(move |_: &mut EndTag| {
                shared.borrow_mut().finish(k)
            }));
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

/// Adds a chunk of text to a value, entities decoded. An entity may straddle two chunks
/// of one text node, so a node's text waits in `pending` until the node ends.
fn append_text(pending: &mut String, value: &mut String, t: &TextChunk) {
    if t.text_type().allows_html_entities() {
        pending.push_str(t.as_str());
        if t.last_in_text_node() {
            value.push_str(&htmlize::unescape(std::mem::take(pending)));
        }
    } else {
        value.push_str(&htmlize::unescape(std::mem::take(pending)));
        value.push_str(t.as_str());
    }
}

/// The rewriter's settings for a body in `charset` (UTF-8 without one, or the one a
/// `<meta charset>` names), before any handler.
fn settings_for<'h, 's>(charset: Option<&str>) -> Settings<'h, 's> {
    let settings = Settings::new()
        .with_strict(false)
        .with_adjust_charset_on_meta_tag(charset.is_none());
    match charset
        .and_then(|c| encoding_rs::Encoding::for_label(c.trim().as_bytes()))
        .and_then(AsciiCompatibleEncoding::new)
    {
        Some(enc) => settings.with_encoding(enc),
        None => settings,
    }
}

/// One pass over `body`. An error is either the early stop or HTML that lol_html gives up
/// on; whatever was found so far stands.
fn rewrite(settings: Settings<'_, '_>, body: &[u8]) {
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    if rewriter.write(body).is_ok() {
        let _ = rewriter.end();
    }
}

/// A selector's value at the end of the pass: `None` without a match; a match still open
/// at the end of the body has the text seen so far. Trimmed of HTML's white space.
fn final_value(pending: &mut String, value: &mut String, matched: bool) -> Option<Vec<u8>> {
    value.push_str(&htmlize::unescape(std::mem::take(pending)));
    matched.then(|| {
        value
            .trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c'))
            .as_bytes()
            .to_vec()
    })
}

/// Runs the selectors over `body`; `charset` from the content type (UTF-8 without one, or
/// the one a `<meta charset>` names). Returns one value per selector, `None` for no match.
pub fn select(sels: &[&Css], body: &[u8], charset: Option<&str>) -> Vec<Option<Vec<u8>>> {
    let shared: Cell = Rc::new(RefCell::new(Shared {
        slots: sels.iter().map(|_| Slot::default()).collect(),
        left: sels.len(),
    }));
    {
        let mut settings = settings_for(charset);
        // The rules for elements inside a match run before the handlers of the matches
        // themselves, so that an element that ends one value and starts another is seen
        // in that order.
        for (k, css) in sels.iter().enumerate() {
            if let Some(inside) = &css.inside {
                let s0 = Rc::clone(&shared);
                settings = settings.append_element_content_handler((
                    Cow::Borrowed(inside),
                    ElementContentHandlers::default()
                        .element(move |el: &mut Element| on_inside(&s0, k, el)),
                ));
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sels: &[&str], html: &str) -> Vec<String> {
        let css: Vec<Css> = sels.iter().map(|s| compile(s).unwrap()).collect();
        let refs: Vec<&Css> = css.iter().collect();
        select(&refs, html.as_bytes(), None)
            .into_iter()
            .map(|v| v.map_or("<none>".into(), |v| String::from_utf8(v).unwrap()))
            .collect()
    }

    #[test]
    fn text_and_attributes() {
        let html = r#"<!doctype html><html><head><title> Caf&eacute; &amp; Bar </title>
<meta property="og:title" content="Tom &amp; Jerry&#x27;s">
</head><body><div class="price"><span>€ 12<b>.50</b></span></div>
<div id=x>a<div>b</div>c</div><a class="next" href="/p?a=1&amp;b=2">Next &raquo;</a>
<script>if (a &amp;&amp; b < c) {}</script><p>one<p>two</body></html>"#;
        assert_eq!(
            run(
                &[
                    "title",
                    r#"meta[property="og:title"] @content"#,
                    "div.price > span",
                    "#x",
                    "a.next @href",
                    "a.next",
                    "script",
                    "p",
                    "h1",
                    "div",
                    "a @missing",
                ],
                html
            ),
            vec![
                "Café & Bar",
                "Tom & Jerry's",
                "€ 12.50",
                "abc",
                "/p?a=1&b=2",
                "Next »",
                "if (a &amp;&amp; b < c) {}",
                "one",
                "<none>",
                "€ 12.50",
                "",
            ]
        );
    }

    #[test]
    fn omitted_end_tags() {
        let one = |sel: &str, html: &str| run(&[sel], html).remove(0);
        assert_eq!(one("span", "<div><span>a</span><span>b</span></div>"), "a");
        assert_eq!(one("p", "<div><p>one</div><p>two"), "one");
        assert_eq!(one("p", "<p>one<div>two</div></p>"), "one");
        assert_eq!(one("li", "<ul><li>a<li>b</ul>"), "a");
        assert_eq!(
            one("li", "<ul><li>a<ul><li>b</li></ul>c</li><li>d</ul>"),
            "abc"
        );
        assert_eq!(one("li", "<ul><li>a<ul><li>b</ul>c<li>d</ul>"), "abc");
        assert_eq!(one("td", "<table><tr><td>1<td>2<tr><td>3</table>"), "1");
        assert_eq!(one("tr", "<table><tr><td>1<td>2<tr><td>3</table>"), "12");
        assert_eq!(one("dd", "<dl><dt>k<dd>v<dt>k2</dl>"), "v");
        assert_eq!(one("option", "<select><option>a<option>b</select>"), "a");
        assert_eq!(one("p", "<p>unclosed at the end"), "unclosed at the end");
        assert_eq!(one("br", "a<br>b"), "");
        assert_eq!(
            one("p", "<p>a &amp b &notit; &#8364; &#x20AC; &euro</p>"),
            "a & b ¬it; € € &euro"
        );
        assert_eq!(one("textarea", "<textarea>&lt;b&gt;</textarea>"), "<b>");
        assert_eq!(one("style", "<style>a &gt; b</style>"), "a &gt; b");
        assert_eq!(one("p", "<p>\n  two\n  lines\n</p>"), "two\n  lines");
        assert_eq!(one("p", "<p>a<!-- c -->b</p>"), "ab");
    }

    #[test]
    fn unsupported_selectors() {
        assert!(compile("li:first-child").is_ok());
        assert!(compile("li:last-child").is_err());
        assert!(compile("a + b").is_err());
        assert!(compile("div >").is_err());
        assert!(compile("@href").is_err());
        assert_eq!(split_attr("a.x @href"), ("a.x", Some("href")));
        assert_eq!(split_attr(r#"[title="a@b"]"#), (r#"[title="a@b"]"#, None));
    }
}
