//! The Workers runtime glue (wasm32 only): the Worker's fetch handler for `/`, `/_/...`
//! and `/bin/sh` (one router: `crate::route`), and the Durable Objects. `js/entry.mjs`
//! routes FIFO Requests to the objects directly and calls [`fetch`] for the rest.

mod account;
mod api;
mod auth;
mod fifo;
mod host;
mod http;
mod mailer;
mod method;
mod objects;
mod schema;
mod shell;
mod site;

pub use account::Account;
pub use fifo::Fifo;

use wasm_bindgen::prelude::wasm_bindgen;
use worker::{event, Context, Env, Request, Response, Result};

use crate::account::cookie;
use crate::protocol::{Access, FifoCall, FifoOp};
use crate::route::{self, Route};
use auth::Caller;
use http::Failure;

/// Why `name` cannot be a FIFO's name, for the entry module's routing (one rule, in Rust).
#[wasm_bindgen(js_name = fifoNameError)]
pub fn fifo_name_error(name: &str) -> Option<String> {
    crate::names::fifo_name_error(name)
}

/// `n` bytes as the FIFOs' 413 answers say it, for the entry module's own.
#[wasm_bindgen(js_name = sizeText)]
pub fn size_text(n: f64) -> String {
    fifo::size_text(n as usize)
}

#[event(fetch)]
pub async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
    install_panic_bridge();
    let url = req.url()?;
    let method = method::of(&req);
    let page = !url.path().starts_with("/_/api/") && url.path() != "/bin/sh";
    let answer = match route::route(&method, url.path(), url.query().unwrap_or("")) {
        Ok(route) => serve(route, req, &env).await,
        Err(no) => Err(Failure::new(no.status, no.message)),
    };
    answer.or_else(|failure| {
        if page && !matches!(failure.status, 404 | 405) {
            site::failure_page(failure).or_else(Failure::into_response)
        } else {
            failure.into_response()
        }
    })
}

async fn serve(route: Route, req: Request, env: &Env) -> std::result::Result<Response, Failure> {
    // Writes to the site and the API not made with a bearer token may come from a
    // browser: from this site only. (The public shell takes scripts from anywhere.)
    let public = matches!(
        route,
        Route::Shell | Route::Stats | Route::StatsFifo { .. } | Route::Fault { .. }
    );
    if !public && req.headers().get("authorization")?.is_none() {
        auth::same_origin(&req)?;
    }
    match route {
        Route::Home => site::home(&req, env).await,
        Route::SigninStart => site::start_signin(req, env).await,
        Route::SigninPage { token } => site::signin_page(&req, env, &token).await,
        Route::SigninFinish { token } => site::finish_signin(&req, env, &token).await,
        Route::Signout => site::signout(&req, env).await,
        Route::MakeFifo => {
            let caller = auth::caller(&req, env).await?;
            with_renewal(&caller, site::make_fifo(req, env, &caller).await)
        }
        Route::Edit { name } => site::edit(&req, env, name).await,
        Route::Api(api) => {
            let caller = auth::caller(&req, env).await?;
            with_renewal(&caller, api::handle(api, req, env, &caller).await)
        }
        Route::Shell => shell::handle(req, env).await,
        Route::Stats => stats(&req, env, None).await,
        Route::StatsFifo { name } => stats(&req, env, Some(name)).await,
        Route::Fault { what } => fault(env, &what).await,
    }
}

/// A session whose expiry moved gets its cookie again, with the new lifetime.
fn with_renewal(
    caller: &Caller,
    answer: std::result::Result<Response, Failure>,
) -> std::result::Result<Response, Failure> {
    let mut resp = answer?;
    if let Caller::Account {
        who,
        session: Some(value),
    } = caller
    {
        if who.renewed {
            let max_age = crate::account::SESSION_TTL_MS / 1000;
            resp.headers_mut()
                .append("Set-Cookie", &cookie::set(value, max_age))?;
        }
    }
    Ok(resp)
}

/// The step budget of one Request (`MKFIFO_STEPS`).
pub(crate) fn steps(env: &Env) -> u64 {
    env.var("MKFIFO_STEPS")
        .ok()
        .and_then(|v| v.to_string().parse().ok())
        .unwrap_or(crate::budget::DEFAULT_LIMIT)
}

/// `/_/stats` (the isolate's WebAssembly memory) and `/_/stats/fifo/NAME` (also that FIFO's
/// SQLite size and queue), when the operator turned them on with `MKFIFO_STATS=1`; for the
/// operator's token only, since a FIFO's figures say that it exists.
async fn stats(
    req: &Request,
    env: &Env,
    fifo: Option<String>,
) -> std::result::Result<Response, Failure> {
    let on = env
        .var("MKFIFO_STATS")
        .map(|v| v.to_string() == "1")
        .unwrap_or(false);
    if !on {
        return Err(Failure::new(404, "not found"));
    }
    auth::caller(req, env).await?.operator()?;
    if let Some(name) = fifo {
        let call = FifoCall {
            op: FifoOp::Stats { name },
            by: Access::Operator,
        };
        return objects::fifo(env, &call, None).await;
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
async fn fault(env: &Env, what: &str) -> std::result::Result<Response, Failure> {
    if !faults_allowed(env) || what != "panic" {
        return Err(Failure::new(404, "not found"));
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
