//! The errors that stop a command, a script or a Request.

use std::fmt;

/// An exit status, as a shell sees it: 0 is success, 1..=255 failure.
pub type Status = i32;

/// What stops a builtin or a script early. A tool's ordinary failure is not an `Error`:
/// the tool writes its message to stderr and returns a non-zero [`Status`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The Request's step budget ran out; `limit` is the budget it had.
    StepLimit { limit: u64 },
    /// A script or envelope could not be parsed. `line` and `column` count from 1.
    Syntax {
        line: u32,
        column: u32,
        message: String,
    },
    /// The script ran `exit N` (or the shell stopped on `set -e`): unwinds to the top.
    Exit(Status),
    /// A write went to a pipe whose reader has gone, as SIGPIPE would end a process.
    BrokenPipe,
    /// Anything else that ends the script with a message, e.g. a redirection to a file,
    /// the hop limit of a FIFO chain, or a failed fetch.
    Fatal(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::StepLimit { limit } => write!(f, "step limit of {limit} steps exceeded"),
            Error::Syntax {
                line,
                column,
                message,
            } => {
                write!(f, "line {line}, column {column}: {message}")
            }
            Error::Exit(status) => write!(f, "exit {status}"),
            Error::BrokenPipe => f.write_str("broken pipe"),
            Error::Fatal(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;
