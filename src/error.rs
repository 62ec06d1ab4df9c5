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
    /// A builtin needs a resource from outside (a URL or a backend file) that the host
    /// has not fetched yet. The shell fetches it and runs the builtin again from the start;
    /// builtins are pure functions of their input, so the rerun is invisible.
    Need(Resource),
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

/// Something from outside a builtin may need: see [`Error::Need`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Resource {
    /// The answer to an HTTP request: `cat URL` makes a GET, `curl` any request.
    Http(crate::host::HttpRequest),
    /// The file `path` of backend FIFO `fifo` (`NAME:path`).
    FifoFile { fifo: String, path: String },
    /// An attachment of the mail Request being run (`attachment:NAME`).
    Attachment(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::StepLimit { limit } => write!(f, "step limit of {limit} steps exceeded"),
            Error::Need(Resource::Http(r)) => write!(f, "needs {} {}", r.method, r.url),
            Error::Need(Resource::FifoFile { fifo, path }) => write!(f, "needs {fifo}:{path}"),
            Error::Need(Resource::Attachment(name)) => write!(f, "needs attachment:{name}"),
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
