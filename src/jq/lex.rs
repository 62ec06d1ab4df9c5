//! Lexing jq programs the way jq 1.7.1's scanner does (numbers like `.5` and `1.`,
//! `?//`, `$__loc__`, comments to the end of the line).

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
    /// Where the last lexeme starts: a token, a run of blanks or a comment. jq reports an
    /// unexpected end of file there, for its scanner's location stays at the last match.
    last: usize,
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s str) -> Self {
        Lexer {
            src,
            pos: 0,
            last: 0,
        }
    }

    fn rest(&self) -> &'s str {
        &self.src[self.pos..]
    }

    fn skip_space(&mut self) {
        loop {
            // (a carriage return is no blank to jq's scanner, but an invalid character)
            let r = self.rest();
            let t = r.trim_start_matches([' ', '\t', '\n']);
            if t.len() < r.len() {
                self.last = self.pos;
            }
            self.pos += r.len() - t.len();
            if !self.rest().starts_with('#') {
                break;
            }
            // a comment runs to the end of its line (jq 1.7.1 does not continue it after
            // a backslash); the newline starts the next run of blanks
            self.last = self.pos;
            self.pos += self.rest().find('\n').unwrap_or(self.rest().len());
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
                    text: &self.src[self.last..self.last],
                    pos: self.last,
                });
                return Ok(out);
            };
            self.last = start;
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
                b'"' => match string_end(b) {
                    Ok(n) => (Kind::Str, n),
                    Err((at, in_text)) => {
                        // a string that never ends: the error is at its last lexeme
                        return Err(Tok {
                            kind: if in_text { Kind::Str } else { Kind::Eof },
                            text: &self.src[start + at..start + at],
                            pos: start + at,
                        });
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

/// How a string literal ends: `Ok` with its length, interpolations included, or, when it
/// never ends (or holds more than [`MAX_NESTING`] interpolations), `Err` with where its
/// last lexeme starts and whether that is in the string's text rather than in an
/// interpolation. jq's scanner cuts a string into runs of text, runs of escapes, `\(`,
/// and the tokens, blanks and comments of its interpolations.
fn string_end(b: &[u8]) -> Result<usize, (usize, bool)> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let (mut i, mut last, mut interpolations) = (1, 0, 0usize);
    // what is open, innermost last: true for a string's text, false for code
    let mut in_text = vec![true];
    while i < b.len() {
        let start = i;
        match (in_text.last(), b[i]) {
            (None, _) => break,
            (Some(true), b'"') => {
                in_text.pop();
                i += 1;
                if in_text.is_empty() && interpolations <= MAX_NESTING {
                    return Ok(i);
                }
            }
            (Some(true), b'\\') if b.get(i + 1) == Some(&b'(') => {
                in_text.push(false);
                interpolations += 1;
                i += 2;
            }
            (Some(true), b'\\') => {
                while b.get(i) == Some(&b'\\') && b.get(i + 1) != Some(&b'(') {
                    i += 2;
                    if b.get(i - 1) == Some(&b'u') {
                        i += b[i.min(b.len())..]
                            .iter()
                            .take(4)
                            .take_while(|c| c.is_ascii_alphanumeric())
                            .count();
                    }
                }
            }
            (Some(true), _) => {
                while i < b.len() && b[i] != b'\\' && b[i] != b'"' {
                    i += 1;
                }
            }
            (Some(false), b' ' | b'\t' | b'\n') => {
                while matches!(b.get(i), Some(b' ' | b'\t' | b'\n')) {
                    i += 1;
                }
            }
            (Some(false), b'#') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            (Some(false), b'"') => {
                in_text.push(true);
                i += 1;
            }
            (Some(false), b'(') => {
                in_text.push(false);
                i += 1;
            }
            (Some(false), b')') => {
                in_text.pop();
                i += 1;
            }
            (Some(false), c) if word(c) || matches!(c, b'$' | b'@' | b'.') => {
                i += 1;
                while b.get(i).is_some_and(|&c| word(c)) {
                    i += 1;
                }
            }
            (Some(false), _) => i += 1,
        }
        last = start;
    }
    Err((last, in_text.last() == Some(&true)))
}
