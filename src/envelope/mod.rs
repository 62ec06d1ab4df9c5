//! The envelope: what a FIFO does with each Request.
//!
//! An envelope is text shaped like an email message: a header block (routing headers,
//! outgoing headers, selector lines, assignments, comments) up to the first blank line,
//! then the script. [`parse`] reads it, [`run`] applies it to a Request, and [`route`]
//! says what its routing headers mean.

pub mod library;
mod parse;
pub mod request;
pub mod route;
pub mod run;
pub mod select;

pub use parse::{is_var_name, parse, Assignment, Envelope, Header, Selector};
pub use request::{Incoming, Source};
pub use route::Destination;

use crate::error::Error;
use crate::shell::Shell;

/// An envelope made ready to run: parsed, its selectors compiled, its script checked.
pub struct Compiled {
    pub envelope: Envelope,
    pub selectors: select::Selectors,
}

/// Reads an envelope and checks all of it: the header block, the selectors and the
/// script's syntax. Errors carry the line and column in the envelope's text.
pub fn compile(text: &str, shell: &mut Shell) -> Result<Compiled, Error> {
    let envelope = parse(text)?;
    let selectors = select::Selectors::compile(&envelope.selectors)?;
    if !envelope.script.trim().is_empty() {
        if let Err(Error::Syntax {
            line,
            column,
            message,
        }) = shell.check(envelope.script.as_bytes())
        {
            let line = line + envelope.script_line.saturating_sub(1);
            return Err(Error::Syntax {
                line,
                column,
                message,
            });
        }
    }
    Ok(Compiled {
        envelope,
        selectors,
    })
}
pub use select::{media_type, parse_query, Selectors};
