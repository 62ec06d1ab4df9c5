//! Cron schedules, as the envelope's `Schedule:` header writes them: five fields (minute,
//! hour, day of the month, month, day of the week) in UTC, or in the zone a leading
//! `CRON_TZ=Europe/Berlin` names (as cronie and Kubernetes read it), or a shorthand (`@hourly`,
//! `@daily`, `@midnight`, `@weekly`, `@monthly`, `@yearly`, `@annually`), with cron(5)'s
//! meaning: `*`, numbers, ranges `A-B`, steps `*/N` and `A-B/N` (and `A/N`: from A to the
//! end), lists joined by commas, month and day names (`jan`, `mon`; any case), 0 or 7 for
//! Sunday. When both day fields are restricted (neither starts with `*`), a day matches
//! when either does; otherwise when both do (so `*` leaves the other to decide).
//!
//! In a zone with daylight saving time, a time the clocks skip runs as late as they skipped
//! (02:30 when 02:00 becomes 03:00 runs at 03:30), and a time they repeat runs once, the
//! first time: the reading RFC 5545 gives such times (and Python's `fold=0`).

use crate::calendar::civil_from_days;

const MINUTE_MS: i64 = 60_000;
const DAY_MINUTES: i64 = 24 * 60;

/// How far ahead a next run is looked for: a schedule that never runs within it (`0 0 30 2
/// *`) is refused. Eight years hold every leap day and every weekday of every date.
const HORIZON_DAYS: i64 = 8 * 366;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    minutes: u64,
    hours: u64,
    days: u64,
    months: u64,
    /// Sunday is bit 0.
    weekdays: u64,
    /// Whether the day of the month and of the week were restricted (did not start with
    /// `*`): cron's rule for combining them.
    days_restricted: bool,
    weekdays_restricted: bool,
    /// The zone of `CRON_TZ=` (of the bundled tz database); UTC without it.
    zone: Option<jiff::tz::TimeZone>,
}

/// A schedule that does not read: what is wrong and the column (from 1) in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronError {
    pub column: u32,
    pub message: String,
}

fn error(column: usize, message: impl Into<String>) -> CronError {
    CronError {
        column: column as u32 + 1,
        message: message.into(),
    }
}

const MONTH_NAMES: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAY_NAMES: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

struct Field {
    what: &'static str,
    min: u32,
    max: u32,
    names: &'static [&'static str],
    /// The number the first name stands for.
    first_named: u32,
}

const FIELDS: [Field; 5] = [
    Field {
        what: "minute",
        min: 0,
        max: 59,
        names: &[],
        first_named: 0,
    },
    Field {
        what: "hour",
        min: 0,
        max: 23,
        names: &[],
        first_named: 0,
    },
    Field {
        what: "day of the month",
        min: 1,
        max: 31,
        names: &[],
        first_named: 0,
    },
    Field {
        what: "month",
        min: 1,
        max: 12,
        names: &MONTH_NAMES,
        first_named: 1,
    },
    Field {
        what: "day of the week",
        min: 0,
        max: 7,
        names: &DAY_NAMES,
        first_named: 0,
    },
];

impl Schedule {
    /// Reads a schedule; errors point at the column of the text where they are.
    pub fn parse(text: &str) -> Result<Schedule, CronError> {
        let trimmed = text.trim_start();
        let lead = text.len() - trimmed.len();
        if let Some(rest) = trimmed.strip_prefix("CRON_TZ=") {
            let name = rest.split_whitespace().next().unwrap_or("");
            let at = lead + "CRON_TZ=".len();
            let tz = jiff::tz::TimeZone::get(name).map_err(|_| {
                error(at, format!("unknown time zone {name:?}: a name of the tz database, such as Europe/Berlin or America/New_York"))
            })?;
            let after = at + name.len();
            let mut schedule = Schedule::parse(&text[after..])
                .map_err(|e| error(after + e.column as usize - 1, e.message))?;
            schedule.zone = Some(tz);
            return Ok(schedule);
        }
        let spec = trimmed.trim_end();
        if let Some(name) = spec.strip_prefix('@') {
            let expanded = match name.to_ascii_lowercase().as_str() {
                "yearly" | "annually" => "0 0 1 1 *",
                "monthly" => "0 0 1 * *",
                "weekly" => "0 0 * * 0",
                "daily" | "midnight" => "0 0 * * *",
                "hourly" => "0 * * * *",
                "reboot" => return Err(error(lead, "@reboot has no meaning here: a FIFO does not boot")),
                _ => {
                    return Err(error(
                        lead,
                        format!("unknown shorthand @{name}: @hourly, @daily, @midnight, @weekly, @monthly, @yearly or @annually"),
                    ))
                }
            };
            return Schedule::parse(expanded).map_err(|e| error(lead, e.message));
        }
        let mut words = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    words.push((s, &text[s..i]));
                    start = None;
                }
                _ => {}
            }
        }
        if words.len() != 5 {
            let at = words.get(5).map_or(text.len(), |w| w.0);
            return Err(error(
                at,
                format!(
                    "a schedule has five fields (minute hour day-of-month month day-of-week) or is a shorthand like @daily; this has {}",
                    words.len()
                ),
            ));
        }
        let mut sets = [0u64; 5];
        for (i, (at, word)) in words.iter().enumerate() {
            sets[i] = field(&FIELDS[i], word, *at)?;
        }
        // 7 is Sunday as 0 is.
        let weekdays = (sets[4] | (sets[4] >> 7)) & 0x7f;
        Ok(Schedule {
            minutes: sets[0],
            hours: sets[1],
            days: sets[2],
            months: sets[3],
            weekdays,
            days_restricted: !words[2].1.starts_with('*'),
            weekdays_restricted: !words[4].1.starts_with('*'),
            zone: None,
        })
    }

    /// Whether a day (days since 1970-01-01) is one the schedule runs on.
    fn runs_on(&self, day: i64) -> bool {
        let (_, month, mday) = civil_from_days(day);
        if self.months & (1 << month) == 0 {
            return false;
        }
        // 1970-01-01 was a Thursday.
        let weekday = (day + 4).rem_euclid(7);
        let by_date = self.days & (1 << mday) != 0;
        let by_weekday = self.weekdays & (1 << weekday) != 0;
        // An unrestricted field has every bit set, unless it is `*/N`: then both must
        // match, as cron has it.
        if self.days_restricted && self.weekdays_restricted {
            by_date || by_weekday
        } else {
            by_date && by_weekday
        }
    }

    /// The first run strictly after `after` (ms since the epoch, UTC), on a whole minute;
    /// `None` when there is none within eight years. With a zone, days and times are the
    /// zone's: a local time the clocks skip or repeat becomes one instant by RFC 5545's
    /// rule (jiff's "compatible"), and the first that lies after `after` is the run.
    pub fn next_after(&self, after: i64) -> Option<i64> {
        let offset_ms = match &self.zone {
            None => 0,
            Some(tz) => {
                let instant = jiff::Timestamp::from_millisecond(after).ok()?;
                i64::from(tz.to_offset(instant).seconds()) * 1000
            }
        };
        let local_minute = (after + offset_ms).div_euclid(MINUTE_MS);
        let first = local_minute + 1; // the next whole minute
        let start = if self.zone.is_none() {
            first.div_euclid(DAY_MINUTES)
        } else {
            local_minute.div_euclid(DAY_MINUTES)
        };
        for day in start..start + HORIZON_DAYS {
            if !self.runs_on(day) {
                continue;
            }
            // In UTC the first day starts at the next whole minute. In a zone the whole
            // day is looked at: a time the clocks skipped may come out after `after`.
            let from = if day == start && self.zone.is_none() {
                first.rem_euclid(DAY_MINUTES)
            } else {
                0
            };
            for minute_of_day in from..DAY_MINUTES {
                let (h, m) = (minute_of_day / 60, minute_of_day % 60);
                if self.hours & (1 << h) == 0 || self.minutes & (1 << m) == 0 {
                    continue;
                }
                let at = match &self.zone {
                    None => (day * DAY_MINUTES + minute_of_day) * MINUTE_MS,
                    Some(tz) => {
                        let (y, mo, d) = civil_from_days(day);
                        let wall = jiff::civil::DateTime::new(
                            y as i16, mo as i8, d as i8, h as i8, m as i8, 0, 0,
                        )
                        .ok()?;
                        tz.to_ambiguous_timestamp(wall)
                            .compatible()
                            .ok()?
                            .as_millisecond()
                    }
                };
                if at > after {
                    return Some(at);
                }
            }
        }
        None
    }

    /// The runs due at `now` when the next one was due at `due`: how many of them were
    /// missed besides the one that runs now (all are run as one), and the run after `now`.
    pub fn catch_up(&self, due: i64, now: i64) -> (u32, Option<i64>) {
        let mut missed = 0;
        let mut next = self.next_after(due);
        while let Some(at) = next.filter(|&at| at <= now) {
            missed += 1;
            if missed >= 10_000 {
                // Years of minutes: counting them all would spend the alarm on it.
                return (missed, self.next_after(now));
            }
            next = self.next_after(at);
        }
        (missed, next)
    }
}

/// A field's values as bits.
fn field(f: &Field, word: &str, at: usize) -> Result<u64, CronError> {
    let mut set = 0u64;
    let mut offset = 0;
    for part in word.split(',') {
        let col = at + offset;
        offset += part.len() + 1;
        if part.is_empty() {
            return Err(error(col, format!("an empty item in the {} field", f.what)));
        }
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => {
                let n: u32 = step.parse().map_err(|_| {
                    error(
                        col + range.len() + 1,
                        format!("a step is a whole number: /{step}"),
                    )
                })?;
                if n == 0 || n > f.max {
                    return Err(error(
                        col + range.len() + 1,
                        format!("a step of the {} field is 1 to {}: /{step}", f.what, f.max),
                    ));
                }
                (range, n)
            }
            None => (part, 1),
        };
        let (lo, hi) = if range == "*" {
            (f.min, f.max)
        } else if let Some((a, b)) = range.split_once('-') {
            let lo = value(f, a, col)?;
            let hi = value(f, b, col + a.len() + 1)?;
            if lo > hi {
                return Err(error(
                    col,
                    format!("a range of the {} field goes up: {range}", f.what),
                ));
            }
            (lo, hi)
        } else {
            let v = value(f, range, col)?;
            // `A/N` is from A to the end, as cron reads it.
            (v, if part.contains('/') { f.max } else { v })
        };
        let mut v = lo;
        while v <= hi {
            set |= 1 << v;
            v += step;
        }
    }
    Ok(set)
}

fn value(f: &Field, text: &str, col: usize) -> Result<u32, CronError> {
    let lower = text.to_ascii_lowercase();
    if let Some(i) = f.names.iter().position(|n| *n == lower) {
        return Ok(i as u32 + f.first_named);
    }
    let n: u32 = text.parse().map_err(|_| {
        let names = if f.names.is_empty() {
            String::new()
        } else {
            format!(" or a name ({}...)", f.names[..3].join(", "))
        };
        error(
            col,
            format!("the {} field takes a number{names}, not '{text}'", f.what),
        )
    })?;
    if n < f.min || n > f.max {
        return Err(error(
            col,
            format!("the {} field is {} to {}, not {n}", f.what, f.min, f.max),
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::days_from_civil;

    /// ms of a UTC date and time.
    fn at(y: i64, mo: i64, d: i64, h: i64, mi: i64) -> i64 {
        (days_from_civil(y, mo, d).unwrap() * DAY_MINUTES + h * 60 + mi) * MINUTE_MS
    }

    fn next(spec: &str, after: i64) -> i64 {
        Schedule::parse(spec).unwrap().next_after(after).unwrap()
    }

    /// The next `n` runs after `after`.
    fn runs(spec: &str, after: i64, n: usize) -> Vec<i64> {
        let s = Schedule::parse(spec).unwrap();
        let mut out = Vec::new();
        let mut t = after;
        for _ in 0..n {
            t = s.next_after(t).unwrap();
            out.push(t);
        }
        out
    }

    #[test]
    fn every_minute_is_the_next_whole_minute() {
        let t = at(2026, 12, 2, 18, 40);
        assert_eq!(next("* * * * *", t), t + MINUTE_MS);
        assert_eq!(next("* * * * *", t + 1), t + MINUTE_MS);
        assert_eq!(next("* * * * *", t - 1), t);
    }

    #[test]
    fn fields_and_steps() {
        let t = at(2026, 1, 1, 0, 0);
        // "*/15": 0, 15, 30, 45.
        assert_eq!(
            runs("*/15 * * * *", t, 4),
            vec![
                at(2026, 1, 1, 0, 15),
                at(2026, 1, 1, 0, 30),
                at(2026, 1, 1, 0, 45),
                at(2026, 1, 1, 1, 0)
            ]
        );
        // Ranges with steps and lists: 9-17/4 is 9, 13, 17.
        assert_eq!(
            runs("30 9-17/4,23 * * *", t, 5),
            vec![
                at(2026, 1, 1, 9, 30),
                at(2026, 1, 1, 13, 30),
                at(2026, 1, 1, 17, 30),
                at(2026, 1, 1, 23, 30),
                at(2026, 1, 2, 9, 30)
            ]
        );
        // "A/N" runs from A to the end of the range.
        assert_eq!(
            runs("50/5 0 * * *", t, 3),
            vec![
                at(2026, 1, 1, 0, 50),
                at(2026, 1, 1, 0, 55),
                at(2026, 1, 2, 0, 50)
            ]
        );
        // Names, any case; months.
        assert_eq!(next("0 12 1 Jun-aug *", t), at(2026, 6, 1, 12, 0));
        assert_eq!(next("0 0 * * SAT", t), at(2026, 1, 3, 0, 0)); // 2026-01-01 is a Thursday
    }

    #[test]
    fn sunday_is_0_and_7() {
        let t = at(2026, 1, 1, 0, 0);
        assert_eq!(next("0 0 * * 0", t), at(2026, 1, 4, 0, 0));
        assert_eq!(next("0 0 * * 7", t), at(2026, 1, 4, 0, 0));
        assert_eq!(next("0 0 * * 5-7", t), at(2026, 1, 2, 0, 0));
    }

    #[test]
    fn both_day_fields_restricted_means_either() {
        // cron(5): "30 4 1,15 * 5" runs on the 1st and 15th and on every Friday.
        let t = at(2026, 1, 1, 5, 0);
        assert_eq!(
            runs("30 4 1,15 * 5", t, 4),
            vec![
                at(2026, 1, 2, 4, 30),
                at(2026, 1, 9, 4, 30),
                at(2026, 1, 15, 4, 30),
                at(2026, 1, 16, 4, 30)
            ]
        );
        // One of them `*`: the other decides alone.
        assert_eq!(next("0 0 13 * *", t), at(2026, 1, 13, 0, 0));
        assert_eq!(next("0 0 * * 2", t), at(2026, 1, 6, 0, 0));
        // A day field starting with `*` counts as unrestricted even with a step, as cron
        // reads it: "*/2 in day of month, Monday" runs on Mondays that are odd days only.
        assert_eq!(
            runs("0 0 */2 * 1", t, 2),
            vec![at(2026, 1, 5, 0, 0), at(2026, 1, 19, 0, 0)]
        );
    }

    #[test]
    fn shorthands() {
        let t = at(2026, 5, 17, 13, 7);
        assert_eq!(next("@hourly", t), at(2026, 5, 17, 14, 0));
        assert_eq!(next("@daily", t), at(2026, 5, 18, 0, 0));
        assert_eq!(next("@midnight", t), at(2026, 5, 18, 0, 0));
        assert_eq!(next("@weekly", t), at(2026, 5, 24, 0, 0)); // a Sunday
        assert_eq!(next("@monthly", t), at(2026, 6, 1, 0, 0));
        assert_eq!(next("@yearly", t), at(2027, 1, 1, 0, 0));
        assert_eq!(next("@annually", t), at(2027, 1, 1, 0, 0));
    }

    #[test]
    fn leap_days_and_never() {
        assert_eq!(
            next("0 0 29 2 *", at(2026, 1, 1, 0, 0)),
            at(2028, 2, 29, 0, 0)
        );
        let never = Schedule::parse("0 0 30 2 *").unwrap();
        assert_eq!(never.next_after(at(2026, 1, 1, 0, 0)), None);
        assert_eq!(
            next("0 0 31 * *", at(2026, 4, 1, 0, 0)),
            at(2026, 5, 31, 0, 0)
        );
    }

    #[test]
    fn missed_runs_run_once() {
        let s = Schedule::parse("*/10 * * * *").unwrap();
        let due = at(2026, 1, 1, 0, 10);
        assert_eq!(
            s.catch_up(due, due + 2_000),
            (0, Some(at(2026, 1, 1, 0, 20)))
        );
        // Woken at 00:45: 00:20, 00:30 and 00:40 were missed too.
        assert_eq!(
            s.catch_up(due, at(2026, 1, 1, 0, 45)),
            (3, Some(at(2026, 1, 1, 0, 50)))
        );
    }

    /// The expected instants were computed with Python's zoneinfo (a wall time with
    /// `fold=0`, converted to UTC).
    #[test]
    fn cron_tz_runs_on_the_zone_s_clock() {
        let berlin = "CRON_TZ=Europe/Berlin 0 9 * * *";
        assert_eq!(next(berlin, at(2026, 12, 6, 0, 0)), at(2026, 12, 6, 8, 0));
        assert_eq!(next(berlin, at(2026, 7, 1, 0, 0)), at(2026, 7, 1, 7, 0));
        // Days are the zone's: Monday 08:00 in Tokyo is Sunday 23:00 in UTC.
        assert_eq!(
            next("CRON_TZ=Asia/Tokyo 0 8 * * mon", at(2026, 12, 6, 0, 0)),
            at(2026, 12, 6, 23, 0)
        );
        // 02:30 is skipped when Berlin goes from 02:00 to 03:00: it runs at 03:30 (01:30Z).
        assert_eq!(
            next("CRON_TZ=Europe/Berlin 30 2 * * *", at(2026, 3, 28, 12, 0)),
            at(2026, 3, 29, 1, 30)
        );
        // 02:30 comes twice when Berlin goes from 03:00 back to 02:00: it runs the first time.
        assert_eq!(
            runs(
                "CRON_TZ=Europe/Berlin 30 2 * * *",
                at(2026, 10, 24, 12, 0),
                2
            ),
            vec![at(2026, 10, 25, 0, 30), at(2026, 10, 26, 1, 30)]
        );
        // Every half hour through New York's spring forward: 02:00 and 02:30 become 03:00 and
        // 03:30, which run once each.
        assert_eq!(
            runs(
                "CRON_TZ=America/New_York */30 * * * *",
                at(2026, 3, 8, 6, 0),
                4
            ),
            vec![
                at(2026, 3, 8, 6, 30),
                at(2026, 3, 8, 7, 0),
                at(2026, 3, 8, 7, 30),
                at(2026, 3, 8, 8, 0)
            ]
        );
        assert_eq!(
            next("CRON_TZ=UTC @daily", at(2026, 12, 6, 0, 0)),
            at(2026, 12, 7, 0, 0)
        );
        let unknown = Schedule::parse("CRON_TZ=Mars/Olympus 0 9 * * *").unwrap_err();
        assert_eq!(unknown.column, 9);
        assert!(
            unknown
                .message
                .starts_with("unknown time zone \"Mars/Olympus\""),
            "{}",
            unknown.message
        );
        let field = Schedule::parse("CRON_TZ=Europe/Berlin 61 * * * *").unwrap_err();
        assert_eq!(field.column, 23);
    }

    #[test]
    fn errors_point_at_their_column() {
        let e = |s: &str| Schedule::parse(s).unwrap_err();
        assert_eq!(e("60 * * * *").column, 1);
        assert_eq!(
            e("60 * * * *").message,
            "the minute field is 0 to 59, not 60"
        );
        assert_eq!(e("* 24 * * *").column, 3);
        assert_eq!(e("* * 0 * *").column, 5);
        assert_eq!(e("* * * 13 *").column, 7);
        assert_eq!(e("* * * * 8").column, 9);
        assert_eq!(e("* * * * mon-fry").column, 13);
        assert_eq!(e("*/0 * * * *").column, 3);
        assert_eq!(e("0 5-1 * * *").column, 3);
        assert_eq!(e("0,,5 * * * *").column, 3);
        assert_eq!(e("* * * *").column, 8);
        assert_eq!(e("* * * * * *").column, 11);
        assert_eq!(e("  @sometimes").column, 3);
        assert!(e("@reboot").message.contains("does not boot"));
        assert!(e("x * * * *").message.contains("takes a number, not 'x'"));
    }
}
