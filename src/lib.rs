//! mkfifo: named pipes for the web.
//!
//! The path of a Request, from the outside in:
//!
//! 1. `js/entry.mjs` (the Worker's entry) routes `/NAME/...`, `/bin/sh` and `/_/...`,
//!    hands inbound mail to the FIFO's object, and performs passthrough answers.
//! 2. [`worker`] (wasm32 only) holds the Worker's fetch handler and the Durable Objects:
//!    one `Fifo` object per FIFO, keeping its envelope, variables and Request log in SQLite.
//! 3. The object runs the FIFO's envelope: the [`shell`] interprets the script, whose
//!    commands are the [`builtins`], each an async function of its arguments and a
//!    [`Ctx`]; the stages of a pipeline run together over bounded pipes ([`stream`]).
//! 4. Every step of that work is counted against the Request's [`Budget`].
//!
//! Everything but [`worker`] is plain Rust with no dependency on the Workers runtime, so
//! `cargo test` runs it natively, and `mkfifo-sh` runs the same shell on the command line.
#![forbid(unsafe_code)]

pub mod account;
pub mod budget;
pub mod builtins;
pub mod calendar;
pub mod conditional;
pub mod cron;
pub mod envelope;
pub mod error;
pub mod gate;
pub mod host;
pub mod jq;
pub mod live;
pub mod mail;
pub mod names;
pub mod protocol;
pub mod route;
pub mod seeded;
pub mod shell;
pub mod stream;

#[cfg(not(target_arch = "wasm32"))]
pub mod native;

#[cfg(target_arch = "wasm32")]
pub mod worker;

// jq and the shell free and allocate small blocks in bursts; see crates/small-alloc.
// (mkfifo-sh declares the same; native tests keep the system's, or count with their own.)
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: small_alloc::SmallAlloc = small_alloc::SmallAlloc;

pub use budget::Budget;
pub use builtins::Ctx;
pub use error::{Error, Status};
pub use host::Host;
pub use stream::Stdin;
