//! jq's date functions in UTC: `gmtime`, `mktime`, `strftime`, `strptime` over jq's
//! "broken down time" arrays `[year, month0, mday, hours, minutes, seconds, wday, yday]`.
//! `localtime` and `strflocaltime` use UTC too.

use jaq_core::ValR;

use std::cell::RefCell;

use super::ops::err;
use super::value::Val;
use crate::builtins::date::tz::Zone;
use crate::calendar::{self, is_leap, DAYS, MONTHS};

/// Days from 1970-01-01; the years here come from C `int`s, far inside the calendar's range.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    calendar::days_from_civil(y, m, d).unwrap_or(0)
}

/// A number as C converts it to `int` on the machines jq runs on: truncated, and
/// `INT_MIN` when it does not fit (or is NaN).
fn c_int(f: f64) -> i64 {
    if f.is_nan() || f >= 2_147_483_648.0 || f <= -2_147_483_649.0 {
        i64::from(i32::MIN)
    } else {
        f.trunc() as i64
    }
}

/// A year as jq prints it: `tm_year + 1900` in a C `int`, which wraps.
fn c_year(year: i64) -> i64 {
    i64::from(year as i32)
}

fn yday(y: i64, m0: i64, d: i64) -> i64 {
    days_from_civil(y, m0 + 1, d) - days_from_civil(y, 1, 1)
}

/// A broken-down time.
#[derive(Debug, Clone, Copy, Default)]
struct Tm {
    year: i64,
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: f64,
    wday: i64,
    yday: i64,
}

/// `t` as a C `time_t` (truncated), or `None` where it does not fit one.
fn time_t(t: f64) -> Option<i64> {
    (-9.223_372_036_854_776e18..9.223_372_036_854_776e18)
        .contains(&t)
        .then(|| t.trunc() as i64)
}

/// `gmtime`: `None` where glibc's fails (the time does not fit a `time_t`, or its year
/// an `int`).
fn from_secs(t: f64) -> Option<Tm> {
    from_secs_at(t, 0)
}

/// [`from_secs`] on clocks `offset` seconds ahead of UTC.
fn from_secs_at(t: f64, offset: i64) -> Option<Tm> {
    // jq converts to `time_t` (truncating) and adds back `t - floor(t)` as a fraction.
    let s = time_t(t)?.checked_add(offset)?;
    let frac = t - t.floor();
    let days = s.div_euclid(86_400);
    let rem = s.rem_euclid(86_400);
    let (y, m, d) = calendar::civil_from_days(days);
    if i32::try_from(y - 1900).is_err() {
        return None;
    }
    let (m, d) = (i64::from(m), i64::from(d));
    Some(Tm {
        year: y,
        mon: m - 1,
        mday: d,
        hour: rem / 3600,
        min: rem % 3600 / 60,
        sec: (rem % 60) as f64 + frac,
        wday: (days + 4).rem_euclid(7),
        yday: yday(y, m - 1, d),
    })
}

const GMTIME_FAILED: &str = "error converting number of seconds since epoch to datetime";

fn to_val(tm: &Tm) -> Val {
    Val::arr(
        [
            c_year(tm.year) as f64,
            tm.mon as f64,
            tm.mday as f64,
            tm.hour as f64,
            tm.min as f64,
            tm.sec,
            tm.wday as f64,
            tm.yday as f64,
        ]
        .into_iter()
        .map(Val::Num)
        .collect(),
    )
}

fn from_val(v: &Val, what: &str) -> ValR<Tm, Val> {
    let Val::Arr(a) = v else {
        return err(format!("{what} requires array inputs"));
    };
    if a.len() < 6 {
        return err(format!("{what} requires array of 6 numbers"));
    }
    let mut n = [0f64; 8];
    for (i, x) in a.iter().take(8).enumerate() {
        match x.as_f64() {
            Some(f) => n[i] = f,
            None => return err(format!("{what} requires parsed datetime inputs")),
        }
    }
    // jq keeps each in a C `int` (`tm_year` as the year - 1900).
    Ok(Tm {
        year: i64::from((c_int(n[0]) as i32).wrapping_sub(1900)) + 1900,
        mon: c_int(n[1]),
        mday: c_int(n[2]),
        hour: c_int(n[3]),
        min: c_int(n[4]),
        sec: c_int(n[5]) as f64,
        wday: c_int(n[6]),
        yday: c_int(n[7]),
    })
}

fn timegm(tm: &Tm) -> i64 {
    let y = tm.year + tm.mon.div_euclid(12);
    let m = tm.mon.rem_euclid(12);
    days_from_civil(y, m + 1, 1) * 86_400
        + (tm.mday - 1) * 86_400
        + tm.hour * 3600
        + tm.min * 60
        + tm.sec.floor() as i64
}

/// The local time of a jq run, as the C library keeps it for a jq process.
#[derive(Default)]
struct Local {
    /// `TZ`, and the zone it names once a function asked for it.
    tz: Option<Vec<u8>>,
    zone: Option<Zone>,
    /// glibc's `tzname[0]` where a `localtime` has set it: the abbreviation of standard
    /// time at the last moment converted (`LMT` before a zone's first rule).
    tzname0: Option<String>,
}

thread_local! {
    static LOCAL: RefCell<Local> = RefCell::new(Local::default());
}

/// Starts a jq run whose `TZ` is `tz` (`None`: unset, which is UTC).
pub fn set_tz(tz: Option<&[u8]>) {
    LOCAL.with(|local| {
        let mut local = local.borrow_mut();
        if local.tz.as_deref() != tz {
            local.tz = tz.map(<[u8]>::to_vec);
            local.zone = None;
        }
        local.tzname0 = None;
    });
}

fn with_local<R>(f: impl FnOnce(&Zone, &mut Option<String>) -> R) -> R {
    LOCAL.with(|local| {
        let mut local = local.borrow_mut();
        let Local { tz, zone, tzname0 } = &mut *local;
        f(
            zone.get_or_insert_with(|| Zone::from_tz(tz.as_deref())),
            tzname0,
        )
    })
}

/// The abbreviation of the standard (not DST) time in force at `t` or last before it.
fn standard_abbrev(z: &Zone, t: i64) -> String {
    let now = z.info(t);
    if !now.dst {
        return now.abbrev;
    }
    (1..=24)
        .map(|months| z.info(t.saturating_sub(months * 30 * 86_400)))
        .find(|i| !i.dst)
        .map_or(now.abbrev, |i| i.abbrev)
}

/// `localtime`: `gmtime` on the zone's clocks at that moment.
fn local_secs(t: f64) -> Option<Tm> {
    let secs = time_t(t)?;
    let offset = with_local(|z, tzname0| {
        *tzname0 = Some(standard_abbrev(z, secs));
        z.info(secs).offset
    });
    from_secs_at(t, i64::from(offset))
}

/// What `%Z` prints: jq hands strftime a time without a zone, so glibc prints
/// `tzname[0]`, the zone's standard time (`CET` in Berlin, in summer too) as `TZ` sets it
/// or as the last `localtime` left it.
fn zone_name() -> String {
    with_local(|z, tzname0| {
        // The lasting rules: those of a year far ahead.
        const JAN_2100: i64 = 4_102_444_800;
        tzname0
            .clone()
            .unwrap_or_else(|| standard_abbrev(z, JAN_2100))
    })
}

pub fn localtime(v: &Val) -> ValR<Val, Val> {
    match v.as_f64() {
        Some(t) => local_secs(t)
            .map(|tm| to_val(&tm))
            .map_or_else(|| err(GMTIME_FAILED), Ok),
        None => err("localtime() requires numeric inputs"),
    }
}

pub fn gmtime(v: &Val) -> ValR<Val, Val> {
    match v.as_f64() {
        Some(t) => from_secs(t)
            .map(|tm| to_val(&tm))
            .map_or_else(|| err(GMTIME_FAILED), Ok),
        None => err("gmtime() requires numeric inputs"),
    }
}

pub fn mktime(v: &Val) -> ValR<Val, Val> {
    if !matches!(v, Val::Arr(_)) {
        return err("mktime requires array inputs");
    }
    let tm = from_val(v, "mktime")?;
    // jq takes the C library's error codes for errors, so the second before the epoch
    // and the one before it are errors too.
    match timegm(&tm) {
        -1 => err("invalid gmtime representation"),
        -2 => err("mktime not supported on this platform"),
        t => Ok(Val::Num(t as f64)),
    }
}

fn iso_week(tm: &Tm) -> (i64, i64) {
    let wday = (tm.wday + 6) % 7; // Monday = 0
    let mut year = tm.year;
    let mut week = (tm.yday - wday + 10) / 7;
    if week < 1 {
        year -= 1;
        let days = if is_leap(year) { 366 } else { 365 };
        week = (tm.yday + days - wday + 10) / 7;
    } else {
        let days = if is_leap(year) { 366 } else { 365 };
        if week == 53 && (tm.yday - wday + 10 - days) / 7 >= 1 && days - tm.yday <= 3 - wday.min(3)
        {
            year += 1;
            week = 1;
        }
    }
    (year, week)
}

pub fn strftime(v: &Val, fmt: &Val, local: bool) -> ValR<Val, Val> {
    let name = if local {
        "strflocaltime/1"
    } else {
        "strftime/1"
    };
    let tm = match v {
        Val::Num(_) | Val::Lit(_) => {
            match if local { local_secs } else { from_secs }(v.as_f64().unwrap_or(0.0)) {
                Some(tm) => tm,
                None => return err(GMTIME_FAILED),
            }
        }
        Val::Arr(_) => from_val(v, name)?,
        _ => return err(format!("{name} requires parsed datetime inputs")),
    };
    let Val::Str(f) = fmt else {
        return err(format!("{name} requires a string format"));
    };
    let mut out = String::new();
    let mut chars = f.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(d) = chars.next() else {
            out.push('%');
            break;
        };
        let sec = tm.sec.floor() as i64;
        let h12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
        let s = match d {
            'Y' => c_year(tm.year).to_string(),
            'C' => format!("{:02}", tm.year.div_euclid(100)),
            'y' => format!("{:02}", tm.year.rem_euclid(100)),
            'm' => format!("{:02}", tm.mon + 1),
            'd' => format!("{:02}", tm.mday),
            'e' => format!("{:2}", tm.mday),
            'H' => format!("{:02}", tm.hour),
            'k' => format!("{:2}", tm.hour),
            'I' => format!("{h12:02}"),
            'l' => format!("{h12:2}"),
            'M' => format!("{:02}", tm.min),
            'S' => format!("{sec:02}"),
            'j' => format!("{:03}", tm.yday + 1),
            'Z' => zone_name(),
            'z' => "+0000".into(),
            'a' => DAYS[tm.wday.rem_euclid(7) as usize][..3].into(),
            'A' => DAYS[tm.wday.rem_euclid(7) as usize].into(),
            'b' | 'h' => MONTHS[tm.mon.rem_euclid(12) as usize][..3].into(),
            'B' => MONTHS[tm.mon.rem_euclid(12) as usize].into(),
            'p' => (if tm.hour < 12 { "AM" } else { "PM" }).into(),
            'P' => (if tm.hour < 12 { "am" } else { "pm" }).into(),
            's' => timegm(&tm).to_string(),
            'u' => (if tm.wday == 0 { 7 } else { tm.wday }).to_string(),
            'w' => tm.wday.to_string(),
            'n' => "\n".into(),
            't' => "\t".into(),
            '%' => "%".into(),
            'D' => format!(
                "{:02}/{:02}/{:02}",
                tm.mon + 1,
                tm.mday,
                tm.year.rem_euclid(100)
            ),
            'F' => format!("{}-{:02}-{:02}", c_year(tm.year), tm.mon + 1, tm.mday),
            'T' => format!("{:02}:{:02}:{sec:02}", tm.hour, tm.min),
            'R' => format!("{:02}:{:02}", tm.hour, tm.min),
            'r' => format!(
                "{h12:02}:{:02}:{sec:02} {}",
                tm.min,
                if tm.hour < 12 { "AM" } else { "PM" }
            ),
            'c' => format!(
                "{} {} {:2} {:02}:{:02}:{sec:02} {}",
                &DAYS[tm.wday.rem_euclid(7) as usize][..3],
                &MONTHS[tm.mon.rem_euclid(12) as usize][..3],
                tm.mday,
                tm.hour,
                tm.min,
                c_year(tm.year)
            ),
            'x' => format!(
                "{:02}/{:02}/{:02}",
                tm.mon + 1,
                tm.mday,
                tm.year.rem_euclid(100)
            ),
            'X' => format!("{:02}:{:02}:{sec:02}", tm.hour, tm.min),
            'U' => format!("{:02}", (tm.yday + 7 - tm.wday) / 7),
            'W' => format!("{:02}", (tm.yday + 7 - (tm.wday + 6) % 7) / 7),
            'V' => format!("{:02}", iso_week(&tm).1),
            'G' => iso_week(&tm).0.to_string(),
            'g' => format!("{:02}", iso_week(&tm).0.rem_euclid(100)),
            other => format!("%{other}"),
        };
        out.push_str(&s);
    }
    Ok(Val::str(out))
}

pub fn strptime(v: &Val, fmt: &Val) -> ValR<Val, Val> {
    let Val::Str(s) = v else {
        return err("strptime/1 requires string inputs and arguments");
    };
    let Val::Str(f) = fmt else {
        return err("strptime/1 requires string inputs and arguments");
    };
    let fail = || err(format!("date \"{s}\" does not match format \"{f}\""));
    let mut tm = Tm {
        mday: 1,
        ..Tm::default()
    };
    tm.year = 1900;
    let b = s.as_bytes();
    let mut i = 0;
    let mut fc = f.chars().peekable();
    let num = |i: &mut usize, max: usize| -> Option<i64> {
        let start = *i;
        let mut neg = false;
        if b.get(*i) == Some(&b'-') || b.get(*i) == Some(&b'+') {
            neg = b[*i] == b'-';
            *i += 1;
        }
        let ds = *i;
        while *i < b.len() && *i - ds < max && b[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i == ds {
            *i = start;
            return None;
        }
        let n: i64 = std::str::from_utf8(&b[ds..*i]).ok()?.parse().ok()?;
        Some(if neg { -n } else { n })
    };
    let mut pm: Option<bool> = None;
    while let Some(c) = fc.next() {
        if c.is_whitespace() {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            continue;
        }
        if c != '%' {
            let mut buf = [0u8; 4];
            let e = c.encode_utf8(&mut buf).as_bytes();
            if b[i..].starts_with(e) {
                i += e.len();
                continue;
            }
            return fail();
        }
        let Some(d) = fc.next() else { return fail() };
        let ok = match d {
            'Y' => num(&mut i, 4).map(|n| tm.year = n).is_some(),
            'm' => num(&mut i, 2).map(|n| tm.mon = n - 1).is_some(),
            'd' | 'e' => {
                while i < b.len() && b[i] == b' ' {
                    i += 1;
                }
                num(&mut i, 2).map(|n| tm.mday = n).is_some()
            }
            'H' | 'k' => num(&mut i, 2).map(|n| tm.hour = n).is_some(),
            'I' | 'l' => num(&mut i, 2).map(|n| tm.hour = n % 12).is_some(),
            'M' => num(&mut i, 2).map(|n| tm.min = n).is_some(),
            'S' => num(&mut i, 2).map(|n| tm.sec = n as f64).is_some(),
            'j' => num(&mut i, 3).map(|n| tm.yday = n - 1).is_some(),
            'y' => num(&mut i, 2)
                .map(|n| tm.year = if n < 69 { 2000 + n } else { 1900 + n })
                .is_some(),
            's' => num(&mut i, 20)
                .and_then(|n| from_secs(n as f64))
                .map(|t| tm = t)
                .is_some(),
            'p' | 'P' => {
                let r = &s[i.min(s.len())..];
                if r.len() >= 2 && r[..2].eq_ignore_ascii_case("am") {
                    pm = Some(false);
                    i += 2;
                    true
                } else if r.len() >= 2 && r[..2].eq_ignore_ascii_case("pm") {
                    pm = Some(true);
                    i += 2;
                    true
                } else {
                    false
                }
            }
            'Z' => {
                while i < b.len() && b[i].is_ascii_alphabetic() {
                    i += 1;
                }
                true
            }
            'z' => {
                if b.get(i) == Some(&b'Z') {
                    i += 1;
                    true
                } else if matches!(b.get(i), Some(b'+' | b'-')) {
                    i += 1;
                    let st = i;
                    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b':') {
                        i += 1;
                    }
                    i > st
                } else {
                    false
                }
            }
            'a' | 'A' => match_name(&DAYS, s, &mut i)
                .map(|n| tm.wday = n as i64)
                .is_some(),
            'b' | 'B' | 'h' => match_name(&MONTHS, s, &mut i)
                .map(|n| tm.mon = n as i64)
                .is_some(),
            'T' => {
                num(&mut i, 2).map(|n| tm.hour = n).is_some()
                    && eat(b, &mut i, b':')
                    && num(&mut i, 2).map(|n| tm.min = n).is_some()
                    && eat(b, &mut i, b':')
                    && num(&mut i, 2).map(|n| tm.sec = n as f64).is_some()
            }
            'R' => {
                num(&mut i, 2).map(|n| tm.hour = n).is_some()
                    && eat(b, &mut i, b':')
                    && num(&mut i, 2).map(|n| tm.min = n).is_some()
            }
            'F' => {
                num(&mut i, 6).map(|n| tm.year = n).is_some()
                    && eat(b, &mut i, b'-')
                    && num(&mut i, 2).map(|n| tm.mon = n - 1).is_some()
                    && eat(b, &mut i, b'-')
                    && num(&mut i, 2).map(|n| tm.mday = n).is_some()
            }
            'D' => {
                num(&mut i, 2).map(|n| tm.mon = n - 1).is_some()
                    && eat(b, &mut i, b'/')
                    && num(&mut i, 2).map(|n| tm.mday = n).is_some()
                    && eat(b, &mut i, b'/')
                    && num(&mut i, 2)
                        .map(|n| tm.year = if n < 69 { 2000 + n } else { 1900 + n })
                        .is_some()
            }
            'n' | 't' => {
                while i < b.len() && b[i].is_ascii_whitespace() {
                    i += 1;
                }
                true
            }
            '%' => eat(b, &mut i, b'%'),
            _ => false,
        };
        if !ok {
            return fail();
        }
    }
    if i != b.len() {
        return fail();
    }
    if pm == Some(true) {
        tm.hour += 12;
    }
    // jq fills in the day of the week and of the year
    let days = days_from_civil(tm.year, tm.mon + 1, tm.mday);
    tm.wday = (days + 4).rem_euclid(7);
    tm.yday = yday(tm.year, tm.mon, tm.mday);
    Ok(to_val(&tm))
}

fn eat(b: &[u8], i: &mut usize, c: u8) -> bool {
    if b.get(*i) == Some(&c) {
        *i += 1;
        true
    } else {
        false
    }
}

fn match_name(names: &[&str], s: &str, i: &mut usize) -> Option<usize> {
    let r = s.get(*i..)?;
    for (n, name) in names.iter().enumerate() {
        for cand in [*name, &name[..3]] {
            if r.len() >= cand.len() && r[..cand.len()].eq_ignore_ascii_case(cand) {
                *i += cand.len();
                return Some(n);
            }
        }
    }
    None
}
