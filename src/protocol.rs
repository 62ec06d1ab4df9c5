//! How the parts of the Worker talk to each other: the headers that the entry module, the
//! Worker's Rust code and the Durable Objects add to requests and responses.
//!
//! The entry module (`js/entry.mjs`) passes a client's Request on only without any
//! `x-mkfifo-*` header (it deletes those a client sends), so these can be trusted inside. `X-Accel-*` response headers of an object are turned into
//! a passthrough request by the entry module and never reach a client.

use serde::{Deserialize, Serialize};

/// What every internal header's name starts with.
pub const INTERNAL_PREFIX: &str = "x-mkfifo-";
/// The FIFO a request is for (the object may not know its own name), on a request made
/// inside the Worker; a client's Request is for the FIFO its path names.
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
/// An operation on an object, as JSON: a [`FifoCall`] for a Fifo object (absent for a
/// Request written into the FIFO), an [`AccountOp`] for an Account object.
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
/// The `Content-Length` a script's answer gave in its CGI header block. A streamed body's
/// length is not known to the runtime, so the entry module holds the answer to it (a
/// `FixedLengthStream`), and a `HEAD` answer carries it.
pub const LENGTH: &str = "x-mkfifo-length";

/// Who asks a Fifo object for an operation: the operator (or the Worker itself), or an
/// account, named by its object's id. An account sees only the FIFOs it owns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    Operator,
    Account(String),
}

impl Access {
    /// Whether this caller may see a FIFO owned by `owner` (`None`: the operator's).
    pub fn may_see(&self, owner: Option<&str>) -> bool {
        match self {
            Access::Operator => true,
            Access::Account(id) => owner == Some(id.as_str()),
        }
    }

    /// The account a new FIFO made by this caller belongs to.
    pub fn owner(&self) -> Option<&str> {
        match self {
            Access::Operator => None,
            Access::Account(id) => Some(id),
        }
    }
}

/// An operation on a Fifo object, with who asks for it (the [`OP`] header, as JSON:
/// `{"op": "put", "by": "operator"}`; the entry module writes two of them by hand).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FifoCall {
    #[serde(flatten)]
    pub op: FifoOp,
    pub by: Access,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum FifoOp {
    /// Create or replace the envelope (the body): 201 or 200; 409 when another owns it.
    Put {
        name: String,
    },
    /// Create with the envelope (the body): 201; 409 when the name is taken.
    Create {
        name: String,
    },
    /// The envelope, the variables (never their values), times.
    Get {
        name: String,
    },
    /// Names, times and the last Request, for lists.
    Summary {
        name: String,
    },
    /// Delete the FIFO with its variables and log.
    Delete {
        name: String,
    },
    /// Set variable `key` to the body.
    VarPut {
        name: String,
        key: String,
    },
    VarDelete {
        name: String,
        key: String,
    },
    /// The Request log, newest first.
    Log {
        name: String,
        limit: Option<i64>,
        before: Option<i64>,
        bodies: bool,
    },
    /// One Request of the log with its deliveries.
    LogEntry {
        name: String,
        request_id: String,
    },
    /// Send a logged Request again through the current envelope, as a new Request that
    /// says which one it replays (see `worker::fifo::replay`).
    Replay {
        name: String,
        request_id: String,
    },
    /// Replay every failed Request logged at or after `since` (ms since the epoch) that
    /// was not replayed yet.
    ReplayFailed {
        name: String,
        since: i64,
    },
    /// Open the editor's WebSocket (the request is an upgrade): see `crate::live`.
    Live {
        name: String,
    },
    /// Memory and storage figures (`MKFIFO_STATS=1`).
    Stats {
        name: String,
    },
    /// The entry module's passthrough request failed: log it, tell Errors-To (the body
    /// says what failed).
    PassthroughFailed {
        name: String,
        request_id: String,
    },
    /// Crash the object (`MKFIFO_FAULTS=1`, tests only).
    Fault {
        name: String,
    },
}

impl FifoOp {
    /// The FIFO the operation is for.
    pub fn name(&self) -> &str {
        match self {
            FifoOp::Put { name }
            | FifoOp::Create { name }
            | FifoOp::Get { name }
            | FifoOp::Summary { name }
            | FifoOp::Delete { name }
            | FifoOp::VarPut { name, .. }
            | FifoOp::VarDelete { name, .. }
            | FifoOp::Log { name, .. }
            | FifoOp::LogEntry { name, .. }
            | FifoOp::Replay { name, .. }
            | FifoOp::ReplayFailed { name, .. }
            | FifoOp::Live { name }
            | FifoOp::Stats { name }
            | FifoOp::PassthroughFailed { name, .. }
            | FifoOp::Fault { name } => name,
        }
    }
}

/// A FIFO in a list: the home page's, and `GET /_/api/fifos`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FifoSummary {
    pub name: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// When the newest Request in the log arrived.
    pub last_request_at: Option<i64>,
    pub log_entries: i64,
}

/// An operation on an Account object (the [`OP`] header, as JSON). Secrets are those of
/// [`crate::account::credential`]; the object compares their hashes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum AccountOp {
    /// Send a sign-in link for `email` to it, the link made from `site` (the origin the
    /// request came to). 202, or 429 with `retry_after` (seconds).
    StartSignin {
        email: String,
        site: String,
        /// Where the link leads after signing in (a path of the site, already checked).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<String>,
    },
    /// Whether a sign-in link is good, without using it.
    CheckSignin {
        secret: String,
    },
    /// Use a sign-in link: the new session's cookie value.
    FinishSignin {
        secret: String,
    },
    /// Who a session is; renews it. 401 when it is not (or no longer) good.
    Session {
        secret: String,
    },
    /// End a session.
    EndSession {
        secret: String,
    },
    /// Who an API token is; 401 when it is not (or no longer) good.
    Token {
        secret: String,
    },
    CreateToken {
        name: String,
    },
    Tokens,
    RevokeToken {
        id: i64,
    },
    /// Note a FIFO as the account's, or forget it.
    AddFifo {
        name: String,
    },
    RemoveFifo {
        name: String,
    },
    Fifos,
    /// The account's address and times.
    Describe,
    /// Delete the account with its sessions and tokens (its FIFOs first, by the Worker).
    Delete,
}

/// Who a credential is, as an Account object answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The Account object's id.
    pub account: String,
    pub email: String,
    /// A session whose expiry moved: the cookie is sent again.
    #[serde(default)]
    pub renewed: bool,
}

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

    #[test]
    fn calls_as_the_entry_module_writes_them() {
        // js/entry.mjs writes these two by hand.
        let call: FifoCall = serde_json::from_str(
            r#"{"op":"passthrough-failed","name":"a","request_id":"r","by":"operator"}"#,
        )
        .unwrap();
        assert_eq!(
            call.op,
            FifoOp::PassthroughFailed {
                name: "a".into(),
                request_id: "r".into()
            }
        );
        let call: FifoCall =
            serde_json::from_str(r#"{"op":"fault","name":"b","by":"operator"}"#).unwrap();
        assert_eq!(call.by, Access::Operator);
        let json = serde_json::to_string(&FifoCall {
            op: FifoOp::Get { name: "x".into() },
            by: Access::Account("ab".into()),
        })
        .unwrap();
        assert_eq!(json, r#"{"op":"get","name":"x","by":{"account":"ab"}}"#);
        assert!(serde_json::from_str::<FifoCall>(r#"{"op":"get","name":"x"}"#).is_err());
    }

    #[test]
    fn access_to_owned_fifos() {
        let ada = Access::Account("ada".into());
        assert!(ada.may_see(Some("ada")));
        assert!(!ada.may_see(Some("bob")));
        assert!(!ada.may_see(None));
        assert!(Access::Operator.may_see(Some("ada")));
        assert!(Access::Operator.may_see(None));
    }
}
