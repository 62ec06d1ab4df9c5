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
    /// `Schedule: CRON`: when the FIFO runs its envelope by itself.
    pub schedule: Option<crate::cron::Schedule>,
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
    let schedule = schedule(text, &envelope)?;
    Ok(Compiled {
        envelope,
        selectors,
        schedule,
    })
}

/// The `Schedule:` header read as a cron schedule; its errors point into its line.
fn schedule(text: &str, envelope: &Envelope) -> Result<Option<crate::cron::Schedule>, Error> {
    let Some(header) = envelope
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("schedule"))
    else {
        return Ok(None);
    };
    // The column where the value starts, after `Schedule:` and its blanks.
    let line = text.lines().nth(header.line as usize - 1).unwrap_or("");
    let after_colon = line.find(':').map_or(0, |i| i + 1);
    let blanks = line[after_colon..].len() - line[after_colon..].trim_start().len();
    let start = (line[..after_colon + blanks].chars().count()) as u32;
    let at = |column: u32, message: String| Error::Syntax {
        line: header.line,
        column: start + column,
        message: format!("Schedule: {message}"),
    };
    let parsed =
        crate::cron::Schedule::parse(&header.value).map_err(|e| at(e.column, e.message))?;
    if parsed.next_after(0).is_none() {
        return Err(at(1, format!("'{}' never runs", header.value.trim())));
    }
    Ok(Some(parsed))
}
pub use select::{media_type, parse_query, Selectors};
