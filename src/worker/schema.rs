//! Versioned SQLite schemas of the objects: `schema_version` holds the number of
//! migrations applied, and [`migrate`] applies the missing ones in order, so an object
//! written by an older version is brought up to date the first time a newer version
//! touches it. An object that never held anything has no tables at all: looking at it
//! writes nothing.

use std::cell::Cell;
use std::rc::Rc;

use serde::Deserialize;
use worker::SqlStorage;

/// Whether an object's schema is known to be current, shared by all the stores of the
/// object's instance, so that a call does not ask again (four queries). Only the object
/// writes its storage; a crash starts a new instance, and emptying the storage must
/// [`Known::forget`].
#[derive(Clone, Default)]
pub struct Known(Rc<Cell<bool>>);

impl Known {
    /// Whether the object has ever been written (asking writes nothing).
    pub fn written(&self, sql: &SqlStorage) -> worker::Result<bool> {
        Ok(self.0.get() || version(sql)? > 0)
    }

    /// Applies the `migrations` not yet applied, once per instance.
    pub fn migrate(&self, sql: &SqlStorage, migrations: &[&str]) -> worker::Result<()> {
        if !self.0.get() {
            migrate(sql, migrations)?;
            self.0.set(true);
        }
        Ok(())
    }

    /// The storage was emptied: the schema is gone.
    pub fn forget(&self) {
        self.0.set(false);
    }
}

/// The schema version of an object: 0 when it has never been written.
pub fn version(sql: &SqlStorage) -> worker::Result<i64> {
    #[derive(Deserialize)]
    struct Count {
        n: i64,
    }
    let tables = sql
        .exec(
            "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
            None,
        )?
        .one::<Count>()?;
    if tables.n == 0 {
        return Ok(0);
    }
    #[derive(Deserialize)]
    struct Version {
        version: i64,
    }
    Ok(sql
        .exec("SELECT version FROM schema_version", None)?
        .one::<Version>()?
        .version)
}

/// Applies the `migrations` this object has not seen yet.
pub fn migrate(sql: &SqlStorage, migrations: &[&str]) -> worker::Result<()> {
    let from = version(sql)?;
    if from == 0 {
        sql.exec(
            "CREATE TABLE schema_version (version INTEGER NOT NULL)",
            None,
        )?;
        sql.exec("INSERT INTO schema_version VALUES (0)", None)?;
    }
    for (i, migration) in migrations.iter().enumerate().skip(from.max(0) as usize) {
        sql.exec(migration, None)?;
        sql.exec(
            "UPDATE schema_version SET version = ?",
            vec![((i + 1) as i64).into()],
        )?;
    }
    Ok(())
}
