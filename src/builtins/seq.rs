//! `seq`: GNU coreutils seq (`-f`, `-s`, `-w`), in long double like GNU, with GNU's exact
//! path for non-negative integers; spends 1 step per number and 1 per 64 bytes written
//! (paid every 4 KiB), and hands its output on as it goes.

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::float::{self, FloatSpec, Ld};
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "f:s:w",
    long: &[
        long("equal-width", Arg::No, Some('w')),
        long("format", Arg::Required, Some('f')),
        long("separator", Arg::Required, Some('s')),
    ],
    stop_at_operand: true,
};

/// An operand as GNU seq sees it: its value, and the digits after the point and the
/// width it asks for (`None`: unknown, as for hexadecimal with a point or exponent).
struct Operand {
    text: Vec<u8>,
    value: Ld,
    layout: Option<(i64, i64)>,
}

/// Where the options end: at `--`, at the first operand, or at a negative number.
fn options_end(args: &[Vec<u8>]) -> usize {
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == b"--" {
            return i + 1;
        }
        if a.len() < 2 || a[0] != b'-' || a[1].is_ascii_digit() || a[1] == b'.' {
            return i;
        }
        let takes_next = if a.starts_with(b"--") {
            !a.contains(&b'=')
                && (b"--format".starts_with(a) || b"--separator".starts_with(a))
                && a.len() > 2
                && !b"--equal-width".starts_with(a)
        } else {
            // The cluster's first option that takes an argument takes the rest, or the
            // next word when nothing is left.
            let body = &a[1..];
            match body.iter().position(|&c| c == b'f' || c == b's') {
                Some(p) => p == body.len() - 1,
                None => false,
            }
        };
        i += if takes_next { 2 } else { 1 };
    }
    args.len()
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let end = options_end(args).min(args.len());
    let mut parsed = match SPEC.parse(&args[1..end]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "seq", &msg);
            return Ok(1);
        }
    };
    parsed.operands.extend(args[end..].iter().cloned());
    let mut format: Option<Vec<u8>> = None;
    let mut sep = b"\n".to_vec();
    let mut equal_width = false;
    for opt in &parsed.opts {
        match opt.key {
            "f" => format = Some(opt.value().to_vec()),
            "s" => sep = opt.value().to_vec(),
            "w" => equal_width = true,
            _ => {}
        }
    }
    let ops = &parsed.operands;
    if ops.is_empty() {
        usage_error(ctx.stderr, "seq", "missing operand");
        return Ok(1);
    }
    if ops.len() > 3 {
        let msg = format!("extra operand {}", quote_str(&ops[3]));
        usage_error(ctx.stderr, "seq", &msg);
        return Ok(1);
    }
    let mut nums = Vec::new();
    for text in ops {
        match operand(text) {
            Ok(o) => nums.push(o),
            Err(msg) => {
                usage_error(ctx.stderr, "seq", &msg);
                return Ok(1);
            }
        }
    }
    let one = || Operand {
        text: b"1".to_vec(),
        value: float::from_i128(1),
        layout: Some((1, 0)),
    };
    let (first, step, last) = match nums.len() {
        1 => (one(), one(), nums.remove(0)),
        2 => {
            let last = nums.remove(1);
            (nums.remove(0), one(), last)
        }
        _ => {
            let last = nums.remove(2);
            let step = nums.remove(1);
            (nums.remove(0), step, last)
        }
    };
    if float::is_zero(step.value) {
        let msg = format!("invalid Zero increment value: {}", quote_str(&step.text));
        usage_error(ctx.stderr, "seq", &msg);
        return Ok(1);
    }
    if format.is_some() && equal_width {
        usage_error(
            ctx.stderr,
            "seq",
            "format string may not be specified when printing equal width strings",
        );
        return Ok(1);
    }
    let layout = match &format {
        Some(f) => match user_format(f) {
            Ok(l) => l,
            Err(msg) => {
                ctx.stderr.extend_from_slice(b"seq: ");
                ctx.stderr.extend_from_slice(msg.as_bytes());
                ctx.stderr.push(b'\n');
                return Ok(1);
            }
        },
        None => default_format(&first, &step, &last, equal_width),
    };
    if format.is_none() && !equal_width {
        if let Some(status) = fast(ctx, &first, &step, &last, &sep).await? {
            return Ok(status);
        }
    }
    print_numbers(ctx, &layout, first.value, step.value, last.value, &sep).await?;
    Ok(0)
}

/// Reads an operand as GNU seq does: all of it must be a number, and not NaN.
fn operand(text: &[u8]) -> std::result::Result<Operand, String> {
    let p = float::strtold(text);
    // Out of range is invalid too when it overflows (an underflow reads as 0).
    let overflow = p.range_error && float::is_infinite(p.value);
    if p.end == 0 || p.end != text.len() || overflow {
        return Err(format!(
            "invalid floating point argument: {}",
            quote_str(text)
        ));
    }
    if float::is_nan(p.value) {
        return Err(format!(
            "invalid 'not-a-number' argument: {}",
            quote_str(text)
        ));
    }
    Ok(Operand {
        text: text.to_vec(),
        value: p.value,
        layout: layout(text),
    })
}

/// The digits after the point and the width an operand asks for, worked out from its
/// text as GNU does (`1.50` asks for 2 digits, `15e-1` for one and a width of 4).
fn layout(text: &[u8]) -> Option<(i64, i64)> {
    let mut s = text;
    while let Some((&b, rest)) = s.split_first() {
        if matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
            s = rest;
        } else {
            break;
        }
    }
    if let Some(rest) = s.strip_prefix(b"+") {
        s = rest;
    }
    if s.iter().any(|&b| b == b'x' || b == b'X') {
        // Hexadecimal: an integer asks for nothing; with a point or exponent, the
        // number of digits is unknown.
        if s.iter().any(|&b| matches!(b, b'.' | b'p' | b'P')) {
            return None;
        }
        return Some((0, 0));
    }
    if s.iter()
        .any(|b| b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E'))
    {
        // inf, infinity
        return None;
    }
    let (mant, exp) = match s.iter().position(|&b| b == b'e' || b == b'E') {
        Some(p) => {
            let e = &s[p + 1..];
            let (neg, digits) = match e.split_first() {
                Some((b'-', d)) => (true, d),
                Some((b'+', d)) => (false, d),
                _ => (false, e),
            };
            let mut v: i64 = 0;
            for &d in digits {
                v = v.saturating_mul(10).saturating_add(i64::from(d - b'0'));
            }
            (&s[..p], if neg { -v } else { v })
        }
        None => (s, 0),
    };
    let dot = mant.iter().position(|&b| b == b'.');
    let frac = dot.map_or(0, |d| (mant.len() - d - 1) as i64);
    let prec = if exp >= 0 {
        (frac - exp).max(0)
    } else {
        frac.saturating_add(exp.saturating_neg())
    };
    let mut width = mant.len() as i64;
    let digits_start = usize::from(mant.first() == Some(&b'-'));
    if dot == Some(digits_start) {
        width += 1; // the 0 before the point
    }
    if exp < 0 {
        width = width
            .saturating_add(exp.saturating_neg())
            .saturating_add(i64::from(dot.is_none()));
    } else {
        width = width.saturating_add((exp - frac).max(0));
        if dot.is_some() && prec == 0 {
            width -= 1;
        }
    }
    Some((width, prec))
}

/// How numbers are written: text around one float conversion.
struct Layout {
    prefix: Vec<u8>,
    spec: FloatSpec,
    suffix: Vec<u8>,
}

/// `%.Pf` with the precision of FIRST and STEP (`%g` when unknown); with `-w`, padded
/// with zeros to the widest of FIRST and LAST.
fn default_format(first: &Operand, step: &Operand, last: &Operand, equal_width: bool) -> Layout {
    let mut spec = FloatSpec {
        conv: b'g',
        ..FloatSpec::default()
    };
    if let (Some((_, pf)), Some((_, ps))) = (first.layout, step.layout) {
        let prec = pf.max(ps);
        spec.conv = b'f';
        spec.prec = Some(prec.clamp(0, i64::from(i32::MAX)) as usize);
        if equal_width {
            let width_at = |l: Option<(i64, i64)>| -> i64 {
                let Some((w, p)) = l else { return 0 };
                if p == 0 && prec > 0 {
                    w + prec + 1
                } else if p > 0 && prec == 0 {
                    w - p - 1
                } else {
                    w + prec - p
                }
            };
            let w = width_at(first.layout).max(width_at(last.layout));
            spec.width = w.clamp(0, i64::from(i32::MAX)) as usize;
            spec.zero = true;
        }
    }
    Layout {
        prefix: Vec::new(),
        spec,
        suffix: Vec::new(),
    }
}

/// Checks a `-f` format as GNU seq does: exactly one float conversion.
fn user_format(f: &[u8]) -> std::result::Result<Layout, String> {
    let shown = quote_str(f);
    let mut prefix = Vec::new();
    let mut i = 0;
    loop {
        match f.get(i) {
            None => return Err(format!("format {shown} has no % directive")),
            Some(b'%') if f.get(i + 1) == Some(&b'%') => {
                prefix.push(b'%');
                i += 2;
            }
            Some(b'%') => break,
            Some(&b) => {
                prefix.push(b);
                i += 1;
            }
        }
    }
    i += 1;
    let mut spec = FloatSpec::default();
    while let Some(&c @ (b'-' | b'+' | b' ' | b'#' | b'0' | b'\'')) = f.get(i) {
        match c {
            b'-' => spec.minus = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alt = true,
            b'0' => spec.zero = true,
            _ => {}
        }
        i += 1;
    }
    let number = |i: &mut usize| {
        let mut v: usize = 0;
        while let Some(&d @ b'0'..=b'9') = f.get(*i) {
            v = v.saturating_mul(10).saturating_add(usize::from(d - b'0'));
            *i += 1;
        }
        v
    };
    spec.width = number(&mut i);
    if f.get(i) == Some(&b'.') {
        i += 1;
        spec.prec = Some(number(&mut i));
    }
    if f.get(i) == Some(&b'L') {
        i += 1;
    }
    match f.get(i) {
        None => return Err(format!("format {shown} ends in %")),
        Some(&c) if b"eEfFgGaA".contains(&c) => spec.conv = c,
        Some(&c) => {
            let mut msg = format!("format {shown} has unknown %").into_bytes();
            msg.push(c);
            msg.extend_from_slice(b" directive");
            return Err(String::from_utf8_lossy(&msg).into_owned());
        }
    }
    i += 1;
    let mut suffix = Vec::new();
    while i < f.len() {
        if f[i] == b'%' {
            if f.get(i + 1) == Some(&b'%') {
                suffix.push(b'%');
                i += 2;
                continue;
            }
            return Err(format!("format {shown} has too many % directives"));
        }
        suffix.push(f[i]);
        i += 1;
    }
    Ok(Layout {
        prefix,
        spec,
        suffix,
    })
}

fn write(out: &mut Vec<u8>, layout: &Layout, x: Ld) {
    out.extend_from_slice(&layout.prefix);
    float::format(out, &layout.spec, x);
    out.extend_from_slice(&layout.suffix);
}

/// The numbers `first + i * step` up to `last`, as GNU computes them in long double.
async fn print_numbers(
    ctx: &mut Ctx<'_>,
    layout: &Layout,
    first: Ld,
    step: Ld,
    last: Ld,
    sep: &[u8],
) -> Result<()> {
    let down = float::is_negative(step);
    let past = |x: Ld| {
        if down {
            float::lt(x, last)
        } else {
            float::lt(last, x)
        }
    };
    if past(first) {
        return Ok(());
    }
    // Output up to `paid` is paid for; output is handed on only right after paying.
    let mut paid = ctx.stdout.len();
    let mut x = first;
    let mut i: u64 = 1;
    // Pay for very wide numbers (`-w 1e999999`, `%.99999999f`) before making them.
    let wide = layout
        .spec
        .width
        .max(layout.spec.prec.unwrap_or(0))
        .saturating_add(64);
    loop {
        ctx.io.budget.spend(1)?;
        if wide > 4096 {
            ctx.io.budget.spend_bytes(wide)?;
        }
        write(ctx.stdout, layout, x);
        if ctx.stdout.len() - paid > 4096 {
            ctx.io.budget.spend_bytes(ctx.stdout.len() - paid)?;
            ctx.flush_some().await?;
            paid = ctx.stdout.len();
        }
        let prev = x;
        x = float::add(first, float::mul(float::from_i128(i128::from(i)), step));
        i = i.saturating_add(1);
        if past(x) {
            if wide > 4096 {
                ctx.io.budget.spend_bytes(wide.saturating_mul(2))?;
            }
            // A number just past LAST that prints as LAST (and not as the one before)
            // is printed: rounding must not lose the end of `seq 0 0.000001 0.000003`.
            let mut shown = Vec::new();
            float::format(&mut shown, &layout.spec, x);
            let back = float::strtold(&shown);
            let equal = back.end == shown.len()
                && !float::lt(back.value, last)
                && !float::lt(last, back.value);
            if !equal {
                break;
            }
            let mut before = Vec::new();
            float::format(&mut before, &layout.spec, prev);
            if before == shown {
                break;
            }
            ctx.stdout.extend_from_slice(sep);
            ctx.io.budget.spend(1)?;
            if wide > 4096 {
                ctx.io.budget.spend_bytes(wide)?;
            }
            write(ctx.stdout, layout, x);
            break;
        }
        ctx.stdout.extend_from_slice(sep);
    }
    ctx.stdout.push(b'\n');
    ctx.io.budget.spend_bytes(ctx.stdout.len() - paid)?;
    Ok(())
}

/// GNU's exact path for non-negative integers with the default format: decimal strings
/// counted up, so that numbers past 2^64 stay exact. `None` when it does not apply.
async fn fast(
    ctx: &mut Ctx<'_>,
    first: &Operand,
    step: &Operand,
    last: &Operand,
    sep: &[u8],
) -> Result<Option<Status>> {
    let integral = |o: &Operand| {
        o.layout.is_some_and(|(_, p)| p == 0)
            && !o.text.iter().any(|&b| b == b'x' || b == b'X')
            && !float::is_infinite(o.value)
    };
    if !(integral(first) && integral(step) && integral(last))
        || float::is_negative(first.value)
        || float::is_negative(step.value)
        || float::is_negative(last.value)
    {
        return Ok(None);
    }
    // Operands written as plain digits count as written; otherwise all of them count
    // as their long double values.
    let plain = [first, step, last]
        .iter()
        .all(|o| o.text.iter().all(u8::is_ascii_digit));
    let digits = |o: &Operand| -> Vec<u8> {
        if plain {
            let t: &[u8] = &o.text;
            let nz = t.iter().position(|&b| b != b'0').unwrap_or(t.len());
            if nz == t.len() {
                b"0".to_vec()
            } else {
                t[nz..].to_vec()
            }
        } else {
            let mut s = Vec::new();
            let spec = FloatSpec {
                conv: b'f',
                prec: Some(0),
                ..FloatSpec::default()
            };
            float::format(&mut s, &spec, o.value);
            s
        }
    };
    let mut cur = digits(first);
    let step = digits(step);
    let last = digits(last);
    let mut paid = ctx.stdout.len();
    let mut any = false;
    while cmp_digits(&cur, &last) != std::cmp::Ordering::Greater {
        ctx.io.budget.spend(1)?;
        if any {
            ctx.stdout.extend_from_slice(sep);
        }
        ctx.stdout.extend_from_slice(&cur);
        any = true;
        if ctx.stdout.len() - paid > 4096 {
            ctx.io.budget.spend_bytes(ctx.stdout.len() - paid)?;
            ctx.flush_some().await?;
            paid = ctx.stdout.len();
        }
        add_digits(&mut cur, &step);
    }
    if any {
        ctx.stdout.push(b'\n');
    }
    ctx.io.budget.spend_bytes(ctx.stdout.len() - paid)?;
    Ok(Some(0))
}

fn cmp_digits(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// `a += b` on decimal digit strings without leading zeros, in place.
fn add_digits(a: &mut Vec<u8>, b: &[u8]) {
    if a.len() < b.len() {
        let pad = b.len() - a.len();
        a.splice(0..0, std::iter::repeat_n(b'0', pad));
    }
    let mut carry = 0u8;
    let (mut i, mut j) = (a.len(), b.len());
    while i > 0 {
        i -= 1;
        let db = if j > 0 {
            j -= 1;
            b[j] - b'0'
        } else if carry == 0 {
            return;
        } else {
            0
        };
        let s = a[i] - b'0' + db + carry;
        a[i] = b'0' + s % 10;
        carry = s / 10;
    }
    if carry > 0 {
        a.insert(0, b'0' + carry);
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn seq(args: &[&str]) -> (String, String, i32) {
        let mut argv = vec!["seq"];
        argv.extend_from_slice(args);
        let r = run(&argv, b"").unwrap();
        (r.stdout_str(), r.stderr_str(), r.status)
    }

    // Expected values from GNU seq 9.1.
    #[test]
    fn like_gnu() {
        assert_eq!(seq(&["3"]).0, "1\n2\n3\n");
        assert_eq!(seq(&["1", "0"]).0, "");
        assert_eq!(
            seq(&["0", "0.1", "1"]).0,
            "0.0\n0.1\n0.2\n0.3\n0.4\n0.5\n0.6\n0.7\n0.8\n0.9\n1.0\n"
        );
        assert_eq!(
            seq(&["0", "0.000001", "0.000003"]).0,
            "0.000000\n0.000001\n0.000002\n0.000003\n"
        );
        assert_eq!(seq(&["-w", "-1", "1"]).0, "-1\n00\n01\n");
        assert_eq!(seq(&["-w", "15e-1", "2"]).0, "01.5\n");
        assert_eq!(
            seq(&["-w", "0.5", "1", "10"]).0.lines().next(),
            Some("00.5")
        );
        assert_eq!(seq(&["-s,", "1", "3"]).0, "1,2,3\n");
        assert_eq!(
            seq(&["18446744073709551615", "18446744073709551617"]).0,
            "18446744073709551615\n18446744073709551616\n18446744073709551617\n"
        );
        assert_eq!(
            seq(&["18446744073709551615", "18446744073709551617.0"]).0,
            "18446744073709551615\n18446744073709551616\n18446744073709551616\n"
        );
        assert_eq!(seq(&["1", "0x.8p0", "2"]).0, "1\n1.5\n2\n");
        assert_eq!(seq(&["-f", "%%%g%%", "1", "2"]).0, "%1%\n%2%\n");
        assert_eq!(
            seq(&["x"]),
            (
                "".into(),
                "seq: invalid floating point argument: 'x'\nTry 'seq --help' for more information.\n"
                    .into(),
                1
            )
        );
        assert_eq!(
            seq(&["1", "0", "5"]).1,
            "seq: invalid Zero increment value: '0'\nTry 'seq --help' for more information.\n"
        );
        assert_eq!(
            seq(&["-f", "%d", "1"]).1,
            "seq: format '%d' has unknown %d directive\n"
        );
        assert_eq!(seq(&["1", "-w", "3"]).2, 1);
    }

    #[test]
    fn huge_widths_stop_at_the_budget() {
        for args in [
            &["-w", "1e-999999999", "1"][..],
            &["1e-999999999", "1"][..],
            &["-f", "%999999999f", "1"][..],
        ] {
            let mut argv = vec!["seq"];
            argv.extend_from_slice(args);
            assert!(run(&argv, b"").is_err(), "{args:?}");
        }
    }
}
