//! Durable delivery: the alarm runs the Requests that were accepted with `202`, sends their
//! outgoing requests, retries failures with exponential backoff and jitter, passes replies
//! on (`Reply-To:`), and tells `Errors-To:` when a delivery gives up.
//!
//! Every step is written to SQLite before the next one starts, so a restart loses nothing:
//! an outgoing request is sent at least once, and again only if no answer was recorded for
//! it (receivers de-duplicate with its `Idempotency-Key`).

use std::time::Duration;

use futures_util::future::{select, Either};
use serde::{Deserialize, Serialize};
use worker::{AbortController, Delay, Env, Fetch, Headers, RequestInit, RequestRedirect};

use super::store::{Delivery, DeliveryState, Ran, Store, PIECE_BYTES};
use super::Fifo;
use crate::envelope::run::{Failure as RunFailure, Outgoing, Plan, Routed};
use crate::envelope::{Destination, Incoming, Source};
use crate::mail::inbound::{Mail, Thread};
use crate::protocol;
use crate::worker::host::{new_request_id, now_ms, random_bytes};
use crate::worker::http::whole_body;

/// How long an outgoing request may take to answer, unless `MKFIFO_SEND_TIMEOUT` says.
const SEND_TIMEOUT_S: u64 = 30;
/// Work one alarm does at most before it leaves the rest to the next one. The deliveries
/// of a batch are sent at once, so that a destination that hangs costs one time-out per
/// batch, not one per delivery.
const BATCH: i64 = 16;

/// `MKFIFO_SEND_TIMEOUT` (seconds), or 30.
fn send_timeout(env: &Env) -> Duration {
    env.var("MKFIFO_SEND_TIMEOUT")
        .ok()
        .and_then(|v| v.to_string().trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(SEND_TIMEOUT_S))
}

/// The retry schedule: the waits between attempts, the last repeating until `give_up_after`.
#[derive(Debug, Clone)]
pub struct Retry {
    pub waits_ms: Vec<i64>,
    pub give_up_after_ms: i64,
}

impl Retry {
    /// `MKFIFO_RETRY_SCHEDULE` (seconds, comma-separated; default 5,30,120,600,1800,3600)
    /// and `MKFIFO_RETRY_FOR` (seconds; default a day).
    pub fn from_env(env: &Env) -> Retry {
        let var = |name: &str| env.var(name).map(|v| v.to_string()).ok();
        let waits_ms: Vec<i64> = var("MKFIFO_RETRY_SCHEDULE")
            .unwrap_or_else(|| "5,30,120,600,1800,3600".into())
            .split(',')
            .filter_map(|s| s.trim().parse::<f64>().ok())
            .map(|s| (s * 1000.0) as i64)
            .filter(|&ms| ms > 0)
            .collect();
        let give_up: f64 = var("MKFIFO_RETRY_FOR")
            .and_then(|v| v.parse().ok())
            .unwrap_or(86_400.0);
        Retry {
            waits_ms: if waits_ms.is_empty() {
                vec![5_000]
            } else {
                waits_ms
            },
            give_up_after_ms: (give_up * 1000.0) as i64,
        }
    }

    /// When the next attempt is due after `attempts` failed ones, or `None` to give up.
    fn next(&self, attempts: i64, created_at: i64, now: i64) -> Option<i64> {
        let i = (attempts.max(1) - 1) as usize;
        let wait = *self.waits_ms.get(i).or(self.waits_ms.last())?;
        // Jitter of +-20%, so that many deliveries that failed together spread out.
        let mut r = [0u8; 2];
        random_bytes(&mut r);
        let factor = 0.8 + 0.4 * (u16::from_le_bytes(r) as f64 / 65535.0);
        let at = now + (wait as f64 * factor) as i64;
        (at - created_at <= self.give_up_after_ms).then_some(at)
    }
}

/// An outgoing request as stored, with the hop count it carries to a FIFO.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Stored {
    #[serde(flatten)]
    pub outgoing: Outgoing,
    pub hops: u32,
    /// The FIFO and Request this comes from, for reports.
    pub fifo: String,
    /// When the Request came by mail: the message's thread, for mail sent in answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<Thread>,
    /// When the Request is a replay: the id of the Request it replays, which each of its
    /// requests to a URL or a FIFO says in `Replay-Of:`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub replay_of: String,
}

impl Stored {
    /// `outgoing`, sent on behalf of Request `req`: one hop further, in its mail thread.
    fn on_behalf_of(req: &Incoming, outgoing: Outgoing) -> Self {
        Stored {
            outgoing,
            hops: req.hops + 1,
            fifo: req.fifo.clone(),
            thread: thread_of(req),
            replay_of: req.replay_of.clone(),
        }
    }
}

/// The answer to one attempt.
pub(super) struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

impl Answer {
    /// The answer passed on to a caller as it is.
    pub fn into_response(self) -> Result<worker::Response, crate::worker::http::Failure> {
        let headers = Headers::new();
        if let Some(ct) = &self.content_type {
            headers.set("Content-Type", ct)?;
        }
        Ok(crate::worker::http::whole(self.status, headers, self.body)?)
    }
}

/// Sends `outgoing` to `url` now, for a caller that waits.
pub(super) async fn fetch_now(env: &Env, url: &str, outgoing: &Outgoing) -> Result<Answer, String> {
    let timeout = send_timeout(env);
    fetch(
        url,
        &outgoing.method,
        &outgoing.headers,
        &outgoing.body,
        timeout,
    )
    .await
    .map_err(|e| format!("{url}: {e}"))
}

/// Calls FIFO `name` now, for a caller that waits.
pub(super) async fn to_fifo_now(
    env: &Env,
    name: &str,
    req: &Incoming,
    outgoing: &Outgoing,
) -> Result<Answer, crate::worker::http::Failure> {
    let stored = Stored::on_behalf_of(req, outgoing.clone());
    let key = format!("{}-0", req.request_id);
    Ok(to_fifo(env, name, &stored, &outgoing.body, &key).await?)
}

pub(super) enum Attempt {
    Answered(Answer),
    /// No answer: the reason, and whether trying again may help.
    Failed(String, bool),
}

impl Fifo {
    /// One alarm: runs waiting Requests, sends due deliveries, sets the next alarm.
    pub(super) async fn run_alarm(&self) -> worker::Result<()> {
        let store = self.store();
        let Some(row) = store.fifo()? else {
            return Ok(()); // deleted meanwhile
        };
        self.run_schedule(&store, &row)?;
        for (request_id, meta, body) in store.waiting_requests(BATCH)? {
            let mut incoming: Incoming = match serde_json::from_str(&meta) {
                Ok(i) => i,
                Err(e) => {
                    store.update_log(
                        &request_id,
                        DeliveryState::Failed,
                        Some(&format!("stored Request unreadable: {e}")),
                        None,
                    )?;
                    store.remove_request(&request_id)?;
                    continue;
                }
            };
            incoming.body = store.request_body(&request_id, body)?;
            self.read_mail(&mut incoming);
            let plan = match self.compiled(&row) {
                Ok(compiled) => self.run_envelope(&compiled, &incoming).await?,
                Err(f) => Plan {
                    steps: 0,
                    errors_to: Vec::new(),
                    stderr: Vec::new(),
                    result: Err(RunFailure {
                        what: "envelope",
                        message: f.message,
                    }),
                },
            };
            self.queue(&store, &incoming, plan)?;
            store.remove_request(&request_id)?;
        }
        // Bodies in pieces are read whole only to be sent, one at a time after the rest,
        // so that a batch of them does not hold the isolate's memory.
        let (pieced, due): (Vec<_>, Vec<_>) = store
            .due_deliveries(now_ms(), BATCH)?
            .into_iter()
            .partition(|d| d.body.len() >= PIECE_BYTES);
        let attempts = due.into_iter().map(|d| self.attempt(&store, d));
        for attempted in futures_util::future::join_all(attempts).await {
            attempted?;
        }
        for d in pieced {
            self.attempt(&store, d).await?;
        }
        self.schedule(&store).await
    }

    /// Sets the alarm for the next due work, if there is any.
    pub(super) async fn schedule(&self, store: &Store) -> worker::Result<()> {
        if let Some(at) = store.next_due()? {
            // At that instant (not after a wait): a schedule's alarm is on its minute.
            let at = js_sys::Date::new(&(at.max(now_ms()) as f64).into());
            self.state
                .storage()
                .set_alarm(worker::ScheduledTime::new(at))
                .await?;
        }
        Ok(())
    }

    /// Stores what a Request's envelope made of it: its deliveries, or the reports of its
    /// failure. Updates the log entry.
    pub(super) fn queue(&self, store: &Store, req: &Incoming, plan: Plan) -> worker::Result<()> {
        let errors_to = serde_json::to_string(&plan.errors_to)?;
        let ran = Some(Ran {
            steps: plan.steps,
            stderr: &plan.stderr,
        });
        match plan.result {
            Err(failure) => {
                let error = format!("{}: {}", failure.what, failure.message);
                store.update_log(&req.request_id, DeliveryState::Failed, Some(&error), ran)?;
                self.report(store, req, &plan.errors_to, &error, None)?;
            }
            Ok(Routed::Answer { .. }) => {
                // `To:` worked out to `-` with nobody waiting: nothing to send.
                store.update_log(&req.request_id, DeliveryState::Answered, None, ran)?;
            }
            Ok(Routed::Send {
                outgoing,
                to,
                reply_to,
            }) => {
                let limit = self.settings.limits.held;
                if outgoing.body.len() > limit {
                    let error = format!(
                        "the script's output to send on is {} bytes: at most {limit} are kept for delivery",
                        outgoing.body.len(),
                    );
                    store.update_log(&req.request_id, DeliveryState::Failed, Some(&error), ran)?;
                    return self.report(store, req, &plan.errors_to, &error, None);
                }
                let reply_to = serde_json::to_string(&reply_to)?;
                let body = outgoing.body.clone();
                let stored = Stored::on_behalf_of(req, outgoing);
                add_all(
                    store,
                    &req.request_id,
                    "deliver",
                    &to,
                    &stored,
                    &body,
                    &reply_to,
                    &errors_to,
                )?;
                store.update_log(&req.request_id, DeliveryState::Pending, None, ran)?;
            }
        }
        Ok(())
    }

    /// Queues a short report of a failure to each `Errors-To:` destination.
    pub(super) fn report(
        &self,
        store: &Store,
        req: &Incoming,
        errors_to: &[Destination],
        error: &str,
        status: Option<u16>,
    ) -> worker::Result<()> {
        report(store, req, errors_to, error, status)
    }

    /// Sends one due delivery and records what happened.
    async fn attempt(&self, store: &Store, mut d: Delivery) -> worker::Result<()> {
        let started = now_ms();
        d.body = store.delivery_body(d.id, std::mem::take(&mut d.body))?;
        let (Ok(dest), Ok(stored)) = (
            serde_json::from_str::<Destination>(&d.destination),
            serde_json::from_str::<Stored>(&d.outgoing),
        ) else {
            store.record_attempt(
                &d,
                started,
                None,
                Some("stored delivery unreadable"),
                0,
                "failed",
                started,
            )?;
            return Ok(());
        };
        let key = format!("{}-{}", d.request_id, d.seq);
        let attempt = send(&self.env, &d, &dest, &stored, &key).await;
        let now = now_ms();
        let took = now - started;
        let retry = Retry::from_env(&self.env);
        match attempt {
            Attempt::Answered(a) if (200..300).contains(&a.status) => {
                store.record_attempt(&d, started, Some(a.status), None, took, "done", now)?;
                // A message has no reply to pass on: its Reply-To header says where
                // answers go.
                if d.purpose == "deliver" && !matches!(dest, Destination::Email(_)) {
                    self.pass_reply(store, &d, &stored, a)?;
                }
            }
            Attempt::Answered(a) => {
                let retryable = matches!(a.status, 408 | 425 | 429 | 500..=599);
                let error = format!("{} answered {}", dest.describe(), a.status);
                self.after_failure(
                    store,
                    &d,
                    &stored,
                    started,
                    took,
                    Some(a.status),
                    &error,
                    retryable,
                    &retry,
                )?;
            }
            Attempt::Failed(error, retryable) => {
                self.after_failure(
                    store, &d, &stored, started, took, None, &error, retryable, &retry,
                )?;
            }
        }
        self.summarize(store, &d.request_id)
    }

    #[allow(clippy::too_many_arguments)]
    fn after_failure(
        &self,
        store: &Store,
        d: &Delivery,
        stored: &Stored,
        started: i64,
        took: i64,
        status: Option<u16>,
        error: &str,
        retryable: bool,
        retry: &Retry,
    ) -> worker::Result<()> {
        let next = if retryable {
            retry.next(d.attempts + 1, d.created_at, now_ms())
        } else {
            None
        };
        match next {
            Some(at) => store.record_attempt(d, started, status, Some(error), took, "pending", at),
            None => {
                store.record_attempt(d, started, status, Some(error), took, "failed", started)?;
                if d.purpose != "report" {
                    let errors_to: Vec<Destination> =
                        serde_json::from_str(&d.errors_to).unwrap_or_default();
                    let attempts = d.attempts + 1;
                    let message = format!("delivery gave up after {attempts} attempt(s): {error}");
                    let req = Incoming {
                        fifo: stored.fifo.clone(),
                        request_id: d.request_id.clone(),
                        hops: stored.hops.saturating_sub(1),
                        mail: stored.thread.clone().map(|thread| {
                            std::rc::Rc::new(Mail {
                                thread,
                                ..Mail::default()
                            })
                        }),
                        ..Default::default()
                    };
                    self.report(store, &req, &errors_to, &message, status)?;
                }
                Ok(())
            }
        }
    }

    /// A destination's reply goes on to `Reply-To:` (a FIFO or an address) as a new request.
    fn pass_reply(
        &self,
        store: &Store,
        d: &Delivery,
        stored: &Stored,
        a: Answer,
    ) -> worker::Result<()> {
        let reply_to: Vec<Destination> = serde_json::from_str(&d.reply_to).unwrap_or_default();
        let mut headers = vec![("X-Reply-Status".to_string(), a.status.to_string())];
        if let Some(ct) = a.content_type {
            headers.push(("Content-Type".into(), ct));
        }
        let outgoing = Outgoing {
            method: "POST".into(),
            headers,
            body: Vec::new(),
        };
        let next = Stored {
            outgoing,
            hops: stored.hops + 1,
            fifo: stored.fifo.clone(),
            thread: stored.thread.clone(),
            replay_of: stored.replay_of.clone(),
        };
        add_all(
            store,
            &d.request_id,
            "reply",
            &reply_to,
            &next,
            &a.body,
            "[]",
            &d.errors_to,
        )
    }

    /// The log entry's delivery column: `pending` while any delivery is, else `delivered`
    /// or `failed` (when any failed).
    /// A Request without deliveries of its own (its reports do not count) keeps the
    /// summary it was given when it was answered or failed.
    fn summarize(&self, store: &Store, request_id: &str) -> worker::Result<()> {
        let states = store.delivery_states(request_id)?;
        if states.is_empty() {
            return Ok(());
        }
        let summary = if states.iter().any(|s| s == "pending") {
            DeliveryState::Pending
        } else if states.iter().any(|s| s == "failed") {
            DeliveryState::Failed
        } else {
            DeliveryState::Delivered
        };
        store.update_log(request_id, summary, None, None)
    }
}

/// Queues a short report of a failure to each `Errors-To:` destination (see
/// [`Fifo::report`]; also for a streamed answer that fails after the object's handler
/// has returned).
pub(super) fn report(
    store: &Store,
    req: &Incoming,
    errors_to: &[Destination],
    error: &str,
    status: Option<u16>,
) -> worker::Result<()> {
    let body = serde_json::to_vec_pretty(&serde_json::json!({
        "fifo": req.fifo,
        "request_id": req.request_id,
        "error": error,
        "status": status,
    }))?;
    let outgoing = Outgoing {
        method: "POST".into(),
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: Vec::new(),
    };
    let stored = Stored::on_behalf_of(req, outgoing);
    add_all(
        store,
        &req.request_id,
        "report",
        errors_to,
        &stored,
        &body,
        "[]",
        "[]",
    )
}

/// Queues one outgoing request to each destination (none to the caller, who is not waiting).
#[allow(clippy::too_many_arguments)]
fn add_all(
    store: &Store,
    request_id: &str,
    purpose: &str,
    destinations: &[Destination],
    stored: &Stored,
    body: &[u8],
    reply_to: &str,
    errors_to: &str,
) -> worker::Result<()> {
    let outgoing = serde_json::to_string(stored)?;
    for dest in destinations.iter().filter(|d| **d != Destination::Caller) {
        let dest = serde_json::to_string(dest)?;
        store.add_delivery(
            request_id,
            purpose,
            &dest,
            &outgoing,
            body,
            reply_to,
            errors_to,
            now_ms(),
        )?;
    }
    Ok(())
}

/// The thread of a Request that came by mail.
fn thread_of(req: &Incoming) -> Option<Thread> {
    req.mail.as_ref().map(|m| m.thread.clone())
}

/// Sends delivery `d`, an outgoing request, to one destination.
async fn send(env: &Env, d: &Delivery, dest: &Destination, stored: &Stored, key: &str) -> Attempt {
    let body = &d.body;
    match dest {
        Destination::Url(url) => {
            let mut headers = stored.outgoing.headers.clone();
            headers.push(("Idempotency-Key".into(), key.to_string()));
            if !stored.replay_of.is_empty() {
                headers.push(("Replay-Of".into(), stored.replay_of.clone()));
            }
            let timeout = send_timeout(env);
            match fetch(url, &stored.outgoing.method, &headers, body, timeout).await {
                Ok(a) => Attempt::Answered(a),
                Err(e) => Attempt::Failed(format!("{url}: {e}"), true),
            }
        }
        Destination::Fifo(name) => match to_fifo(env, name, stored, body, key).await {
            Ok(a) => Attempt::Answered(a),
            Err(e) => Attempt::Failed(format!("{name}: {e}"), true),
        },
        Destination::Email(addr) => super::mail::send(env, d, addr, stored, body).await,
        Destination::Caller => Attempt::Answered(Answer {
            status: 204,
            content_type: None,
            body: Vec::new(),
        }),
    }
}

/// An HTTP request with a time limit; redirects are answers, not followed.
async fn fetch(
    url: &str,
    method: &str,
    headers: &[(String, String)],
    body: &[u8],
    timeout: Duration,
) -> Result<Answer, String> {
    let h = Headers::new();
    for (k, v) in headers {
        h.append(k, v).map_err(|e| format!("header {k}: {e}"))?;
    }
    let mut init = RequestInit::new();
    init.with_headers(h).with_redirect(RequestRedirect::Manual);
    if !body.is_empty() && method != "GET" && method != "HEAD" {
        init.with_body(Some(js_sys::Uint8Array::from(body).into()));
    }
    let req = crate::worker::method::request(url, &init, method).map_err(|e| e.to_string())?;
    let controller = AbortController::default();
    let signal = controller.signal();
    let sending = Box::pin(async move {
        let mut resp = Fetch::Request(req).send_with_signal(&signal).await?;
        let content_type = resp.headers().get("content-type")?;
        let body = whole_body(&mut resp).await?;
        Ok::<_, worker::Error>(Answer {
            status: resp.status_code(),
            content_type,
            body,
        })
    });
    match select(sending, Delay::from(timeout)).await {
        Either::Left((result, _)) => result.map_err(|e| e.to_string()),
        Either::Right(_) => {
            controller.abort();
            Err(format!("no answer within {} s", timeout.as_secs_f64()))
        }
    }
}

/// A new Request to another FIFO, through its object (which refuses it with 508 past the
/// hop limit, and logs that).
async fn to_fifo(
    env: &Env,
    name: &str,
    stored: &Stored,
    body: &[u8],
    key: &str,
) -> worker::Result<Answer> {
    let headers = Headers::new();
    for (k, v) in &stored.outgoing.headers {
        headers.append(k, v)?;
    }
    headers.set(protocol::FIFO, name)?;
    headers.set(protocol::HOPS, &stored.hops.to_string())?;
    headers.set(protocol::REQUEST_ID, &new_request_id())?;
    headers.set(protocol::SOURCE, Source::Fifo.as_str())?;
    headers.set("Idempotency-Key", key)?;
    if !stored.replay_of.is_empty() {
        headers.set("Replay-Of", &stored.replay_of)?;
    }
    let mut init = RequestInit::new();
    init.with_headers(headers);
    if !body.is_empty() && stored.outgoing.method != "GET" && stored.outgoing.method != "HEAD" {
        init.with_body(Some(js_sys::Uint8Array::from(body).into()));
    }
    let url = format!("https://fifo.internal/{name}/");
    let req = crate::worker::method::request(&url, &init, &stored.outgoing.method)?;
    let stub = env.durable_object("FIFO")?.id_from_name(name)?.get_stub()?;
    let mut resp = stub.fetch_with_request(req).await?;
    let content_type = resp.headers().get("content-type")?;
    let body = whole_body(&mut resp).await?;
    Ok(Answer {
        status: resp.status_code(),
        content_type,
        body,
    })
}
