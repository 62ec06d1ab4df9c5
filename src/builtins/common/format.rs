//! The printf format engine, as GNU `printf` reads formats and arguments in the C locale:
//! parsed once into [`Format`] (kept in an LRU in `ctx.io.caches`), then run over the
//! arguments, reusing the format while arguments remain. `seq -f` shares it.
//!
//! Callers spend steps: a [`Run`] spends 1 per pass over the format and 1 per 64 bytes
//! written (up front for very wide fields).

use std::collections::VecDeque;
use std::rc::Rc;

use rustc_apfloat::Float;

use super::float::{self, FloatSpec, Ld};
use super::quote::{quote, shell_quote};
use crate::budget::Budget;
use crate::builtins::Caches;
use crate::error::Result;

/// A parsed format.
#[derive(Debug, Clone, Default)]
pub struct Format {
    pub items: Vec<Item>,
}

/// One piece of a format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// Bytes written as they are (escapes already done).
    Lit(Vec<u8>),
    Conv(Conv),
    /// `\c`: no further output at all.
    Stop,
    /// An error in the format at this point (GNU reports it when it gets there): the
    /// message, without the tool's name.
    Fatal(Vec<u8>),
}

/// A field width or precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    None,
    Fixed(usize),
    /// `*`: taken from the next argument.
    Star,
}

/// One `%` conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conv {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub zero: bool,
    pub width: Count,
    pub prec: Count,
    /// One of `d i o u x X f F e E g G a A c s b q`.
    pub kind: u8,
    /// GNU's complaint when the conversion is invalid: reported after any `*` arguments
    /// are read, as GNU does.
    pub bad: Option<Vec<u8>>,
}

/// Bytes allowed as flags, per conversion (GNU rejects e.g. `%#s`).
fn flag_ok(flag: u8, kind: u8) -> bool {
    match flag {
        b'-' | b'+' | b' ' => !matches!(kind, b'b' | b'q'),
        b'#' => matches!(kind, b'o' | b'x' | b'X') || is_float(kind),
        b'0' => !matches!(kind, b'c' | b's' | b'b' | b'q'),
        b'\'' | b'I' => matches!(kind, b'd' | b'i' | b'u' | b'f' | b'F' | b'g' | b'G'),
        _ => false,
    }
}

pub fn is_float(kind: u8) -> bool {
    matches!(kind, b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A')
}

/// Parses a printf format; `escapes` turns on backslash escapes (printf's format does
/// them, `seq -f` does not).
pub fn parse(fmt: &[u8], escapes: bool) -> Format {
    let mut items = Vec::new();
    let mut lit = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let special = if escapes {
            memchr::memchr2(b'%', b'\\', &fmt[i..])
        } else {
            memchr::memchr(b'%', &fmt[i..])
        };
        let Some(off) = special else {
            lit.extend_from_slice(&fmt[i..]);
            break;
        };
        lit.extend_from_slice(&fmt[i..i + off]);
        i += off;
        if fmt[i] == b'\\' {
            match escape(fmt, i + 1, &mut lit, Escapes::Format) {
                Escaped::Next(next) => i = next,
                Escaped::Stop => {
                    flush(&mut items, &mut lit);
                    items.push(Item::Stop);
                    return Format { items };
                }
                Escaped::Error(msg) => {
                    flush(&mut items, &mut lit);
                    items.push(Item::Fatal(msg));
                    return Format { items };
                }
            }
            continue;
        }
        if fmt.get(i + 1) == Some(&b'%') {
            lit.push(b'%');
            i += 2;
            continue;
        }
        flush(&mut items, &mut lit);
        match conversion(fmt, i) {
            Ok((conv, next)) => {
                let bad = conv.bad.is_some();
                items.push(Item::Conv(conv));
                if bad {
                    return Format { items };
                }
                i = next;
            }
            Err(msg) => {
                items.push(Item::Fatal(msg));
                return Format { items };
            }
        }
    }
    flush(&mut items, &mut lit);
    Format { items }
}

fn flush(items: &mut Vec<Item>, lit: &mut Vec<u8>) {
    if !lit.is_empty() {
        items.push(Item::Lit(std::mem::take(lit)));
    }
}

/// Parses the conversion that starts with the `%` at `start`.
fn conversion(fmt: &[u8], start: usize) -> std::result::Result<(Conv, usize), Vec<u8>> {
    let mut i = start + 1;
    let mut flags = Vec::new();
    while let Some(&c @ (b'-' | b'+' | b' ' | b'#' | b'0' | b'\'' | b'I')) = fmt.get(i) {
        flags.push(c);
        i += 1;
    }
    let number = |i: &mut usize| -> Option<usize> {
        let from = *i;
        let mut v: usize = 0;
        while let Some(&d @ b'0'..=b'9') = fmt.get(*i) {
            v = v.saturating_mul(10).saturating_add(usize::from(d - b'0'));
            *i += 1;
        }
        (*i > from).then_some(v)
    };
    let width = if fmt.get(i) == Some(&b'*') {
        i += 1;
        Count::Star
    } else {
        number(&mut i).map_or(Count::None, Count::Fixed)
    };
    let mut prec = Count::None;
    if fmt.get(i) == Some(&b'.') {
        i += 1;
        prec = if fmt.get(i) == Some(&b'*') {
            i += 1;
            Count::Star
        } else {
            Count::Fixed(number(&mut i).unwrap_or(0))
        };
    }
    let mut length = false;
    while let Some(b'h' | b'l' | b'L' | b'j' | b'z' | b't') = fmt.get(i) {
        length = true;
        i += 1;
    }
    let bad = |end: usize| {
        let end = end.min(fmt.len());
        // GNU shows the specification raw, whatever its bytes.
        let mut msg = fmt[start..end].to_vec();
        msg.extend_from_slice(b": invalid conversion specification");
        msg
    };
    let (kind, end) = match fmt.get(i) {
        Some(&k) => (k, i + 1),
        None => (0, i),
    };
    let known = matches!(
        kind,
        b'd' | b'i'
            | b'o'
            | b'u'
            | b'x'
            | b'X'
            | b'f'
            | b'F'
            | b'e'
            | b'E'
            | b'g'
            | b'G'
            | b'a'
            | b'A'
            | b'c'
            | b's'
            | b'b'
            | b'q'
    );
    let plain = matches!(kind, b'b' | b'q');
    let ok = known
        && flags.iter().all(|&f| flag_ok(f, kind))
        && !(plain && (length || width != Count::None || prec != Count::None))
        && !(kind == b'c' && prec != Count::None);
    let too_big = |c: Count| matches!(c, Count::Fixed(n) if n > i32::MAX as usize);
    if ok && (too_big(width) || too_big(prec)) {
        return Err(b"write error".to_vec());
    }
    let has = |f: u8| flags.contains(&f);
    Ok((
        Conv {
            minus: has(b'-'),
            plus: has(b'+'),
            space: has(b' '),
            alt: has(b'#'),
            zero: has(b'0'),
            width,
            prec,
            kind,
            bad: (!ok).then(|| bad(end)),
        },
        end,
    ))
}

/// Which escapes are recognized: the format's, or `%b`'s (which adds `\0NNN`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    Format,
    Arg,
}

enum Escaped {
    Next(usize),
    Stop,
    Error(Vec<u8>),
}

/// Expands the escape after a backslash at `fmt[i - 1]` into `out`.
fn escape(s: &[u8], i: usize, out: &mut Vec<u8>, mode: Escapes) -> Escaped {
    let Some(&c) = s.get(i) else {
        out.push(b'\\');
        return Escaped::Next(i);
    };
    let simple = match c {
        b'\\' => Some(b'\\'),
        b'"' => Some(b'"'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'e' => Some(27),
        b'f' => Some(12),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(11),
        _ => None,
    };
    if let Some(b) = simple {
        out.push(b);
        return Escaped::Next(i + 1);
    }
    match c {
        b'c' => Escaped::Stop,
        b'0'..=b'7' => {
            // Format: `\NNN`, 1 to 3 digits. %b: also `\0NNN`, 0 then up to 3 digits.
            let (mut j, max) = if mode == Escapes::Arg && c == b'0' {
                (i + 1, 3)
            } else {
                (i, 3)
            };
            let mut v = 0u32;
            let stop = j + max;
            while j < stop {
                match s.get(j) {
                    Some(&d @ b'0'..=b'7') => {
                        v = v * 8 + u32::from(d - b'0');
                        j += 1;
                    }
                    _ => break,
                }
            }
            out.push(v as u8);
            Escaped::Next(j)
        }
        b'x' => {
            let (v, n) = hex_digits(s, i + 1, 2);
            if n == 0 {
                return Escaped::Error(b"missing hexadecimal number in escape".to_vec());
            }
            out.push(v as u8);
            Escaped::Next(i + 1 + n)
        }
        b'u' | b'U' => {
            let want = if c == b'u' { 4 } else { 8 };
            let (v, n) = hex_digits(s, i + 1, want);
            if n < want {
                return Escaped::Error(b"missing hexadecimal number in escape".to_vec());
            }
            let next = i + 1 + n;
            let valid =
                (v >= 0xa0 || matches!(v, 0x24 | 0x40 | 0x60)) && !(0xd800..0xe000).contains(&v);
            if !valid {
                let name = if c == b'u' {
                    format!("invalid universal character name \\u{v:04x}")
                } else {
                    format!("invalid universal character name \\U{v:08x}")
                };
                return Escaped::Error(name.into_bytes());
            }
            if v < 0x80 {
                out.push(v as u8);
            } else if v < 0x10000 {
                // Not representable in the C locale: GNU writes the escape back.
                out.extend_from_slice(format!("\\u{v:04X}").as_bytes());
            } else {
                out.extend_from_slice(format!("\\U{v:08X}").as_bytes());
            }
            Escaped::Next(next)
        }
        _ => {
            out.push(b'\\');
            out.push(c);
            Escaped::Next(i + 1)
        }
    }
}

fn hex_digits(s: &[u8], i: usize, max: usize) -> (u32, usize) {
    let mut v = 0u32;
    let mut n = 0;
    while n < max {
        match s.get(i + n).and_then(|&d| (d as char).to_digit(16)) {
            Some(d) => {
                v = (v << 4) | d;
                n += 1;
            }
            None => break,
        }
    }
    (v, n)
}

/// Parsed formats by their bytes: the same envelope runs the same printf again and again.
#[derive(Default)]
pub struct FormatCache {
    entries: VecDeque<(Vec<u8>, bool, Rc<Format>)>,
}

const CACHE_SIZE: usize = 64;

impl FormatCache {
    pub fn get(&mut self, fmt: &[u8], escapes: bool) -> Rc<Format> {
        if let Some(pos) = self
            .entries
            .iter()
            .position(|(k, e, _)| *e == escapes && k == fmt)
        {
            if let Some(entry) = self.entries.remove(pos) {
                let f = entry.2.clone();
                self.entries.push_front(entry);
                return f;
            }
        }
        let f = Rc::new(parse(fmt, escapes));
        if self.entries.len() >= CACHE_SIZE {
            self.entries.pop_back();
        }
        self.entries.push_front((fmt.to_vec(), escapes, f.clone()));
        f
    }
}

/// The parsed format for `fmt`, from the cache in `caches`.
pub fn cached(caches: &Caches, fmt: &[u8], escapes: bool) -> Rc<Format> {
    caches.get::<FormatCache>().get(fmt, escapes)
}

/// Where a run writes and complains, and under what name.
pub struct Sink<'a> {
    pub out: &'a mut Vec<u8>,
    pub err: &'a mut Vec<u8>,
    pub budget: &'a Budget,
    /// The tool's name for messages (`printf`).
    pub prog: &'a str,
}

impl Sink<'_> {
    fn warn(&mut self, msg: &[u8]) {
        self.err.extend_from_slice(self.prog.as_bytes());
        self.err.extend_from_slice(b": ");
        self.err.extend_from_slice(msg);
        self.err.push(b'\n');
    }
}

/// How a pass over the format ended.
enum Pass {
    Done,
    Stop,
    Fatal,
}

/// A run of `format` over `args` as GNU printf does: the format is reused while
/// arguments remain. It goes a pass at a time, so that the caller can hand the output
/// on between passes.
pub struct Run<'f, 'a> {
    format: &'f Format,
    st: State<'a>,
}

impl<'f, 'a> Run<'f, 'a> {
    pub fn new(format: &'f Format, args: &'a [Vec<u8>]) -> Self {
        Run {
            format,
            st: State {
                args,
                next: 0,
                status: 0,
            },
        }
    }

    /// One pass over the format; `Some(status)` once the run is over (1 after any
    /// warning or error).
    pub fn pass(&mut self, sink: &mut Sink<'_>) -> Result<Option<i32>> {
        let st = &mut self.st;
        let before_args = st.next;
        let before_out = sink.out.len();
        sink.budget.spend(1)?;
        let end = st.pass(self.format, sink)?;
        sink.budget.spend_bytes(sink.out.len() - before_out)?;
        match end {
            // GNU exits successfully at `\c`, whatever it complained about before.
            Pass::Stop => return Ok(Some(0)),
            Pass::Fatal => return Ok(Some(1)),
            Pass::Done => {}
        }
        if st.next >= st.args.len() {
            return Ok(Some(st.status));
        }
        if st.next == before_args {
            let mut msg = b"warning: ignoring excess arguments, starting with ".to_vec();
            msg.extend_from_slice(&quote(&st.args[st.next]));
            sink.warn(&msg);
            return Ok(Some(st.status));
        }
        Ok(None)
    }
}

struct State<'a> {
    args: &'a [Vec<u8>],
    next: usize,
    status: i32,
}

impl<'a> State<'a> {
    fn take(&mut self) -> Option<&'a [u8]> {
        let a = self.args.get(self.next)?;
        self.next += 1;
        Some(a)
    }

    fn pass(&mut self, format: &Format, sink: &mut Sink<'_>) -> Result<Pass> {
        for item in &format.items {
            match item {
                Item::Lit(b) => sink.out.extend_from_slice(b),
                Item::Stop => return Ok(Pass::Stop),
                Item::Fatal(msg) => {
                    sink.warn(msg);
                    return Ok(Pass::Fatal);
                }
                Item::Conv(c) => {
                    if let Some(end) = self.convert(c, sink)? {
                        return Ok(end);
                    }
                }
            }
        }
        Ok(Pass::Done)
    }

    /// A `*` count: an int argument, with GNU's complaints. A negative precision is
    /// as good as none, whatever its size.
    fn star(&mut self, sink: &mut Sink<'_>, what: &str) -> Option<i64> {
        let Some(arg) = self.take() else {
            return Some(0);
        };
        let v = self.int_arg(arg, true, sink);
        let low = if what == "precision" {
            i64::MIN
        } else {
            i64::from(i32::MIN)
        };
        if v < low || v > i64::from(i32::MAX) {
            let mut msg = format!("invalid {what}: ").into_bytes();
            msg.extend_from_slice(&quote(arg));
            sink.warn(&msg);
            return None;
        }
        Some(v)
    }

    fn convert(&mut self, c: &Conv, sink: &mut Sink<'_>) -> Result<Option<Pass>> {
        let mut minus = c.minus;
        let width = match c.width {
            Count::None => 0,
            Count::Fixed(n) => n,
            Count::Star => match self.star(sink, "field width") {
                None => return Ok(Some(Pass::Fatal)),
                Some(w) if w < 0 => {
                    minus = true;
                    w.unsigned_abs() as usize
                }
                Some(w) => w as usize,
            },
        };
        let prec = match c.prec {
            Count::None => None,
            Count::Fixed(n) => Some(n),
            Count::Star => match self.star(sink, "precision") {
                None => return Ok(Some(Pass::Fatal)),
                Some(p) if p < 0 => None,
                Some(p) => Some(p as usize),
            },
        };
        // Pay for huge fields before making them.
        let big = width.max(prec.unwrap_or(0));
        if big > 4096 {
            sink.budget.spend_bytes(big)?;
        }
        if let Some(msg) = &c.bad {
            sink.warn(msg);
            return Ok(Some(Pass::Fatal));
        }
        let arg = self.take();
        match c.kind {
            b's' => {
                let s = arg.unwrap_or(b"");
                let s = match prec {
                    Some(p) if p < s.len() => &s[..p],
                    _ => s,
                };
                pad(sink.out, s, width, minus);
            }
            b'c' => {
                let b = arg.and_then(|a| a.first()).copied().unwrap_or(0);
                pad(sink.out, &[b], width, minus);
            }
            b'b' => {
                let s = arg.unwrap_or(b"");
                sink.budget.spend_bytes(s.len())?;
                let mut i = 0;
                while i < s.len() {
                    let Some(off) = memchr::memchr(b'\\', &s[i..]) else {
                        sink.out.extend_from_slice(&s[i..]);
                        break;
                    };
                    sink.out.extend_from_slice(&s[i..i + off]);
                    match escape(s, i + off + 1, sink.out, Escapes::Arg) {
                        Escaped::Next(n) => i = n,
                        Escaped::Stop => return Ok(Some(Pass::Stop)),
                        Escaped::Error(msg) => {
                            sink.warn(&msg);
                            return Ok(Some(Pass::Fatal));
                        }
                    }
                }
            }
            b'q' => {
                if let Some(s) = arg {
                    shell_quote(sink.out, s);
                }
            }
            b'd' | b'i' => {
                let v = arg.map_or(0, |a| self.int_arg(a, true, sink));
                int(sink.out, c, minus, width, prec, v < 0, v.unsigned_abs());
            }
            b'o' | b'u' | b'x' | b'X' => {
                let v = arg.map_or(0, |a| self.int_arg(a, false, sink) as u64);
                int(sink.out, c, minus, width, prec, false, v);
            }
            _ => {
                let v = arg.map_or(Ld::ZERO, |a| self.float_arg(a, sink));
                if let (_, float::Class::Finite { exp, .. }) = float::decompose(v) {
                    sink.budget.spend(u64::from(exp.unsigned_abs()) / 256)?;
                }
                let spec = FloatSpec {
                    minus,
                    plus: c.plus,
                    space: c.space,
                    alt: c.alt,
                    zero: c.zero,
                    width,
                    prec,
                    conv: c.kind,
                };
                float::format(sink.out, &spec, v);
            }
        }
        Ok(None)
    }

    /// An integer argument as `strtoimax` (signed) or `strtoumax` reads it, with GNU's
    /// warnings; the unsigned value comes back as its bits.
    fn int_arg(&mut self, arg: &[u8], signed: bool, sink: &mut Sink<'_>) -> i64 {
        if let Some(v) = self.char_constant(arg, sink) {
            return v as i64;
        }
        let r = strtoint(arg, signed);
        self.check(arg, r.end, r.range_error, sink);
        r.value
    }

    fn float_arg(&mut self, arg: &[u8], sink: &mut Sink<'_>) -> Ld {
        if let Some(v) = self.char_constant(arg, sink) {
            return float::from_i128(i128::from(v));
        }
        let r = float::strtold(arg);
        self.check(arg, r.end, r.range_error, sink);
        r.value
    }

    /// `'c` or `"c`: the code of the byte after the quote.
    fn char_constant(&mut self, arg: &[u8], sink: &mut Sink<'_>) -> Option<u8> {
        if arg.len() < 2 || !matches!(arg[0], b'\'' | b'"') {
            return None;
        }
        if arg.len() > 2 {
            let mut msg = b"warning: ".to_vec();
            msg.extend_from_slice(&arg[2..]);
            msg.extend_from_slice(b": character(s) following character constant have been ignored");
            sink.warn(&msg);
        }
        Some(arg[1])
    }

    /// GNU's complaints about a numeric argument, in its order of precedence.
    fn check(&mut self, arg: &[u8], end: usize, range_error: bool, sink: &mut Sink<'_>) {
        let what: &[u8] = if arg.is_empty() {
            return;
        } else if end == 0 {
            b": expected a numeric value"
        } else if range_error {
            b": Numerical result out of range"
        } else if end < arg.len() {
            b": value not completely converted"
        } else {
            return;
        };
        let mut msg = quote(arg);
        msg.extend_from_slice(what);
        sink.warn(&msg);
        self.status = 1;
    }
}

/// The result of [`strtoint`].
pub struct IntParsed {
    /// The value; for unsigned parsing, the bits of the `u64`.
    pub value: i64,
    /// Bytes read; 0 when there was no number.
    pub end: usize,
    pub range_error: bool,
}

/// `strtoimax(s, &end, 0)` (signed) or `strtoumax` in the C locale: white space, a sign,
/// then `0x` hex, `0` octal or decimal digits.
pub fn strtoint(s: &[u8], signed: bool) -> IntParsed {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if let Some(&c @ (b'+' | b'-')) = s.get(i) {
        neg = c == b'-';
        i += 1;
    }
    let mut base = 10u32;
    if s.get(i) == Some(&b'0') {
        if matches!(s.get(i + 1), Some(b'x' | b'X'))
            && s.get(i + 2).is_some_and(|b| b.is_ascii_hexdigit())
        {
            base = 16;
            i += 2;
        } else {
            base = 8;
        }
    }
    let start = i;
    let mut mag: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(i).and_then(|&b| (b as char).to_digit(base)) {
        match mag
            .checked_mul(u64::from(base))
            .and_then(|m| m.checked_add(u64::from(d)))
        {
            Some(m) => mag = m,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return IntParsed {
            value: 0,
            end: 0,
            range_error: false,
        };
    }
    if signed {
        let limit = if neg { 1u64 << 63 } else { i64::MAX as u64 };
        if overflow || mag > limit {
            let value = if neg { i64::MIN } else { i64::MAX };
            return IntParsed {
                value,
                end: i,
                range_error: true,
            };
        }
        let value = if neg {
            (mag as i64).wrapping_neg()
        } else {
            mag as i64
        };
        IntParsed {
            value,
            end: i,
            range_error: false,
        }
    } else {
        if overflow {
            return IntParsed {
                value: -1,
                end: i,
                range_error: true,
            };
        }
        let v = if neg { mag.wrapping_neg() } else { mag };
        IntParsed {
            value: v as i64,
            end: i,
            range_error: false,
        }
    }
}

/// Pads `s` to `width` with spaces, on the left or (with `-`) on the right.
fn pad(out: &mut Vec<u8>, s: &[u8], width: usize, minus: bool) {
    let fill = width.saturating_sub(s.len());
    if minus {
        out.extend_from_slice(s);
        out.resize(out.len() + fill, b' ');
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(s);
    }
}

/// An integer conversion as C's printf writes it.
fn int(
    out: &mut Vec<u8>,
    c: &Conv,
    minus: bool,
    width: usize,
    prec: Option<usize>,
    neg: bool,
    mag: u64,
) {
    let mut digits = [0u8; 24];
    let mut n = 0;
    let (base, upper) = match c.kind {
        b'o' => (8, false),
        b'x' => (16, false),
        b'X' => (16, true),
        _ => (10, false),
    };
    let table: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut v = mag;
    while v > 0 {
        digits[n] = table[(v % base) as usize];
        v /= base;
        n += 1;
    }
    digits[..n].reverse();
    let digits = &digits[..n];
    let min_digits = prec.unwrap_or(1);
    let mut zeros = min_digits.saturating_sub(digits.len());
    if c.kind == b'o' && c.alt && zeros == 0 && digits.first() != Some(&b'0') {
        zeros = 1;
    }
    let sign: &[u8] = if matches!(c.kind, b'd' | b'i') {
        if neg {
            b"-"
        } else if c.plus {
            b"+"
        } else if c.space {
            b" "
        } else {
            b""
        }
    } else {
        b""
    };
    let prefix: &[u8] = match c.kind {
        b'x' if c.alt && mag != 0 => b"0x",
        b'X' if c.alt && mag != 0 => b"0X",
        _ => b"",
    };
    let len = sign.len() + prefix.len() + zeros + digits.len();
    let fill = width.saturating_sub(len);
    let zero_pad = c.zero && !minus && prec.is_none();
    if !minus && !zero_pad {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(sign);
    out.extend_from_slice(prefix);
    if zero_pad {
        out.resize(out.len() + fill, b'0');
    }
    out.resize(out.len() + zeros, b'0');
    out.extend_from_slice(digits);
    if minus {
        out.resize(out.len() + fill, b' ');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_conversions() {
        let f = parse(b"a%-5.2fb%%\\n", true);
        assert_eq!(f.items.len(), 3);
        assert_eq!(f.items[2], Item::Lit(b"b%\n".to_vec()));
        let bad = |f: &[u8]| match &parse(f, true).items[0] {
            Item::Conv(c) => c.bad.clone(),
            _ => None,
        };
        assert_eq!(
            bad(b"%#s"),
            Some(b"%#s: invalid conversion specification".to_vec())
        );
        assert_eq!(
            bad(b"%5"),
            Some(b"%5: invalid conversion specification".to_vec())
        );
    }

    #[test]
    fn strtoint_like_c() {
        assert_eq!(strtoint(b"0x1F", true).value, 31);
        assert_eq!(strtoint(b"010", true).value, 8);
        assert_eq!(strtoint(b"08", true).end, 1);
        assert_eq!(strtoint(b"0x", true).end, 1);
        assert_eq!(strtoint(b"-1", false).value as u64, u64::MAX);
        assert!(strtoint(b"99999999999999999999", true).range_error);
        assert_eq!(strtoint(b"-18446744073709551615", false).value, 1);
        assert!(strtoint(b"-18446744073709551616", false).range_error);
        assert_eq!(strtoint(b"- 1", true).end, 0);
    }
}
