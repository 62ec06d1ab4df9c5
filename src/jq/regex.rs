//! jq's regular expressions (`test`, `match`, `capture`, `scan`, `split`, `sub`) on
//! fancy-regex, which reads Oniguruma's common syntax (named groups, lookaround,
//! backreferences, POSIX classes). Offsets and lengths count code points, as jq's do.
//!
//! Flags: `g` all matches, `i` ignore case, `x` extended, `n` skip empty matches,
//! `s` single line (already the default), `p` dot matches newline too, `l` longest
//! (accepted; leftmost-first is kept). Compiled regexes are cached for the run.
//!
//! Steps: one per match, plus one per 64 bytes searched.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use fancy_regex::Regex;
use jaq_core::{Error, ValR};

use super::fuel;
use super::ops::err;
use super::value::{Key, Map, Val};

/// Compiled regexes of one run, by pattern and flags.
#[derive(Default)]
pub struct Cache(RefCell<HashMap<(String, String), Rc<Regex>>>);

fn obj(fields: Vec<(&str, Val)>) -> Val {
    let mut m = Map::default();
    for (k, v) in fields {
        m.insert(Key::from(k), v);
    }
    Val::obj(m)
}

/// `_match_impl(re; flags; test)`.
pub fn match_impl(cache: &Cache, input: Val, re: &Val, flags: &Val, test: bool) -> ValR<Val, Val> {
    let Val::Str(s) = &input else {
        return err(format!(
            "{} cannot be matched, as it is not a string",
            input.kind_and_trunc()
        ));
    };
    let Val::Str(pat) = re else {
        return err(format!("{} is not a string", re.kind_and_trunc()));
    };
    let flags = match flags {
        Val::Null => String::new(),
        Val::Str(f) => f.to_string(),
        f => return err(format!("{} is not a string", f.kind_and_trunc())),
    };
    let (mut global, mut skip_empty) = (false, false);
    let mut inline = String::new();
    for c in flags.chars() {
        match c {
            'g' => global = true,
            'n' => skip_empty = true,
            'i' => inline.push('i'),
            'x' => inline.push('x'),
            'p' => {
                inline.push('s');
                skip_empty = true;
            }
            's' | 'l' => {}
            _ => return err(format!("{flags} is not a valid modifier string")),
        }
    }
    let key = (pat.to_string(), inline.clone());
    let cached = cache.0.borrow().get(&key).cloned();
    let regex = match cached {
        Some(r) => r,
        None => {
            let full = if inline.is_empty() {
                pat.to_string()
            } else {
                format!("(?{inline}){pat}")
            };
            match Regex::new(&full) {
                Ok(r) => {
                    let r = Rc::new(r);
                    cache.0.borrow_mut().insert(key, r.clone());
                    r
                }
                Err(e) => {
                    return err(format!("{pat} (at offset 0) is not a valid regex: {e}"));
                }
            }
        }
    };
    if !fuel::spend_bytes(s.len()) {
        return Err(Error::abort());
    }
    let names: Vec<Option<&str>> = regex.capture_names().collect();
    let mut out = Vec::new();
    let mut start = 0usize;
    // code points before byte `cp_at`
    let (mut cp_at, mut cp_count) = (0usize, 0usize);
    let mut cps = |byte: usize| -> usize {
        if byte >= cp_at {
            cp_count += s[cp_at..byte].chars().count();
        } else {
            cp_count = s[..byte].chars().count();
        }
        cp_at = byte;
        cp_count
    };
    while start <= s.len() {
        let caps = match regex.captures_from_pos(s.as_str(), start) {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(e) => return err(format!("regex failed: {e}")),
        };
        let Some(m) = caps.get(0) else { break };
        let empty = m.start() == m.end();
        if !(empty && skip_empty) {
            if test {
                return Ok(Val::Bool(true));
            }
            if !fuel::spend(1) {
                return Err(Error::abort());
            }
            let off = cps(m.start());
            let len = m.as_str().chars().count();
            let mut groups = Vec::new();
            for (i, name) in names.iter().enumerate().skip(1) {
                let name = name.map_or(Val::Null, Val::from);
                groups.push(match caps.get(i) {
                    Some(g) => {
                        let goff = s[..g.start()].chars().count();
                        obj(vec![
                            ("offset", Val::Num(goff as f64)),
                            ("length", Val::Num(g.as_str().chars().count() as f64)),
                            ("string", Val::from(g.as_str())),
                            ("name", name),
                        ])
                    }
                    None => obj(vec![
                        ("offset", Val::Num(-1.0)),
                        ("string", Val::Null),
                        ("length", Val::Num(0.0)),
                        ("name", name),
                    ]),
                });
            }
            out.push(obj(vec![
                ("offset", Val::Num(off as f64)),
                ("length", Val::Num(len as f64)),
                ("string", Val::from(m.as_str())),
                ("captures", Val::arr(groups)),
            ]));
            if !global {
                break;
            }
        }
        start = if empty {
            // step over one character
            s[m.end()..]
                .chars()
                .next()
                .map_or(s.len() + 1, |c| m.end() + c.len_utf8())
        } else {
            m.end()
        };
    }
    if test {
        return Ok(Val::Bool(false));
    }
    Ok(Val::arr(out))
}
