//! How the parts of the Worker talk to each other: the headers that the entry module, the
//! Worker's Rust code and the Durable Objects add to requests and responses.
//!
//! The entry module (`js/entry.mjs`) deletes every `x-mkfifo-*` header a client sends, so
//! these can be trusted inside. `X-Accel-*` response headers of an object are turned into
//! a passthrough request by the entry module and never reach a client.

/// The FIFO a request is for (the object may not know its own name).
pub const FIFO: &str = "x-mkfifo-fifo";
/// The client's address (`REMOTE_ADDR`).
pub const REMOTE_ADDR: &str = "x-mkfifo-remote-addr";
/// The id given to the Request when it arrived (`REQUEST_ID`).
pub const REQUEST_ID: &str = "x-mkfifo-request-id";
/// How many FIFOs this Request has passed through already.
pub const HOPS: &str = "x-mkfifo-hops";
/// `email` for inbound mail; absent for HTTP.
pub const SOURCE: &str = "x-mkfifo-source";
/// The envelope sender and recipient of inbound mail.
pub const MAIL_FROM: &str = "x-mkfifo-mail-from";
pub const MAIL_TO: &str = "x-mkfifo-mail-to";
/// An operation of the JSON API on the object (see `worker::api`); absent for a Request.
pub const OP: &str = "x-mkfifo-op";

/// Marks every answer of a Fifo object's own code; an answer without it comes from the
/// platform (a crashed object) and becomes a 503.
pub const OBJECT: &str = "x-mkfifo-object";

/// Passthrough: the URL the entry module fetches and streams back to the client.
pub const ACCEL_REDIRECT: &str = "x-accel-redirect";
/// Passthrough: the method of that request (default GET).
pub const ACCEL_METHOD: &str = "x-accel-method";
/// Passthrough: `X-Accel-Header-NAME: VALUE` becomes the request header `NAME: VALUE`.
pub const ACCEL_HEADER_PREFIX: &str = "x-accel-header-";
