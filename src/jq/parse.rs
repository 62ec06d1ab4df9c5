//! Parsing jq 1.7.1's grammar into jaq's syntax tree.
//!
//! jq's precedences (lowest first): `def`, `|`, `,`, `//`, the assignments, `or`, `and`,
//! comparisons, `+ -`, `* / %`; `E as $x | body` binds a term and runs to the end;
//! `reduce`, `foreach`, `if`, `try`, `label` are expressions, not terms. Assignments
//! become calls of `_modify` and `_assign` (see `defs.jq`), `..` calls `recurse`,
//! `$__loc__` becomes its object, and `?//` becomes `try`/`catch` over the alternatives.

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::load::Arena;
use jaq_core::ops::{Cmp, Math};
use jaq_core::path::{Opt, Part, Path};

use super::lex::{Kind, Lexer, Tok, KEYWORDS, MAX_NESTING};

/// A syntax error: jq's message and the byte offset it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub msg: String,
    pub pos: usize,
    /// a second error jq adds (`Possibly unterminated 'if' statement`)
    pub extra: Option<(String, usize)>,
}

type R<T> = Result<T, SyntaxError>;
type T<'s> = Term<&'s str>;

/// A parsed program: its definitions and main term.
pub struct Program<'s> {
    pub body: T<'s>,
}

pub struct Parser<'s> {
    src: &'s str,
    toks: Vec<Tok<'s>>,
    i: usize,
    arena: &'s Arena,
    depth: usize,
    /// a fresh number for variables made by desugaring
    fresh: usize,
}

fn str_term(s: &str) -> T<'_> {
    Term::Str(None, vec![StrPart::Str(s)])
}

fn call<'s>(name: &'s str, args: Vec<T<'s>>) -> T<'s> {
    Term::Call(name, args)
}

/// `true` as `0 == 0`, `false` as `0 != 0` (how jaq's prelude defines them).
fn constant_bool<'s>(op: Cmp) -> T<'s> {
    let zero = || Box::new(Term::Num("0"));
    Term::BinOp(zero(), BinaryOp::Cmp(op), zero())
}

fn pipe<'s>(l: T<'s>, r: T<'s>) -> T<'s> {
    Term::BinOp(Box::new(l), BinaryOp::Pipe(None), Box::new(r))
}

fn bind<'s>(l: T<'s>, p: Pattern<&'s str>, r: T<'s>) -> T<'s> {
    Term::BinOp(Box::new(l), BinaryOp::Pipe(Some(p)), Box::new(r))
}

fn pattern_vars<'s>(p: &Pattern<&'s str>, out: &mut Vec<&'s str>) {
    match p {
        Pattern::Var(x) => {
            if !out.contains(x) {
                out.push(x)
            }
        }
        Pattern::Arr(ps) => ps.iter().for_each(|p| pattern_vars(p, out)),
        Pattern::Obj(es) => es.iter().for_each(|(_, p)| pattern_vars(p, out)),
    }
}

impl<'s> Parser<'s> {
    /// Parses a whole program.
    pub fn program(src: &'s str, arena: &'s Arena) -> R<Program<'s>> {
        let mut p = Parser::new(src, src, arena)?;
        let body = p.top()?;
        Ok(Program { body })
    }

    /// Parses definitions only (the prelude).
    pub fn defs(src: &'s str, arena: &'s Arena) -> R<Vec<Def<&'s str>>> {
        let mut p = Parser::new(src, src, arena)?;
        let mut defs = Vec::new();
        while p.is_ident("def") {
            defs.push(p.def()?);
        }
        p.expect_eof()?;
        Ok(defs)
    }

    fn new(src: &'s str, part: &'s str, arena: &'s Arena) -> R<Self> {
        // (a string that never ends; in its text, bison lists what the string could hold)
        let toks = Lexer::new(part).tokens().map_err(|t| SyntaxError {
            msg: format!(
                "syntax error, unexpected end of file{} (Unix shell quoting issues?)",
                if t.kind == Kind::Str {
                    ", expecting QQSTRING_TEXT or QQSTRING_INTERP_START or QQSTRING_END"
                } else {
                    ""
                }
            ),
            pos: offset(src, t.text),
            extra: None,
        })?;
        Ok(Parser {
            src,
            toks,
            i: 0,
            arena,
            depth: 0,
            fresh: 0,
        })
    }

    fn peek(&self) -> Tok<'s> {
        self.toks[self.i.min(self.toks.len() - 1)]
    }

    fn peek2(&self) -> Tok<'s> {
        self.toks[(self.i + 1).min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> Tok<'s> {
        let t = self.peek();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn pos_of(&self, t: Tok<'s>) -> usize {
        offset(self.src, t.text)
    }

    fn unexpected<X>(&self, t: Tok<'s>) -> R<X> {
        Err(self.syntax_error(t, ""))
    }

    /// The error at a token where the whole program could have ended.
    fn unexpected_at_end<X>(&self, t: Tok<'s>) -> R<X> {
        Err(self.syntax_error(t, ", expecting end of file"))
    }

    /// jq's (bison's) "unexpected" message for token `t`, then what was `expecting`.
    fn syntax_error(&self, t: Tok<'s>, expecting: &str) -> SyntaxError {
        let what = match t.kind {
            Kind::Eof => "end of file".to_string(),
            Kind::Ident if KEYWORDS.contains(&t.text) => t.text.to_string(),
            Kind::Ident => "IDENT".into(),
            Kind::Field => "FIELD".into(),
            Kind::Var => "'$'".into(),
            Kind::Format => "FORMAT".into(),
            Kind::Num => "LITERAL".into(),
            Kind::Str => "QQSTRING_START".into(),
            Kind::Invalid => "INVALID_CHARACTER".into(),
            Kind::Sym if t.text.len() == 1 => format!("'{}'", t.text),
            Kind::Sym => t.text.to_string(),
        };
        SyntaxError {
            msg: format!("syntax error, unexpected {what}{expecting} (Unix shell quoting issues?)"),
            pos: self.pos_of(t),
            extra: None,
        }
    }

    fn is_sym(&self, s: &str) -> bool {
        let t = self.peek();
        t.kind == Kind::Sym && t.text == s
    }

    fn is_ident(&self, s: &str) -> bool {
        let t = self.peek();
        t.kind == Kind::Ident && t.text == s
    }

    fn eat_sym(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_sym(&mut self, s: &str) -> R<()> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            self.unexpected(self.peek())
        }
    }

    fn expect_ident(&mut self, s: &str) -> R<()> {
        if self.is_ident(s) {
            self.bump();
            Ok(())
        } else {
            self.unexpected(self.peek())
        }
    }

    fn expect_eof(&mut self) -> R<()> {
        let t = self.peek();
        if t.kind == Kind::Eof {
            Ok(())
        } else {
            self.unexpected(t)
        }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(SyntaxError {
                msg: "syntax error: program nested too deeply".into(),
                pos: self.pos_of(self.peek()),
                extra: None,
            });
        }
        Ok(())
    }

    fn top(&mut self) -> R<T<'s>> {
        // `module {...};` is allowed and ignored
        if self.is_ident("module") && self.peek2().text == "{" {
            self.bump();
            let _ = self.postfix_term()?;
            self.expect_sym(";")?;
        }
        if self.is_ident("import") || self.is_ident("include") {
            self.bump();
            let t = self.bump();
            let name = if t.kind == Kind::Str {
                t.text.trim_matches('"').to_string()
            } else {
                return self.unexpected(t);
            };
            return Err(SyntaxError {
                msg: format!("module not found: {name}"),
                pos: usize::MAX,
                extra: None,
            });
        }
        // definitions, then the body, which jq requires
        let mut defs = Vec::new();
        while self.is_ident("def") {
            defs.push(self.def()?);
        }
        let first = self.peek();
        if first.kind == Kind::Eof {
            return Err(SyntaxError {
                msg: "Top-level program not given (try \".\")".into(),
                pos: usize::MAX,
                extra: None,
            });
        }
        // Where a whole program could end (before its body, or after it), a token that
        // cannot go on is where jq's grammar wanted the end of the file.
        if !starts_term(first) {
            return self.unexpected_at_end(first);
        }
        let body = self.exp(0)?;
        let end = self.peek();
        if end.kind != Kind::Eof {
            return self.unexpected_at_end(end);
        }
        Ok(if defs.is_empty() {
            body
        } else {
            Term::Def(defs, Box::new(body))
        })
    }

    fn def(&mut self) -> R<Def<&'s str>> {
        self.expect_ident("def")?;
        let t = self.bump();
        let name = match t.kind {
            Kind::Ident if !KEYWORDS.contains(&t.text) => t.text,
            Kind::Format => t.text,
            _ => return self.unexpected(t),
        };
        let mut args = Vec::new();
        if self.eat_sym("(") {
            loop {
                let a = self.bump();
                match a.kind {
                    Kind::Ident if !KEYWORDS.contains(&a.text) => args.push(a.text),
                    Kind::Var => args.push(a.text),
                    _ => return self.unexpected(a),
                }
                if self.eat_sym(")") {
                    break;
                }
                self.expect_sym(";")?;
            }
        }
        self.expect_sym(":")?;
        let body = self.exp(0)?;
        self.expect_sym(";")?;
        Ok(Def { name, args, body })
    }

    /// An expression whose binary operators bind at least as tight as `min`.
    fn exp(&mut self, min: u8) -> R<T<'s>> {
        self.enter()?;
        let mut lhs = self.prefix()?;
        loop {
            let t = self.peek();
            let Some((prec, assoc)) = binop_prec(t) else {
                break;
            };
            if prec < min {
                break;
            }
            self.bump();
            let next = match assoc {
                Assoc::Right => prec,
                Assoc::Left | Assoc::Non => prec + 1,
            };
            let rhs = self.exp(next)?;
            lhs = self.binop(lhs, t.text, rhs);
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn fresh_var(&mut self, base: &str) -> &'s str {
        self.fresh += 1;
        self.arena.alloc(format!("$__{base}{}", self.fresh))
    }

    fn binop(&mut self, l: T<'s>, op: &str, r: T<'s>) -> T<'s> {
        let b = |l: T<'s>, op, r: T<'s>| Term::BinOp(Box::new(l), op, Box::new(r));
        let math = |s: &str| match s {
            "+" | "+=" => Math::Add,
            "-" | "-=" => Math::Sub,
            "*" | "*=" => Math::Mul,
            "/" | "/=" => Math::Div,
            _ => Math::Rem,
        };
        match op {
            "|" => b(l, BinaryOp::Pipe(None), r),
            "," => b(l, BinaryOp::Comma, r),
            "//" => b(l, BinaryOp::Alt, r),
            "or" => b(l, BinaryOp::Or, r),
            "and" => b(l, BinaryOp::And, r),
            "==" => b(l, BinaryOp::Cmp(Cmp::Eq), r),
            "!=" => b(l, BinaryOp::Cmp(Cmp::Ne), r),
            "<" => b(l, BinaryOp::Cmp(Cmp::Lt), r),
            "<=" => b(l, BinaryOp::Cmp(Cmp::Le), r),
            ">" => b(l, BinaryOp::Cmp(Cmp::Gt), r),
            ">=" => b(l, BinaryOp::Cmp(Cmp::Ge), r),
            "+" | "-" | "*" | "/" | "%" => b(l, BinaryOp::Math(math(op)), r),
            "|=" => call("_modify", vec![l, r]),
            "=" => call("_assign", vec![l, r]),
            "//=" => {
                let x = self.fresh_var("rhs");
                let upd = b(Term::Id, BinaryOp::Alt, Term::Var(x));
                bind(r, Pattern::Var(x), call("_modify", vec![l, upd]))
            }
            _ => {
                // `l op= r` is `r as $x | l |= . op $x`
                let x = self.fresh_var("rhs");
                let upd = b(Term::Id, BinaryOp::Math(math(op)), Term::Var(x));
                bind(r, Pattern::Var(x), call("_modify", vec![l, upd]))
            }
        }
    }

    /// The start of an expression: keyword forms, unary minus, or a term.
    fn prefix(&mut self) -> R<T<'s>> {
        let t = self.peek();
        match (t.kind, t.text) {
            (Kind::Ident, "def") => {
                let mut defs = vec![self.def()?];
                while self.is_ident("def") {
                    defs.push(self.def()?);
                }
                let body = self.exp(0)?;
                Ok(Term::Def(defs, Box::new(body)))
            }
            (Kind::Ident, "reduce" | "foreach") => {
                self.bump();
                let src = self.postfix_term()?;
                self.expect_ident("as")?;
                let pats = self.patterns()?;
                if pats.len() > 1 {
                    return self.unexpected(self.peek());
                }
                let pat = pats.into_iter().next().unwrap_or(Pattern::Var("$_"));
                self.expect_sym("(")?;
                let mut args = vec![self.exp(0)?];
                self.expect_sym(";")?;
                args.push(self.exp(0)?);
                if t.text == "foreach" && self.eat_sym(";") {
                    args.push(self.exp(0)?);
                }
                self.expect_sym(")")?;
                let term = Term::Fold(t.text, Box::new(src), pat, args);
                self.postfix_opt(term)
            }
            (Kind::Ident, "if") => {
                self.bump();
                let mut arms = Vec::new();
                let cond = self.exp(0)?;
                self.expect_ident("then")?;
                arms.push((cond, self.exp(0)?));
                let mut els = None;
                loop {
                    let n = self.peek();
                    match (n.kind, n.text) {
                        (Kind::Ident, "elif") => {
                            self.bump();
                            let c = self.exp(0)?;
                            self.expect_ident("then")?;
                            arms.push((c, self.exp(0)?));
                        }
                        (Kind::Ident, "else") => {
                            self.bump();
                            els = Some(Box::new(self.exp(0)?));
                            self.if_end(t)?;
                            break;
                        }
                        (Kind::Ident, "end") => {
                            self.bump();
                            break;
                        }
                        _ => {
                            let mut e = self.syntax_error(n, "");
                            if n.kind == Kind::Eof {
                                e.extra = Some((
                                    "Possibly unterminated 'if' statement".into(),
                                    self.pos_of(t),
                                ));
                            }
                            return Err(e);
                        }
                    }
                }
                Ok(Term::IfThenElse(arms, els))
            }
            (Kind::Ident, "try") => {
                self.bump();
                let body = self.exp(10)?;
                let catch = if self.is_ident("catch") {
                    self.bump();
                    Some(Box::new(self.exp(10)?))
                } else {
                    None
                };
                Ok(Term::TryCatch(Box::new(body), catch))
            }
            (Kind::Ident, "label") => {
                self.bump();
                let v = self.bump();
                if v.kind != Kind::Var {
                    return self.unexpected(v);
                }
                self.expect_sym("|")?;
                let body = self.exp(0)?;
                Ok(Term::Label(v.text, Box::new(body)))
            }
            (Kind::Sym, "-") => {
                self.bump();
                let e = self.exp(9)?;
                Ok(Term::Neg(Box::new(e)))
            }
            _ => self.term_as(),
        }
    }

    fn if_end(&mut self, start: Tok<'s>) -> R<()> {
        let n = self.peek();
        if n.kind == Kind::Ident && n.text == "end" {
            self.bump();
            return Ok(());
        }
        let mut e = self.syntax_error(n, "");
        if n.kind == Kind::Eof {
            e.extra = Some((
                "Possibly unterminated 'if' statement".into(),
                self.pos_of(start),
            ));
        }
        Err(e)
    }

    /// A term, and `as PATTERNS | body` after it.
    fn term_as(&mut self) -> R<T<'s>> {
        let term = self.postfix_term()?;
        if !self.is_ident("as") {
            return Ok(term);
        }
        self.bump();
        let pats = self.patterns()?;
        self.expect_sym("|")?;
        let body = self.exp(0)?;
        if pats.len() == 1 {
            let p = pats.into_iter().next().unwrap_or(Pattern::Var("$_"));
            return Ok(bind(term, p, body));
        }
        // destructuring alternatives: each one binds every variable of all of them
        // (null when absent); an error moves on to the next one
        let mut all = Vec::new();
        pats.iter().for_each(|p| pattern_vars(p, &mut all));
        let dot = self.fresh_var("dot");
        let val = self.fresh_var("alt");
        let n = pats.len();
        let mut acc: Option<T<'s>> = None;
        for (i, p) in pats.into_iter().enumerate().rev() {
            let mut mine = Vec::new();
            pattern_vars(&p, &mut mine);
            let mut inner = pipe(Term::Var(dot), body.clone());
            for v in all.iter().rev() {
                if !mine.contains(v) {
                    inner = bind(call("null", vec![]), Pattern::Var(v), inner);
                }
            }
            let attempt = bind(Term::Var(val), p, inner);
            acc = Some(match acc {
                None => attempt,
                Some(next) => {
                    let _ = (i, n);
                    Term::TryCatch(
                        Box::new(attempt),
                        Some(Box::new(pipe(Term::Var(dot), next))),
                    )
                }
            });
        }
        let alts = acc.unwrap_or(Term::Id);
        Ok(bind(
            Term::Id,
            Pattern::Var(dot),
            bind(term, Pattern::Var(val), alts),
        ))
    }

    fn patterns(&mut self) -> R<Vec<Pattern<&'s str>>> {
        let mut out = vec![self.pattern()?];
        while self.eat_sym("?//") {
            out.push(self.pattern()?);
        }
        Ok(out)
    }

    fn pattern(&mut self) -> R<Pattern<&'s str>> {
        self.enter()?;
        let t = self.bump();
        let p = match (t.kind, t.text) {
            (Kind::Var, v) => Pattern::Var(v),
            (Kind::Sym, "[") => {
                let mut ps = vec![self.pattern()?];
                while self.eat_sym(",") {
                    ps.push(self.pattern()?);
                }
                self.expect_sym("]")?;
                Pattern::Arr(ps)
            }
            (Kind::Sym, "{") => {
                let mut es = Vec::new();
                loop {
                    let k = self.bump();
                    match k.kind {
                        Kind::Var => {
                            let name = &k.text[1..];
                            es.push((str_term(name), Pattern::Var(k.text)));
                            if self.eat_sym(":") {
                                es.push((str_term(name), self.pattern()?));
                            }
                        }
                        Kind::Ident => {
                            self.expect_sym(":")?;
                            es.push((str_term(k.text), self.pattern()?));
                        }
                        Kind::Str => {
                            let key = Term::Str(None, self.string_parts(k)?);
                            self.expect_sym(":")?;
                            es.push((key, self.pattern()?));
                        }
                        Kind::Sym if k.text == "(" => {
                            let key = self.exp(0)?;
                            self.expect_sym(")")?;
                            self.expect_sym(":")?;
                            es.push((key, self.pattern()?));
                        }
                        _ => return self.unexpected(k),
                    }
                    if self.eat_sym("}") {
                        break;
                    }
                    self.expect_sym(",")?;
                }
                Pattern::Obj(es)
            }
            _ => return self.unexpected(t),
        };
        self.depth -= 1;
        Ok(p)
    }

    /// A term with its suffixes: `.a`, `[i]`, `[i:j]`, `?`.
    fn postfix_term(&mut self) -> R<T<'s>> {
        self.enter()?;
        let t = self.primary()?;
        let t = self.postfix_opt(t)?;
        self.depth -= 1;
        Ok(t)
    }

    fn postfix_opt(&mut self, mut term: T<'s>) -> R<T<'s>> {
        let mut parts: Vec<(Part<T<'s>>, Opt)> = Vec::new();
        loop {
            let t = self.peek();
            match (t.kind, t.text) {
                (Kind::Field, f) => {
                    self.bump();
                    parts.push((Part::Index(str_term(&f[1..])), Opt::Essential));
                }
                (Kind::Sym, ".") if self.peek2().kind == Kind::Str => {
                    self.bump();
                    let s = self.bump();
                    let key = Term::Str(None, self.string_parts(s)?);
                    parts.push((Part::Index(key), Opt::Essential));
                }
                (Kind::Sym, ".") if self.peek2().text == "[" && self.peek2().kind == Kind::Sym => {
                    self.bump();
                    self.bump();
                    parts.push((self.bracket()?, Opt::Essential));
                }
                (Kind::Sym, "[") => {
                    self.bump();
                    parts.push((self.bracket()?, Opt::Essential));
                }
                (Kind::Sym, "?") => {
                    self.bump();
                    match parts.last_mut() {
                        Some((_, opt)) => *opt = Opt::Optional,
                        None => term = Term::TryCatch(Box::new(term), None),
                    }
                }
                _ => break,
            }
        }
        Ok(if parts.is_empty() {
            term
        } else {
            match term {
                Term::Path(head, Path(mut ps)) => {
                    ps.extend(parts);
                    Term::Path(head, Path(ps))
                }
                term => Term::Path(Box::new(term), Path(parts)),
            }
        })
    }

    /// After `[`: `]`, `i]`, `i:]`, `:j]`, `i:j]`.
    fn bracket(&mut self) -> R<Part<T<'s>>> {
        if self.eat_sym("]") {
            return Ok(Part::Range(None, None));
        }
        if self.eat_sym(":") {
            let j = self.exp(0)?;
            self.expect_sym("]")?;
            return Ok(Part::Range(None, Some(j)));
        }
        let i = self.exp(0)?;
        if self.eat_sym(":") {
            if self.eat_sym("]") {
                return Ok(Part::Range(Some(i), None));
            }
            let j = self.exp(0)?;
            self.expect_sym("]")?;
            return Ok(Part::Range(Some(i), Some(j)));
        }
        self.expect_sym("]")?;
        Ok(Part::Index(i))
    }

    fn loc(&self, t: Tok<'s>) -> T<'s> {
        let line = self.src[..self.pos_of(t).min(self.src.len())]
            .matches('\n')
            .count()
            + 1;
        let line: &'s str = self.arena.alloc(line.to_string());
        Term::Obj(vec![
            (str_term("file"), Some(str_term("<top-level>"))),
            (str_term("line"), Some(Term::Num(line))),
        ])
    }

    fn primary(&mut self) -> R<T<'s>> {
        let t = self.bump();
        Ok(match (t.kind, t.text) {
            (Kind::Sym, ".") => {
                let n = self.peek();
                if n.kind == Kind::Str {
                    self.bump();
                    let key = Term::Str(None, self.string_parts(n)?);
                    Term::Path(
                        Box::new(Term::Id),
                        Path(vec![(Part::Index(key), Opt::Essential)]),
                    )
                } else if n.kind == Kind::Sym && n.text == "[" {
                    self.bump();
                    let part = self.bracket()?;
                    Term::Path(Box::new(Term::Id), Path(vec![(part, Opt::Essential)]))
                } else {
                    Term::Id
                }
            }
            (Kind::Field, f) => Term::Path(
                Box::new(Term::Id),
                Path(vec![(Part::Index(str_term(&f[1..])), Opt::Essential)]),
            ),
            (Kind::Sym, "..") => call("recurse", vec![]),
            (Kind::Num, n) => Term::Num(n),
            (Kind::Str, _) => Term::Str(None, self.string_parts(t)?),
            (Kind::Format, f) => {
                if self.peek().kind == Kind::Str {
                    let s = self.bump();
                    Term::Str(Some(f), self.string_parts(s)?)
                } else {
                    call(f, vec![])
                }
            }
            (Kind::Sym, "(") => {
                let e = self.exp(0)?;
                self.expect_sym(")")?;
                e
            }
            (Kind::Sym, "[") => {
                if self.eat_sym("]") {
                    Term::Arr(None)
                } else {
                    let e = self.exp(0)?;
                    self.expect_sym("]")?;
                    Term::Arr(Some(Box::new(e)))
                }
            }
            (Kind::Sym, "{") => self.object()?,
            (Kind::Var, "$__loc__") => self.loc(t),
            (Kind::Var, v) => Term::Var(v),
            (Kind::Ident, "break") => {
                let v = self.bump();
                if v.kind != Kind::Var {
                    return self.unexpected(v);
                }
                Term::Break(v.text)
            }
            (Kind::Ident, name) if !KEYWORDS.contains(&name) => {
                let mut args = Vec::new();
                if self.eat_sym("(") {
                    loop {
                        args.push(self.exp(0)?);
                        if self.eat_sym(")") {
                            break;
                        }
                        self.expect_sym(";")?;
                    }
                }
                match (name, args.is_empty()) {
                    // constants in jq's grammar, whatever a program defines: computed in
                    // place rather than called
                    ("true", true) => constant_bool(Cmp::Eq),
                    ("false", true) => constant_bool(Cmp::Ne),
                    _ => call(name, args),
                }
            }
            _ => return self.unexpected(t),
        })
    }

    fn object(&mut self) -> R<T<'s>> {
        let mut entries = Vec::new();
        if self.eat_sym("}") {
            return Ok(Term::Obj(entries));
        }
        loop {
            let k = self.bump();
            let (key, needs_value) = match (k.kind, k.text) {
                (Kind::Var, "$__loc__") => {
                    entries.push((str_term("__loc__"), Some(self.loc(k))));
                    if self.eat_sym("}") {
                        break;
                    }
                    self.expect_sym(",")?;
                    continue;
                }
                (Kind::Var, v) => (Term::Var(v), false),
                (Kind::Ident, name) => (str_term(name), false),
                (Kind::Num, n) => {
                    let v = super::value::Val::from_literal(n);
                    return Err(SyntaxError {
                        msg: format!("Cannot use {} as object key", v.kind_and_trunc()),
                        pos: self.pos_of(k),
                        extra: None,
                    });
                }
                (Kind::Str, _) => (Term::Str(None, self.string_parts(k)?), false),
                (Kind::Format, f) if self.peek().kind == Kind::Str => {
                    let s = self.bump();
                    (Term::Str(Some(f), self.string_parts(s)?), false)
                }
                (Kind::Sym, "(") => {
                    let e = self.exp(0)?;
                    self.expect_sym(")")?;
                    if let Term::Num(n) = e {
                        let v = super::value::Val::from_literal(n);
                        return Err(SyntaxError {
                            msg: format!("Cannot use {} as object key", v.kind_and_trunc()),
                            pos: self.pos_of(k),
                            extra: None,
                        });
                    }
                    (e, true)
                }
                _ => return self.unexpected(k),
            };
            let value = if self.eat_sym(":") {
                Some(self.obj_value()?)
            } else if needs_value {
                return self.unexpected(self.peek());
            } else {
                None
            };
            entries.push((key, value));
            if self.eat_sym("}") {
                break;
            }
            self.expect_sym(",")?;
        }
        if entries
            .iter()
            .all(|(k, v)| single(k) && v.as_ref().is_none_or(single))
        {
            return Ok(Term::Obj(entries));
        }
        // jq builds objects with the first entry's outputs in the outer loop (jaq's
        // object sum would run the last one outermost): bind the entries in order
        let mut binds: Vec<(T<'s>, &'s str)> = Vec::new();
        let mut simple = Vec::new();
        for (k, v) in entries {
            let (k, v) = match (k, v) {
                (Term::Var(x), None) => (str_term(&x[1..]), Term::Var(x)),
                (k, None) => {
                    let idx = Term::Path(
                        Box::new(Term::Id),
                        Path(vec![(Part::Index(k.clone()), Opt::Essential)]),
                    );
                    (k, idx)
                }
                (k, Some(v)) => (k, v),
            };
            let k = if single(&k) {
                k
            } else {
                let x = self.fresh_var("key");
                binds.push((k, x));
                Term::Var(x)
            };
            let v = if single(&v) {
                v
            } else {
                let x = self.fresh_var("val");
                binds.push((v, x));
                Term::Var(x)
            };
            simple.push((k, Some(v)));
        }
        let mut out = Term::Obj(simple);
        for (t, x) in binds.into_iter().rev() {
            out = bind(t, Pattern::Var(x), out);
        }
        Ok(out)
    }

    /// An object value: terms joined by `|`, maybe negated.
    fn obj_value(&mut self) -> R<T<'s>> {
        self.enter()?;
        let lhs = if self.eat_sym("-") {
            Term::Neg(Box::new(self.obj_value()?))
        } else {
            self.postfix_term()?
        };
        let v = if self.eat_sym("|") {
            pipe(lhs, self.obj_value()?)
        } else {
            lhs
        };
        self.depth -= 1;
        Ok(v)
    }

    /// The parts of a string literal token.
    fn string_parts(&mut self, t: Tok<'s>) -> R<Vec<StrPart<&'s str, T<'s>>>> {
        let s = t.text;
        let inner = &s[1..s.len().saturating_sub(1).max(1)];
        let b = inner.as_bytes();
        let mut parts = Vec::new();
        let mut i = 0;
        let mut run = 0;
        let err = |p: &Self, at: usize, msg: &str| SyntaxError {
            msg: msg.into(),
            pos: p.pos_of(t) + 1 + at,
            extra: None,
        };
        while i < b.len() {
            if b[i] != b'\\' {
                i += 1;
                continue;
            }
            if run < i {
                parts.push(StrPart::Str(&inner[run..i]));
            }
            let Some(&e) = b.get(i + 1) else {
                return Err(err(self, i, "invalid escape"));
            };
            match e {
                b'(' => {
                    // the interpolated program runs to the matching parenthesis
                    let start = i + 2;
                    let end = matching_paren(&b[start..])
                        .ok_or_else(|| err(self, i, "unterminated interpolation"))?;
                    let code = &inner[start..start + end];
                    let mut sub = Parser::new(self.src, code, self.arena)?;
                    sub.depth = self.depth;
                    sub.fresh = self.fresh + 1000;
                    let e = sub.exp(0)?;
                    sub.expect_eof()?;
                    parts.push(StrPart::Term(e));
                    i = start + end + 1;
                }
                b'u' => {
                    let hex = |at: usize| -> Option<u32> {
                        let h = inner.get(at..at + 4)?;
                        if h.bytes().all(|c| c.is_ascii_hexdigit()) {
                            u32::from_str_radix(h, 16).ok()
                        } else {
                            None
                        }
                    };
                    let cp = hex(i + 2).ok_or_else(|| err(self, i, "invalid \\u escape"))?;
                    i += 6;
                    let c = if (0xD800..0xDC00).contains(&cp) && inner[i..].starts_with("\\u") {
                        match hex(i + 2) {
                            Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                                i += 6;
                                char::from_u32(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00))
                            }
                            _ => None,
                        }
                    } else {
                        char::from_u32(cp)
                    };
                    parts.push(StrPart::Char(c.unwrap_or('\u{FFFD}')));
                }
                _ => {
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        _ => return Err(err(self, i, "invalid escape")),
                    };
                    parts.push(StrPart::Char(c));
                    i += 2;
                }
            }
            run = i;
        }
        if run < b.len() {
            parts.push(StrPart::Str(&inner[run..]));
        }
        Ok(parts)
    }
}

/// The offset of `part` in `src` (both slices of the same program).
fn offset(src: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(src.as_ptr() as usize)
}

/// Where the parenthesis closing an interpolation is, skipping nested strings.
fn matching_paren(b: &[u8]) -> Option<usize> {
    let mut stack: Vec<u8> = vec![b')'];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match stack.last()? {
            b'"' => match c {
                b'\\' if b.get(i + 1) == Some(&b'(') => {
                    stack.push(b')');
                    i += 1;
                }
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                _ => {}
            },
            _ => match c {
                b'"' => stack.push(b'"'),
                b'(' => stack.push(b')'),
                b')' => {
                    stack.pop();
                    if stack.is_empty() {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

#[derive(Clone, Copy)]
enum Assoc {
    Left,
    Right,
    Non,
}

fn binop_prec(t: Tok<'_>) -> Option<(u8, Assoc)> {
    use Assoc::*;
    Some(match (t.kind, t.text) {
        (Kind::Sym, "|") => (1, Right),
        (Kind::Sym, ",") => (2, Left),
        (Kind::Sym, "//") => (3, Right),
        (Kind::Sym, "=" | "|=" | "+=" | "-=" | "*=" | "/=" | "%=" | "//=") => (4, Non),
        (Kind::Ident, "or") => (5, Left),
        (Kind::Ident, "and") => (6, Left),
        (Kind::Sym, "==" | "!=" | "<" | "<=" | ">" | ">=") => (7, Non),
        (Kind::Sym, "+" | "-") => (8, Left),
        (Kind::Sym, "*" | "/" | "%") => (9, Left),
        _ => return None,
    })
}

/// Whether a term yields at most one value (conservatively).
fn single(t: &T<'_>) -> bool {
    const ONE: &[&str] = &[
        "length",
        "tostring",
        "tojson",
        "type",
        "keys",
        "keys_unsorted",
        "not",
        "ascii_downcase",
        "ascii_upcase",
        "floor",
        "ceil",
        "round",
        "fabs",
        "sqrt",
        "tonumber",
        "utf8bytelength",
        "todate",
        "fromdate",
        "gmtime",
        "mktime",
        "explode",
        "implode",
        "reverse",
        "sort",
        "unique",
        "min",
        "max",
        "add",
        "null",
        "true",
        "false",
        "empty",
        "now",
        "ltrimstr",
        "rtrimstr",
        "startswith",
        "endswith",
        "has",
        "contains",
        "join",
        "test",
        "strftime",
        "strptime",
        "split",
        "ascii",
        "abs",
        "to_entries",
        "from_entries",
        "input_line_number",
        "@text",
        "@json",
        "@html",
        "@uri",
        "@csv",
        "@tsv",
        "@sh",
        "@base64",
        "@base64d",
    ];
    match t {
        Term::Id | Term::Num(_) | Term::Var(_) | Term::Arr(_) => true,
        Term::Str(_, parts) => parts.iter().all(|p| match p {
            StrPart::Term(t) => single(t),
            _ => true,
        }),
        Term::Neg(t) => single(t),
        Term::Path(head, Path(parts)) => {
            single(head)
                && parts.iter().all(|(p, _)| match p {
                    Part::Index(i) => single(i),
                    Part::Range(None, None) => false,
                    Part::Range(a, b) => {
                        a.as_ref().is_none_or(single) && b.as_ref().is_none_or(single)
                    }
                })
        }
        Term::Obj(es) => es
            .iter()
            .all(|(k, v)| single(k) && v.as_ref().is_none_or(single)),
        Term::BinOp(l, op, r) => {
            !matches!(op, BinaryOp::Comma | BinaryOp::Pipe(Some(_))) && single(l) && single(r)
        }
        Term::TryCatch(b, c) => single(b) && c.as_deref().is_none_or(single),
        Term::IfThenElse(arms, els) => {
            arms.iter().all(|(c, t)| single(c) && single(t)) && els.as_deref().is_none_or(single)
        }
        Term::Call(name, args) => ONE.contains(name) && args.iter().all(single),
        _ => false,
    }
}

/// Whether a term can begin with `t`: what may follow the definitions of a program.
fn starts_term(t: Tok<'_>) -> bool {
    match t.kind {
        Kind::Num | Kind::Str | Kind::Var | Kind::Format | Kind::Field => true,
        Kind::Ident => !matches!(
            t.text,
            "then" | "elif" | "else" | "end" | "as" | "and" | "or" | "catch"
        ),
        Kind::Sym => matches!(t.text, "." | ".." | "[" | "{" | "(" | "-"),
        Kind::Invalid | Kind::Eof => false,
    }
}
