//! Execution: lists, pipelines, compound commands, simple commands, redirections, and
//! the dispatch of a command name (special builtin, function, builtin, FIFO).
//!
//! Steps: one per simple command, one more per function call, one per loop pass, one per
//! subshell, command substitution or `sh -c`.
//!
//! The stages of a pipeline run together (see [`crate::stream`]): each is a subshell, an
//! [`Exec`] of its own with a copy of the state, reading the pipe from the stage before it
//! and writing the pipe to the stage after it. What every stage shares (the budget, the
//! caches, the count of subrequests) is in [`Shared`].

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use super::ast::*;
use super::cache::ScriptCache;
use super::options::Opt;
use super::redirect::FdTable;
use super::state::State;
use crate::budget::{Budget, BYTES_PER_STEP};
use crate::builtins::{self, Caches, Net, Run, ToolIo};
use crate::error::{Error, Status};
use crate::host::{Host, HttpRequest, HttpResponse, LocalFuture};
use crate::stream::{join_stages, Out, Pipe, Stdin};
use futures_util::future::Either;
use smallvec::{smallvec, SmallVec};

/// How deep function calls, subshells and substitutions may nest.
pub const MAX_DEPTH: u32 = 200;

/// Why execution unwinds.
#[derive(Debug)]
pub enum Ctl {
    Break(u32),
    Continue(u32),
    Return(Status),
    Exit(Status),
    /// An expansion error (already reported): the shell exits with `top`, a subshell with
    /// `sub` (bash's statuses).
    Abort {
        top: Status,
        sub: Status,
    },
    Err(Error),
}

impl From<Error> for Ctl {
    fn from(e: Error) -> Ctl {
        Ctl::Err(e)
    }
}

pub type R<T = Status> = Result<T, Ctl>;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Where a command's standard streams go: indexes into the inputs and sinks; `None` is
/// `/dev/null`.
#[derive(Debug, Clone, Copy)]
pub struct Io {
    pub stdin: usize,
    pub out: Option<usize>,
    pub err: Option<usize>,
}

/// What all the commands of one run share, in whichever stage they run.
pub struct Shared<'s> {
    pub host: &'s dyn Host,
    pub caches: &'s Caches,
    pub scripts: RefCell<&'s mut ScriptCache>,
    pub budget: Budget,
    pub subrequests: Cell<u32>,
    pub max_subrequests: u32,
    /// The lowest stack address seen at a nesting level (see [`Exec::enter`]).
    pub stack_low: Cell<usize>,
}

impl<'s> Shared<'s> {
    pub fn new(
        host: &'s dyn Host,
        caches: &'s Caches,
        scripts: &'s mut ScriptCache,
        budget: Budget,
    ) -> Self {
        Shared {
            host,
            caches,
            scripts: RefCell::new(scripts),
            budget,
            subrequests: Cell::new(0),
            max_subrequests: 0,
            stack_low: Cell::new(usize::MAX),
        }
    }

    /// Counts one more subrequest, or fails past the limit; `line` is the script's line
    /// when the shell itself makes the request (a FIFO as a command).
    pub fn count_subrequest(&self, line: Option<u32>) -> Result<(), Error> {
        let used = self.subrequests.get();
        if used >= self.max_subrequests {
            let at = line.map(|l| format!("line {l}: ")).unwrap_or_default();
            return Err(Error::Fatal(format!(
                "sh: {at}subrequest limit of {} exceeded",
                self.max_subrequests
            )));
        }
        self.subrequests.set(used + 1);
        Ok(())
    }
}

impl Net for Shared<'_> {
    fn fetch(
        &self,
        request: HttpRequest,
    ) -> LocalFuture<'_, crate::error::Result<Result<HttpResponse, String>>> {
        Box::pin(async move {
            self.count_subrequest(None)?;
            Ok(self.host.fetch(request).await)
        })
    }

    fn fetch_stream(
        &self,
        request: HttpRequest,
    ) -> LocalFuture<'_, crate::error::Result<Result<(HttpResponse, Stdin), String>>> {
        Box::pin(async move {
            self.count_subrequest(None)?;
            Ok(self.host.fetch_stream(request).await)
        })
    }

    fn fifo(
        &self,
        name: &str,
        request: HttpRequest,
    ) -> LocalFuture<'_, crate::error::Result<Result<Option<HttpResponse>, String>>> {
        let name = name.to_string();
        Box::pin(async move {
            self.count_subrequest(None)?;
            Ok(self.host.fifo_request(&name, request).await)
        })
    }
}

/// The stacks of a shell's outputs and inputs: a few entries each, kept inline because every
/// pipeline stage makes a pair.
pub type Sinks = SmallVec<[Out; 4]>;
pub type Inputs = SmallVec<[Stdin; 2]>;

pub struct Exec<'s> {
    pub sh: &'s Shared<'s>,
    pub st: State,
    /// Where output goes: 0 is the command's stdout, 1 its stderr, then substitutions,
    /// used as a stack.
    pub sinks: Sinks,
    /// Inputs: 0 is the command's stdin, then here-documents and redirections, as a stack.
    pub inputs: Inputs,
    pub depth: u32,
    /// Inside a condition (`if`, `while`, `&&`, `!`...): `set -e` does not apply.
    pub cond: u32,
    pub line: u32,
    /// The status of the last command substitution in the current simple command.
    pub subst_status: Option<Status>,
    /// The script ended by `exit` or an error, not by running to its end.
    pub exited: bool,
    /// File descriptors 3-9 (see [`super::redirect`]).
    pub fds: FdTable,
}

impl<'s> Exec<'s> {
    /// A shell reading `stdin` and writing `out` and `err`.
    pub fn new(sh: &'s Shared<'s>, stdin: Stdin, out: Out, err: Out) -> Self {
        Exec {
            sh,
            st: State::default(),
            sinks: smallvec![out, err],
            inputs: smallvec![stdin],
            depth: 0,
            cond: 0,
            line: 1,
            subst_status: None,
            exited: false,
            fds: Default::default(),
        }
    }

    /// The standard streams of a command with these streams.
    pub const TOP: Io = Io {
        stdin: 0,
        out: Some(0),
        err: Some(1),
    };

    /// A subshell of this shell, with streams of its own: a stage of a pipeline.
    fn stage(&self, stdin: Stdin, out: Out, err: Out) -> Exec<'s> {
        Exec {
            sh: self.sh,
            st: self.st.clone(),
            sinks: smallvec![out, err],
            inputs: smallvec![stdin],
            depth: self.depth,
            cond: self.cond,
            line: self.line,
            subst_status: None,
            exited: false,
            fds: self.fds.clone(),
        }
    }

    /// The place a stream index names (`None`: `/dev/null`).
    pub fn sink(&self, to: Option<usize>) -> Out {
        to.and_then(|i| self.sinks.get(i).cloned())
            .unwrap_or_default()
    }

    /// Writes the shell's own output (a listing, a message) at once.
    pub fn write(&mut self, to: Option<usize>, bytes: &[u8]) {
        if let Some(s) = to.and_then(|i| self.sinks.get(i)) {
            // A reader that has gone is the next command's concern, as for a shell that
            // ignores a failed write of its own.
            let _ = s.write_now(bytes);
        }
    }

    /// Writes `sh: line N: MSG` to the command's stderr.
    pub fn diag(&mut self, io: Io, msg: &str) {
        let text = format!("sh: line {}: {msg}\n", self.line);
        self.write(io.err, text.as_bytes());
    }

    pub fn enter(&mut self) -> R<()> {
        // Where the stack is now: for measuring how much one level of nesting takes.
        let probe = 0u8;
        let here = std::ptr::addr_of!(probe) as usize;
        self.sh.stack_low.set(self.sh.stack_low.get().min(here));
        if self.depth >= MAX_DEPTH {
            return Err(Ctl::Err(Error::Fatal(format!(
                "sh: line {}: maximum nesting depth of {MAX_DEPTH} exceeded (function calls, subshells and substitutions)",
                self.line
            ))));
        }
        self.depth += 1;
        Ok(())
    }

    pub fn list_boxed<'a>(&'a mut self, list: &'a [AndOr], io: Io) -> Boxed<'a, R> {
        Box::pin(self.list(list, io))
    }

    pub async fn list(&mut self, list: &[AndOr], io: Io) -> R {
        let mut status = 0;
        for ao in list {
            // `set -n`: read commands, run none.
            if self.st.opts.on(Opt::NOEXEC) {
                break;
            }
            status = self.and_or(ao, io).await?;
        }
        Ok(status)
    }

    async fn and_or(&mut self, ao: &AndOr, io: Io) -> R {
        let n = ao.rest.len();
        let mut status = self.pipeline(&ao.first, io, n > 0).await?;
        for (i, (and, p)) in ao.rest.iter().enumerate() {
            if *and == (status == 0) {
                status = self.pipeline(p, io, i + 1 < n).await?;
            }
        }
        Ok(status)
    }

    async fn pipeline(&mut self, p: &Pipeline, io: Io, not_last: bool) -> R {
        let guarded = not_last || p.bang;
        if guarded {
            self.cond += 1;
        }
        let r = self.pipeline_inner(p, io).await;
        if guarded {
            self.cond -= 1;
        }
        let mut status = r?;
        if p.bang {
            status = i32::from(status == 0);
        }
        self.st.status = status;
        // A compound command other than a subshell fails only by a command inside it,
        // which `set -e` has judged already (a failure it ignored stays ignored).
        let compound = matches!(p.cmds.as_slice(), [Command::Compound(c, _)] if !matches!(**c, Compound::Subshell(_)));
        if status != 0 && !guarded && !compound && self.cond == 0 && self.st.opts.on(Opt::ERREXIT) {
            return Err(Ctl::Exit(status));
        }
        Ok(status)
    }

    async fn pipeline_inner(&mut self, p: &Pipeline, io: Io) -> R {
        if p.cmds.len() == 1 {
            return self.command(&p.cmds[0], io).await;
        }
        let n = p.cmds.len();
        let err = self.sink(io.err);
        // The words of a stage that runs a builtin and whose expansion changes nothing
        // are expanded here, before the stages start: such a stage needs no shell of its
        // own (see `light_stage`).
        let mut lights: SmallVec<[Option<LightStage>; 5]> = SmallVec::with_capacity(n);
        for cmd in &p.cmds {
            lights.push(self.light_stage(cmd, io).await);
        }
        // `pipes[i]` runs from stage i to stage i + 1. The stages borrow these and their
        // light stages' streams, which outlive them here.
        let pipes: SmallVec<[Pipe; 4]> = (1..n).map(|_| Pipe::new()).collect();
        let mut streams: SmallVec<[Streams; 5]> = SmallVec::with_capacity(n);
        for (i, light) in lights.iter().enumerate() {
            let stdin = match i.checked_sub(1) {
                Some(before) => Stdin::pipe(pipes[before].clone()),
                None => self.inputs[io.stdin].clone(),
            };
            let out = match pipes.get(i) {
                Some(pipe) => Out::Pipe(pipe.clone()),
                None => self.sink(io.out),
            };
            streams.push(match light {
                Some(light) => {
                    let pick = |fd: StdFd| match fd {
                        StdFd::Out => out.clone(),
                        StdFd::Err => err.clone(),
                        StdFd::In | StdFd::Null => Out::Null,
                    };
                    let stdin = match light.fds[0] {
                        StdFd::Null => Stdin::default(),
                        _ => stdin,
                    };
                    Streams {
                        stdin,
                        out: pick(light.fds[1]),
                        err: pick(light.fds[2]),
                    }
                }
                None => Streams {
                    stdin,
                    out,
                    err: err.clone(),
                },
            });
        }
        let this = &*self;
        let pipes = &pipes;
        let stages = p.cmds.iter().zip(&lights).zip(&streams).enumerate().map(
            |(i, ((cmd, light), streams))| {
                let end = StageEnd { pipes, i };
                match (light, cmd) {
                    (Some(light), Command::Simple(s)) => Either::Left(LightRun {
                        exec: this,
                        stage: light,
                        streams,
                        running: None,
                        end,
                        line: s.line,
                    }),
                    _ => {
                        let mut child = this.stage(
                            streams.stdin.clone(),
                            streams.out.clone(),
                            streams.err.clone(),
                        );
                        Either::Right(Box::pin(async move {
                            let r = match child.enter() {
                                Ok(()) => child.command(cmd, Exec::TOP).await,
                                Err(e) => Err(e),
                            };
                            end.run();
                            (sub_status(r), child.line)
                        }))
                    }
                }
            },
        );
        let results = join_stages(stages).await;
        let mut status = 0;
        let mut failed = 0;
        for (r, line) in results {
            self.line = line;
            let s = r?;
            status = s;
            if s != 0 {
                failed = s;
            }
        }
        if self.st.opts.on(Opt::PIPEFAIL) && status == 0 {
            status = failed;
        }
        Ok(status)
    }

    pub async fn command(&mut self, c: &Command, io: Io) -> R {
        match c {
            Command::Simple(s) => self.simple(s, io).await,
            Command::Compound(c, redirs) => {
                if redirs.is_empty() {
                    return self.compound(c, io).await;
                }
                let mut mark = self.mark();
                let r = match self.redirect(redirs, io, &mut mark).await {
                    Ok(Ok(io)) => self.compound(c, io).await,
                    Ok(Err(status)) => Ok(status),
                    Err(e) => Err(e),
                };
                self.unwind(mark);
                r
            }
            Command::FuncDef(f) => {
                if super::special::is_posix_special(&f.name) {
                    // POSIX 2.9.5: a special builtin's name cannot be a function's.
                    let name = String::from_utf8_lossy(&f.name).into_owned();
                    self.diag(
                        io,
                        &format!("{name}: a special builtin cannot be a function"),
                    );
                    return Err(Ctl::Abort { top: 2, sub: 2 });
                }
                Rc::make_mut(&mut self.st.funcs).insert(f.name.clone(), f.clone());
                Ok(0)
            }
        }
    }

    pub fn compound<'a>(&'a mut self, c: &'a Compound, io: Io) -> Boxed<'a, R> {
        Box::pin(async move {
            self.enter()?;
            let r = self.compound_inner(c, io).await;
            self.depth -= 1;
            r
        })
    }

    async fn compound_inner(&mut self, c: &Compound, io: Io) -> R {
        {
            match c {
                Compound::Group(list) => self.list(list, io).await,
                Compound::Subshell(list) => {
                    self.sh.budget.spend(1)?;
                    self.enter()?;
                    let saved = (self.st.clone(), self.save_streams());
                    // A subshell does not inherit the EXIT action; one it sets runs as it ends.
                    if self.st.traps.iter().any(|(n, _)| *n == "EXIT") {
                        Rc::make_mut(&mut self.st.traps).retain(|(n, _)| *n != "EXIT");
                    }
                    let r = match self.list(list, io).await {
                        Ok(s) | Err(Ctl::Exit(s)) => self.run_exit_trap(s, io).await,
                        r => r,
                    };
                    self.st = saved.0;
                    self.restore_streams(saved.1);
                    self.depth -= 1;
                    sub_status(r)
                }
                Compound::If { arms, otherwise } => {
                    for (cond, body) in arms {
                        self.cond += 1;
                        let r = self.list(cond, io).await;
                        self.cond -= 1;
                        if r? == 0 {
                            return self.list(body, io).await;
                        }
                    }
                    match otherwise {
                        Some(body) => self.list(body, io).await,
                        None => Ok(0),
                    }
                }
                Compound::Loop { until, cond, body } => {
                    self.st.loops += 1;
                    let r = self.run_loop(*until, cond, body, io).await;
                    self.st.loops -= 1;
                    r
                }
                Compound::For { var, words, body } => {
                    let items = match words {
                        Some(ws) => self.expand_words(ws, io).await?,
                        None => self.st.params.to_vec(),
                    };
                    self.st.loops += 1;
                    let r = self.run_for(var, items, body, io).await;
                    self.st.loops -= 1;
                    r
                }
                Compound::Case { word, arms } => {
                    let w = self.expand_string(word, io).await?;
                    let mut status = 0;
                    let mut i = 0;
                    let mut fall = false;
                    while i < arms.len() {
                        let arm = &arms[i];
                        i += 1;
                        let mut hit = fall;
                        if !hit {
                            for p in &arm.patterns {
                                let pat = self.expand_pattern(p, io).await?;
                                self.sh.budget.spend(w.len() as u64 / BYTES_PER_STEP)?;
                                if pat.matches(&w) {
                                    hit = true;
                                    break;
                                }
                            }
                        }
                        if !hit {
                            continue;
                        }
                        status = self.list(&arm.body, io).await?;
                        match arm.end {
                            CaseEnd::Break => break,
                            CaseEnd::FallThrough => fall = true,
                            CaseEnd::Continue => fall = false,
                        }
                    }
                    Ok(status)
                }
            }
        }
    }

    async fn run_loop(&mut self, until: bool, cond: &[AndOr], body: &[AndOr], io: Io) -> R {
        let mut status = 0;
        loop {
            self.sh.budget.spend(1)?;
            self.cond += 1;
            let c = self.list(cond, io).await;
            self.cond -= 1;
            let c = match c {
                Ok(c) => c,
                Err(Ctl::Break(n)) if n > 1 => return Err(Ctl::Break(n - 1)),
                Err(Ctl::Break(_)) => return Ok(0),
                Err(Ctl::Continue(n)) if n > 1 => return Err(Ctl::Continue(n - 1)),
                Err(Ctl::Continue(_)) => continue,
                Err(e) => return Err(e),
            };
            if (c == 0) == until {
                return Ok(status);
            }
            match self.list(body, io).await {
                Ok(s) => status = s,
                Err(Ctl::Break(n)) if n > 1 => return Err(Ctl::Break(n - 1)),
                Err(Ctl::Break(_)) => return Ok(0),
                Err(Ctl::Continue(n)) if n > 1 => return Err(Ctl::Continue(n - 1)),
                Err(Ctl::Continue(_)) => status = 0,
                Err(e) => return Err(e),
            }
        }
    }

    async fn run_for(&mut self, var: &[u8], items: Vec<Vec<u8>>, body: &[AndOr], io: Io) -> R {
        let mut status = 0;
        for item in items {
            self.sh.budget.spend(1)?;
            if let Err(msg) = self.st.set(var, item) {
                self.diag(io, &msg);
                return Err(Ctl::Abort { top: 1, sub: 1 });
            }
            match self.list(body, io).await {
                Ok(s) => status = s,
                Err(Ctl::Break(n)) if n > 1 => return Err(Ctl::Break(n - 1)),
                Err(Ctl::Break(_)) => return Ok(0),
                Err(Ctl::Continue(n)) if n > 1 => return Err(Ctl::Continue(n - 1)),
                Err(Ctl::Continue(_)) => status = 0,
                Err(e) => return Err(e),
            }
        }
        Ok(status)
    }

    async fn simple(&mut self, s: &Simple, io: Io) -> R {
        self.sh.budget.spend(1)?;
        self.line = s.line;
        self.subst_status = None;
        let argv = if s.declaration {
            self.expand_declaration(&s.words, io).await?
        } else {
            self.expand_words(&s.words, io).await?
        };
        let special = argv
            .first()
            .is_some_and(|n| super::special::is_posix_special(n));
        let mut mark = self.mark();
        let new_io = if s.redirs.is_empty() {
            io
        } else {
            match self.redirect(&s.redirs, io, &mut mark).await {
                Ok(Ok(new_io)) => new_io,
                Ok(Err(status)) => {
                    self.unwind(mark);
                    // A special builtin's redirection error ends the shell (POSIX 2.8.1).
                    if special {
                        return Err(Ctl::Abort { top: 2, sub: 2 });
                    }
                    return Ok(status);
                }
                Err(e) => {
                    self.unwind(mark);
                    return Err(e);
                }
            }
        };
        if argv.len() == 1 && argv[0] == b"exec" {
            // `exec` with only redirections: they stay for the rest of the shell.
            self.keep_redirections(io, new_io, mark);
            self.assign_all(&s.assigns, io).await?;
            self.trace(&argv, io).await?;
            return Ok(self.subst_status.unwrap_or(0));
        }
        let r = self.simple_redirected(s, argv, new_io, special).await;
        self.unwind(mark);
        r
    }

    /// `set -x`: the command about to run (or an assignment, `name=value`), after PS4
    /// (`+ `), quoted as bash quotes it.
    async fn trace(&mut self, argv: &[Vec<u8>], io: Io) -> R<()> {
        if !self.st.opts.on(Opt::XTRACE) {
            return Ok(());
        }
        let mut words = Vec::new();
        for (i, a) in argv.iter().enumerate() {
            if i > 0 {
                words.push(b' ');
            }
            words.extend_from_slice(&super::special::quote_value(a));
        }
        self.trace_line(words, io).await
    }

    /// Writes PS4, expanded (with tracing off, so that a `$(...)` in it is not traced),
    /// then `text`.
    async fn trace_line(&mut self, text: Vec<u8>, io: Io) -> R<()> {
        let mut line = match self.st.get(b"PS4").map(<[u8]>::to_vec) {
            None => b"+ ".to_vec(),
            Some(ps4) => {
                let word = self.sh.scripts.borrow_mut().template(&ps4);
                match &*word {
                    Ok(w) => {
                        self.st.opts.set(Opt::XTRACE, false);
                        let r = Box::pin(self.expand_quoted(w, io)).await;
                        self.st.opts.set(Opt::XTRACE, true);
                        match r {
                            // An error in PS4 is reported and the command still runs.
                            Err(Ctl::Abort { .. }) => Vec::new(),
                            r => r?,
                        }
                    }
                    Err(_) => ps4,
                }
            }
        };
        line.extend_from_slice(&text);
        line.push(b'\n');
        self.write(io.err, &line);
        Ok(())
    }

    /// Assignments that stay: alone on a line, or before a special builtin.
    async fn assign_all(&mut self, assigns: &[Assign], io: Io) -> R<()> {
        for a in assigns {
            let v = self.assign_value(a, io).await?;
            if let Err(msg) = self.st.set(&a.name, v) {
                self.diag(io, &msg);
                return Err(Ctl::Abort { top: 1, sub: 1 });
            }
        }
        Ok(())
    }

    async fn simple_redirected(
        &mut self,
        s: &Simple,
        argv: Vec<Vec<u8>>,
        io: Io,
        special: bool,
    ) -> R {
        if argv.is_empty() {
            self.assign_all(&s.assigns, io).await?;
            return Ok(self.subst_status.unwrap_or(0));
        }
        if s.assigns.is_empty() {
            self.trace(&argv, io).await?;
            return self.dispatch(&argv, io, true).await;
        }
        if special {
            // Before a special builtin, assignments change the shell (POSIX 2.14).
            self.assign_all(&s.assigns, io).await?;
            self.trace(&argv, io).await?;
            return self.dispatch(&argv, io, true).await;
        }
        // Assignments before a command hold for that command only, exported.
        let mut saved = Vec::with_capacity(s.assigns.len());
        for a in &s.assigns {
            let v = self.assign_value(a, io).await?;
            if let Some(old) = self.st.vars.get(&a.name) {
                if old.readonly {
                    self.diag(
                        io,
                        &format!("{}: readonly variable", String::from_utf8_lossy(&a.name)),
                    );
                    self.st.restore(saved);
                    return Err(Ctl::Abort { top: 1, sub: 1 });
                }
            }
            saved.push((a.name.clone(), self.st.vars.get(&a.name).cloned()));
            let var = self.st.var_mut(&a.name);
            var.value = Some(v);
            var.exported = true;
        }
        self.trace(&argv, io).await?;
        let r = self.dispatch(&argv, io, true).await;
        self.st.restore(saved);
        r
    }

    async fn assign_value(&mut self, a: &Assign, io: Io) -> R<Vec<u8>> {
        let v = self.expand_string(&a.value, io).await?;
        if self.st.opts.on(Opt::XTRACE) {
            let mut shown = a.name.clone();
            shown.extend_from_slice(if a.append { b"+=" } else { b"=" });
            shown.extend_from_slice(&super::special::quote_value(&v));
            self.trace_line(shown, io).await?;
        }
        if a.append {
            let mut old = self.st.get(&a.name).map(<[u8]>::to_vec).unwrap_or_default();
            old.extend_from_slice(&v);
            return Ok(old);
        }
        Ok(v)
    }

    /// Runs a command by name: special builtin, function, builtin, FIFO, or not found.
    pub async fn dispatch(&mut self, argv: &[Vec<u8>], io: Io, functions: bool) -> R {
        let name = argv[0].as_slice();
        if super::special::is_special(name) {
            return Box::pin(self.special(argv, io)).await;
        }
        if functions {
            if let Some(f) = self.st.func(name) {
                return Box::pin(self.call_function(f, argv, io)).await;
            }
        }
        if let Some(tool) = builtins::lookup(name) {
            return self.builtin(tool, argv, io).await;
        }
        if is_fifo_name(name) {
            if let Some(status) = Box::pin(self.call_fifo(argv, io)).await? {
                return Ok(status);
            }
        }
        self.diag(
            io,
            &format!("{}: command not found", String::from_utf8_lossy(name)),
        );
        Ok(127)
    }

    async fn call_function(&mut self, f: Rc<FuncDef>, argv: &[Vec<u8>], io: Io) -> R {
        self.sh.budget.spend(1)?;
        self.enter()?;
        let params = std::mem::replace(&mut self.st.params, Rc::new(argv[1..].to_vec()));
        self.st.frames.push(Vec::new());
        let mut mark = self.mark();
        let r = if f.redirs.is_empty() {
            self.compound(&f.body, io).await
        } else {
            match self.redirect(&f.redirs, io, &mut mark).await {
                Ok(Ok(io)) => self.compound(&f.body, io).await,
                Ok(Err(s)) => Ok(s),
                Err(e) => Err(e),
            }
        };
        self.unwind(mark);
        let frame = self.st.frames.pop().unwrap_or_default();
        self.st.restore(frame);
        self.st.params = params;
        self.depth -= 1;
        match r {
            Err(Ctl::Return(s)) => Ok(s),
            r => r,
        }
    }

    /// Runs a builtin from the table with the command's streams.
    async fn builtin(&mut self, tool: Run, argv: &[Vec<u8>], io: Io) -> R {
        let stdin = self.inputs[io.stdin].clone();
        let (out, err) = (self.sink(io.out), self.sink(io.err));
        let ran = start_builtin(self.sh, &self.st, tool, argv, &stdin, &out, &err).await;
        builtin_ended(ran, &argv[0])
    }

    /// A pipeline stage that is a builtin named by an unquoted literal, with plain words
    /// (see [`Simple::words_are_plain`]), no assignments and no redirections but among fds
    /// 0-2 and `/dev/null` (see [`Simple::std_redirs`]), under neither `set -x` nor
    /// `set -u`: its words, expanded now, the builtin and its fds. Such a stage runs with the shell's state as it is
    /// (a subshell's copy would be the same and nothing in the stage changes it), not as a
    /// shell of its own. `None` for any other stage.
    async fn light_stage(&mut self, cmd: &Command, io: Io) -> Option<LightStage> {
        let Command::Simple(s) = cmd else { return None };
        if !s.assigns.is_empty()
            || s.declaration
            || self.st.opts.on(Opt::XTRACE)
            || self.st.opts.on(Opt::NOUNSET)
            || self.depth >= MAX_DEPTH
            || !s.words_are_plain()
        {
            return None;
        }
        let fds = s.std_redirs()?;
        // The command is known from its first word before anything is expanded, so a
        // stage that is not light is expanded once, by its own shell (an expansion spends
        // steps). No builtin of the table has the name of a special builtin (a test in
        // `special.rs` says so): only a function can stand before it.
        let name = s.words.first()?.as_literal()?;
        let tool = builtins::lookup(name)?;
        if self.st.func(name).is_some() {
            return None;
        }
        let line = std::mem::replace(&mut self.line, s.line);
        let argv = self.expand_words(&s.words, io).await;
        self.line = line;
        Some(LightStage {
            argv: argv.ok()?,
            tool,
            fds,
        })
    }

    /// Runs FIFO `argv[0]`; `None` when there is no such FIFO.
    async fn call_fifo(&mut self, argv: &[Vec<u8>], io: Io) -> R<Option<Status>> {
        let name = String::from_utf8_lossy(&argv[0]).into_owned();
        self.sh.count_subrequest(Some(self.line))?;
        let stdin = self.inputs[io.stdin].read_all().await?;
        self.sh.budget.spend_bytes(stdin.len())?;
        match self.sh.host.call_fifo(&name, &argv[1..], stdin).await {
            Ok(None) => {
                // Not a FIFO: it costs no subrequest.
                self.sh.subrequests.set(self.sh.subrequests.get() - 1);
                Ok(None)
            }
            Ok(Some(ans)) => {
                self.sh.budget.spend_bytes(ans.stdout.len())?;
                self.write(io.err, &ans.stderr);
                self.sink(io.out).write(ans.stdout).await?;
                Ok(Some(ans.status))
            }
            Err(msg) => {
                self.diag(io, &format!("{name}: {msg}"));
                Ok(Some(1))
            }
        }
    }

    /// `$(...)`: runs in a subshell and gives its output without trailing newlines.
    pub fn command_subst<'a>(&'a mut self, script: &'a Script, io: Io) -> Boxed<'a, R<Vec<u8>>> {
        Box::pin(async move {
            self.sh.budget.spend(1)?;
            self.enter()?;
            self.sinks.push(Out::buffer());
            let idx = self.sinks.len() - 1;
            let buffer = self.sinks[idx].clone();
            let saved = (self.st.clone(), self.save_streams());
            let line = self.line;
            let r = self
                .list(
                    &script.body,
                    Io {
                        stdin: io.stdin,
                        out: Some(idx),
                        err: io.err,
                    },
                )
                .await;
            self.st = saved.0;
            self.restore_streams(saved.1);
            self.line = line;
            self.depth -= 1;
            let mut out = buffer.take();
            self.sinks.truncate(idx);
            let status = sub_status(r)?;
            self.subst_status = Some(status);
            self.st.status = status;
            while out.last() == Some(&b'\n') {
                out.pop();
            }
            // A shell's strings are C strings: NUL bytes in the output are dropped (as
            // dash and bash do).
            if memchr::memchr(0, &out).is_some() {
                out.retain(|&c| c != 0);
            }
            Ok(out)
        })
    }
}

/// A pipeline stage run without a shell of its own: its expanded words, its builtin, and
/// where its redirections point fds 0-2.
struct LightStage {
    argv: Vec<Vec<u8>>,
    tool: Run,
    fds: [StdFd; 3],
}

/// A pipeline stage's standard streams.
struct Streams {
    stdin: Stdin,
    out: Out,
    err: Out,
}

/// The end of stage `i`'s process: its reader sees the end of the pipe it wrote, its
/// writer a broken pipe on the pipe it read.
#[derive(Clone, Copy)]
struct StageEnd<'p> {
    pipes: &'p [Pipe],
    i: usize,
}

impl StageEnd<'_> {
    fn run(self) {
        if let Some(pipe) = self.pipes.get(self.i) {
            pipe.close_write();
        }
        if let Some(pipe) = self
            .i
            .checked_sub(1)
            .and_then(|before| self.pipes.get(before))
        {
            pipe.close_read();
        }
    }
}

/// A light stage as it runs: its builtin's future, started when the stage is first polled
/// (a step spent then, as for a stage's process starting). All it holds is borrowed or
/// boxed, so it is small and moves freely.
struct LightRun<'a, 's> {
    exec: &'a Exec<'s>,
    stage: &'a LightStage,
    streams: &'a Streams,
    running: Option<LocalFuture<'a, Result<Status, Error>>>,
    end: StageEnd<'a>,
    line: u32,
}

impl Future for LightRun<'_, '_> {
    type Output = (R, u32);

    fn poll(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let run = self.get_mut();
        let stage = run.stage;
        let builtin = match &mut run.running {
            Some(builtin) => builtin,
            None => {
                if let Err(e) = run.exec.sh.budget.spend(1) {
                    run.end.run();
                    return std::task::Poll::Ready((sub_status(Err(e.into())), run.line));
                }
                let sh = run.exec.sh;
                let Streams { stdin, out, err } = run.streams;
                run.running.insert(start_builtin(
                    sh,
                    &run.exec.st,
                    stage.tool,
                    &stage.argv,
                    stdin,
                    out,
                    err,
                ))
            }
        };
        let std::task::Poll::Ready(ran) = builtin.as_mut().poll(cx) else {
            return std::task::Poll::Pending;
        };
        run.running = None;
        run.end.run();
        std::task::Poll::Ready((sub_status(builtin_ended(ran, &stage.argv[0])), run.line))
    }
}

/// Starts builtin `tool` with these streams and the variables of `vars`: its future, a
/// box (a pipeline stage that awaits it stays small).
fn start_builtin<'a>(
    sh: &'a Shared<'_>,
    vars: &'a State,
    tool: Run,
    argv: &'a [Vec<u8>],
    stdin: &'a Stdin,
    out: &'a Out,
    err: &'a Out,
) -> LocalFuture<'a, Result<Status, Error>> {
    let io = ToolIo {
        stdin,
        out,
        err,
        budget: &sh.budget,
        vars,
        host: sh.host,
        caches: sh.caches,
        net: sh,
    };
    tool(io, argv)
}

/// What the end of builtin `name` means to the shell.
fn builtin_ended(ran: Result<Status, Error>, name: &[u8]) -> R {
    match ran {
        Ok(s) => Ok(s),
        // A shell's own `echo` and `printf` run in the shell's process: SIGPIPE ends
        // it (a pipeline stage ends with 141). Any other tool is a process of its own
        // that dies, and the shell goes on.
        Err(Error::BrokenPipe) if !matches!(name, b"echo" | b"printf") => Ok(141),
        Err(e) => Err(Ctl::Err(e)),
    }
}

/// What a subshell's end means to its parent.
pub fn sub_status(r: R) -> R {
    match r {
        Ok(s) | Err(Ctl::Exit(s)) | Err(Ctl::Return(s)) => Ok(s),
        Err(Ctl::Break(_)) | Err(Ctl::Continue(_)) => Ok(0),
        Err(Ctl::Abort { sub, .. }) => Ok(sub),
        // SIGPIPE ended the subshell.
        Err(Ctl::Err(Error::BrokenPipe)) => Ok(141),
        Err(e) => Err(e),
    }
}

/// A FIFO's name: `^[a-z0-9][a-z0-9-]{0,62}$`.
pub fn is_fifo_name(name: &[u8]) -> bool {
    (1..=63).contains(&name.len())
        && matches!(name[0], b'a'..=b'z' | b'0'..=b'9')
        && name
            .iter()
            .all(|&c| matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'-'))
}
