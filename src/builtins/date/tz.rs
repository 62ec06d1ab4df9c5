//! Time zones for `date` as glibc reads `TZ`: a tz database name (from the bundled
//! database, for the Worker has none on disk), a POSIX TZ string, or glibc's fallbacks.
//! Also the calendar arithmetic (`localtime`, `mktime`) on 64-bit years.

use jiff::tz::TimeZone;

use super::format::Tm;
use crate::calendar::{civil_from_days, days_from_civil};

/// A time zone: jiff's, or a fixed offset with the name glibc would give it.
#[derive(Debug, Clone)]
pub enum Zone {
    Jiff(TimeZone),
    /// A POSIX TZ string: glibc applies its rule from 1970 on; before, what held at 1970.
    Posix(TimeZone, OffsetInfo),
    Fixed {
        offset: i32,
        name: String,
    },
}

/// What a zone says about one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetInfo {
    pub offset: i32,
    pub dst: bool,
    pub abbrev: String,
}

const SECS_PER_DAY: i64 = 86_400;
/// The range jiff's timestamps cover; a zone is asked about the nearest moment inside it.
const JIFF_MIN: i64 = -377_705_023_201 + SECS_PER_DAY;
const JIFF_MAX: i64 = 253_402_207_200 - SECS_PER_DAY;
/// The seconds in 400 Gregorian years, after which calendars repeat.
const CYCLE: i64 = 146_097 * SECS_PER_DAY;

impl Zone {
    pub fn utc() -> Zone {
        Zone::Fixed {
            offset: 0,
            name: "UTC".into(),
        }
    }

    /// The zone of a `TZ` value; `None` (unset) is UTC, as on a host whose local time is UTC.
    pub fn from_tz(tz: Option<&[u8]>) -> Zone {
        let Some(tz) = tz else {
            return Zone::utc();
        };
        let tz = tz.strip_prefix(b":").unwrap_or(tz);
        if tz.is_empty() {
            return Zone::utc();
        }
        let Ok(s) = std::str::from_utf8(tz) else {
            return Zone::posix_fallback(tz);
        };
        // glibc looks for a file first, so `EST5EDT` or `UTC` is the database's.
        if is_db_name(s) {
            if let Ok(z) = TimeZone::get(s) {
                return Zone::Jiff(z);
            }
        }
        if let Ok(z) = TimeZone::posix(s) {
            return Zone::posix(z);
        }
        // A DST name without rules follows the US rules, as glibc's default does.
        if !s.contains(',') {
            if let Ok(z) = TimeZone::posix(&format!("{s},M3.2.0,M11.1.0")) {
                return Zone::posix(z);
            }
        }
        Zone::posix_fallback(tz)
    }

    fn posix(z: TimeZone) -> Zone {
        // Before 1970 glibc keeps what the rule says at its start.
        let first = Zone::Jiff(z.clone()).info(0);
        Zone::Posix(z, first)
    }

    /// What glibc makes of a TZ it cannot read: UTC, named by the leading name if that is a
    /// valid one, with the offset after it when there is one.
    fn posix_fallback(tz: &[u8]) -> Zone {
        let (name, rest) = if let Some(inner) = tz.strip_prefix(b"<") {
            match inner.iter().position(|&b| b == b'>') {
                Some(end) => (&inner[..end], &inner[end + 1..]),
                None => (&b""[..], &b""[..]),
            }
        } else {
            let n = tz.iter().take_while(|b| b.is_ascii_alphabetic()).count();
            (&tz[..n], &tz[n..])
        };
        if name.len() < 3 {
            return Zone::Fixed {
                offset: 0,
                name: String::new(),
            };
        }
        let name = String::from_utf8_lossy(name).into_owned();
        let offset = parse_posix_offset(rest).unwrap_or(0);
        Zone::Fixed { offset, name }
    }

    /// The offset, DST flag and abbreviation at `t`.
    pub fn info(&self, t: i64) -> OffsetInfo {
        match self {
            Zone::Fixed { offset, name } => OffsetInfo {
                offset: *offset,
                dst: false,
                abbrev: name.clone(),
            },
            Zone::Posix(_, std) if t < 0 => std.clone(),
            Zone::Jiff(z) | Zone::Posix(z, _) => {
                // Past jiff's range, the rules repeat every 400 years.
                let t = if t > JIFF_MAX {
                    let k = i128::from(t - JIFF_MAX) / i128::from(CYCLE) + 1;
                    (i128::from(t) - k * i128::from(CYCLE)) as i64
                } else {
                    t.max(JIFF_MIN)
                };
                let ts = jiff::Timestamp::from_second(t).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
                let i = z.to_offset_info(ts);
                OffsetInfo {
                    offset: i.offset().seconds(),
                    dst: i.dst().is_dst(),
                    abbrev: i.abbreviation().to_string(),
                }
            }
        }
    }

    /// `t` broken down in this zone, or `None` when the year does not fit in an `int`.
    pub fn localtime(&self, t: i64, nanos: u32) -> Option<(Tm, bool)> {
        let info = self.info(t);
        let tm = breakdown(t, nanos, info.offset, info.abbrev)?;
        Some((tm, info.dst))
    }

    /// The moment that reads as `f` on this zone's clocks, `f` normalized as mktime does,
    /// found as glibc finds it: from a guess made with the offset of the previous call
    /// (`cache`), so an ambiguous reading depends on it. `isdst` >= 0 asks for a reading
    /// with (or without) daylight saving time, borrowing the offset of a nearby moment
    /// that has it.
    pub fn mktime(&self, f: &Fields, isdst: i32, cache: &mut i32) -> Option<i64> {
        let local = f.to_local_seconds()?;
        if let Zone::Fixed { offset, .. } = self {
            return local.checked_sub(*offset as i64);
        }
        let mut t = local.checked_sub(*cache as i64)?;
        let mut used = *cache;
        let mut prev: Option<i64> = None;
        for _ in 0..8 {
            let o = self.info(t).offset;
            let nt = local.checked_sub(o as i64)?;
            if nt == t {
                used = o;
                break;
            }
            if prev == Some(nt) {
                // A gap: read the clock with the offset in force before it.
                let o = self.info(t.min(nt)).offset;
                used = o;
                t = local.checked_sub(o as i64)?;
                break;
            }
            prev = Some(t);
            t = nt;
            used = o;
        }
        if isdst >= 0 && self.info(t).dst != (isdst > 0) {
            let want = isdst > 0;
            let mut found = false;
            'search: for k in 1..=1500i64 {
                for probe in [
                    t.saturating_sub(k * 3600 * 6),
                    t.saturating_add(k * 3600 * 6),
                ] {
                    let i = self.info(probe);
                    if i.dst == want {
                        used = i.offset;
                        t = local.checked_sub(i.offset as i64)?;
                        found = true;
                        break 'search;
                    }
                }
            }
            if !found {
                // No moment nearby has the DST flag asked for: glibc fails.
                return None;
            }
        }
        *cache = used;
        Some(t)
    }
}

/// A name glibc would look up as a file under /usr/share/zoneinfo.
fn is_db_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('/')
        && !s.split('/').any(|p| p == ".." || p.is_empty())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/_-+".contains(&b))
}

/// `[+-]hh[:mm[:ss]]` as POSIX writes it (west positive), as seconds east of UTC.
fn parse_posix_offset(s: &[u8]) -> Option<i32> {
    let (sign, s) = match s.first() {
        Some(b'-') => (1, &s[1..]),
        Some(b'+') => (-1, &s[1..]),
        _ => (-1, s),
    };
    let mut parts = s.split(|&b| b == b':');
    let mut total = 0i32;
    for (i, mult) in [3600, 60, 1].into_iter().enumerate() {
        let Some(p) = parts.next() else { break };
        let n = p.iter().take_while(|b| b.is_ascii_digit()).count();
        if n == 0 {
            if i == 0 {
                return None;
            }
            break;
        }
        let v: i32 = std::str::from_utf8(&p[..n]).ok()?.parse().ok()?;
        total = total.checked_add(v.checked_mul(mult)?)?;
        if n != p.len() {
            break;
        }
    }
    Some(sign * total)
}

/// Calendar fields as mktime takes them: any of them may be out of range.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fields {
    pub year: i64,
    /// 0-based, like tm_mon
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
}

impl Fields {
    pub fn of(tm: &Tm) -> Fields {
        Fields {
            year: tm.year,
            month: tm.month as i64 - 1,
            day: tm.day as i64,
            hour: tm.hour as i64,
            minute: tm.minute as i64,
            second: tm.second as i64,
        }
    }

    /// Seconds since the epoch if these fields were read in UTC.
    pub fn to_local_seconds(self) -> Option<i64> {
        let year = self.year.checked_add(self.month.div_euclid(12))?;
        let month = self.month.rem_euclid(12) + 1;
        let days = days_from_civil(year, month, 1)?.checked_add(self.day.checked_sub(1)?)?;
        days.checked_mul(SECS_PER_DAY)?
            .checked_add(self.hour.checked_mul(3600)?)?
            .checked_add(self.minute.checked_mul(60)?)?
            .checked_add(self.second)
    }
}

/// `t` at UTC offset `offset`, broken down; `None` past the years an `int` holds.
pub fn breakdown(t: i64, nanos: u32, offset: i32, abbrev: String) -> Option<Tm> {
    let local = t.checked_add(offset as i64)?;
    let days = local.div_euclid(SECS_PER_DAY);
    let secs = local.rem_euclid(SECS_PER_DAY) as u32;
    let (year, month, day) = civil_from_days(days);
    if year - 1900 > i32::MAX as i64 || year - 1900 < i32::MIN as i64 {
        return None;
    }
    let yday = (days - days_from_civil(year, 1, 1)?) as u32;
    let wday = (days + 4).rem_euclid(7) as u32;
    Some(Tm {
        year,
        month,
        day,
        hour: secs / 3600,
        minute: secs / 60 % 60,
        second: secs % 60,
        nanos,
        wday,
        yday,
        offset,
        abbrev,
        epoch: t,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones() {
        let berlin = Zone::from_tz(Some(b"Europe/Berlin"));
        assert_eq!(berlin.info(1_782_907_200).abbrev, "CEST");
        let ny = Zone::from_tz(Some(b"FOO3BAR"));
        assert_eq!(ny.info(1_782_907_200).offset, -7200);
        let bad = Zone::from_tz(Some(b"Foo/Bar"));
        assert_eq!(bad.info(0).abbrev, "Foo");
        assert_eq!(Zone::from_tz(Some(b"ab")).info(0).abbrev, "");
    }
}
