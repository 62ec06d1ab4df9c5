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
/// The arguments of a FIFO run as a command (`NAME ARGS`): see [`encode_args`].
pub const ARGS: &str = "x-mkfifo-args";
/// On a 404 of a Fifo object: there is no FIFO of that name (as opposed to a 404 that
/// the FIFO's envelope answered).
pub const NO_FIFO: &str = "x-mkfifo-no-fifo";
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
/// Passthrough: the Request's `Errors-To` destinations (JSON). When the passthrough
/// request fails (no answer, or a status of 400 or more), the entry module gives them back
/// to the object with the operation [`PASSTHROUGH_FAILED`], which logs the failure and
/// reports it to them.
pub const ERRORS_TO: &str = "x-mkfifo-errors-to";
/// The operation (see [`OP`]) by which the entry module reports a failed passthrough.
pub const PASSTHROUGH_FAILED: &str = "passthrough-failed";

/// Arguments as one header value: their number, `;`, then each one in base64, joined by
/// commas (arguments are bytes, and one empty argument is not none).
pub fn encode_args(args: &[Vec<u8>]) -> String {
    let list: Vec<String> = args
        .iter()
        .map(|a| data_encoding::BASE64.encode(a))
        .collect();
    format!("{};{}", args.len(), list.join(","))
}

/// The arguments of [`encode_args`]; `None` when the value is not of that form.
pub fn decode_args(value: &str) -> Option<Vec<Vec<u8>>> {
    let (count, list) = value.split_once(';')?;
    let count: usize = count.parse().ok()?;
    if count == 0 {
        return list.is_empty().then(Vec::new);
    }
    let args: Option<Vec<Vec<u8>>> = list
        .split(',')
        .map(|a| data_encoding::BASE64.decode(a.as_bytes()).ok())
        .collect();
    args.filter(|a| a.len() == count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_round_trip() {
        for args in [
            vec![],
            vec![b"".to_vec()],
            vec![b"a b".to_vec(), vec![0, 255, b','], b"x".to_vec()],
        ] {
            assert_eq!(decode_args(&encode_args(&args)), Some(args));
        }
        assert_eq!(decode_args("!!"), None);
        assert_eq!(decode_args("2;YQ=="), None);
        assert_eq!(decode_args(""), None);
    }
}
