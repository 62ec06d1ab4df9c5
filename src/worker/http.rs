//! Small helpers for requests and answers: a request's head read at once, JSON bodies,
//! error answers with a status and a message.

use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;
use worker::{Headers, Request, Response, Result};

#[wasm_bindgen(inline_js = "export function headerLines(request) {
  let lines = '';
  for (const [name, value] of request.headers) lines += name + '\\n' + value + '\\n';
  return lines;
}")]
extern "C" {
    #[wasm_bindgen(js_name = headerLines)]
    fn header_lines(request: &worker::web_sys::Request) -> String;
}

/// A request's headers (names in lower case), in one call across to JavaScript: read one
/// by one, each costs several. A name or value never holds a line break.
pub fn header_pairs(req: &Request) -> Vec<(String, String)> {
    let lines = header_lines(req.inner());
    let mut parts = lines.split('\n');
    let mut pairs = Vec::new();
    while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
        pairs.push((name.to_string(), value.to_string()));
    }
    pairs
}

/// The path and the query (without `?`) of a request's URL, as the runtime serialized it:
/// there a `?` or `#` inside the path is percent-encoded, so the first one ends it. The
/// URL need not be parsed again for these.
pub fn path_and_query(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    let rest = &url[after_scheme..];
    let rest = &rest[rest.find('/').unwrap_or(rest.len())..];
    let rest = &rest[..rest.find('#').unwrap_or(rest.len())];
    rest.split_once('?').unwrap_or((rest, ""))
}

/// A request that cannot be served, with the status and message the client gets.
#[derive(Debug)]
pub struct Failure {
    pub status: u16,
    pub message: String,
}

impl Failure {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// `{"error": MESSAGE}` with the status.
    pub fn into_response(self) -> Result<Response> {
        let mut resp = json(self.status, &serde_json::json!({ "error": self.message }))?;
        if self.status == 401 {
            resp.headers_mut().set("WWW-Authenticate", "Bearer")?;
        }
        retry_after(self.status, resp)
    }
}

impl Failure {
    /// `STATUS MESSAGE` as plain text: the answer on a FIFO's public surface.
    pub fn into_text_response(self) -> Result<Response> {
        let headers = Headers::new();
        headers.set("Content-Type", "text/plain; charset=utf-8")?;
        let body = format!("{} {}\n", self.status, self.message);
        retry_after(self.status, whole(self.status, headers, body.into_bytes())?)
    }
}

/// A `503` says when to try again.
fn retry_after(status: u16, mut resp: Response) -> Result<Response> {
    if status == 503 {
        resp.headers_mut().set("Retry-After", "1")?;
    }
    Ok(resp)
}

/// An answer whose body is known whole: it says its `Content-Length`, so that a `HEAD`
/// (whose body the runtime drops) still tells the length a `GET` would get.
pub fn whole(status: u16, headers: Headers, body: Vec<u8>) -> Result<Response> {
    headers.set("Content-Length", &body.len().to_string())?;
    let resp = if body.is_empty() {
        Response::empty()?
    } else {
        Response::from_bytes(body)?
    };
    Ok(resp.with_status(status).with_headers(headers))
}

/// Headers from the name-value pairs of an envelope or a script's CGI block.
pub fn headers_of(pairs: &[(String, String)]) -> std::result::Result<Headers, Failure> {
    let h = Headers::new();
    for (k, v) in pairs {
        h.append(k, v)
            .map_err(|e| Failure::new(500, format!("header {k}: {e}")))?;
    }
    Ok(h)
}

/// A session or token that is not (or no longer) good: one answer, whatever the cause.
pub fn not_signed_in() -> Failure {
    Failure::new(401, "not signed in: the session or token is not valid")
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Self {
        Failure::new(500, e.to_string())
    }
}

impl From<worker::Error> for Failure {
    fn from(e: worker::Error) -> Self {
        Failure::new(500, e.to_string())
    }
}

/// A JSON answer.
pub fn json<T: Serialize>(status: u16, value: &T) -> Result<Response> {
    let mut body = serde_json::to_vec_pretty(value)?;
    body.push(b'\n');
    let headers = Headers::new();
    headers.set("Content-Type", "application/json")?;
    whole(status, headers, body)
}

/// A fetched answer's body, whole. The runtime reads it in one call: `Response::bytes`
/// reads a stream chunk by chunk, each chunk several calls across to JavaScript.
pub async fn whole_body(resp: &mut Response) -> Result<Vec<u8>> {
    match resp.body() {
        worker::ResponseBody::Stream(stream) => {
            let reader = worker::web_sys::Response::new_with_opt_readable_stream(Some(stream))?;
            let buffer = wasm_bindgen_futures::JsFuture::from(reader.array_buffer()?).await?;
            Ok(js_sys::Uint8Array::new(&buffer).to_vec())
        }
        _ => resp.bytes().await,
    }
}
