//! Request methods by name. `worker::Method` knows nine methods and reads any other
//! (PROPFIND, MKCOL, MOVE, PURGE...) as GET; a FIFO takes any method, so methods go by the
//! runtime's own string here, in and out.

use worker::web_sys;
use worker::{Request, RequestInit};

/// The method of `req` as its client sent it.
pub fn of(req: &Request) -> String {
    req.inner().method()
}

/// A Request to `url` with `init`'s headers, body and redirect mode, and method `name`.
pub fn request(url: &str, init: &RequestInit, name: &str) -> worker::Result<Request> {
    let inner = web_sys::RequestInit::from(init);
    inner.set_method(name);
    web_sys::Request::new_with_str_and_init(url, &inner)
        .map(Request::from)
        .map_err(|e| {
            worker::Error::JsError(
                e.as_string().unwrap_or_else(|| {
                    format!("invalid URL or method for a Request: {name} {url}")
                }),
            )
        })
}
