//! The native [`Host`] of `mkfifo-sh`: the real clock, the OS's random bytes, and HTTP
//! through a blocking client (no FIFOs: there is no Worker to call them on); and the
//! process's standard input as a stream.

use std::io::Read;

use crate::host::{Host, HttpRequest, HttpResponse, LocalFuture, Timestamp};
use crate::stream::ByteStream;

/// The process's standard input, read in blocks as the script asks for it.
pub struct ProcessStdin;

impl ByteStream for ProcessStdin {
    fn next_chunk(&mut self) -> LocalFuture<'static, Result<Option<Vec<u8>>, String>> {
        Box::pin(async {
            let mut buf = vec![0; crate::stream::PIPE_CAPACITY];
            loop {
                return match std::io::stdin().lock().read(&mut buf) {
                    Ok(0) => Ok(None),
                    Ok(n) => {
                        buf.truncate(n);
                        Ok(Some(buf))
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(format!("standard input: {e}")),
                };
            }
        })
    }
}

#[derive(Debug, Default)]
pub struct NativeHost;

impl Host for NativeHost {
    fn now(&self) -> Timestamp {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp {
            secs: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            nanos: d.subsec_nanos(),
        }
    }

    fn fill_random(&self, buf: &mut [u8]) {
        if getrandom::fill(buf).is_err() {
            // No OS randomness at all: fail loudly rather than hand out weak keys.
            buf.iter_mut().for_each(|b| *b = 0);
            eprintln!("mkfifo-sh: no random numbers available from the operating system");
            std::process::exit(70);
        }
    }

    fn fetch(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, String>> {
        Box::pin(async move { fetch_blocking(&request) })
    }
}

fn fetch_blocking(req: &HttpRequest) -> Result<HttpResponse, String> {
    use ureq::ResponseExt;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(if req.follow_redirects { 20 } else { 0 })
        .max_redirects_will_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(60)))
        .build()
        .into();
    let mut builder = ureq::http::Request::builder()
        .method(req.method.as_str())
        .uri(&req.url);
    for (k, v) in &req.headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    let request = builder
        .body(req.body.clone())
        .map_err(|e| format!("bad request: {e}"))?;
    let mut resp = agent.run(request).map_err(|e| describe(&e, &req.url))?;
    let url = resp.get_uri().to_string();
    let status = resp.status();
    let headers = resp
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let body = resp
        .body_mut()
        .with_config()
        .limit(1 << 30)
        .read_to_vec()
        .map_err(|e| describe(&e, &req.url))?;
    Ok(HttpResponse {
        status: status.as_u16(),
        reason: status.canonical_reason().unwrap_or("").to_string(),
        headers,
        body,
        url,
    })
}

/// A transport error in curl's words where there is an equivalent.
fn describe(e: &ureq::Error, url: &str) -> String {
    let host = url
        .split("://")
        .nth(1)
        .and_then(|r| r.split(['/', ':', '?']).next())
        .unwrap_or(url);
    match e {
        ureq::Error::HostNotFound => format!("Could not resolve host: {host}"),
        ureq::Error::ConnectionFailed => format!("Failed to connect to {host}"),
        ureq::Error::Timeout(_) => "Operation timed out".to_string(),
        _ if url.starts_with("https://") => {
            format!("{url}: mkfifo-sh speaks plain HTTP only (the Worker speaks HTTPS)")
        }
        other => other.to_string(),
    }
}
