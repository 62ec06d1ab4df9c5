//! The editors' live log: WebSockets accepted with the hibernation API, so that an open but
//! idle editor costs the object nothing (the platform keeps the sockets and answers the
//! keep-alive pings while the object sleeps). Messages are those of `crate::live`.
//!
//! The Worker has authorized the socket (session cookie and `Origin`) before the upgrade
//! reaches the object; the object checks that the caller may see the FIFO, as for any
//! operation. Each change to the Request log goes to every open socket ([`announce`]),
//! and closes those gone quiet (`crate::live::is_quiet`): a closed tab does not always
//! send a close frame, and its socket would stay open for good.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;

use worker::{
    worker_sys::WebSocketRequestResponsePair, SqlStorage, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use super::store::{LogChange, LogRow, Store};
use super::Fifo;
use crate::live::{is_quiet, ClientMessage, ServerMessage, CATCH_UP, PING, PONG};
use crate::worker::host::now_ms;
use crate::worker::http::Failure;

/// What an editor's socket keeps through hibernation: when it was last heard from.
#[derive(Serialize, Deserialize)]
struct Heard {
    at: i64,
}

/// How many editors one FIFO may have open: below the platform's 32,768 hibernating
/// sockets per object, where accepting one more would fail.
pub const MAX_EDITORS: usize = 30_000;

/// Whether any editor may be open, so that a change to the log need not ask the platform
/// for the sockets when none is (asking costs about a tenth of an echo Request's time).
/// Unknown when the object starts (sockets outlive it while it hibernates) and after an
/// editor opens; known to be none once an announcement found none.
#[derive(Default)]
pub struct Editors {
    none_open: std::cell::Cell<bool>,
}

impl Editors {
    fn opened(&self) {
        self.none_open.set(false);
    }
}

/// The newest entries a first hello gets.
const FIRST_ENTRIES: i64 = 50;

type Message = ServerMessage<LogRow>;

impl Fifo {
    /// Accepts an editor's WebSocket (the request is its upgrade, already authorized).
    pub(super) fn open_live(&self) -> Result<worker::Response, Failure> {
        if self.state.get_websockets().len() >= MAX_EDITORS {
            return Err(Failure::new(
                503,
                format!("this FIFO has {MAX_EDITORS} editors open: close one"),
            ));
        }
        let pair = WebSocketPair::new()?;
        let keep_alive = WebSocketRequestResponsePair::new(PING, PONG)
            .map_err(|_| Failure::new(500, "the keep-alive answer could not be set"))?;
        self.state.set_websocket_auto_response(&keep_alive);
        pair.server.serialize_attachment(Heard { at: now_ms() })?;
        self.state.accept_web_socket(&pair.server);
        self.editors.opened();
        Ok(worker::Response::from_websocket(pair.client)?)
    }

    /// A message of an editor: a hello gets what it missed.
    pub(super) fn live_message(
        &self,
        ws: &WebSocket,
        message: WebSocketIncomingMessage,
    ) -> worker::Result<()> {
        ws.serialize_attachment(Heard { at: now_ms() })?;
        let answer = match message {
            WebSocketIncomingMessage::String(text) => match ClientMessage::parse(&text) {
                Ok(ClientMessage::Hello { after }) => self.catch_up(after)?,
                Ok(ClientMessage::Ping) => Message::Pong,
                Err(message) => Message::Error { message },
            },
            WebSocketIncomingMessage::Binary(_) => Message::Error {
                message: "messages are JSON text".into(),
            },
        };
        ws.send_with_str(answer.to_json())
    }

    /// The entries after `after` (the newest when `None`), oldest first.
    fn catch_up(&self, after: Option<i64>) -> worker::Result<Message> {
        let store = Store::new(self.state.storage().sql());
        if store.fifo()?.is_none() {
            return Ok(Message::Deleted);
        }
        let (mut entries, more) = match after {
            Some(after) => {
                let mut entries = store.log_after(after, CATCH_UP + 1)?;
                let more = entries.len() as i64 > CATCH_UP;
                // Too many missed: the newest of them, and a word that there are more.
                if more {
                    entries = store.log_entries(CATCH_UP, None, false)?;
                }
                (entries, more)
            }
            None => (store.log_entries(FIRST_ENTRIES, None, false)?, false),
        };
        if after.is_none() || more {
            entries.reverse();
        }
        Ok(Message::Entries { entries, more })
    }

    /// The FIFO is gone: every editor hears of it and is closed.
    pub(super) fn close_editors(&self) {
        let gone = Message::Deleted.to_json();
        for ws in self.state.get_websockets() {
            let _ = ws.send_with_str(&gone);
            let _ = ws.close(Some(1000), Some("the FIFO was deleted"));
        }
    }
}

/// Tells every open editor of a change to the log. Nothing is read when none is open.
pub fn announce(state: &State, sql: &SqlStorage, editors: &Editors, change: LogChange) {
    if editors.none_open.get() {
        return;
    }
    let sockets = state.get_websockets();
    if sockets.is_empty() {
        editors.none_open.set(true);
        return;
    }
    let store = Store::new(sql.clone());
    let row = match change {
        LogChange::Added(id) => store.log_row(id),
        LogChange::Updated(request_id) => store.log_row_of(request_id),
    };
    let entry = match row {
        Ok(Some(entry)) => entry,
        Ok(None) => return,
        Err(e) => {
            worker::console_error!("live log: {e}");
            return;
        }
    };
    let message = Message::Entry { entry }.to_json();
    let now = now_ms();
    for ws in sockets {
        let heard = ws.deserialize_attachment::<Heard>().ok().flatten();
        if is_quiet(now, heard.map_or(0, |h| h.at), pinged_at(state, &ws)) {
            let _ = ws.close(Some(1001), Some("no ping for two minutes"));
            continue;
        }
        // A socket that is closing cannot be sent to; its close event cleans up.
        let _ = ws.send_with_str(&message);
    }
}

/// When the platform last answered this socket's ping (`getWebSocketAutoResponseTimestamp`,
/// which workers-rs does not wrap), in ms since the epoch.
fn pinged_at(state: &State, ws: &WebSocket) -> Option<i64> {
    let raw: &wasm_bindgen::JsValue = state.as_raw().as_ref();
    let method = js_sys::Reflect::get(raw, &"getWebSocketAutoResponseTimestamp".into()).ok()?;
    let method = method.dyn_into::<js_sys::Function>().ok()?;
    let socket: &worker::web_sys::WebSocket = ws.as_ref();
    let at = method.call1(raw, socket).ok()?;
    at.dyn_into::<js_sys::Date>()
        .ok()
        .map(|d| d.get_time() as i64)
}

/// Answers an editor's close (the compatibility date predates the platform doing it):
/// the codes that may not be sent become a normal close.
pub fn answer_close(ws: &WebSocket, code: usize, reason: &str) {
    let code = u16::try_from(code)
        .ok()
        .filter(|c| matches!(c, 1000..=1003 | 1007..=1014 | 3000..=4999))
        .unwrap_or(1000);
    // Closed already (by the other side or the platform): nothing to answer.
    let _ = ws.close(Some(code), Some(reason));
}
