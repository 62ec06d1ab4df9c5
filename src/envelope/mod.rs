//! The envelope: what a FIFO does with each Request.
//!
//! An envelope is text shaped like an email message: a header block (routing headers,
//! outgoing headers, selector lines, assignments, comments) up to the first blank line,
//! then the script. See [`parse`] for the grammar.

mod parse;
pub mod select;

pub use parse::{is_var_name, parse, Assignment, Envelope, Header, Selector};
pub use select::{media_type, parse_query, Selectors};
