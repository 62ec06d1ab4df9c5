//! Word expansion: parameters, command substitution, arithmetic, field splitting with
//! IFS, quote removal, and patterns for `case` and `${x#p}`.
//!
//! Bytes made by expansions cost one step per [`BYTES_PER_STEP`](crate::budget::BYTES_PER_STEP)
//! (rounded down, so short values are free), and a word may not grow past [`MAX_WORD`].

use std::future::Future;
use std::pin::Pin;

use super::arith;
use super::ast::{Anchor, Param, ParamName, ParamOp, Part, Word};
use super::exec::{Ctl, Exec, Io, R};
use super::options::Opt;
use super::pattern::{quote_into, Pattern};
use crate::budget::BYTES_PER_STEP;
use crate::error::Error;

/// The largest word (or variable value) an expansion may build.
pub const MAX_WORD: usize = 64 << 20;

/// IFS, classified.
struct Ifs {
    white: [bool; 256],
    other: [bool; 256],
}

impl Ifs {
    fn new(ifs: &[u8]) -> Ifs {
        let mut s = Ifs {
            white: [false; 256],
            other: [false; 256],
        };
        for &c in ifs {
            if matches!(c, b' ' | b'\t' | b'\n') {
                s.white[usize::from(c)] = true;
            } else {
                s.other[usize::from(c)] = true;
            }
        }
        s
    }
}

/// Fields being built from a word.
pub(super) struct Acc {
    fields: Vec<Vec<u8>>,
    cur: Vec<u8>,
    /// The current field exists even if empty (it has quoted or literal content).
    live: bool,
    /// The last thing seen was IFS white space that ended a field.
    after_white: bool,
    /// Field splitting applies (command words, `for` lists).
    split: bool,
    /// Building a pattern: quoted text gets backslashes.
    pattern: bool,
    ifs: Option<Box<Ifs>>,
    /// Bytes made by expansions, for the step count.
    made: usize,
}

impl Acc {
    pub(super) fn new(split: bool, pattern: bool) -> Acc {
        Acc {
            fields: Vec::new(),
            cur: Vec::new(),
            live: false,
            after_white: false,
            split,
            pattern,
            ifs: None,
            made: 0,
        }
    }

    /// Literal text of the word itself.
    fn lit(&mut self, s: &[u8]) {
        self.cur.extend_from_slice(s);
        self.live = true;
        self.after_white = false;
    }

    /// Quoted text (or a quoted expansion's value).
    fn quoted(&mut self, s: &[u8]) {
        if self.pattern {
            quote_into(&mut self.cur, s);
        } else {
            self.cur.extend_from_slice(s);
        }
        self.live = true;
        self.after_white = false;
    }

    /// The value of an unquoted expansion: split when splitting applies.
    fn unquoted(&mut self, s: &[u8], ifs: Option<&[u8]>) {
        if !self.split {
            self.cur.extend_from_slice(s);
            if !s.is_empty() {
                self.live = true;
                self.after_white = false;
            }
            return;
        }
        let ifs = self
            .ifs
            .get_or_insert_with(|| Box::new(Ifs::new(ifs.unwrap_or(b" \t\n"))));
        let mut i = 0;
        while i < s.len() {
            let c = s[i];
            let white = ifs.white[usize::from(c)];
            if !white && !ifs.other[usize::from(c)] {
                // A run of ordinary bytes.
                let run = s[i..]
                    .iter()
                    .take_while(|&&b| !ifs.white[usize::from(b)] && !ifs.other[usize::from(b)])
                    .count();
                self.cur.extend_from_slice(&s[i..i + run]);
                self.live = true;
                self.after_white = false;
                i += run;
                continue;
            }
            // A delimiter: white space, optionally one other IFS byte, white space.
            let mut j = i;
            while j < s.len() && ifs.white[usize::from(s[j])] {
                j += 1;
            }
            let mut hard = false;
            if j < s.len() && ifs.other[usize::from(s[j])] {
                hard = true;
                j += 1;
                while j < s.len() && ifs.white[usize::from(s[j])] {
                    j += 1;
                }
            }
            if hard {
                if !self.after_white || self.live {
                    self.fields.push(std::mem::take(&mut self.cur));
                }
                self.live = false;
                self.after_white = false;
            } else if self.live {
                self.fields.push(std::mem::take(&mut self.cur));
                self.live = false;
                self.after_white = true;
            }
            i = j;
        }
    }

    /// Ends the current field if it has anything (between `$@` elements, unquoted).
    fn soft_break(&mut self) {
        if self.live {
            self.fields.push(std::mem::take(&mut self.cur));
            self.live = false;
        }
    }

    /// Ends the current field unconditionally (between `"$@"` elements).
    fn hard_break(&mut self) {
        self.fields.push(std::mem::take(&mut self.cur));
        self.live = false;
        self.after_white = false;
    }

    pub(super) fn finish(mut self) -> Vec<Vec<u8>> {
        if self.live {
            self.fields.push(self.cur);
        }
        self.fields
    }

    /// Everything as one string (no splitting was done).
    pub(super) fn finish_one(self) -> Vec<u8> {
        if self.fields.is_empty() {
            return self.cur;
        }
        let mut out = self.fields.join(&b' ');
        if self.live {
            out.push(b' ');
            out.extend_from_slice(&self.cur);
        }
        std::mem::take(&mut out)
    }
}

/// How the parts being expanded are quoted.
#[derive(Clone, Copy)]
struct Q {
    /// Inside double quotes.
    dq: bool,
    /// Literal text is the value of an expansion (the operand of `${x:-a b}`), so it is
    /// split like one.
    lit_splits: bool,
}

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

impl Exec<'_> {
    /// Expands command words: field splitting applies, empty unquoted results vanish.
    pub(super) async fn expand_words(
        &mut self,
        words: &[super::ast::Word],
        io: Io,
    ) -> R<Vec<Vec<u8>>> {
        let mut out = Vec::with_capacity(words.len());
        for w in words {
            if let Some(lit) = w.as_literal() {
                out.push(lit.to_vec());
                continue;
            }
            let mut acc = Acc::new(true, false);
            self.parts(
                &w.parts,
                Q {
                    dq: false,
                    lit_splits: false,
                },
                &mut acc,
                io,
            )
            .await?;
            self.charge(&acc)?;
            out.extend(acc.finish());
        }
        Ok(out)
    }

    /// Expands the words of a declaration utility (`export x=$v`): arguments written as
    /// assignments are not split.
    pub(super) async fn expand_declaration(
        &mut self,
        words: &[super::ast::Word],
        io: Io,
    ) -> R<Vec<Vec<u8>>> {
        let mut out = Vec::with_capacity(words.len());
        for w in words {
            if super::parse::is_assignment_word(w) {
                out.push(self.expand_string(w, io).await?);
            } else {
                out.extend(self.expand_words(std::slice::from_ref(w), io).await?);
            }
        }
        Ok(out)
    }

    /// Expands a word to one string, without field splitting (assignments, redirection
    /// targets, the word of `case`, here-documents).
    pub(super) async fn expand_string(&mut self, w: &Word, io: Io) -> R<Vec<u8>> {
        if let Some(lit) = w.as_literal() {
            return Ok(lit.to_vec());
        }
        let mut acc = Acc::new(false, false);
        self.parts(
            &w.parts,
            Q {
                dq: false,
                lit_splits: false,
            },
            &mut acc,
            io,
        )
        .await?;
        self.charge(&acc)?;
        Ok(acc.finish_one())
    }

    /// Expands a pattern word: quoted parts are matched literally.
    pub(super) async fn expand_pattern(&mut self, w: &Word, io: Io) -> R<Pattern> {
        if let Some(lit) = w.as_literal() {
            return Ok(Pattern::new(lit));
        }
        let mut acc = Acc::new(false, true);
        self.parts(
            &w.parts,
            Q {
                dq: false,
                lit_splits: false,
            },
            &mut acc,
            io,
        )
        .await?;
        self.charge(&acc)?;
        Ok(Pattern::new(&acc.finish_one()))
    }

    /// Expands a template like the inside of a double-quoted word.
    pub(super) async fn expand_quoted(&mut self, w: &Word, io: Io) -> R<Vec<u8>> {
        let mut acc = Acc::new(false, false);
        self.parts(
            &w.parts,
            Q {
                dq: true,
                lit_splits: false,
            },
            &mut acc,
            io,
        )
        .await?;
        self.charge(&acc)?;
        Ok(acc.finish_one())
    }

    fn charge(&mut self, acc: &Acc) -> R<()> {
        if acc.made >= BYTES_PER_STEP as usize {
            self.sh.budget.spend((acc.made as u64) / BYTES_PER_STEP)?;
        }
        Ok(())
    }

    fn parts_boxed<'a>(
        &'a mut self,
        parts: &'a [Part],
        q: Q,
        acc: &'a mut Acc,
        io: Io,
    ) -> Boxed<'a, R<()>> {
        Box::pin(self.parts(parts, q, acc, io))
    }

    async fn parts(&mut self, parts: &[Part], q: Q, acc: &mut Acc, io: Io) -> R<()> {
        for part in parts {
            match part {
                Part::Lit(s) => {
                    if q.dq {
                        acc.quoted(s);
                    } else if q.lit_splits {
                        let ifs = self.st.ifs();
                        acc.unquoted(s, ifs.as_deref());
                    } else {
                        acc.lit(s);
                    }
                }
                Part::Quoted(s) => acc.quoted(s),
                Part::Double(inner) => {
                    // "" is an empty field, but "$@" with no parameters is none.
                    let at = |p: &Part| matches!(p, Part::Param(p) if p.name == ParamName::Special(b'@') && p.op == ParamOp::Plain);
                    if !inner.iter().any(at) {
                        acc.live = true;
                    }
                    acc.after_white = false;
                    self.parts_boxed(
                        inner,
                        Q {
                            dq: true,
                            lit_splits: false,
                        },
                        acc,
                        io,
                    )
                    .await?;
                }
                Part::Param(p) => match p.op {
                    ParamOp::Plain | ParamOp::Length => self.param_simple(p, q, acc, io)?,
                    _ => Box::pin(self.param(p, q, acc, io)).await?,
                },
                Part::Command(script) => {
                    let out = self.command_subst(script, io).await?;
                    self.value(&out, q, acc)?;
                }
                Part::Tilde(name) => {
                    // `~` is $HOME, not split; there is no user database for `~name`.
                    match self.st.get(b"HOME").filter(|_| name.is_empty()) {
                        Some(home) => {
                            let home = home.to_vec();
                            acc.made += home.len();
                            acc.quoted(&home);
                        }
                        None => {
                            acc.lit(b"~");
                            acc.lit(name);
                        }
                    }
                }
                Part::Arith(inner) => {
                    let mut a = Acc::new(false, false);
                    self.parts_boxed(
                        inner,
                        Q {
                            dq: true,
                            lit_splits: false,
                        },
                        &mut a,
                        io,
                    )
                    .await?;
                    let expr = a.finish_one();
                    let v = self.arith(&expr, io)?;
                    self.value(v.to_string().as_bytes(), q, acc)?;
                }
            }
        }
        Ok(())
    }

    /// Evaluates an arithmetic expression; an error ends the script as in bash.
    pub(super) fn arith(&mut self, expr: &[u8], io: Io) -> R<i64> {
        match arith::eval(expr, &mut self.st) {
            Ok(v) => Ok(v),
            Err(e) => {
                self.diag(io, &e.0);
                Err(Ctl::Abort { top: 1, sub: 1 })
            }
        }
    }

    /// Adds the value of an expansion.
    fn value(&mut self, v: &[u8], q: Q, acc: &mut Acc) -> R<()> {
        acc.made += v.len();
        if acc.cur.len() + v.len() > MAX_WORD {
            return Err(Ctl::Err(Error::Fatal(format!(
                "sh: a word grew past the limit of {MAX_WORD} bytes"
            ))));
        }
        if q.dq {
            acc.quoted(v);
        } else {
            let ifs = if acc.split && acc.ifs.is_none() {
                self.st.ifs()
            } else {
                None
            };
            acc.unquoted(v, ifs.as_deref());
        }
        Ok(())
    }

    fn param_name_text(name: &ParamName) -> String {
        match name {
            ParamName::Var(n) => String::from_utf8_lossy(n).into_owned(),
            ParamName::Positional(i) => i.to_string(),
            ParamName::Special(c) => (*c as char).to_string(),
        }
    }

    /// A parameter's value; `LINENO` is the current line unless the script set it.
    fn param_value(&self, name: &ParamName) -> Option<Vec<u8>> {
        match name {
            ParamName::Var(n) if n == b"LINENO" && self.st.get(n).is_none() => {
                Some(self.line.to_string().into_bytes())
            }
            _ => self.st.param(name),
        }
    }

    /// `$x`, `${x}` and `${#x}`.
    fn param_simple(&mut self, p: &Param, q: Q, acc: &mut Acc, io: Io) -> R<()> {
        // "$@" and $@, $*: lists of fields.
        if let ParamName::Special(c @ (b'@' | b'*')) = p.name {
            if matches!(p.op, ParamOp::Plain) {
                return self.param_list(c, q, acc);
            }
        }
        if let (ParamName::Var(name), ParamOp::Plain) = (&p.name, &p.op) {
            // The common case, without copying the value.
            let vars = self.st.vars.clone();
            return match vars.get(name).and_then(|v| v.value.as_deref()) {
                Some(v) => self.value(v, q, acc),
                None if name == b"LINENO" => {
                    let line = self.line.to_string();
                    self.value(line.as_bytes(), q, acc)
                }
                None => {
                    self.check_set(&p.name, io)?;
                    if q.dq {
                        acc.live = true;
                    }
                    Ok(())
                }
            };
        }
        let value: Option<Vec<u8>> = self.param_value(&p.name);
        match &p.op {
            ParamOp::Plain => match value {
                Some(v) => self.value(&v, q, acc),
                None => {
                    self.check_set(&p.name, io)?;
                    if q.dq {
                        acc.live = true;
                    }
                    Ok(())
                }
            },
            _ => {
                let n = match &p.name {
                    ParamName::Special(b'@' | b'*') => self.st.params.len(),
                    _ => match value {
                        Some(v) => v.len(),
                        None => {
                            self.check_set(&p.name, io)?;
                            0
                        }
                    },
                };
                self.value(n.to_string().as_bytes(), q, acc)
            }
        }
    }

    async fn param(&mut self, p: &Param, q: Q, acc: &mut Acc, io: Io) -> R<()> {
        let value: Option<Vec<u8>> = self.param_value(&p.name);
        match &p.op {
            ParamOp::Plain | ParamOp::Length => self.param_simple(p, q, acc, io),
            ParamOp::Default(colon, w)
            | ParamOp::Alt(colon, w)
            | ParamOp::Assign(colon, w)
            | ParamOp::Error(colon, w) => {
                let set = match &value {
                    None => false,
                    Some(v) => !(*colon && v.is_empty()),
                };
                match &p.op {
                    ParamOp::Default(..) => {
                        if set {
                            self.value(value.as_deref().unwrap_or_default(), q, acc)
                        } else {
                            self.operand(w, q, acc, io).await
                        }
                    }
                    ParamOp::Alt(..) => {
                        if set {
                            self.operand(w, q, acc, io).await
                        } else {
                            if q.dq {
                                acc.live = true;
                            }
                            Ok(())
                        }
                    }
                    ParamOp::Assign(..) => {
                        if set {
                            return self.value(value.as_deref().unwrap_or_default(), q, acc);
                        }
                        let ParamName::Var(name) = &p.name else {
                            let n = Self::param_name_text(&p.name);
                            self.diag(io, &format!("${n}: cannot assign in this way"));
                            return Err(Ctl::Abort { top: 1, sub: 1 });
                        };
                        let v = self.operand_string(w, io).await?;
                        if let Err(msg) = self.st.set(name, v.clone()) {
                            self.diag(io, &msg);
                            return Err(Ctl::Abort { top: 1, sub: 1 });
                        }
                        self.value(&v, q, acc)
                    }
                    _ => {
                        if set {
                            return self.value(value.as_deref().unwrap_or_default(), q, acc);
                        }
                        let mut msg = self.operand_string(w, io).await?;
                        if msg.is_empty() && w.parts.is_empty() {
                            msg = if *colon {
                                b"parameter null or not set".to_vec()
                            } else {
                                b"parameter not set".to_vec()
                            };
                        }
                        let n = Self::param_name_text(&p.name);
                        self.diag(io, &format!("{n}: {}", String::from_utf8_lossy(&msg)));
                        Err(Ctl::Abort { top: 127, sub: 1 })
                    }
                }
            }
            ParamOp::TrimPrefix(longest, w) | ParamOp::TrimSuffix(longest, w) => {
                let v = self.value_or_check(value, &p.name, io)?;
                let pat = self.expand_pattern(w, io).await?;
                self.sh.budget.spend_bytes(v.len())?;
                let out = if matches!(p.op, ParamOp::TrimPrefix(..)) {
                    match pat.prefix(&v, *longest) {
                        Some(n) => &v[n..],
                        None => &v[..],
                    }
                } else {
                    match pat.suffix(&v, *longest) {
                        Some(n) => &v[..v.len() - n],
                        None => &v[..],
                    }
                };
                let out = out.to_vec();
                self.value(&out, q, acc)?;
                if q.dq {
                    acc.live = true;
                }
                Ok(())
            }
            ParamOp::Replace {
                all,
                anchor,
                pattern,
                with,
            } => {
                if value.is_none() {
                    self.check_set(&p.name, io)?;
                    if q.dq {
                        acc.live = true;
                    }
                    return Ok(());
                }
                let v = value.unwrap_or_default();
                let pat = self.expand_pattern(pattern, io).await?;
                // The replacement as a pattern-style string: `&` is the match unless quoted.
                let mut a = Acc::new(false, true);
                self.parts_boxed(
                    &with.parts,
                    Q {
                        dq: false,
                        lit_splits: false,
                    },
                    &mut a,
                    io,
                )
                .await?;
                let rep = a.finish_one();
                self.sh.budget.spend_bytes(v.len())?;
                let out = replace(&v, &pat, &rep, *all, *anchor);
                self.value(&out, q, acc)?;
                if q.dq {
                    acc.live = true;
                }
                Ok(())
            }
            ParamOp::Substring(off, len) => {
                let unset = value.is_none();
                let v = self.value_or_check(value, &p.name, io)?;
                let off_s = self.operand_string(off, io).await?;
                let off = self.arith(&off_s, io)?;
                let n = v.len() as i64;
                if unset || (off < 0 && n + off < 0) {
                    if q.dq {
                        acc.live = true;
                    }
                    return Ok(());
                }
                let start = if off < 0 { n + off } else { off.min(n) };
                let end = match len {
                    None => n,
                    Some(l) => {
                        let l_s = self.operand_string(l, io).await?;
                        let l = self.arith(&l_s, io)?;
                        if l < 0 {
                            let e = n + l;
                            if e < start {
                                self.diag(
                                    io,
                                    &format!(
                                        "{}: substring expression < 0",
                                        String::from_utf8_lossy(&l_s)
                                    ),
                                );
                                return Err(Ctl::Abort { top: 1, sub: 1 });
                            }
                            e
                        } else {
                            start.saturating_add(l).min(n)
                        }
                    }
                };
                let out = v[start as usize..end.max(start) as usize].to_vec();
                self.value(&out, q, acc)?;
                if q.dq {
                    acc.live = true;
                }
                Ok(())
            }
            ParamOp::Bad(text) => {
                self.diag(
                    io,
                    &format!("{}: bad substitution", String::from_utf8_lossy(text)),
                );
                Err(Ctl::Abort { top: 2, sub: 2 })
            }
            ParamOp::Case(upper, all) => {
                let mut v = self.value_or_check(value, &p.name, io)?;
                let n = if *all { v.len() } else { v.len().min(1) };
                for c in &mut v[..n] {
                    *c = if *upper {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    };
                }
                self.value(&v, q, acc)?;
                if q.dq {
                    acc.live = true;
                }
                Ok(())
            }
        }
    }

    fn value_or_check(&mut self, value: Option<Vec<u8>>, name: &ParamName, io: Io) -> R<Vec<u8>> {
        match value {
            Some(v) => Ok(v),
            None => {
                self.check_set(name, io)?;
                Ok(Vec::new())
            }
        }
    }

    /// `set -u`: an unset parameter is an error.
    fn check_set(&mut self, name: &ParamName, io: Io) -> R<()> {
        if self.st.opts.on(Opt::NOUNSET) && !matches!(name, ParamName::Special(_)) {
            let n = Self::param_name_text(name);
            self.diag(io, &format!("{n}: unbound variable"));
            return Err(Ctl::Abort { top: 127, sub: 1 });
        }
        Ok(())
    }

    /// The operand word of `${x:-word}` and friends, expanded where the `${}` stands.
    async fn operand(&mut self, w: &Word, q: Q, acc: &mut Acc, io: Io) -> R<()> {
        if q.dq {
            acc.live = true;
        }
        let inner = Q {
            dq: q.dq,
            lit_splits: !q.dq,
        };
        self.parts_boxed(&w.parts, inner, acc, io).await
    }

    /// An operand word as a plain string (`${x:=word}`, `${x:?word}`, replacements).
    async fn operand_string(&mut self, w: &Word, io: Io) -> R<Vec<u8>> {
        let mut a = Acc::new(false, false);
        self.parts_boxed(
            &w.parts,
            Q {
                dq: false,
                lit_splits: false,
            },
            &mut a,
            io,
        )
        .await?;
        Ok(a.finish_one())
    }

    fn param_list(&mut self, c: u8, q: Q, acc: &mut Acc) -> R<()> {
        let params = self.st.params.clone();
        if q.dq && c == b'*' || !acc.split && !q.dq {
            // Joined: "$*" by the first byte of IFS; unsplit contexts by a space ($@) or
            // IFS ($*).
            let sep: Vec<u8> = if c == b'@' {
                b" ".to_vec()
            } else {
                match self.st.ifs() {
                    None => b" ".to_vec(),
                    Some(i) => i.first().map(|&b| vec![b]).unwrap_or_default(),
                }
            };
            let joined = params.join(sep.as_slice());
            if q.dq {
                acc.live = true;
            }
            return self.value(&joined, q, acc);
        }
        if q.dq {
            // "$@": one field per parameter.
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    acc.hard_break();
                }
                acc.made += p.len();
                acc.quoted(p);
            }
            return Ok(());
        }
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                acc.soft_break();
            }
            self.value(p, q, acc)?;
        }
        Ok(())
    }
}

/// `${v/pat/rep}` and friends.
fn replace(v: &[u8], pat: &Pattern, rep: &[u8], all: bool, anchor: Anchor) -> Vec<u8> {
    // bash's patsub_replacement: an unquoted `&` stands for the matched text.
    let fill = |out: &mut Vec<u8>, matched: &[u8]| {
        let mut i = 0;
        while i < rep.len() {
            match rep[i] {
                b'\\' if i + 1 < rep.len() => {
                    out.push(rep[i + 1]);
                    i += 2;
                    continue;
                }
                b'&' => out.extend_from_slice(matched),
                c => out.push(c),
            }
            i += 1;
        }
    };
    match anchor {
        Anchor::Start => match pat.prefix(v, true) {
            Some(n) => {
                let mut out = Vec::new();
                fill(&mut out, &v[..n]);
                out.extend_from_slice(&v[n..]);
                out
            }
            None => v.to_vec(),
        },
        Anchor::End => match pat.suffix(v, true) {
            Some(n) => {
                let mut out = v[..v.len() - n].to_vec();
                fill(&mut out, &v[v.len() - n..]);
                out
            }
            None => v.to_vec(),
        },
        Anchor::None if v.is_empty() => {
            let mut out = Vec::new();
            if pat.matches(b"") {
                fill(&mut out, b"");
            }
            out
        }
        Anchor::None => {
            let mut out = Vec::with_capacity(v.len());
            let mut i = 0;
            while i <= v.len() {
                match pat.find(v, i) {
                    Some((s, n)) if n > 0 => {
                        out.extend_from_slice(&v[i..s]);
                        fill(&mut out, &v[s..s + n]);
                        i = s + n;
                        if !all {
                            break;
                        }
                    }
                    _ => break,
                }
            }
            out.extend_from_slice(&v[i.min(v.len())..]);
            out
        }
    }
}
