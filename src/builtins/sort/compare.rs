//! Comparing lines: each line is decorated once with its keys (and their parsed numbers),
//! then compared key by key, then as whole lines unless `-s` or `-u`.

use std::cmp::Ordering;

use super::keys::{self, Ignore, Key, Kind};
use crate::builtins::common::float::{self, SortBits};

/// What sorting needs besides the keys.
pub struct Config {
    pub keys: Vec<Key>,
    pub tab: Option<u8>,
    pub blank: [bool; 256],
    /// Compare whole lines when the keys tie (no `-s`, no `-u`).
    pub last_resort: bool,
    pub reverse_last: bool,
    /// Salt of `-R`.
    pub salt: u64,
}

/// A number as `-n` reads it: sign, integer digits without leading zeros, fraction digits
/// without trailing zeros (offsets into the line). In the C locale GNU sort takes byte
/// 0x80 for a thousands separator: it may stand anywhere among the integer digits.
#[derive(Debug, Clone, Copy, Default)]
pub struct Num {
    neg: bool,
    int: (u32, u32),
    /// Digits in `int`, separators not counted.
    int_len: u32,
    /// Whether `int` holds separators.
    sep: bool,
    frac: (u32, u32),
}

const THOUSANDS_SEP: u8 = 0x80;

/// One key of one line, ready to compare.
#[derive(Debug, Clone, Copy)]
pub enum Val {
    Text,
    Num(Num),
    Human {
        order: i8,
        num: Num,
    },
    /// What `strtold` read: nothing (`None`, which sorts first) or a long double.
    General(Option<SortBits>),
    Month(u8),
    Random(u64),
}

impl Val {
    pub fn is_nan(&self) -> bool {
        matches!(self, Val::General(Some(x)) if x.is_nan())
    }
}

/// A key's place in its line and its parsed value.
#[derive(Debug, Clone, Copy)]
pub struct KeyVal {
    pub start: u32,
    pub end: u32,
    pub val: Val,
}

impl Num {
    fn is_zero(&self) -> bool {
        self.int_len == 0 && self.frac.0 == self.frac.1
    }
}

/// Parses `-n` numbers: blanks, `-`, digits (and separators), `.` and digits.
fn parse_num(line: &[u8], start: usize, end: usize, blank: &[bool; 256]) -> Num {
    let k = &line[..end];
    let mut i = start;
    while i < end && blank[usize::from(k[i])] {
        i += 1;
    }
    let neg = i < end && k[i] == b'-';
    if neg {
        i += 1;
    }
    let mut sep = false;
    while i < end && (k[i] == b'0' || k[i] == THOUSANDS_SEP) {
        i += 1;
    }
    let is = i;
    let mut int_len = 0u32;
    while i < end && (k[i].is_ascii_digit() || k[i] == THOUSANDS_SEP) {
        if k[i] == THOUSANDS_SEP {
            sep = true;
        } else {
            int_len += 1;
        }
        i += 1;
    }
    let int = (is as u32, i as u32);
    let mut frac = (i as u32, i as u32);
    if i < end && k[i] == b'.' {
        i += 1;
        let fs = i;
        while i < end && k[i].is_ascii_digit() {
            i += 1;
        }
        let mut fe = i;
        while fe > fs && k[fe - 1] == b'0' {
            fe -= 1;
        }
        frac = (fs as u32, fe as u32);
    }
    let mut n = Num {
        neg,
        int,
        int_len,
        sep,
        frac,
    };
    if n.is_zero() {
        n.neg = false;
    }
    n
}

/// Where `-h` looks for its suffix: after blanks, `-`, digits, and `.` with digits
/// (separators end the number here).
fn unit_position(line: &[u8], start: usize, end: usize, blank: &[bool; 256]) -> usize {
    let k = &line[..end];
    let mut i = start;
    while i < end && blank[usize::from(k[i])] {
        i += 1;
    }
    if i < end && k[i] == b'-' {
        i += 1;
    }
    while i < end && k[i].is_ascii_digit() {
        i += 1;
    }
    if i < end && k[i] == b'.' {
        i += 1;
        while i < end && k[i].is_ascii_digit() {
            i += 1;
        }
    }
    i
}

fn slice(line: &[u8], r: (u32, u32)) -> &[u8] {
    &line[r.0 as usize..r.1 as usize]
}

fn cmp_magnitude(la: &[u8], a: &Num, lb: &[u8], b: &Num) -> Ordering {
    let (ia, ib) = (slice(la, a.int), slice(lb, b.int));
    let ints = if a.sep || b.sep {
        let digits = |s: &'_ [u8]| {
            s.iter()
                .filter(|&&c| c != THOUSANDS_SEP)
                .copied()
                .collect::<Vec<u8>>()
        };
        a.int_len
            .cmp(&b.int_len)
            .then_with(|| digits(ia).cmp(&digits(ib)))
    } else {
        ia.len().cmp(&ib.len()).then_with(|| ia.cmp(ib))
    };
    ints.then_with(|| slice(la, a.frac).cmp(slice(lb, b.frac)))
}

fn cmp_num(la: &[u8], a: &Num, lb: &[u8], b: &Num) -> Ordering {
    let sign = |n: &Num| {
        if n.is_zero() {
            0
        } else if n.neg {
            -1
        } else {
            1
        }
    };
    let (sa, sb) = (sign(a), sign(b));
    if sa != sb {
        return sa.cmp(&sb);
    }
    match sa {
        0 => Ordering::Equal,
        1 => cmp_magnitude(la, a, lb, b),
        _ => cmp_magnitude(lb, b, la, a),
    }
}

const MONTHS: [&[u8; 3]; 12] = [
    b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV", b"DEC",
];

pub fn month(k: &[u8], blank: &[bool; 256]) -> u8 {
    let skip = k.iter().take_while(|&&b| blank[usize::from(b)]).count();
    let k = &k[skip..];
    for (i, m) in MONTHS.iter().enumerate() {
        if k.len() >= 3
            && k[..3]
                .iter()
                .zip(m.iter())
                .all(|(a, b)| a.to_ascii_uppercase() == *b)
        {
            return i as u8 + 1;
        }
    }
    0
}

fn random_hash(k: &[u8], salt: u64) -> u64 {
    // FNV-1a over the salted key, then a final mix.
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ salt;
    for &b in k {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// Decorates one line: finds and parses every key. Gives the extra work done (`-g`).
pub fn decorate(line: &[u8], cfg: &Config, out: &mut Vec<KeyVal>) -> u64 {
    let mut work = 0;
    for key in &cfg.keys {
        let start = keys::begin(line, key, cfg.tab, &cfg.blank);
        let end = keys::end(line, key, cfg.tab, &cfg.blank).max(start);
        let k = &line[start..end];
        let val = match key.order.kind() {
            Kind::Text | Kind::Version => Val::Text,
            Kind::Numeric => Val::Num(parse_num(line, start, end, &cfg.blank)),
            Kind::Human => {
                let num = parse_num(line, start, end, &cfg.blank);
                let after = unit_position(line, start, end, &cfg.blank);
                // With -f the key is folded to upper case first: `1m` is then `1M`.
                let fold = key.order.fold;
                let suffix = line.get(after).filter(|_| after < end).map(|&c| {
                    if fold {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                });
                let order = match suffix {
                    Some(b'K' | b'k') => 1,
                    Some(b'M') => 2,
                    Some(b'G') => 3,
                    Some(b'T') => 4,
                    Some(b'P') => 5,
                    Some(b'E') => 6,
                    Some(b'Z') => 7,
                    Some(b'Y') => 8,
                    _ => 0,
                };
                Val::Human { order, num }
            }
            Kind::General => {
                let p = float::strtold(k);
                work += p.work;
                Val::General((p.end > 0).then(|| SortBits::new(p.value)))
            }
            Kind::Month => Val::Month(month(k, &cfg.blank)),
            Kind::Random => {
                let o = &key.order;
                Val::Random(random_hash(&filtered(k, o.ignore, o.fold), cfg.salt))
            }
        };
        out.push(KeyVal {
            start: start as u32,
            end: end as u32,
            val,
        });
    }
    work
}

/// Compares two lines by their keys only.
pub fn compare_keys(la: &[u8], ka: &[KeyVal], lb: &[u8], kb: &[KeyVal], cfg: &Config) -> Ordering {
    for ((key, a), b) in cfg.keys.iter().zip(ka).zip(kb) {
        let ta = &la[a.start as usize..a.end as usize];
        let tb = &lb[b.start as usize..b.end as usize];
        let o = &key.order;
        let ord = match (a.val, b.val) {
            (Val::Num(x), Val::Num(y)) => cmp_num(la, &x, lb, &y),
            (Val::Human { order: oa, num: x }, Val::Human { order: ob, num: y }) => {
                let sign = |n: &Num| {
                    if n.is_zero() {
                        0
                    } else if n.neg {
                        -1
                    } else {
                        1
                    }
                };
                let (sa, sb) = (sign(&x), sign(&y));
                if sa != sb {
                    sa.cmp(&sb)
                } else if sa == 0 {
                    Ordering::Equal
                } else if sa > 0 {
                    oa.cmp(&ob).then_with(|| cmp_magnitude(la, &x, lb, &y))
                } else {
                    ob.cmp(&oa).then_with(|| cmp_magnitude(lb, &y, la, &x))
                }
            }
            (Val::General(x), Val::General(y)) => x.cmp(&y),
            (Val::Month(x), Val::Month(y)) => x.cmp(&y),
            (Val::Random(x), Val::Random(y)) => {
                x.cmp(&y).then_with(|| text(ta, tb, o.ignore, o.fold))
            }
            _ if o.version => {
                if o.ignore.is_some() || o.fold {
                    version(
                        &filtered(ta, o.ignore, o.fold),
                        &filtered(tb, o.ignore, o.fold),
                    )
                } else {
                    version(ta, tb)
                }
            }
            _ => text(ta, tb, o.ignore, o.fold),
        };
        if ord != Ordering::Equal {
            return if o.reverse { ord.reverse() } else { ord };
        }
    }
    Ordering::Equal
}

/// The whole comparison: keys, then the lines' bytes unless `-s`/`-u`.
pub fn compare(la: &[u8], ka: &[KeyVal], lb: &[u8], kb: &[KeyVal], cfg: &Config) -> Ordering {
    let ord = compare_keys(la, ka, lb, kb, cfg);
    if ord != Ordering::Equal || !cfg.last_resort {
        return ord;
    }
    let ord = la.cmp(lb);
    if cfg.reverse_last {
        ord.reverse()
    } else {
        ord
    }
}

fn keep(b: u8, ignore: Option<Ignore>) -> bool {
    match ignore {
        None => true,
        Some(Ignore::NonDictionary) => b.is_ascii_alphanumeric() || b == b' ' || b == b'\t',
        Some(Ignore::NonPrinting) => (0x20..0x7f).contains(&b),
    }
}

/// The key without the bytes `-d`/`-i` skip, folded per `-f`: what GNU hands to the
/// version comparison.
fn filtered(k: &[u8], ignore: Option<Ignore>, fold: bool) -> Vec<u8> {
    k.iter()
        .filter(|&&b| keep(b, ignore))
        .map(|&b| if fold { b.to_ascii_uppercase() } else { b })
        .collect()
}

/// Text order, skipping bytes per `-d`/`-i` and folding per `-f`.
fn text(a: &[u8], b: &[u8], ignore: Option<Ignore>, fold: bool) -> Ordering {
    if ignore.is_none() && !fold {
        return a.cmp(b);
    }
    let (mut i, mut j) = (0, 0);
    loop {
        while i < a.len() && !keep(a[i], ignore) {
            i += 1;
        }
        while j < b.len() && !keep(b[j], ignore) {
            j += 1;
        }
        if i >= a.len() || j >= b.len() {
            return (i < a.len()).cmp(&(j < b.len()));
        }
        let (x, y) = if fold {
            (a[i].to_ascii_uppercase(), b[j].to_ascii_uppercase())
        } else {
            (a[i], b[j])
        };
        if x != y {
            return x.cmp(&y);
        }
        i += 1;
        j += 1;
    }
}

/// The order of one byte in a non-digit part of a version: `~` first (before the end),
/// then letters, then other bytes.
fn vorder(s: &[u8], i: usize) -> i32 {
    match s.get(i) {
        None => 0,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => i32::from(*c),
        Some(b'~') => -1,
        Some(c) => i32::from(*c) + 256,
    }
}

/// Debian's version comparison of two strings.
fn verrevcmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        while (i < a.len() && !a[i].is_ascii_digit()) || (j < b.len() && !b[j].is_ascii_digit()) {
            let (x, y) = (vorder(a, i), vorder(b, j));
            if x != y {
                return x.cmp(&y);
            }
            i += 1;
            j += 1;
        }
        while i < a.len() && a[i] == b'0' {
            i += 1;
        }
        while j < b.len() && b[j] == b'0' {
            j += 1;
        }
        let mut first_diff = Ordering::Equal;
        while i < a.len() && a[i].is_ascii_digit() && j < b.len() && b[j].is_ascii_digit() {
            if first_diff == Ordering::Equal {
                first_diff = a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
        if i < a.len() && a[i].is_ascii_digit() {
            return Ordering::Greater;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            return Ordering::Less;
        }
        if first_diff != Ordering::Equal {
            return first_diff;
        }
    }
    Ordering::Equal
}

/// The length of `s` without its file-name suffix `(\.[A-Za-z~][A-Za-z0-9~]*)*$`; the
/// suffix may not be the whole string. Parts cannot hold a dot, so they are peeled off
/// from the right while they fit.
fn prefix_len(s: &[u8]) -> usize {
    let mut end = s.len();
    let mut best = s.len();
    while let Some(dot) = memchr::memrchr(b'.', &s[..end]) {
        let part = &s[dot + 1..end];
        let fits = part
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'~')
            && part.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'~');
        if !fits || dot == 0 {
            break;
        }
        best = dot;
        end = dot;
    }
    best
}

/// GNU's version order (filevercmp).
pub fn version(a: &[u8], b: &[u8]) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    for special in [&b""[..], b".", b".."] {
        match (a == special, b == special) {
            (true, _) => return Ordering::Less,
            (_, true) => return Ordering::Greater,
            _ => {}
        }
    }
    let (mut a, mut b) = (a, b);
    match (a.first() == Some(&b'.'), b.first() == Some(&b'.')) {
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        (true, true) => {
            a = &a[1..];
            b = &b[1..];
        }
        _ => {}
    }
    let (pa, pb) = (prefix_len(a), prefix_len(b));
    let ord = verrevcmp(&a[..pa], &b[..pb]);
    if ord != Ordering::Equal {
        return ord;
    }
    verrevcmp(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<&str>) -> Vec<&str> {
        v.sort_by(|a, b| version(a.as_bytes(), b.as_bytes()));
        v
    }

    #[test]
    fn version_order() {
        // Examples of the coreutils manual.
        assert_eq!(
            sorted(vec!["a", "", "b", ".", "c", "..", ".d20", ".d3"]),
            vec!["", ".", "..", ".d3", ".d20", "a", "b", "c"]
        );
        assert_eq!(
            sorted(vec!["1", "1%", "1.2", "1~", "~"]),
            vec!["~", "1~", "1", "1%", "1.2"]
        );
        assert_eq!(sorted(vec!["a%", "az"]), vec!["az", "a%"]);
        assert_eq!(
            sorted(vec!["hello-8.2.txt", "hello-8.txt"]),
            vec!["hello-8.txt", "hello-8.2.txt"]
        );
        assert_eq!(
            sorted(vec!["b11", "b3", "b1", "b20"]),
            vec!["b1", "b3", "b11", "b20"]
        );
    }
}
