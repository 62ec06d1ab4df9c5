//! Calling the Durable Objects from the Worker: an operation as JSON in the
//! `x-mkfifo-op` header (see `crate::protocol`), the payload as the body. An answer
//! without the object's marker comes from the platform (a crashed object) and is a 503.

use serde::de::DeserializeOwned;
use worker::{Env, Headers, Method, Request, RequestInit, Response, Stub};

use super::http::{not_signed_in, Failure};
use crate::protocol::{self, AccountOp, FifoCall};

/// Carries out an operation on a FIFO's object; its answer as the client gets it.
pub async fn fifo(env: &Env, call: &FifoCall, body: Option<Vec<u8>>) -> Result<Response, Failure> {
    let name = call.op.name();
    let stub = env.durable_object("FIFO")?.id_from_name(name)?.get_stub()?;
    let headers = [(protocol::OP, serde_json::to_string(call)?)];
    call_object(&stub, &format!("FIFO {name}"), &headers, body).await
}

/// Opens a WebSocket to a FIFO's object (`FifoOp::Live`) when the client asked for an
/// `upgrade`; the upgraded answer as the client gets it, or the object's refusal.
pub async fn fifo_socket(env: &Env, call: &FifoCall, upgrade: bool) -> Result<Response, Failure> {
    let name = call.op.name();
    let stub = env.durable_object("FIFO")?.id_from_name(name)?.get_stub()?;
    let mut headers = vec![(protocol::OP, serde_json::to_string(call)?)];
    if upgrade {
        headers.push(("upgrade", "websocket".to_string()));
    }
    call_object(&stub, &format!("FIFO {name}"), &headers, None).await
}

/// How to find an account's object.
pub enum AccountKey<'a> {
    /// By its address (to sign in).
    Email(&'a str),
    /// By its object's id, as a credential names it.
    Id(&'a str),
}

/// Carries out an operation on an account's object. An id that is not one of this
/// namespace's is an invalid credential: 401.
pub async fn account(env: &Env, key: AccountKey<'_>, op: &AccountOp) -> Result<Response, Failure> {
    let namespace = env.durable_object("ACCOUNT")?;
    let id = match key {
        AccountKey::Email(email) => namespace.id_from_name(email)?,
        AccountKey::Id(hex) => namespace.id_from_string(hex).map_err(|_| not_signed_in())?,
    };
    let stub = id.get_stub()?;
    let headers = [(protocol::OP, serde_json::to_string(op)?)];
    call_object(&stub, "the account", &headers, None).await
}

/// The JSON of a successful answer; a failed one becomes its status and message.
pub async fn parsed<T: DeserializeOwned>(mut resp: Response) -> Result<T, Failure> {
    let status = resp.status_code();
    let body = resp.bytes().await?;
    if status >= 400 {
        return Err(failure_of(status, &body));
    }
    serde_json::from_slice(&body).map_err(|e| Failure::new(500, format!("an object's answer: {e}")))
}

/// The status and the `error` of an object's failed answer.
pub fn failure_of(status: u16, body: &[u8]) -> Failure {
    let message = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_string());
    Failure::new(status, message)
}

async fn call_object(
    stub: &Stub,
    what: &str,
    headers: &[(&str, String)],
    body: Option<Vec<u8>>,
) -> Result<Response, Failure> {
    let h = Headers::new();
    for (k, v) in headers {
        h.set(k, v)?;
    }
    let mut init = RequestInit::new();
    init.with_method(if body.is_some() {
        Method::Post
    } else {
        Method::Get
    })
    .with_headers(h);
    if let Some(body) = body {
        init.with_body(Some(js_sys::Uint8Array::from(body.as_slice()).into()));
    }
    let req = Request::new_with_init("https://object.internal/", &init)?;
    let mut resp = stub.fetch_with_request(req).await?;
    if resp.headers().get(protocol::OBJECT)?.is_none() {
        let cause = resp.text().await.unwrap_or_default();
        return Err(Failure::new(
            503,
            format!("{what} failed: {}", cause.trim()),
        ));
    }
    if resp.status_code() == 101 {
        // An accepted WebSocket: its client end goes on to the client.
        let ws = resp
            .websocket()
            .ok_or_else(|| Failure::new(500, format!("{what} upgraded without a WebSocket")))?;
        return Ok(Response::from_websocket(ws)?);
    }
    // The answer's headers are immutable: copy it without the marker (answers are small).
    let copy = Headers::new();
    for (k, v) in resp
        .headers()
        .entries()
        .filter(|(k, _)| k != protocol::OBJECT)
    {
        copy.append(&k, &v)?;
    }
    let status = resp.status_code();
    let body = resp.bytes().await?;
    Ok(super::http::whole(status, copy, body)?)
}
