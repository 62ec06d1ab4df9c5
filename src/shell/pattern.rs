//! Shell patterns (`*`, `?`, `[...]`) for `case` and `${x#p}`-style trimming, matched by
//! simulating the pattern as an NFA: linear in the subject's length for any pattern.
//!
//! A pattern is given as bytes in which a backslash quotes the next byte: the expander
//! writes quoted parts of a word that way.

#[derive(Debug, Clone)]
enum Elem {
    Byte(u8),
    Any,
    Star,
    Class(Box<[bool; 256]>),
}

#[derive(Debug, Clone)]
pub struct Pattern {
    elems: Vec<Elem>,
    /// The pattern is a plain string (no unquoted `*`, `?` or `[`).
    literal: Option<Vec<u8>>,
}

type ClassTest = fn(u8) -> bool;

const CLASSES: &[(&[u8], ClassTest)] = &[
    (b"alnum", |c| c.is_ascii_alphanumeric()),
    (b"alpha", |c| c.is_ascii_alphabetic()),
    (b"blank", |c| c == b' ' || c == b'\t'),
    (b"cntrl", |c| c.is_ascii_control()),
    (b"digit", |c| c.is_ascii_digit()),
    (b"graph", |c| c.is_ascii_graphic()),
    (b"lower", |c| c.is_ascii_lowercase()),
    (b"print", |c| c.is_ascii_graphic() || c == b' '),
    (b"punct", |c| c.is_ascii_punctuation()),
    (b"space", |c| {
        matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 11 | 12)
    }),
    (b"upper", |c| c.is_ascii_uppercase()),
    (b"xdigit", |c| c.is_ascii_hexdigit()),
];

impl Pattern {
    pub fn new(src: &[u8]) -> Pattern {
        let mut elems = Vec::new();
        let mut literal = Some(Vec::new());
        let mut i = 0;
        while i < src.len() {
            let c = src[i];
            i += 1;
            match c {
                b'\\' => {
                    let b = src.get(i).copied().unwrap_or(b'\\');
                    i += 1;
                    elems.push(Elem::Byte(b));
                    if let Some(l) = &mut literal {
                        l.push(b);
                    }
                }
                b'*' => {
                    if !matches!(elems.last(), Some(Elem::Star)) {
                        elems.push(Elem::Star);
                    }
                    literal = None;
                }
                b'?' => {
                    elems.push(Elem::Any);
                    literal = None;
                }
                b'[' => match parse_class(&src[i..]) {
                    Some((set, used)) => {
                        i += used;
                        elems.push(Elem::Class(set));
                        literal = None;
                    }
                    None => {
                        elems.push(Elem::Byte(b'['));
                        if let Some(l) = &mut literal {
                            l.push(b'[');
                        }
                    }
                },
                _ => {
                    elems.push(Elem::Byte(c));
                    if let Some(l) = &mut literal {
                        l.push(c);
                    }
                }
            }
        }
        Pattern { elems, literal }
    }

    fn reversed(&self) -> Pattern {
        let mut elems = self.elems.clone();
        elems.reverse();
        Pattern {
            elems,
            literal: self
                .literal
                .as_ref()
                .map(|l| l.iter().rev().copied().collect()),
        }
    }

    /// Whether the whole of `s` matches.
    pub fn matches(&self, s: &[u8]) -> bool {
        if let Some(l) = &self.literal {
            return l == s;
        }
        let mut last = false;
        self.run(s.iter().copied(), |_, m| {
            last = m;
            true
        });
        last
    }

    /// Runs the NFA over `input`, calling `seen(i, matched)` after each prefix of length
    /// `i` (from 0), `matched` telling whether that prefix matches the whole pattern.
    fn run(&self, input: impl Iterator<Item = u8>, mut seen: impl FnMut(usize, bool) -> bool) {
        let n = self.elems.len();
        let mut cur = vec![false; n + 1];
        let mut next = vec![false; n + 1];
        cur[0] = true;
        self.close(&mut cur);
        if !seen(0, cur[n]) {
            return;
        }
        for (i, c) in input.enumerate() {
            next.iter_mut().for_each(|x| *x = false);
            let mut any = false;
            for k in 0..n {
                if !cur[k] {
                    continue;
                }
                match &self.elems[k] {
                    Elem::Star => {
                        next[k] = true;
                        any = true;
                    }
                    Elem::Any => {
                        next[k + 1] = true;
                        any = true;
                    }
                    Elem::Byte(b) => {
                        if *b == c {
                            next[k + 1] = true;
                            any = true;
                        }
                    }
                    Elem::Class(set) => {
                        if set[usize::from(c)] {
                            next[k + 1] = true;
                            any = true;
                        }
                    }
                }
            }
            std::mem::swap(&mut cur, &mut next);
            self.close(&mut cur);
            // Stop when told to, or when no state is alive (no longer prefix can match).
            if !seen(i + 1, cur[n]) || !any {
                return;
            }
        }
    }

    /// A star may match the empty string: its state also enables the next one.
    fn close(&self, states: &mut [bool]) {
        for k in 0..self.elems.len() {
            if states[k] && matches!(self.elems[k], Elem::Star) {
                states[k + 1] = true;
            }
        }
    }

    /// The length of the shortest (or longest) prefix of `s` that matches.
    pub fn prefix(&self, s: &[u8], longest: bool) -> Option<usize> {
        if let Some(l) = &self.literal {
            return s.starts_with(l).then_some(l.len());
        }
        let mut found = None;
        self.run(s.iter().copied(), |i, m| {
            if m {
                found = Some(i);
                return longest;
            }
            true
        });
        found
    }

    /// The length of the shortest (or longest) suffix of `s` that matches.
    pub fn suffix(&self, s: &[u8], longest: bool) -> Option<usize> {
        if let Some(l) = &self.literal {
            return s.ends_with(l).then_some(l.len());
        }
        let rev = self.reversed();
        let mut found = None;
        rev.run(s.iter().rev().copied(), |i, m| {
            if m {
                found = Some(i);
                return longest;
            }
            true
        });
        found
    }

    /// The first match in `s` at or after `from`: its start and length, the longest at
    /// the leftmost start (as bash's `${x/p/r}`).
    pub fn find(&self, s: &[u8], from: usize) -> Option<(usize, usize)> {
        if let Some(l) = &self.literal {
            if l.is_empty() {
                return None;
            }
            return memchr::memmem::find(&s[from..], l).map(|i| (from + i, l.len()));
        }
        (from..=s.len()).find_map(|start| {
            self.prefix(&s[start..], true)
                .filter(|&len| len > 0)
                .map(|len| (start, len))
        })
    }
}

/// A bracket expression after its `[`: the set and the bytes used, or `None` if there is
/// no closing `]` (then `[` is literal).
fn parse_class(src: &[u8]) -> Option<(Box<[bool; 256]>, usize)> {
    let mut set = Box::new([false; 256]);
    let mut i = 0;
    let negate = matches!(src.first(), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut first = true;
    loop {
        let c = *src.get(i)?;
        if c == b']' && !first {
            i += 1;
            break;
        }
        first = false;
        if c == b'[' && src.get(i + 1) == Some(&b':') {
            if let Some(end) = memchr::memmem::find(&src[i + 2..], b":]") {
                let name = &src[i + 2..i + 2 + end];
                if let Some((_, f)) = CLASSES.iter().find(|(n, _)| *n == name) {
                    for b in 0..=255u8 {
                        if f(b) {
                            set[usize::from(b)] = true;
                        }
                    }
                    i += end + 4;
                    continue;
                }
            }
        }
        let (lo, used) = class_byte(&src[i..])?;
        i += used;
        if src.get(i) == Some(&b'-') && src.get(i + 1).is_some_and(|&c| c != b']') {
            let (hi, used) = class_byte(&src[i + 1..])?;
            i += 1 + used;
            for b in lo..=hi {
                set[usize::from(b)] = true;
            }
        } else {
            set[usize::from(lo)] = true;
        }
    }
    if negate {
        for b in set.iter_mut() {
            *b = !*b;
        }
    }
    Some((set, i))
}

fn class_byte(src: &[u8]) -> Option<(u8, usize)> {
    match src {
        [b'\\', c, ..] => Some((*c, 2)),
        [c, ..] => Some((*c, 1)),
        [] => None,
    }
}

/// Writes `s` so that a [`Pattern`] matches it literally.
pub fn quote_into(out: &mut Vec<u8>, s: &[u8]) {
    for &c in s {
        if matches!(c, b'\\' | b'*' | b'?' | b'[' | b']' | b'&') {
            out.push(b'\\');
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching() {
        let m = |p: &str, s: &str| Pattern::new(p.as_bytes()).matches(s.as_bytes());
        assert!(m("*", ""));
        assert!(m("a*b", "axxb"));
        assert!(!m("a*b", "axxc"));
        assert!(m("?", "x"));
        assert!(!m("?", ""));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[!a-c]x", "dx"));
        assert!(m("[[:digit:]]*", "1abc"));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
        assert!(m("[", "["));
        assert!(m("[]]", "]"));
        assert!(!m("*a*a*a*a*a*a*a*b", &"a".repeat(5000)));
    }

    #[test]
    fn trimming() {
        let p = Pattern::new(b"*/");
        assert_eq!(p.prefix(b"a/b/c", false), Some(2));
        assert_eq!(p.prefix(b"a/b/c", true), Some(4));
        let p = Pattern::new(b".*");
        assert_eq!(p.suffix(b"a.b.c", false), Some(2));
        assert_eq!(p.suffix(b"a.b.c", true), Some(4));
        assert_eq!(Pattern::new(b"x").prefix(b"abc", false), None);
        assert_eq!(Pattern::new(b"*").prefix(b"abc", false), Some(0));
    }
}
