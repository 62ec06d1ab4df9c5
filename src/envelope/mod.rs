//! The envelope: what a FIFO does with each Request.
//!
//! An envelope is text shaped like an email message: a header block (routing headers,
//! outgoing headers, selector lines, assignments, comments) up to the first blank line,
//! then the script. [`parse`] reads it, [`run`] applies it to a Request, and [`route`]
//! says what its routing headers mean.

mod parse;
pub mod request;
pub mod route;
pub mod run;
pub mod select;

pub use parse::{is_var_name, parse, Assignment, Envelope, Header, Selector};
pub use request::{Incoming, Source};
pub use route::Destination;
pub use select::{media_type, parse_query, Selectors};
