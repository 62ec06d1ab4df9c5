//! The Fifo object: one Durable Object per FIFO, found by the FIFO's name. It keeps the
//! envelope, the variables and the Request log in its SQLite storage ([`store`]), answers
//! the JSON API's operations on them, and serves every Request written into the FIFO.

mod store;

use std::cell::RefCell;
use std::rc::Rc;

use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Headers, Request, Response, Result, State};

use super::http::{json, now_ms, Failure};
use crate::envelope::{self, Envelope};
use crate::protocol;
use store::{LogEntry, Store};

/// The largest Request body a FIFO takes; a larger one gets 413.
pub const MAX_BODY: usize = 32 * 1024 * 1024;

#[durable_object]
pub struct Fifo {
    state: State,
    env: Env,
    /// The parsed envelope and the `updated_at` it was parsed at.
    envelope: RefCell<Option<(i64, Rc<Envelope>)>>,
}

impl DurableObject for Fifo {
    fn new(state: State, env: Env) -> Self {
        super::install_panic_bridge();
        Fifo {
            state,
            env,
            envelope: RefCell::new(None),
        }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let op = req.headers().get(protocol::OP)?;
        let mut resp = match op {
            Some(op) => self.api(&op, req).await.or_else(Failure::into_response)?,
            None => self.serve(req).await.or_else(Failure::into_text_response)?,
        };
        resp.headers_mut().set(protocol::OBJECT, "1")?;
        Ok(resp)
    }
}

/// Query parameters of the log operation.
#[derive(Deserialize, Default)]
struct LogQuery {
    limit: Option<i64>,
    before: Option<i64>,
    bodies: Option<String>,
}

impl Fifo {
    fn store(&self) -> Store {
        Store::new(self.state.storage().sql())
    }

    /// An operation of the JSON API (authorized by the Worker before it got here).
    async fn api(&self, op: &str, mut req: Request) -> std::result::Result<Response, Failure> {
        let store = self.store();
        let name = header(&req, protocol::FIFO)?;
        let now = now_ms();
        let exists = || -> std::result::Result<store::FifoRow, Failure> {
            store
                .fifo()?
                .ok_or_else(|| Failure::new(404, format!("no FIFO named {name}")))
        };
        match op {
            "put" => {
                let text = req.text().await?;
                envelope::parse(&text).map_err(|e| Failure::new(400, format!("envelope: {e}")))?;
                let created = store.put_fifo(&name, &text, now)?;
                let status = if created { 201 } else { 200 };
                Ok(json(
                    status,
                    &serde_json::json!({ "name": name, "created": created }),
                )?)
            }
            "get" => {
                let row = exists()?;
                let vars = store.vars()?;
                Ok(json(
                    200,
                    &serde_json::json!({
                        "name": row.name,
                        "envelope": row.envelope,
                        "vars": vars,
                        "created_at": row.created_at,
                        "updated_at": row.updated_at,
                        "log_entries": store.log_len()?,
                    }),
                )?)
            }
            "delete" => {
                exists()?;
                self.state.storage().delete_alarm().await?;
                self.state.storage().delete_all().await?;
                self.envelope.replace(None);
                Ok(Response::empty()?.with_status(204))
            }
            "var-put" | "var-delete" => {
                exists()?;
                let key = header(&req, "x-mkfifo-var")?;
                if !envelope::is_var_name(&key) || key.len() > 64 {
                    return Err(Failure::new(
                        400,
                        format!("bad variable name '{key}': use letters, digits and '_'"),
                    ));
                }
                if op == "var-delete" {
                    return if store.delete_var(&key)? {
                        Ok(Response::empty()?.with_status(204))
                    } else {
                        Err(Failure::new(404, format!("no variable {key}")))
                    };
                }
                let value = req.bytes().await?;
                if value.len() > 64 * 1024 {
                    return Err(Failure::new(413, "a variable holds at most 64 KiB"));
                }
                store.put_var(&key, &value, now)?;
                Ok(json(
                    200,
                    &serde_json::json!({ "name": key, "length": value.len() }),
                )?)
            }
            "log" => {
                exists()?;
                let query: LogQuery = req.query().unwrap_or_default();
                let limit = query.limit.unwrap_or(100).clamp(1, store::LOG_ROWS);
                let bodies = matches!(query.bodies.as_deref(), Some("1" | "true" | "yes"));
                let entries = store.log_entries(limit, query.before, bodies)?;
                Ok(json(
                    200,
                    &serde_json::json!({ "name": name, "entries": entries }),
                )?)
            }
            "fault" if super::faults_allowed(&self.env) => {
                panic!("fault injected into FIFO {name}")
            }
            _ => Err(Failure::new(400, format!("unknown operation {op}"))),
        }
    }

    /// The envelope of the FIFO, parsed once per version of its text.
    fn envelope(&self, row: &store::FifoRow) -> std::result::Result<Rc<Envelope>, Failure> {
        if let Some((at, env)) = self.envelope.borrow().as_ref() {
            if *at == row.updated_at {
                return Ok(env.clone());
            }
        }
        let env = Rc::new(
            envelope::parse(&row.envelope)
                .map_err(|e| Failure::new(500, format!("stored envelope: {e}")))?,
        );
        self.envelope.replace(Some((row.updated_at, env.clone())));
        Ok(env)
    }

    /// A Request written into the FIFO.
    async fn serve(&self, mut req: Request) -> std::result::Result<Response, Failure> {
        let started = now_ms();
        let store = self.store();
        let name = header(&req, protocol::FIFO)?;
        // The body is read before anything is answered: an answer sent while the caller is
        // still sending would cut the connection under it.
        let body = req.bytes().await?;
        if body.len() > MAX_BODY {
            return Err(Failure::new(
                413,
                format!("a Request body holds at most {} MiB", MAX_BODY >> 20),
            ));
        }
        let Some(row) = store.fifo()? else {
            return Err(Failure::new(404, format!("no FIFO named {name}")));
        };
        let envelope = self.envelope(&row)?;
        let source = match req.headers().get(protocol::SOURCE)?.as_deref() {
            Some("email") => "email",
            _ => "http",
        };
        let url = req.url()?;
        let path = url.path().to_string();
        let (response, outcome) = if envelope.is_empty() {
            // An empty envelope answers the body back unchanged.
            let headers = Headers::new();
            let content_type = req.headers().get("content-type")?;
            headers.set(
                "Content-Type",
                content_type
                    .as_deref()
                    .unwrap_or("application/octet-stream"),
            )?;
            let resp = Response::from_bytes(body.clone())?.with_headers(headers);
            (resp, "echo")
        } else if let Some(resp) = passthrough(&envelope)? {
            (resp, "passthrough")
        } else {
            let refusal = Failure::new(
                501,
                "this envelope needs features that are not available yet",
            );
            (refusal.into_text_response()?, "refused")
        };
        let status = response.status_code();
        let entry = LogEntry {
            request_id: req.headers().get(protocol::REQUEST_ID)?.unwrap_or_default(),
            at: started,
            source: source.into(),
            method: req.method().to_string(),
            path,
            status,
            request_bytes: body.len(),
            response_bytes: if outcome == "echo" { body.len() } else { 0 },
            duration_ms: now_ms() - started,
            outcome: outcome.into(),
            body,
        };
        store.log(&entry)?;
        Ok(response)
    }
}

/// An envelope that only forwards (`To: URL`, `Reply-To: -`, no script) is answered by a
/// passthrough: the entry module makes the request and streams the reply to the caller.
fn passthrough(env: &Envelope) -> Result<Option<Response>> {
    let (Some(to), Some("-")) = (env.header("to"), env.header("reply-to")) else {
        return Ok(None);
    };
    let is_url = to.starts_with("http://") || to.starts_with("https://");
    if !is_url || to.contains('$') || !env.script.trim().is_empty() || !env.selectors.is_empty() {
        return Ok(None);
    }
    let headers = Headers::new();
    headers.set(protocol::ACCEL_REDIRECT, to)?;
    headers.set(
        protocol::ACCEL_METHOD,
        env.header("method").unwrap_or("GET"),
    )?;
    Ok(Some(Response::empty()?.with_headers(headers)))
}

fn header(req: &Request, name: &str) -> std::result::Result<String, Failure> {
    req.headers()
        .get(name)?
        .ok_or_else(|| Failure::new(400, format!("missing {name}")))
}
