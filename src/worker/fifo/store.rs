//! All SQL of the Fifo object: its migrations (applied by `worker::schema`), the FIFO
//! row, its variables and its Request log. A FIFO that does not exist has no tables at
//! all: looking at a missing FIFO writes nothing.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use base64::Engine;
use serde::{Deserialize, Serialize};
use worker::{SqlStorage, SqlStorageValue};

use crate::worker::schema;

/// The migrations, in order; `schema_version` counts how many have been applied.
const MIGRATIONS: &[&str] = &[
    // 1: the FIFO, its variables, its Request log.
    "CREATE TABLE fifo (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        name TEXT NOT NULL,
        envelope TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE vars (
        key TEXT PRIMARY KEY,
        value BLOB NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        request_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        source TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        status INTEGER NOT NULL,
        request_bytes INTEGER NOT NULL,
        response_bytes INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        body BLOB,
        body_cut INTEGER NOT NULL DEFAULT 0
    );",
    // 2: durable delivery: Requests waiting to be run, outgoing requests and their attempts.
    "CREATE TABLE requests (
        request_id TEXT PRIMARY KEY,
        received_at INTEGER NOT NULL,
        meta TEXT NOT NULL,
        body BLOB NOT NULL
    );
    CREATE TABLE deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        request_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        purpose TEXT NOT NULL,
        destination TEXT NOT NULL,
        outgoing TEXT NOT NULL,
        body BLOB NOT NULL,
        reply_to TEXT NOT NULL,
        errors_to TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        next_at INTEGER NOT NULL,
        last_status INTEGER,
        last_error TEXT,
        UNIQUE (request_id, seq)
    );
    CREATE INDEX deliveries_due ON deliveries (state, next_at);
    CREATE TABLE attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id INTEGER NOT NULL,
        at INTEGER NOT NULL,
        status INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL
    );
    CREATE INDEX attempts_of ON attempts (delivery_id);
    ALTER TABLE log ADD COLUMN steps INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE log ADD COLUMN delivery TEXT NOT NULL DEFAULT '';
    ALTER TABLE log ADD COLUMN error TEXT NOT NULL DEFAULT '';",
    // 3: a mail Request's sender and subject.
    "ALTER TABLE log ADD COLUMN mail_from TEXT NOT NULL DEFAULT '';
    ALTER TABLE log ADD COLUMN subject TEXT NOT NULL DEFAULT '';",
    // 4: the account that owns the FIFO (NULL: the operator's).
    "ALTER TABLE fifo ADD COLUMN owner TEXT;",
    // 5: a Request's headers (JSON pairs; credentials not kept) and query, for the editor.
    "ALTER TABLE log ADD COLUMN headers TEXT NOT NULL DEFAULT '';
    ALTER TABLE log ADD COLUMN query TEXT NOT NULL DEFAULT '';",
    // 6: what the script wrote to stderr (its beginning) and how much it wrote.
    "ALTER TABLE log ADD COLUMN stderr BLOB NOT NULL DEFAULT x'';
    ALTER TABLE log ADD COLUMN stderr_bytes INTEGER NOT NULL DEFAULT 0;",
    // 7: replays (the Request a Request sends again, and the whole bodies to send again
    // that are longer than the log keeps), a note on a Request (a late scheduled run), and
    // when the envelope's `Schedule:` runs next.
    "ALTER TABLE log ADD COLUMN replay_of TEXT NOT NULL DEFAULT '';
    ALTER TABLE log ADD COLUMN note TEXT NOT NULL DEFAULT '';
    CREATE INDEX log_replay_of ON log (replay_of);
    CREATE TABLE bodies (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        request_id TEXT NOT NULL UNIQUE,
        body BLOB NOT NULL
    );
    ALTER TABLE fifo ADD COLUMN next_run INTEGER;",
    // 8: bodies longer than one SQLite value holds: a row keeps the first piece, and
    // `pieces` the rest, in order, under the row's owner name (`Store::pieced`); a kept
    // body's whole length (0 in rows from before: their length is the row's).
    "CREATE TABLE pieces (
        owner TEXT NOT NULL,
        n INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (owner, n)
    );
    ALTER TABLE bodies ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;",
    // 9: every kept body's whole length in `bytes`, and an index of them by row: finding
    // the bodies beyond the keep's limits then reads the index alone. (In the row, `bytes`
    // comes after the body, and SQLite reaches it through every page of a long body.)
    "UPDATE bodies SET bytes = length(body) WHERE bytes = 0;
    CREATE INDEX bodies_bytes ON bodies (id, bytes);",
];

/// A body longer than this is stored in pieces: SQLite in a Durable Object holds at most
/// 2 MB in one value.
pub const PIECE_BYTES: usize = 1_000_000;

/// How many Requests the log keeps; the oldest are dropped first.
pub const LOG_ROWS: i64 = 1000;

/// How much of a Request's body the log keeps; the rest is marked as cut.
pub const LOG_BODY_BYTES: usize = 64 * 1024;

/// Whole bodies longer than [`LOG_BODY_BYTES`] (and held whole) are kept apart to be
/// replayed: those of the newest [`KEPT_BODIES`] such Requests, and no more than
/// [`KEPT_BODY_BYTES`] of them in all.
pub const KEPT_BODIES: i64 = 100;
pub const KEPT_BODY_BYTES: i64 = 32 * 1024 * 1024;

/// How much of what a script wrote to stderr the log keeps.
pub const LOG_STDERR_BYTES: usize = 16 * 1024;

/// How much of it a list of entries (and the live log) shows; an opened entry shows all
/// that is kept.
const LIST_STDERR_BYTES: usize = 1024;

/// The largest integer JavaScript holds exactly: SQL values cross into JS as numbers.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

#[derive(Clone)]
pub struct Store {
    sql: SqlStorage,
    /// Told of each new or changed log entry (the editors' live log).
    on_log: Option<LogListener>,
    remembered: Rc<Remembered>,
    /// Set by each write to what the alarm is for (Requests waiting, deliveries, the
    /// schedule's next run): only then must the alarm be set again.
    queue_changed: Rc<Cell<bool>>,
}

/// The FIFO's variables, names and values, as the envelope runs with them.
pub type VarValues = Rc<[(Vec<u8>, Vec<u8>)]>;

/// What the object remembers of its storage from one Request to the next, so that a
/// Request does not read again what has not changed: that the schema is current, the
/// FIFO's row, its variables. Only the object writes its storage, and every write of these
/// goes through [`Store`], which forgets what it changes; a crash starts a new instance.
/// Also the log entries of answers already on their way ([`Store::log_soon`]).
#[derive(Default)]
pub struct Remembered {
    schema: schema::Known,
    /// `Some(None)`: known to hold no FIFO.
    fifo: RefCell<Option<Option<FifoRow>>>,
    vars: RefCell<Option<VarValues>>,
    unwritten: RefCell<Vec<LogEntry>>,
}

impl Remembered {
    /// Whether log entries wait to be written ([`Store::log_soon`]).
    pub fn has_unwritten(&self) -> bool {
        !self.unwritten.borrow().is_empty()
    }

    /// Forgets everything: the storage was emptied.
    pub fn forget(&self) {
        self.schema.forget();
        self.fifo.replace(None);
        self.vars.replace(None);
    }
}

/// What is told of changes to the Request log.
pub type LogListener = Rc<dyn Fn(LogChange)>;

/// A change to the Request log.
#[derive(Debug, Clone, Copy)]
pub enum LogChange<'a> {
    /// A Request was logged: its entry's id.
    Added(i64),
    /// A Request's entry changed: its Request id.
    Updated(&'a str),
}

/// Request headers whose values the log never keeps: a caller's credentials.
pub(super) const UNKEPT_HEADERS: &[&str] = &["authorization", "cookie", "proxy-authorization"];

/// The most of a Request's headers that the log keeps.
const LOG_HEADER_BYTES: usize = 16 * 1024;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FifoRow {
    pub name: String,
    pub envelope: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// The owning account's object id; `None` for a FIFO of the operator's.
    pub owner: Option<String>,
}

/// A variable as the API shows it: never its value.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VarInfo {
    pub name: String,
    pub length: i64,
    pub updated_at: i64,
}

/// How a Request went, as its log entry says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Outcome {
    /// Taken with 202, to be run and delivered by the alarm.
    #[default]
    Accepted,
    /// Answered to the caller (`To: -`).
    Answered,
    /// The script or a destination failed.
    Failed,
    /// Refused: it had passed through too many FIFOs.
    Loop,
    /// The empty envelope answered the body back.
    Echo,
    /// Answered by the entry module's passthrough request.
    Passthrough,
    /// Relayed to a URL or a FIFO, whose answer the caller got.
    Relayed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Accepted => "accepted",
            Outcome::Answered => "answered",
            Outcome::Failed => "failed",
            Outcome::Loop => "loop",
            Outcome::Echo => "echo",
            Outcome::Passthrough => "passthrough",
            Outcome::Relayed => "relayed",
        }
    }
}

/// Where a Request's deliveries stand, in its log entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DeliveryState {
    /// It has none.
    #[default]
    None,
    Pending,
    Delivered,
    /// Answered to the caller while its script ran from the queue.
    Answered,
    Failed,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::None => "",
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Answered => "answered",
            DeliveryState::Failed => "failed",
        }
    }
}

/// One Request of the log, as stored.
#[derive(Debug, Clone, Default)]
pub struct LogEntry {
    pub request_id: String,
    pub at: i64,
    pub source: String,
    pub method: String,
    pub path: String,
    pub status: u16,
    pub request_bytes: usize,
    pub response_bytes: usize,
    pub duration_ms: i64,
    pub outcome: Outcome,
    pub steps: u64,
    pub delivery: DeliveryState,
    /// Why the Request failed, if it did.
    pub error: String,
    pub headers: Vec<(String, String)>,
    /// The query string, without `?`.
    pub query: String,
    pub body: Vec<u8>,
    /// For mail: the From address and the Subject.
    pub mail_from: String,
    pub subject: String,
    /// The first [`LOG_STDERR_BYTES`] of what the script wrote to stderr, and how much
    /// it wrote in all.
    pub stderr: Vec<u8>,
    pub stderr_bytes: usize,
    /// The Request this one replays (its id), if it is a replay.
    pub replay_of: String,
    /// Something to know about the Request (a scheduled run that came late).
    pub note: String,
}

/// What running a Request's envelope spent and what its script wrote to stderr: what its
/// log entry keeps of the run.
#[derive(Debug, Clone, Copy)]
pub struct Ran<'a> {
    pub steps: u64,
    pub stderr: &'a [u8],
}

impl Ran<'_> {
    /// The part of stderr the log keeps.
    fn kept_stderr(&self) -> &[u8] {
        &self.stderr[..self.stderr.len().min(LOG_STDERR_BYTES)]
    }
}

impl LogEntry {
    /// Writes down a run of the envelope.
    pub fn ran(&mut self, ran: Ran) {
        self.steps = ran.steps;
        self.stderr = ran.kept_stderr().to_vec();
        self.stderr_bytes = ran.stderr.len();
    }
}

/// One Request of the log, as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LogRow {
    pub id: i64,
    pub request_id: String,
    pub at: i64,
    pub source: String,
    pub method: String,
    pub path: String,
    pub status: i64,
    pub request_bytes: i64,
    pub response_bytes: i64,
    pub duration_ms: i64,
    pub outcome: String,
    pub steps: i64,
    pub delivery: String,
    pub error: String,
    /// For mail: the From address and the Subject.
    #[serde(rename = "from", skip_serializing_if = "String::is_empty")]
    pub mail_from: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub subject: String,
    /// What the script wrote to stderr, as text (invalid UTF-8 replaced): as much as the
    /// log keeps in an opened entry, its first KiB in a list. `stderr_bytes`: how much it
    /// wrote in all.
    pub stderr: String,
    pub stderr_bytes: i64,
    /// The Request this one replays, if it is a replay.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub replay_of: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// The body as text (invalid UTF-8 replaced), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// A body that is not UTF-8, as it was (in base64), when asked for: to resend it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_base64: Option<String>,
    pub body_cut: bool,
    /// The Request's headers as `[name, value]` pairs, and its query, with the body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<(String, String)>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

/// Which entries of the log a query reads.
#[derive(Clone, Copy)]
enum Among<'a> {
    /// The newest before an id (all when `None`), newest first.
    Before(Option<i64>),
    /// Those after an id, oldest first.
    After(i64),
    Id(i64),
    RequestId(&'a str),
}

impl Store {
    pub fn new(sql: SqlStorage) -> Self {
        Store {
            sql,
            on_log: None,
            remembered: Rc::default(),
            queue_changed: Rc::default(),
        }
    }

    /// A store that tells `on_log` of each change to the Request log, and reads through
    /// what the object `remembered`.
    pub fn telling(sql: SqlStorage, on_log: LogListener, remembered: Rc<Remembered>) -> Self {
        Store {
            sql,
            on_log: Some(on_log),
            remembered,
            queue_changed: Rc::default(),
        }
    }

    /// Whether this store wrote anything that the alarm is for.
    pub fn queue_changed(&self) -> bool {
        self.queue_changed.get()
    }

    fn tell(&self, change: LogChange) {
        if let Some(on_log) = &self.on_log {
            on_log(change);
        }
    }

    /// Applies the migrations this object has not seen yet.
    pub fn migrate(&self) -> worker::Result<()> {
        self.remembered.schema.migrate(&self.sql, MIGRATIONS)
    }

    /// The FIFO this object holds, if any.
    pub fn fifo(&self) -> worker::Result<Option<FifoRow>> {
        if let Some(known) = self.remembered.fifo.borrow().as_ref() {
            return Ok(known.clone());
        }
        let row = if !self.remembered.schema.written(&self.sql)? {
            None
        } else {
            self.migrate()?;
            let rows: Vec<FifoRow> = self
                .sql
                .exec(
                    "SELECT name, envelope, created_at, updated_at, owner FROM fifo WHERE id = 1",
                    None,
                )?
                .to_array()?;
            rows.into_iter().next()
        };
        self.remembered.fifo.replace(Some(row.clone()));
        Ok(row)
    }

    /// Creates or replaces the FIFO's envelope; true when the FIFO is new. A new FIFO
    /// belongs to `owner`; replacing it keeps its owner.
    pub fn put_fifo(
        &self,
        name: &str,
        envelope: &str,
        owner: Option<&str>,
        now: i64,
    ) -> worker::Result<bool> {
        self.migrate()?;
        let created = self.fifo()?.is_none();
        let owner = owner.map_or(SqlStorageValue::Null, |o| o.into());
        self.sql.exec(
            "INSERT INTO fifo (id, name, envelope, created_at, updated_at, owner) VALUES (1, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET envelope = excluded.envelope, updated_at = excluded.updated_at",
            vec![name.into(), envelope.into(), now.into(), now.into(), owner],
        )?;
        self.remembered.fifo.replace(None);
        Ok(created)
    }

    /// When the newest Request in the log arrived.
    pub fn last_request_at(&self) -> worker::Result<Option<i64>> {
        #[derive(Deserialize)]
        struct At {
            at: Option<i64>,
        }
        Ok(self
            .sql
            .exec("SELECT max(at) AS at FROM log", None)?
            .one::<At>()?
            .at)
    }

    pub fn vars(&self) -> worker::Result<Vec<VarInfo>> {
        self.sql
            .exec(
                "SELECT key AS name, length(value) AS length, updated_at FROM vars ORDER BY key",
                None,
            )?
            .to_array()
    }

    /// The variables with their values, for running the envelope.
    pub fn var_values(&self) -> worker::Result<VarValues> {
        if let Some(known) = self.remembered.vars.borrow().as_ref() {
            return Ok(known.clone());
        }
        let mut out = Vec::new();
        for row in self
            .sql
            .exec("SELECT key, value FROM vars ORDER BY key", None)?
            .raw()
        {
            let row = row?;
            if let [SqlStorageValue::String(k), v] = row.as_slice() {
                out.push((k.clone().into_bytes(), value_bytes(v)));
            }
        }
        let out: Rc<[_]> = out.into();
        self.remembered.vars.replace(Some(out.clone()));
        Ok(out)
    }

    pub fn put_var(&self, key: &str, value: &[u8], now: i64) -> worker::Result<()> {
        self.sql.exec(
            "INSERT INTO vars (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            vec![key.into(), value.to_vec().into(), now.into()],
        )?;
        self.remembered.vars.replace(None);
        Ok(())
    }

    /// Deletes a variable; false when there was none.
    pub fn delete_var(&self, key: &str) -> worker::Result<bool> {
        let cursor = self
            .sql
            .exec("DELETE FROM vars WHERE key = ?", vec![key.into()])?;
        let _ = cursor.raw().count();
        self.remembered.vars.replace(None);
        Ok(cursor.rows_written() > 0)
    }

    /// Adds a Request to the log and drops the oldest beyond [`LOG_ROWS`].
    pub fn log(&self, entry: &LogEntry) -> worker::Result<i64> {
        let body = &entry.body[..entry.body.len().min(LOG_BODY_BYTES)];
        // A body streamed into the script comes with its beginning only.
        let cut = entry.request_bytes.max(entry.body.len()) > body.len();
        #[derive(Deserialize)]
        struct Id {
            id: i64,
        }
        let id = self
            .sql
            .exec(
                "INSERT INTO log (request_id, at, source, method, path, status, request_bytes,
                    response_bytes, duration_ms, outcome, body, body_cut, steps, delivery, error,
                    mail_from, subject, headers, query, stderr, stderr_bytes, replay_of, note)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                vec![
                    entry.request_id.as_str().into(),
                    entry.at.into(),
                    entry.source.as_str().into(),
                    entry.method.as_str().into(),
                    entry.path.as_str().into(),
                    i64::from(entry.status).into(),
                    (entry.request_bytes as i64).into(),
                    (entry.response_bytes as i64).into(),
                    entry.duration_ms.into(),
                    entry.outcome.as_str().into(),
                    body.to_vec().into(),
                    // As a number: a bound boolean does not read back as true.
                    i64::from(cut).into(),
                    (entry.steps as i64).into(),
                    entry.delivery.as_str().into(),
                    entry.error.as_str().into(),
                    entry.mail_from.as_str().into(),
                    entry.subject.as_str().into(),
                    kept_headers(&entry.headers).into(),
                    entry.query.as_str().into(),
                    entry.stderr.clone().into(),
                    (entry.stderr_bytes as i64).into(),
                    entry.replay_of.as_str().into(),
                    entry.note.as_str().into(),
                ],
            )?
            .one::<Id>()?
            .id;
        if cut && entry.body.len() >= entry.request_bytes {
            self.keep_body(&entry.request_id, &entry.body)?;
        }
        if id > LOG_ROWS {
            self.sql.exec(
                "DELETE FROM log WHERE id <= ?",
                vec![(id - LOG_ROWS).into()],
            )?;
        }
        if id % 100 == 0 {
            self.forget_finished()?;
        }
        self.tell(LogChange::Added(id));
        Ok(id)
    }

    /// Logs an answered Request in a moment, once its answer has left: the platform holds
    /// an answer until every write made before it is confirmed, and the log entry of an
    /// answer is a record, not the Request (which has its answer). The entries are written
    /// by a timer of no delay, or before anything else the object does
    /// ([`Store::write_unwritten`]), whichever comes first, so that every read of the log
    /// sees them; only a crash in that instant loses one.
    ///
    /// An entry with a body longer than the log's part of it is written at once: its whole
    /// body may be kept for replays, and is not held in memory meanwhile.
    pub fn log_soon(&self, entry: LogEntry) {
        if entry.body.len() > LOG_BODY_BYTES {
            return self.log_after_answer(&entry);
        }
        let mut unwritten = self.remembered.unwritten.borrow_mut();
        unwritten.push(entry);
        if unwritten.len() == 1 {
            let store = self.clone();
            wasm_bindgen_futures::spawn_local(async move {
                worker::Delay::from(std::time::Duration::ZERO).await;
                store.write_unwritten();
            });
        }
    }

    /// Writes the log entries that [`Store::log_soon`] holds.
    pub fn write_unwritten(&self) {
        let entries = std::mem::take(&mut *self.remembered.unwritten.borrow_mut());
        for entry in entries {
            self.log_after_answer(&entry);
        }
    }

    /// Logs a Request whose answer has left: a failure can only be told to the operator.
    pub fn log_after_answer(&self, entry: &LogEntry) {
        if let Err(e) = self.log(entry) {
            worker::console_error!("log of {}: {e}", entry.request_id);
        }
    }

    /// The newest `limit` entries before id `before` (all when `None`), newest first.
    pub fn log_entries(
        &self,
        limit: i64,
        before: Option<i64>,
        with_bodies: bool,
    ) -> worker::Result<Vec<LogRow>> {
        self.log_query(limit, Among::Before(before), with_bodies)
    }

    /// At most `limit` entries logged after entry `after`, oldest first (without bodies).
    pub fn log_after(&self, after: i64, limit: i64) -> worker::Result<Vec<LogRow>> {
        self.log_query(limit, Among::After(after), false)
    }

    /// The log entry of one Request, by its id.
    pub fn log_entry(&self, request_id: &str) -> worker::Result<Option<LogRow>> {
        Ok(self
            .log_query(1, Among::RequestId(request_id), true)?
            .into_iter()
            .next())
    }

    /// A log entry as a list shows it (without its body), by the entry's id.
    pub fn log_row(&self, id: i64) -> worker::Result<Option<LogRow>> {
        Ok(self.log_query(1, Among::Id(id), false)?.into_iter().next())
    }

    /// A log entry as a list shows it, by its Request's id.
    pub fn log_row_of(&self, request_id: &str) -> worker::Result<Option<LogRow>> {
        Ok(self
            .log_query(1, Among::RequestId(request_id), false)?
            .into_iter()
            .next())
    }

    fn log_query(
        &self,
        limit: i64,
        among: Among,
        with_bodies: bool,
    ) -> worker::Result<Vec<LogRow>> {
        let (body, headers, query) = if with_bodies {
            ("body", "headers", "query")
        } else {
            ("NULL", "NULL", "NULL")
        };
        let stderr_kept = if with_bodies {
            LOG_STDERR_BYTES
        } else {
            LIST_STDERR_BYTES
        };
        let (filter, order, key): (&str, &str, SqlStorageValue) = match among {
            Among::Before(before) => ("id < ?", "DESC", before.unwrap_or(MAX_SAFE_INTEGER).into()),
            Among::After(after) => ("id > ?", "ASC", after.into()),
            Among::Id(id) => ("id = ?", "DESC", id.into()),
            Among::RequestId(id) => ("request_id = ?", "DESC", id.into()),
        };
        let query = format!(
            "SELECT id, request_id, at, source, method, path, status, request_bytes, response_bytes,
                duration_ms, outcome, {body}, body_cut, steps, delivery, error, mail_from, subject,
                {headers}, {query}, substr(stderr, 1, {stderr_kept}), stderr_bytes, replay_of, note
             FROM log WHERE {filter} ORDER BY id {order} LIMIT ?"
        );
        let mut rows = Vec::new();
        let bindings: Vec<SqlStorageValue> = vec![key, limit.into()];
        for row in self.sql.exec(&query, bindings)?.raw() {
            let row = row?;
            let int = |i: usize| match row.get(i) {
                Some(SqlStorageValue::Integer(n)) => *n,
                Some(SqlStorageValue::Float(f)) => *f as i64,
                Some(SqlStorageValue::Boolean(b)) => *b as i64,
                _ => 0,
            };
            let text = |i: usize| {
                String::from_utf8_lossy(&row.get(i).map(value_bytes).unwrap_or_default())
                    .into_owned()
            };
            let body_bytes = with_bodies.then(|| row.get(11).map(value_bytes).unwrap_or_default());
            let body_base64 = body_bytes
                .as_ref()
                .filter(|b| std::str::from_utf8(b).is_err())
                .map(|b| base64::engine::general_purpose::STANDARD.encode(b));
            rows.push(LogRow {
                id: int(0),
                request_id: text(1),
                at: int(2),
                source: text(3),
                method: text(4),
                path: text(5),
                status: int(6),
                request_bytes: int(7),
                response_bytes: int(8),
                duration_ms: int(9),
                outcome: text(10),
                body: body_bytes.map(|b| String::from_utf8_lossy(&b).into_owned()),
                body_base64,
                body_cut: int(12) != 0,
                steps: int(13),
                delivery: text(14),
                error: text(15),
                mail_from: text(16),
                subject: text(17),
                headers: with_bodies.then(|| serde_json::from_str(&text(18)).unwrap_or_default()),
                query: with_bodies.then(|| text(19)),
                stderr: text(20),
                stderr_bytes: int(21),
                replay_of: text(22),
                note: text(23),
            });
        }
        Ok(rows)
    }

    /// Keeps a whole body longer than the log keeps, for replays, and drops the oldest
    /// beyond [`KEPT_BODIES`] and [`KEPT_BODY_BYTES`].
    fn keep_body(&self, request_id: &str, body: &[u8]) -> worker::Result<()> {
        if body.len() as i64 > KEPT_BODY_BYTES {
            return Ok(());
        }
        let owner = kept_body_owner(request_id);
        self.drop_pieces(&owner)?;
        self.sql.exec(
            "INSERT OR REPLACE INTO bodies (request_id, body, bytes) VALUES (?, ?, ?)",
            vec![
                request_id.into(),
                first_piece(body).to_vec().into(),
                (body.len() as i64).into(),
            ],
        )?;
        self.put_pieces(&owner, body)?;
        // Only `id` and `bytes`: the index `bodies_bytes` holds both (see migration 9).
        self.sql.exec(
            "DELETE FROM bodies WHERE id IN (SELECT id FROM (SELECT id,
                row_number() OVER (ORDER BY id DESC) AS n,
                sum(bytes) OVER (ORDER BY id DESC) AS total FROM bodies INDEXED BY bodies_bytes)
             WHERE n > ? OR total > ?)",
            vec![KEPT_BODIES.into(), KEPT_BODY_BYTES.into()],
        )?;
        self.drop_unkept_pieces()
    }

    /// Drops the pieces of kept bodies that are no longer kept.
    fn drop_unkept_pieces(&self) -> worker::Result<()> {
        self.sql.exec(
            "DELETE FROM pieces WHERE owner >= 'body:' AND owner < 'body;'
                AND substr(owner, 6) NOT IN (SELECT request_id FROM bodies)",
            None,
        )?;
        Ok(())
    }

    /// The whole body of a logged Request, when it is still kept: from the log when the
    /// log holds all of it, else from the bodies kept apart.
    pub fn whole_body(&self, request_id: &str) -> worker::Result<Option<Vec<u8>>> {
        let logged = self.sql.exec(
            "SELECT body, body_cut FROM log WHERE request_id = ? ORDER BY id DESC LIMIT 1",
            vec![request_id.into()],
        )?;
        let Some(row) = logged.raw().next().transpose()? else {
            return Ok(None);
        };
        let cut = match row.get(1) {
            Some(SqlStorageValue::Integer(n)) => *n != 0,
            Some(SqlStorageValue::Float(f)) => *f != 0.0,
            Some(SqlStorageValue::Boolean(b)) => *b,
            _ => false,
        };
        if !cut {
            return Ok(Some(row.first().map(value_bytes).unwrap_or_default()));
        }
        let kept = self.sql.exec(
            "SELECT body FROM bodies WHERE request_id = ?",
            vec![request_id.into()],
        )?;
        let Some(row) = kept.raw().next().transpose()? else {
            return Ok(None);
        };
        let first = row.first().map(value_bytes).unwrap_or_default();
        Ok(Some(self.pieced(&kept_body_owner(request_id), first)?))
    }

    /// The Requests that failed (their run or a delivery) at or after `since`, oldest
    /// first, that no other Request replays yet.
    pub fn failed_unreplayed(&self, since: i64, limit: i64) -> worker::Result<Vec<String>> {
        let cursor = self.sql.exec(
            "SELECT request_id FROM log
             WHERE at >= ? AND (outcome = 'failed' OR delivery = 'failed')
                AND request_id NOT IN (SELECT replay_of FROM log WHERE replay_of != '')
             ORDER BY id LIMIT ?",
            vec![since.into(), limit.into()],
        )?;
        let mut out = Vec::new();
        for row in cursor.raw() {
            if let Some(v) = row?.first() {
                out.push(String::from_utf8_lossy(&value_bytes(v)).into_owned());
            }
        }
        Ok(out)
    }

    /// When the envelope's `Schedule:` runs next (ms since the epoch), if it has one.
    pub fn next_run(&self) -> worker::Result<Option<i64>> {
        #[derive(Deserialize)]
        struct At {
            next_run: Option<i64>,
        }
        let rows: Vec<At> = self
            .sql
            .exec("SELECT next_run FROM fifo WHERE id = 1", None)?
            .to_array()?;
        Ok(rows.into_iter().next().and_then(|r| r.next_run))
    }

    pub fn set_next_run(&self, at: Option<i64>) -> worker::Result<()> {
        self.sql
            .exec("UPDATE fifo SET next_run = ? WHERE id = 1", vec![at.into()])?;
        self.queue_changed.set(true);
        Ok(())
    }

    pub fn log_len(&self) -> worker::Result<i64> {
        self.count("SELECT count(*) AS n FROM log")
    }

    /// Deliveries not yet made nor given up.
    pub fn pending_deliveries(&self) -> worker::Result<i64> {
        self.count("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'")
    }

    fn count(&self, query: &str) -> worker::Result<i64> {
        #[derive(Deserialize)]
        struct Count {
            n: i64,
        }
        Ok(self.sql.exec(query, None)?.one::<Count>()?.n)
    }
}

/// A stored outgoing request of a Request.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub id: i64,
    pub request_id: String,
    pub seq: i64,
    /// `deliver` (to a destination of `To:`), `reply` (a reply passed on), `report` (to `Errors-To:`).
    pub purpose: String,
    pub destination: String,
    pub outgoing: String,
    pub body: Vec<u8>,
    pub reply_to: String,
    pub errors_to: String,
    pub attempts: i64,
    pub created_at: i64,
}

/// A delivery as the API shows it, with its attempts.
#[derive(Debug, Clone, Serialize)]
pub struct DeliveryInfo {
    pub seq: i64,
    pub purpose: String,
    pub destination: serde_json::Value,
    pub state: String,
    pub attempts: Vec<AttemptInfo>,
    pub next_at: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AttemptInfo {
    pub at: i64,
    pub status: Option<i64>,
    pub error: Option<String>,
    pub duration_ms: i64,
}

impl Store {
    /// Keeps a Request to be run by the alarm.
    pub fn put_request(
        &self,
        request_id: &str,
        received_at: i64,
        meta: &str,
        body: &[u8],
    ) -> worker::Result<()> {
        self.sql.exec(
            "INSERT INTO requests (request_id, received_at, meta, body) VALUES (?, ?, ?, ?)",
            vec![
                request_id.into(),
                received_at.into(),
                meta.into(),
                first_piece(body).to_vec().into(),
            ],
        )?;
        self.put_pieces(&request_owner(request_id), body)?;
        self.queue_changed.set(true);
        Ok(())
    }

    /// The whole body of a waiting Request, from the first piece its row holds.
    pub fn request_body(&self, request_id: &str, first: Vec<u8>) -> worker::Result<Vec<u8>> {
        self.pieced(&request_owner(request_id), first)
    }

    /// The oldest Requests waiting to be run: (id, meta, the first piece of the body).
    pub fn waiting_requests(&self, limit: i64) -> worker::Result<Vec<(String, String, Vec<u8>)>> {
        let mut out = Vec::new();
        let cursor = self.sql.exec(
            "SELECT request_id, meta, body FROM requests ORDER BY received_at, request_id LIMIT ?",
            vec![limit.into()],
        )?;
        for row in cursor.raw() {
            let row = row?;
            let text = |i: usize| {
                String::from_utf8_lossy(&row.get(i).map(value_bytes).unwrap_or_default())
                    .into_owned()
            };
            out.push((
                text(0),
                text(1),
                row.get(2).map(value_bytes).unwrap_or_default(),
            ));
        }
        Ok(out)
    }

    pub fn remove_request(&self, request_id: &str) -> worker::Result<()> {
        self.sql.exec(
            "DELETE FROM requests WHERE request_id = ?",
            vec![request_id.into()],
        )?;
        self.drop_pieces(&request_owner(request_id))?;
        self.queue_changed.set(true);
        Ok(())
    }

    /// Adds an outgoing request; `seq` numbers the deliveries of one Request from 0.
    #[allow(clippy::too_many_arguments)]
    pub fn add_delivery(
        &self,
        request_id: &str,
        purpose: &str,
        destination: &str,
        outgoing: &str,
        body: &[u8],
        reply_to: &str,
        errors_to: &str,
        now: i64,
    ) -> worker::Result<()> {
        self.sql.exec(
            "INSERT INTO deliveries (request_id, seq, purpose, destination, outgoing, body, reply_to, errors_to,
                state, attempts, created_at, next_at)
             VALUES (?, (SELECT count(*) FROM deliveries WHERE request_id = ?), ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)",
            vec![
                request_id.into(),
                request_id.into(),
                purpose.into(),
                destination.into(),
                outgoing.into(),
                first_piece(body).to_vec().into(),
                reply_to.into(),
                errors_to.into(),
                now.into(),
                now.into(),
            ],
        )?;
        if body.len() > PIECE_BYTES {
            #[derive(Deserialize)]
            struct Id {
                id: i64,
            }
            let id = self
                .sql
                .exec("SELECT last_insert_rowid() AS id", None)?
                .one::<Id>()?
                .id;
            self.put_pieces(&delivery_owner(id), body)?;
        }
        self.queue_changed.set(true);
        Ok(())
    }

    /// The whole body of delivery `id`, from the first piece that [`Store::due_deliveries`] read.
    pub fn delivery_body(&self, id: i64, first: Vec<u8>) -> worker::Result<Vec<u8>> {
        self.pieced(&delivery_owner(id), first)
    }

    /// Stores the pieces of `body` after its first (which its row holds) under `owner`.
    fn put_pieces(&self, owner: &str, body: &[u8]) -> worker::Result<()> {
        for (n, piece) in body.chunks(PIECE_BYTES).enumerate().skip(1) {
            self.sql.exec(
                "INSERT INTO pieces (owner, n, bytes) VALUES (?, ?, ?)",
                vec![owner.into(), (n as i64).into(), piece.to_vec().into()],
            )?;
        }
        Ok(())
    }

    /// `first` and the pieces after it: a row holding less than a whole piece has none.
    fn pieced(&self, owner: &str, mut first: Vec<u8>) -> worker::Result<Vec<u8>> {
        if first.len() < PIECE_BYTES {
            return Ok(first);
        }
        let cursor = self.sql.exec(
            "SELECT bytes FROM pieces WHERE owner = ? ORDER BY n",
            vec![owner.into()],
        )?;
        for row in cursor.raw() {
            if let Some(piece) = row?.first() {
                first.extend_from_slice(&value_bytes(piece));
            }
        }
        Ok(first)
    }

    fn drop_pieces(&self, owner: &str) -> worker::Result<()> {
        self.sql
            .exec("DELETE FROM pieces WHERE owner = ?", vec![owner.into()])?;
        Ok(())
    }

    /// Pending deliveries due at `now`, oldest first.
    pub fn due_deliveries(&self, now: i64, limit: i64) -> worker::Result<Vec<Delivery>> {
        let cursor = self.sql.exec(
            "SELECT id, request_id, seq, purpose, destination, outgoing, body, reply_to, errors_to, state,
                attempts, created_at, next_at
             FROM deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY next_at, id LIMIT ?",
            vec![now.into(), limit.into()],
        )?;
        let mut out = Vec::new();
        for row in cursor.raw() {
            let row = row?;
            let int = |i: usize| match row.get(i) {
                Some(SqlStorageValue::Integer(n)) => *n,
                Some(SqlStorageValue::Float(f)) => *f as i64,
                _ => 0,
            };
            let text = |i: usize| {
                String::from_utf8_lossy(&row.get(i).map(value_bytes).unwrap_or_default())
                    .into_owned()
            };
            out.push(Delivery {
                id: int(0),
                request_id: text(1),
                seq: int(2),
                purpose: text(3),
                destination: text(4),
                outgoing: text(5),
                body: row.get(6).map(value_bytes).unwrap_or_default(),
                reply_to: text(7),
                errors_to: text(8),
                attempts: int(10),
                created_at: int(11),
            });
        }
        Ok(out)
    }

    /// Records one attempt and where the delivery stands after it.
    #[allow(clippy::too_many_arguments)]
    pub fn record_attempt(
        &self,
        delivery: &Delivery,
        at: i64,
        status: Option<u16>,
        error: Option<&str>,
        duration_ms: i64,
        state: &str,
        next_at: i64,
    ) -> worker::Result<()> {
        let status: SqlStorageValue = status.map(i64::from).into();
        let error_value: SqlStorageValue = error.map(str::to_string).into();
        self.sql.exec(
            "INSERT INTO attempts (delivery_id, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?)",
            vec![delivery.id.into(), at.into(), status.clone(), error_value.clone(), duration_ms.into()],
        )?;
        // Sent, or given up: the body is not read again, and its space is freed.
        self.sql.exec(
            "UPDATE deliveries SET state = ?1, attempts = attempts + 1, next_at = ?2, last_status = ?3,
                last_error = ?4, body = CASE WHEN ?1 = 'pending' THEN body ELSE x'' END
             WHERE id = ?5",
            vec![state.into(), next_at.into(), status, error_value, delivery.id.into()],
        )?;
        if state != "pending" && delivery.body.len() >= PIECE_BYTES {
            self.drop_pieces(&delivery_owner(delivery.id))?;
        }
        self.queue_changed.set(true);
        Ok(())
    }

    /// When the next pending delivery is due, if any is, or a Request waits, or the
    /// schedule runs next: when the alarm is for.
    pub fn next_due(&self) -> worker::Result<Option<i64>> {
        #[derive(Deserialize)]
        struct Next {
            at: Option<i64>,
        }
        // One query, not three: it runs after every Request that queued something.
        Ok(self
            .sql
            .exec(
                "SELECT min(at) AS at FROM (
                    SELECT min(received_at) AS at FROM requests
                    UNION ALL SELECT min(next_at) FROM deliveries WHERE state = 'pending'
                    UNION ALL SELECT next_run FROM fifo WHERE id = 1)",
                None,
            )?
            .one::<Next>()?
            .at)
    }

    /// Sets the log entry's delivery summary and error, and what a run of its envelope
    /// (from the queue) spent and wrote to stderr.
    pub fn update_log(
        &self,
        request_id: &str,
        delivery: DeliveryState,
        error: Option<&str>,
        ran: Option<Ran>,
    ) -> worker::Result<()> {
        let mut entry = LogEntry::default();
        if let Some(ran) = ran {
            entry.ran(ran);
        }
        let ran_value = |v: SqlStorageValue| {
            if ran.is_some() {
                v
            } else {
                SqlStorageValue::Null
            }
        };
        self.sql.exec(
            "UPDATE log SET delivery = ?, error = coalesce(?, error), steps = coalesce(?, steps),
                stderr = coalesce(?, stderr), stderr_bytes = coalesce(?, stderr_bytes)
             WHERE request_id = ?",
            vec![
                delivery.as_str().into(),
                error.map(str::to_string).into(),
                ran_value((entry.steps as i64).into()),
                ran_value(entry.stderr.into()),
                ran_value((entry.stderr_bytes as i64).into()),
                request_id.into(),
            ],
        )?;
        self.tell(LogChange::Updated(request_id));
        Ok(())
    }

    /// The states of a Request's deliveries to destinations (not reports).
    pub fn delivery_states(&self, request_id: &str) -> worker::Result<Vec<String>> {
        let mut out = Vec::new();
        let cursor = self.sql.exec(
            "SELECT state FROM deliveries WHERE request_id = ? AND purpose != 'report' ORDER BY seq",
            vec![request_id.into()],
        )?;
        for row in cursor.raw() {
            if let Some(v) = row?.first() {
                out.push(String::from_utf8_lossy(&value_bytes(v)).into_owned());
            }
        }
        Ok(out)
    }

    /// A Request's deliveries with their attempts, for the API.
    pub fn deliveries_of(&self, request_id: &str) -> worker::Result<Vec<DeliveryInfo>> {
        let mut out = Vec::new();
        let cursor = self.sql.exec(
            "SELECT id, seq, purpose, destination, state, next_at FROM deliveries WHERE request_id = ? ORDER BY seq",
            vec![request_id.into()],
        )?;
        for row in cursor.raw() {
            let row = row?;
            let int = |i: usize| match row.get(i) {
                Some(SqlStorageValue::Integer(n)) => *n,
                _ => 0,
            };
            let text = |i: usize| {
                String::from_utf8_lossy(&row.get(i).map(value_bytes).unwrap_or_default())
                    .into_owned()
            };
            let state = text(4);
            let mut attempts = Vec::new();
            let tries = self.sql.exec(
                "SELECT at, status, error, duration_ms FROM attempts WHERE delivery_id = ? ORDER BY id",
                vec![int(0).into()],
            )?;
            for attempt in tries.raw() {
                let a = attempt?;
                let num = |i: usize| match a.get(i) {
                    Some(SqlStorageValue::Integer(n)) => Some(*n),
                    _ => None,
                };
                let error = match a.get(2) {
                    Some(SqlStorageValue::String(e)) => Some(e.clone()),
                    _ => None,
                };
                attempts.push(AttemptInfo {
                    at: num(0).unwrap_or(0),
                    status: num(1),
                    error,
                    duration_ms: num(3).unwrap_or(0),
                });
            }
            out.push(DeliveryInfo {
                seq: int(1),
                purpose: text(2),
                destination: serde_json::from_str(&text(3)).unwrap_or(serde_json::Value::Null),
                next_at: (state == "pending").then(|| int(5)),
                state,
                attempts,
            });
        }
        Ok(out)
    }

    /// Drops finished deliveries and their attempts whose Request has left the log.
    fn forget_finished(&self) -> worker::Result<()> {
        self.sql.exec(
            "DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE state != 'pending'
                AND request_id NOT IN (SELECT request_id FROM log))",
            None,
        )?;
        self.sql.exec(
            "DELETE FROM deliveries WHERE state != 'pending' AND request_id NOT IN (SELECT request_id FROM log)",
            None,
        )?;
        self.sql.exec(
            "DELETE FROM bodies WHERE request_id NOT IN (SELECT request_id FROM log)",
            None,
        )?;
        self.drop_unkept_pieces()
    }
}

/// What a row holds of a body: its first piece.
fn first_piece(body: &[u8]) -> &[u8] {
    &body[..body.len().min(PIECE_BYTES)]
}

fn request_owner(request_id: &str) -> String {
    format!("request:{request_id}")
}

fn delivery_owner(id: i64) -> String {
    format!("delivery:{id}")
}

/// The owner of a kept body's pieces: `body:` and the Request id ([`Store::drop_unkept_pieces`]
/// reads the id back from it).
fn kept_body_owner(request_id: &str) -> String {
    format!("body:{request_id}")
}

fn value_bytes(v: &SqlStorageValue) -> Vec<u8> {
    match v {
        SqlStorageValue::Blob(b) => b.clone(),
        SqlStorageValue::String(s) => s.clone().into_bytes(),
        SqlStorageValue::Integer(i) => i.to_string().into_bytes(),
        SqlStorageValue::Float(f) => f.to_string().into_bytes(),
        SqlStorageValue::Boolean(b) => (*b as u8).to_string().into_bytes(),
        SqlStorageValue::Null => Vec::new(),
    }
}

/// The headers a log entry keeps, as JSON pairs: credentials only by their length, and
/// no more than [`LOG_HEADER_BYTES`] in all.
fn kept_headers(headers: &[(String, String)]) -> String {
    let mut kept = Vec::new();
    let mut size = 0;
    for (name, value) in headers {
        let value = if UNKEPT_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            format!("({} bytes, not kept)", value.len())
        } else {
            value.clone()
        };
        size += name.len() + value.len();
        if size > LOG_HEADER_BYTES {
            break;
        }
        kept.push((name.clone(), value));
    }
    serde_json::to_string(&kept).unwrap_or_default()
}
