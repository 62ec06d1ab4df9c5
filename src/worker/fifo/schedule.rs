//! `Schedule: CRON`: the FIFO runs its envelope by itself, on that schedule (UTC), with an
//! empty body and `REQUEST_METHOD=SCHEDULE`. When the next run is due is kept with the
//! FIFO (`next_run`, set when the envelope is saved); the object's one alarm is set for
//! the earliest of it and the queue's work ([`super::store::Store::next_due`]). Runs
//! missed while nothing ran (the alarm came late) run once, late, and the log says so.

use super::store::{FifoRow, Store};
use super::Fifo;
use crate::calendar::civil_from_days;
use crate::cron::Schedule;
use crate::envelope::{Incoming, Source};
use crate::worker::host::{new_request_id, now_ms};

/// A run later than this is noted as late in the log, even when no run was missed.
const LATE_MS: i64 = 60_000;

impl Fifo {
    /// Notes when a saved envelope's schedule runs next (none without `Schedule:`).
    pub(super) fn plan_schedule(
        &self,
        store: &Store,
        schedule: Option<&Schedule>,
        now: i64,
    ) -> worker::Result<()> {
        store.set_next_run(schedule.and_then(|s| s.next_after(now)))
    }

    /// At an alarm: the scheduled run, when it is due, queued as a Request of its own.
    pub(super) fn run_schedule(&self, store: &Store, row: &FifoRow) -> worker::Result<()> {
        let now = now_ms();
        let Some(due) = store.next_run()?.filter(|&due| due <= now) else {
            return Ok(());
        };
        let Some(schedule) = self.compiled(row).ok().and_then(|c| c.schedule.clone()) else {
            return store.set_next_run(None);
        };
        let (missed, next) = schedule.catch_up(due, now);
        let late = now - due;
        let note = if missed > 0 || late >= LATE_MS {
            format!(
                "a late run: due at {}, run {} s later; {missed} run(s) missed meanwhile ran as this one",
                utc(due),
                late / 1000
            )
        } else {
            String::new()
        };
        let incoming = Incoming {
            fifo: row.name.clone(),
            request_id: new_request_id(),
            source: Source::Schedule,
            method: "SCHEDULE".into(),
            ..Incoming::default()
        };
        self.enqueue(store, &incoming, note)?;
        store.set_next_run(next)
    }
}

/// `2026-12-02T18:40:00Z`.
fn utc(ms: i64) -> String {
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400_000));
    let s = ms.rem_euclid(86_400_000) / 1000;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}
