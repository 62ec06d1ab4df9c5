//! The Fifo object: one Durable Object per FIFO, found by the FIFO's name. It keeps the
//! envelope, the variables and the Request log in its SQLite storage ([`store`]), answers
//! the JSON API's operations on them, and serves every Request written into the FIFO.

mod answer;
mod body;
mod deliver;
pub use body::size_text;
mod live;
mod mail;
mod replay;
mod schedule;
mod serve;
mod store;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::Deserialize;
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, State, WebSocket,
    WebSocketIncomingMessage,
};

use super::host::{now_ms, WorkerHost};
use super::http::{json, Failure};
use crate::envelope::run::{self, Plan};
use crate::envelope::{self, Compiled, Destination, Incoming};
use crate::protocol::{self, FifoCall, FifoOp, FifoSummary};
use crate::shell::{CacheStats, Shell};
use store::{DeliveryState, Remembered, Store};

/// The largest Request body a FIFO holds whole (to store it, or to pick values out of it);
/// a larger one gets 413.
pub const MAX_BODY: usize = 32 * 1024 * 1024;

/// The largest Request body a FIFO takes as a stream, straight into its script: what the
/// platform lets a Worker receive.
pub const MAX_STREAMED_BODY: usize = 100 * 1024 * 1024;

/// The body limits of this deployment: `MKFIFO_MAX_BODY` (bytes) lowers both.
#[derive(Clone, Copy)]
pub(super) struct Limits {
    pub streamed: usize,
    pub held: usize,
}

impl Limits {
    pub fn of(env: &Env) -> Self {
        let set = env
            .var("MKFIFO_MAX_BODY")
            .ok()
            .and_then(|v| v.to_string().trim().parse::<usize>().ok())
            .unwrap_or(MAX_STREAMED_BODY)
            .min(MAX_STREAMED_BODY);
        Limits {
            streamed: set,
            held: set.min(MAX_BODY),
        }
    }
}

/// What the deployment's variables say, read once when the object starts (a reading costs
/// several calls across to JavaScript, and new variables come with a new deployment,
/// which starts new objects).
struct Settings {
    limits: Limits,
    steps: u64,
    faults: bool,
}

impl Settings {
    fn of(env: &Env) -> Self {
        Settings {
            limits: Limits::of(env),
            steps: super::steps(env),
            faults: super::faults_allowed(env),
        }
    }
}

#[durable_object]
pub struct Fifo {
    /// Shared with the store's listener, which tells the editors of each logged Request.
    state: Rc<State>,
    env: Env,
    settings: Settings,
    /// The parsed envelope and the `updated_at` it was parsed at.
    envelope: RefCell<Option<(i64, Rc<Compiled>)>>,
    /// The shell, kept for its parse caches. It is taken out while a script runs: another
    /// Request may arrive while one waits on the network, and gets a fresh shell.
    shell: Rc<RefCell<Option<Shell>>>,
    /// Takes turns among large bodies held whole.
    gate: crate::gate::Gate,
    /// What the store need not read again.
    remembered: Rc<Remembered>,
    /// Whether an editor's live log may be open.
    editors: Rc<live::Editors>,
    /// Since the object started, for `/_/stats`.
    counts: Counts,
}

/// What the object did since it started.
#[derive(Default)]
struct Counts {
    requests: Cell<u64>,
    envelope: Cell<CacheStats>,
}

impl DurableObject for Fifo {
    fn new(state: State, env: Env) -> Self {
        super::install_panic_bridge();
        Fifo {
            state: Rc::new(state),
            settings: Settings::of(&env),
            env,
            envelope: RefCell::new(None),
            shell: Rc::default(),
            gate: crate::gate::Gate::default(),
            remembered: Rc::default(),
            editors: Rc::default(),
            counts: Counts::default(),
        }
    }

    async fn alarm(&self) -> Result<Response> {
        self.write_unwritten();
        self.run_alarm().await?;
        Response::ok("")
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        self.write_unwritten();
        let op = req.headers().get(protocol::OP)?;
        let mut resp = match op {
            Some(op) => match serde_json::from_str::<FifoCall>(&op) {
                Ok(call) => self.api(call, req).await,
                Err(e) => Err(Failure::new(400, format!("bad operation: {e}"))),
            }
            .or_else(Failure::into_response)?,
            None => self.serve(req).await.or_else(Failure::into_text_response)?,
        };
        resp.headers_mut().set(protocol::OBJECT, "1")?;
        Ok(resp)
    }

    async fn websocket_message(
        &self,
        ws: WebSocket,
        message: WebSocketIncomingMessage,
    ) -> Result<()> {
        self.write_unwritten();
        self.live_message(&ws, message)
    }

    async fn websocket_close(
        &self,
        ws: WebSocket,
        code: usize,
        reason: String,
        _was_clean: bool,
    ) -> Result<()> {
        live::answer_close(&ws, code, &reason);
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, error: worker::Error) -> Result<()> {
        worker::console_error!("an editor's WebSocket failed: {error}");
        live::answer_close(&ws, 1011, "the connection failed");
        Ok(())
    }
}

impl Fifo {
    /// The object's storage; changes to the Request log go to the open editors.
    pub(super) fn store(&self) -> Store {
        let sql = self.state.storage().sql();
        let state = self.state.clone();
        let listened = sql.clone();
        let editors = self.editors.clone();
        Store::telling(
            sql,
            Rc::new(move |change| live::announce(&state, &listened, &editors, change)),
            self.remembered.clone(),
        )
    }

    /// Writes the log entries of answers already sent, before anything else the object
    /// does: every read of the log then sees them (see [`Store::log_soon`]).
    fn write_unwritten(&self) {
        if self.remembered.has_unwritten() {
            self.store().write_unwritten();
        }
    }

    /// An operation of the JSON API, for the caller the Worker found. A FIFO the caller
    /// may not see answers as if there were none.
    async fn api(
        &self,
        call: FifoCall,
        mut req: Request,
    ) -> std::result::Result<Response, Failure> {
        let store = self.store();
        let now = now_ms();
        let FifoCall { op, by } = call;
        let name = op.name().to_string();
        let visible = || -> std::result::Result<store::FifoRow, Failure> {
            store
                .fifo()?
                .filter(|row| by.may_see(row.owner.as_deref()))
                .ok_or_else(|| Failure::new(404, format!("no FIFO named {name}")))
        };
        match op {
            FifoOp::Put { .. } | FifoOp::Create { .. } => {
                let text = req.text().await?;
                if let Some(row) = store.fifo()? {
                    if matches!(op, FifoOp::Create { .. }) || !by.may_see(row.owner.as_deref()) {
                        return Err(Failure::new(409, format!("the name {name} is taken")));
                    }
                }
                let mut shell = self.shell.borrow_mut().take().unwrap_or_default();
                let checked = envelope::compile(&text, &mut shell);
                self.shell.borrow_mut().replace(shell);
                let compiled = match checked {
                    Ok(compiled) => compiled,
                    Err(e) => return Ok(refused_envelope(&e)?),
                };
                let created = store.put_fifo(&name, &text, by.owner(), now)?;
                self.plan_schedule(&store, compiled.schedule.as_ref(), now)?;
                self.schedule(&store).await?;
                let status = if created { 201 } else { 200 };
                Ok(json(
                    status,
                    &serde_json::json!({ "name": name, "created": created }),
                )?)
            }
            FifoOp::Get { .. } => {
                let row = visible()?;
                let vars = store.vars()?;
                Ok(json(
                    200,
                    &serde_json::json!({
                        "name": row.name,
                        "envelope": row.envelope,
                        "vars": vars,
                        "created_at": row.created_at,
                        "updated_at": row.updated_at,
                        "log_entries": store.log_len()?,
                        "next_run": store.next_run()?,
                    }),
                )?)
            }
            FifoOp::Summary { .. } => {
                let row = visible()?;
                Ok(json(
                    200,
                    &FifoSummary {
                        name: row.name,
                        created_at: row.created_at,
                        updated_at: row.updated_at,
                        last_request_at: store.last_request_at()?,
                        log_entries: store.log_len()?,
                    },
                )?)
            }
            FifoOp::Delete { .. } => {
                visible()?;
                self.state.storage().delete_alarm().await?;
                self.state.storage().delete_all().await?;
                self.remembered.forget();
                self.envelope.replace(None);
                self.close_editors();
                Ok(Response::empty()?.with_status(204))
            }
            FifoOp::PassthroughFailed { request_id, .. } => {
                // The entry module's passthrough request got no answer or an error status:
                // the log entry says so, and Errors-To hears of it.
                #[derive(Deserialize)]
                struct Failed {
                    errors_to: Vec<Destination>,
                    error: String,
                    status: Option<u16>,
                }
                let failed: Failed = serde_json::from_slice(&req.bytes().await?)
                    .map_err(|e| Failure::new(400, format!("bad passthrough report: {e}")))?;
                let incoming = Incoming {
                    fifo: name,
                    request_id,
                    ..Incoming::default()
                };
                store.update_log(
                    &incoming.request_id,
                    DeliveryState::Failed,
                    Some(&failed.error),
                    None,
                )?;
                self.report(
                    &store,
                    &incoming,
                    &failed.errors_to,
                    &failed.error,
                    failed.status,
                )?;
                self.schedule(&store).await?;
                Ok(Response::empty()?.with_status(204))
            }
            FifoOp::VarPut { ref key, .. } | FifoOp::VarDelete { ref key, .. } => {
                visible()?;
                if !envelope::is_var_name(key) || key.len() > 64 {
                    return Err(Failure::new(
                        400,
                        format!("bad variable name '{key}': use letters, digits and '_'"),
                    ));
                }
                if matches!(op, FifoOp::VarDelete { .. }) {
                    return if store.delete_var(key)? {
                        Ok(Response::empty()?.with_status(204))
                    } else {
                        Err(Failure::new(404, format!("no variable {key}")))
                    };
                }
                let value = req.bytes().await?;
                if value.len() > 64 * 1024 {
                    return Err(Failure::new(413, "a variable holds at most 64 KiB"));
                }
                store.put_var(key, &value, now)?;
                Ok(json(
                    200,
                    &serde_json::json!({ "name": key, "length": value.len() }),
                )?)
            }
            FifoOp::Live { .. } => {
                visible()?;
                if !super::auth::is_upgrade(&req)? {
                    return Err(Failure::new(
                        426,
                        "this is a WebSocket: ask for it with Upgrade: websocket",
                    ));
                }
                self.open_live()
            }
            FifoOp::Stats { .. } => {
                visible()?;
                // The shell is out while a script runs: its caches are then not counted.
                let (scripts, templates) = self
                    .shell
                    .borrow()
                    .as_ref()
                    .map(Shell::cache_stats)
                    .unwrap_or_default();
                Ok(json(
                    200,
                    &serde_json::json!({
                        "wasm_memory_bytes": super::wasm_memory_bytes(),
                        "sqlite_bytes": self.state.storage().sql().database_size(),
                        "log_entries": store.log_len()?,
                        "deliveries_pending": store.pending_deliveries()?,
                        "requests_since_start": self.counts.requests.get(),
                        "envelope_cache": CacheStats {
                            entries: usize::from(self.envelope.borrow().is_some()),
                            ..self.counts.envelope.get()
                        },
                        "script_cache": scripts,
                        "template_cache": templates,
                        "websockets": self.state.get_websockets().len(),
                        "alarm_at": self.state.storage().get_alarm().await?,
                    }),
                )?)
            }
            FifoOp::LogEntry { request_id, .. } => {
                visible()?;
                let entry = store.log_entry(&request_id)?.ok_or_else(|| {
                    Failure::new(404, format!("no Request {request_id} in the log"))
                })?;
                let deliveries = store.deliveries_of(&request_id)?;
                Ok(json(
                    200,
                    &serde_json::json!({ "name": name, "entry": entry, "deliveries": deliveries }),
                )?)
            }
            FifoOp::Log {
                limit,
                before,
                bodies,
                ..
            } => {
                visible()?;
                let limit = limit.unwrap_or(100).clamp(1, store::LOG_ROWS);
                let entries = store.log_entries(limit, before, bodies)?;
                Ok(json(
                    200,
                    &serde_json::json!({
                        "name": name,
                        "entries": entries,
                        "next_run": store.next_run()?,
                    }),
                )?)
            }
            FifoOp::Replay { request_id, .. } => {
                visible()?;
                self.replay(&store, &name, &request_id).await
            }
            FifoOp::ReplayFailed { since, .. } => {
                visible()?;
                self.replay_failed(&store, &name, since).await
            }
            FifoOp::Fault { .. } if self.settings.faults => {
                panic!("fault injected into FIFO {name}")
            }
            FifoOp::Fault { .. } => Err(Failure::new(404, "not found")),
        }
    }

    /// The envelope of the FIFO, parsed once per version of its text.
    fn compiled(&self, row: &store::FifoRow) -> std::result::Result<Rc<Compiled>, Failure> {
        let mut use_of_cache = self.counts.envelope.get();
        if let Some((at, env)) = self.envelope.borrow().as_ref() {
            if *at == row.updated_at {
                use_of_cache.hits += 1;
                self.counts.envelope.set(use_of_cache);
                return Ok(env.clone());
            }
        }
        use_of_cache.misses += 1;
        self.counts.envelope.set(use_of_cache);
        let mut shell = self.shell.borrow_mut().take().unwrap_or_default();
        let compiled = envelope::compile(&row.envelope, &mut shell);
        self.shell.borrow_mut().replace(shell);
        let env =
            Rc::new(compiled.map_err(|e| Failure::new(500, format!("stored envelope: {e}")))?);
        self.envelope.replace(Some((row.updated_at, env.clone())));
        Ok(env)
    }

    /// Runs the envelope over a Request, with the FIFO's variables and the step budget.
    /// A mail Request runs over its message's text, with its attachments as files.
    async fn run_envelope(&self, compiled: &Compiled, req: &Incoming) -> Result<Plan> {
        let fifo_vars = self.store().var_values()?;
        let req = req.as_run();
        let req = req.as_ref();
        let selected = compiled
            .selectors
            .select(req.header("content-type"), &req.body, &req.query);
        let mut host = WorkerHost::new(self.env.clone(), req.hops);
        host.mail = req.mail.clone();
        let mut shell = self.shell.borrow_mut().take().unwrap_or_default();
        let plan = run::run(
            &mut shell,
            &host,
            &compiled.envelope,
            req,
            selected,
            &fifo_vars,
            self.settings.steps,
        )
        .await;
        self.shell.borrow_mut().replace(shell);
        Ok(plan)
    }
}

/// 400 for an envelope that does not compile: `{"error": ...}`, with the `line` and
/// `column` (from 1) of a syntax error, for the editor to point at.
fn refused_envelope(e: &crate::error::Error) -> Result<Response> {
    let mut answer = serde_json::json!({ "error": format!("envelope: {e}") });
    if let crate::error::Error::Syntax { line, column, .. } = e {
        answer["line"] = (*line).into();
        answer["column"] = (*column).into();
    }
    json(400, &answer)
}
