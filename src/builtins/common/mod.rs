//! Engines shared by several builtins, so that tools that do the same thing agree.

pub mod args;
pub mod operands;
