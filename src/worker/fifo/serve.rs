//! Serving a Request written into the FIFO: it is logged, then answered by the envelope.
//!
//! A caller waits for the answer when the envelope says `To: -` (the script's output is the
//! answer) or `Reply-To: -` (the destination's reply is), and always when the FIFO runs as
//! a command. Otherwise the Request is stored first and answered `202 Accepted` with its
//! id; the alarm runs it and delivers the result (deliver.rs).

use worker::{Headers, Request, Response};

use super::answer::{self, BodyStream};
use super::body;
use super::deliver::to_fifo_now;
use super::store::{DeliveryState, LogEntry, Outcome, Ran};
use super::Fifo;
use crate::conditional::{self, Conditions};
use crate::envelope::run::{self, Failure as RunFailure, Outgoing, Plan, Routed};
use crate::envelope::{Destination, Incoming, Source};
use crate::protocol;
use crate::stream::Stdin;
use crate::worker::host::{new_request_id, now_ms, WorkerHost, MAX_HOPS};
use crate::worker::http::{header_pairs, headers_of, json, path_and_query, whole, Failure};

impl Fifo {
    /// A Request written into the FIFO, answered `304` where its conditions say so.
    pub(super) async fn serve(&self, req: Request) -> Result<Response, Failure> {
        self.counts.requests.set(self.counts.requests.get() + 1);
        let method = crate::worker::method::of(&req);
        let asks = Conditions {
            if_none_match: req.headers().get("if-none-match")?,
            if_modified_since: req.headers().get("if-modified-since")?,
        };
        let resp = self.serve_request(req).await?;
        let headers = resp.headers();
        let (etag, modified) = (headers.get("etag")?, headers.get("last-modified")?);
        if !asks.not_modified(
            &method,
            resp.status_code(),
            etag.as_deref(),
            modified.as_deref(),
        ) {
            return Ok(resp);
        }
        let kept = Headers::new();
        for name in conditional::KEPT_BY_304 {
            if let Some(value) = headers.get(name)? {
                kept.set(name, &value)?;
            }
        }
        Ok(Response::empty()?.with_status(304).with_headers(kept))
    }

    async fn serve_request(&self, mut req: Request) -> Result<Response, Failure> {
        let started = now_ms();
        let store = self.store();
        let arrival = Arrival::of(&req);
        let name = &arrival.name;
        let Some(row) = store.fifo()? else {
            drain(&mut req).await;
            let mut resp =
                Failure::new(404, format!("no FIFO named {name}")).into_text_response()?;
            resp.headers_mut().set(protocol::NO_FIFO, "1")?;
            return Ok(resp);
        };
        if let Some(resp) = self
            .serve_streaming(&mut req, &arrival, &row, started)
            .await?
        {
            return Ok(resp);
        }
        // The body is read before anything is answered: an answer sent while the caller is
        // still sending would cut the connection under it.
        let held = self.settings.limits.held;
        let (body, _held_until_answered) = body::read_held(&self.gate, &mut req, held).await?;
        let mut incoming = incoming(&req, &arrival, body);
        self.read_mail(&mut incoming);
        self.read_mail_again(&req, &mut incoming);
        let (mail_from, subject) = incoming
            .mail
            .as_ref()
            .map(|m| (m.from.clone(), m.subject.clone()))
            .unwrap_or_default();
        let mut entry = LogEntry {
            mail_from,
            subject,
            ..log_entry(&incoming, name, started)
        };
        let answer = self.answer(&store, &incoming, &row, &mut entry).await;
        let resp = match answer {
            Ok(resp) => resp,
            Err(failure) => {
                entry.status = failure.status;
                if entry.error.is_empty() {
                    entry.error = failure.message.clone();
                }
                failure.into_text_response()?
            }
        };
        entry.status = resp.status_code();
        entry.duration_ms = now_ms() - started;
        // A Request that left nothing to do later is logged once its answer has left.
        if store.queue_changed() {
            store.log(&entry)?;
            self.schedule(&store).await?;
        } else {
            store.log_soon(entry);
        }
        Ok(resp)
    }

    /// A Request whose envelope streams its answer (and maybe takes its body as a stream):
    /// run here, logged when its output ends. `None`: not such a Request.
    async fn serve_streaming(
        &self,
        req: &mut Request,
        arrival: &Arrival,
        row: &super::store::FifoRow,
        started: i64,
    ) -> Result<Option<Response>, Failure> {
        let compiled = self.compiled(row)?;
        let envelope = &compiled.envelope;
        if arrival.source() != Source::Http
            || arrival.hops() > MAX_HOPS
            || !run::streams_answer(envelope)
        {
            return Ok(None);
        }
        // A body held whole keeps its place in the gate while the answer is worked out
        // (it lives on in the script's stdin while the answer streams).
        let mut held = None;
        let (body, stdin, seen) = if run::streams_body(envelope) {
            match req.inner().body() {
                None => (Vec::new(), Stdin::default(), None),
                Some(_) => {
                    let limit = self.settings.limits.streamed;
                    let (stream, seen) = BodyStream::new(req.stream()?, limit);
                    (Vec::new(), Stdin::outside(Box::new(stream)), Some(seen))
                }
            }
        } else {
            let held_limit = self.settings.limits.held;
            let (body, permit) = body::read_held(&self.gate, req, held_limit).await?;
            held = permit;
            (body.clone(), Stdin::bytes(body), None)
        };
        let mut incoming = incoming(req, arrival, body);
        incoming.body_streams = seen.is_some();
        let store = self.store();
        let mut entry = log_entry(&incoming, &arrival.name, started);
        let fifo_vars = store.var_values()?;
        let selected = compiled.selectors.select(
            incoming.header("content-type"),
            &incoming.body,
            &incoming.query,
        );
        let host = WorkerHost::new(self.env.clone(), incoming.hops);
        let mut shell = self.shell.borrow_mut().take().unwrap_or_default();
        let limit = self.settings.steps;
        let planned = run::stream_answer(
            &mut shell, &host, envelope, &incoming, selected, &fifo_vars, limit,
        )
        .await;
        let plan = match planned {
            Ok(plan) => plan,
            Err(failed) => {
                self.shell.borrow_mut().replace(shell);
                let error = match &failed.result {
                    Err(f) => format!("{}: {}", f.what, f.message),
                    Ok(_) => "the envelope did not run".into(),
                };
                entry.ran(Ran {
                    steps: failed.steps,
                    stderr: &failed.stderr,
                });
                entry.outcome = Outcome::Failed;
                entry.error = error.clone();
                entry.status = 500;
                entry.duration_ms = now_ms() - started;
                self.report(&store, &incoming, &failed.errors_to, &error, None)?;
                store.log(&entry)?;
                if store.queue_changed() {
                    self.schedule(&store).await?;
                }
                return Err(Failure::new(500, error));
            }
        };
        // A failure after the answer has started is reported when the output ends.
        let storage = self.state.storage();
        let errors_to = plan.errors_to.clone();
        let on_failure = Box::new(move |store: &super::store::Store, error: &str| {
            if errors_to.is_empty() {
                return;
            }
            if let Err(e) = super::deliver::report(store, &incoming, &errors_to, error, None) {
                worker::console_error!("report of {}: {e}", incoming.request_id);
                return;
            }
            if let Ok(Some(at)) = store.next_due() {
                let wait = (at - now_ms()).max(0);
                wasm_bindgen_futures::spawn_local(async move {
                    let _ = storage.set_alarm(wait).await;
                });
            }
        });
        entry.status = 200;
        let answer = answer::stream(
            plan,
            shell,
            self.shell.clone(),
            host,
            stdin,
            answer::Logged {
                store,
                entry,
                body: seen,
                started,
                on_failure,
            },
        )
        .await;
        drop(held);
        Ok(Some(answer.or_else(Failure::into_text_response)?))
    }

    async fn answer(
        &self,
        store: &super::store::Store,
        incoming: &Incoming,
        row: &super::store::FifoRow,
        entry: &mut LogEntry,
    ) -> Result<Response, Failure> {
        if incoming.hops > MAX_HOPS {
            entry.outcome = Outcome::Loop;
            return Err(Failure::new(
                508,
                format!("a chain of FIFOs is limited to {MAX_HOPS} hops (a loop?)"),
            ));
        }
        let compiled = self.compiled(row)?;
        let envelope = &compiled.envelope;
        if envelope.is_empty() {
            // An empty envelope answers the body back unchanged.
            entry.outcome = Outcome::Echo;
            entry.response_bytes = incoming.body.len();
            let headers = Headers::new();
            headers.set(
                "Content-Type",
                incoming
                    .header("content-type")
                    .unwrap_or("application/octet-stream"),
            )?;
            return Ok(whole(200, headers, incoming.body.clone())?);
        }
        let literal = |h: &str| envelope.header(h).map(str::trim) == Some("-");
        // Mail has nobody waiting: only `To: -` runs at once, so that a failing script
        // can refuse the message.
        let waits = incoming.source == Source::Command
            || literal("to")
            || (literal("reply-to") && incoming.source != Source::Email);
        if !waits {
            store.put_request(
                &incoming.request_id,
                entry.at,
                &serde_json::to_string(incoming)?,
                &incoming.body,
            )?;
            entry.outcome = Outcome::Accepted;
            entry.delivery = DeliveryState::Pending;
            return accepted(&incoming.fifo, &incoming.request_id);
        }

        let plan = self.run_envelope(&compiled, incoming).await?;
        entry.ran(Ran {
            steps: plan.steps,
            stderr: &plan.stderr,
        });
        match plan.result {
            Err(f) => {
                entry.outcome = Outcome::Failed;
                entry.error = format!("{}: {}", f.what, f.message);
                self.report(store, incoming, &plan.errors_to, &entry.error, None)?;
                let reason = match incoming.source {
                    Source::Email => super::mail::reject_reason(&f),
                    _ => entry.error.clone(),
                };
                Err(Failure::new(500, reason))
            }
            Ok(Routed::Answer {
                status,
                headers,
                body,
            }) => {
                entry.outcome = Outcome::Answered;
                entry.response_bytes = body.len();
                let mut headers = headers;
                conditional::resolve_auto_etag(&mut headers, Some(&body));
                Ok(whole(status, headers_of(&headers)?, body)?)
            }
            Ok(Routed::Send {
                outgoing,
                to,
                reply_to,
            }) => {
                let caller_waits =
                    incoming.source == Source::Command || reply_to.contains(&Destination::Caller);
                if !caller_waits {
                    let to_all = Routed::Send {
                        outgoing,
                        to,
                        reply_to,
                    };
                    self.queue(
                        store,
                        incoming,
                        Plan {
                            steps: plan.steps,
                            errors_to: plan.errors_to,
                            stderr: plan.stderr,
                            result: Ok(to_all),
                        },
                    )?;
                    entry.outcome = Outcome::Accepted;
                    entry.delivery = DeliveryState::Pending;
                    return accepted(&incoming.fifo, &incoming.request_id);
                }
                // The first destination answers the caller; any others are delivered durably.
                let (first, rest) = to
                    .split_first()
                    .ok_or_else(|| Failure::new(500, "no destination"))?;
                if !rest.is_empty() {
                    let others = Routed::Send {
                        outgoing: outgoing.clone(),
                        to: rest.to_vec(),
                        reply_to: Vec::new(),
                    };
                    let plan = Plan {
                        steps: 0,
                        errors_to: plan.errors_to.clone(),
                        stderr: Vec::new(),
                        result: Ok(others),
                    };
                    self.queue(store, incoming, plan)?;
                }
                self.reply_now(store, incoming, first, outgoing, &plan.errors_to, entry)
                    .await
            }
        }
    }

    /// Sends to `dest` while the caller waits, and answers with the destination's reply.
    async fn reply_now(
        &self,
        store: &super::store::Store,
        incoming: &Incoming,
        dest: &Destination,
        outgoing: Outgoing,
        errors_to: &[Destination],
        entry: &mut LogEntry,
    ) -> Result<Response, Failure> {
        match dest {
            // Over HTTP the entry module is in front: it makes the request and streams the
            // reply, so the bytes never enter WebAssembly.
            Destination::Url(url) if incoming.source == Source::Http => {
                entry.outcome = Outcome::Passthrough;
                passthrough(url, outgoing, errors_to, &incoming.request_id)
            }
            Destination::Url(url) => {
                entry.outcome = Outcome::Relayed;
                let answer = super::deliver::fetch_now(&self.env, url, &outgoing)
                    .await
                    .map_err(|e| {
                        let _ = self.report(store, incoming, errors_to, &e, None);
                        Failure::new(502, e)
                    })?;
                entry.response_bytes = answer.body.len();
                answer.into_response()
            }
            Destination::Fifo(name) => {
                entry.outcome = Outcome::Relayed;
                let answer = to_fifo_now(&self.env, name, incoming, &outgoing).await?;
                entry.response_bytes = answer.body.len();
                answer.into_response()
            }
            // A message has no reply to wait for: it is delivered durably.
            Destination::Email(_) => {
                let plan = Plan {
                    steps: 0,
                    errors_to: errors_to.to_vec(),
                    stderr: Vec::new(),
                    result: Ok(Routed::Send {
                        outgoing,
                        to: vec![dest.clone()],
                        reply_to: Vec::new(),
                    }),
                };
                self.queue(store, incoming, plan)?;
                entry.outcome = Outcome::Accepted;
                entry.delivery = DeliveryState::Pending;
                accepted(&incoming.fifo, &incoming.request_id)
            }
            Destination::Caller => Err(Failure::new(
                500,
                "To: - cannot be mixed with other destinations",
            )),
        }
    }
}

/// `202 Accepted` with the Request's id and where its log entry is.
fn accepted(fifo: &str, request_id: &str) -> Result<Response, Failure> {
    let location = format!("/_/api/fifos/{fifo}/log/{request_id}");
    let mut resp = json(
        202,
        &serde_json::json!({ "id": request_id, "status": "accepted", "log": location }),
    )?;
    resp.headers_mut().set("Location", &location)?;
    Ok(resp)
}

/// The answer that tells the entry module to make `outgoing` and stream its reply (and
/// whom to tell if that fails, naming the Request).
fn passthrough(
    url: &str,
    outgoing: Outgoing,
    errors_to: &[Destination],
    request_id: &str,
) -> Result<Response, Failure> {
    let headers = Headers::new();
    headers.set(protocol::ACCEL_REDIRECT, url)?;
    if !errors_to.is_empty() {
        headers.set(protocol::REQUEST_ID, request_id)?;
        let list =
            serde_json::to_string(errors_to).map_err(|e| Failure::new(500, e.to_string()))?;
        headers.set(protocol::ERRORS_TO, &list)?;
    }
    headers.set(protocol::ACCEL_METHOD, &outgoing.method)?;
    for (k, v) in &outgoing.headers {
        headers.append(
            &format!(
                "{}{}",
                protocol::ACCEL_HEADER_PREFIX,
                k.to_ascii_lowercase()
            ),
            v,
        )?;
    }
    let resp = if outgoing.body.is_empty() {
        Response::empty()?
    } else {
        Response::from_bytes(outgoing.body)?
    };
    Ok(resp.with_headers(headers))
}

/// A Request as it arrived: which FIFO it is for, the rest of its path, its query, and
/// its headers (read in one call), the internal ones set apart.
struct Arrival {
    name: String,
    path_info: String,
    query: String,
    headers: Vec<(String, String)>,
    internal: Vec<(String, String)>,
}

impl Arrival {
    /// A Request made inside the Worker (a mail, another FIFO's) names its FIFO in the
    /// [`protocol::FIFO`] header. A client's Request comes as the client sent it, without
    /// internal headers (the entry module has checked the name): its FIFO is the first
    /// segment of its path.
    fn of(req: &Request) -> Self {
        let url = req.inner().url();
        let (path, query) = path_and_query(&url);
        let (internal, headers): (Vec<_>, Vec<_>) = header_pairs(req)
            .into_iter()
            .partition(|(name, _)| name.starts_with(protocol::INTERNAL_PREFIX));
        let mut arrival = Arrival {
            name: String::new(),
            path_info: String::new(),
            query: query.to_string(),
            headers,
            internal,
        };
        if let Some(name) = arrival.internal(protocol::FIFO).map(str::to_string) {
            arrival.path_info = path
                .strip_prefix(&format!("/{name}"))
                .unwrap_or(path)
                .into();
            arrival.name = name;
        } else {
            let rest = path.strip_prefix('/').unwrap_or(path);
            let segment = rest.split('/').next().unwrap_or_default();
            arrival.name = percent_encoding::percent_decode_str(segment)
                .decode_utf8_lossy()
                .into_owned();
            arrival.path_info = rest[segment.len()..].to_string();
        }
        arrival
    }

    fn internal(&self, name: &str) -> Option<&str> {
        self.internal
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn source(&self) -> Source {
        Source::parse(self.internal(protocol::SOURCE).unwrap_or_default())
    }

    fn hops(&self) -> u32 {
        self.internal(protocol::HOPS)
            .and_then(|h| h.parse().ok())
            .unwrap_or(0)
    }
}

/// The Request as the envelope sees it. A client's Request (no internal headers) gets its
/// id here, and its address from the platform's `CF-Connecting-IP`.
fn incoming(req: &Request, arrival: &Arrival, body: Vec<u8>) -> Incoming {
    let from_client = arrival.internal.is_empty();
    let internal = |h: &str| arrival.internal(h).unwrap_or_default().to_string();
    let request_id = arrival
        .internal(protocol::REQUEST_ID)
        .map_or_else(new_request_id, str::to_string);
    let remote_addr = match arrival.internal(protocol::REMOTE_ADDR) {
        Some(addr) => addr.to_string(),
        None if from_client => arrival
            .headers
            .iter()
            .find(|(k, _)| k == "cf-connecting-ip")
            .map_or_else(|| "127.0.0.1".to_string(), |(_, v)| v.clone()),
        None => String::new(),
    };
    Incoming {
        fifo: arrival.name.clone(),
        request_id,
        source: arrival.source(),
        method: crate::worker::method::of(req),
        path_info: arrival.path_info.clone(),
        query: arrival.query.clone(),
        headers: arrival.headers.clone(),
        body,
        body_streams: false,
        remote_addr,
        args: protocol::decode_args(&internal(protocol::ARGS)).unwrap_or_default(),
        hops: arrival.hops(),
        mail_from: internal(protocol::MAIL_FROM),
        mail_to: internal(protocol::MAIL_TO),
        mail: None,
        replay_of: String::new(),
    }
}

impl From<RunFailure> for Failure {
    fn from(f: RunFailure) -> Self {
        Failure::new(500, format!("{}: {}", f.what, f.message))
    }
}

/// The log entry of a Request, before it is answered.
fn log_entry(incoming: &Incoming, name: &str, started: i64) -> LogEntry {
    LogEntry {
        request_id: incoming.request_id.clone(),
        at: started,
        source: incoming.source.as_str().into(),
        method: incoming.method.clone(),
        path: format!("/{name}{}", incoming.path_info),
        request_bytes: incoming.body.len(),
        headers: incoming.headers.clone(),
        query: incoming.query.clone(),
        body: incoming.body.clone(),
        ..LogEntry::default()
    }
}

/// Reads what is left of a Request's body and drops it, so that an early answer does not
/// cut the caller's upload short.
async fn drain(req: &mut Request) {
    if let Ok(mut stream) = req.stream() {
        let _ = body::drain(&mut stream).await;
    }
}
