//! `sort -g`: numbers read as C's `strtold` reads them into an x87 long double (64-bit
//! mantissa, 15-bit exponent), correctly rounded, so that sort orders them as GNU does.

use std::cmp::Ordering;

/// What `strtold` makes of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum General {
    /// Nothing a number starts with: sorts first.
    NotNumber,
    /// Sorts after non-numbers, before numbers; NaNs order by their bytes in memory.
    NaN {
        neg: bool,
        mantissa: u64,
    },
    Number(F80),
}

/// A long double: `neg`, and for a finite nonzero value `mant * 2^exp` with bit 63 of
/// `mant` set. Zero has `mant == 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct F80 {
    pub neg: bool,
    pub inf: bool,
    pub exp: i32,
    pub mant: u64,
}

impl F80 {
    const ZERO: F80 = F80 {
        neg: false,
        inf: false,
        exp: 0,
        mant: 0,
    };

    fn inf(neg: bool) -> F80 {
        F80 {
            neg,
            inf: true,
            exp: 0,
            mant: 0,
        }
    }

    /// Compares magnitudes of two non-negative values.
    fn cmp_abs(&self, o: &F80) -> Ordering {
        match (self.inf, o.inf) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        match (self.mant == 0, o.mant == 0) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => (self.exp, self.mant).cmp(&(o.exp, o.mant)),
        }
    }
}

impl Ord for F80 {
    fn cmp(&self, o: &F80) -> Ordering {
        let zero_a = self.mant == 0 && !self.inf;
        let zero_b = o.mant == 0 && !o.inf;
        let sign = |neg: bool, zero: bool| {
            if zero {
                0
            } else if neg {
                -1
            } else {
                1
            }
        };
        let (sa, sb) = (sign(self.neg, zero_a), sign(o.neg, zero_b));
        if sa != sb {
            return sa.cmp(&sb);
        }
        match sa {
            0 => Ordering::Equal,
            1 => self.cmp_abs(o),
            _ => o.cmp_abs(self),
        }
    }
}

impl PartialOrd for F80 {
    fn partial_cmp(&self, o: &F80) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// GNU's order of `-g` keys.
pub fn compare(a: &General, b: &General) -> Ordering {
    use General::*;
    match (a, b) {
        (NotNumber, NotNumber) => Ordering::Equal,
        (NotNumber, _) => Ordering::Less,
        (_, NotNumber) => Ordering::Greater,
        (NaN { .. }, Number(_)) => Ordering::Less,
        (Number(_), NaN { .. }) => Ordering::Greater,
        (Number(x), Number(y)) => x.cmp(y),
        (
            NaN {
                neg: na,
                mantissa: ma,
            },
            NaN {
                neg: nb,
                mantissa: mb,
            },
        ) => {
            // memcmp of the 10 bytes of an x86 long double: mantissa little-endian first,
            // then the exponent (all ones) with the sign in the top bit.
            let bytes = |neg: bool, m: u64| {
                let mut v = m.to_le_bytes().to_vec();
                v.push(0xff);
                v.push(if neg { 0xff } else { 0x7f });
                v
            };
            bytes(*na, *ma).cmp(&bytes(*nb, *mb))
        }
    }
}

/// Reads a key as `strtold` does in the C locale, with the work it took (big-number
/// limbs), for the caller's step count.
pub fn parse_counted(s: &[u8]) -> (General, u64) {
    WORK.with(|w| w.set(0));
    let g = parse(s);
    (g, WORK.with(|w| w.get()))
}

thread_local! {
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Reads a key as `strtold` does in the C locale.
pub fn parse(s: &[u8]) -> General {
    let mut i = s
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t'..=b'\r'))
        .count();
    let mut neg = false;
    if let Some(&c) = s.get(i) {
        if c == b'+' || c == b'-' {
            neg = c == b'-';
            i += 1;
        }
    }
    let rest = &s[i..];
    let lower = |k: usize| rest.get(k).map(|b| b.to_ascii_lowercase());
    if lower(0) == Some(b'i') && lower(1) == Some(b'n') && lower(2) == Some(b'f') {
        return General::Number(F80::inf(neg));
    }
    if lower(0) == Some(b'n') && lower(1) == Some(b'a') && lower(2) == Some(b'n') {
        let mut mantissa = 0xC000_0000_0000_0000u64;
        if rest.get(3) == Some(&b'(') {
            let body_len = rest[4..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            if rest.get(4 + body_len) == Some(&b')') {
                if let Some(p) = nan_payload(&rest[4..4 + body_len]) {
                    mantissa |= p & 0x3FFF_FFFF_FFFF_FFFF;
                }
            }
        }
        return General::NaN { neg, mantissa };
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        if let Some(v) = parse_hex(&rest[2..], neg) {
            return General::Number(v);
        }
    }
    parse_decimal(rest, neg)
}

/// The payload of `nan(...)`: a number in C's base-0 notation.
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

fn parse_decimal(s: &[u8], neg: bool) -> General {
    let mut i = 0;
    let mut digits: Vec<u8> = Vec::new();
    let mut exp10: i64 = 0;
    let mut any = false;
    let mut sticky = false;
    const MAX_DIGITS: usize = 40;
    let mut push = |d: u8, digits: &mut Vec<u8>, exp10: &mut i64, frac: bool| {
        if digits.is_empty() && d == 0 {
            if frac {
                *exp10 -= 1;
            }
            return;
        }
        if digits.len() < MAX_DIGITS {
            digits.push(d);
            if frac {
                *exp10 -= 1;
            }
        } else {
            sticky |= d != 0;
            if !frac {
                *exp10 += 1;
            }
        }
    };
    while let Some(&c) = s.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        any = true;
        push(c - b'0', &mut digits, &mut exp10, false);
        i += 1;
    }
    if s.get(i) == Some(&b'.') {
        let mut j = i + 1;
        let mut frac_any = false;
        while let Some(&c) = s.get(j) {
            if !c.is_ascii_digit() {
                break;
            }
            frac_any = true;
            push(c - b'0', &mut digits, &mut exp10, true);
            j += 1;
        }
        if frac_any || any {
            any = true;
            i = j;
        }
    }
    if !any {
        return General::NotNumber;
    }
    exp10 += exponent(s, i, b'e');
    if digits.is_empty() {
        return General::Number(F80 { neg, ..F80::ZERO });
    }
    if sticky {
        digits.push(1);
        exp10 -= 1;
    }
    // The leading digit's decimal position decides overflow and underflow early.
    let lead = exp10 + digits.len() as i64;
    if lead > 4934 {
        return General::Number(F80::inf(neg));
    }
    if lead < -4955 {
        return General::Number(F80 { neg, ..F80::ZERO });
    }
    let mut num = Big::from_digits(&digits);
    let mut den = Big::one();
    if exp10 >= 0 {
        num.mul_pow10(exp10 as u32);
    } else {
        den.mul_pow10((-exp10) as u32);
    }
    General::Number(round(num, den, 0, neg))
}

fn parse_hex(s: &[u8], neg: bool) -> Option<F80> {
    let mut i = 0;
    let mut num = Big::zero();
    let mut bexp: i64 = 0;
    let mut any = false;
    let mut sig_bits = 0usize;
    let mut sticky = false;
    let mut add = |d: u32, num: &mut Big, bexp: &mut i64, frac: bool| {
        if sig_bits < 160 {
            num.shl(4);
            num.add_small(d);
            if !num.is_zero() {
                sig_bits += 4;
            }
            if frac {
                *bexp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !frac {
                *bexp += 4;
            }
        }
    };
    while let Some(d) = s.get(i).and_then(|&c| (c as char).to_digit(16)) {
        any = true;
        add(d, &mut num, &mut bexp, false);
        i += 1;
    }
    if s.get(i) == Some(&b'.') {
        let mut j = i + 1;
        let mut frac_any = false;
        while let Some(d) = s.get(j).and_then(|&c| (c as char).to_digit(16)) {
            frac_any = true;
            add(d, &mut num, &mut bexp, true);
            j += 1;
        }
        if frac_any || any {
            any = true;
            i = j;
        }
    }
    if !any {
        return None;
    }
    bexp += exponent(s, i, b'p');
    if num.is_zero() {
        return Some(F80 { neg, ..F80::ZERO });
    }
    if sticky {
        num.shl(1);
        num.add_small(1);
        bexp -= 1;
    }
    let top = bexp + num.bits() as i64;
    if top > 16400 {
        return Some(F80::inf(neg));
    }
    if top < -16500 {
        return Some(F80 { neg, ..F80::ZERO });
    }
    Some(round(num, Big::one(), bexp, neg))
}

/// The long double nearest to `num / den * 2^bexp` (ties to even), with denormals,
/// overflow to infinity and underflow to zero.
fn round(mut num: Big, mut den: Big, bexp: i64, neg: bool) -> F80 {
    let work = (num.0.len() + den.0.len()) as u64;
    WORK.with(|w| w.set(w.get() + work));
    // Scale so that the quotient has 66 or 67 bits: 64 for the mantissa, two to round.
    let shift = 66 - (num.bits() as i64 - den.bits() as i64);
    if shift > 0 {
        num.shl(shift as usize);
    } else if shift < 0 {
        den.shl((-shift) as usize);
    }
    let (mut q, rem_nonzero) = num.div_small_quotient(&den);
    let mut e = bexp - shift; // value = q * 2^e (plus the remainder)
    let sticky = rem_nonzero;
    // Keep 64 significant bits, or fewer for a denormal (lowest bit weight 2^-16445).
    let bits = 128 - q.leading_zeros() as i64;
    let mut drop = bits - 64;
    let lowest = -16445i64;
    if e + drop < lowest {
        drop = lowest - e;
    }
    if drop > 0 {
        if drop >= 128 {
            return F80 { neg, ..F80::ZERO };
        }
        let d = drop as u32;
        let half = 1u128 << (d - 1);
        let low = q & ((1u128 << d) - 1);
        q >>= d;
        e += drop;
        let round_up = low > half || (low == half && (sticky || q & 1 == 1));
        if round_up {
            q += 1;
        }
    }
    if q == 0 {
        return F80 { neg, ..F80::ZERO };
    }
    // Normalize to bit 63 for comparing.
    let bits = 128 - q.leading_zeros() as i64;
    let exp_top = e + bits - 1; // value in [2^exp_top, 2^(exp_top+1))
    if exp_top > 16383 {
        return F80::inf(neg);
    }
    let mant = if bits > 64 {
        (q >> (bits - 64)) as u64
    } else {
        (q << (64 - bits)) as u64
    };
    F80 {
        neg,
        inf: false,
        exp: exp_top as i32,
        mant,
    }
}

/// A small unsigned big integer, little-endian 32-bit limbs.
#[derive(Debug, Clone)]
struct Big(Vec<u32>);

impl Big {
    fn zero() -> Big {
        Big(Vec::new())
    }

    fn one() -> Big {
        Big(vec![1])
    }

    fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }

    fn from_digits(d: &[u8]) -> Big {
        let mut b = Big::zero();
        for chunk in d.chunks(9) {
            let mut v = 0u32;
            for &x in chunk {
                v = v * 10 + u32::from(x);
            }
            b.mul_small(10u32.pow(chunk.len() as u32));
            b.add_small(v);
        }
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in self.0.iter_mut() {
            let v = u64::from(*l) * u64::from(m) + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn add_small(&mut self, a: u32) {
        let mut carry = u64::from(a);
        for l in self.0.iter_mut() {
            if carry == 0 {
                return;
            }
            let v = u64::from(*l) + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        if n > 0 {
            self.mul_small(10u32.pow(n));
        }
    }

    fn bits(&self) -> usize {
        let mut s = self.0.len();
        while s > 0 && self.0[s - 1] == 0 {
            s -= 1;
        }
        if s == 0 {
            return 0;
        }
        (s - 1) * 32 + (32 - self.0[s - 1].leading_zeros() as usize)
    }

    fn shl(&mut self, n: usize) {
        let (limbs, bits) = (n / 32, n % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for l in self.0.iter_mut() {
                let v = (*l << bits) | carry;
                carry = *l >> (32 - bits);
                *l = v;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        if limbs > 0 {
            let mut v = vec![0u32; limbs];
            v.extend_from_slice(&self.0);
            self.0 = v;
        }
    }

    fn cmp(&self, o: &Big) -> Ordering {
        let (mut a, mut b) = (self.0.len(), o.0.len());
        while a > 0 && self.0[a - 1] == 0 {
            a -= 1;
        }
        while b > 0 && o.0[b - 1] == 0 {
            b -= 1;
        }
        if a != b {
            return a.cmp(&b);
        }
        for i in (0..a).rev() {
            if self.0[i] != o.0[i] {
                return self.0[i].cmp(&o.0[i]);
            }
        }
        Ordering::Equal
    }

    /// `self -= o`, for `o <= self`.
    fn sub(&mut self, o: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let v = i64::from(self.0[i]) - i64::from(*o.0.get(i).unwrap_or(&0)) - borrow;
            if v < 0 {
                self.0[i] = (v + (1 << 32)) as u32;
                borrow = 1;
            } else {
                self.0[i] = v as u32;
                borrow = 0;
            }
        }
        self.trim();
    }

    /// The quotient `self / d` (which must be below 2^127), and whether a remainder is left.
    fn div_small_quotient(mut self, d: &Big) -> (u128, bool) {
        let qbits = (self.bits() as i64 - d.bits() as i64 + 1).clamp(0, 127) as usize;
        let mut q = 0u128;
        for i in (0..qbits).rev() {
            let mut t = d.clone();
            t.shl(i);
            if self.cmp(&t) != Ordering::Less {
                self.sub(&t);
                q |= 1u128 << i;
            }
        }
        (q, !self.is_zero())
    }
}

/// The exponent at `s[i]` when it is `marker` (either case) with an optionally signed run
/// of digits, clamped to +-2^40 (far past any finite value); 0 without one, as strtold
/// ignores a marker without digits.
fn exponent(s: &[u8], i: usize, marker: u8) -> i64 {
    if s.get(i).map(|&c| c | 0x20) != Some(marker) {
        return 0;
    }
    let mut j = i + 1;
    let neg = s.get(j) == Some(&b'-');
    if matches!(s.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    let digits = s
        .get(j..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_digit());
    let e = digits.fold(0i64, |e, &d| (e * 10 + i64::from(d - b'0')).min(1 << 40));
    if neg {
        -e
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> F80 {
        match parse(s.as_bytes()) {
            General::Number(f) => f,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn exact_values() {
        assert_eq!(num("1").mant, 1 << 63);
        assert_eq!(num("1").exp, 0);
        assert_eq!(num("0x1p3"), num("8"));
        assert_eq!(num("1.5"), num("0x1.8"));
        assert_eq!(num("-0").cmp(&num("0")), Ordering::Equal);
        assert!(num("1e400") > num("1e300"));
        assert!(num("1e4000") < num("inf"));
        assert_eq!(num("1e5000"), num("inf"));
        assert!(num("1e-400") < num("4.9e-324"));
        assert!(num("1e-400") > num("0"));
    }

    #[test]
    fn long_double_precision() {
        // From GNU sort -g: 1 + 1e-19 is above 1, 1 + 1e-20 is 1.
        assert!(num("1.0000000000000000001") > num("1"));
        assert_eq!(num("1.00000000000000000001"), num("1"));
        assert_eq!(num("0.1").mant, 0xCCCC_CCCC_CCCC_CCCD);
    }

    #[test]
    fn non_numbers() {
        assert_eq!(parse(b"abc"), General::NotNumber);
        assert_eq!(parse(b"."), General::NotNumber);
        assert_eq!(parse(b"-"), General::NotNumber);
        assert!(matches!(parse(b"0x"), General::Number(f) if f.mant == 0));
        assert!(matches!(parse(b"nan"), General::NaN { .. }));
        assert_eq!(num("1e"), num("1"));
    }
}
