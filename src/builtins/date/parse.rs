//! `date -d STRING`: the free-form date grammar of GNU date (calendar dates, times of day,
//! zones, days of the week, relative items, `@EPOCH`, `TZ="..."`), and how its items combine
//! with the current time into one moment. Spends one step per 16 bytes of the string.

use super::debug::{self, Trace};
use super::tz::{Fields, Zone};
use crate::calendar::{DAYS, MONTHS};

/// A moment: seconds since the epoch and nanoseconds.
pub type Moment = (i64, u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Word {
    Meridian(u8), // 0 am, 1 pm
    Month(i64),
    Day(u32),
    /// A unit and how many of it (a fortnight is 14 days).
    Unit(Unit, i64),
    Ordinal(i64),
    Ago,
    Hence,
    /// `tomorrow`, `yesterday`, `today`, `now`: a relative number of days.
    DayShift(i64),
    /// A zone and its offset; `true` for a daylight-saving zone (`EDT`).
    Zone(i64, bool),
    Dst,
    /// An abbreviation of the local zone, with its DST flag.
    LocalZone(bool),
    T,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    /// A number, `signed` when written with `+` or `-`.
    Num {
        v: i64,
        digits: u32,
        signed: bool,
        neg: bool,
    },
    /// A number with a fraction: whole seconds (rounded toward minus infinity) and nanos.
    Dec {
        s: i64,
        ns: i64,
        signed: bool,
    },
    Word(Word),
    Char(u8),
}

/// Everything the items of a date string say.
#[derive(Debug, Default, Clone)]
struct Items {
    year: Option<(i64, u32)>,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    nanos: i64,
    /// None: 24-hour clock.
    meridian: Option<u8>,
    times: u32,
    dates: u32,
    days: u32,
    zones: u32,
    local_zones: u32,
    rels: bool,
    day_ordinal: i64,
    /// Whether the day's ordinal was written (`next fri`, `2 fri`), for --debug.
    day_written: bool,
    day_number: u32,
    zone: i64,
    local_isdst: bool,
    rel: [i64; 6],
    rel_ns: i64,
}

/// Zone abbreviations every date string may use, with their offsets in minutes east.
const ZONES: &[(&str, i64, bool)] = &[
    ("GMT", 0, false),
    ("UT", 0, false),
    ("UTC", 0, false),
    ("WET", 0, false),
    ("WEST", 60, true),
    ("BST", 60, true),
    ("ART", -180, false),
    ("BRT", -180, false),
    ("BRST", -120, true),
    ("NST", -210, false),
    ("NDT", -150, true),
    ("AST", -240, false),
    ("ADT", -180, true),
    ("CLT", -240, false),
    ("CLST", -180, true),
    ("EST", -300, false),
    ("EDT", -240, true),
    ("CST", -360, false),
    ("CDT", -300, true),
    ("MST", -420, false),
    ("MDT", -360, true),
    ("PST", -480, false),
    ("PDT", -420, true),
    ("AKST", -540, false),
    ("AKDT", -480, true),
    ("HST", -600, false),
    ("HAST", -600, false),
    ("HADT", -540, true),
    ("SST", -720, false),
    ("WAT", 60, false),
    ("CET", 60, false),
    ("CEST", 120, true),
    ("MET", 60, false),
    ("MEZ", 60, false),
    ("MEST", 120, true),
    ("MESZ", 120, true),
    ("EET", 120, false),
    ("EEST", 180, true),
    ("CAT", 120, false),
    ("SAST", 120, false),
    ("EAT", 180, false),
    ("MSK", 180, false),
    ("MSD", 240, true),
    ("IST", 330, false),
    ("SGT", 480, false),
    ("KST", 540, false),
    ("JST", 540, false),
    ("GST", 600, false),
    ("NZST", 720, false),
    ("NZDT", 780, true),
];

/// The local zone's abbreviations, standard and daylight, as the string may name them.
pub struct LocalNames {
    pub names: Vec<(String, bool)>,
}

fn lookup_word(w: &[u8], local: &LocalNames) -> Option<Word> {
    let up: Vec<u8> = w.to_ascii_uppercase();
    let s = std::str::from_utf8(&up).ok()?;
    match s {
        "AM" | "A.M." => return Some(Word::Meridian(0)),
        "PM" | "P.M." => return Some(Word::Meridian(1)),
        _ => {}
    }
    let abbr = match s.len() {
        3 => Some(s),
        4 if s.ends_with('.') => Some(&s[..3]),
        _ => None,
    };
    if let Some(a) = abbr {
        if let Some(i) = MONTHS.iter().position(|m| m[..3].eq_ignore_ascii_case(a)) {
            return Some(Word::Month(i as i64 + 1));
        }
        if let Some(i) = DAYS.iter().position(|d| d[..3].eq_ignore_ascii_case(a)) {
            return Some(Word::Day(i as u32));
        }
    }
    if let Some(i) = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(s)) {
        return Some(Word::Month(i as i64 + 1));
    }
    if s == "SEPT" {
        return Some(Word::Month(9));
    }
    if let Some(i) = DAYS.iter().position(|d| d.eq_ignore_ascii_case(s)) {
        return Some(Word::Day(i as u32));
    }
    match s {
        "TUES" => return Some(Word::Day(2)),
        "WEDNES" => return Some(Word::Day(3)),
        "THUR" | "THURS" => return Some(Word::Day(4)),
        _ => {}
    }
    // The universal names win over the local zone's abbreviations.
    if let "GMT" | "UT" | "UTC" = s {
        return Some(Word::Zone(0, false));
    }
    if let Some((_, dst)) = local.names.iter().find(|(n, _)| n.eq_ignore_ascii_case(s)) {
        return Some(Word::LocalZone(*dst));
    }
    if s == "DST" {
        return Some(Word::Dst);
    }
    let unit = |s: &str| -> Option<Word> {
        Some(match s {
            "YEAR" => Word::Unit(Unit::Year, 1),
            "MONTH" => Word::Unit(Unit::Month, 1),
            "FORTNIGHT" => Word::Unit(Unit::Day, 14),
            "WEEK" => Word::Unit(Unit::Day, 7),
            "DAY" => Word::Unit(Unit::Day, 1),
            "HOUR" => Word::Unit(Unit::Hour, 1),
            "MINUTE" | "MIN" => Word::Unit(Unit::Minute, 1),
            "SECOND" | "SEC" => Word::Unit(Unit::Second, 1),
            _ => return None,
        })
    };
    if let Some(u) = unit(s) {
        return Some(u);
    }
    if let Some(u) = s.strip_suffix('S').and_then(unit) {
        return Some(u);
    }
    let rel = match s {
        "TOMORROW" => Some(Word::DayShift(1)),
        "YESTERDAY" => Some(Word::DayShift(-1)),
        "TODAY" | "NOW" => Some(Word::DayShift(0)),
        "LAST" => Some(Word::Ordinal(-1)),
        "THIS" => Some(Word::Ordinal(0)),
        "NEXT" | "FIRST" => Some(Word::Ordinal(1)),
        "THIRD" => Some(Word::Ordinal(3)),
        "FOURTH" => Some(Word::Ordinal(4)),
        "FIFTH" => Some(Word::Ordinal(5)),
        "SIXTH" => Some(Word::Ordinal(6)),
        "SEVENTH" => Some(Word::Ordinal(7)),
        "EIGHTH" => Some(Word::Ordinal(8)),
        "NINTH" => Some(Word::Ordinal(9)),
        "TENTH" => Some(Word::Ordinal(10)),
        "ELEVENTH" => Some(Word::Ordinal(11)),
        "TWELFTH" => Some(Word::Ordinal(12)),
        "AGO" => Some(Word::Ago),
        "HENCE" => Some(Word::Hence),
        _ => None,
    };
    if rel.is_some() {
        return rel;
    }
    if s == "T" {
        return Some(Word::T);
    }
    let zone = |s: &str| -> Option<Word> {
        if let Some(&(_, m, dst)) = ZONES.iter().find(|(n, _, _)| *n == s) {
            return Some(Word::Zone(m * 60, dst));
        }
        if let [c] = s.as_bytes() {
            let c = *c;
            let h = match c {
                b'A'..=b'I' => (c - b'A' + 1) as i64,
                b'K'..=b'M' => (c - b'K' + 10) as i64,
                b'N'..=b'Y' => -((c - b'N' + 1) as i64),
                b'Z' => 0,
                _ => return None,
            };
            return Some(Word::Zone(h * 3600, false));
        }
        None
    };
    if let Some(z) = zone(s) {
        return Some(z);
    }
    if s.contains('.') {
        let bare: String = s.chars().filter(|&c| c != '.').collect();
        return zone(&bare);
    }
    None
}

/// Why a string does not split into tokens: an unknown word (upper-cased, as --debug
/// names it) or a number too large; `end` is where the bad token ends, `toks` the tokens
/// before it.
struct LexError {
    word: Option<Vec<u8>>,
    end: usize,
    toks: Vec<Tok>,
    ends: Vec<usize>,
}

/// Splits a date string into tokens, with the offset where each ends.
fn lex(s: &[u8], local: &LocalNames) -> Result<(Vec<Tok>, Vec<usize>), Box<LexError>> {
    let mut toks = Vec::new();
    let mut ends = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'(' {
            // Comments nest; an unclosed one runs to the end.
            let mut depth = 0usize;
            while i < s.len() {
                match s[i] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                i += 1;
                if depth == 0 {
                    break;
                }
            }
            continue;
        }
        if c.is_ascii_digit() || c == b'+' || c == b'-' {
            let mut j = i;
            let mut neg = false;
            let signed = !c.is_ascii_digit();
            if signed {
                neg = c == b'-';
                j += 1;
                while j < s.len() && s[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j >= s.len() || !s[j].is_ascii_digit() {
                    // A sign not before a number is ignored.
                    i += 1;
                    continue;
                }
            }
            let start = j;
            let mut v: i64 = 0;
            let mut overflow = false;
            while j < s.len() && s[j].is_ascii_digit() {
                match v
                    .checked_mul(10)
                    .and_then(|x| x.checked_add((s[j] - b'0') as i64))
                {
                    Some(x) => v = x,
                    None => overflow = true,
                }
                j += 1;
            }
            if overflow {
                return Err(Box::new(LexError {
                    word: None,
                    end: i,
                    toks,
                    ends,
                }));
            }
            let digits = (j - start) as u32;
            if j + 1 < s.len() && (s[j] == b'.' || s[j] == b',') && s[j + 1].is_ascii_digit() {
                j += 1;
                let mut ns: i64 = 0;
                let mut n = 0;
                let mut more = false;
                while j < s.len() && s[j].is_ascii_digit() {
                    if n < 9 {
                        ns = ns * 10 + (s[j] - b'0') as i64;
                        n += 1;
                    } else if s[j] != b'0' {
                        more = true;
                    }
                    j += 1;
                }
                while n < 9 {
                    ns *= 10;
                    n += 1;
                }
                // A negative number's fraction counts digits past the ninth.
                let ns_up = ns + i64::from(neg && more);
                let (sec, ns) = if neg {
                    if ns_up > 0 {
                        (-v - 1, 1_000_000_000 - ns_up)
                    } else {
                        (-v, 0)
                    }
                } else {
                    (v, ns)
                };
                toks.push(Tok::Dec { s: sec, ns, signed });
                ends.push(j);
            } else {
                toks.push(Tok::Num {
                    v: if neg { -v } else { v },
                    digits,
                    signed,
                    neg,
                });
                ends.push(j);
            }
            i = j;
            continue;
        }
        if c.is_ascii_alphabetic() {
            let mut j = i;
            while j < s.len() && (s[j].is_ascii_alphabetic() || s[j] == b'.') {
                j += 1;
            }
            match lookup_word(&s[i..j], local) {
                Some(w) => toks.push(Tok::Word(w)),
                None => {
                    return Err(Box::new(LexError {
                        word: Some(s[i..j].to_ascii_uppercase()),
                        end: j,
                        toks,
                        ends,
                    }))
                }
            }
            ends.push(j);
            i = j;
            continue;
        }
        toks.push(Tok::Char(c));
        i += 1;
        ends.push(i);
    }
    Ok((toks, ends))
}

struct Parser<'t> {
    toks: &'t [Tok],
    pos: usize,
    it: Items,
    /// With --debug, a note for each item as it is taken.
    notes: Option<Vec<String>>,
    /// The current year, which a date without one shows in its note.
    now_year: i64,
    /// GNU's notes for "20261130 +1 day" (a hybrid part) leave the number's text to be
    /// shown before the next part but a relative one.
    pending: Option<String>,
    /// Where an item that failed went wrong, when not at the token after its first.
    fail_at: Option<usize>,
    /// Whether the last item ended in a way no further token could extend (GNU's parser
    /// then takes it without reading ahead).
    closed: bool,
}

impl Parser<'_> {
    fn note(&mut self, f: impl FnOnce(&Items) -> String) {
        if let Some(n) = &mut self.notes {
            n.push(f(&self.it));
        }
    }

    /// `parsed KIND part: WHAT`, with nothing after the colon for a second one.
    fn part(&mut self, kind: &str, again: bool, f: impl FnOnce(&Items) -> String) {
        let pending = self.pending.take();
        self.note(|it| {
            let what = if again { String::new() } else { f(it) };
            match pending {
                Some(p) => format!("parsed {kind} part: {p} {what}"),
                None => format!("parsed {kind} part: {what}"),
            }
        });
    }

    fn note_date(&mut self, kind: &str) {
        let now_year = self.now_year;
        self.part(kind, self.it.dates > 1, |it| {
            let y = it.year.map_or(now_year, |(y, _)| y);
            debug::ymd(y, it.month, it.day)
        });
    }

    fn note_time(&mut self, zones_before: u32) {
        // Only the string's first zone is shown with its time.
        let zone = (self.it.zones > zones_before && self.it.zones == 1).then_some(self.it.zone);
        if self.it.times > 1 {
            // A second time shows only its zone, if the string's first.
            let what = zone.map_or(String::new(), |z| format!("UTC{}", debug::offset(z)));
            self.part("time", false, |_| what);
            return;
        }
        self.part("time", false, |it| time_text(it, zone));
    }

    fn note_rel(&mut self) {
        self.note(|it| {
            format!(
                "parsed relative part: {}",
                debug::relative(&it.rel, it.rel_ns)
            )
        });
    }

    fn note_zone(&mut self) {
        self.part("zone", self.it.zones > 1, |it| {
            format!("UTC{}", debug::offset(it.zone))
        });
    }

    fn note_day(&mut self) {
        self.part("day", self.it.days > 1, |it| {
            format!(
                "{} (day ordinal={} number={})",
                day_text(it),
                it.day_ordinal,
                it.day_number
            )
        });
    }
    fn peek(&self, k: usize) -> Option<Tok> {
        self.toks.get(self.pos + k).copied()
    }

    fn unum(&self, k: usize) -> Option<(i64, u32)> {
        match self.peek(k) {
            Some(Tok::Num {
                v,
                digits,
                signed: false,
                ..
            }) => Some((v, digits)),
            _ => None,
        }
    }

    fn snum(&self, k: usize) -> Option<(i64, u32)> {
        match self.peek(k) {
            Some(Tok::Num {
                v,
                digits,
                signed: true,
                ..
            }) => Some((v, digits)),
            _ => None,
        }
    }

    /// Whether the signed number at `k` was written with a minus (`-00` too).
    fn minus(&self, k: usize) -> bool {
        matches!(self.peek(k), Some(Tok::Num { neg: true, .. }))
    }

    fn word(&self, k: usize) -> Option<Word> {
        match self.peek(k) {
            Some(Tok::Word(w)) => Some(w),
            _ => None,
        }
    }

    fn is_char(&self, k: usize, c: u8) -> bool {
        self.peek(k) == Some(Tok::Char(c))
    }

    /// Whether the token `k` places before the current one is the character `c`.
    fn is_char_back(&self, k: usize, c: u8) -> bool {
        self.pos
            .checked_sub(k)
            .is_some_and(|p| self.toks.get(p) == Some(&Tok::Char(c)))
    }

    fn unit_at(&self, k: usize) -> Option<(Unit, i64)> {
        match self.word(k) {
            Some(Word::Unit(u, m)) => Some((u, m)),
            _ => None,
        }
    }

    fn items(&mut self) -> Option<()> {
        while self.pos < self.toks.len() {
            let start = self.pos;
            self.closed = false;
            let done = self.item();
            if let Some(
                Tok::Word(
                    Word::Ago | Word::Hence | Word::Dst | Word::Meridian(_) | Word::DayShift(_),
                )
                | Tok::Char(b','),
            ) = self.pos.checked_sub(1).and_then(|p| self.toks.get(p))
            {
                self.closed = true;
            }
            if done.is_none() {
                // GNU's parser gives up at the first token no rule takes: a word or
                // character that starts no item, else (mostly) the item's second token.
                let alone = matches!(
                    self.toks[start],
                    Tok::Char(_)
                        | Tok::Word(Word::Ago | Word::Hence | Word::Dst | Word::Meridian(_))
                );
                self.pos = self
                    .fail_at
                    .unwrap_or(if alone { start } else { start + 1 });
                return None;
            }
        }
        Some(())
    }

    fn item(&mut self) -> Option<()> {
        let tok = self.peek(0)?;
        match tok {
            Tok::Num {
                v, digits, signed, ..
            } => {
                if !signed {
                    // hh:mm...
                    if self.is_char(1, b':') {
                        let zones = self.it.zones;
                        self.time(true)?;
                        self.note_time(zones);
                        return Some(());
                    }
                    if let Some(Word::Meridian(m)) = self.word(1) {
                        self.pos += 2;
                        self.set_time(v, 0, 0, 0, Some(m));
                        self.note_time(self.it.zones);
                        return Some(());
                    }
                    if self.is_char(1, b'/') {
                        return self.slash_date();
                    }
                    if self.snum(1).is_some() && self.snum(2).is_some() {
                        return self.iso_date();
                    }
                    if let Some(Word::Month(m)) = self.word(1) {
                        // 30 Nov [2026] / 30-Nov-2026
                        self.pos += 2;
                        let year = if let Some((y, d)) = self.snum(0) {
                            self.pos += 1;
                            Some((-y, d))
                        } else if let Some((y, d)) = self.unum(0) {
                            self.pos += 1;
                            Some((y, d))
                        } else {
                            None
                        };
                        self.closed = year.is_some();
                        self.set_date(year, m, v);
                        self.note_date("date");
                        return Some(());
                    }
                    if let Some(Word::Day(d)) = self.word(1) {
                        self.pos += 2;
                        self.set_day(v, d, true);
                        return Some(());
                    }
                }
                if let Some((u, m)) = self.unit_at(1) {
                    self.pos += 2;
                    return self.rel(u, v.checked_mul(m)?, 0, true);
                }
                if signed {
                    return None;
                }
                // "20261130 +1 day": a number, then a signed relative item that takes no "ago".
                if let (Some((n, _)), Some((u, m))) = (self.snum(1), self.unit_at(2)) {
                    self.pos += 3;
                    let notes = self.notes.as_ref().map_or(0, Vec::len);
                    self.number(v, digits)?;
                    if let Some(n) = &mut self.notes {
                        // The number's note waits; the relative item is noted as hybrid.
                        if n.len() > notes {
                            let text = n.pop().unwrap_or_default();
                            let text = text.split_once(": ").map_or("", |x| x.1);
                            self.pending = Some(text.to_string());
                        }
                    }
                    self.rel(u, n.checked_mul(m)?, 0, false)?;
                    if let Some(n) = &mut self.notes {
                        if let Some(last) = n.last_mut() {
                            *last = last.replacen("relative", "hybrid", 1);
                        }
                    }
                    return Some(());
                }
                // "11 -0600": an hour and its zone.
                if self.snum(1).is_some() {
                    self.pos += 1;
                    let zones = self.it.zones;
                    self.set_time(v, 0, 0, 0, None);
                    self.opt_time_zone(true)?;
                    self.note_time(zones);
                    return Some(());
                }
                self.pos += 1;
                self.number(v, digits)
            }
            Tok::Dec { s, ns, .. } => {
                if let Some((Unit::Second, m)) = self.unit_at(1) {
                    self.pos += 2;
                    let _ = m;
                    return self.rel(Unit::Second, s, ns, true);
                }
                None
            }
            Tok::Word(w) => self.word_item(w),
            Tok::Char(_) => None,
        }
    }

    fn word_item(&mut self, w: Word) -> Option<()> {
        match w {
            Word::Month(m) => {
                self.pos += 1;
                // Nov-30-2026
                if let (Some((d, _)), Some((y, yd))) = (self.snum(0), self.snum(1)) {
                    self.pos += 2;
                    self.closed = true;
                    self.set_date(Some((-y, yd)), m, -d);
                    self.note_date("date");
                    return Some(());
                }
                let (d, _) = self.unum(0)?;
                self.pos += 1;
                if self.is_char(0, b',') {
                    if let Some((y, yd)) = self.unum(1) {
                        self.pos += 2;
                        self.closed = true;
                        self.set_date(Some((y, yd)), m, d);
                        self.note_date("date");
                        return Some(());
                    }
                }
                self.set_date(None, m, d);
                self.note_date("date");
                Some(())
            }
            Word::Day(d) => {
                self.pos += 1;
                if self.is_char(0, b',') {
                    self.pos += 1;
                }
                self.set_day(0, d, false);
                Some(())
            }
            Word::Ordinal(n) => {
                if let Some(Word::Day(d)) = self.word(1) {
                    self.pos += 2;
                    self.set_day(n, d, true);
                    return Some(());
                }
                let (u, m) = self.unit_at(1)?;
                self.pos += 2;
                self.rel(u, n.checked_mul(m)?, 0, true)
            }
            Word::Unit(u, m) => {
                self.pos += 1;
                self.rel(u, m, 0, true)
            }
            Word::DayShift(n) => {
                self.pos += 1;
                self.it.rels = true;
                self.it.rel[2] = self.it.rel[2].checked_add(n)?;
                self.note_rel();
                Some(())
            }
            Word::Zone(off, dst) => {
                self.pos += 1;
                self.it.zones += 1;
                let mut off = off;
                if dst {
                    self.it.zone = off;
                    self.note_zone();
                    return Some(());
                }
                if self.word(0) == Some(Word::Dst) {
                    self.pos += 1;
                    off += 3600;
                } else if let Some((n, digits)) = self.snum(0) {
                    if let Some((u, m)) = self.unit_at(1) {
                        // "UTC +1 day": the zone, and a relative item that takes no "ago".
                        self.pos += 2;
                        self.it.zone = off;
                        self.rel(u, n.checked_mul(m)?, 0, false)?;
                        self.note_zone();
                        return Some(());
                    }
                    let neg = self.minus(0);
                    self.pos += 1;
                    off = off.checked_add(self.zone_offset(n, digits, neg)?)?;
                    self.closed = self.is_char_back(2, b':');
                }
                self.it.zone = off;
                self.note_zone();
                Some(())
            }
            Word::LocalZone(dst) => {
                self.pos += 1;
                self.it.local_zones += 1;
                let mut dst = dst;
                let mut word = "";
                if self.word(0) == Some(Word::Dst) {
                    self.pos += 1;
                    dst = true;
                    word = " DST";
                }
                self.it.local_isdst = dst;
                let again = self.it.local_zones > 1;
                self.part("local_zone", again, |_| {
                    format!("isdst={}{word}", i32::from(dst))
                });
                Some(())
            }
            Word::T => {
                // Alone, T is the military zone of UTC-7.
                self.pos += 1;
                self.it.zones += 1;
                self.it.zone = -7 * 3600;
                self.note_zone();
                Some(())
            }
            Word::Meridian(_) | Word::Ago | Word::Hence | Word::Dst => None,
        }
    }

    /// The offset of `+hh`, `+hhmm` or `+hh:mm` after a time or a zone.
    fn zone_offset(&mut self, n: i64, digits: u32, neg: bool) -> Option<i64> {
        let a = n.abs();
        let minutes = if self.is_char(0, b':') {
            let (m, _) = self.unum(1)?;
            self.pos += 2;
            if digits > 2 || m > 59 {
                return None;
            }
            a * 60 + m
        } else if digits <= 2 {
            a * 60
        } else if digits <= 4 {
            (a / 100) * 60 + a % 100
        } else {
            return None;
        };
        if minutes > 24 * 60 {
            return None;
        }
        Some(if neg { -minutes * 60 } else { minutes * 60 })
    }

    fn opt_time_zone(&mut self, allow: bool) -> Option<()> {
        if !allow {
            return Some(());
        }
        if let Some((n, digits)) = self.snum(0) {
            let neg = self.minus(0);
            self.pos += 1;
            let Some(off) = self.zone_offset(n, digits, neg) else {
                // GNU takes the offset, reads one token more, and then gives up.
                self.fail_at = Some(self.pos);
                return None;
            };
            // Only `+hh:mm` is complete: `+hh` might still take a `:mm`.
            self.closed = self.is_char_back(2, b':');
            self.it.zones += 1;
            self.it.zone = off;
        }
        Some(())
    }

    /// hh:mm[:ss[.frac]] [am|pm | +hhmm]
    fn time(&mut self, meridian: bool) -> Option<()> {
        let (h, _) = self.unum(0)?;
        let (m, _) = self.unum(2)?;
        self.pos += 3;
        let (mut s, mut ns) = (0, 0);
        if self.is_char(0, b':') {
            match self.peek(1) {
                Some(Tok::Num {
                    v, signed: false, ..
                }) => {
                    s = v;
                    self.pos += 2;
                }
                Some(Tok::Dec {
                    s: sec,
                    ns: n,
                    signed: false,
                }) => {
                    s = sec;
                    ns = n;
                    self.pos += 2;
                }
                _ => return None,
            }
        }
        if let (true, Some(Word::Meridian(mer))) = (meridian, self.word(0)) {
            self.pos += 1;
            self.set_time(h, m, s, ns, Some(mer));
            return Some(());
        }
        self.set_time(h, m, s, ns, None);
        self.opt_time_zone(true)
    }

    fn slash_date(&mut self) -> Option<()> {
        let (a, ad) = self.unum(0)?;
        let (b, _) = self.unum(2)?;
        self.pos += 3;
        if self.is_char(0, b'/') {
            let (c, cd) = self.unum(1)?;
            self.pos += 2;
            self.closed = true;
            if ad >= 4 {
                self.note(|_| format!("warning: value {a} has {ad} digits. Assuming YYYY/MM/DD"));
                self.set_date(Some((a, ad)), b, c);
            } else {
                self.note(|_| {
                    format!("warning: value {a} has less than 4 digits. Assuming MM/DD/YY[YY]")
                });
                self.set_date(Some((c, cd)), a, b);
            }
        } else {
            self.set_date(None, a, b);
        }
        self.note_date("date");
        Some(())
    }

    /// yyyy-mm-dd, lexed as a number and two negative ones; then maybe `T` and a time.
    fn iso_date(&mut self) -> Option<()> {
        let (y, yd) = self.unum(0)?;
        let (m, _) = self.snum(1)?;
        let (d, _) = self.snum(2)?;
        self.pos += 3;
        self.set_date(Some((y, yd)), -m, -d);
        if self.word(0) == Some(Word::T) {
            // 2026-11-30T12:00: after a date, T must introduce a time.
            if self.unum(1).is_some() && self.is_char(2, b':') {
                self.pos += 1;
                let zones = self.it.zones;
                self.time(false)?;
                let zone = (self.it.zones > zones && self.it.zones == 1).then_some(self.it.zone);
                let again = self.it.dates > 1 || self.it.times > 1;
                let now_year = self.now_year;
                self.part("datetime", again, |it| {
                    let y = it.year.map_or(now_year, |(y, _)| y);
                    format!(
                        "{} {}",
                        debug::ymd(y, it.month, it.day),
                        time_text(it, zone)
                    )
                });
                return Some(());
            }
            // GNU gives up at the token after the one after T.
            self.fail_at = Some(self.pos + 2);
            return None;
        }
        self.note_date("date");
        Some(())
    }

    fn set_date(&mut self, year: Option<(i64, u32)>, month: i64, day: i64) {
        self.it.dates += 1;
        self.it.year = year;
        self.it.month = month;
        self.it.day = day;
    }

    fn set_time(&mut self, h: i64, m: i64, s: i64, ns: i64, mer: Option<u8>) {
        self.it.times += 1;
        self.it.hour = h;
        self.it.minute = m;
        self.it.second = s;
        self.it.nanos = ns;
        self.it.meridian = mer;
    }

    fn set_day(&mut self, ordinal: i64, day: u32, written: bool) {
        self.it.days += 1;
        self.it.day_ordinal = ordinal;
        self.it.day_written = written;
        self.it.day_number = day;
        self.note_day();
    }

    fn rel(&mut self, u: Unit, n: i64, ns: i64, ago: bool) -> Option<()> {
        let (mut n, mut ns) = (n, ns);
        if ago && self.word(0) == Some(Word::Hence) {
            self.pos += 1;
        } else if ago && self.word(0) == Some(Word::Ago) {
            self.pos += 1;
            // Both parts turn negative; the sum is normalized when it is applied.
            n = n.checked_neg()?;
            ns = -ns;
        }
        let i = match u {
            Unit::Year => 0,
            Unit::Month => 1,
            Unit::Day => 2,
            Unit::Hour => 3,
            Unit::Minute => 4,
            Unit::Second => 5,
        };
        self.it.rels = true;
        self.it.rel[i] = self.it.rel[i].checked_add(n)?;
        self.it.rel_ns += ns;
        self.note_rel();
        Some(())
    }

    /// A bare number: the year, a yyyymmdd date or an hhmm time, by what came before it.
    fn number(&mut self, v: i64, digits: u32) -> Option<()> {
        let it = &mut self.it;
        if it.dates > 0 && it.year.is_none() && !it.rels && (it.times > 0 || digits > 2) {
            it.year = Some((v, digits));
            let w = digits as usize;
            self.note(|_| format!("parsed number part: year: {v:0w$}"));
        } else if digits > 4 {
            it.dates += 1;
            it.day = v % 100;
            it.month = v / 100 % 100;
            it.year = Some((v / 10000, digits - 4));
            self.note_date("number");
        } else {
            let (h, m) = if digits <= 2 {
                (v, 0)
            } else {
                (v / 100, v % 100)
            };
            self.set_time(h, m, 0, 0, None);
            let again = self.it.times > 1;
            self.part("number", again, |_| debug::hms(h, m, 0));
        }
        Some(())
    }
}

fn to_year(y: i64, digits: u32) -> i64 {
    // A year written with a plus sign ends up negative: GNU takes it as it is.
    if y < 0 {
        y.saturating_neg()
    } else if digits == 2 {
        if y < 69 {
            y + 2000
        } else {
            y + 1900
        }
    } else {
        y
    }
}

fn to_hour(h: i64, mer: Option<u8>) -> Option<i64> {
    match mer {
        None => (0..24).contains(&h).then_some(h),
        Some(m) => (1..=12).contains(&h).then_some(h % 12 + 12 * m as i64),
    }
}

/// A `TZ="..."` at the start of the string: the zone and the rest of the string.
fn tz_prefix(s: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let t = s.trim_ascii_start();
    let rest = t.strip_prefix(b"TZ=\"")?;
    let mut name = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'"' => return Some((name, &rest[i + 1..])),
            b'\\' if i + 1 < rest.len() && matches!(rest[i + 1], b'\\' | b'"') => {
                name.push(rest[i + 1]);
                i += 2;
            }
            c => {
                name.push(c);
                i += 1;
            }
        }
    }
    None
}

/// The moment a date string names, given the current moment and the local zone; `None`
/// when GNU date would say "invalid date".
pub fn parse(s: &[u8], now: Moment, zone: &Zone) -> Option<Moment> {
    parse_traced(s, now, zone, None)
}

/// As [`parse`], noting each step in `trace` for --debug.
pub fn parse_traced(
    s: &[u8],
    now: Moment,
    zone: &Zone,
    mut trace: Option<&mut Trace>,
) -> Option<Moment> {
    if let Some((name, rest)) = tz_prefix(s) {
        let z = Zone::from_tz(Some(&name));
        if let Some(t) = trace.as_deref_mut() {
            t.tz = Some(name);
            t.tz_in_string = true;
        }
        return parse_in(rest, now, &z, trace);
    }
    parse_in(s, now, zone, trace)
}

fn local_names(zone: &Zone, now: i64) -> LocalNames {
    let mut names: Vec<(String, bool)> = Vec::new();
    let (tm, _) = zone
        .localtime(now, 0)
        .unwrap_or_else(|| zone.localtime(0, 0).expect("the epoch fits"));
    // The abbreviations in use this year, as tzname[] would hold them.
    for m in [0, 6] {
        let f = Fields {
            year: tm.year,
            month: m,
            day: 1,
            ..Default::default()
        };
        if let Some(t) = f.to_local_seconds() {
            let i = zone.info(t);
            if !i.abbrev.is_empty() && !names.iter().any(|(n, _)| *n == i.abbrev) {
                names.push((i.abbrev, i.dst));
            }
        }
    }
    LocalNames { names }
}

/// The time item's note: as written, with the zone it named.
fn time_text(it: &Items, zone: Option<i64>) -> String {
    debug::time(
        it.hour,
        it.minute,
        it.second,
        it.nanos,
        it.meridian == Some(1),
        zone,
    )
}

/// The day of the week as the notes name it.
fn day_text(it: &Items) -> String {
    debug::day(it.day_written.then_some(it.day_ordinal), it.day_number)
}

/// `parsing failed`, and where, as --debug says it.
fn failed(trace: &mut Trace, s: &[u8], end: usize) {
    let rest = s.get(end..).unwrap_or_default();
    if rest.is_empty() {
        trace.note("error: parsing failed".to_string());
    } else {
        let mut n = b"error: parsing failed, stopped at '".to_vec();
        n.extend_from_slice(rest);
        n.push(b'\'');
        trace.note_bytes(n);
    }
}

fn parse_in(s: &[u8], now: Moment, zone: &Zone, trace: Option<&mut Trace>) -> Option<Moment> {
    let t = s.trim_ascii_start();
    if let Some(rest) = t.strip_prefix(b"@") {
        let local = LocalNames { names: Vec::new() };
        let lexed = lex(rest, &local);
        let toks = lexed.as_ref().ok().map(|(t, _)| t.as_slice());
        let m = match toks {
            Some([Tok::Num { v, .. }]) => Some((*v, 0)),
            Some([Tok::Dec { s, ns, .. }]) => Some((*s, *ns as u32)),
            _ => None,
        };
        if let Some(tr) = trace {
            // The seconds, if the string starts with them; then anything else fails.
            let (first, ends) = match &lexed {
                Ok((t, e)) => (t.first(), e.as_slice()),
                Err(e) => (e.toks.first(), e.ends.as_slice()),
            };
            let secs = match first {
                Some(Tok::Num { v, .. }) => Some(*v),
                Some(Tok::Dec { s, .. }) => Some(*s),
                _ => None,
            };
            if let Some(secs) = secs {
                tr.note(format!(
                    "parsed number of seconds part: number of seconds: {secs}"
                ));
            }
            if m.is_none() {
                let end = match (&lexed, secs) {
                    (Ok(_), Some(_)) => ends.get(1).copied().unwrap_or(rest.len()),
                    (Err(e), _) => e.end,
                    (Ok(_), None) => ends.first().copied().unwrap_or(rest.len()),
                };
                failed(tr, rest, end);
                return None;
            }
            let (secs, ns) = m?;
            tr.note("input timezone: '@timespec' - always UTC".to_string());
            let (local, _) = zone.localtime(secs, ns)?;
            let utc = super::tz::breakdown(secs, ns, 0, String::new())?;
            tr.note(tr.zone_line());
            tr.finals(secs, ns, &utc, &local);
        }
        return m;
    }
    let local = local_names(zone, now.0);
    let now_year = zone.localtime(now.0, now.1).map_or(1970, |(tm, _)| tm.year);
    let mut notes = trace.as_ref().map(|_| Vec::new());
    let (toks, ends, lex_error) = match lex(s, &local) {
        Ok((toks, ends)) => (toks, ends, None),
        Err(e) => {
            let e = *e;
            // Without --debug, a string that does not lex is simply invalid.
            notes.as_ref()?;
            (e.toks, e.ends, Some((e.word, e.end)))
        }
    };
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        it: Items::default(),
        notes: notes.take(),
        now_year,
        pending: None,
        fail_at: None,
        closed: false,
    };
    let ok = p.items();
    let Some(tr) = trace else {
        ok?;
        return resolve(&p.it, now, zone, None);
    };
    let mut notes = p.notes.take().unwrap_or_default();
    if let Some((word, end)) = lex_error {
        // The parser reads one token ahead: the last item is taken after the bad word.
        let last = if ok.is_some() && !p.closed {
            notes.pop()
        } else {
            None
        };
        for n in notes.drain(..) {
            tr.note(n);
        }
        if let Some(w) = word {
            tr.note(format!(
                "error: unknown word '{}'",
                String::from_utf8_lossy(&w)
            ));
        }
        if let Some(n) = last {
            tr.note(n);
        }
        failed(tr, s, end);
        return None;
    }
    for n in notes {
        tr.note(n);
    }
    if ok.is_none() {
        let end = ends.get(p.pos).copied().unwrap_or(s.len());
        failed(tr, s, end);
        return None;
    }
    resolve(&p.it, now, zone, Some(tr))
}

/// The items combined with the current time, as GNU does it: the named date and time read
/// on local clocks (mktime), then the day of the week, then relative years, months and
/// days, then the zone's correction, then relative hours, minutes and seconds.
fn resolve(it: &Items, now: Moment, zone: &Zone, mut trace: Option<&mut Trace>) -> Option<Moment> {
    // A note, only with --debug.
    macro_rules! note {
        ($($arg:tt)*) => {
            if let Some(t) = trace.as_deref_mut() {
                t.note(format!($($arg)*));
            }
        };
    }
    let named_zone = (it.zones > 0).then_some(it.zone);
    if let Some(t) = trace.as_deref_mut() {
        let line = t.input_zone(named_zone, it.local_zones > 0 && it.local_isdst);
        t.note(line);
    }
    let mut multiple = false;
    for (n, what) in [
        (it.times, "time"),
        (it.dates, "date"),
        (it.days, "days"),
        (it.local_zones + it.zones, "time-zone"),
    ] {
        if n > 1 {
            note!("error: seen multiple {what} parts");
            multiple = true;
        }
    }
    if multiple {
        return None;
    }
    let (ntm, _) = zone.localtime(now.0, now.1)?;
    let year = match it.year {
        Some((y, d)) => {
            let full = to_year(y, d);
            if full != y && y >= 0 {
                note!("warning: adjusting year value {y} to {full}");
            }
            full
        }
        None => ntm.year,
    };
    let (month, day) = if it.dates > 0 {
        (it.month, it.day)
    } else {
        (ntm.month as i64, ntm.day as i64)
    };
    let (hour, minute, second, nanos) = if it.times > 0 {
        let Some(h) = to_hour(it.hour, it.meridian) else {
            let mer = match it.meridian {
                Some(0) => "am",
                Some(_) => "pm",
                None => "",
            };
            note!("error: invalid hour {}{mer}", it.hour);
            return None;
        };
        note!(
            "using specified time as starting value: '{}'",
            debug::hms(h, it.minute, it.second)
        );
        (h, it.minute, it.second, it.nanos)
    } else if it.rels && it.dates == 0 && it.days == 0 {
        note!(
            "using current time as starting value: '{}'",
            debug::hms(ntm.hour as i64, ntm.minute as i64, ntm.second as i64)
        );
        (
            ntm.hour as i64,
            ntm.minute as i64,
            ntm.second as i64,
            ntm.nanos as i64,
        )
    } else {
        note!("warning: using midnight as starting time: 00:00:00");
        (0, 0, 0, 0)
    };
    let mut f = Fields {
        year,
        month: month - 1,
        day,
        hour,
        minute,
        second,
    };
    // What the fields come to on a clock at the named zone's offset (or UTC's).
    let normalized = |f: &Fields| -> Fields {
        f.to_local_seconds()
            .and_then(|t| super::tz::breakdown(t, 0, 0, String::new()))
            .map_or(*f, |tm| Fields::of(&tm))
    };
    if !(0..60).contains(&minute) || !(0..60).contains(&second) {
        if let Some(t) = trace.as_deref_mut() {
            debug::invalid(t, &f, &normalized(&f), named_zone);
        }
        return None;
    }
    // With no date, time or day named, the fields are now's, with now's DST flag.
    let (_, now_dst) = zone.localtime(now.0, now.1)?;
    let isdst = if it.local_zones > 0 {
        i32::from(it.local_isdst)
    } else if it.dates > 0 || it.times > 0 || it.days > 0 {
        -1
    } else {
        i32::from(now_dst)
    };
    let mut cache = 0i32;
    let mut start = zone.mktime(&f, isdst, &mut cache);
    let valid = |t: Option<i64>| -> Option<(super::format::Tm, bool)> {
        let (tm, dst) = zone.localtime(t?, 0)?;
        (tm.year == f.year
            && tm.month as i64 == f.month + 1
            && tm.day as i64 == f.day
            && tm.hour as i64 == f.hour
            && tm.minute as i64 == f.minute
            && tm.second as i64 == f.second)
            .then_some((tm, dst))
    };
    let mut zone_done = false;
    // The fields as given did not name a moment: say what they came to.
    let invalid = |trace: Option<&mut Trace>, start: Option<i64>| {
        if let Some(t) = trace {
            let got = match (named_zone, start.and_then(|s| zone.localtime(s, 0))) {
                (None, Some((tm, _))) => Fields::of(&tm),
                _ => normalized(&f),
            };
            debug::invalid(t, &f, &got, named_zone);
        }
    };
    let (mut tm, mut dst) = match valid(start) {
        Some(x) => x,
        None => {
            if it.zones == 0 || !(1..=12).contains(&month) || day < 1 {
                invalid(trace.as_deref_mut(), start);
                return None;
            }
            // Read the fields in the zone named instead.
            let local = f.to_local_seconds()?;
            let fixed = super::tz::breakdown(local, 0, 0, String::new())?;
            if fixed.month as i64 != month || fixed.day as i64 != day {
                invalid(trace.as_deref_mut(), None);
                return None;
            }
            let t = local.checked_sub(it.zone)?;
            zone_done = true;
            start = Some(t);
            zone.localtime(t, 0)?
        }
    };
    let mut t = start?;
    if it.dates == 0 && it.days == 0 {
        note!(
            "using current date as starting value: '{}'",
            debug::ymd(year, month, day)
        );
    }
    if it.days > 0 && it.dates > 0 {
        note!(
            "warning: day ({}) ignored when explicit dates are given",
            day_text(it)
        );
    }
    if it.days > 0 && it.dates == 0 {
        let wd = it.day_number as i64;
        let cur = tm.wday as i64;
        let base = (wd - cur + 7) % 7;
        let ord = it.day_ordinal;
        let extra = if ord > 0 && base != 0 { ord - 1 } else { ord };
        let delta = base.checked_add(extra.checked_mul(7)?)?;
        f = Fields::of(&tm);
        f.day = f.day.checked_add(delta)?;
        t = zone.mktime(&f, -1, &mut cache)?;
        (tm, dst) = zone.localtime(t, 0)?;
        note!(
            "new start date: '{}' is '{}'",
            day_text(it),
            debug::fields(&Fields::of(&tm), named_zone)
        );
    }
    // With a zone named, the notes show the fields on its clock.
    let shown = |tm: &super::format::Tm, t: i64| -> Fields {
        if zone_done {
            if let Some(b) = super::tz::breakdown(t, 0, it.zone as i32, String::new()) {
                return Fields::of(&b);
            }
        }
        Fields::of(tm)
    };
    note!(
        "starting date/time: '{}'",
        debug::fields(&shown(&tm, t), named_zone)
    );
    if it.rel[0] != 0 || it.rel[1] != 0 || it.rel[2] != 0 {
        if (it.rel[0] != 0 || it.rel[1] != 0) && tm.day != 15 {
            note!("warning: when adding relative months/years, it is recommended to specify the 15th of the months");
        }
        if it.rel[2] != 0 && tm.hour != 12 {
            note!("warning: when adding relative days, it is recommended to specify noon");
        }
        f = shown(&tm, t);
        f.year = f.year.checked_add(it.rel[0])?;
        f.month = f.month.checked_add(it.rel[1])?;
        f.day = f.day.checked_add(it.rel[2])?;
        let _ = dst;
        t = if zone_done {
            // On the named zone's clock, which has no daylight saving.
            f.to_local_seconds()?.checked_sub(it.zone)?
        } else {
            zone.mktime(&f, isdst, &mut cache)?
        };
        (tm, _) = zone.localtime(t, 0)?;
        note!(
            "after date adjustment ({:+} years, {:+} months, {:+} days),",
            it.rel[0],
            it.rel[1],
            it.rel[2]
        );
        note!(
            "    new date/time = '{}'",
            debug::fields(&shown(&tm, t), named_zone)
        );
    }
    if it.zones > 0 && !zone_done {
        t = t.checked_add(tm.offset as i64)?.checked_sub(it.zone)?;
    }
    note!(
        "'{}' = {t} epoch-seconds",
        debug::fields(&shown(&tm, t), named_zone)
    );
    let rel_secs = it.rel[3]
        .checked_mul(3600)?
        .checked_add(it.rel[4].checked_mul(60)?)?
        .checked_add(it.rel[5])?;
    let t0 = t;
    t = t.checked_add(rel_secs)?;
    let ns = nanos + it.rel_ns;
    t = t.checked_add(ns.div_euclid(1_000_000_000))?;
    let ns = ns.rem_euclid(1_000_000_000) as u32;
    if rel_secs != 0 || it.rel_ns != 0 {
        let before = zone.localtime(t0, 0).map(|(_, d)| d);
        let after = zone.localtime(t, 0).map(|(_, d)| d);
        note!(
            "after time adjustment ({:+} hours, {:+} minutes, {:+} seconds, {:+} ns),",
            it.rel[3],
            it.rel[4],
            it.rel[5],
            it.rel_ns
        );
        note!("    new time = {t} epoch-seconds");
        if before != after {
            note!("warning: daylight saving time changed after time adjustment");
        }
    }
    // The result must break down into a year an int holds.
    let (local, _) = zone.localtime(t, ns)?;
    if let Some(tr) = trace {
        let utc = super::tz::breakdown(t, ns, 0, String::new())?;
        tr.note(tr.zone_line());
        tr.finals(t, ns, &utc, &local);
    }
    Some((t, ns))
}
