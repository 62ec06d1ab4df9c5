//! All SQL of the Account object: the account, its sign-in links, sessions, API tokens
//! and the names of its FIFOs. Secrets are stored as their hashes only.

use serde::{Deserialize, Serialize};
use worker::SqlStorage;

use crate::worker::schema;

const MIGRATIONS: &[&str] = &[
    // 1: the account and its credentials.
    "CREATE TABLE account (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        email TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE signins (
        hash TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        sent_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
    );
    CREATE TABLE sessions (
        hash TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    );
    CREATE TABLE tokens (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
    );
    CREATE TABLE fifos (
        name TEXT PRIMARY KEY,
        added_at INTEGER NOT NULL
    );",
];

#[derive(Clone)]
pub struct Store {
    sql: SqlStorage,
    schema: schema::Known,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AccountRow {
    pub email: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SigninRow {
    pub email: String,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}

/// A token as the API lists it: never its secret.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TokenInfo {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

#[derive(Deserialize)]
struct Count {
    n: i64,
}

impl Store {
    pub fn new(sql: SqlStorage, schema: schema::Known) -> Self {
        Store { sql, schema }
    }

    /// Whether this object has ever been written (reading an unwritten one writes nothing).
    fn written(&self) -> worker::Result<bool> {
        self.schema.written(&self.sql)
    }

    fn ready(&self) -> worker::Result<()> {
        self.schema.migrate(&self.sql, MIGRATIONS)
    }

    pub fn account(&self) -> worker::Result<Option<AccountRow>> {
        if !self.written()? {
            return Ok(None);
        }
        self.ready()?;
        let rows: Vec<AccountRow> = self
            .sql
            .exec("SELECT email, created_at FROM account WHERE id = 1", None)?
            .to_array()?;
        Ok(rows.into_iter().next())
    }

    pub fn create_account(&self, email: &str, now: i64) -> worker::Result<()> {
        self.ready()?;
        self.sql.exec(
            "INSERT INTO account (id, email, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING",
            vec![email.into(), now.into()],
        )?;
        Ok(())
    }

    /// When the sign-in links of the last `window_ms` were sent; older ones are dropped.
    pub fn recent_signins(&self, now: i64, window_ms: i64) -> worker::Result<Vec<i64>> {
        self.ready()?;
        self.sql.exec(
            "DELETE FROM signins WHERE sent_at <= ? AND expires_at <= ?",
            vec![(now - window_ms).into(), now.into()],
        )?;
        #[derive(Deserialize)]
        struct Sent {
            sent_at: i64,
        }
        let rows: Vec<Sent> = self
            .sql
            .exec("SELECT sent_at FROM signins", None)?
            .to_array()?;
        Ok(rows.into_iter().map(|r| r.sent_at).collect())
    }

    pub fn add_signin(
        &self,
        hash: &str,
        email: &str,
        now: i64,
        expires_at: i64,
    ) -> worker::Result<()> {
        self.ready()?;
        self.sql.exec(
            "INSERT INTO signins (hash, email, sent_at, expires_at) VALUES (?, ?, ?, ?)",
            vec![hash.into(), email.into(), now.into(), expires_at.into()],
        )?;
        Ok(())
    }

    pub fn signin(&self, hash: &str) -> worker::Result<Option<SigninRow>> {
        if !self.written()? {
            return Ok(None);
        }
        self.ready()?;
        let rows: Vec<SigninRow> = self
            .sql
            .exec(
                "SELECT email, expires_at, used_at FROM signins WHERE hash = ?",
                vec![hash.into()],
            )?
            .to_array()?;
        Ok(rows.into_iter().next())
    }

    pub fn use_signin(&self, hash: &str, now: i64) -> worker::Result<()> {
        self.sql.exec(
            "UPDATE signins SET used_at = ? WHERE hash = ?",
            vec![now.into(), hash.into()],
        )?;
        Ok(())
    }

    pub fn add_session(&self, hash: &str, now: i64, expires_at: i64) -> worker::Result<()> {
        self.ready()?;
        self.sql.exec(
            "INSERT INTO sessions (hash, created_at, expires_at) VALUES (?, ?, ?)",
            vec![hash.into(), now.into(), expires_at.into()],
        )?;
        Ok(())
    }

    /// The expiry of a session, if there is one of that hash.
    pub fn session_expiry(&self, hash: &str) -> worker::Result<Option<i64>> {
        #[derive(Deserialize)]
        struct Expiry {
            expires_at: i64,
        }
        let rows: Vec<Expiry> = self
            .sql
            .exec(
                "SELECT expires_at FROM sessions WHERE hash = ?",
                vec![hash.into()],
            )?
            .to_array()?;
        Ok(rows.into_iter().next().map(|r| r.expires_at))
    }

    pub fn renew_session(&self, hash: &str, expires_at: i64) -> worker::Result<()> {
        self.sql.exec(
            "UPDATE sessions SET expires_at = ? WHERE hash = ?",
            vec![expires_at.into(), hash.into()],
        )?;
        Ok(())
    }

    pub fn end_session(&self, hash: &str) -> worker::Result<()> {
        self.sql
            .exec("DELETE FROM sessions WHERE hash = ?", vec![hash.into()])?;
        Ok(())
    }

    /// Drops the sessions that have expired.
    pub fn drop_expired_sessions(&self, now: i64) -> worker::Result<()> {
        self.sql.exec(
            "DELETE FROM sessions WHERE expires_at <= ?",
            vec![now.into()],
        )?;
        Ok(())
    }

    pub fn add_token(&self, name: &str, hash: &str, now: i64) -> worker::Result<TokenInfo> {
        #[derive(Deserialize)]
        struct Id {
            id: i64,
        }
        let id = self
            .sql
            .exec(
                "INSERT INTO tokens (name, hash, created_at) VALUES (?, ?, ?) RETURNING id",
                vec![name.into(), hash.into(), now.into()],
            )?
            .one::<Id>()?
            .id;
        Ok(TokenInfo {
            id,
            name: name.to_string(),
            created_at: now,
            last_used_at: None,
        })
    }

    pub fn tokens(&self) -> worker::Result<Vec<TokenInfo>> {
        self.sql
            .exec(
                "SELECT id, name, created_at, last_used_at FROM tokens ORDER BY id",
                None,
            )?
            .to_array()
    }

    pub fn token_count(&self) -> worker::Result<usize> {
        let n = self
            .sql
            .exec("SELECT count(*) AS n FROM tokens", None)?
            .one::<Count>()?
            .n;
        Ok(n as usize)
    }

    /// The token of that hash, if there is one.
    pub fn token(&self, hash: &str) -> worker::Result<Option<TokenInfo>> {
        let rows: Vec<TokenInfo> = self
            .sql
            .exec(
                "SELECT id, name, created_at, last_used_at FROM tokens WHERE hash = ?",
                vec![hash.into()],
            )?
            .to_array()?;
        Ok(rows.into_iter().next())
    }

    pub fn touch_token(&self, id: i64, now: i64) -> worker::Result<()> {
        self.sql.exec(
            "UPDATE tokens SET last_used_at = ? WHERE id = ?",
            vec![now.into(), id.into()],
        )?;
        Ok(())
    }

    /// Revokes a token; false when there was none.
    pub fn delete_token(&self, id: i64) -> worker::Result<bool> {
        let cursor = self
            .sql
            .exec("DELETE FROM tokens WHERE id = ?", vec![id.into()])?;
        let _ = cursor.raw().count();
        Ok(cursor.rows_written() > 0)
    }

    pub fn add_fifo(&self, name: &str, now: i64) -> worker::Result<()> {
        self.sql.exec(
            "INSERT INTO fifos (name, added_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            vec![name.into(), now.into()],
        )?;
        Ok(())
    }

    pub fn remove_fifo(&self, name: &str) -> worker::Result<()> {
        self.sql
            .exec("DELETE FROM fifos WHERE name = ?", vec![name.into()])?;
        Ok(())
    }

    pub fn fifos(&self) -> worker::Result<Vec<String>> {
        #[derive(Deserialize)]
        struct Name {
            name: String,
        }
        let rows: Vec<Name> = self
            .sql
            .exec("SELECT name FROM fifos ORDER BY name", None)?
            .to_array()?;
        Ok(rows.into_iter().map(|r| r.name).collect())
    }
}
