//! The shell: a POSIX sh subset that runs scripts of builtins.
//!
//! A script is parsed once ([`parse`], cached in [`cache`]), then run by [`exec`]:
//! commands are special builtins ([`special`]), functions, builtins from
//! [`crate::builtins::TABLE`], or FIFOs called through the [`Host`]. There are no
//! processes: the stages of a pipeline run together on this thread, over bounded pipes
//! ([`crate::stream`]), and every stage is a subshell (a cheap copy of the [`state`]).
//!
//! Steps (see [`crate::budget`]): one per simple command, one more per function call,
//! one per loop pass, one per subshell, command substitution or `sh -c`, plus what
//! builtins spend, plus one per 64 bytes that expansions make. Running out stops the
//! script with [`Error::StepLimit`] and status [`STEP_LIMIT_STATUS`].

pub mod arith;
pub mod ast;
pub mod cache;
pub mod exec;
pub mod expand;
pub mod lex;
pub mod options;
pub mod parse;
pub mod pattern;
pub mod redirect;
pub mod special;
pub mod state;
pub mod trap;

use std::rc::Rc;

use crate::budget::Budget;
use crate::builtins::Caches;
use crate::error::{Error, Status};
use crate::host::Host;
use crate::stream::{Out, Stdin};
pub use cache::CacheStats;
use cache::ScriptCache;
use exec::{Ctl, Exec, Shared};

/// The exit status of a script stopped by the step limit (as `timeout(1)` reports a
/// command it stopped).
pub const STEP_LIMIT_STATUS: Status = 124;

/// The exit status of a script stopped by a fatal error (a limit, a failed fetch).
pub const FATAL_STATUS: Status = 1;

/// The exit status of a script that does not parse (as bash's).
pub const SYNTAX_STATUS: Status = 2;

/// One shell, long-lived: it keeps the parse caches and the builtins' caches across runs.
#[derive(Default)]
pub struct Shell {
    scripts: ScriptCache,
    caches: Caches,
    stack_used: usize,
}

/// A script to run, with everything it starts from.
#[derive(Debug, Clone, Default)]
pub struct Job {
    pub script: Vec<u8>,
    /// `$0`
    pub arg0: Vec<u8>,
    /// `$1...`
    pub args: Vec<Vec<u8>>,
    pub stdin: Vec<u8>,
    /// Initial variables, all exported.
    pub vars: Vec<(Vec<u8>, Vec<u8>)>,
    /// The step limit.
    pub budget: u64,
    /// Fetches allowed (HTTP requests made for builtins, and FIFO calls).
    pub max_subrequests: u32,
}

/// What running a script gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub status: Status,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub steps: u64,
    /// `Some(StepLimit | Syntax | Fatal)` when the script did not end by itself.
    pub error: Option<Error>,
}

impl Shell {
    /// The parse caches of scripts and of header templates.
    pub fn cache_stats(&self) -> (CacheStats, CacheStats) {
        (self.scripts.scripts.stats(), self.scripts.templates.stats())
    }

    pub fn new() -> Self {
        Shell::default()
    }

    /// Parses (and caches) a script; `Err(Error::Syntax { .. })` if it is bad.
    pub fn check(&mut self, script: &[u8]) -> Result<(), Error> {
        match &*self.scripts.get(script) {
            Ok(_) => Ok(()),
            Err(f) => Err(f.error.clone()),
        }
    }

    /// Runs a whole script over `job.stdin`, and gives its output whole.
    pub async fn run(&mut self, host: &dyn Host, mut job: Job) -> Outcome {
        let stdin = Stdin::bytes(std::mem::take(&mut job.stdin));
        self.run_streams(host, job, stdin, Out::buffer()).await
    }

    /// Runs a whole script that reads `stdin` and writes `stdout` as it goes (`job.stdin`
    /// is not used). A pipe as `stdout` is closed at the end; a buffer's bytes are taken
    /// into the outcome.
    pub async fn run_streams(
        &mut self,
        host: &dyn Host,
        job: Job,
        stdin: Stdin,
        stdout: Out,
    ) -> Outcome {
        let parsed = self.scripts.get(&job.script);
        let mut shared = Shared::new(
            host,
            &self.caches,
            &mut self.scripts,
            Budget::new(job.budget),
        );
        shared.max_subrequests = job.max_subrequests;
        let mut ex = Exec::new(&shared, stdin, stdout.clone(), Out::buffer());
        for (k, v) in job.vars {
            let var = ex.st.var_mut(&k);
            var.value = Some(v);
            var.exported = true;
        }
        // A shell starts with OPTIND=1 whatever its environment says (POSIX).
        let _ = ex.st.set(b"OPTIND", b"1".to_vec());
        ex.st.arg0 = Rc::new(job.arg0);
        ex.st.params = Rc::new(job.args);
        let (body, syntax) = match &*parsed {
            Ok(script) => (&script.body, None),
            Err(failed) => (&failed.prefix.body, Some(failed.error.clone())),
        };
        // The script's stderr, kept apart: `exec 2>&1` repoints the shell's fd 2.
        let stderr_sink = ex.sinks[1].clone();
        let probe = 0u8;
        let base = std::ptr::addr_of!(probe) as usize;
        let r = ex.list(body, Exec::TOP).await;
        let (mut status, mut error) = finish(&mut ex, r);
        if let (Some(e), None) = (syntax, &error) {
            if status_ran_to_end(&ex) {
                ex.write(Some(1), format!("sh: {e}\n").as_bytes());
                status = SYNTAX_STATUS;
                error = Some(e);
            }
        }
        if matches!(error, None | Some(Error::Syntax { .. })) {
            match ex.run_exit_trap(status, Exec::TOP).await {
                Ok(s) => status = s,
                Err(e) => (status, error) = finish(&mut ex, Err(e)),
            }
        }
        let stderr = stderr_sink.take();
        drop(ex);
        if let Out::Pipe(pipe) = &stdout {
            pipe.close_write();
        }
        let steps = shared.budget.used();
        let stack = shared.stack_low.get();
        self.stack_used = base.saturating_sub(stack);
        Outcome {
            status,
            stdout: stdout.take(),
            stderr,
            steps,
            error,
        }
    }

    /// How many bytes of stack the deepest nesting of the last run took (measured at
    /// each nesting level; 0 when nothing nested).
    pub fn last_stack_use(&self) -> usize {
        self.stack_used
    }

    /// Expands `template` like the inside of a double-quoted shell word, with `vars`;
    /// `$(...)` runs with `stdin` as its standard input. Spends from `budget`.
    pub async fn expand(
        &mut self,
        host: &dyn Host,
        template: &[u8],
        vars: &[(Vec<u8>, Vec<u8>)],
        stdin: &[u8],
        budget: &Budget,
    ) -> Result<Vec<u8>, Error> {
        let word = self.scripts.template(template);
        let word = match &*word {
            Ok(w) => w.clone(),
            Err(e) => return Err(e.clone()),
        };
        let shared = Shared::new(host, &self.caches, &mut self.scripts, budget.clone());
        let mut ex = Exec::new(
            &shared,
            Stdin::bytes(stdin.to_vec()),
            Out::buffer(),
            Out::buffer(),
        );
        for (k, v) in vars {
            let var = ex.st.var_mut(k);
            var.value = Some(v.clone());
            var.exported = true;
        }
        let r = ex.expand_quoted(&word, Exec::TOP).await;
        let errors = ex.sinks[1].take();
        drop(ex);
        budget.rewind(shared.budget.used());
        match r {
            Ok(v) => Ok(v),
            Err(Ctl::Err(e)) => Err(e),
            Err(_) => {
                let msg = String::from_utf8_lossy(&errors).trim_end().to_string();
                Err(Error::Fatal(msg))
            }
        }
    }
}

/// Whether the commands before a syntax error ended by themselves (not by `exit`), so
/// that the error is still reached.
fn status_ran_to_end(ex: &Exec<'_>) -> bool {
    !ex.exited
}

/// The status and error of a finished run; reports a fatal error on stderr.
fn finish(ex: &mut Exec<'_>, r: exec::R) -> (Status, Option<Error>) {
    match r {
        Ok(s) => (s, None),
        Err(Ctl::Exit(s)) => {
            ex.exited = true;
            (s, None)
        }
        Err(Ctl::Return(s)) => (s, None),
        Err(Ctl::Break(_)) | Err(Ctl::Continue(_)) => (ex.st.status, None),
        Err(Ctl::Abort { top, .. }) => {
            ex.exited = true;
            (top, None)
        }
        Err(Ctl::Err(e)) => {
            ex.exited = true;
            let (status, msg) = match &e {
                Error::StepLimit { .. } => (STEP_LIMIT_STATUS, format!("sh: {e}\n")),
                Error::Fatal(m) => (FATAL_STATUS, format!("{m}\n")),
                Error::Syntax { .. } => (SYNTAX_STATUS, format!("sh: {e}\n")),
                Error::Exit(s) => return (*s, None),
                _ => (FATAL_STATUS, format!("sh: {e}\n")),
            };
            ex.write(Some(1), msg.as_bytes());
            (status, Some(e))
        }
    }
}
