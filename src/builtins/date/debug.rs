//! `date --debug`: the notes GNU date prints on stderr while it reads a date string (each
//! item as the parser takes it, the zone it reads the string in, every step from the
//! starting date to the final moment) and the output format. The parser (parse.rs) calls
//! these to word what it found; nothing here parses.

use super::format::Tm;
use super::tz::Fields;
use crate::builtins::common::quote::quote_str;
use crate::calendar::DAYS;

/// The notes of one date string, and what they need to know of the zone in effect.
#[derive(Debug, Default)]
pub struct Trace {
    pub notes: Vec<Vec<u8>>,
    /// The `TZ` in effect (`-u` makes it `UTC0`); `None` when unset.
    pub tz: Option<Vec<u8>>,
    /// Whether `tz` came from a `TZ="..."` at the start of the string.
    pub tz_in_string: bool,
}

impl Trace {
    pub fn new(tz: Option<&[u8]>) -> Trace {
        Trace {
            notes: Vec::new(),
            tz: tz.map(<[u8]>::to_vec),
            tz_in_string: false,
        }
    }

    pub fn note(&mut self, s: String) {
        self.notes.push(s.into_bytes());
    }

    /// A note holding bytes of the string as they are.
    pub fn note_bytes(&mut self, s: Vec<u8>) {
        self.notes.push(s);
    }

    /// The notes as stderr lines.
    pub fn write(&self, out: &mut Vec<u8>) {
        for n in &self.notes {
            out.extend_from_slice(b"date: ");
            out.extend_from_slice(n);
            out.push(b'\n');
        }
    }

    /// Where the string's fields are read: `zone` is the offset a zone item named.
    pub fn input_zone(&self, zone: Option<i64>, local_dst: bool) -> String {
        let what = match (zone, self.tz_in_string) {
            (Some(z), _) => format!("parsed date/time string ({})", offset(z)),
            (_, true) => format!("TZ=\"{}\" in date string", self.tz_text()),
            _ => match self.tz.as_deref() {
                None => "system default".to_string(),
                Some(b"UTC0") => "TZ=\"UTC0\" environment value or -u".to_string(),
                Some(_) => format!("TZ=\"{}\" environment value", self.tz_text()),
            },
        };
        let dst = if local_dst && zone.is_none() {
            ", dst"
        } else {
            ""
        };
        format!("input timezone: {what}{dst}")
    }

    /// The zone the final moment is shown in.
    pub fn zone_line(&self) -> String {
        let what = match self.tz.as_deref() {
            None => "system default".to_string(),
            Some(b"UTC0") => "Universal Time".to_string(),
            Some(_) => format!("TZ=\"{}\" environment value", self.tz_text()),
        };
        format!("timezone: {what}")
    }

    fn tz_text(&self) -> String {
        String::from_utf8_lossy(self.tz.as_deref().unwrap_or_default()).into_owned()
    }

    /// The three `final:` lines: seconds, UTC, and local time with its offset.
    pub fn finals(&mut self, t: i64, ns: u32, utc: &Tm, local: &Tm) {
        self.note(format!("final: {t}.{ns:09} (epoch-seconds)"));
        self.note(format!("final: {} (UTC)", ymd_hms(utc)));
        self.note(format!(
            "final: {} (UTC{})",
            ymd_hms(local),
            offset(local.offset as i64)
        ));
    }
}

/// `(Y-M-D) 2024-01-02`.
pub fn ymd(y: i64, m: i64, d: i64) -> String {
    format!("(Y-M-D) {y:04}-{m:02}-{d:02}")
}

pub fn hms(h: i64, m: i64, s: i64) -> String {
    format!("{h:02}:{m:02}:{s:02}")
}

fn ymd_hms(tm: &Tm) -> String {
    format!(
        "{} {}",
        ymd(tm.year, tm.month as i64, tm.day as i64),
        hms(tm.hour as i64, tm.minute as i64, tm.second as i64)
    )
}

/// Fields (month 0-based, as mktime takes them) and a named zone's offset.
pub fn fields(f: &Fields, zone: Option<i64>) -> String {
    let mut s = format!(
        "{} {}",
        ymd(f.year, f.month + 1, f.day),
        hms(f.hour, f.minute, f.second)
    );
    if let Some(z) = zone {
        s.push_str(&format!(" TZ={}", offset(z)));
    }
    s
}

/// An offset east of UTC: `+05`, `-05:30`, `+00:53:28`.
pub fn offset(secs: i64) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let a = secs.unsigned_abs();
    let mut s = format!("{sign}{:02}", a / 3600);
    if !a.is_multiple_of(3600) {
        s.push_str(&format!(":{:02}", a / 60 % 60));
        if !a.is_multiple_of(60) {
            s.push_str(&format!(":{:02}", a % 60));
        }
    }
    s
}

/// A time of day as written: the hour as given, a fraction, `pm`, a zone.
pub fn time(h: i64, m: i64, s: i64, ns: i64, pm: bool, zone: Option<i64>) -> String {
    let mut out = hms(h, m, s);
    if ns != 0 {
        out.push_str(&format!(".{ns:09}"));
    }
    if pm {
        out.push_str("pm");
    }
    if let Some(z) = zone {
        out.push_str(&format!(" UTC{}", offset(z)));
    }
    out
}

/// A day of the week with its ordinal, as the day part and its warnings name it.
pub fn day(ordinal: Option<i64>, day: u32) -> String {
    let name = &DAYS[day as usize % 7][..3];
    let ord = match ordinal {
        None => return name.to_string(),
        Some(-1) => "last".to_string(),
        Some(0) => "this".to_string(),
        Some(1) => "next/first".to_string(),
        Some(2) => "(SECOND)".to_string(),
        Some(n @ 3..=12) => [
            "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
            "twelfth",
        ][n as usize - 3]
            .to_string(),
        Some(n) => n.to_string(),
    };
    format!("{ord} {name}")
}

/// The relative items so far: years .. seconds, and nanoseconds.
pub fn relative(rel: &[i64; 6], ns: i64) -> String {
    const NAMES: [&str; 6] = [
        "year(s)", "month(s)", "day(s)", "hour(s)", "minutes", "seconds",
    ];
    let mut parts: Vec<String> = rel
        .iter()
        .zip(NAMES)
        .filter(|(v, _)| **v != 0)
        .map(|(v, n)| format!("{v:+} {n}"))
        .collect();
    if ns != 0 {
        parts.push(format!("{ns:+} nanoseconds"));
    }
    if parts.is_empty() {
        return "today/this/now".to_string();
    }
    parts.join(" ")
}

/// The note for a moment mktime could not take as given: the fields asked for, what
/// they came to, marks under those that changed, and GNU's guesses why.
pub fn invalid(trace: &mut Trace, given: &Fields, got: &Fields, zone: Option<i64>) {
    trace.note("error: invalid date/time value:".to_string());
    trace.note(format!("    user provided time: '{}'", fields(given, zone)));
    trace.note(format!("       normalized time: '{}'", fields(got, zone)));
    let pairs = [
        (given.year != got.year, 4 + usize::from(given.year < 0)),
        (given.month != got.month, 2),
        (given.day != got.day, 2),
        (given.hour != got.hour, 2),
        (given.minute != got.minute, 2),
        (given.second != got.second, 2),
    ];
    let mut marks = " ".repeat("    user provided time: '(Y-M-D) ".len());
    for (i, (changed, width)) in pairs.iter().enumerate() {
        if i > 0 {
            marks.push(' ');
        }
        marks.push_str(&(if *changed { "-" } else { " " }).repeat(*width));
    }
    trace.note(marks.trim_end().to_string());
    trace.note("     possible reasons:".to_string());
    let same_date = !pairs[0].0 && !pairs[1].0 && !pairs[2].0;
    if same_date && pairs[3].0 && !pairs[4].0 && !pairs[5].0 {
        trace.note("       non-existing due to daylight-saving time;".to_string());
    }
    let month_days = match given.month.rem_euclid(12) + 1 {
        2 if given.year % 4 == 0 && (given.year % 100 != 0 || given.year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if given.day < 1 || given.day > month_days {
        trace.note("       invalid day/month combination;".to_string());
    }
    trace.note("       numeric values overflow;".to_string());
    trace.note(
        if zone.is_some() {
            "       incorrect timezone"
        } else {
            "       missing timezone"
        }
        .to_string(),
    );
}

/// `date: output format: 'FMT'`, printed before each date is shown.
pub fn output_format(out: &mut Vec<u8>, format: &[u8]) {
    // GNU shows `%-N` as the digits of the clock's resolution it stands for.
    let mut shown = Vec::with_capacity(format.len());
    let mut i = 0;
    while i < format.len() {
        if format[i] == b'%' && format.get(i + 1) == Some(&b'%') {
            shown.extend_from_slice(b"%%");
            i += 2;
        } else if format[i..].starts_with(b"%-N") {
            shown.extend_from_slice(b"%9N");
            i += 3;
        } else {
            shown.push(format[i]);
            i += 1;
        }
    }
    out.extend_from_slice(format!("date: output format: {}\n", quote_str(&shown)).as_bytes());
}
