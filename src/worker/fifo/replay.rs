//! Replays: a logged Request sent again through the FIFO's current envelope, as a new
//! Request (a new id, so its deliveries carry new `Idempotency-Key`s) whose log entry
//! says which one it replays (`replay_of`), as its deliveries do (`Replay-Of:`).
//!
//! A replay runs from the queue, as a Request answered `202 Accepted` does: nobody waits
//! for it. It has the original's method, path, query and headers (not the credentials,
//! which the log never keeps) and its whole body, while that is kept (see
//! [`super::store::KEPT_BODIES`]).

use worker::Response;

use super::store::{DeliveryState, LogEntry, Outcome, Store, UNKEPT_HEADERS};
use super::Fifo;
use crate::envelope::{Incoming, Source};
use crate::worker::host::{new_request_id, now_ms};
use crate::worker::http::{json, Failure};

/// The most Requests one bulk replay sends again.
pub const BULK_REPLAYS: i64 = 100;

impl Fifo {
    /// `POST .../log/ID/replay`: 202 with the new Request's id.
    pub(super) async fn replay(
        &self,
        store: &Store,
        name: &str,
        request_id: &str,
    ) -> Result<Response, Failure> {
        let id = self.replay_one(store, name, request_id)?;
        self.schedule(store).await?;
        let location = format!("/_/api/fifos/{name}/log/{id}");
        let mut resp = json(
            202,
            &serde_json::json!({
                "id": id,
                "replay_of": request_id,
                "status": "accepted",
                "log": location,
            }),
        )?;
        resp.headers_mut().set("Location", &location)?;
        Ok(resp)
    }

    /// `POST .../replay?failed_since=MS`: each failed Request not yet replayed, oldest
    /// first; those that cannot be replayed are listed with the reason.
    pub(super) async fn replay_failed(
        &self,
        store: &Store,
        name: &str,
        since: i64,
    ) -> Result<Response, Failure> {
        let mut replayed = Vec::new();
        let mut refused = Vec::new();
        for request_id in store.failed_unreplayed(since, BULK_REPLAYS)? {
            match self.replay_one(store, name, &request_id) {
                Ok(id) => replayed.push(serde_json::json!({ "id": id, "replay_of": request_id })),
                Err(f) => refused.push(serde_json::json!({
                    "request_id": request_id,
                    "status": f.status,
                    "error": f.message,
                })),
            }
        }
        self.schedule(store).await?;
        Ok(json(
            200,
            &serde_json::json!({ "replayed": replayed, "not_replayed": refused }),
        )?)
    }

    /// Logs and queues the replay of `request_id`; its new id.
    fn replay_one(&self, store: &Store, name: &str, request_id: &str) -> Result<String, Failure> {
        let original = store
            .log_entry(request_id)?
            .ok_or_else(|| Failure::new(404, format!("no Request {request_id} in the log")))?;
        let source = Source::parse(&original.source);
        // Mail is read again from its raw message and a command's arguments are not
        // logged: neither is replayed.
        if original.source != source.as_str()
            || !matches!(source, Source::Http | Source::Fifo | Source::Schedule)
        {
            return Err(Failure::new(
                422,
                format!(
                    "Request {request_id} came by {}: only Requests that came by HTTP, from \
                     another FIFO or by the schedule are replayed",
                    original.source
                ),
            ));
        }
        let body = store.whole_body(request_id)?.ok_or_else(|| {
            Failure::new(
                410,
                format!(
                    "the body of Request {request_id} ({} bytes) is no longer kept: whole bodies \
                     over {} KiB are kept for the FIFO's newest {} such Requests, {} MiB in all, \
                     and a body streamed into the script is never kept whole",
                    original.request_bytes,
                    super::store::LOG_BODY_BYTES / 1024,
                    super::store::KEPT_BODIES,
                    super::store::KEPT_BODY_BYTES >> 20,
                ),
            )
        })?;
        let headers = original
            .headers
            .unwrap_or_default()
            .into_iter()
            .filter(|(k, _)| !UNKEPT_HEADERS.contains(&k.to_ascii_lowercase().as_str()))
            .collect();
        let prefix = format!("/{name}");
        let incoming = Incoming {
            fifo: name.to_string(),
            request_id: new_request_id(),
            source,
            method: original.method,
            path_info: original
                .path
                .strip_prefix(&prefix)
                .unwrap_or(&original.path)
                .to_string(),
            query: original.query.unwrap_or_default(),
            headers,
            body,
            replay_of: request_id.to_string(),
            ..Incoming::default()
        };
        self.enqueue(store, &incoming, String::new())?;
        Ok(incoming.request_id)
    }

    /// Logs a Request that the object makes itself (a replay, a scheduled run) and keeps
    /// it for the alarm to run, as one answered `202 Accepted`.
    pub(super) fn enqueue(
        &self,
        store: &Store,
        incoming: &Incoming,
        note: String,
    ) -> worker::Result<()> {
        let now = now_ms();
        store.put_request(
            &incoming.request_id,
            now,
            &serde_json::to_string(incoming)?,
            &incoming.body,
        )?;
        store.log(&LogEntry {
            request_id: incoming.request_id.clone(),
            at: now,
            source: incoming.source.as_str().into(),
            method: incoming.method.clone(),
            path: format!("/{}{}", incoming.fifo, incoming.path_info),
            status: 202,
            request_bytes: incoming.body.len(),
            outcome: Outcome::Accepted,
            delivery: DeliveryState::Pending,
            headers: incoming.headers.clone(),
            query: incoming.query.clone(),
            body: incoming.body.clone(),
            replay_of: incoming.replay_of.clone(),
            note,
            ..LogEntry::default()
        })?;
        Ok(())
    }
}
