//! The [`Host`] of the core inside the Worker: the runtime's clock, its random source, its
//! `fetch`, and other FIFOs' objects for FIFOs run as commands.

use super::http::whole_body;
use super::method;
use crate::host::{FifoAnswer, HttpRequest, HttpResponse, LocalFuture, Timestamp};
use crate::stream::{ByteStream, Stdin};
use crate::{protocol, Host};
use futures_util::stream::Stream;
use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;
use worker::{Env, Fetch, Headers, Method, Request, RequestInit, RequestRedirect};

/// How many FIFOs a chain may pass through before it is stopped as a loop.
pub const MAX_HOPS: u32 = 16;

pub struct WorkerHost {
    pub env: Env,
    /// How many FIFOs the Request running here has passed through.
    pub hops: u32,
    /// The message, when the Request came by mail: its attachments are files.
    pub mail: Option<std::rc::Rc<crate::mail::inbound::Mail>>,
}

impl WorkerHost {
    pub fn new(env: Env, hops: u32) -> Self {
        WorkerHost {
            env,
            hops,
            mail: None,
        }
    }
}

/// The milliseconds since the epoch, as the runtime's clock has them.
pub fn now_ms() -> i64 {
    worker::Date::now().as_millis() as i64
}

/// Random bytes from Web Crypto, which the Workers runtime always has.
pub fn random_bytes(buf: &mut [u8]) {
    get_random_values(buf);
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The runtime's cryptographic random numbers, written straight into `buf`.
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values(buf: &mut [u8]);
}

/// A new Request id: 32 random hex digits.
pub fn new_request_id() -> String {
    let mut b = [0u8; 16];
    random_bytes(&mut b);
    data_encoding::HEXLOWER.encode(&b)
}

impl Host for WorkerHost {
    fn now(&self) -> Timestamp {
        let ms = now_ms();
        Timestamp {
            secs: ms.div_euclid(1000),
            nanos: (ms.rem_euclid(1000) * 1_000_000) as u32,
        }
    }

    fn fill_random(&self, buf: &mut [u8]) {
        random_bytes(buf);
    }

    fn attachment(&self, name: &str) -> Option<Vec<u8>> {
        self.mail.as_ref()?.file(name).map(<[u8]>::to_vec)
    }

    fn fetch(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, String>> {
        Box::pin(async move {
            let (head, mut resp) = send(&request).await.map_err(|e| e.to_string())?;
            let body = whole_body(&mut resp).await.map_err(|e| e.to_string())?;
            Ok(HttpResponse { body, ..head })
        })
    }

    fn fetch_stream(
        &self,
        request: HttpRequest,
    ) -> LocalFuture<'_, Result<(HttpResponse, Stdin), String>> {
        Box::pin(async move {
            let (head, mut resp) = send(&request).await.map_err(|e| e.to_string())?;
            let body = match resp.stream() {
                Ok(stream) => Stdin::outside(Box::new(PlatformStream::new(stream))),
                // No body at all (a 204, a HEAD).
                Err(_) => Stdin::default(),
            };
            Ok((head, body))
        })
    }

    fn fifo_request(
        &self,
        name: &str,
        request: HttpRequest,
    ) -> LocalFuture<'_, Result<Option<HttpResponse>, String>> {
        let name = name.to_string();
        Box::pin(async move {
            self.request_fifo(&name, request)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn call_fifo(
        &self,
        name: &str,
        args: &[Vec<u8>],
        stdin: Vec<u8>,
    ) -> LocalFuture<'_, Result<Option<FifoAnswer>, String>> {
        let name = name.to_string();
        let args = args.to_vec();
        Box::pin(async move {
            self.call(&name, &args, stdin)
                .await
                .map_err(|e| e.to_string())
        })
    }
}

impl WorkerHost {
    /// A Request to FIFO `name` at a sub-path (see [`Host::fifo_request`]). An answer
    /// that hands over to a passthrough (`X-Accel-Redirect`) is followed here: the
    /// entry module that would make it for a client is not in between.
    async fn request_fifo(
        &self,
        name: &str,
        request: HttpRequest,
    ) -> worker::Result<Option<HttpResponse>> {
        if self.hops + 1 > MAX_HOPS {
            return Err(worker::Error::RustError(format!(
                "{name}: a chain of FIFOs is limited to {MAX_HOPS} hops (a loop?)"
            )));
        }
        let headers = Headers::new();
        for (k, v) in &request.headers {
            headers.append(k, v)?;
        }
        headers.set(protocol::FIFO, name)?;
        headers.set(protocol::HOPS, &(self.hops + 1).to_string())?;
        headers.set(protocol::REQUEST_ID, &new_request_id())?;
        headers.set(protocol::SOURCE, "command")?;
        let mut init = RequestInit::new();
        init.with_headers(headers);
        if !request.body.is_empty() {
            init.with_body(Some(
                js_sys::Uint8Array::from(request.body.as_slice()).into(),
            ));
        }
        let url = format!("https://fifo.internal/{name}{}", request.url);
        let req = method::request(&url, &init, &request.method)?;
        let stub = self
            .env
            .durable_object("FIFO")?
            .id_from_name(name)?
            .get_stub()?;
        let mut resp = stub.fetch_with_request(req).await?;
        let status = resp.status_code();
        if status == 404 && resp.headers().get(protocol::NO_FIFO)?.is_some() {
            return Ok(None);
        }
        let answer_headers: Vec<(String, String)> = resp.headers().entries().collect();
        let body = whole_body(&mut resp).await?;
        let Some(target) = resp.headers().get(protocol::ACCEL_REDIRECT)? else {
            return Ok(Some(HttpResponse {
                status,
                reason: String::new(),
                headers: answer_headers,
                body,
                url,
            }));
        };
        let method = resp
            .headers()
            .get(protocol::ACCEL_METHOD)?
            .unwrap_or_else(|| "GET".into());
        let passed = HttpRequest {
            headers: answer_headers
                .iter()
                .filter_map(|(k, v)| {
                    let k = k.strip_prefix(protocol::ACCEL_HEADER_PREFIX)?;
                    Some((k.to_string(), v.clone()))
                })
                .collect(),
            body: if method == "GET" || method == "HEAD" {
                Vec::new()
            } else {
                body
            },
            method,
            url: target,
            follow_redirects: false,
        };
        let (head, mut resp) = send(&passed).await?;
        let body = whole_body(&mut resp).await?;
        Ok(Some(HttpResponse { body, ..head }))
    }

    async fn call(
        &self,
        name: &str,
        args: &[Vec<u8>],
        stdin: Vec<u8>,
    ) -> worker::Result<Option<FifoAnswer>> {
        if self.hops + 1 > MAX_HOPS {
            return Err(worker::Error::RustError(format!(
                "{name}: a chain of FIFOs is limited to {MAX_HOPS} hops (a loop?)"
            )));
        }
        let headers = Headers::new();
        headers.set(protocol::FIFO, name)?;
        headers.set(protocol::HOPS, &(self.hops + 1).to_string())?;
        headers.set(protocol::REQUEST_ID, &new_request_id())?;
        headers.set(protocol::SOURCE, "command")?;
        headers.set(protocol::ARGS, &protocol::encode_args(args))?;
        let mut init = RequestInit::new();
        init.with_method(Method::Post).with_headers(headers);
        init.with_body(Some(js_sys::Uint8Array::from(stdin.as_slice()).into()));
        let req = Request::new_with_init(&format!("https://fifo.internal/{name}/"), &init)?;
        let stub = self
            .env
            .durable_object("FIFO")?
            .id_from_name(name)?
            .get_stub()?;
        let mut resp = stub.fetch_with_request(req).await?;
        let status = resp.status_code();
        let body = whole_body(&mut resp).await?;
        if status == 404 && resp.headers().get(protocol::NO_FIFO)?.is_some() {
            return Ok(None);
        }
        Ok(Some(if (200..300).contains(&status) {
            FifoAnswer {
                status: 0,
                stdout: body,
                stderr: Vec::new(),
            }
        } else {
            let mut stderr = format!("{name}: {status} ").into_bytes();
            stderr.extend_from_slice(&body);
            if !stderr.ends_with(b"\n") {
                stderr.push(b'\n');
            }
            FifoAnswer {
                status: 1,
                stdout: Vec::new(),
                stderr,
            }
        }))
    }
}

/// A body as the platform delivers it (an answer's, or the Request's under
/// [`super::fifo::answer::BodyStream`]); an error is the runtime's own words.
pub struct PlatformStream(Rc<RefCell<Pin<Box<worker::ByteStream>>>>);

impl PlatformStream {
    pub fn new(stream: worker::ByteStream) -> Self {
        PlatformStream(Rc::new(RefCell::new(Box::pin(stream))))
    }
}

impl ByteStream for PlatformStream {
    fn next_chunk(&mut self) -> LocalFuture<'static, Result<Option<Vec<u8>>, String>> {
        let inner = self.0.clone();
        Box::pin(async move {
            match std::future::poll_fn(|cx| inner.borrow_mut().as_mut().poll_next(cx)).await {
                None => Ok(None),
                Some(Ok(chunk)) => Ok(Some(chunk)),
                Some(Err(e)) => Err(e.to_string()),
            }
        })
    }
}

/// Sends `request`: the answer's status and headers (its body empty), and the runtime's
/// Response to read the body from.
async fn send(request: &HttpRequest) -> worker::Result<(HttpResponse, worker::Response)> {
    let headers = Headers::new();
    for (name, value) in &request.headers {
        headers.append(name, value)?;
    }
    let mut init = RequestInit::new();
    init.with_headers(headers)
        .with_redirect(if request.follow_redirects {
            RequestRedirect::Follow
        } else {
            RequestRedirect::Manual
        });
    if !request.body.is_empty() {
        init.with_body(Some(
            js_sys::Uint8Array::from(request.body.as_slice()).into(),
        ));
    }
    let req = method::request(&request.url, &init, &request.method.to_ascii_uppercase())?;
    let resp = Fetch::Request(req).send().await?;
    let head = HttpResponse {
        status: resp.status_code(),
        reason: String::new(),
        headers: resp.headers().entries().collect(),
        body: Vec::new(),
        // The runtime's Response does not say where redirects led; the request's URL
        // stands in.
        url: request.url.clone(),
    };
    Ok((head, resp))
}
