//! Engines shared by several builtins, so that tools that do the same thing agree.

pub mod args;
pub mod baseenc;
pub mod deflate;
pub mod digest;
pub mod eme;
pub mod float;
pub mod format;
pub mod gzip;
pub mod inflate_eof;
pub mod lines;
pub mod operands;
pub mod quote;
pub mod regex;
