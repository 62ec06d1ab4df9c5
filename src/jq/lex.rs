//! Lexing jq programs the way jq 1.7.1's scanner does (numbers like `.5` and `1.`,
//! `?//`, `$__loc__`, comments continued by a trailing backslash).

/// A token: its kind and its text in the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tok<'s> {
    pub kind: Kind,
    pub text: &'s str,
    /// byte offset in the program
    pub pos: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// identifier or keyword (`map`, `if`, `mod::f`)
    Ident,
    /// `.foo`
    Field,
    /// `$foo`
    Var,
    /// `@base64`
    Format,
    Num,
    /// a whole string literal, quotes included (parsed again by the parser)
    Str,
    /// punctuation and operators
    Sym,
    /// a character jq does not know
    Invalid,
    Eof,
}

pub const KEYWORDS: &[&str] = &[
    "def", "if", "then", "elif", "else", "end", "as", "reduce", "foreach", "try", "catch", "label",
    "import", "include", "and", "or", "__loc__",
];

/// Deepest nesting of brackets and string interpolations a program may have.
pub const MAX_NESTING: usize = 200;

pub struct Lexer<'s> {
    src: &'s str,
    pos: usize,
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s str) -> Self {
        Lexer { src, pos: 0 }
    }

    fn rest(&self) -> &'s str {
        &self.src[self.pos..]
    }

    fn skip_space(&mut self) {
        loop {
            let r = self.rest();
            let t = r.trim_start_matches([' ', '\t', '\n', '\r']);
            self.pos += r.len() - t.len();
            if !self.rest().starts_with('#') {
                break;
            }
            // a comment runs to the end of the line; an odd number of backslashes at
            // the end continues it
            loop {
                let r = self.rest();
                let (line, nl) = match r.find('\n') {
                    Some(i) => (&r[..i], 1),
                    None => (r, 0),
                };
                self.pos += line.len() + nl;
                let line = line.strip_suffix('\r').unwrap_or(line);
                let bs = line.bytes().rev().take_while(|&b| b == b'\\').count();
                if bs % 2 == 0 || nl == 0 {
                    break;
                }
            }
        }
    }

    /// All tokens, ending with an `Eof`; `Err` at a string that never ends.
    pub fn tokens(mut self) -> Result<Vec<Tok<'s>>, Tok<'s>> {
        let mut out = Vec::new();
        // The brackets open so far: a closing one that does not close the last is no
        // token of the grammar (jq's lexer says INVALID_CHARACTER).
        let mut open = Vec::new();
        loop {
            self.skip_space();
            let start = self.pos;
            let r = self.rest();
            let b = r.as_bytes();
            let Some(&c) = b.first() else {
                out.push(Tok {
                    kind: Kind::Eof,
                    text: "",
                    pos: start,
                });
                return Ok(out);
            };
            let ident_len = |s: &[u8]| {
                s.iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count()
            };
            let (kind, len) = match c {
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                    let mut n = ident_len(b);
                    // module-qualified names: a::b::c
                    while b[n..].starts_with(b"::")
                        && b.get(n + 2)
                            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                    {
                        n += 2 + ident_len(&b[n + 2..]);
                    }
                    (Kind::Ident, n)
                }
                b'$' if b
                    .get(1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') =>
                {
                    (Kind::Var, 1 + ident_len(&b[1..]))
                }
                b'@' if b
                    .get(1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') =>
                {
                    (Kind::Format, 1 + ident_len(&b[1..]))
                }
                b'0'..=b'9' => (Kind::Num, num_len(b)),
                b'.' if b.get(1).is_some_and(u8::is_ascii_digit) => (Kind::Num, num_len(b)),
                b'.' if b.get(1) == Some(&b'.') => (Kind::Sym, 2),
                b'.' if b
                    .get(1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') =>
                {
                    (Kind::Field, 1 + ident_len(&b[1..]))
                }
                b'"' => match string_len(b) {
                    Some(n) => (Kind::Str, n),
                    None => {
                        return Err(Tok {
                            kind: Kind::Str,
                            text: r,
                            pos: start,
                        })
                    }
                },
                _ => {
                    const SYMS: &[&str] = &[
                        "?//=", "?//", "|=", "+=", "-=", "*=", "/=", "%=", "//=", "==", "!=", "<=",
                        ">=", "//", "|", ",", "+", "-", "*", "/", "%", "=", "<", ">", ".", "[",
                        "]", "(", ")", "{", "}", ":", ";", "?",
                    ];
                    match SYMS.iter().find(|s| r.starts_with(**s)) {
                        Some(s) if *s == "?//=" => (Kind::Sym, 3),
                        Some(&s @ ("(" | "[" | "{")) => {
                            open.push(s);
                            (Kind::Sym, 1)
                        }
                        Some(&s @ (")" | "]" | "}")) => {
                            let opener = match s {
                                ")" => "(",
                                "]" => "[",
                                _ => "{",
                            };
                            if open.last() == Some(&opener) {
                                open.pop();
                                (Kind::Sym, 1)
                            } else {
                                (Kind::Invalid, 1)
                            }
                        }
                        Some(s) => (Kind::Sym, s.len()),
                        None => (Kind::Invalid, r.chars().next().map_or(1, char::len_utf8)),
                    }
                }
            };
            self.pos += len;
            out.push(Tok {
                kind,
                text: &self.src[start..start + len],
                pos: start,
            });
        }
    }
}

/// Length of a number: `([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?`.
fn num_len(b: &[u8]) -> usize {
    let mut i = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if b.get(i) == Some(&b'.') {
        i += 1;
        i += b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let d = b[j.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if d > 0 {
            i = j + d;
        }
    }
    i
}

/// Length of a string literal with its interpolations, or `None` when it never ends.
fn string_len(b: &[u8]) -> Option<usize> {
    let mut i = 1;
    let mut depth = 0usize;
    // a stack of what closes: b'"' for strings, b')' for interpolations
    let mut in_str = vec![true];
    while i < b.len() {
        let c = b[i];
        if *in_str.last()? {
            match c {
                b'"' => {
                    in_str.pop();
                    if in_str.is_empty() {
                        return Some(i + 1);
                    }
                }
                b'\\' if b.get(i + 1) == Some(&b'(') => {
                    in_str.push(false);
                    depth += 1;
                    if depth > MAX_NESTING {
                        return None;
                    }
                    i += 1;
                }
                b'\\' => i += 1,
                _ => {}
            }
        } else {
            match c {
                b'"' => in_str.push(true),
                b'(' => in_str.push(false),
                b')' => {
                    in_str.pop();
                }
                b'#' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}
