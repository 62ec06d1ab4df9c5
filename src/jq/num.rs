//! jq 1.7.1's numbers: doubles printed its way, and number literals kept as written.
//!
//! jq 1.7 keeps a number literal (from the program or from JSON input) as a decimal
//! number and prints it in decNumber's canonical form (`1.10`, `1E+2`,
//! `100000000000000000001`) as long as nothing computes with it; computed numbers are
//! doubles, printed with the shortest digits that read back the same, in `%.17g` style.

use std::cmp::Ordering;

/// A number literal: its value as a double, and its canonical text.
#[derive(Debug, Clone)]
pub struct Lit {
    pub f: f64,
    /// decNumber's canonical form of the literal.
    pub text: Box<str>,
}

/// The parts of a decimal literal: sign, significant digits (no leading zeros; empty for
/// zero), and the exponent of the last digit.
struct Dec<'a> {
    neg: bool,
    digits: Vec<u8>,
    exp: i64,
    _text: &'a str,
}

fn parse_dec(text: &str) -> Option<Dec<'_>> {
    let b = text.as_bytes();
    let mut i = 0;
    let neg = match b.first() {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut digits = Vec::with_capacity(b.len());
    let mut frac = 0i64;
    let mut seen = false;
    while i < b.len() && b[i].is_ascii_digit() {
        digits.push(b[i]);
        i += 1;
        seen = true;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            digits.push(b[i]);
            frac += 1;
            i += 1;
            seen = true;
        }
    }
    if !seen {
        return None;
    }
    let mut exp: i64 = 0;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        let eneg = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            exp = exp
                .saturating_mul(10)
                .saturating_add(i64::from(b[i] - b'0'));
            i += 1;
        }
        if i == start {
            return None;
        }
        if eneg {
            exp = -exp;
        }
    }
    if i != b.len() {
        return None;
    }
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..lead);
    Some(Dec {
        neg,
        digits,
        exp: exp.saturating_sub(frac),
        _text: text,
    })
}

/// decNumber's smallest exponent for jq 1.7.1's literals (below it, a literal rounds).
const ETINY: i64 = -1_147_483_646;
/// decNumber's largest adjusted exponent; past it the literal overflows to a double.
const EMAX: i64 = 999_999_999;

/// Writes a number literal (digits with an optional point, an optional exponent; an
/// optional `-`) in jq 1.7.1's canonical form: decNumber's scientific string of the
/// literal. False, with nothing written, when it overflows decNumber (jq then uses the
/// double).
pub fn write_canonical(out: &mut Vec<u8>, tok: &[u8]) -> bool {
    let neg = tok.first() == Some(&b'-');
    let body = if neg { &tok[1..] } else { tok };
    let mut digits: Vec<u8> = Vec::with_capacity(body.len());
    let mut frac: i64 = 0;
    let mut i = 0;
    let mut in_frac = false;
    while let Some(&c) = body.get(i) {
        match c {
            b'0'..=b'9' => {
                digits.push(c);
                if in_frac {
                    frac += 1;
                }
            }
            b'.' => in_frac = true,
            _ => break,
        }
        i += 1;
    }
    let mut exp: i64 = 0;
    if matches!(body.get(i), Some(b'e' | b'E')) {
        i += 1;
        let eneg = body.get(i) == Some(&b'-');
        if matches!(body.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        while let Some(c) = body.get(i).filter(|c| c.is_ascii_digit()) {
            exp = exp.saturating_mul(10).saturating_add(i64::from(c - b'0'));
            i += 1;
        }
        if eneg {
            exp = -exp;
        }
    }
    // The coefficient without leading zeros ("0" for zero), and its exponent.
    let lead = digits.iter().take_while(|&&c| c == b'0').count();
    let mut coef: Vec<u8> = digits.get(lead..).unwrap_or_default().to_vec();
    let mut e = exp.saturating_sub(frac);
    let zero = coef.is_empty();
    if zero {
        coef.push(b'0');
    }
    let sign = |out: &mut Vec<u8>| {
        if neg {
            out.push(b'-');
        }
    };
    if zero {
        e = e.clamp(ETINY, EMAX);
    } else {
        let adjusted = e.saturating_add(coef.len() as i64 - 1);
        if adjusted > EMAX {
            return false;
        }
        if e < ETINY {
            // Round half up at ETINY.
            let shift = ETINY.saturating_sub(e);
            let keep = (coef.len() as i64).saturating_sub(shift);
            let round_up;
            if keep < 0 {
                coef = vec![b'0'];
                round_up = false;
            } else {
                let k = keep as usize;
                round_up = coef.get(k).is_some_and(|&c| c >= b'5');
                coef.truncate(k);
            }
            if round_up {
                // Add one to the kept digits.
                let mut carry = true;
                for d in coef.iter_mut().rev() {
                    if *d == b'9' {
                        *d = b'0';
                    } else {
                        *d += 1;
                        carry = false;
                        break;
                    }
                }
                if carry {
                    coef.insert(0, b'1');
                }
            }
            let lead = coef.iter().take_while(|&&c| c == b'0').count();
            coef.drain(..lead.min(coef.len().saturating_sub(1)));
            if coef.is_empty() {
                coef.push(b'0');
            }
            e = ETINY;
        }
    }
    sign(out);
    let len = coef.len() as i64;
    let adjusted = e + (len - 1);
    if e <= 0 && adjusted >= -6 {
        if e == 0 {
            out.extend_from_slice(&coef);
        } else {
            let point = len + e;
            if point > 0 {
                let p = point as usize;
                out.extend_from_slice(&coef[..p]);
                out.push(b'.');
                out.extend_from_slice(&coef[p..]);
            } else {
                out.extend_from_slice(b"0.");
                out.extend(std::iter::repeat_n(b'0', (-point) as usize));
                out.extend_from_slice(&coef);
            }
        }
    } else {
        out.push(coef[0]);
        if len > 1 {
            out.push(b'.');
            out.extend_from_slice(&coef[1..]);
        }
        out.push(b'E');
        out.push(if adjusted >= 0 { b'+' } else { b'-' });
        out.extend_from_slice(adjusted.unsigned_abs().to_string().as_bytes());
    }
    true
}

/// [`write_canonical`] as a string.
pub fn canonical(text: &str) -> Option<String> {
    let mut out = Vec::with_capacity(text.len() + 4);
    if !write_canonical(&mut out, text.as_bytes()) {
        return None;
    }
    String::from_utf8(out).ok()
}

/// Compares two literals exactly, as decNumber does.
pub fn cmp_lit(a: &str, b: &str) -> Option<Ordering> {
    let (x, y) = (parse_dec(a)?, parse_dec(b)?);
    let (xz, yz) = (x.digits.is_empty(), y.digits.is_empty());
    let sign = |neg: bool, zero: bool| {
        if zero {
            0
        } else if neg {
            -1
        } else {
            1
        }
    };
    let (sx, sy) = (sign(x.neg, xz), sign(y.neg, yz));
    if sx != sy || sx == 0 {
        return Some(sx.cmp(&sy));
    }
    // same sign, both non-zero: compare magnitudes
    let ax = x.exp + x.digits.len() as i64;
    let ay = y.exp + y.digits.len() as i64;
    let mag = ax.cmp(&ay).then_with(|| {
        let n = x.digits.len().max(y.digits.len());
        let dx = x.digits.iter().copied().chain(std::iter::repeat(b'0'));
        let dy = y.digits.iter().copied().chain(std::iter::repeat(b'0'));
        dx.zip(dy)
            .take(n)
            .map(|(p, q)| p.cmp(&q))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    });
    Some(if sx < 0 { mag.reverse() } else { mag })
}

/// Writes a double as jq 1.7.1 prints it: NaN is `null`, infinities are the largest
/// doubles, and other numbers use the shortest round-trip digits, in plain notation
/// unless the exponent is below -5 or far above the digits.
pub fn write_f64(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        out.extend_from_slice(b"null");
        return;
    }
    let x = if x.is_infinite() {
        if x > 0.0 {
            f64::MAX
        } else {
            f64::MIN
        }
    } else {
        x
    };
    if x == 0.0 {
        out.extend_from_slice(if x.is_sign_negative() { b"-0" } else { b"0" });
        return;
    }
    if x.fract() == 0.0 && x.abs() < 1e16 {
        // exact integers below 1e16 print as plain integers
        write_int(out, x as i64);
        return;
    }
    let mut buf = ryu::Buffer::new();
    let s = buf.format_finite(x);
    write_sci(out, s);
}

/// Writes an integer in decimal.
fn write_int(out: &mut Vec<u8>, n: i64) {
    let mut buf = [0u8; 24];
    let mut i = buf.len();
    let mut m = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    out.extend_from_slice(&buf[i..]);
}

/// Rewrites ryu's shortest form (`1.5e-7`, `123.45`, `1e22`) in jq's layout.
fn write_sci(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    // collect digits and the decimal exponent
    let (mant, exp) = match b.iter().position(|&c| c == b'e' || c == b'E') {
        Some(e) => {
            let ex = std::str::from_utf8(&b[e + 1..])
                .ok()
                .and_then(|t| t.parse::<i64>().ok())
                .unwrap_or(0);
            (&b[..e], ex)
        }
        None => (b, 0),
    };
    let mut digits: Vec<u8> = Vec::with_capacity(mant.len());
    let mut point: i64 = -1;
    for (i, &c) in mant.iter().enumerate() {
        if c == b'.' {
            point = i as i64;
        } else {
            digits.push(c);
        }
    }
    let int_len = if point < 0 {
        digits.len() as i64
    } else {
        point
    };
    // decpt: position of the decimal point relative to the first digit
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    let mut decpt = int_len + exp - lead as i64;
    digits.drain(..lead);
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        digits.push(b'0');
        decpt = 1;
    }
    let nd = digits.len() as i64;
    if neg {
        out.push(b'-');
    }
    if decpt <= -4 || decpt > nd + 15 {
        out.push(digits[0]);
        if nd > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        let e = decpt - 1;
        if e < 0 {
            out.push(b'-');
        } else {
            out.push(b'+');
        }
        let e = e.unsigned_abs();
        if e < 10 {
            out.push(b'0');
        }
        out.extend_from_slice(e.to_string().as_bytes());
    } else if decpt <= 0 {
        out.extend_from_slice(b"0.");
        for _ in 0..(-decpt) {
            out.push(b'0');
        }
        out.extend_from_slice(&digits);
    } else if decpt >= nd {
        out.extend_from_slice(&digits);
        for _ in 0..(decpt - nd) {
            out.push(b'0');
        }
    } else {
        let p = decpt as usize;
        out.extend_from_slice(&digits[..p]);
        out.push(b'.');
        out.extend_from_slice(&digits[p..]);
    }
}

/// A double as jq prints it, as a string.
pub fn f64_string(x: f64) -> String {
    let mut v = Vec::with_capacity(24);
    write_f64(&mut v, x);
    String::from_utf8(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_like_jq() {
        // expected values printed by jq 1.7.1 for computed numbers
        let cases: &[(f64, &str)] = &[
            (1e15, "1000000000000000"),
            (1e16, "1e+16"),
            (1.5e16, "15000000000000000"),
            (1.5e17, "1.5e+17"),
            (1.23456789e23, "123456789000000000000000"),
            (1.23456789e24, "1.23456789e+24"),
            (12345678901234567000.0, "12345678901234567000"),
            (0.30000000000000004, "0.30000000000000004"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.2345678901234567e-4, "0.00012345678901234567"),
            (1e-7, "1e-07"),
            (1e-100, "1e-100"),
            (1.2347e-320, "1.2347e-320"),
            (5e-324, "5e-324"),
            (f64::INFINITY, "1.7976931348623157e+308"),
            (-0.0, "-0"),
            (12345678901.234568, "12345678901.234568"),
            (1234567890123456.8, "1234567890123456.8"),
            (123456.789, "123456.789"),
            (1e100, "1e+100"),
            (1.2345678901234567e100, "1.2345678901234567e+100"),
            (100.0, "100"),
            (-1e-5, "-1e-05"),
            (0.1, "0.1"),
        ];
        for (x, want) in cases {
            assert_eq!(f64_string(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn literals_print_like_decnumber() {
        let cases = [
            ("1.0", "1.0"),
            ("1e1000", "1E+1000"),
            ("100000000000000000000", "100000000000000000000"),
            (".5", "0.5"),
            ("1.", "1"),
            ("1e17", "1E+17"),
            ("00012", "12"),
            ("1E2", "1E+2"),
            ("0.00001", "0.00001"),
            ("1e-7", "1E-7"),
            ("0.0000001", "1E-7"),
            ("123e-2", "1.23"),
            ("0e10", "0E+10"),
            ("-0", "-0"),
            ("-0.0", "-0.0"),
            ("0.0", "0.0"),
            ("12.3e1", "123"),
            ("1.5e-6", "0.0000015"),
        ];
        for (lit, want) in cases {
            assert_eq!(canonical(lit).as_deref(), Some(want), "{lit}");
        }
        assert_eq!(canonical("1e1000000000"), None);
    }

    #[test]
    fn literals_compare_exactly() {
        assert_eq!(
            cmp_lit("100000000000000000001", "100000000000000000000"),
            Some(Ordering::Greater)
        );
        assert_eq!(cmp_lit("1.10", "1.1"), Some(Ordering::Equal));
        assert_eq!(cmp_lit("-2", "-10"), Some(Ordering::Greater));
        assert_eq!(cmp_lit("0", "-0.0"), Some(Ordering::Equal));
    }
}
