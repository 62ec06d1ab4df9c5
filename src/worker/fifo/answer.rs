//! `To: -` answers that go out as the script writes them, and Request bodies that go into
//! the script as the caller sends them.
//!
//! The first [`HOLD`] bytes of the output are held back: an answer that ends within them is
//! answered as a whole (with its `Content-Length`, and a script that fails is a `500`), as
//! before streaming; a longer one starts with the status and headers worked out then (the
//! envelope's, and a CGI header block at the start of the output) and goes on chunked while
//! the script runs. A script that fails after its answer started cuts the answer short (the
//! client sees a broken body, not a clean end); the log and `Errors-To` hear of it.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures_util::stream::Stream;
use worker::Response;

use super::store::{self, LogEntry, Store, LOG_BODY_BYTES};
use crate::envelope::run::{cgi_answer, script_failure, Routed, Streamed};
use crate::host::LocalFuture;
use crate::shell::{Outcome, Shell};
use crate::stream::{ByteStream, Out, Pipe, Stdin};
use crate::worker::host::{now_ms, PlatformStream, WorkerHost};
use crate::worker::http::{headers_of, whole, Failure};

/// Output held back before an answer starts: a whole pipe's worth.
pub const HOLD: usize = crate::stream::PIPE_CAPACITY;

/// What a streamed body has shown so far: its size and its first bytes, for the log.
#[derive(Default)]
pub struct BodySeen {
    pub bytes: Cell<usize>,
    pub preview: RefCell<Vec<u8>>,
}

/// The Request's body as the platform delivers it, up to `limit` bytes.
pub struct BodyStream {
    inner: PlatformStream,
    seen: Rc<BodySeen>,
    limit: usize,
}

impl BodyStream {
    pub fn new(body: worker::ByteStream, limit: usize) -> (Self, Rc<BodySeen>) {
        let seen = Rc::new(BodySeen::default());
        let stream = BodyStream {
            inner: PlatformStream::new(body),
            seen: seen.clone(),
            limit,
        };
        (stream, seen)
    }
}

impl ByteStream for BodyStream {
    fn next_chunk(&mut self) -> LocalFuture<'static, Result<Option<Vec<u8>>, String>> {
        let next = self.inner.next_chunk();
        let seen = self.seen.clone();
        let limit = self.limit;
        Box::pin(async move {
            match next.await {
                Ok(None) => Ok(None),
                Err(e) => Err(format!("the Request's body: {e}")),
                Ok(Some(chunk)) => {
                    let total = seen.bytes.get() + chunk.len();
                    seen.bytes.set(total);
                    if total > limit {
                        return Err(format!(
                            "the Request's body is larger than {}",
                            super::body::size_text(limit)
                        ));
                    }
                    let mut preview = seen.preview.borrow_mut();
                    let room = LOG_BODY_BYTES.saturating_sub(preview.len());
                    preview.extend_from_slice(&chunk[..chunk.len().min(room)]);
                    Ok(Some(chunk))
                }
            }
        })
    }
}

/// Writes down a streamed answer's end: the script's outcome and the bytes it wrote.
type OnEnd = Box<dyn FnOnce(&Outcome, usize)>;

/// Tells `Errors-To:` of a failure, once the log is written.
pub type OnFailure = Box<dyn FnOnce(&Store, &str)>;

/// The script's run and what it has written, as a stream of chunks.
struct Output {
    script: Option<LocalFuture<'static, Outcome>>,
    outcome: Rc<RefCell<Option<Outcome>>>,
    pipe: Stdin,
    /// Called once, when the output has ended (or the client went away).
    on_end: Option<OnEnd>,
    written: usize,
}

impl Output {
    /// Runs the script until it has written something more, or ended.
    fn poll_chunk(&mut self, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        if let Some(script) = &mut self.script {
            if let Poll::Ready(outcome) = script.as_mut().poll(cx) {
                self.script = None;
                self.outcome.replace(Some(outcome));
            }
        }
        let pipe = self.pipe.clone();
        let polled = std::pin::pin!(pipe.read()).poll(cx);
        match polled {
            Poll::Ready(Ok(Some(chunk))) => {
                self.written += chunk.len();
                Poll::Ready(Some(chunk))
            }
            Poll::Ready(_) if self.script.is_none() => Poll::Ready(None),
            // The output has ended but the script has not (it is reading the rest of the
            // body): it was polled above and wakes this stream when it goes on.
            Poll::Ready(_) => Poll::Pending,
            Poll::Pending => Poll::Pending,
        }
    }

    fn next(&mut self) -> impl Future<Output = Option<Vec<u8>>> + '_ {
        std::future::poll_fn(move |cx| self.poll_chunk(cx))
    }

    fn ended(&self) -> bool {
        self.script.is_none() && self.outcome.borrow().is_some()
    }

    fn finish(&mut self) -> Option<Outcome> {
        let outcome = self.outcome.borrow_mut().take()?;
        if let Some(f) = self.on_end.take() {
            f(&outcome, self.written);
        }
        Some(outcome)
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.on_end.is_some() {
            // The client stopped reading: the script stops where it is.
            self.pipe.close();
            let outcome = self.outcome.borrow_mut().take().unwrap_or(Outcome {
                status: 141,
                stdout: Vec::new(),
                stderr: b"sh: the client went away".to_vec(),
                steps: 0,
                error: None,
            });
            if let Some(f) = self.on_end.take() {
                f(&outcome, self.written);
            }
        }
    }
}

/// The chunks after the held-back beginning; an `Err` at the end when the script failed.
struct Tail {
    first: Option<Vec<u8>>,
    output: Output,
}

impl Stream for Tail {
    type Item = worker::Result<Vec<u8>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(first) = this.first.take() {
            return Poll::Ready(Some(Ok(first)));
        }
        match this.output.poll_chunk(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(chunk)) => Poll::Ready(Some(Ok(chunk))),
            Poll::Ready(None) => match this.output.finish().as_ref().and_then(script_failure) {
                Some(f) => Poll::Ready(Some(Err(worker::Error::RustError(format!(
                    "{}: {}",
                    f.what, f.message
                ))))),
                None => Poll::Ready(None),
            },
        }
    }
}

/// Where a streamed answer's end is written down, and whom it tells of a failure.
pub struct Logged {
    pub store: Store,
    pub entry: LogEntry,
    pub body: Option<Rc<BodySeen>>,
    pub started: i64,
    pub on_failure: OnFailure,
}

/// Runs the script of `plan` over `stdin` and answers with its output as it comes.
/// `shell` is given back to `slot` when the script ends.
pub async fn stream(
    plan: Streamed,
    mut shell: Shell,
    slot: Rc<RefCell<Option<Shell>>>,
    host: WorkerHost,
    stdin: Stdin,
    logged: Logged,
) -> Result<Response, Failure> {
    let pipe = Pipe::new();
    let out = Out::Pipe(pipe.clone());
    let job = plan.job;
    let script: LocalFuture<'static, Outcome> = Box::pin(async move {
        let outcome = shell.run_streams(&host, job, stdin.clone(), out).await;
        slot.borrow_mut().get_or_insert(shell);
        // What the script left of the body is read and dropped: an answer that ends while
        // the caller is still sending would cut the connection under it.
        while let Ok(Some(_)) = stdin.read().await {}
        outcome
    });
    let steps_before = plan.steps;
    let Logged {
        store,
        mut entry,
        body,
        started,
        on_failure,
    } = logged;
    let on_end = move |outcome: &Outcome, written: usize, status: u16| {
        entry.status = status;
        entry.ran(store::Ran {
            steps: steps_before + outcome.steps,
            stderr: &outcome.stderr,
        });
        entry.response_bytes = written;
        entry.duration_ms = now_ms() - started;
        if let Some(seen) = &body {
            entry.request_bytes = seen.bytes.get();
            entry.body = seen.preview.borrow().clone();
        }
        match script_failure(outcome) {
            Some(f) => {
                entry.outcome = store::Outcome::Failed;
                entry.error = format!("{}: {}", f.what, f.message);
                on_failure(&store, &entry.error);
                store.log_after_answer(&entry);
            }
            None => {
                entry.outcome = store::Outcome::Answered;
                store.log_soon(entry);
            }
        }
    };
    let mut output = Output {
        script: Some(script),
        outcome: Rc::default(),
        pipe: Stdin::pipe(pipe),
        on_end: None,
        written: 0,
    };
    let mut held = Vec::new();
    while held.len() < HOLD {
        match output.next().await {
            Some(chunk) => held.extend_from_slice(&chunk),
            None => break,
        }
    }
    if output.ended() {
        // All of it fits in what was held back: answered whole, as before streaming.
        let outcome = output.finish().unwrap_or_else(unreachable_outcome);
        if let Some(f) = script_failure(&outcome) {
            on_end(&outcome, output.written, 500);
            return Err(Failure::new(500, format!("{}: {}", f.what, f.message)));
        }
        let routed = cgi_answer(plan.status.as_deref(), plan.headers, held);
        on_end(&outcome, output.written, answer_status(&routed));
        return respond(routed, None);
    }
    let routed = cgi_answer(plan.status.as_deref(), plan.headers, held);
    let status = answer_status(&routed);
    output.on_end = Some(Box::new(move |o: &Outcome, w: usize| on_end(o, w, status)));
    respond(routed, Some(output))
}

fn answer_status(routed: &Routed) -> u16 {
    match routed {
        Routed::Answer { status, .. } => *status,
        Routed::Send { .. } => 500,
    }
}

/// An outcome for the impossible case of an ended output without one.
fn unreachable_outcome() -> Outcome {
    Outcome {
        status: 1,
        stdout: Vec::new(),
        stderr: b"sh: the script's outcome was lost".to_vec(),
        steps: 0,
        error: None,
    }
}

fn respond(routed: Routed, rest: Option<Output>) -> Result<Response, Failure> {
    let Routed::Answer {
        status,
        mut headers,
        body,
    } = routed
    else {
        return Err(Failure::new(500, "a streamed answer that is not an answer"));
    };
    let whole_body = rest.is_none().then_some(&body[..]);
    crate::conditional::resolve_auto_etag(&mut headers, whole_body);
    let h = headers_of(&headers)?;
    match rest {
        None => Ok(whole(status, h, body)?),
        Some(output) => Ok(Response::from_stream(Tail {
            first: (!body.is_empty()).then_some(body),
            output,
        })?
        .with_status(status)
        .with_headers(h)),
    }
}
