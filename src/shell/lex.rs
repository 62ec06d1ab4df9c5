//! Lexing: tokens, and words with their quotes and expansions (`$x`, `${x...}`, `$(...)`,
//! backquotes, `$((...))`), here-document bodies.

use std::rc::Rc;

use super::ast::{Anchor, Param, ParamName, ParamOp, Part, Word};
use super::parse::Parser;
use crate::error::Result;

/// Nesting deeper than this (commands, substitutions, braces) is a syntax error, so that
/// parsing never overflows the stack.
pub const MAX_NESTING: u32 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    AndAnd,
    OrOr,
    Semi,
    DSemi,
    SemiAnd,
    DSemiAnd,
    Amp,
    Pipe,
    PipeAmp,
    LParen,
    RParen,
    Less,
    Great,
    DGreat,
    DLess,
    DLessDash,
    TLess,
    LessAnd,
    GreatAnd,
    LessGreat,
    Clobber,
    AndGreat,
}

impl Op {
    pub fn text(self) -> &'static str {
        match self {
            Op::AndAnd => "&&",
            Op::OrOr => "||",
            Op::Semi => ";",
            Op::DSemi => ";;",
            Op::SemiAnd => ";&",
            Op::DSemiAnd => ";;&",
            Op::Amp => "&",
            Op::Pipe => "|",
            Op::PipeAmp => "|&",
            Op::LParen => "(",
            Op::RParen => ")",
            Op::Less => "<",
            Op::Great => ">",
            Op::DGreat => ">>",
            Op::DLess => "<<",
            Op::DLessDash => "<<-",
            Op::TLess => "<<<",
            Op::LessAnd => "<&",
            Op::GreatAnd => ">&",
            Op::LessGreat => "<>",
            Op::Clobber => ">|",
            Op::AndGreat => "&>",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Word(Word),
    /// Digits right before `<` or `>`.
    IoNum(u32),
    Op(Op),
    Newline,
    Eof,
}

pub fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

pub fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

pub fn is_name(s: &[u8]) -> bool {
    matches!(s.first(), Some(&c) if is_name_start(c)) && s.iter().all(|&c| is_name_char(c))
}

fn is_meta(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

/// Where a word is being read, which decides what ends it and what quotes mean.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// An ordinary word: ends at a metacharacter.
    Plain,
    /// The operand of `${name OP word}`: ends at `}` (or at `/`, `:` for the parts of
    /// replace and substring operators). `dq` when the `${...}` is inside double quotes;
    /// `sq` whether single quotes quote there.
    Brace {
        dq: bool,
        sq: bool,
        slash: bool,
        colon: bool,
    },
}

impl Parser<'_> {
    fn peek_byte(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn byte_at(&self, offset: usize) -> Option<u8> {
        self.src.get(self.pos + offset).copied()
    }

    /// Skips blanks, backslash-newlines and a comment.
    fn skip_blanks(&mut self) {
        loop {
            match self.peek_byte() {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.byte_at(1) == Some(b'\n') => self.pos += 2,
                Some(b'#') => {
                    while let Some(c) = self.peek_byte() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Reads the next token. A newline token reads the pending here-document bodies.
    pub(super) fn lex_token(&mut self) -> Result<Tok> {
        self.skip_blanks();
        self.tok_start = self.pos;
        let Some(c) = self.peek_byte() else {
            return Ok(Tok::Eof);
        };
        let next = self.byte_at(1);
        let (op, len) = match c {
            b'\n' => {
                self.pos += 1;
                self.read_heredocs()?;
                return Ok(Tok::Newline);
            }
            b'&' => match next {
                Some(b'&') => (Op::AndAnd, 2),
                Some(b'>') => (Op::AndGreat, 2),
                _ => (Op::Amp, 1),
            },
            b'|' => match next {
                Some(b'|') => (Op::OrOr, 2),
                Some(b'&') => (Op::PipeAmp, 2),
                _ => (Op::Pipe, 1),
            },
            b';' => match (next, self.byte_at(2)) {
                (Some(b';'), Some(b'&')) => (Op::DSemiAnd, 3),
                (Some(b';'), _) => (Op::DSemi, 2),
                (Some(b'&'), _) => (Op::SemiAnd, 2),
                _ => (Op::Semi, 1),
            },
            b'(' => (Op::LParen, 1),
            b')' => (Op::RParen, 1),
            b'<' => match (next, self.byte_at(2)) {
                (Some(b'<'), Some(b'-')) => (Op::DLessDash, 3),
                (Some(b'<'), Some(b'<')) => (Op::TLess, 3),
                (Some(b'<'), _) => (Op::DLess, 2),
                (Some(b'&'), _) => (Op::LessAnd, 2),
                (Some(b'>'), _) => (Op::LessGreat, 2),
                _ => (Op::Less, 1),
            },
            b'>' => match next {
                Some(b'>') => (Op::DGreat, 2),
                Some(b'&') => (Op::GreatAnd, 2),
                Some(b'|') => (Op::Clobber, 2),
                _ => (Op::Great, 1),
            },
            _ => {
                // An IO number: digits right before a redirection operator.
                let digits = self.src[self.pos..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if digits > 0 && digits < 6 {
                    if let Some(b'<' | b'>') = self.byte_at(digits) {
                        let text = &self.src[self.pos..self.pos + digits];
                        let n = text.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
                        self.pos += digits;
                        return Ok(Tok::IoNum(n));
                    }
                }
                return Ok(Tok::Word(self.lex_word(Ctx::Plain)?));
            }
        };
        self.pos += len;
        Ok(Tok::Op(op))
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error_at(self.pos, "nesting too deep".into()));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn lex_word(&mut self, ctx: Ctx) -> Result<Word> {
        let mut parts = Vec::new();
        let mut lit = Vec::new();
        let (dq, sq) = match ctx {
            Ctx::Plain => (false, true),
            Ctx::Brace { dq, sq, .. } => (dq, sq),
        };
        if matches!(ctx, Ctx::Plain) && self.peek_byte() == Some(b'~') {
            if let Some(n) = tilde_prefix(&self.src[self.pos..], is_meta) {
                parts.push(Part::Tilde(self.src[self.pos + 1..self.pos + n].to_vec()));
                self.pos += n;
            }
        }
        while let Some(c) = self.peek_byte() {
            match ctx {
                Ctx::Plain if is_meta(c) => break,
                Ctx::Brace { slash, colon, .. }
                    if c == b'}' || (slash && c == b'/') || (colon && c == b':') =>
                {
                    break
                }
                _ => {}
            }
            match c {
                b'\\' => {
                    self.pos += 1;
                    match self.peek_byte() {
                        None => lit.push(b'\\'),
                        Some(b'\n') => self.pos += 1,
                        Some(n) => {
                            self.pos += 1;
                            if dq && !matches!(n, b'$' | b'`' | b'"' | b'\\' | b'}') {
                                lit.push(b'\\');
                                lit.push(n);
                            } else {
                                flush(&mut parts, &mut lit);
                                parts.push(Part::Quoted(vec![n]));
                            }
                        }
                    }
                }
                b'\'' if sq => {
                    flush(&mut parts, &mut lit);
                    parts.push(Part::Quoted(self.lex_single()?));
                }
                b'"' => {
                    flush(&mut parts, &mut lit);
                    self.pos += 1;
                    parts.push(Part::Double(self.lex_double()?));
                }
                b'$' => {
                    if let Some(part) = self.lex_dollar(!dq)? {
                        flush(&mut parts, &mut lit);
                        parts.push(part);
                    } else {
                        lit.push(b'$');
                    }
                }
                b'`' => {
                    flush(&mut parts, &mut lit);
                    parts.push(self.lex_backquote(dq)?);
                }
                _ => {
                    lit.push(c);
                    self.pos += 1;
                }
            }
        }
        flush(&mut parts, &mut lit);
        Ok(Word { parts })
    }

    fn lex_single(&mut self) -> Result<Vec<u8>> {
        let start = self.pos;
        self.pos += 1;
        match memchr::memchr(b'\'', &self.src[self.pos..]) {
            Some(n) => {
                let s = self.src[self.pos..self.pos + n].to_vec();
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(self.eof_error(start, "`''")),
        }
    }

    pub(super) fn eof_error(&self, start: usize, what: &str) -> crate::error::Error {
        let mut e = self.error_at(
            start,
            format!("unexpected EOF while looking for matching {what}"),
        );
        if let crate::error::Error::Syntax { line, .. } = &mut e {
            // bash reports the line where the input ended.
            *line = self.line_of(self.src.len());
        }
        e
    }

    /// The inside of double quotes, after the opening `"`, up to and past the closing one.
    fn lex_double(&mut self) -> Result<Vec<Part>> {
        let start = self.pos.saturating_sub(1);
        self.lex_quoted(Some(start), b"$`\"\\", true)
    }

    /// A here-document body (or the whole source of a sub-parser made for one): like the
    /// inside of double quotes, but `"` is an ordinary character.
    pub(super) fn lex_heredoc_body(&mut self) -> Result<Word> {
        let parts = self.lex_quoted(None, b"$`\\", false)?;
        Ok(Word { parts })
    }

    /// Text read like the inside of double quotes: up to and past the `"` that closes the
    /// quotes opened at `opened` or, with `None`, to the end of the input, where `"` is an
    /// ordinary byte. A backslash quotes the bytes of `escapable` (and joins lines);
    /// `in_dq` says how a backquoted command inside reads its own backslashes.
    fn lex_quoted(
        &mut self,
        opened: Option<usize>,
        escapable: &[u8],
        in_dq: bool,
    ) -> Result<Vec<Part>> {
        let close = opened.map(|_| b'"');
        let mut parts = Vec::new();
        let mut lit = Vec::new();
        loop {
            let Some(c) = self.peek_byte() else {
                if let Some(start) = opened {
                    return Err(self.eof_error(start, "`\"'"));
                }
                break;
            };
            match c {
                _ if Some(c) == close => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    match self.peek_byte() {
                        Some(b'\n') => self.pos += 1,
                        Some(n) if escapable.contains(&n) => {
                            self.pos += 1;
                            lit.push(n);
                        }
                        _ => lit.push(b'\\'),
                    }
                }
                b'$' => {
                    if let Some(part) = self.lex_dollar(false)? {
                        flush_quoted(&mut parts, &mut lit);
                        parts.push(part);
                    } else {
                        lit.push(b'$');
                    }
                }
                b'`' => {
                    flush_quoted(&mut parts, &mut lit);
                    parts.push(self.lex_backquote(in_dq)?);
                }
                _ => {
                    // Copy a run of plain bytes at once (at least `c`, which is plain).
                    let run = self.src[self.pos..]
                        .iter()
                        .take_while(|&&b| !matches!(b, b'\\' | b'$' | b'`') && Some(b) != close)
                        .count();
                    lit.extend_from_slice(&self.src[self.pos..self.pos + run]);
                    self.pos += run;
                }
            }
        }
        flush_quoted(&mut parts, &mut lit);
        Ok(parts)
    }

    /// At a `$`: the expansion it starts, or `None` when it is a literal `$`.
    fn lex_dollar(&mut self, unquoted: bool) -> Result<Option<Part>> {
        let start = self.pos;
        // Backslash-newlines between `$` and what follows are removed first (POSIX 2.2.1).
        while self.byte_at(1) == Some(b'\\') && self.byte_at(2) == Some(b'\n') {
            self.pos += 2;
        }
        let Some(c) = self.byte_at(1) else {
            self.pos += 1;
            return Ok(None);
        };
        let part = match c {
            b'{' => {
                self.pos += 2;
                self.enter()?;
                let p = self.lex_brace(!unquoted);
                self.leave();
                Part::Param(Box::new(p?))
            }
            b'(' if self.byte_at(2) == Some(b'(') => {
                self.pos += 3;
                self.enter()?;
                let p = self.lex_arith(start);
                self.leave();
                Part::Arith(p?)
            }
            b'(' => {
                self.pos += 2;
                self.enter()?;
                let script = self.parse_subst();
                self.leave();
                Part::Command(Rc::new(script?))
            }
            b'\'' if unquoted => {
                self.pos += 1;
                Part::Quoted(self.lex_ansi_c()?)
            }
            b'"' if unquoted => {
                // $"..." (locale translation) is "..." in the C locale.
                self.pos += 2;
                Part::Double(self.lex_double()?)
            }
            c if is_name_start(c) => {
                self.pos += 1;
                let n = self.src[self.pos..]
                    .iter()
                    .take_while(|&&c| is_name_char(c))
                    .count();
                let name = self.src[self.pos..self.pos + n].to_vec();
                self.pos += n;
                Part::Param(Box::new(Param {
                    name: ParamName::Var(name),
                    op: ParamOp::Plain,
                }))
            }
            c if c.is_ascii_digit() => {
                self.pos += 2;
                Part::Param(Box::new(Param {
                    name: ParamName::Positional(usize::from(c - b'0')),
                    op: ParamOp::Plain,
                }))
            }
            b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!' => {
                self.pos += 2;
                Part::Param(Box::new(Param {
                    name: ParamName::Special(c),
                    op: ParamOp::Plain,
                }))
            }
            _ => {
                self.pos += 1;
                return Ok(None);
            }
        };
        Ok(Some(part))
    }

    /// `$'...'`: backslash escapes as in C; the position is at the `'`.
    fn lex_ansi_c(&mut self) -> Result<Vec<u8>> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek_byte() else {
                return Err(self.eof_error(start, "`''"));
            };
            self.pos += 1;
            match c {
                b'\'' => return Ok(out),
                b'\\' => {
                    let Some(e) = self.peek_byte() else { continue };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'a' => out.push(7),
                        b'b' => out.push(8),
                        b'e' | b'E' => out.push(27),
                        b'f' => out.push(12),
                        b'v' => out.push(11),
                        b'\\' | b'\'' | b'"' | b'?' => out.push(e),
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek_byte() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push(v as u8);
                        }
                        b'x' => {
                            let mut v = 0u32;
                            let mut n = 0;
                            while n < 2 {
                                match self.peek_byte().and_then(|d| (d as char).to_digit(16)) {
                                    Some(d) => {
                                        v = v * 16 + d;
                                        self.pos += 1;
                                        n += 1;
                                    }
                                    None => break,
                                }
                            }
                            if n == 0 {
                                out.extend_from_slice(b"\\x");
                            } else {
                                out.push(v as u8);
                            }
                        }
                        b'c' => {
                            if let Some(d) = self.peek_byte() {
                                self.pos += 1;
                                out.push(d & 0x1f);
                            }
                        }
                        _ => {
                            out.push(b'\\');
                            out.push(e);
                        }
                    }
                }
                _ => out.push(c),
            }
        }
    }

    /// A backquoted command; the position is at the opening backquote.
    fn lex_backquote(&mut self, dq: bool) -> Result<Part> {
        let start = self.pos;
        self.pos += 1;
        let mut inner = Vec::new();
        loop {
            let Some(c) = self.peek_byte() else {
                return Err(self.eof_error(start, "``'"));
            };
            self.pos += 1;
            match c {
                b'`' => break,
                b'\\' => match self.peek_byte() {
                    Some(n @ (b'$' | b'`' | b'\\')) => {
                        inner.push(n);
                        self.pos += 1;
                    }
                    Some(b'"') if dq => {
                        inner.push(b'"');
                        self.pos += 1;
                    }
                    _ => inner.push(b'\\'),
                },
                _ => inner.push(c),
            }
        }
        self.enter()?;
        let line = self.line_of(start);
        let mut sub = Parser::new(&inner, line - 1, self.depth);
        let script = sub.parse_script();
        self.leave();
        Ok(Part::Command(Rc::new(script?)))
    }

    /// `$((...))` after the `$((`: the expression's parts, up to and past `))`.
    fn lex_arith(&mut self, start: usize) -> Result<Vec<Part>> {
        let mut parts = Vec::new();
        let mut lit = Vec::new();
        let mut depth = 0u32;
        loop {
            let Some(c) = self.peek_byte() else {
                return Err(self.eof_error(start, "`))'"));
            };
            match c {
                b'(' => {
                    depth += 1;
                    lit.push(c);
                    self.pos += 1;
                }
                b')' if depth > 0 => {
                    depth -= 1;
                    lit.push(c);
                    self.pos += 1;
                }
                b')' => {
                    if self.byte_at(1) != Some(b')') {
                        return Err(self
                            .error_at(self.pos, "syntax error near unexpected token `)'".into()));
                    }
                    self.pos += 2;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    match self.peek_byte() {
                        Some(b'\n') => self.pos += 1,
                        Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                            self.pos += 1;
                            lit.push(n);
                        }
                        _ => lit.push(b'\\'),
                    }
                }
                b'"' => {
                    self.pos += 1;
                    flush_quoted(&mut parts, &mut lit);
                    parts.push(Part::Double(self.lex_double()?));
                }
                b'\'' => {
                    flush_quoted(&mut parts, &mut lit);
                    parts.push(Part::Quoted(self.lex_single()?));
                }
                b'$' => {
                    if let Some(part) = self.lex_dollar(false)? {
                        flush_quoted(&mut parts, &mut lit);
                        parts.push(part);
                    } else {
                        lit.push(b'$');
                    }
                }
                b'`' => {
                    flush_quoted(&mut parts, &mut lit);
                    parts.push(self.lex_backquote(false)?);
                }
                _ => {
                    lit.push(c);
                    self.pos += 1;
                }
            }
        }
        flush_quoted(&mut parts, &mut lit);
        Ok(parts)
    }

    /// A `${...}` that means nothing: `ParamOp::Bad` with its text, up to the next `}`
    /// (a syntax error when there is none).
    fn bad_subst(&mut self, start: usize) -> Result<Param> {
        let Some(n) = memchr::memchr(b'}', &self.src[start..]) else {
            return Err(self.eof_error(start, "`}'"));
        };
        let end = start + n + 1;
        let text = self.src[start.saturating_sub(2)..end].to_vec();
        self.pos = end;
        Ok(Param {
            name: ParamName::Special(b'?'),
            op: ParamOp::Bad(text),
        })
    }

    /// Whether a parameter and its `}` start at `pos` (after `${#`: then it is a length).
    fn param_then_brace(&self, pos: usize) -> bool {
        let rest = &self.src[pos.min(self.src.len())..];
        let n = match rest.first() {
            Some(&c) if is_name_start(c) => rest.iter().take_while(|&&c| is_name_char(c)).count(),
            Some(c) if c.is_ascii_digit() => rest.iter().take_while(|c| c.is_ascii_digit()).count(),
            Some(b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => 1,
            _ => return false,
        };
        rest.get(n) == Some(&b'}')
    }

    /// `${...}` after the `${`.
    fn lex_brace(&mut self, dq: bool) -> Result<Param> {
        let start = self.pos;
        let mut length = false;
        // `${#name}` is a length; `${#}`, `${##}`-as-`$#`-then-operator (`${###}`,
        // `${##2}`) are `$#`.
        if self.peek_byte() == Some(b'#') && self.param_then_brace(self.pos + 1) {
            length = true;
            self.pos += 1;
        }
        let name = match self.peek_byte() {
            Some(c) if is_name_start(c) => {
                let n = self.src[self.pos..]
                    .iter()
                    .take_while(|&&c| is_name_char(c))
                    .count();
                let name = self.src[self.pos..self.pos + n].to_vec();
                self.pos += n;
                ParamName::Var(name)
            }
            Some(c) if c.is_ascii_digit() => {
                let n = self.src[self.pos..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let v = self.src[self.pos..self.pos + n]
                    .iter()
                    .try_fold(0usize, |v, d| {
                        v.checked_mul(10)?.checked_add(usize::from(d - b'0'))
                    });
                self.pos += n;
                ParamName::Positional(v.unwrap_or(usize::MAX))
            }
            Some(c @ (b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!')) => {
                self.pos += 1;
                ParamName::Special(c)
            }
            _ => return self.bad_subst(start),
        };
        if length {
            if self.peek_byte() != Some(b'}') {
                return self.bad_subst(start);
            }
            self.pos += 1;
            return Ok(Param {
                name,
                op: ParamOp::Length,
            });
        }
        let Some(c) = self.peek_byte() else {
            return Err(self.eof_error(start, "`}'"));
        };
        let plain = |sq| Ctx::Brace {
            dq,
            sq,
            slash: false,
            colon: false,
        };
        let op = match c {
            b'}' => {
                self.pos += 1;
                return Ok(Param {
                    name,
                    op: ParamOp::Plain,
                });
            }
            b':' if matches!(self.byte_at(1), Some(b'-' | b'=' | b'?' | b'+')) => {
                let o = self.byte_at(1).unwrap_or(b'-');
                self.pos += 2;
                let w = self.lex_word(plain(!dq))?;
                value_op(o, true, w)
            }
            b'-' | b'=' | b'?' | b'+' => {
                self.pos += 1;
                let w = self.lex_word(plain(!dq))?;
                value_op(c, false, w)
            }
            b':' => {
                self.pos += 1;
                let off = self.lex_word(Ctx::Brace {
                    dq,
                    sq: true,
                    slash: false,
                    colon: true,
                })?;
                let len = if self.peek_byte() == Some(b':') {
                    self.pos += 1;
                    Some(self.lex_word(plain(true))?)
                } else {
                    None
                };
                ParamOp::Substring(off, len)
            }
            b'#' | b'%' => {
                self.pos += 1;
                let longest = self.peek_byte() == Some(c);
                if longest {
                    self.pos += 1;
                }
                let w = self.lex_word(plain(true))?;
                if c == b'#' {
                    ParamOp::TrimPrefix(longest, w)
                } else {
                    ParamOp::TrimSuffix(longest, w)
                }
            }
            b'/' => {
                self.pos += 1;
                let mut all = false;
                let mut anchor = Anchor::None;
                match self.peek_byte() {
                    Some(b'/') => {
                        all = true;
                        self.pos += 1;
                    }
                    Some(b'#') => {
                        anchor = Anchor::Start;
                        self.pos += 1;
                    }
                    Some(b'%') => {
                        anchor = Anchor::End;
                        self.pos += 1;
                    }
                    _ => {}
                }
                let pattern = self.lex_word(Ctx::Brace {
                    dq,
                    sq: true,
                    slash: true,
                    colon: false,
                })?;
                let with = if self.peek_byte() == Some(b'/') {
                    self.pos += 1;
                    self.lex_word(plain(!dq))?
                } else {
                    Word::default()
                };
                ParamOp::Replace {
                    all,
                    anchor,
                    pattern,
                    with,
                }
            }
            b'^' | b',' => {
                self.pos += 1;
                let all = self.peek_byte() == Some(c);
                if all {
                    self.pos += 1;
                }
                ParamOp::Case(c == b'^', all)
            }
            _ => return self.bad_subst(start),
        };
        if self.peek_byte() != Some(b'}') {
            if self.pos >= self.src.len() {
                return Err(self.eof_error(start, "`}'"));
            }
            return self.bad_subst(start);
        }
        self.pos += 1;
        Ok(Param { name, op })
    }
}

fn value_op(c: u8, colon: bool, w: Word) -> ParamOp {
    match c {
        b'-' => ParamOp::Default(colon, w),
        b'=' => ParamOp::Assign(colon, w),
        b'?' => ParamOp::Error(colon, w),
        _ => ParamOp::Alt(colon, w),
    }
}

/// The length of the tilde-prefix `s` starts with (`~` and a login name, ended by `/` or
/// by a byte for which `ends` holds, or by the end), if it is one.
pub(super) fn tilde_prefix(s: &[u8], ends: impl Fn(u8) -> bool) -> Option<usize> {
    if s.first() != Some(&b'~') {
        return None;
    }
    let n = 1 + s[1..]
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
        .count();
    match s.get(n) {
        None => Some(n),
        Some(&c) if c == b'/' || ends(c) => Some(n),
        Some(_) => None,
    }
}

/// Tilde-prefixes in an assignment's value: at its start and after each unquoted `:`.
pub(super) fn assignment_tildes(parts: Vec<Part>) -> Vec<Part> {
    let last = parts.len().saturating_sub(1);
    let mut out = Vec::with_capacity(parts.len());
    for (k, part) in parts.into_iter().enumerate() {
        let Part::Lit(text) = part else {
            out.push(part);
            continue;
        };
        // An end of this literal ends a prefix only at the end of the word.
        let at_end = k == last;
        let mut lit = Vec::new();
        let mut i = 0;
        let mut boundary = k == 0;
        while i < text.len() {
            if boundary {
                let prefix = tilde_prefix(&text[i..], |c| c == b':')
                    .filter(|&n| at_end || i + n < text.len());
                if let Some(n) = prefix {
                    flush(&mut out, &mut lit);
                    out.push(Part::Tilde(text[i + 1..i + n].to_vec()));
                    i += n;
                    boundary = false;
                    continue;
                }
            }
            boundary = text[i] == b':';
            lit.push(text[i]);
            i += 1;
        }
        flush(&mut out, &mut lit);
    }
    out
}

fn flush(parts: &mut Vec<Part>, lit: &mut Vec<u8>) {
    if !lit.is_empty() {
        parts.push(Part::Lit(std::mem::take(lit)));
    }
}

fn flush_quoted(parts: &mut Vec<Part>, lit: &mut Vec<u8>) {
    if !lit.is_empty() {
        parts.push(Part::Quoted(std::mem::take(lit)));
    }
}

impl Parser<'_> {
    /// A header template: the inside of a double-quoted word, to the end of the input
    /// (a `"` is an ordinary byte; `\"` is one too).
    pub fn parse_template(&mut self) -> Result<Word> {
        let parts = self.lex_quoted(None, b"$`\"\\", true)?;
        Ok(Word { parts })
    }
}
