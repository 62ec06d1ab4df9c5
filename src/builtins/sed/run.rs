//! Running a parsed sed script over the input lines: the cycle, the hold space, ranges,
//! the append queue and the `s` command.

use std::rc::Rc;

use super::debug;
use super::parse::{Addr, Addr2, Cmd, Kind, Out, Re, Repl, Script, Subst};
use crate::budget::Budget;
use crate::builtins::common::regex::Regex;
use crate::error::Result;

/// The input: every file's bytes, read as one stream of lines (or per file with `-s`).
pub struct Input {
    pub files: Vec<(crate::builtins::Bytes, Vec<u8>)>,
    pub sep: u8,
    pub separate: bool,
    fi: usize,
    pos: usize,
}

impl Input {
    pub fn new(files: Vec<(crate::builtins::Bytes, Vec<u8>)>, sep: u8, separate: bool) -> Self {
        Input {
            files,
            sep,
            separate,
            fi: 0,
            pos: 0,
        }
    }

    /// Moves past files with nothing left.
    fn settle(&mut self) {
        while self.fi < self.files.len() && self.pos >= self.files[self.fi].0.len() {
            self.fi += 1;
            self.pos = 0;
        }
    }

    fn has_more(&mut self) -> bool {
        self.settle();
        self.fi < self.files.len()
    }

    /// The next line and whether it ended with the separator.
    fn next_line(&mut self) -> Option<(Vec<u8>, bool)> {
        self.settle();
        let data = &self.files.get(self.fi)?.0;
        let rest = &data[self.pos..];
        match memchr::memchr(self.sep, rest) {
            Some(i) => {
                let line = rest[..i].to_vec();
                self.pos += i + 1;
                Some((line, true))
            }
            None => {
                let line = rest.to_vec();
                self.pos = data.len();
                Some((line, false))
            }
        }
    }

    /// Whether the line just read is the last one (of its file, with `-s`).
    fn at_last(&mut self) -> bool {
        if self.separate {
            let Some((data, _)) = self.files.get(self.fi) else {
                return true;
            };
            return self.pos >= data.len();
        }
        !self.has_more()
    }

    /// The file the next line comes from, and whether it starts there (`-s` counts
    /// lines per file).
    fn starts_file(&mut self) -> bool {
        self.settle();
        self.pos == 0
    }

    fn file_name(&self) -> Vec<u8> {
        let i = if self.fi < self.files.len() {
            self.fi
        } else {
            self.files.len().saturating_sub(1)
        };
        self.files
            .get(i)
            .map(|f| f.1.clone())
            .unwrap_or_else(|| b"-".to_vec())
    }
}

#[derive(Clone, Copy, Default)]
struct Range {
    active: bool,
    /// For `+N` and `~N` (and numeric ends): the last line of the range.
    end: u64,
    /// A range with a line-number start has started once.
    done: bool,
}

/// How a run ended.
pub enum End {
    /// All input read (or `q`): the exit status.
    Exit(i32),
}

pub struct Runner<'a> {
    pub script: &'a Script,
    pub quiet: bool,
    pub line_wrap: usize,
    pub posix: bool,
    input: Input,
    ps: Vec<u8>,
    hs: Vec<u8>,
    line_no: u64,
    /// The pattern space ends with the separator when printed (it came from a line that
    /// had one); the hold space has its own, and `x`, `g`, `G`, `h`, `H` carry it along.
    newline: bool,
    hs_newline: bool,
    missing_newline: bool,
    /// The same for what `w /dev/stdout` and `w /dev/stderr` wrote.
    w_missing: [bool; 2],
    append: Vec<Vec<u8>>,
    tflag: bool,
    ranges: Vec<Range>,
    last_re: Option<Rc<Regex>>,
    out: Vec<u8>,
    err: Vec<u8>,
    /// A runtime error stopped the script: its exit status.
    failed: Option<i32>,
    /// `--debug`, and the trace's block depth: GNU counts it up at each `{` and down at
    /// each `}` it passes, so a cycle that leaves a block early leaves it deeper (and a
    /// jump into a block shallower) for the rest of the run.
    debug: bool,
    depth: i64,
}

enum Flow {
    Continue,
    /// End the cycle: autoprint unless `false`.
    EndCycle(bool),
    /// `D`: restart without reading a line.
    Restart,
    /// Stop: the status, whether to autoprint, whether it was `q` (which ends the last
    /// line even when the input did not).
    Quit(i32, bool, bool),
    /// `D` without a newline: like `d`, but no end of cycle is traced.
    Drop,
}

impl<'a> Runner<'a> {
    pub fn new(
        script: &'a Script,
        input: Input,
        quiet: bool,
        line_wrap: usize,
        posix: bool,
        debug: bool,
    ) -> Self {
        Runner {
            script,
            quiet,
            line_wrap,
            posix,
            input,
            ps: Vec::new(),
            hs: Vec::new(),
            line_no: 0,
            newline: true,
            hs_newline: true,
            missing_newline: false,
            w_missing: [false; 2],
            append: Vec::new(),
            tflag: false,
            ranges: vec![Range::default(); script.cmds.len()],
            last_re: None,
            out: Vec::new(),
            err: Vec::new(),
            failed: None,
            debug,
            depth: 0,
        }
    }

    /// Runs the script; stdout and stderr bytes are appended to the given buffers.
    pub fn run(
        &mut self,
        budget: &Budget,
        stdout: &mut Vec<u8>,
        stderr: &mut Vec<u8>,
    ) -> Result<End> {
        let r = self.run_inner(budget);
        stdout.append(&mut self.out);
        stderr.append(&mut self.err);
        r
    }

    fn run_inner(&mut self, budget: &Budget) -> Result<End> {
        if self.debug {
            debug::program(self.script, &mut self.out);
        }
        // Ranges that start at line 0 are active from the start.
        for (i, c) in self.script.cmds.iter().enumerate() {
            if matches!(c.a1, Some(Addr::Zero)) {
                self.ranges[i].active = true;
            }
        }
        let mut restart = false;
        loop {
            if !restart {
                if !self.read_line() {
                    return Ok(End::Exit(0));
                }
                if self.debug {
                    let name = self.input.file_name();
                    debug::input(&name, self.line_no, &mut self.out);
                }
            }
            if self.debug {
                debug::space(b"PATTERN: ", &self.ps, &mut self.out);
            }
            restart = false;
            budget.spend(1)?;
            budget.spend_bytes(self.ps.len())?;
            match self.cycle(budget)? {
                Flow::Continue | Flow::EndCycle(true) => {
                    self.end_of_cycle();
                    if !self.quiet {
                        self.emit_ps();
                    }
                    self.dump_append();
                }
                Flow::EndCycle(false) => {
                    self.end_of_cycle();
                    self.dump_append();
                }
                Flow::Drop => self.dump_append(),
                Flow::Restart => {
                    self.dump_append();
                    restart = true;
                }
                Flow::Quit(code, print, q) => {
                    if print && !self.quiet {
                        self.emit_ps();
                    }
                    if print {
                        self.dump_append();
                        if q && self.missing_newline {
                            self.out.push(self.input.sep);
                            self.missing_newline = false;
                        }
                    }
                    return Ok(End::Exit(code));
                }
            }
        }
    }

    fn end_of_cycle(&mut self) {
        if self.debug {
            self.out.extend_from_slice(b"END-OF-CYCLE:\n");
        }
    }

    fn read_line(&mut self) -> bool {
        if self.input.separate && self.input.starts_file() {
            self.line_no = 0;
        }
        match self.input.next_line() {
            Some((line, nl)) => {
                self.ps = line;
                self.newline = nl;
                self.line_no += 1;
                self.tflag = false;
                true
            }
            None => false,
        }
    }

    /// Writes `text`, then the separator (or remembers that it is missing).
    fn emit(&mut self, text: &[u8], newline: bool, to: Out) {
        let sep = self.input.sep;
        let buf = match to {
            Out::Stdout => &mut self.out,
            Out::Stderr => &mut self.err,
            Out::Nowhere => return,
        };
        if to == Out::Stdout && self.missing_newline {
            buf.push(sep);
            self.missing_newline = false;
        }
        buf.extend_from_slice(text);
        if newline {
            buf.push(sep);
        } else if to == Out::Stdout {
            self.missing_newline = true;
        }
    }

    /// `w` to /dev/stdout or /dev/stderr: GNU writes through the file it opened for
    /// `w`, which remembers its own unended line apart from sed's output.
    fn emit_w(&mut self, text: &[u8], newline: bool, to: Out) {
        let sep = self.input.sep;
        let (buf, missing) = match to {
            Out::Stdout => (&mut self.out, &mut self.w_missing[0]),
            Out::Stderr => (&mut self.err, &mut self.w_missing[1]),
            Out::Nowhere => return,
        };
        if *missing {
            buf.push(sep);
        }
        buf.extend_from_slice(text);
        if newline {
            buf.push(sep);
        }
        *missing = !newline;
    }

    fn emit_ps(&mut self) {
        let ps = std::mem::take(&mut self.ps);
        let nl = self.newline;
        self.emit(&ps, nl, Out::Stdout);
        self.ps = ps;
    }

    /// Text that always ends with the separator (`i`, `a`, `=`, `l`).
    fn emit_text(&mut self, text: &[u8]) {
        if self.missing_newline {
            self.out.push(self.input.sep);
            self.missing_newline = false;
        }
        self.out.extend_from_slice(text);
        self.out.push(self.input.sep);
    }

    /// The `a` queue: its text always ends with a newline, even with `-z`. An empty text
    /// (`a\` at the end of the script) adds nothing, but still ends an unended line.
    fn dump_append(&mut self) {
        for t in std::mem::take(&mut self.append) {
            if self.missing_newline {
                self.out.push(self.input.sep);
                self.missing_newline = false;
            }
            if !t.is_empty() {
                self.out.extend_from_slice(&t);
                self.out.push(b'\n');
            }
        }
    }

    fn resolve(&mut self, re: &Re) -> Option<Rc<Regex>> {
        match &re.re {
            Some(r) => {
                self.last_re = Some(r.clone());
                Some(r.clone())
            }
            None => self.last_re.clone(),
        }
    }

    fn no_previous(&mut self, re: &Re) {
        self.err.extend_from_slice(
            format!(
                "sed: -e expression #{}, char 0: no previous regular expression\n",
                re.expr
            )
            .as_bytes(),
        );
        self.failed = Some(1);
    }

    fn re_matches(&mut self, re: &Re, budget: &Budget) -> Result<bool> {
        let Some(r) = self.resolve(re) else {
            if self.failed.is_none() {
                self.no_previous(re);
            }
            return Ok(false);
        };
        r.is_match(&self.ps, budget)
    }

    fn is_last(&mut self) -> bool {
        self.input.at_last()
    }

    fn match_a1(&mut self, a: &Addr, budget: &Budget) -> Result<bool> {
        Ok(match a {
            Addr::Line(n) => self.line_no == *n,
            Addr::Last => self.is_last(),
            Addr::Re(re) => self.re_matches(re, budget)?,
            Addr::Step(first, step) => {
                if *step == 0 {
                    self.line_no == *first
                } else {
                    self.line_no >= *first && (self.line_no - first).is_multiple_of(*step)
                }
            }
            Addr::Zero => false,
        })
    }

    /// Whether a range starts here. A line-number start that this command did not see
    /// (`n`, `N` or `d` skipped it) still starts the range on a later line, once: for
    /// `N,M` on a line up to `M`, for `N,/re/`, `N,+K` and `N,~K` on any (as GNU sed).
    fn match_range_start(
        &mut self,
        a1: &Addr,
        a2: &Addr2,
        range: &mut Range,
        budget: &Budget,
    ) -> Result<bool> {
        if let Addr::Line(n) = a1 {
            let l = self.line_no;
            let hit = l == *n
                || (l > *n
                    && match a2 {
                        Addr2::Line(m) => l <= *m,
                        _ => true,
                    });
            if hit && !range.done {
                range.done = true;
                return Ok(true);
            }
            return Ok(false);
        }
        self.match_a1(a1, budget)
    }

    fn selected(&mut self, i: usize, cmd: &Cmd, budget: &Budget) -> Result<bool> {
        let Some(a1) = &cmd.a1 else {
            return Ok(true);
        };
        let Some(a2) = &cmd.a2 else {
            return self.match_a1(a1, budget);
        };
        let l = self.line_no;
        let mut range = self.ranges[i];
        let result;
        if range.active {
            match a2 {
                Addr2::Re(re) => {
                    if self.re_matches(re, budget)? {
                        range.active = false;
                    }
                    result = true;
                }
                Addr2::Last => {
                    if self.is_last() {
                        range.active = false;
                    }
                    result = true;
                }
                Addr2::Line(_) | Addr2::Plus(_) | Addr2::Tilde(_) | Addr2::Step(..) => {
                    // At or past the end (lines skipped by `n`/`N`): the last line.
                    if l >= range.end {
                        range.active = false;
                    }
                    result = true;
                }
            }
        } else if self.match_range_start(a1, a2, &mut range, budget)? {
            result = true;
            match a2 {
                Addr2::Line(n) => {
                    if *n > l {
                        range.active = true;
                        range.end = *n;
                    }
                }
                Addr2::Plus(n) => {
                    if *n > 0 {
                        range.active = true;
                        range.end = l.saturating_add(*n);
                    }
                }
                Addr2::Tilde(n) => {
                    if *n > 0 {
                        range.active = true;
                        range.end = (l / n + 1).saturating_mul(*n);
                        if l.is_multiple_of(*n) {
                            range.end = l.saturating_add(*n);
                        }
                    }
                }
                Addr2::Step(first, step) => {
                    // The first line at or after this one on `first~step` ends it.
                    let end = if *step == 0 || l <= *first {
                        *first
                    } else {
                        first.saturating_add((l - first).div_ceil(*step).saturating_mul(*step))
                    };
                    if end > l {
                        range.active = true;
                        range.end = end;
                    }
                }
                Addr2::Last => {
                    if !self.is_last() {
                        range.active = true;
                    }
                }
                Addr2::Re(_) => range.active = true,
            }
        } else {
            result = false;
        }
        self.ranges[i] = range;
        Ok(result)
    }

    fn cycle(&mut self, budget: &Budget) -> Result<Flow> {
        let cmds = &self.script.cmds;
        let mut pc = 0;
        while pc < cmds.len() {
            let cmd = &cmds[pc];
            if self.debug {
                if matches!(cmd.kind, Kind::EndBlock) {
                    self.depth -= 1;
                }
                debug::command_line(cmd, self.depth.max(0) as usize, &mut self.out);
                if matches!(cmd.kind, Kind::Block(_)) {
                    self.depth += 1;
                }
            }
            let mut sel = self.selected(pc, cmd, budget)?;
            if let Some(code) = self.failed {
                return Ok(Flow::Quit(code, false, false));
            }
            if cmd.negate {
                sel = !sel;
            }
            if !sel {
                pc = match cmd.kind {
                    // The trace shows the skipped block's `}`.
                    Kind::Block(end) if self.debug => end - 1,
                    Kind::Block(end) => end,
                    _ => pc + 1,
                };
                continue;
            }
            budget.spend(1)?;
            pc += 1;
            match &cmd.kind {
                Kind::Block(_) | Kind::EndBlock | Kind::Label | Kind::Comment | Kind::Read(_) => {}
                Kind::Eq => {
                    let s = format!("{}", self.line_no);
                    self.emit_text(s.as_bytes());
                }
                Kind::Append(t) => self.append.push(t.clone()),
                // An empty text (`i\` at the end of the script) writes nothing at all.
                Kind::Insert(t) if t.is_empty() => {}
                Kind::Insert(t) => {
                    let t = t.clone();
                    self.emit_text(&t);
                }
                Kind::Change(t) => {
                    let in_range = cmd.a2.is_some() && !cmd.negate;
                    if (!in_range || !self.ranges[pc - 1].active) && !t.is_empty() {
                        let t = t.clone();
                        self.emit_text(&t);
                    }
                    return Ok(Flow::EndCycle(false));
                }
                Kind::Branch(t) => pc = t.unwrap_or(cmds.len()),
                Kind::BranchIf(t) => {
                    if self.tflag {
                        self.tflag = false;
                        pc = t.unwrap_or(cmds.len());
                    }
                }
                Kind::BranchUnless(t) => {
                    if self.tflag {
                        self.tflag = false;
                    } else {
                        pc = t.unwrap_or(cmds.len());
                    }
                }
                Kind::Delete => return Ok(Flow::EndCycle(false)),
                Kind::DeleteFirst => match memchr::memchr(self.input.sep, &self.ps) {
                    None => return Ok(Flow::Drop),
                    Some(i) => {
                        self.ps.drain(..=i);
                        return Ok(Flow::Restart);
                    }
                },
                Kind::Get => {
                    self.ps.clone_from(&self.hs);
                    self.newline = self.hs_newline;
                    // GNU shows the hold space here (the same bytes).
                    self.trace(false, true);
                }
                Kind::GetAppend => {
                    self.ps.push(self.input.sep);
                    let hs = std::mem::take(&mut self.hs);
                    self.ps.extend_from_slice(&hs);
                    self.hs = hs;
                    self.newline = self.hs_newline;
                    self.trace(true, false);
                }
                Kind::Hold => {
                    self.hs.clone_from(&self.ps);
                    self.hs_newline = self.newline;
                    self.trace(false, true);
                }
                Kind::HoldAppend => {
                    self.hs.push(self.input.sep);
                    self.hs.extend_from_slice(&self.ps);
                    self.hs_newline = self.newline;
                    self.trace(false, true);
                }
                Kind::Exchange => {
                    std::mem::swap(&mut self.ps, &mut self.hs);
                    std::mem::swap(&mut self.newline, &mut self.hs_newline);
                    self.trace(true, true);
                }
                Kind::List(n) => {
                    let width = n.unwrap_or(self.line_wrap);
                    let text = list(&self.ps, width, self.input.sep);
                    self.emit_text(&text);
                }
                Kind::Next => {
                    if !self.quiet {
                        self.emit_ps();
                    }
                    if !self.input.has_more() {
                        self.end_of_cycle();
                        self.dump_append();
                        return Ok(Flow::Quit(0, false, false));
                    }
                    self.dump_append();
                    self.read_line();
                    budget.spend_bytes(self.ps.len())?;
                    self.trace(true, false);
                }
                Kind::NextAppend => {
                    if !self.input.has_more() {
                        self.end_of_cycle();
                        return Ok(Flow::Quit(0, !self.posix, false));
                    }
                    self.dump_append();
                    let old = std::mem::take(&mut self.ps);
                    let t = self.tflag;
                    self.read_line();
                    self.tflag = t;
                    let mut ps = old;
                    ps.push(self.input.sep);
                    ps.extend_from_slice(&self.ps);
                    self.ps = ps;
                    budget.spend_bytes(self.ps.len())?;
                    self.trace(true, false);
                }
                Kind::Print => self.emit_ps(),
                Kind::PrintFirst => match memchr::memchr(self.input.sep, &self.ps) {
                    Some(end) => {
                        let first = self.ps[..end].to_vec();
                        self.emit(&first, true, Out::Stdout);
                    }
                    None => self.emit_ps(),
                },
                Kind::Quit(code) => return Ok(Flow::Quit(code.unwrap_or(0), true, true)),
                Kind::QuitSilent(code) => return Ok(Flow::Quit(code.unwrap_or(0), false, false)),
                Kind::Write(out) => {
                    let ps = self.ps.clone();
                    let nl = self.newline;
                    self.emit_w(&ps, nl, *out);
                }
                Kind::WriteFirst(out) => {
                    let end = memchr::memchr(self.input.sep, &self.ps).unwrap_or(self.ps.len());
                    let first = self.ps[..end].to_vec();
                    self.emit_w(&first, true, *out);
                }
                Kind::Subst(s) => {
                    if let Some(code) = self.subst(s, budget)? {
                        return Ok(Flow::Quit(code, false, false));
                    }
                }
                Kind::Translate(map) => {
                    for b in self.ps.iter_mut() {
                        *b = map[usize::from(*b)];
                    }
                    self.trace(true, false);
                }
                Kind::Zap => {
                    self.ps.clear();
                    self.trace(true, false);
                }
                Kind::FileName => {
                    let name = self.input.file_name();
                    self.emit_text(&name);
                }
            }
        }
        Ok(Flow::Continue)
    }

    /// `--debug`: the pattern and/or hold space after a command changed them.
    fn trace(&mut self, pattern: bool, hold: bool) {
        if !self.debug {
            return;
        }
        if pattern {
            debug::space(b"PATTERN: ", &self.ps, &mut self.out);
        }
        if hold {
            debug::space(b"HOLD:    ", &self.hs, &mut self.out);
        }
    }

    /// The `s` command. `Some(status)` on a runtime error (already reported).
    fn subst(&mut self, s: &Subst, budget: &Budget) -> Result<Option<i32>> {
        let Some(re) = self.resolve(&s.re) else {
            self.no_previous(&s.re);
            return Ok(Some(1));
        };
        if s.max_ref > re.groups() {
            self.err.extend_from_slice(
                format!(
                    "sed: -e expression #{}, char {}: invalid reference \\{} on `s' command's RHS\n",
                    s.pos.0, s.pos.1, s.max_ref
                )
                .as_bytes(),
            );
            return Ok(Some(1));
        }
        let need_groups = s.repl.iter().any(|r| matches!(r, Repl::Group(g) if *g > 0));
        let ps = std::mem::take(&mut self.ps);
        let mut out: Vec<u8> = Vec::new();
        let mut copied = 0;
        let mut pos = 0;
        let mut count: u64 = 0;
        let mut prev_end: Option<usize> = None;
        let mut did = false;
        while pos <= ps.len() {
            let Some((ms, me)) = re.find_at(&ps, pos, budget)? else {
                break;
            };
            if pos == 0 && self.debug {
                let slots = re.captures(&ps, (ms, me), budget)?;
                debug::registers(&ps, &slots, &mut self.out);
            }
            if ms == me && prev_end == Some(ms) {
                // No empty match right after a match.
                pos = ms + 1;
                continue;
            }
            count += 1;
            if count >= s.nth {
                out.extend_from_slice(&ps[copied..ms]);
                let slots = if need_groups {
                    re.captures(&ps, (ms, me), budget)?
                } else {
                    vec![Some((ms, me))]
                };
                replace(&mut out, &ps, &slots, &s.repl);
                copied = me;
                did = true;
                if !s.global {
                    break;
                }
            }
            prev_end = Some(me);
            pos = if ms == me { me + 1 } else { me };
        }
        if !did {
            self.ps = ps;
            self.trace(true, false);
            return Ok(None);
        }
        out.extend_from_slice(&ps[copied..]);
        budget.spend_bytes(out.len())?;
        self.ps = out;
        self.tflag = true;
        if s.print > 0 {
            self.emit_ps();
        }
        if let Some(w) = s.write {
            let ps = self.ps.clone();
            let nl = self.newline;
            self.emit_w(&ps, nl, w);
        }
        self.trace(true, false);
        Ok(None)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    None,
    Upper,
    Lower,
}

/// Appends the replacement for one match.
fn replace(out: &mut Vec<u8>, hay: &[u8], slots: &[Option<(usize, usize)>], repl: &[Repl]) {
    let mut mode = Case::None;
    let mut one = Case::None;
    let simple = repl
        .iter()
        .all(|r| matches!(r, Repl::Lit(_) | Repl::Group(_) | Repl::Cut));
    for r in repl {
        let text: &[u8] = match r {
            Repl::Lit(l) => l,
            Repl::Group(g) => match slots.get(*g).copied().flatten() {
                Some((a, b)) => hay.get(a..b).unwrap_or(b""),
                None => b"",
            },
            Repl::Upper => {
                mode = Case::Upper;
                one = Case::None;
                continue;
            }
            Repl::Lower => {
                mode = Case::Lower;
                one = Case::None;
                continue;
            }
            Repl::UpperOne => {
                one = Case::Upper;
                continue;
            }
            Repl::LowerOne => {
                one = Case::Lower;
                continue;
            }
            Repl::EndCase => {
                mode = Case::None;
                one = Case::None;
                continue;
            }
            Repl::Cut => continue,
        };
        if simple {
            out.extend_from_slice(text);
            continue;
        }
        for &b in text {
            let how = if one != Case::None {
                let h = one;
                one = Case::None;
                h
            } else {
                mode
            };
            out.push(match how {
                Case::Upper => b.to_ascii_uppercase(),
                Case::Lower => b.to_ascii_lowercase(),
                Case::None => b,
            });
        }
    }
}

/// The `l` command's picture of the pattern space.
fn list(ps: &[u8], width: usize, sep: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(ps.len() + 8);
    let mut col = 0usize;
    for &b in ps {
        let mut esc = [0u8; 4];
        let piece: &[u8] = match b {
            b'\\' => b"\\\\",
            0x07 => b"\\a",
            0x08 => b"\\b",
            0x0c => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x0b => b"\\v",
            0x20..=0x7e => {
                esc[0] = b;
                &esc[..1]
            }
            _ => {
                esc = [
                    b'\\',
                    b'0' + (b >> 6),
                    b'0' + ((b >> 3) & 7),
                    b'0' + (b & 7),
                ];
                &esc[..4]
            }
        };
        if width == 1 || (width > 1 && col + piece.len() > width - 1) {
            out.push(b'\\');
            out.push(sep);
            col = 0;
        }
        out.extend_from_slice(piece);
        col += piece.len();
    }
    out.push(b'$');
    out
}
