//! jq's regular expressions (`test`, `match`, `capture`, `scan`, `split`, `sub`) on
//! fancy-regex, which reads Oniguruma's common syntax (named groups, lookaround,
//! backreferences, POSIX classes). Offsets and lengths count code points, as jq's do.
//!
//! Flags: `g` all matches, `i` ignore case, `x` extended, `n` skip empty matches,
//! `s` single line (already the default), `p` dot matches newline too, `l` longest
//! (accepted; leftmost-first is kept). Compiled regexes are kept with the compiled
//! program (see [`super::Program`]).
//!
//! Steps: one per match, plus one per 64 bytes searched.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use fancy_regex::{Regex, RegexInput};
use jaq_core::{Error, ValR};

use super::fuel;
use super::ops::err;
use super::value::{Key, Map, Val};

/// Compiled regexes of one program, by pattern and flags, at most [`CACHE_SIZE`] (a
/// pattern built from the input is new each time); the last one used is found again
/// without a key to build and hash (a filter's `test` or `sub` over many values).
#[derive(Default)]
pub struct Cache {
    last: RefCell<Option<(String, String, Rc<Regex>)>>,
    all: RefCell<HashMap<(String, String), Rc<Regex>>>,
}

const CACHE_SIZE: usize = 256;

fn obj(fields: Vec<(&str, Val)>) -> Val {
    let mut m = Map::default();
    for (k, v) in fields {
        m.insert(Key::from(k), v);
    }
    Val::obj(m)
}

/// A regex compiled with its flags: `g` and `n` (and `p`'s half of it) steer the loop
/// over the matches, the rest go into the pattern.
struct Compiled {
    regex: Rc<Regex>,
    global: bool,
    skip_empty: bool,
    /// text that every match starts with (see [`literal_prefix`])
    prefix: Option<Rc<str>>,
}

/// The literal text that every match of `pattern` starts with, when the pattern begins
/// with plain characters and has no alternation outside groups (read without flags: `i`
/// and `x` change what the characters mean). A match then starts where the text does,
/// so the search can try the regex anchored at each place the text is found: one pass
/// over each match instead of three (the lazy DFA forward for its end, backward for its
/// start, then the captures).
fn literal_prefix(pattern: &str) -> Option<Rc<str>> {
    const SPECIAL: &[u8] = b"\\.[](){}*+?|^$";
    let b = pattern.as_bytes();
    let mut end = b
        .iter()
        .position(|c| SPECIAL.contains(c))
        .unwrap_or(b.len());
    if matches!(b.get(end), Some(b'*' | b'+' | b'?' | b'{')) {
        // the last character is repeated (or maybe absent)
        end = pattern[..end].char_indices().last().map_or(0, |(i, _)| i);
    }
    if end == 0 {
        return None;
    }
    // an alternative at the top level need not start with the text
    let (mut depth, mut i) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => depth = depth.checked_sub(1)?,
            b'|' if depth == 0 => return None,
            b'[' => {
                // a class: up to its `]` (one right after `[` or `[^` is a member),
                // with nested classes and escapes
                let mut nest = 1usize;
                i += 1;
                if b.get(i) == Some(&b'^') {
                    i += 1;
                }
                if b.get(i) == Some(&b']') {
                    i += 1;
                }
                while nest > 0 {
                    match b.get(i)? {
                        b'\\' => i += 1,
                        b'[' => nest += 1,
                        b']' => nest -= 1,
                        _ => {}
                    }
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (depth == 0).then(|| Rc::from(&pattern[..end]))
}

/// The input string and the compiled regex, or jq's error for a wrong argument.
fn compile<'s>(
    cache: &Cache,
    input: &'s Val,
    re: &Val,
    flags: &Val,
) -> ValR<(&'s str, Compiled), Val> {
    let Val::Str(s) = input else {
        return err(format!(
            "{} cannot be matched, as it is not a string",
            input.kind_and_trunc()
        ));
    };
    let Val::Str(pat) = re else {
        return err(format!("{} is not a string", re.kind_and_trunc()));
    };
    let flags = match flags {
        Val::Null => "",
        Val::Str(f) => f.as_str(),
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
    let last = match &*cache.last.borrow() {
        Some((p, i, r)) if p == pat.as_str() && *i == inline => Some(r.clone()),
        _ => None,
    };
    let prefix = if inline.is_empty() {
        literal_prefix(pat.as_str())
    } else {
        None
    };
    let regex = match last {
        Some(r) => r,
        None => {
            let key = (pat.to_string(), inline);
            let cached = cache.all.borrow().get(&key).cloned();
            let r = match cached {
                Some(r) => r,
                None => {
                    let full = if key.1.is_empty() {
                        pat.to_string()
                    } else {
                        format!("(?{}){pat}", key.1)
                    };
                    let r = match Regex::new(&full) {
                        Ok(r) => Rc::new(r),
                        Err(e) => {
                            return err(format!("{pat} (at offset 0) is not a valid regex: {e}"));
                        }
                    };
                    let mut all = cache.all.borrow_mut();
                    if all.len() >= CACHE_SIZE {
                        all.clear();
                    }
                    all.insert(key.clone(), r.clone());
                    r
                }
            };
            *cache.last.borrow_mut() = Some((key.0, key.1, r.clone()));
            r
        }
    };
    if !fuel::spend_bytes(s.len()) {
        return Err(Error::abort());
    }
    Ok((
        s,
        Compiled {
            regex,
            global,
            skip_empty,
            prefix,
        },
    ))
}

/// Calls `each` with the matches jq's loop finds (every one with `g`, empty ones left out
/// with `n`), in order, until it returns false. One step per match.
fn each_match(
    s: &str,
    c: &Compiled,
    mut each: impl FnMut(&fancy_regex::Captures<str>) -> bool,
) -> ValR<(), Val> {
    let mut start = 0usize;
    // Anchored tries at the places of the prefix, while they match: a try that fails
    // may have read far, so after one the search goes on unanchored.
    let finder = c
        .prefix
        .as_ref()
        .map(|p| memchr::memmem::Finder::new(p.as_bytes()));
    let mut anchored = finder.is_some();
    while start <= s.len() {
        let found = match (&finder, anchored) {
            (Some(finder), true) => match finder.find(&s.as_bytes()[start..]) {
                None => break,
                Some(at) => {
                    let input = RegexInput::new(s).from_pos(start + at).anchored(true);
                    match c.regex.captures_input(input) {
                        Ok(None) => {
                            anchored = false;
                            c.regex.captures_from_pos(s, start + at)
                        }
                        r => r,
                    }
                }
            },
            _ => c.regex.captures_from_pos(s, start),
        };
        let caps = match found {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(e) => return err(format!("regex failed: {e}")),
        };
        let Some(m) = caps.get(0) else { break };
        let empty = m.start() == m.end();
        if !(empty && c.skip_empty) {
            if !fuel::spend(1) {
                return Err(Error::abort());
            }
            if !each(&caps) || !c.global {
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
    Ok(())
}

/// `_match_impl(re; flags; test)`.
pub fn match_impl(cache: &Cache, input: Val, re: &Val, flags: &Val, test: bool) -> ValR<Val, Val> {
    let (s, c) = compile(cache, &input, re, flags)?;
    if test {
        let mut found = false;
        each_match(s, &c, |_| {
            found = true;
            false
        })?;
        return Ok(Val::Bool(found));
    }
    let names: Vec<Option<&str>> = c.regex.capture_names().collect();
    let mut out = Vec::new();
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
    each_match(s, &c, |caps| {
        let m = caps.get(0).expect("a match has group 0");
        let off = cps(m.start());
        let len = m.as_str().chars().count();
        let mut groups = Vec::new();
        for (i, name) in names.iter().enumerate().skip(1) {
            let name = name.map_or(Val::Null, Val::from);
            groups.push(match caps.get(i) {
                Some(g) => {
                    // Counted from the match's start: from the string's start, `scan`
                    // over a long string would count it once per group.
                    let goff = if g.start() >= m.start() {
                        off + s[m.start()..g.start()].chars().count()
                    } else {
                        s[..g.start()].chars().count()
                    };
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
        true
    })?;
    Ok(Val::arr(out))
}

/// What `sub` needs of each match: its span in bytes and the object of its named groups
/// (`{name: string}`, null for a group that took no part; a later group of a name wins,
/// as jq adds them up), without the match objects of `match`.
pub fn sub_matches(
    cache: &Cache,
    input: &Val,
    re: &Val,
    flags: &Val,
) -> ValR<Vec<(usize, usize, Val)>, Val> {
    let (s, c) = compile(cache, input, re, flags)?;
    let names: Vec<(usize, Key)> = c
        .regex
        .capture_names()
        .enumerate()
        .filter_map(|(i, n)| n.map(|n| (i, Key::from(n))))
        .collect();
    let mut out = Vec::new();
    each_match(s, &c, |caps| {
        let m = caps.get(0).expect("a match has group 0");
        let mut named = Map::default();
        for (i, name) in &names {
            let string = caps.get(*i).map_or(Val::Null, |g| Val::from(g.as_str()));
            named.insert(name.clone(), string);
        }
        out.push((m.start(), m.end(), Val::obj(named)));
        true
    })?;
    Ok(out)
}

/// `_scan_impl(re; flags)`: what jq's `scan` outputs, as an array: each match's groups
/// as strings (null where a group took no part) when the regex has groups, else the
/// match. (jq's definition builds a match object per match and takes it apart again.)
pub fn scan_impl(cache: &Cache, input: Val, re: &Val, flags: &Val) -> ValR<Val, Val> {
    let (s, c) = compile(cache, &input, re, flags)?;
    let groups = c.regex.captures_len() - 1;
    let mut out = Vec::new();
    each_match(s, &c, |caps| {
        out.push(if groups == 0 {
            Val::from(caps.get(0).map_or("", |m| m.as_str()))
        } else {
            Val::arr(
                (1..=groups)
                    .map(|i| caps.get(i).map_or(Val::Null, |g| Val::from(g.as_str())))
                    .collect(),
            )
        });
        true
    })?;
    Ok(Val::arr(out))
}

/// `_split_impl(re; flags)`: the pieces of the input between the matches, as jq's
/// `split/2` cuts them (its definition slices the string once per match, which over a
/// long string costs the square of its length).
pub fn split_impl(cache: &Cache, input: Val, re: &Val, flags: &Val) -> ValR<Val, Val> {
    let (s, c) = compile(cache, &input, re, flags)?;
    let mut pieces = Vec::new();
    let mut from = 0usize;
    each_match(s, &c, |caps| {
        let m = caps.get(0).expect("a match has group 0");
        pieces.push(Val::from(&s[from..m.start()]));
        from = m.end();
        true
    })?;
    pieces.push(Val::from(&s[from..]));
    Ok(Val::arr(pieces))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_the_text_every_match_starts_with() {
        let cases = [
            ("<Contents>[ ]*<Key>([^<]*)</Key>", Some("<Contents>")),
            ("abc", Some("abc")),
            ("abc*", Some("ab")),
            ("ab{2}", Some("a")),
            ("a?b", None),
            ("é+x", None),
            ("xé?", Some("x")),
            ("ab|cd", None),
            ("ab(c|d)", Some("ab")),
            ("ab[|]c", Some("ab")),
            ("ab[]|]c", Some("ab")),
            ("ab[^]|]c", Some("ab")),
            ("ab\\|c", Some("ab")),
            ("ab(c)|d", None),
            ("ab[[:alpha:]|]|c", None),
            ("ab(c", None),
            ("ab)c", None),
            ("ab[c", None),
            ("\\d+", None),
            ("(?i)ab", None),
            (".ab", None),
            ("^ab", None),
        ];
        for (pattern, want) in cases {
            assert_eq!(literal_prefix(pattern).as_deref(), want, "{pattern}");
        }
    }

    /// Every match with the anchored tries, as the plain search finds it: overlapping
    /// places of the prefix, tries that fail (after which the search goes on unanchored),
    /// groups that take no part.
    #[test]
    fn anchored_tries_find_the_matches_of_the_plain_search() {
        let cases = [
            ("ab(c)?", "abab abcab xab"),
            ("aa(a)", "aaaaaaa aaa"),
            ("<k>([^<]*)</k>", "<k>1</k><k>2<k>3</k><k></k> <k>"),
            ("x(y|z)+", "xyzzy xx xz xyx"),
            ("é(.)", "éaéébé"),
            ("ab[^c]*c", "ab ab abxc ab c"),
        ];
        for (pattern, text) in cases {
            let cache = Cache::default();
            let input = Val::from(text);
            let (s, mut c) = compile(&cache, &input, &Val::from(pattern), &Val::from("g")).unwrap();
            assert!(c.prefix.is_some(), "{pattern}");
            let all = |c: &Compiled| {
                let mut out = Vec::new();
                each_match(s, c, |caps| {
                    let groups: Vec<_> = (0..caps.len())
                        .map(|i| caps.get(i).map(|m| m.range()))
                        .collect();
                    out.push(groups);
                    true
                })
                .unwrap();
                out
            };
            let with_prefix = all(&c);
            c.prefix = None;
            let plain = all(&c);
            assert!(!plain.is_empty(), "{pattern}");
            assert_eq!(with_prefix, plain, "{pattern} over {text}");
        }
    }
}
