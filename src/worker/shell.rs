//! `/bin/sh`: the public shell. `GET /bin/sh?SCRIPT` runs the URL-decoded query;
//! `POST /bin/sh` runs the body, or, with a query, runs the query with the body as stdin.
//! stdout is the answer (`200`, `text/plain`); a script that fails answers `422` with its
//! stdout and then its stderr, and `X-Exit-Status`; one that does not parse, `400`.
//! Every answer says the steps it used in `X-Steps`. The entry module rate-limits callers.

use std::cell::RefCell;

use worker::{Env, Headers, Method, Request, Response};

use super::host::WorkerHost;
use super::http::Failure;
use crate::error::Error;
use crate::shell::{Job, Shell};

/// Fetches and FIFO calls one public script may make.
const MAX_SUBREQUESTS: u32 = 10;

thread_local! {
    /// The isolate's shell, kept for its parse caches.
    static SHELL: RefCell<Option<Shell>> = const { RefCell::new(None) };
}

pub async fn handle(mut req: Request, env: &Env) -> Result<Response, Failure> {
    let url = req.url()?;
    // `%XX` decoded; `+` stays `+`: a script is not a form.
    let query = url
        .query()
        .map(|q| percent_encoding::percent_decode_str(q).collect::<Vec<u8>>());
    let (script, stdin) = match (req.method(), query) {
        (Method::Get | Method::Head, Some(q)) => (q, Vec::new()),
        (Method::Get | Method::Head, None) => {
            return Err(Failure::new(
                400,
                "give a script: /bin/sh?SCRIPT, or POST it",
            ));
        }
        (Method::Post, Some(q)) => (q, req.bytes().await?),
        (Method::Post, None) => (req.bytes().await?, Vec::new()),
        (m, _) => {
            return Err(Failure::new(
                405,
                format!("{m} is not allowed here: GET or POST"),
            ))
        }
    };
    let budget = super::steps(env);
    // The shell is taken out while it runs: another request may arrive while this one
    // waits on the network, and gets a fresh shell instead of a borrowed one.
    let mut shell = SHELL.with(|s| s.borrow_mut().take()).unwrap_or_default();
    let host = WorkerHost::new(env.clone(), 0);
    let job = Job {
        script,
        arg0: b"sh".to_vec(),
        stdin,
        vars: vec![(b"TZ".to_vec(), b"UTC".to_vec())],
        budget,
        max_subrequests: MAX_SUBREQUESTS,
        ..Job::default()
    };
    let outcome = shell.run(&host, job).await;
    SHELL.with(|s| s.borrow_mut().replace(shell));

    let status = match (&outcome.error, outcome.status) {
        (Some(Error::Syntax { .. }), _) => 400,
        (_, 0) => 200,
        _ => 422,
    };
    let mut body = outcome.stdout;
    if status != 200 {
        body.extend_from_slice(&outcome.stderr);
    }
    let headers = Headers::new();
    headers.set("Content-Type", "text/plain; charset=utf-8")?;
    headers.set("X-Exit-Status", &outcome.status.to_string())?;
    headers.set("X-Steps", &outcome.steps.to_string())?;
    headers.set("Cache-Control", "no-store")?;
    Ok(super::http::whole(status, headers, body)?)
}
