//! `long double` as GNU tools on x86-64 use it (the x87 80-bit format): reading numbers
//! like `strtold` and printing them like glibc's `%Lf %Le %Lg %La`, exactly.
//!
//! Arithmetic and correctly rounded parsing come from `rustc_apfloat`; printing is done
//! here from the exact binary value (a small big-integer turns it into all its decimal
//! digits), so that `printf '%.20f' 0.1` prints what GNU prints. Callers spend steps: the
//! work here is bounded by the requested precision and the number's size.

use std::cmp::Ordering;

use rustc_apfloat::ieee::X87DoubleExtended;
use rustc_apfloat::{Float, Round, Status};

/// An x87 extended-precision number.
pub type Ld = X87DoubleExtended;

/// What a finite, infinite or NaN value looks like inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Zero,
    /// `mant * 2^exp`, `mant` not zero.
    Finite {
        mant: u64,
        exp: i32,
    },
    Inf,
    Nan,
}

/// The sign and class of `x`.
pub fn decompose(x: Ld) -> (bool, Class) {
    let bits = x.to_bits();
    let neg = (bits >> 79) & 1 == 1;
    let biased = ((bits >> 64) & 0x7fff) as i32;
    let mant = bits as u64;
    let class = if biased == 0x7fff {
        if mant << 1 == 0 {
            Class::Inf
        } else {
            Class::Nan
        }
    } else if mant == 0 {
        Class::Zero
    } else if biased == 0 {
        Class::Finite {
            mant,
            exp: 1 - 16383 - 63,
        }
    } else {
        Class::Finite {
            mant,
            exp: biased - 16383 - 63,
        }
    };
    (neg, class)
}

/// The result of [`strtold`]: the value, how many bytes formed the number (0: none), and
/// whether it was out of range (`ERANGE`: overflow to infinity, or an inexact tiny value).
#[derive(Debug, Clone, Copy)]
pub struct Parsed {
    pub value: Ld,
    pub end: usize,
    pub range_error: bool,
    /// The size of a decimal conversion in 32-bit words, about (see [`Shape::work`]).
    pub work: u64,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn starts_with_ci(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// Reads the longest prefix of `s` that `strtold` reads in the C locale: leading white
/// space, a sign, then a decimal or `0x` hexadecimal number, `inf`, `infinity` or `nan`.
pub fn strtold(s: &[u8]) -> Parsed {
    let none = Parsed {
        value: Ld::ZERO,
        end: 0,
        range_error: false,
        work: 0,
    };
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if let Some(&c @ (b'+' | b'-')) = s.get(i) {
        neg = c == b'-';
        i += 1;
    }
    let rest = &s[i..];
    let special = |v: Ld, len: usize| Parsed {
        value: if neg { -v } else { v },
        end: i + len,
        range_error: false,
        work: 0,
    };
    if starts_with_ci(rest, b"infinity") {
        return special(Ld::INFINITY, 8);
    }
    if starts_with_ci(rest, b"inf") {
        return special(Ld::INFINITY, 3);
    }
    if starts_with_ci(rest, b"nan") {
        let mut len = 3;
        let mut mant = QNAN;
        if rest.get(3) == Some(&b'(') {
            let inner = rest[4..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            if rest.get(4 + inner) == Some(&b')') {
                len = 5 + inner;
                if let Some(p) = nan_payload(&rest[4..4 + inner]) {
                    mant |= p & !QNAN;
                }
            }
        }
        return special(Ld::from_bits((0x7fff << 64) | u128::from(mant)), len);
    }
    // Hexadecimal: 0x, then hex digits with at most one point, at least one digit.
    if rest.len() > 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        let (digits, seen) = scan_digits(&rest[2..], |b| b.is_ascii_hexdigit());
        if seen {
            let mut len = 2 + digits;
            let exp_len = scan_exponent(&rest[len..], b'p');
            let mut text = String::with_capacity(len + exp_len + 4);
            text.push_str("0x");
            text.push_str(std::str::from_utf8(&rest[2..len]).unwrap_or("0"));
            if exp_len > 0 {
                text.push_str(std::str::from_utf8(&rest[len..len + exp_len]).unwrap_or("p0"));
                len += exp_len;
            } else {
                text.push_str("p0");
            }
            return convert(&text, neg, i + len);
        }
        // "0x" without digits: only the 0 is a number.
    }
    let (digits, seen) = scan_digits(rest, |b| b.is_ascii_digit());
    if !seen {
        return none;
    }
    let exp_len = scan_exponent(&rest[digits..], b'e');
    let len = digits + exp_len;
    let shape = Shape::of(&rest[..digits], exponent_value(&rest[digits..len]));
    let mut p = if shape.sig > MAX_DIGITS {
        convert(&shape.shortened(&rest[..digits]), neg, i + len)
    } else {
        convert(
            std::str::from_utf8(&rest[..len]).unwrap_or("0"),
            neg,
            i + len,
        )
    };
    p.work = shape.work();
    p
}

/// The significand and exponent bits of glibc's default quiet NaN.
const QNAN: u64 = 0xC000_0000_0000_0000;

/// Significant decimal digits kept. A value halfway between two long doubles has at most
/// about 11,500 of them (the halfway points between denormals), so digits past this
/// many only tell whether the value is above the digits kept, which one sticky digit
/// says as well; and the conversion's cost grows with the square of the digits.
const MAX_DIGITS: usize = 12_000;

/// A decimal number's digits: where the first nonzero one is, how many follow it (itself
/// included), where the point is, and the value of the exponent.
struct Shape {
    first: usize,
    sig: usize,
    point: usize,
    exp: i64,
}

impl Shape {
    fn of(digits: &[u8], exp: i64) -> Shape {
        let first = digits
            .iter()
            .position(|&b| b != b'0' && b != b'.')
            .unwrap_or(digits.len());
        let point = digits
            .iter()
            .position(|&b| b == b'.')
            .unwrap_or(digits.len());
        Shape {
            first,
            sig: digits.len() - first - usize::from(point > first && point < digits.len()),
            point,
            exp,
        }
    }

    /// The power of ten of the digit at `k` (the point not counted as a digit).
    fn power(&self, k: usize) -> i64 {
        self.point as i64 - k as i64 - i64::from(k < self.point)
    }

    /// The size of the conversion in 32-bit words, about: the significand as an integer
    /// and the power of ten that scales it (0 for zero and for what is out of range at
    /// a glance). For the caller's step count.
    fn work(&self) -> u64 {
        if self.sig == 0 {
            return 0;
        }
        let lead = self.exp.saturating_add(self.power(self.first));
        if !(-4955..=4934).contains(&lead) {
            return 0;
        }
        let scale = lead.saturating_sub(self.sig as i64 - 1).unsigned_abs();
        // log2(10) / 32 is about 10 / 96; and a word for each of the two at least.
        (self.sig as u64 + scale) * 10 / 96 + 2
    }

    /// The first [`MAX_DIGITS`] significant digits, a sticky `1` when a nonzero digit
    /// follows them, and the exponent that puts them in place.
    fn shortened(&self, digits: &[u8]) -> String {
        let mut text = String::with_capacity(MAX_DIGITS + 24);
        let mut kept = 0;
        let mut last = 0i64;
        let mut sticky = false;
        for (k, &b) in digits.iter().enumerate().skip(self.first) {
            if b == b'.' {
                continue;
            }
            if kept < MAX_DIGITS {
                text.push(char::from(b));
                kept += 1;
                last = self.power(k);
            } else if b != b'0' {
                sticky = true;
                break;
            }
        }
        if sticky {
            text.push('1');
            last -= 1;
        }
        text.push('e');
        text.push_str(&self.exp.saturating_add(last).to_string());
        text
    }
}

/// The value of `e[+-]digits`, clamped far past any finite long double's exponent.
fn exponent_value(exp: &[u8]) -> i64 {
    let body = exp.get(1..).unwrap_or_default();
    let (neg, digits) = match body.first() {
        Some(b'-') => (true, &body[1..]),
        Some(b'+') => (false, &body[1..]),
        _ => (false, body),
    };
    let v = digits
        .iter()
        .fold(0i64, |v, &d| (v * 10 + i64::from(d - b'0')).min(1 << 40));
    if neg {
        -v
    } else {
        v
    }
}

/// The payload of `nan(...)`: a number in C's base-0 notation (as `strtoull` reads it).
fn nan_payload(s: &[u8]) -> Option<u64> {
    let (digits, radix) = if s.len() > 2 && s[0] == b'0' && (s[1] | 0x20) == b'x' {
        (&s[2..], 16)
    } else if s.len() > 1 && s[0] == b'0' {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    let text = std::str::from_utf8(digits).ok()?;
    if text.is_empty() {
        return (radix == 8).then_some(0);
    }
    u64::from_str_radix(text, radix).ok()
}

/// Digits with at most one point: (bytes taken, whether any digit was among them).
fn scan_digits(s: &[u8], is_digit: impl Fn(u8) -> bool) -> (usize, bool) {
    let mut i = 0;
    let mut seen = false;
    let mut point = false;
    while i < s.len() {
        if is_digit(s[i]) {
            seen = true;
        } else if s[i] == b'.' && !point {
            point = true;
        } else {
            break;
        }
        i += 1;
    }
    if !seen {
        return (0, false);
    }
    (i, true)
}

/// An exponent `e[+-]digits` (or `p...`), taken only when digits follow.
fn scan_exponent(s: &[u8], letter: u8) -> usize {
    if s.first().map(|b| b | 0x20) != Some(letter) {
        return 0;
    }
    let mut i = 1;
    if matches!(s.get(1), Some(b'+' | b'-')) {
        i = 2;
    }
    let n = s[i.min(s.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if n == 0 {
        0
    } else {
        i + n
    }
}

fn convert(text: &str, neg: bool, end: usize) -> Parsed {
    match Ld::from_str_r(text, Round::NearestTiesToEven) {
        Ok(r) => {
            let range_error = r.status.intersects(Status::OVERFLOW | Status::UNDERFLOW);
            Parsed {
                value: if neg { -r.value } else { r.value },
                end,
                range_error,
                work: 0,
            }
        }
        Err(_) => Parsed {
            value: Ld::ZERO,
            end: 0,
            range_error: false,
            work: 0,
        },
    }
}

/// `a + b`, rounded as the x87 rounds.
pub fn add(a: Ld, b: Ld) -> Ld {
    a.add_r(b, Round::NearestTiesToEven).value
}

/// `a * b`, rounded as the x87 rounds.
pub fn mul(a: Ld, b: Ld) -> Ld {
    a.mul_r(b, Round::NearestTiesToEven).value
}

/// `a < b` (false when either is NaN).
pub fn lt(a: Ld, b: Ld) -> bool {
    a.partial_cmp(&b) == Some(Ordering::Less)
}

pub fn is_nan(x: Ld) -> bool {
    x.is_nan()
}

pub fn is_negative(x: Ld) -> bool {
    x.is_negative()
}

pub fn is_zero(x: Ld) -> bool {
    x.is_zero()
}

pub fn is_infinite(x: Ld) -> bool {
    x.is_infinite()
}

/// A value from an integer, exactly when it fits in 64 bits.
pub fn from_i128(v: i128) -> Ld {
    Ld::from_i128_r(v, Round::NearestTiesToEven).value
}

/// The 80 bits of a long double, ordered as GNU `sort -g` orders numbers: NaNs first
/// (among themselves by their ten bytes in memory, as `memcmp` sees them), then the
/// numbers by value, `-0` equal to `0`.
#[derive(Debug, Clone, Copy)]
pub struct SortBits {
    /// Sign and biased exponent.
    se: u16,
    mant: u64,
}

impl SortBits {
    pub fn new(x: Ld) -> SortBits {
        let bits = x.to_bits();
        SortBits {
            se: (bits >> 64) as u16,
            mant: bits as u64,
        }
    }

    pub fn is_nan(self) -> bool {
        self.se & 0x7fff == 0x7fff && self.mant << 1 != 0
    }

    /// -1, 0 or 1 (NaNs: 0).
    fn sign(self) -> i8 {
        if self.mant == 0 || self.is_nan() {
            0
        } else if self.se >> 15 == 1 {
            -1
        } else {
            1
        }
    }
}

impl Ord for SortBits {
    fn cmp(&self, o: &SortBits) -> Ordering {
        match (self.is_nan(), o.is_nan()) {
            (true, true) => {
                // x86 is little-endian: the significand's bytes, then sign and exponent.
                let bytes = |b: &SortBits| (b.mant.swap_bytes(), b.se.swap_bytes());
                return bytes(self).cmp(&bytes(o));
            }
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        let (sa, sb) = (self.sign(), o.sign());
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        // Same sign: the biased exponent, then the significand (its integer bit is
        // explicit, so denormals order below normal numbers too).
        let mag = (self.se & 0x7fff, self.mant).cmp(&(o.se & 0x7fff, o.mant));
        if sa < 0 {
            mag.reverse()
        } else {
            mag
        }
    }
}

impl PartialOrd for SortBits {
    fn partial_cmp(&self, o: &SortBits) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for SortBits {
    fn eq(&self, o: &SortBits) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for SortBits {}

/// A non-negative integer as little-endian base-2^32 limbs.
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        Big(vec![v as u32, (v >> 32) as u32])
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let t = u64::from(*limb) * u64::from(m) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn shl(&mut self, bits: u32) {
        let words = (bits / 32) as usize;
        let bits = bits % 32;
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        if words > 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, words));
        }
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// Decimal digits (ASCII), without leading zeros; "0" for zero.
    fn into_decimal(mut self) -> Vec<u8> {
        const CHUNK: u64 = 1_000_000_000;
        self.trim();
        let mut chunks = Vec::new();
        while !self.0.is_empty() {
            let mut rem = 0u64;
            for limb in self.0.iter_mut().rev() {
                let cur = (rem << 32) | u64::from(*limb);
                *limb = (cur / CHUNK) as u32;
                rem = cur % CHUNK;
            }
            chunks.push(rem as u32);
            self.trim();
        }
        let mut out = Vec::with_capacity(chunks.len() * 9 + 1);
        for (i, c) in chunks.iter().rev().enumerate() {
            if i == 0 {
                out.extend_from_slice(c.to_string().as_bytes());
            } else {
                out.extend_from_slice(format!("{c:09}").as_bytes());
            }
        }
        if out.is_empty() {
            out.push(b'0');
        }
        out
    }
}

/// The exact decimal expansion of `mant * 2^exp`: its digits (no leading zeros) and the
/// power of ten of the first digit.
fn exact_digits(mut mant: u64, mut exp: i32) -> (Vec<u8>, i32) {
    let tz = mant.trailing_zeros().min(exp.unsigned_abs()) as i32;
    if exp < 0 {
        mant >>= tz;
        exp += tz;
    }
    if (-64..=0).contains(&exp) {
        return small_digits(mant, exp.unsigned_abs());
    }
    big_digits(mant, exp)
}

/// [`exact_digits`] with a big number, for any exponent.
fn big_digits(mant: u64, exp: i32) -> (Vec<u8>, i32) {
    let mut big = Big::from_u64(mant);
    let frac_len = if exp >= 0 {
        big.shl(exp as u32);
        0
    } else {
        // m / 2^k = m * 5^k / 10^k
        let k = exp.unsigned_abs();
        let mut left = k;
        while left >= 13 {
            big.mul_small(1_220_703_125);
            left -= 13;
        }
        big.mul_small(5u32.pow(left));
        k as i32
    };
    let mut digits = big.into_decimal();
    let x = digits.len() as i32 - 1 - frac_len;
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, x)
}

/// [`exact_digits`] for `mant / 2^k` with `k <= 64`: in 128-bit integers, without a
/// big number (the usual case: numbers of ordinary size).
fn small_digits(mant: u64, k: u32) -> (Vec<u8>, i32) {
    let int = if k == 64 { 0 } else { mant >> k };
    let mask: u128 = (1u128 << k) - 1;
    let mut frac = u128::from(mant) & mask;
    let mut digits = Vec::with_capacity(24 + k as usize);
    let mut x: i32;
    if int > 0 {
        digits.extend_from_slice(int.to_string().as_bytes());
        x = digits.len() as i32 - 1;
    } else {
        // Skip the zeros after the point.
        x = -1;
        while frac != 0 {
            frac *= 10;
            if frac >> k != 0 {
                break;
            }
            x -= 1;
        }
        if frac == 0 {
            return (vec![b'0'], 0);
        }
        digits.push(b'0' + (frac >> k) as u8);
        frac &= mask;
    }
    while frac != 0 {
        frac *= 10;
        digits.push(b'0' + (frac >> k) as u8);
        frac &= mask;
    }
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, x)
}

/// Rounds `digits` (first digit at power `x`) to `n` digits, half to even, as glibc does
/// in the default rounding mode. Returns the new digits (exactly `n`, or none when the
/// value rounds to zero) and the power of the first.
fn round_to(mut digits: Vec<u8>, mut x: i32, n: i64) -> (Vec<u8>, i32) {
    if n < 0 {
        return (Vec::new(), x);
    }
    let n = n as usize;
    if n >= digits.len() {
        digits.resize(n, b'0');
        return (digits, x);
    }
    let first = digits[n];
    let rest_nonzero = digits[n + 1..].iter().any(|&d| d != b'0');
    let prev_odd = n > 0 && (digits[n - 1] - b'0') % 2 == 1;
    let up = first > b'5' || (first == b'5' && (rest_nonzero || prev_odd));
    digits.truncate(n);
    if up {
        let mut i = n;
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                digits.truncate(n.max(1));
                x += 1;
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    (digits, x)
}

/// How a floating conversion is written: glibc's flags, width and precision.
#[derive(Debug, Clone, Copy, Default)]
pub struct FloatSpec {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub zero: bool,
    pub width: usize,
    pub prec: Option<usize>,
    /// One of `f F e E g G a A`.
    pub conv: u8,
}

/// Writes `x` as `printf` with `spec` would.
pub fn format(out: &mut Vec<u8>, spec: &FloatSpec, x: Ld) {
    let (neg, class) = decompose(x);
    let upper = spec.conv.is_ascii_uppercase();
    let sign: &[u8] = if neg {
        b"-"
    } else if spec.plus {
        b"+"
    } else if spec.space {
        b" "
    } else {
        b""
    };
    let mut body = Vec::new();
    let mut prefix: &[u8] = b"";
    let finite = !matches!(class, Class::Inf | Class::Nan);
    match class {
        Class::Inf => body.extend_from_slice(if upper { b"INF" } else { b"inf" }),
        Class::Nan => body.extend_from_slice(if upper { b"NAN" } else { b"nan" }),
        Class::Zero | Class::Finite { .. } => {
            let (mant, exp) = match class {
                Class::Finite { mant, exp } => (mant, exp),
                _ => (0, 0),
            };
            match spec.conv | 0x20 {
                b'a' => {
                    prefix = if upper { b"0X" } else { b"0x" };
                    hex(&mut body, spec, mant, exp, upper);
                }
                b'e' => {
                    let p = spec.prec.unwrap_or(6);
                    let (d, x) = digits_of(mant, exp);
                    let (d, x) = round_to(d, x, p as i64 + 1);
                    sci(&mut body, &d, x, p, spec.alt, upper);
                }
                b'g' => {
                    let p = spec.prec.unwrap_or(6).max(1);
                    let (d, x0) = digits_of(mant, exp);
                    let (d, x) = round_to(d, x0, p as i64);
                    let start = body.len();
                    if spec.alt && x0 < p as i32 && x == p as i32 {
                        // glibc: when rounding carries a fixed-style number into
                        // exponent style, `#` keeps the point but no zeros ("1.e+06").
                        sci(&mut body, &d, x, 0, true, upper);
                    } else if x < p as i32 && x >= -4 {
                        fixed(&mut body, &d, x, (p as i32 - 1 - x) as usize, spec.alt);
                    } else {
                        sci(&mut body, &d, x, p - 1, spec.alt, upper);
                    }
                    if !spec.alt {
                        strip_zeros(&mut body, start);
                    }
                }
                _ => {
                    let p = spec.prec.unwrap_or(6);
                    let (d, x) = digits_of(mant, exp);
                    let keep = i64::from(x) + 1 + p as i64;
                    let (d, x) = round_to(d, x, keep);
                    fixed(&mut body, &d, x, p, spec.alt);
                }
            }
        }
    }
    let len = sign.len() + prefix.len() + body.len();
    let pad = spec.width.saturating_sub(len);
    if spec.minus {
        out.extend_from_slice(sign);
        out.extend_from_slice(prefix);
        out.extend_from_slice(&body);
        out.resize(out.len() + pad, b' ');
    } else if spec.zero && finite {
        out.extend_from_slice(sign);
        out.extend_from_slice(prefix);
        out.resize(out.len() + pad, b'0');
        out.extend_from_slice(&body);
    } else {
        out.resize(out.len() + pad, b' ');
        out.extend_from_slice(sign);
        out.extend_from_slice(prefix);
        out.extend_from_slice(&body);
    }
}

fn digits_of(mant: u64, exp: i32) -> (Vec<u8>, i32) {
    if mant == 0 {
        (vec![b'0'], 0)
    } else {
        exact_digits(mant, exp)
    }
}

/// `[-]ddd.ddd` from `n` rounded digits whose first is at power `x` (none: zero).
fn fixed(out: &mut Vec<u8>, d: &[u8], x: i32, prec: usize, alt: bool) {
    let digit = |pos: i64| -> u8 {
        let idx = i64::from(x) - pos;
        if d.is_empty() || idx < 0 || idx >= d.len() as i64 {
            b'0'
        } else {
            d[idx as usize]
        }
    };
    if d.is_empty() || x < 0 {
        out.push(b'0');
    } else {
        let mut pos = i64::from(x);
        while pos >= 0 {
            out.push(digit(pos));
            pos -= 1;
        }
    }
    if prec > 0 || alt {
        out.push(b'.');
    }
    for k in 1..=prec as i64 {
        out.push(digit(-k));
    }
}

/// `d.ddde+XX` from rounded digits.
fn sci(out: &mut Vec<u8>, d: &[u8], x: i32, prec: usize, alt: bool, upper: bool) {
    out.push(d.first().copied().unwrap_or(b'0'));
    if prec > 0 || alt {
        out.push(b'.');
    }
    for k in 1..=prec {
        out.push(d.get(k).copied().unwrap_or(b'0'));
    }
    out.push(if upper { b'E' } else { b'e' });
    out.push(if x < 0 { b'-' } else { b'+' });
    let e = x.unsigned_abs();
    if e < 10 {
        out.push(b'0');
    }
    out.extend_from_slice(e.to_string().as_bytes());
}

/// `%g` without `#`: drops trailing zeros of the fraction, and the point if nothing is left.
fn strip_zeros(body: &mut Vec<u8>, start: usize) {
    let Some(point) = body[start..].iter().position(|&b| b == b'.') else {
        return;
    };
    let point = start + point;
    let end = body[point..]
        .iter()
        .position(|&b| b == b'e' || b == b'E')
        .map_or(body.len(), |p| point + p);
    let mut cut = end;
    while cut > point + 1 && body[cut - 1] == b'0' {
        cut -= 1;
    }
    if cut == point + 1 {
        cut = point;
    }
    body.drain(cut..end);
}

/// glibc's `%La` for x87: the first hex digit holds the top four bits of the 64-bit
/// significand (so 1 is `0x8p-3`).
fn hex(out: &mut Vec<u8>, spec: &FloatSpec, mant: u64, exp: i32, upper: bool) {
    let digits: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    if mant == 0 {
        out.push(b'0');
        let p = spec.prec.unwrap_or(0);
        if p > 0 || spec.alt {
            out.push(b'.');
        }
        out.resize(out.len() + p, b'0');
        out.extend_from_slice(if upper { b"P+0" } else { b"p+0" });
        return;
    }
    let mut lead = mant >> 60;
    let mut frac = mant & ((1u64 << 60) - 1);
    let mut e = i64::from(exp) + 60;
    let mut nd = 15usize;
    if let Some(p) = spec.prec {
        if p < 15 {
            let drop = 4 * (15 - p) as u32;
            let rem = frac & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            frac >>= drop;
            let odd = if p == 0 { lead & 1 == 1 } else { frac & 1 == 1 };
            if rem > half || (rem == half && odd) {
                frac += 1;
                if frac >> (4 * p) != 0 {
                    frac = 0;
                    lead += 1;
                }
            }
            if lead == 16 {
                lead = 1;
                e += 4;
            }
            nd = p;
        }
    }
    out.push(digits[lead as usize]);
    let mut frac_digits: Vec<u8> = (0..nd)
        .rev()
        .map(|k| digits[((frac >> (4 * k)) & 15) as usize])
        .collect();
    match spec.prec {
        None => {
            while frac_digits.last() == Some(&b'0') {
                frac_digits.pop();
            }
        }
        Some(p) if p > 15 => frac_digits.resize(p, b'0'),
        _ => {}
    }
    if !frac_digits.is_empty() || spec.alt {
        out.push(b'.');
    }
    out.extend_from_slice(&frac_digits);
    out.push(if upper { b'P' } else { b'p' });
    if e >= 0 {
        out.push(b'+');
    }
    out.extend_from_slice(e.to_string().as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, arg: &str) -> String {
        let parsed = strtold(arg.as_bytes());
        let mut spec = FloatSpec {
            conv: fmt.as_bytes()[fmt.len() - 1],
            ..Default::default()
        };
        let mid = &fmt[1..fmt.len() - 1];
        let mut chars = mid.bytes().peekable();
        while let Some(&c) = chars.peek() {
            match c {
                b'-' => spec.minus = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            chars.next();
        }
        let rest: String = chars.map(|b| b as char).collect();
        let (w, p) = match rest.split_once('.') {
            Some((w, p)) => (w.to_string(), Some(p.parse().unwrap_or(0))),
            None => (rest, None),
        };
        spec.width = w.parse().unwrap_or(0);
        spec.prec = p;
        let mut out = Vec::new();
        format(&mut out, &spec, parsed.value);
        String::from_utf8(out).unwrap()
    }

    // Expected values from GNU printf 9.1 (x86-64, long double).
    #[test]
    fn like_gnu() {
        assert_eq!(f("%f", "0.1"), "0.100000");
        assert_eq!(f("%.20f", "0.1"), "0.10000000000000000000");
        assert_eq!(f("%.25e", "0.1"), "1.0000000000000000000135525e-01");
        assert_eq!(f("%.30g", "0.1"), "0.100000000000000000001355252716");
        assert_eq!(f("%a", "0.1"), "0xc.ccccccccccccccdp-7");
        assert_eq!(f("%A", "0.1"), "0XC.CCCCCCCCCCCCCCDP-7");
        assert_eq!(f("%a", "1"), "0x8p-3");
        assert_eq!(f("%a", "-2.5"), "-0xap-2");
        assert_eq!(f("%a", "0"), "0x0p+0");
        assert_eq!(f("%.3a", "0.1"), "0xc.ccdp-7");
        assert_eq!(f("%.0a", "1.5"), "0xcp-3");
        assert_eq!(f("%#.0a", "1"), "0x8.p-3");
        assert_eq!(f("%a", "1e-4940"), "0x0.000000663278e62p-16385");
        assert_eq!(f("%.0a", "1.9999"), "0x1p+1");
        assert_eq!(f("%.0a", "0x8.8p-3"), "0x8p-3");
        assert_eq!(f("%.0a", "0x9.8p-3"), "0xap-3");
        assert_eq!(f("%010a", "1"), "0x00008p-3");
        assert_eq!(f("%.20a", "1"), "0x8.00000000000000000000p-3");
        assert_eq!(f("%a", "1e4932"), "0xd.72cb2a95c7ef6cdp+16380");
        assert_eq!(f("%a", "0x1p-16383"), "0x4p-16385");
        assert_eq!(f("%g", "100000"), "100000");
        assert_eq!(f("%g", "1000000"), "1e+06");
        assert_eq!(f("%g", "0.0001"), "0.0001");
        assert_eq!(f("%g", "0.00001"), "1e-05");
        assert_eq!(f("%g", "123456789"), "1.23457e+08");
        assert_eq!(f("%#g", "1"), "1.00000");
        assert_eq!(f("%.0g", "0"), "0");
        assert_eq!(f("%#.0g", "0"), "0.");
        assert_eq!(f("%e", "0"), "0.000000e+00");
        assert_eq!(f("%f", "-0"), "-0.000000");
        assert_eq!(f("%g", "-0.0"), "-0");
        assert_eq!(f("%010f", "-1.5"), "-01.500000");
        assert_eq!(f("%-010f", "1.5"), "1.500000  ");
        assert_eq!(f("%010g", "1.5"), "00000001.5");
        assert_eq!(f("%+010.1f", "2"), "+0000002.0");
        assert_eq!(f("%010f", "inf"), "       inf");
        assert_eq!(f("%+.2g", "1234"), "+1.2e+03");
        assert_eq!(f("% .0f", "2.5"), " 2");
        assert_eq!(f("%#.0f", "3"), "3.");
        assert_eq!(f("%#.0e", "3"), "3.e+00");
        assert_eq!(f("%f", "-nan"), "-nan");
        assert_eq!(f("%F", "inf"), "INF");
        assert_eq!(f("%#g", "999999.5"), "1.e+06");
        assert_eq!(f("%#g", "9999995"), "1.00000e+07");
        assert_eq!(f("%#010.3g", "999.5"), "00001.e+03");
        assert_eq!(f("%#g", "0.00009999999"), "0.000100000");
    }

    #[test]
    fn small_and_big_digits_agree() {
        let mut m: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..2000 {
            m = m
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mant = (m >> (i % 60)).max(1);
            let exp: i32 = -(i % 65);
            let tz = mant.trailing_zeros().min(exp.unsigned_abs());
            let (m2, e2) = (mant >> tz, exp + tz as i32);
            assert_eq!(
                small_digits(m2, e2.unsigned_abs()),
                big_digits(m2, e2),
                "{mant} {exp}"
            );
        }
    }

    fn key(s: &str) -> Option<SortBits> {
        let p = strtold(s.as_bytes());
        (p.end > 0).then(|| SortBits::new(p.value))
    }

    fn bits(s: &str) -> u128 {
        strtold(s.as_bytes()).value.to_bits()
    }

    #[test]
    fn sort_order() {
        assert_eq!(key("0x1p3"), key("8"));
        assert_eq!(key("1.5"), key("0x1.8"));
        assert_eq!(key("-0"), key("0"));
        assert!(key("1e400") > key("1e300"));
        assert!(key("1e4000") < key("inf"));
        assert_eq!(key("1e5000"), key("inf"));
        assert!(key("-inf") < key("-1e4000"));
        assert!(key("-2") < key("-1"));
        assert!(key("1e-400") < key("4.9e-324"));
        assert!(key("1e-400") > key("0"));
        assert!(key("1e-4940") > key("0"));
        assert!(key("1e-4940") < key("1e-4930"));
        assert!(key("-1e-4940") < key("-0"));
        // Nothing a number starts with sorts first, then NaNs, then numbers.
        assert_eq!(key("abc"), None);
        assert_eq!(key("."), None);
        assert_eq!(key("-"), None);
        assert!(key("nan").is_some_and(SortBits::is_nan));
        assert!(key("nan") < key("-inf"));
        assert!(None < key("nan"));
        // NaNs by their bytes: the payload's low byte first, the sign last.
        assert!(key("nan(256)") < key("nan(1)"));
        assert!(key("nan(257)") < key("nan(2)"));
        assert!(key("nan(1)") < key("nan(2)"));
        assert!(key("nan") < key("-nan"));
        assert_eq!(key("1e"), key("1"));
        assert_eq!(key("0x"), key("0"));
    }

    #[test]
    fn long_double_precision() {
        // From GNU sort -g: 1 + 1e-19 is above 1, 1 + 1e-20 is 1.
        assert!(key("1.0000000000000000001") > key("1"));
        assert_eq!(key("1.00000000000000000001"), key("1"));
        assert_eq!(bits("0.1") as u64, 0xCCCC_CCCC_CCCC_CCCD);
        assert_eq!(bits("1"), 0x3fff_8000_0000_0000_0000);
    }

    #[test]
    fn nan_payloads() {
        assert_eq!(bits("nan"), 0x7fff_c000_0000_0000_0000);
        assert_eq!(bits("-nan"), 0xffff_c000_0000_0000_0000);
        assert_eq!(bits("nan(0x12)"), 0x7fff_c000_0000_0000_0012);
        assert_eq!(bits("nan(010)"), 0x7fff_c000_0000_0000_0008);
        assert_eq!(bits("nan(0)"), 0x7fff_c000_0000_0000_0000);
        assert_eq!(bits("nan(x)"), 0x7fff_c000_0000_0000_0000);
        assert_eq!(strtold(b"nan(x)").end, 6);
    }

    #[test]
    fn long_significands_round_exactly() {
        // 1 + 2^-64, halfway between 1 and the next long double: ties to even (1), and
        // anything above it, however far down, rounds up.
        let half = "1.0000000000000000000542101086242752217003726400434970855712890625";
        assert_eq!(bits(half), bits("1"));
        let above = format!("{half}{}1", "0".repeat(20_000));
        assert_eq!(bits(&above), bits("0x1.0000000000000002p0"));
        let below = format!(
            "1.0000000000000000000542101086242752217003726400434970855712890624{}9",
            "9".repeat(20_000)
        );
        assert_eq!(bits(&below), bits("1"));
        // Digits past the point and an exponent that puts them back.
        let long = format!("{}e-20000", "1".repeat(20_001));
        assert_eq!(bits(&long), bits("1.1111111111111111111111111"));
        let frac = format!("0.{}{}e30000", "0".repeat(29_999), "3".repeat(15_000));
        assert_eq!(bits(&frac), bits("3.3333333333333333333333333"));
        assert_eq!(strtold(frac.as_bytes()).end, frac.len());
    }

    #[test]
    fn parse_prefixes() {
        assert_eq!(strtold(b"1e").end, 1);
        assert_eq!(strtold(b"0x").end, 1);
        assert_eq!(strtold(b"  1.5x").end, 5);
        assert_eq!(strtold(b".").end, 0);
        assert_eq!(strtold(b"1e+").end, 1);
        assert_eq!(strtold(b"infinityx").end, 8);
        assert_eq!(strtold(b"nan(12)").end, 7);
        assert_eq!(strtold(b"nan(12").end, 3);
        assert!(strtold(b"1e5000").range_error);
        assert!(strtold(b"1e-5000").range_error);
        assert!(strtold(b"1e-4940").range_error);
        assert!(!strtold(b"0x1p-16440").range_error);
    }
}
