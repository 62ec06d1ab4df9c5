//! Request bodies held whole: read within their limit and let in by the object's
//! [`Gate`] (see `crate::gate`). A body over its limit is read to its end and dropped
//! (nothing of it is kept), and answered `413`: the connection stays usable.

use futures_util::StreamExt;
use worker::{Delay, Request};

use crate::gate::{Gate, Permit, BOUND, SMALL};
use crate::worker::http::Failure;

/// The largest body of a told length read in one call rather than chunk by chunk: it is
/// held in JavaScript too while it is copied, so not the largest bodies.
const ONE_READ: usize = 1024 * 1024;

/// Waits for the gate as the platform's timers allow; `503` when the wait is too long.
async fn enter(gate: &Gate, bytes: usize) -> Result<Permit, Failure> {
    gate.enter(bytes, Delay::from)
        .await
        .map_err(|busy| Failure::new(503, busy.to_string()))
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
        format!("a Request body holds at most {}", size_text(limit)),
    )
}

/// `n` bytes in the largest unit that divides it: `32 MiB`, `512 KiB`, `1000 bytes`.
pub fn size_text(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
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
    if declared.is_some_and(|n| n > limit) {
        drain(&mut req.stream()?).await?;
        return Err(too_large(limit));
    }
    let mut permit = match declared {
        Some(n) if n > SMALL => match enter(gate, n).await {
            Ok(p) => Some(p),
            Err(busy) => {
                drain(&mut req.stream()?).await?;
                return Err(busy);
            }
        },
        _ => None,
    };
    // A body of a told length up to [`ONE_READ`] is read in one call: a stream reader
    // costs more than the bytes (several calls across to JavaScript for each chunk).
    if declared.is_some_and(|n| n <= ONE_READ) {
        let body = req.bytes().await?;
        if body.len() > limit {
            return Err(too_large(limit));
        }
        return Ok((body, permit));
    }
    let mut stream = req.stream()?;
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
            permit = Some(enter(gate, BOUND).await?);
        }
    }
    if over {
        return Err(too_large(limit));
    }
    Ok((body, permit))
}
