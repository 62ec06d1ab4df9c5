//! The editor's live channel: the messages between an editor page and its FIFO's object
//! over one WebSocket (`GET /_/api/fifos/NAME/live`), as JSON with a `type` field.
//!
//! The page says [`ClientMessage::Hello`] with the id of the newest log entry it has (none
//! at first); the object answers [`ServerMessage::Entries`] with what the page missed, then
//! pushes each Request as it is logged or its delivery moves on ([`ServerMessage::Entry`]).
//! A page that reconnects says hello again with its newest id, and so misses nothing that
//! the log still holds. The page keeps entries by id: one may come twice.
//!
//! `{"type":"ping"}` is answered `{"type":"pong"}` by the platform itself (the object
//! stays asleep): see [`PING`] and [`PONG`]. A page pings every 30 s; one not heard from
//! for [`QUIET_MS`] (a tab that went away without closing its socket) is closed.

use serde::{Deserialize, Serialize};

/// The most entries one catch-up carries; the page reads older ones with the log API.
pub const CATCH_UP: i64 = 100;

/// The keep-alive message, answered without waking the object.
pub const PING: &str = r#"{"type":"ping"}"#;
pub const PONG: &str = r#"{"type":"pong"}"#;

/// How long an editor may go unheard (no message, no ping) before it is closed.
pub const QUIET_MS: i64 = 120_000;

/// Whether an editor last heard from at `heard_at` (a message, or when it opened) and
/// whose last ping the platform answered at `pinged_at` is gone quiet at `now`.
pub fn is_quiet(now: i64, heard_at: i64, pinged_at: Option<i64>) -> bool {
    now - pinged_at.map_or(heard_at, |p| p.max(heard_at)) > QUIET_MS
}

/// What a page says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Send what was logged after the entry `after` (the newest entries when `None`).
    Hello {
        #[serde(default)]
        after: Option<i64>,
    },
    Ping,
}

/// What the object says; `E` is a log entry as the log API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ServerMessage<E> {
    /// The answer to a hello: entries oldest first. `more`: the log holds entries between
    /// the page's newest and the first of these that are not sent (read them by the API).
    Entries {
        entries: Vec<E>,
        more: bool,
    },
    /// A Request was logged, or its entry changed (its deliveries moved on).
    Entry {
        entry: E,
    },
    /// The FIFO was deleted; the object closes the socket after this.
    Deleted,
    Pong,
    /// A message the object did not understand.
    Error {
        message: String,
    },
}

impl ClientMessage {
    /// A page's message, or what is wrong with it (to be sent back as an error).
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("not a message of the editor: {e}"))
    }
}

impl<E: Serialize> ServerMessage<E> {
    pub fn to_json(&self) -> String {
        // A log entry is plain data: serializing it cannot fail.
        serde_json::to_string(self).unwrap_or_else(|e| {
            serde_json::json!({ "type": "error", "message": e.to_string() }).to_string()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_say_hello_and_ping() {
        assert_eq!(
            ClientMessage::parse(r#"{"type":"hello","after":41}"#),
            Ok(ClientMessage::Hello { after: Some(41) })
        );
        assert_eq!(
            ClientMessage::parse(r#"{"type":"hello"}"#),
            Ok(ClientMessage::Hello { after: None })
        );
        assert_eq!(ClientMessage::parse(PING), Ok(ClientMessage::Ping));
        for bad in [
            "",
            "hello",
            r#"{"type":"shout"}"#,
            r#"{"type":"hello","after":"x"}"#,
        ] {
            assert!(ClientMessage::parse(bad).is_err(), "{bad}");
        }
        // The auto-answered ping is exactly what a page sends.
        assert_eq!(serde_json::to_string(&ClientMessage::Ping).unwrap(), PING);
        assert_eq!(ServerMessage::<()>::Pong.to_json(), PONG);
    }

    #[test]
    fn quiet_editors() {
        assert!(!is_quiet(QUIET_MS, 0, None));
        assert!(is_quiet(QUIET_MS + 1, 0, None));
        assert!(!is_quiet(QUIET_MS + 1, 0, Some(1)));
        assert!(!is_quiet(QUIET_MS + 1, 1, Some(0)));
        assert!(is_quiet(3 * QUIET_MS, QUIET_MS, Some(QUIET_MS / 2)));
    }

    #[test]
    fn objects_send_typed_entries() {
        #[derive(Serialize)]
        struct Row {
            id: i64,
        }
        let json = ServerMessage::Entries {
            entries: vec![Row { id: 1 }, Row { id: 2 }],
            more: false,
        }
        .to_json();
        assert_eq!(
            json,
            r#"{"type":"entries","entries":[{"id":1},{"id":2}],"more":false}"#
        );
        assert_eq!(
            ServerMessage::Entry {
                entry: Row { id: 3 }
            }
            .to_json(),
            r#"{"type":"entry","entry":{"id":3}}"#
        );
        assert_eq!(
            ServerMessage::<Row>::Deleted.to_json(),
            r#"{"type":"deleted"}"#
        );
    }
}
