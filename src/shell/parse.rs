//! Parsing: the grammar of the POSIX sh subset, from tokens to the [`ast`](super::ast).

use std::cell::OnceCell;
use std::rc::Rc;

use super::ast::*;
use super::lex::{assignment_tildes, is_name, Op, Tok};
use crate::error::{Error, Result};

/// A here-document whose body comes after the next newline.
struct Pending {
    delim: Vec<u8>,
    strip: bool,
    quoted: bool,
    cell: Rc<OnceCell<Word>>,
}

pub struct Parser<'a> {
    pub(super) src: &'a [u8],
    pub(super) pos: usize,
    /// Where the last token started, for error columns.
    pub(super) tok_start: usize,
    pub(super) depth: u32,
    line_base: u32,
    newlines: Vec<usize>,
    peeked: Option<Tok>,
    heredocs: Vec<Pending>,
    /// Top-level commands complete before the current line: what bash has already run
    /// when it meets a syntax error further on.
    pub(super) complete: usize,
}

/// A script that failed to parse: the error, and the commands before it that bash would
/// have run (it reads and runs a script line by line).
#[derive(Debug)]
pub struct Failed {
    pub error: Error,
    pub prefix: Box<Script>,
}

const CLOSERS: &[&[u8]] = &[
    b"then", b"else", b"elif", b"fi", b"do", b"done", b"esac", b"}",
];

impl<'a> Parser<'a> {
    pub fn new(src: &'a [u8], line_base: u32, depth: u32) -> Self {
        Parser {
            src,
            pos: 0,
            tok_start: 0,
            depth,
            line_base,
            newlines: memchr::memchr_iter(b'\n', src).collect(),
            peeked: None,
            heredocs: Vec::new(),
            complete: 0,
        }
    }

    pub(super) fn line_of(&self, pos: usize) -> u32 {
        let n = self.newlines.partition_point(|&p| p < pos);
        self.line_base + n as u32 + 1
    }

    pub(super) fn error_at(&self, pos: usize, message: String) -> Error {
        let n = self.newlines.partition_point(|&p| p < pos);
        let line_start = if n == 0 { 0 } else { self.newlines[n - 1] + 1 };
        Error::Syntax {
            line: self.line_base + n as u32 + 1,
            column: (pos - line_start) as u32 + 1,
            message,
        }
    }

    /// Parses a whole script, keeping what came before a syntax error.
    pub fn parse_top(src: &[u8]) -> std::result::Result<Script, Failed> {
        let mut p = Parser::new(src, 0, 0);
        let mut body = Vec::new();
        match p.top_list(&mut body) {
            Ok(()) => Ok(Script { body }),
            Err(error) => {
                body.truncate(p.complete);
                Err(Failed {
                    error,
                    prefix: Box::new(Script { body }),
                })
            }
        }
    }

    fn top_list(&mut self, body: &mut List) -> Result<()> {
        loop {
            self.linebreak()?;
            if self.peek()? == &Tok::Eof {
                return Ok(());
            }
            if !self.starts_command()? {
                return Err(self.unexpected());
            }
            body.push(self.and_or()?);
            match self.peek()? {
                Tok::Op(Op::Semi | Op::Amp) => {
                    self.next()?;
                }
                // A line is complete: bash would run it before reading on.
                Tok::Newline => self.complete = body.len(),
                Tok::Eof => {}
                _ => return Err(self.unexpected()),
            }
        }
    }

    /// Parses a script that must be whole (a backquoted command, `eval`, `sh -c`).
    pub fn parse_script(&mut self) -> Result<Script> {
        let body = self.list()?;
        match self.peek()? {
            Tok::Eof => Ok(Script { body }),
            _ => Err(self.unexpected()),
        }
    }

    /// `$(...)` after the `$(`: a list up to and past the closing `)`.
    pub(super) fn parse_subst(&mut self) -> Result<Script> {
        let start = self.pos;
        let body = self.list()?;
        match self.next()? {
            Tok::Op(Op::RParen) => Ok(Script { body }),
            Tok::Eof => Err(self.eof_error(start, "`)'")),
            _ => Err(self.unexpected_last()),
        }
    }

    pub(super) fn peek(&mut self) -> Result<&Tok> {
        if self.peeked.is_none() {
            let t = self.lex_token()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.as_ref().unwrap_or(&Tok::Eof))
    }

    pub(super) fn next(&mut self) -> Result<Tok> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex_token(),
        }
    }

    fn token_text(&self, tok: &Tok) -> String {
        match tok {
            Tok::Op(op) => op.text().to_string(),
            Tok::Newline => "newline".into(),
            Tok::Eof => String::new(),
            Tok::IoNum(n) => n.to_string(),
            Tok::Word(_) => {
                String::from_utf8_lossy(&self.src[self.tok_start..self.pos]).into_owned()
            }
        }
    }

    /// The error for the peeked token.
    fn unexpected(&mut self) -> Error {
        let tok = match self.peek() {
            Ok(t) => t.clone(),
            Err(e) => return e,
        };
        self.unexpected_tok(&tok)
    }

    /// The error for the token just taken with `next`.
    fn unexpected_last(&mut self) -> Error {
        // `next` left tok_start at the token's start.
        let tok = match self.src.get(self.tok_start) {
            None => Tok::Eof,
            Some(_) => {
                let save = self.pos;
                self.pos = self.tok_start;
                let t = self.lex_token().unwrap_or(Tok::Eof);
                let e = self.unexpected_tok(&t);
                self.pos = save;
                return e;
            }
        };
        self.unexpected_tok(&tok)
    }

    fn unexpected_tok(&self, tok: &Tok) -> Error {
        match tok {
            Tok::Eof => {
                let mut e = self.error_at(
                    self.src.len(),
                    "syntax error: unexpected end of file".into(),
                );
                if let Error::Syntax { line, .. } = &mut e {
                    *line = self.line_of(self.src.len()).max(1);
                }
                e
            }
            t => self.error_at(
                self.tok_start,
                format!(
                    "syntax error near unexpected token `{}'",
                    self.token_text(t)
                ),
            ),
        }
    }

    /// Skips newline tokens.
    fn linebreak(&mut self) -> Result<()> {
        while self.peek()? == &Tok::Newline {
            self.next()?;
        }
        Ok(())
    }

    fn peek_keyword(&mut self) -> Result<Option<&[u8]>> {
        Ok(match self.peek()? {
            Tok::Word(w) => w.as_literal(),
            _ => None,
        })
    }

    fn is_keyword(&mut self, kw: &[u8]) -> Result<bool> {
        Ok(self.peek_keyword()? == Some(kw))
    }

    fn expect_keyword(&mut self, kw: &[u8]) -> Result<()> {
        if self.is_keyword(kw)? {
            self.next()?;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn starts_command(&mut self) -> Result<bool> {
        Ok(match self.peek()? {
            Tok::Word(w) => !matches!(w.as_literal(), Some(k) if CLOSERS.contains(&k)),
            Tok::IoNum(_) => true,
            Tok::Op(op) => matches!(
                op,
                Op::LParen
                    | Op::Less
                    | Op::Great
                    | Op::DGreat
                    | Op::DLess
                    | Op::DLessDash
                    | Op::TLess
                    | Op::LessAnd
                    | Op::GreatAnd
                    | Op::LessGreat
                    | Op::Clobber
                    | Op::AndGreat
            ),
            _ => false,
        })
    }

    /// A compound list: and-or lists separated by `;`, `&` or newlines, up to a token
    /// that cannot start a command.
    fn list(&mut self) -> Result<List> {
        let mut list = Vec::new();
        loop {
            self.linebreak()?;
            if !self.starts_command()? {
                return Ok(list);
            }
            list.push(self.and_or()?);
            match self.peek()? {
                Tok::Op(Op::Semi | Op::Amp) => {
                    self.next()?;
                }
                Tok::Newline => {}
                _ => return Ok(list),
            }
        }
    }

    /// A list that must not be empty (bash rejects `if true; then fi`).
    fn nonempty_list(&mut self) -> Result<List> {
        let list = self.list()?;
        if list.is_empty() {
            return Err(self.unexpected());
        }
        Ok(list)
    }

    fn and_or(&mut self) -> Result<AndOr> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            let and = match self.peek()? {
                Tok::Op(Op::AndAnd) => true,
                Tok::Op(Op::OrOr) => false,
                _ => break,
            };
            self.next()?;
            self.linebreak()?;
            rest.push((and, self.pipeline()?));
        }
        Ok(AndOr { first, rest })
    }

    fn pipeline(&mut self) -> Result<Pipeline> {
        let mut bang = false;
        while self.is_keyword(b"!")? {
            self.next()?;
            bang = !bang;
        }
        let mut cmds = vec![self.command()?];
        loop {
            match self.peek()? {
                Tok::Op(Op::Pipe) => {}
                Tok::Op(Op::PipeAmp) => {
                    // `a |& b` is `a 2>&1 | b`.
                    if let Some(Command::Simple(s)) = cmds.last_mut() {
                        s.redirs.push(Redir {
                            fd: Some(2),
                            op: RedirOp::DupOut,
                            target: RedirTarget::Word(Word {
                                parts: vec![Part::Lit(b"1".to_vec())],
                            }),
                        });
                    }
                }
                _ => break,
            }
            self.next()?;
            self.linebreak()?;
            cmds.push(self.command()?);
        }
        Ok(Pipeline { bang, cmds })
    }

    fn command(&mut self) -> Result<Command> {
        if !self.starts_command()? {
            return Err(self.unexpected());
        }
        self.depth += 1;
        if self.depth > super::lex::MAX_NESTING {
            return Err(self.error_at(self.pos, "nesting too deep".into()));
        }
        let c = self.command_inner();
        self.depth -= 1;
        c
    }

    fn command_inner(&mut self) -> Result<Command> {
        if let Some(kw) = self.peek_keyword()? {
            let kw = kw.to_vec();
            if kw.as_slice() == b"function" {
                self.next()?;
                let name = match self.next()? {
                    Tok::Word(w) => w.as_literal().map(<[u8]>::to_vec),
                    _ => None,
                };
                let Some(name) = name else {
                    return Err(self.unexpected_last());
                };
                if self.peek()? == &Tok::Op(Op::LParen) {
                    self.next()?;
                    if self.next()? != Tok::Op(Op::RParen) {
                        return Err(self.unexpected_last());
                    }
                }
                return self.funcdef(name);
            }
            if let Some(c) = self.compound()? {
                let redirs = self.redirs()?;
                return Ok(Command::Compound(Box::new(c), redirs));
            }
        }
        if self.peek()? == &Tok::Op(Op::LParen) {
            let c = self.compound()?.ok_or_else(|| self.unexpected())?;
            let redirs = self.redirs()?;
            return Ok(Command::Compound(Box::new(c), redirs));
        }
        self.simple()
    }

    fn funcdef(&mut self, name: Vec<u8>) -> Result<Command> {
        self.linebreak()?;
        let body = match self.compound()? {
            Some(c) => c,
            None => return Err(self.unexpected()),
        };
        let redirs = self.redirs()?;
        Ok(Command::FuncDef(Rc::new(FuncDef { name, body, redirs })))
    }

    /// Redirections after a compound command.
    fn redirs(&mut self) -> Result<Vec<Redir>> {
        let mut redirs = Vec::new();
        while let Some(r) = self.redir()? {
            redirs.push(r);
        }
        Ok(redirs)
    }

    /// A compound command if the next token starts one.
    fn compound(&mut self) -> Result<Option<Compound>> {
        if self.peek()? == &Tok::Op(Op::LParen) {
            self.next()?;
            let body = self.nonempty_list()?;
            if self.peek()? != &Tok::Op(Op::RParen) {
                return Err(self.unexpected());
            }
            self.next()?;
            return Ok(Some(Compound::Subshell(body)));
        }
        let Some(kw) = self.peek_keyword()? else {
            return Ok(None);
        };
        let c = match kw {
            b"{" => {
                self.next()?;
                let body = self.nonempty_list()?;
                self.expect_keyword(b"}")?;
                Compound::Group(body)
            }
            b"if" => {
                self.next()?;
                let mut arms = Vec::new();
                let mut otherwise = None;
                loop {
                    let cond = self.nonempty_list()?;
                    self.expect_keyword(b"then")?;
                    let body = self.nonempty_list()?;
                    arms.push((cond, body));
                    if self.is_keyword(b"elif")? {
                        self.next()?;
                        continue;
                    }
                    if self.is_keyword(b"else")? {
                        self.next()?;
                        otherwise = Some(self.nonempty_list()?);
                    }
                    self.expect_keyword(b"fi")?;
                    break;
                }
                Compound::If { arms, otherwise }
            }
            b"while" | b"until" => {
                let until = kw == b"until";
                self.next()?;
                let cond = self.nonempty_list()?;
                self.expect_keyword(b"do")?;
                let body = self.nonempty_list()?;
                self.expect_keyword(b"done")?;
                Compound::Loop { until, cond, body }
            }
            b"for" => {
                self.next()?;
                let var = match self.next()? {
                    Tok::Word(w) => match w.as_literal() {
                        Some(n) if is_name(n) => n.to_vec(),
                        _ => {
                            let text = self.token_text(&Tok::Word(w.clone()));
                            return Err(self.error_at(
                                self.tok_start,
                                format!("`{text}': not a valid identifier"),
                            ));
                        }
                    },
                    _ => return Err(self.unexpected_last()),
                };
                self.linebreak()?;
                let mut words = None;
                if self.is_keyword(b"in")? {
                    self.next()?;
                    let mut ws = Vec::new();
                    loop {
                        match self.peek()? {
                            Tok::Word(_) => {
                                if let Tok::Word(w) = self.next()? {
                                    ws.push(w);
                                }
                            }
                            Tok::Op(Op::Semi) | Tok::Newline => {
                                self.next()?;
                                break;
                            }
                            _ => return Err(self.unexpected()),
                        }
                    }
                    words = Some(ws);
                } else if self.peek()? == &Tok::Op(Op::Semi) {
                    self.next()?;
                }
                self.linebreak()?;
                self.expect_keyword(b"do")?;
                let body = self.nonempty_list()?;
                self.expect_keyword(b"done")?;
                Compound::For { var, words, body }
            }
            b"case" => {
                self.next()?;
                let word = match self.next()? {
                    Tok::Word(w) => w,
                    _ => return Err(self.unexpected_last()),
                };
                self.linebreak()?;
                self.expect_keyword(b"in")?;
                self.linebreak()?;
                let mut arms = Vec::new();
                loop {
                    if self.is_keyword(b"esac")? {
                        self.next()?;
                        break;
                    }
                    if self.peek()? == &Tok::Op(Op::LParen) {
                        self.next()?;
                    }
                    let mut patterns = Vec::new();
                    loop {
                        match self.next()? {
                            Tok::Word(w) => patterns.push(w),
                            _ => return Err(self.unexpected_last()),
                        }
                        match self.next()? {
                            Tok::Op(Op::Pipe) => continue,
                            Tok::Op(Op::RParen) => break,
                            _ => return Err(self.unexpected_last()),
                        }
                    }
                    let body = self.list()?;
                    let end = match self.peek()? {
                        Tok::Op(Op::DSemi) => CaseEnd::Break,
                        Tok::Op(Op::SemiAnd) => CaseEnd::FallThrough,
                        Tok::Op(Op::DSemiAnd) => CaseEnd::Continue,
                        _ => {
                            if self.is_keyword(b"esac")? {
                                arms.push(CaseArm {
                                    patterns,
                                    body,
                                    end: CaseEnd::Break,
                                });
                                self.next()?;
                                break;
                            }
                            return Err(self.unexpected());
                        }
                    };
                    self.next()?;
                    self.linebreak()?;
                    arms.push(CaseArm {
                        patterns,
                        body,
                        end,
                    });
                }
                Compound::Case { word, arms }
            }
            _ => return Ok(None),
        };
        Ok(Some(c))
    }

    /// A redirection if the next tokens are one.
    fn redir(&mut self) -> Result<Option<Redir>> {
        let fd = match self.peek()? {
            Tok::IoNum(n) => {
                let n = *n;
                self.next()?;
                Some(n)
            }
            Tok::Op(_) => None,
            _ => return Ok(None),
        };
        let op = match self.peek()? {
            Tok::Op(op) => *op,
            _ => return Err(self.unexpected()),
        };
        let (op, here) = match op {
            Op::Less => (RedirOp::In, None),
            Op::Great | Op::Clobber => (RedirOp::Out, None),
            Op::DGreat => (RedirOp::Append, None),
            Op::LessGreat => (RedirOp::ReadWrite, None),
            Op::LessAnd => (RedirOp::DupIn, None),
            Op::GreatAnd => (RedirOp::DupOut, None),
            Op::AndGreat => (RedirOp::OutErr, None),
            Op::DLess => (RedirOp::HereDoc, Some(false)),
            Op::DLessDash => (RedirOp::HereDoc, Some(true)),
            Op::TLess => (RedirOp::HereDoc, None),
            _ => {
                if fd.is_some() {
                    return Err(self.unexpected());
                }
                return Ok(None);
            }
        };
        self.next()?;
        let word = match self.next()? {
            Tok::Word(w) => w,
            _ => return Err(self.unexpected_last()),
        };
        if op == RedirOp::HereDoc {
            let Some(strip) = here else {
                // `<<< word`: a here-string, the word and a newline.
                let mut parts = word.parts;
                parts.push(Part::Quoted(b"\n".to_vec()));
                let cell = Rc::new(OnceCell::new());
                let _ = cell.set(Word {
                    parts: vec![Part::Double(parts)],
                });
                return Ok(Some(Redir {
                    fd,
                    op,
                    target: RedirTarget::Here(cell),
                }));
            };
            let delim = match word.unquoted_text() {
                Some(d) => d,
                None => self.src[self.tok_start..self.pos].to_vec(),
            };
            let cell = Rc::new(OnceCell::new());
            self.heredocs.push(Pending {
                delim,
                strip,
                quoted: word.has_quotes(),
                cell: cell.clone(),
            });
            return Ok(Some(Redir {
                fd,
                op,
                target: RedirTarget::Here(cell),
            }));
        }
        Ok(Some(Redir {
            fd,
            op,
            target: RedirTarget::Word(word),
        }))
    }

    fn simple(&mut self) -> Result<Command> {
        let line = self.line_of(self.pos.max(self.tok_start));
        let mut s = Simple {
            assigns: Vec::new(),
            words: Vec::new(),
            declaration: false,
            redirs: Vec::new(),
            line,
        };
        loop {
            if let Some(r) = self.redir()? {
                s.redirs.push(r);
                continue;
            }
            match self.peek()? {
                Tok::Word(_) => {}
                Tok::Op(Op::LParen)
                    if s.words.len() == 1 && s.assigns.is_empty() && s.redirs.is_empty() =>
                {
                    let name = s.words[0].as_literal().map(<[u8]>::to_vec);
                    match name {
                        // POSIX: a function's name is a NAME (bash, outside its POSIX
                        // mode, takes `a-b` and `a.b` too).
                        Some(name) if is_name(&name) => {
                            self.next()?;
                            if self.next()? != Tok::Op(Op::RParen) {
                                return Err(self.unexpected_last());
                            }
                            return self.funcdef(name);
                        }
                        Some(name) if valid_func_name(&name) => {
                            let at = self.tok_start;
                            return Err(self.error_at(
                                at,
                                format!(
                                    "`{}': not a valid function name",
                                    String::from_utf8_lossy(&name)
                                ),
                            ));
                        }
                        _ => return Err(self.unexpected()),
                    }
                }
                _ => break,
            }
            let Tok::Word(w) = self.next()? else { break };
            if s.words.is_empty() {
                if let Some(a) = as_assignment(&w) {
                    s.assigns.push(a);
                    continue;
                }
            }
            s.words.push(w);
        }
        if s.words.is_empty() && s.assigns.is_empty() && s.redirs.is_empty() {
            return Err(self.unexpected());
        }
        let utility = s.words.first().and_then(Word::as_literal);
        if utility.is_some_and(is_declaration_utility) {
            s.declaration = true;
            for w in &mut s.words[1..] {
                if let Some(a) = as_assignment(w) {
                    // The word keeps its `name=`; its value gets the assignment's tildes.
                    let Some(Part::Lit(first)) = w.parts.first() else {
                        continue;
                    };
                    let eq = memchr::memchr(b'=', first).unwrap_or(0);
                    let mut parts = vec![Part::Lit(first[..=eq].to_vec())];
                    parts.extend(a.value.parts);
                    w.parts = parts;
                }
            }
        }
        Ok(Command::Simple(s))
    }

    /// Reads the bodies of the here-documents started on the line just ended.
    pub(super) fn read_heredocs(&mut self) -> Result<()> {
        for h in std::mem::take(&mut self.heredocs) {
            let start = self.pos;
            let mut body = Vec::new();
            let mut found = false;
            while self.pos < self.src.len() {
                let rest = &self.src[self.pos..];
                let (line, next) = match memchr::memchr(b'\n', rest) {
                    Some(n) => (&rest[..n], n + 1),
                    None => (rest, rest.len()),
                };
                self.pos += next;
                let mut text = line;
                if h.strip {
                    while let [b'\t', r @ ..] = text {
                        text = r;
                    }
                }
                if text == h.delim.as_slice() {
                    found = true;
                    break;
                }
                body.extend_from_slice(text);
                if next > line.len() {
                    body.push(b'\n');
                }
            }
            let _ = found;
            let word = if h.quoted {
                Word {
                    parts: vec![Part::Quoted(body)],
                }
            } else {
                let mut sub = Parser::new(&body, self.line_of(start) - 1, self.depth);
                sub.lex_heredoc_body()?
            };
            let _ = h.cell.set(word);
        }
        Ok(())
    }
}

/// bash accepts most words as function names; we keep to names that cannot be mistaken.
fn valid_func_name(name: &[u8]) -> bool {
    !name.is_empty()
        && !CLOSERS.contains(&name)
        && name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':' | b'@'))
}

/// The utilities whose `name=value` arguments are assignments (POSIX's `export` and
/// `readonly`; bash's and dash's `local`; bash's `declare` and `typeset`).
fn is_declaration_utility(name: &[u8]) -> bool {
    matches!(
        name,
        b"export" | b"readonly" | b"local" | b"declare" | b"typeset"
    )
}

/// Whether a command's argument is written as an assignment (`name=...`, `name+=...`).
pub(super) fn is_assignment_word(w: &Word) -> bool {
    as_assignment(w).is_some()
}

/// `name=value` or `name+=value` when the word starts with one.
fn as_assignment(w: &Word) -> Option<Assign> {
    let Some(Part::Lit(first)) = w.parts.first() else {
        return None;
    };
    let eq = memchr::memchr(b'=', first)?;
    let (name, append) = match first[..eq].strip_suffix(b"+") {
        Some(n) => (n, true),
        None => (&first[..eq], false),
    };
    if !is_name(name) {
        return None;
    }
    let mut parts = Vec::with_capacity(w.parts.len());
    if eq + 1 < first.len() {
        parts.push(Part::Lit(first[eq + 1..].to_vec()));
    }
    parts.extend(w.parts[1..].iter().cloned());
    Some(Assign {
        name: name.to_vec(),
        value: Word {
            parts: assignment_tildes(parts),
        },
        append,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Script> {
        Parser::parse_top(s.as_bytes()).map_err(|f| f.error)
    }

    #[test]
    fn parses_basic_forms() {
        for s in [
            "echo a b c",
            "a | b | c && d || e; f",
            "if a; then b; elif c; then d; else e; fi",
            "for i in 1 2 3; do echo $i; done",
            "for i; do :; done",
            "while true; do break; done",
            "case $x in a|b) echo ab;; *) echo other;; esac",
            "f() { echo hi; }",
            "x=1 y=2 cmd arg >/dev/null 2>&1",
            "echo \"a $b ${c:-d} $(e f) `g`\"",
            "echo $((1 + 2 * (3 - 4)))",
            "cat <<EOF\nhello $x\nEOF\necho after",
            "( a; b ) | c",
            "! true",
        ] {
            parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        }
    }

    #[test]
    fn syntax_errors_say_where() {
        let e = parse("echo a\nif; then").unwrap_err();
        assert_eq!(
            e,
            Error::Syntax {
                line: 2,
                column: 3,
                message: "syntax error near unexpected token `;'".into()
            }
        );
        assert!(matches!(parse("echo 'abc"), Err(Error::Syntax { .. })));
        assert!(matches!(parse("echo $(("), Err(Error::Syntax { .. })));
        assert!(matches!(
            parse("if true; then fi"),
            Err(Error::Syntax { .. })
        ));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        // A debug build's frames are many times larger than an optimized one's.
        let stack = if cfg!(debug_assertions) {
            256 << 20
        } else {
            1 << 20
        };
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(deep_nesting)
            .unwrap()
            .join()
            .unwrap();
    }

    fn deep_nesting() {
        let s = "(".repeat(10_000);
        assert!(parse(&s).is_err());
        let s = "$(".repeat(10_000);
        assert!(parse(&format!("echo {s}")).is_err());
        let s = "${x:-".repeat(10_000);
        assert!(parse(&format!("echo {s}")).is_err());
        let s = "{ ".repeat(10_000);
        assert!(parse(&s).is_err());
    }
}
