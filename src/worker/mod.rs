//! The Workers runtime glue (wasm32 only): the Worker's fetch handler for `/_/...` and
//! `/bin/sh`, and the Durable Objects. `js/entry.mjs` routes FIFO Requests to the objects
//! directly and calls [`fetch`] for the rest.

mod account;
mod api;
mod fifo;
mod host;
mod http;
mod shell;

pub use account::Account;
pub use fifo::Fifo;

use wasm_bindgen::prelude::wasm_bindgen;
use worker::{event, Context, Env, Request, Response, Result};

/// Why `name` cannot be a FIFO's name, for the entry module's routing (one rule, in Rust).
#[wasm_bindgen(js_name = fifoNameError)]
pub fn fifo_name_error(name: &str) -> Option<String> {
    crate::names::fifo_name_error(name)
}

#[event(fetch)]
pub async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
    install_panic_bridge();
    let path = req.path();
    let answer = if let Some(rest) = path.strip_prefix("/_/api/") {
        api::handle(req, &env, rest).await
    } else if path == "/bin/sh" {
        shell::handle(req, &env).await
    } else if path == "/_/stats" || path.starts_with("/_/stats/") {
        stats(&env, &path).await
    } else if let Some(rest) = path.strip_prefix("/_/fault/") {
        fault(&env, rest).await
    } else {
        Err(http::Failure::new(404, "not found"))
    };
    answer.or_else(|failure| failure.into_response())
}

/// The step budget of one Request (`MKFIFO_STEPS`).
pub(crate) fn steps(env: &Env) -> u64 {
    env.var("MKFIFO_STEPS")
        .ok()
        .and_then(|v| v.to_string().parse().ok())
        .unwrap_or(crate::budget::DEFAULT_LIMIT)
}

/// `/_/stats` (the isolate's WebAssembly memory) and `/_/stats/fifo/NAME` (also that FIFO's
/// SQLite size and queue), when the operator turned them on with `MKFIFO_STATS=1`.
async fn stats(env: &Env, path: &str) -> std::result::Result<Response, http::Failure> {
    let on = env
        .var("MKFIFO_STATS")
        .map(|v| v.to_string() == "1")
        .unwrap_or(false);
    if !on {
        return Err(http::Failure::new(404, "not found"));
    }
    if let Some(name) = path.strip_prefix("/_/stats/fifo/") {
        let headers = worker::Headers::new();
        headers.set(crate::protocol::OP, "stats")?;
        headers.set(crate::protocol::FIFO, name)?;
        let mut init = worker::RequestInit::new();
        init.with_headers(headers);
        let req = Request::new_with_init("https://fifo.internal/stats", &init)?;
        let stub = env.durable_object("FIFO")?.id_from_name(name)?.get_stub()?;
        return Ok(stub.fetch_with_request(req).await?);
    }
    Ok(http::json(
        200,
        &serde_json::json!({ "wasm_memory_bytes": wasm_memory_bytes() }),
    )?)
}

/// The size of this isolate's WebAssembly linear memory.
pub(crate) fn wasm_memory_bytes() -> f64 {
    let memory = wasm_bindgen::memory();
    js_sys::Reflect::get(&memory, &"buffer".into())
        .and_then(|b| js_sys::Reflect::get(&b, &"byteLength".into()))
        .ok()
        .and_then(|n| n.as_f64())
        .unwrap_or(0.0)
}

/// Whether the operator allowed injected faults (`MKFIFO_FAULTS=1`): the tests use them to
/// check that a crash of the Worker or of an object reaches the client as a 503.
pub(crate) fn faults_allowed(env: &Env) -> bool {
    env.var("MKFIFO_FAULTS")
        .map(|v| v.to_string() == "1")
        .unwrap_or(false)
}

/// `/_/fault/panic` crashes the Worker (FIFO objects are crashed by the entry module).
async fn fault(env: &Env, what: &str) -> std::result::Result<Response, http::Failure> {
    if !faults_allowed(env) || what != "panic" {
        return Err(http::Failure::new(404, "not found"));
    }
    panic!("fault injected into the Worker");
}

/// Makes a Rust panic reject the request at once (the entry module answers 503) instead of
/// leaving it hanging until the runtime gives up on it.
pub(crate) fn install_panic_bridge() {
    use wasm_bindgen::JsCast;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            let hook = js_sys::Reflect::get(&js_sys::global(), &"__onRustPanic".into());
            if let Ok(hook) = hook.and_then(|f| f.dyn_into::<js_sys::Function>()) {
                let _ = hook.call1(&wasm_bindgen::JsValue::NULL, &info.to_string().into());
            }
        }));
    });
}
