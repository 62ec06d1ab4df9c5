//! The JSON API under `/_/api/`: make, read, change and delete FIFOs, set their variables
//! and read their Request log. Authorized by the operator token (`MKFIFO_ADMIN_TOKEN`,
//! sent as `Authorization: Bearer TOKEN`); the FIFO's object carries out the operation.
//!
//! | request | operation |
//! |---|---|
//! | `PUT /_/api/fifos/NAME` (body: the envelope) | create or replace; 201 or 200 |
//! | `GET /_/api/fifos/NAME` | the envelope, the variables (never their values), times |
//! | `DELETE /_/api/fifos/NAME` | delete the FIFO with its variables and log; 204 |
//! | `PUT /_/api/fifos/NAME/vars/KEY` (body: the value) | set a variable |
//! | `DELETE /_/api/fifos/NAME/vars/KEY` | delete a variable; 204 |
//! | `GET /_/api/fifos/NAME/log[?limit=N&before=ID&bodies=1]` | the Request log, newest first |
//! | `GET /_/api/fifos/NAME/log/REQUEST_ID` | one Request: its entry, deliveries and attempts |

use worker::{Env, Headers, Method, Request, RequestInit, Response};

use super::http::Failure;
use crate::names::fifo_name_error;
use crate::protocol;

type Answer = Result<Response, Failure>;

pub async fn handle(mut req: Request, env: &Env, rest: &str) -> Answer {
    authorize(&req, env)?;
    let segments: Vec<&str> = rest.split('/').collect();
    let method = req.method();
    let (name, op, var) = match (segments.as_slice(), &method) {
        (["fifos", name], Method::Put) => (*name, "put", None),
        (["fifos", name], Method::Get) => (*name, "get", None),
        (["fifos", name], Method::Delete) => (*name, "delete", None),
        (["fifos", name, "vars", key], Method::Put) => (*name, "var-put", Some(*key)),
        (["fifos", name, "vars", key], Method::Delete) => (*name, "var-delete", Some(*key)),
        (["fifos", name, "log"], Method::Get) => (*name, "log", None),
        (["fifos", name, "log", id], Method::Get) => (*name, "log-entry", Some(*id)),
        (
            ["fifos", _] | ["fifos", _, "vars", _] | ["fifos", _, "log"] | ["fifos", _, "log", _],
            _,
        ) => return Err(Failure::new(405, format!("{method} is not allowed here"))),
        _ => return Err(Failure::new(404, format!("no API at /_/api/{rest}"))),
    };
    if let Some(problem) = fifo_name_error(name) {
        return Err(Failure::new(400, problem));
    }
    let headers = Headers::new();
    headers.set(protocol::OP, op)?;
    headers.set(protocol::FIFO, name)?;
    if let Some(key) = var {
        headers.set(
            if op == "log-entry" {
                "x-mkfifo-entry"
            } else {
                "x-mkfifo-var"
            },
            key,
        )?;
    }
    let mut init = RequestInit::new();
    init.with_method(method.clone()).with_headers(headers);
    if matches!(method, Method::Put) {
        let body = req.bytes().await?;
        init.with_body(Some(js_sys::Uint8Array::from(body.as_slice()).into()));
    }
    let url = req.url()?;
    let inner = Request::new_with_init(url.as_str(), &init)?;
    let stub = env.durable_object("FIFO")?.id_from_name(name)?.get_stub()?;
    let mut resp = stub.fetch_with_request(inner).await?;
    if resp.headers().get(protocol::OBJECT)?.is_none() {
        let cause = resp.text().await.unwrap_or_default();
        return Err(Failure::new(
            503,
            format!("FIFO {name} failed: {}", cause.trim()),
        ));
    }
    // The answer's headers are immutable: copy it without the marker (API answers are small).
    let headers = Headers::new();
    for (k, v) in resp
        .headers()
        .entries()
        .filter(|(k, _)| k != protocol::OBJECT)
    {
        headers.append(&k, &v)?;
    }
    let status = resp.status_code();
    let body = resp.bytes().await?;
    let copy = if body.is_empty() {
        Response::empty()?
    } else {
        Response::from_bytes(body)?
    };
    Ok(copy.with_status(status).with_headers(headers))
}

/// Checks the bearer token against the operator's, in time independent of where they differ.
fn authorize(req: &Request, env: &Env) -> Result<(), Failure> {
    let expected = env
        .secret("MKFIFO_ADMIN_TOKEN")
        .map(|s| s.to_string())
        .map_err(|_| Failure::new(401, "the API is disabled: no MKFIFO_ADMIN_TOKEN is set"))?;
    let given = req.headers().get("authorization")?.unwrap_or_default();
    let token = given.strip_prefix("Bearer ").unwrap_or("");
    if expected.is_empty() || !same(token.as_bytes(), expected.as_bytes()) {
        return Err(Failure::new(
            401,
            "a valid operator token is needed (Authorization: Bearer ...)",
        ));
    }
    Ok(())
}

fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
