//! The shell: a POSIX sh subset that runs scripts of builtins.
//!
//! A script is parsed once ([`parse`], cached in [`cache`]), then run by [`exec`]:
//! commands are special builtins ([`special`]), functions, builtins from
//! [`crate::builtins::TABLE`], or FIFOs called through the [`Host`]. There are no
//! processes: a pipeline runs its stages one after the other, each stage's output
//! becoming the next one's input, and every stage is a subshell (a cheap copy of the
//! [`state`]).
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
pub mod parse;
pub mod pattern;
pub mod special;
pub mod state;

use std::rc::Rc;

use crate::budget::Budget;
use crate::builtins::{Caches, Input};
use crate::error::{Error, Status};
use crate::host::Host;
use cache::ScriptCache;
use exec::{Ctl, Exec, Io};

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

    /// How often the script cache was hit and missed.
    pub fn cache_stats(&self) -> (u64, u64) {
        (self.scripts.scripts.hits, self.scripts.scripts.misses)
    }

    /// Runs a whole script.
    pub async fn run(&mut self, host: &dyn Host, job: Job) -> Outcome {
        let parsed = self.scripts.get(&job.script);
        let mut ex = Exec::new(
            host,
            &mut self.caches,
            &mut self.scripts,
            Budget::new(job.budget),
        );
        ex.max_subrequests = job.max_subrequests;
        for (k, v) in job.vars {
            let var = ex.st.var_mut(&k);
            var.value = Some(v);
            var.exported = true;
        }
        ex.st.arg0 = Rc::new(job.arg0);
        ex.st.params = Rc::new(job.args);
        ex.inputs[0] = Input::new(job.stdin);
        let io = Io {
            stdin: 0,
            out: Some(0),
            err: Some(1),
        };
        let (body, syntax) = match &*parsed {
            Ok(script) => (&script.body, None),
            Err(failed) => (&failed.prefix.body, Some(failed.error.clone())),
        };
        let probe = 0u8;
        let base = std::ptr::addr_of!(probe) as usize;
        let r = ex.list(body, io).await;
        let (mut status, mut error) = finish(&mut ex, r);
        if let (Some(e), None) = (syntax, &error) {
            if status_ran_to_end(&ex) {
                let msg = format!("sh: {e}\n");
                ex.sinks[1].extend_from_slice(msg.as_bytes());
                status = SYNTAX_STATUS;
                error = Some(e);
            }
        }
        let steps = ex.budget.used();
        let stack = ex.stack_low;
        let stderr = std::mem::take(&mut ex.sinks[1]);
        let stdout = std::mem::take(&mut ex.sinks[0]);
        drop(ex);
        self.stack_used = base.saturating_sub(stack);
        Outcome {
            status,
            stdout,
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
        budget: &mut Budget,
    ) -> Result<Vec<u8>, Error> {
        let word = self.scripts.template(template);
        let word = match &*word {
            Ok(w) => w.clone(),
            Err(e) => return Err(e.clone()),
        };
        let mut ex = Exec::new(host, &mut self.caches, &mut self.scripts, budget.clone());
        for (k, v) in vars {
            let var = ex.st.var_mut(k);
            var.value = Some(v.clone());
            var.exported = true;
        }
        ex.inputs[0] = Input::new(stdin.to_vec());
        let io = Io {
            stdin: 0,
            out: Some(0),
            err: Some(1),
        };
        let r = ex.expand_quoted(&word, io).await;
        *budget = ex.budget.clone();
        match r {
            Ok(v) => Ok(v),
            Err(Ctl::Err(e)) => Err(e),
            Err(_) => {
                let msg = String::from_utf8_lossy(&ex.sinks[1]).trim_end().to_string();
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
            ex.sinks[1].extend_from_slice(msg.as_bytes());
            (status, Some(e))
        }
    }
}
