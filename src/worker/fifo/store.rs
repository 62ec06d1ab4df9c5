//! All SQL of the Fifo object: its schema and migrations, the FIFO row, its variables and
//! its Request log.
//!
//! The schema is versioned: `schema_version` holds the number of migrations applied, and
//! [`Store::migrate`] applies the missing ones in order, so an object written by an older
//! version is brought up to date the first time a newer version touches it. A FIFO that
//! does not exist has no tables at all: looking at a missing FIFO writes nothing.

use serde::{Deserialize, Serialize};
use worker::{SqlStorage, SqlStorageValue};

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
];

/// How many Requests the log keeps; the oldest are dropped first.
pub const LOG_ROWS: i64 = 1000;

/// How much of a Request's body the log keeps; the rest is marked as cut.
pub const LOG_BODY_BYTES: usize = 64 * 1024;

/// The largest integer JavaScript holds exactly: SQL values cross into JS as numbers.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

pub struct Store {
    sql: SqlStorage,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FifoRow {
    pub name: String,
    pub envelope: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A variable as the API shows it: never its value.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VarInfo {
    pub name: String,
    pub length: i64,
    pub updated_at: i64,
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
    pub outcome: String,
    pub body: Vec<u8>,
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
    /// The body as text (invalid UTF-8 replaced), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    pub body_cut: bool,
}

impl Store {
    pub fn new(sql: SqlStorage) -> Self {
        Store { sql }
    }

    /// The schema version of this object: 0 when it has never held a FIFO.
    pub fn version(&self) -> worker::Result<i64> {
        #[derive(Deserialize)]
        struct Count {
            n: i64,
        }
        let tables = self
            .sql
            .exec("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'", None)?
            .one::<Count>()?;
        if tables.n == 0 {
            return Ok(0);
        }
        #[derive(Deserialize)]
        struct Version {
            version: i64,
        }
        Ok(self
            .sql
            .exec("SELECT version FROM schema_version", None)?
            .one::<Version>()?
            .version)
    }

    /// Applies the migrations this object has not seen yet.
    pub fn migrate(&self) -> worker::Result<()> {
        let from = self.version()?;
        if from == 0 {
            self.sql.exec(
                "CREATE TABLE schema_version (version INTEGER NOT NULL)",
                None,
            )?;
            self.sql
                .exec("INSERT INTO schema_version VALUES (0)", None)?;
        }
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(from.max(0) as usize) {
            self.sql.exec(migration, None)?;
            self.sql.exec(
                "UPDATE schema_version SET version = ?",
                vec![((i + 1) as i64).into()],
            )?;
        }
        Ok(())
    }

    /// The FIFO this object holds, if any.
    pub fn fifo(&self) -> worker::Result<Option<FifoRow>> {
        if self.version()? == 0 {
            return Ok(None);
        }
        self.migrate()?;
        let rows: Vec<FifoRow> = self
            .sql
            .exec(
                "SELECT name, envelope, created_at, updated_at FROM fifo WHERE id = 1",
                None,
            )?
            .to_array()?;
        Ok(rows.into_iter().next())
    }

    /// Creates or replaces the FIFO's envelope; true when the FIFO is new.
    pub fn put_fifo(&self, name: &str, envelope: &str, now: i64) -> worker::Result<bool> {
        self.migrate()?;
        let created = self.fifo()?.is_none();
        self.sql.exec(
            "INSERT INTO fifo (id, name, envelope, created_at, updated_at) VALUES (1, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET envelope = excluded.envelope, updated_at = excluded.updated_at",
            vec![name.into(), envelope.into(), now.into(), now.into()],
        )?;
        Ok(created)
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
    #[allow(dead_code)] // read by the envelope engine
    pub fn var_values(&self) -> worker::Result<Vec<(Vec<u8>, Vec<u8>)>> {
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
        Ok(out)
    }

    pub fn put_var(&self, key: &str, value: &[u8], now: i64) -> worker::Result<()> {
        self.sql.exec(
            "INSERT INTO vars (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            vec![key.into(), value.to_vec().into(), now.into()],
        )?;
        Ok(())
    }

    /// Deletes a variable; false when there was none.
    pub fn delete_var(&self, key: &str) -> worker::Result<bool> {
        let cursor = self
            .sql
            .exec("DELETE FROM vars WHERE key = ?", vec![key.into()])?;
        let _ = cursor.raw().count();
        Ok(cursor.rows_written() > 0)
    }

    /// Adds a Request to the log and drops the oldest beyond [`LOG_ROWS`].
    pub fn log(&self, entry: &LogEntry) -> worker::Result<i64> {
        let cut = entry.body.len() > LOG_BODY_BYTES;
        let body = &entry.body[..entry.body.len().min(LOG_BODY_BYTES)];
        #[derive(Deserialize)]
        struct Id {
            id: i64,
        }
        let id = self
            .sql
            .exec(
                "INSERT INTO log (request_id, at, source, method, path, status, request_bytes,
                    response_bytes, duration_ms, outcome, body, body_cut)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
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
                    cut.into(),
                ],
            )?
            .one::<Id>()?
            .id;
        self.sql.exec(
            "DELETE FROM log WHERE id <= ?",
            vec![(id - LOG_ROWS).into()],
        )?;
        Ok(id)
    }

    /// The newest `limit` entries before id `before` (all when `None`), newest first.
    pub fn log_entries(
        &self,
        limit: i64,
        before: Option<i64>,
        with_bodies: bool,
    ) -> worker::Result<Vec<LogRow>> {
        let body = if with_bodies { "body" } else { "NULL" };
        let query = format!(
            "SELECT id, request_id, at, source, method, path, status, request_bytes, response_bytes,
                duration_ms, outcome, {body}, body_cut
             FROM log WHERE id < ? ORDER BY id DESC LIMIT ?"
        );
        let mut rows = Vec::new();
        for row in self
            .sql
            .exec(
                &query,
                vec![before.unwrap_or(MAX_SAFE_INTEGER).into(), limit.into()],
            )?
            .raw()
        {
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
                body: with_bodies.then(|| text(11)),
                body_cut: int(12) != 0,
            });
        }
        Ok(rows)
    }

    pub fn log_len(&self) -> worker::Result<i64> {
        #[derive(Deserialize)]
        struct Count {
            n: i64,
        }
        Ok(self
            .sql
            .exec("SELECT count(*) AS n FROM log", None)?
            .one::<Count>()?
            .n)
    }
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
