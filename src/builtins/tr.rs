//! `tr`: translates, deletes or squeezes bytes of stdin, as GNU tr in the C locale.
//! Spends 1 step per 64 bytes of input. It translates each chunk as it comes.
//!
//! Sets are kept as runs of (byte, count), so that `[x*1000000000]` costs nothing to hold.

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "cCdst",
    long: &[
        long("complement", Arg::No, Some('c')),
        long("delete", Arg::No, Some('d')),
        long("squeeze-repeats", Arg::No, Some('s')),
        long("truncate-set1", Arg::No, Some('t')),
    ],
    stop_at_operand: true,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Alnum,
    Alpha,
    Blank,
    Cntrl,
    Digit,
    Graph,
    Lower,
    Print,
    Punct,
    Space,
    Upper,
    Xdigit,
}

impl Class {
    fn from_name(name: &[u8]) -> Option<Class> {
        Some(match name {
            b"alnum" => Class::Alnum,
            b"alpha" => Class::Alpha,
            b"blank" => Class::Blank,
            b"cntrl" => Class::Cntrl,
            b"digit" => Class::Digit,
            b"graph" => Class::Graph,
            b"lower" => Class::Lower,
            b"print" => Class::Print,
            b"punct" => Class::Punct,
            b"space" => Class::Space,
            b"upper" => Class::Upper,
            b"xdigit" => Class::Xdigit,
            _ => return None,
        })
    }

    fn contains(self, b: u8) -> bool {
        match self {
            Class::Alnum => b.is_ascii_alphanumeric(),
            Class::Alpha => b.is_ascii_alphabetic(),
            Class::Blank => b == b' ' || b == b'\t',
            Class::Cntrl => b.is_ascii_control(),
            Class::Digit => b.is_ascii_digit(),
            Class::Graph => b.is_ascii_graphic(),
            Class::Lower => b.is_ascii_lowercase(),
            Class::Print => b.is_ascii_graphic() || b == b' ',
            Class::Punct => b.is_ascii_punctuation(),
            Class::Space => matches!(b, b' ' | b'\t'..=b'\r'),
            Class::Upper => b.is_ascii_uppercase(),
            Class::Xdigit => b.is_ascii_hexdigit(),
        }
    }

    fn is_case(self) -> bool {
        matches!(self, Class::Lower | Class::Upper)
    }
}

/// One element of a set as written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Elem {
    Byte(u8),
    Range(u8, u8),
    Class(Class),
    Equiv(u8),
    /// `[c*n]`; `None` for `[c*]` (or `[c*0]`): as many as fill string2 to string1's length.
    Repeat(u8, Option<u64>),
}

impl Elem {
    /// How many bytes the element stands for; a fill counts as `fill`.
    fn len(&self, fill: u64) -> u64 {
        match self {
            Elem::Byte(_) | Elem::Equiv(_) => 1,
            Elem::Range(a, b) => u64::from(b - a) + 1,
            Elem::Class(c) => (0..=255u8).filter(|&b| c.contains(b)).count() as u64,
            Elem::Repeat(_, n) => n.unwrap_or(fill),
        }
    }

    /// Appends the element's runs of (byte, count).
    fn push_runs(&self, fill: u64, runs: &mut Vec<(u8, u64)>) {
        match *self {
            Elem::Byte(b) | Elem::Equiv(b) => runs.push((b, 1)),
            Elem::Range(a, b) => runs.extend((a..=b).map(|x| (x, 1))),
            Elem::Class(c) => runs.extend((0..=255u8).filter(|&b| c.contains(b)).map(|x| (x, 1))),
            Elem::Repeat(b, n) => {
                let n = n.unwrap_or(fill);
                if n > 0 {
                    runs.push((b, n));
                }
            }
        }
    }
}

/// A byte of a set operand after escapes, and whether it was escaped.
#[derive(Debug, Clone, Copy)]
struct Ch {
    b: u8,
    esc: bool,
}

/// Resolves backslash escapes, writing GNU's warnings to `warn`.
fn unescape(s: &[u8], warn: &mut Vec<u8>) -> Vec<Ch> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c != b'\\' {
            out.push(Ch { b: c, esc: false });
            i += 1;
            continue;
        }
        let Some(&n) = s.get(i + 1) else {
            warn.extend_from_slice(
                b"tr: warning: an unescaped backslash at end of string is not portable\n",
            );
            out.push(Ch {
                b: b'\\',
                esc: true,
            });
            break;
        };
        i += 2;
        let b = match n {
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'0'..=b'7' => {
                let mut v = u32::from(n - b'0');
                let mut digits = 1;
                while digits < 3 {
                    match s.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            let next = v * 8 + u32::from(d - b'0');
                            if next > 255 {
                                warn.extend_from_slice(
                                    format!(
                                        "tr: warning: the ambiguous octal escape \\{}{}{} is being\n\tinterpreted as the 2-byte sequence \\0{}{}, {}\n",
                                        n as char, s[i - 1] as char, d as char,
                                        n as char, s[i - 1] as char, d as char
                                    )
                                    .as_bytes(),
                                );
                                break;
                            }
                            v = next;
                            digits += 1;
                            i += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            other => other,
        };
        out.push(Ch { b, esc: true });
    }
    out
}

fn is(chars: &[Ch], i: usize, b: u8) -> bool {
    chars.get(i).is_some_and(|c| !c.esc && c.b == b)
}

/// Parses a set operand into elements.
fn parse_set(s: &[u8], warn: &mut Vec<u8>) -> std::result::Result<Vec<Elem>, String> {
    let chars = unescape(s, warn);
    let mut elems = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if is(&chars, i, b'[') {
            if let Some((elem, next)) = bracket(&chars, i)? {
                elems.push(elem);
                i = next;
                continue;
            }
        }
        let c = chars[i].b;
        if is(&chars, i + 1, b'-') && i + 2 < chars.len() {
            let end = chars[i + 2].b;
            if c > end {
                return Err(format!(
                    "range-endpoints of '{}' are in reverse collating sequence order",
                    shown(&[c, b'-', end])
                ));
            }
            elems.push(Elem::Range(c, end));
            i += 3;
        } else {
            elems.push(Elem::Byte(c));
            i += 1;
        }
    }
    Ok(elems)
}

fn shown(bytes: &[u8]) -> String {
    let q = quote_str(bytes);
    q[1..q.len() - 1].to_string()
}

/// A `[:class:]`, `[=c=]` or `[c*n]` construct starting at `chars[i] == '['`, with the
/// index after it; `None` when the bracket is an ordinary byte.
fn bracket(chars: &[Ch], i: usize) -> std::result::Result<Option<(Elem, usize)>, String> {
    for delim in [b':', b'='] {
        if !is(chars, i + 1, delim) {
            continue;
        }
        let start = i + 2;
        let Some(close) =
            (start..chars.len()).find(|&j| is(chars, j, delim) && is(chars, j + 1, b']'))
        else {
            continue;
        };
        let body: Vec<u8> = chars[start..close].iter().map(|c| c.b).collect();
        if delim == b':' {
            if body.is_empty() {
                return Err("missing character class name '[::]'".into());
            }
            return match Class::from_name(&body) {
                Some(class) => Ok(Some((Elem::Class(class), close + 2))),
                None => Err(format!("invalid character class {}", quote_str(&body))),
            };
        }
        return match body.as_slice() {
            [] => Err("missing equivalence class character '[==]'".into()),
            [b] => Ok(Some((Elem::Equiv(*b), close + 2))),
            _ => Err(format!(
                "{}: equivalence class operand must be a single character",
                String::from_utf8_lossy(&body)
            )),
        };
    }
    if i + 2 < chars.len() && is(chars, i + 2, b'*') {
        let c = chars[i + 1].b;
        let mut j = i + 3;
        while j < chars.len() && !is(chars, j, b']') {
            if chars[j].esc {
                return Ok(None);
            }
            j += 1;
        }
        if j >= chars.len() {
            return Ok(None);
        }
        let body: Vec<u8> = chars[i + 3..j].iter().map(|c| c.b).collect();
        let count = parse_count(&body).ok_or_else(|| {
            format!(
                "invalid repeat count {} in [c*n] construct",
                quote_str(&body)
            )
        })?;
        return Ok(Some((Elem::Repeat(c, count.filter(|&n| n > 0)), j + 1)));
    }
    Ok(None)
}

/// The `n` of `[c*n]`: decimal, or octal with a leading 0; empty means "fill".
fn parse_count(body: &[u8]) -> Option<Option<u64>> {
    if body.is_empty() {
        return Some(None);
    }
    let digits = crate::builtins::common::operands::trim_start_blanks(body);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let radix = if digits[0] == b'0' { 8 } else { 10 };
    let mut n: u64 = 0;
    for &d in digits {
        let v = u64::from(d - b'0');
        if v >= radix {
            return None;
        }
        n = n.checked_mul(radix)?.checked_add(v)?;
    }
    (n != u64::MAX).then_some(Some(n))
}

struct Plan {
    /// The translation table (identity when not translating).
    map: [u8; 256],
    translate: bool,
    delete: [bool; 256],
    do_delete: bool,
    squeeze: [bool; 256],
    do_squeeze: bool,
}

fn total_len(elems: &[Elem], fill: u64) -> u64 {
    elems
        .iter()
        .fold(0u64, |acc, e| acc.saturating_add(e.len(fill)))
}

fn members(elems: &[Elem]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut runs = Vec::new();
    for e in elems {
        runs.clear();
        e.push_runs(0, &mut runs);
        for &(b, _) in &runs {
            set[usize::from(b)] = true;
        }
    }
    set
}

fn complement_runs(set: &[bool; 256]) -> Vec<(u8, u64)> {
    (0..=255u8)
        .filter(|&b| !set[usize::from(b)])
        .map(|b| (b, 1))
        .collect()
}

struct Flags {
    complement: bool,
    delete: bool,
    squeeze: bool,
    truncate: bool,
}

fn plan(
    f: &Flags,
    set1: &[u8],
    set2: Option<&[u8]>,
    warn: &mut Vec<u8>,
) -> std::result::Result<Plan, String> {
    let translating = !f.delete && set2.is_some();
    let s1 = parse_set(set1, warn)?;
    if s1.iter().any(|e| matches!(e, Elem::Repeat(_, None))) {
        return Err("the [c*] repeat construct may not appear in string1".into());
    }
    let s2 = match set2 {
        Some(s) => {
            let s2 = parse_set(s, warn)?;
            if s2
                .iter()
                .filter(|e| matches!(e, Elem::Repeat(_, None)))
                .count()
                > 1
            {
                return Err("only one [c*] repeat construct may appear in string2".into());
            }
            Some(s2)
        }
        None => None,
    };
    let in_set1 = members(&s1);
    let mut p = Plan {
        map: std::array::from_fn(|i| i as u8),
        translate: translating,
        delete: [false; 256],
        do_delete: f.delete,
        squeeze: [false; 256],
        do_squeeze: f.squeeze,
    };
    let set1_effective = if f.complement {
        let mut c = in_set1;
        c.iter_mut().for_each(|b| *b = !*b);
        c
    } else {
        in_set1
    };
    if !translating {
        if let Some(s2) = &s2 {
            if s2.iter().any(|e| matches!(e, Elem::Repeat(_, None))) {
                return Err(
                    "the [c*] construct may appear in string2 only when translating".into(),
                );
            }
        }
        if f.delete {
            p.delete = set1_effective;
            if let Some(s2) = &s2 {
                p.squeeze = members(s2);
            }
        } else {
            p.squeeze = set1_effective;
        }
        return Ok(p);
    }
    let s2 = s2.unwrap_or_default();
    if s2.iter().any(|e| matches!(e, Elem::Equiv(_))) {
        return Err("[=c=] expressions may not appear in string2 when translating".into());
    }
    if s2
        .iter()
        .any(|e| matches!(e, Elem::Class(c) if !c.is_case()))
    {
        return Err("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'".into());
    }
    let runs1: Vec<(u8, u64)> = if f.complement {
        complement_runs(&in_set1)
    } else {
        let mut r = Vec::new();
        for e in &s1 {
            e.push_runs(0, &mut r);
        }
        r
    };
    let len1 = runs1.iter().fold(0u64, |a, r| a.saturating_add(r.1));
    let fixed2 = total_len(&s2, 0);
    let fill = len1.saturating_sub(fixed2);
    if !f.complement {
        check_alignment(&s1, &s2, fill)?;
    }
    let len2 = total_len(&s2, fill);
    if len1 > len2 && !f.truncate {
        if s2.is_empty() {
            return Err("when not truncating set1, string2 must be non-empty".into());
        }
        if matches!(s2.last(), Some(Elem::Class(_))) {
            return Err("when translating with string1 longer than string2,\nthe latter string must not end with a character class".into());
        }
    }
    let mut runs2 = Vec::new();
    for e in &s2 {
        e.push_runs(fill, &mut runs2);
    }
    if f.complement && s1.iter().any(|e| matches!(e, Elem::Class(_))) {
        let first = runs2.first().map(|r| r.0);
        let uniform = runs2.iter().all(|r| Some(r.0) == first);
        let fits = len2 == len1 || (len2 < len1 && !f.truncate);
        if !uniform || !fits {
            return Err("when translating with complemented character classes,\nstring2 must map all characters in the domain to one".into());
        }
    }
    // Walk both sets in step; past string2's end, its last byte repeats (unless -t).
    let last2 = runs2.last().map(|r| r.0);
    let (mut i, mut j) = (0, 0);
    let (mut left1, mut left2) = (
        runs1.first().map_or(0, |r| r.1),
        runs2.first().map_or(0, |r| r.1),
    );
    while i < runs1.len() {
        let b2 = match runs2.get(j) {
            Some(r) => r.0,
            None if f.truncate => break,
            None => match last2 {
                Some(b) => b,
                None => break,
            },
        };
        p.map[usize::from(runs1[i].0)] = b2;
        let step = if j < runs2.len() {
            left1.min(left2)
        } else {
            left1
        };
        left1 -= step;
        if j < runs2.len() {
            left2 -= step;
            if left2 == 0 {
                j += 1;
                left2 = runs2.get(j).map_or(0, |r| r.1);
            }
        }
        if left1 == 0 {
            i += 1;
            left1 = runs1.get(i).map_or(0, |r| r.1);
        }
    }
    if f.squeeze {
        for &(b, _) in &runs2 {
            p.squeeze[usize::from(b)] = true;
        }
    }
    Ok(p)
}

/// Each `[:upper:]` or `[:lower:]` of string2 that starts within string1 or right at its
/// end must face one of the two in string1.
fn check_alignment(s1: &[Elem], s2: &[Elem], fill: u64) -> std::result::Result<(), String> {
    let mut case_starts = Vec::new();
    let mut at = 0u64;
    for e in s1 {
        if matches!(e, Elem::Class(c) if c.is_case()) {
            case_starts.push(at);
        }
        at = at.saturating_add(e.len(0));
    }
    let mut at = 0u64;
    for e in s2 {
        let within = at <= total_len(s1, 0);
        if within && matches!(e, Elem::Class(c) if c.is_case()) && !case_starts.contains(&at) {
            return Err("misaligned [:upper:] and/or [:lower:] construct".into());
        }
        at = at.saturating_add(e.len(fill));
    }
    Ok(())
}

/// The plan of a run of tr with `args`, or its status after a usage error (its message
/// written). Boxed: the tables would make the run's future large, and a pipeline moves it.
fn prepare(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> std::result::Result<Box<Plan>, Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "tr", &msg);
            return Err(1);
        }
    };
    let mut f = Flags {
        complement: false,
        delete: false,
        squeeze: false,
        truncate: false,
    };
    for o in &parsed.opts {
        match o.key {
            "c" | "C" => f.complement = true,
            "d" => f.delete = true,
            "s" => f.squeeze = true,
            "t" => f.truncate = true,
            _ => {}
        }
    }
    let ops = &parsed.operands;
    let (min, max) = match (f.delete, f.squeeze) {
        (true, true) => (2, 2),
        (true, false) => (1, 1),
        (false, true) => (1, 2),
        (false, false) => (2, 2),
    };
    if ops.is_empty() {
        usage_error(ctx.stderr, "tr", "missing operand");
        return Err(1);
    }
    if ops.len() < min {
        let why = if f.delete {
            "Two strings must be given when both deleting and squeezing repeats."
        } else {
            "Two strings must be given when translating."
        };
        let msg = format!("missing operand after {}\n{why}", quote_str(&ops[0]));
        usage_error(ctx.stderr, "tr", &msg);
        return Err(1);
    }
    if ops.len() > max {
        let mut msg = format!("extra operand {}", quote_str(&ops[max]));
        if max == 1 {
            msg.push_str("\nOnly one string may be given when deleting without squeezing repeats.");
        }
        usage_error(ctx.stderr, "tr", &msg);
        return Err(1);
    }
    let mut warn = Vec::new();
    let plan = plan(&f, &ops[0], ops.get(1).map(|v| v.as_slice()), &mut warn);
    ctx.stderr.extend_from_slice(&warn);
    match plan {
        Ok(p) => Ok(Box::new(p)),
        Err(msg) => {
            ctx.stderr
                .extend_from_slice(format!("tr: {msg}\n").as_bytes());
            Err(1)
        }
    }
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let plan = match prepare(ctx, args) {
        Ok(plan) => plan,
        Err(status) => return Ok(status),
    };
    let mut meter = ByteMeter::default();
    // The last byte written, for squeezing runs that cross chunks.
    let mut last: Option<u8> = None;
    while let Some(chunk) = ctx.io.stdin.read().await? {
        meter.add(ctx.io.budget, chunk.len())?;
        apply(&plan, &chunk, &mut last, ctx.stdout);
        ctx.flush_some().await?;
    }
    meter.finish(ctx.io.budget)?;
    Ok(0)
}

fn apply(p: &Plan, data: &[u8], last: &mut Option<u8>, out: &mut Vec<u8>) {
    out.reserve(data.len());
    match (p.translate, p.do_delete, p.do_squeeze) {
        (true, _, false) => out.extend(data.iter().map(|&b| p.map[usize::from(b)])),
        (false, true, false) => out.extend(data.iter().filter(|&&b| !p.delete[usize::from(b)])),
        _ => {
            let mut prev = *last;
            for &b in data {
                if p.do_delete && p.delete[usize::from(b)] {
                    continue;
                }
                let b = p.map[usize::from(b)];
                if p.do_squeeze && p.squeeze[usize::from(b)] && prev == Some(b) {
                    continue;
                }
                prev = Some(b);
                out.push(b);
            }
            *last = prev;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    const INPUT: &str = "Hello, World! abc-xyz 123 [*]\\\n";

    fn tr(args: &[&str], stdin: &str) -> (String, i32) {
        let mut argv = vec!["tr"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.stdout_str(), r.status)
    }

    // Expected values from GNU tr 9.1.
    #[test]
    fn translate() {
        assert_eq!(
            tr(&["[:lower:]", "[:upper:]"], INPUT).0,
            "HELLO, WORLD! ABC-XYZ 123 [*]\\\n"
        );
        assert_eq!(
            tr(&["abcdef", "q[x*2]y"], INPUT).0,
            "Hyllo, Worly! qxx-xyz 123 [*]\\\n"
        );
        assert_eq!(tr(&["-c", "a-z", "A-Z"], "Hi 1\n").0, "ZiZZK");
        assert_eq!(tr(&["-t", "abc", "x"], "abc").0, "xbc");
        assert_eq!(
            tr(&["[:upper:][:lower:]", "[:lower:][y*]"], "Hello").0,
            "hyyyy"
        );
    }

    #[test]
    fn delete_and_squeeze() {
        assert_eq!(tr(&["-ds", "l", "o"], "Hello, Woorld").0, "Heo, Word");
        assert_eq!(tr(&["-cs", "l", "xy"], "Hello, World!\n").0, "yllyly");
        assert_eq!(tr(&["-d", "[\\[-\\]]"], "[*]\\\n").0, "*\n");
    }

    #[test]
    fn errors() {
        assert_eq!(tr(&[], "").1, 1);
        assert_eq!(tr(&["a"], "").1, 1);
        assert_eq!(tr(&["z-a", "x"], "").1, 1);
        assert_eq!(tr(&["a-z", "[:upper:]*"], "").1, 1);
        assert_eq!(tr(&["-c", "[:alpha:]", "ab"], "").1, 1);
        assert_eq!(tr(&["[l*99999999999]o", "x[y*]z"], "lo").0, "yz");
    }
}
