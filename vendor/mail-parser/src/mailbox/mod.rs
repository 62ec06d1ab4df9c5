pub mod maildir;
pub mod mbox;
