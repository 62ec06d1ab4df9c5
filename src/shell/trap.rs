//! `trap`: actions for conditions. There are no signals here (nothing can send one), so
//! only `EXIT` ever fires: when the shell, a `sh -c` or a subshell that set it ends. The
//! other conditions are kept and listed, as a shell that is never signalled would.

use std::rc::Rc;

use super::exec::{Ctl, Exec, Io, R};
use crate::error::Status;

/// Signal numbers `trap` knows by name (Linux's).
const SIGNALS: &[(&str, u32)] = &[
    ("EXIT", 0),
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("ILL", 4),
    ("TRAP", 5),
    ("ABRT", 6),
    ("FPE", 8),
    ("KILL", 9),
    ("USR1", 10),
    ("SEGV", 11),
    ("USR2", 12),
    ("PIPE", 13),
    ("ALRM", 14),
    ("TERM", 15),
    ("CHLD", 17),
    ("CONT", 18),
    ("STOP", 19),
    ("TSTP", 20),
    ("TTIN", 21),
    ("TTOU", 22),
];

/// The condition a `trap` operand names (`EXIT`, `0`, `INT`, `SIGINT`, `2`).
fn condition(word: &[u8]) -> Option<&'static str> {
    let w = std::str::from_utf8(word).ok()?;
    if let Ok(n) = w.parse::<u32>() {
        return SIGNALS.iter().find(|s| s.1 == n).map(|s| s.0);
    }
    let upper = w.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    SIGNALS.iter().find(|s| s.0 == name).map(|s| s.0)
}

impl Exec<'_> {
    /// `trap`, `trap -p`: the list; `trap ACTION COND...`; `trap - COND...` (back to the
    /// default); `trap COND...` (a number first: the same as `-`).
    pub fn trap(&mut self, args: &[Vec<u8>], io: Io) -> R {
        let args = match args.first().map(Vec::as_slice) {
            Some(b"--") => &args[1..],
            _ => args,
        };
        if args.is_empty() || args == [b"-p".to_vec()] {
            let mut out = Vec::new();
            for (cond, action) in self.st.traps.iter() {
                out.extend_from_slice(b"trap -- ");
                out.extend_from_slice(&super::special::single_quoted(action));
                out.push(b' ');
                out.extend_from_slice(cond.as_bytes());
                out.push(b'\n');
            }
            self.write(io.out, &out);
            return Ok(0);
        }
        let (action, conds) =
            if condition(&args[0]).is_some() && args[0].iter().all(u8::is_ascii_digit) {
                (None, args)
            } else if args[0] == b"-" {
                (None, &args[1..])
            } else {
                (Some(args[0].clone()), &args[1..])
            };
        let mut status = 0;
        for c in conds {
            let Some(name) = condition(c) else {
                self.diag(
                    io,
                    &format!("trap: {}: bad trap", String::from_utf8_lossy(c)),
                );
                status = 1;
                continue;
            };
            let traps = Rc::make_mut(&mut self.st.traps);
            traps.retain(|(n, _)| *n != name);
            if let Some(a) = &action {
                traps.push((name, a.clone()));
                traps.sort_by_key(|(n, _)| SIGNALS.iter().position(|s| s.0 == *n));
            }
        }
        Ok(status)
    }

    /// Runs the `EXIT` action, if one is set, once, as the shell ends with `status` (the
    /// action sees it in `$?`; an `exit` in it gives the final status).
    pub async fn run_exit_trap(&mut self, status: Status, io: Io) -> R {
        let Some(pos) = self.st.traps.iter().position(|(n, _)| *n == "EXIT") else {
            return Ok(status);
        };
        let action = Rc::make_mut(&mut self.st.traps).remove(pos).1;
        self.st.status = status;
        let parsed = self.sh.scripts.borrow_mut().get(&action);
        let r = match &*parsed {
            Ok(script) => self.list_boxed(&script.body, io).await,
            Err(failed) => {
                let msg = format!("sh: trap: {}\n", failed.error);
                self.write(io.err, msg.as_bytes());
                Ok(status)
            }
        };
        match r {
            Ok(_) | Err(Ctl::Return(_) | Ctl::Break(_) | Ctl::Continue(_)) => Ok(status),
            Err(Ctl::Exit(s)) => Ok(s),
            Err(e) => Err(e),
        }
    }
}
