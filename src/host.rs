//! What the core needs from the place it runs in: the clock, randomness and the network.
//!
//! The Worker implements [`Host`] with the Workers runtime (`fetch`, Durable Object stubs);
//! `mkfifo-sh` implements it natively; tests use [`FixedHost`]. Builtins reach the network
//! only through the shell, which counts each request (see [`crate::builtins::Net`]).

use std::future::Future;
use std::pin::Pin;

/// A boxed future that need not be `Send`: the Workers runtime is single-threaded.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// A point in time: seconds and nanoseconds since the Unix epoch, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Timestamp {
    pub secs: i64,
    pub nanos: u32,
}

/// An outgoing HTTP request, as `curl`, `cat URL` or the envelope's `To:` makes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    /// Header names as given; several with one name are kept in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Follow 3xx answers (`curl -L`); otherwise a redirect is the answer.
    pub follow_redirects: bool,
}

impl HttpRequest {
    pub fn get(url: impl Into<String>) -> Self {
        HttpRequest {
            method: "GET".into(),
            url: url.into(),
            ..Default::default()
        }
    }
}

/// The answer to an [`HttpRequest`], whole.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HttpResponse {
    pub status: u16,
    /// The reason phrase when the transport gives one (natively), else empty.
    pub reason: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The URL that answered, after any redirects that were followed.
    pub url: String,
}

impl HttpResponse {
    /// The answer without its body, and the body as a stream of bytes known in full.
    pub fn into_stream(mut self) -> (HttpResponse, crate::stream::Stdin) {
        let body = std::mem::take(&mut self.body);
        (self, crate::stream::Stdin::bytes(body))
    }

    /// The first header named `name`, compared without regard to case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The runtime's services, as the core sees them.
pub trait Host {
    /// The current time. In the Worker it does not move during a Request.
    fn now(&self) -> Timestamp;
    /// Fills `buf` with cryptographically secure random bytes.
    fn fill_random(&self, buf: &mut [u8]);
    /// Performs an HTTP request. `Err` is a transport failure (no answer at all), with a
    /// message in the style of curl's (`Could not resolve host: x`).
    fn fetch(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, String>>;
    /// As [`Host::fetch`], with the body as a stream to read as it comes (the answer's
    /// `body` is then empty). The Worker hands over the platform's stream, so that a large
    /// download is never held whole; by default the body is fetched whole.
    fn fetch_stream(
        &self,
        request: HttpRequest,
    ) -> LocalFuture<'_, Result<(HttpResponse, crate::stream::Stdin), String>> {
        Box::pin(async move { Ok(self.fetch(request).await?.into_stream()) })
    }
    /// Runs FIFO `name` as a command (`NAME ARGS` in a script): `stdin` is the Request's
    /// body and `args` its `$1...`. `Ok(None)` when there is no FIFO of that name, so the
    /// shell reports "command not found".
    fn call_fifo(
        &self,
        name: &str,
        args: &[Vec<u8>],
        stdin: Vec<u8>,
    ) -> LocalFuture<'_, Result<Option<FifoAnswer>, String>> {
        let _ = (name, args, stdin);
        Box::pin(async { Ok(None) })
    }
    /// A Request to FIFO `name` as a file system (`cat NAME:path`, `rcat`, `lsjson`):
    /// `request.url` is the sub-path (`/dir/a.json`), and the answer is the FIFO's, a
    /// passthrough followed. `Ok(None)` when there is no FIFO of that name.
    fn fifo_request(
        &self,
        name: &str,
        request: HttpRequest,
    ) -> LocalFuture<'_, Result<Option<HttpResponse>, String>> {
        let _ = (name, request);
        Box::pin(async { Ok(None) })
    }
    /// The bytes of attachment `name` of the mail Request being run
    /// (`cat attachment:NAME`); `None` when there is no such one.
    fn attachment(&self, name: &str) -> Option<Vec<u8>> {
        let _ = name;
        None
    }
}

/// What a FIFO run as a command gave back.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FifoAnswer {
    pub status: crate::error::Status,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// A host for tests: a fixed clock, a repeatable random stream, and no network.
#[derive(Debug, Default)]
pub struct FixedHost {
    pub now: Timestamp,
}

impl Host for FixedHost {
    fn now(&self) -> Timestamp {
        self.now
    }

    fn fill_random(&self, buf: &mut [u8]) {
        // Not random at all: tests want the same bytes every run.
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(151).wrapping_add(7);
        }
    }

    fn fetch(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, String>> {
        Box::pin(async move { Err(format!("no network in tests: {}", request.url)) })
    }
}
