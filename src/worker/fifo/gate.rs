//! Request bodies held whole, read within their limit and admitted by a gate.
//!
//! A body the envelope needs whole (for selectors, for a durable delivery, for mail) sits
//! in the object's memory while its Request runs. An isolate has 128 MB for everything, so
//! the large ones (over [`SMALL`]) take turns: they are let in, in order of arrival, while
//! those inside add up to at most [`BOUND`], and one that waits [`MAX_WAIT`] without being
//! let in gets `503` with `Retry-After`. A body over its limit is read to its end and
//! dropped (nothing of it is kept), and answered `413`: the connection stays usable.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use futures_util::StreamExt;
use worker::{Delay, Request};

use crate::worker::http::Failure;

/// Bodies up to this size pass without waiting.
pub const SMALL: usize = 64 * 1024;
/// How many bytes of large bodies an object holds at once.
pub const BOUND: usize = 16 * 1024 * 1024;
/// How long a large body waits to be let in.
pub const MAX_WAIT: Duration = Duration::from_secs(20);
/// How often a waiting body looks again.
const POLL: Duration = Duration::from_millis(5);

/// The gate of one object.
#[derive(Default)]
pub struct Gate {
    inside: Rc<Cell<usize>>,
    /// Tickets of the bodies waiting, in order of arrival.
    queue: Rc<RefCell<VecDeque<u64>>>,
    next_ticket: Cell<u64>,
}

/// A large body's place inside the gate, given back when dropped.
pub struct Permit {
    inside: Rc<Cell<usize>>,
    bytes: usize,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.inside.set(self.inside.get() - self.bytes);
    }
}

impl Gate {
    /// Waits until `bytes` of body may be held (at once when nothing else is inside).
    pub async fn enter(&self, bytes: usize) -> Result<Permit, Failure> {
        let bytes = bytes.min(BOUND);
        let ticket = self.next_ticket.get();
        self.next_ticket.set(ticket + 1);
        self.queue.borrow_mut().push_back(ticket);
        let mut waited = Duration::ZERO;
        loop {
            let first = self.queue.borrow().front() == Some(&ticket);
            let inside = self.inside.get();
            if first && (inside == 0 || inside + bytes <= BOUND) {
                self.queue.borrow_mut().pop_front();
                self.inside.set(inside + bytes);
                return Ok(Permit {
                    inside: self.inside.clone(),
                    bytes,
                });
            }
            if waited >= MAX_WAIT {
                self.queue.borrow_mut().retain(|t| *t != ticket);
                return Err(Failure::new(
                    503,
                    format!(
                        "too many large bodies at once: none let in within {} s, try again",
                        MAX_WAIT.as_secs()
                    ),
                ));
            }
            Delay::from(POLL).await;
            waited += POLL;
        }
    }
}

/// Reads what is left of a body and drops it.
pub async fn drain(stream: &mut worker::ByteStream) -> Result<(), Failure> {
    while let Some(chunk) = stream.next().await {
        chunk?;
    }
    Ok(())
}

/// What an over-limit body is told.
pub fn too_large(limit: usize) -> Failure {
    Failure::new(
        413,
        format!("a Request body holds at most {} MiB", limit >> 20),
    )
}

/// Reads `req`'s body whole, at most `limit` bytes, letting it through `gate` when it is
/// large: by its `Content-Length`, or once a body of unknown length passes [`SMALL`] (it
/// is then counted as [`BOUND`]: it may grow to any size within the limit).
pub async fn read_held(
    gate: &Gate,
    req: &mut Request,
    limit: usize,
) -> Result<(Vec<u8>, Option<Permit>), Failure> {
    let declared: Option<usize> = req
        .headers()
        .get("content-length")?
        .and_then(|v| v.trim().parse().ok());
    if req.inner().body().is_none() {
        return Ok((Vec::new(), None));
    }
    let mut stream = req.stream()?;
    if declared.is_some_and(|n| n > limit) {
        drain(&mut stream).await?;
        return Err(too_large(limit));
    }
    let mut permit = match declared {
        Some(n) if n > SMALL => match gate.enter(n).await {
            Ok(p) => Some(p),
            Err(busy) => {
                drain(&mut stream).await?;
                return Err(busy);
            }
        },
        _ => None,
    };
    let mut body = Vec::with_capacity(declared.unwrap_or(0).min(limit));
    let mut over = false;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if over {
            continue; // read to the end and dropped
        }
        if body.len() + chunk.len() > limit {
            over = true;
            body = Vec::new();
            continue;
        }
        body.extend_from_slice(&chunk);
        if permit.is_none() && body.len() > SMALL {
            permit = Some(gate.enter(BOUND).await?);
        }
    }
    if over {
        return Err(too_large(limit));
    }
    Ok((body, permit))
}
