//! `date +FORMAT`: GNU strftime conversions in the C locale, with GNU's flags (`- _ 0 ^ # +`),
//! field widths and the `%:z` family. Spends one step per 64 bytes of padding it makes.

use crate::budget::Budget;
use crate::calendar::{is_leap, DAYS, MONTHS};
use crate::error::Result;

/// A moment broken down in a time zone: what every conversion reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tm {
    pub year: i64,
    /// 1..=12
    pub month: u32,
    /// 1..=31
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub nanos: u32,
    /// 0 = Sunday
    pub wday: u32,
    /// 0-based day of the year
    pub yday: u32,
    /// Seconds east of UTC.
    pub offset: i32,
    pub abbrev: String,
    /// Seconds since the epoch.
    pub epoch: i64,
}

/// How a conversion pads: GNU's flags, the last of `_ - 0 +` winning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pad {
    Default,
    None,
    Space,
    Zero,
    Plus,
}

#[derive(Debug, Clone, Copy)]
struct Spec {
    /// How many flag characters were written.
    flags: usize,
    pad: Pad,
    upper: bool,
    swap: bool,
    width: Option<usize>,
}

/// Formats `tm` by `fmt` into `out`.
pub fn format(fmt: &[u8], tm: &Tm, out: &mut Vec<u8>, budget: &Budget) -> Result<()> {
    let mut i = 0;
    while i < fmt.len() {
        let b = fmt[i];
        if b != b'%' {
            let end = memchr_pct(&fmt[i..]).map_or(fmt.len(), |p| i + p);
            out.extend_from_slice(&fmt[i..end]);
            i = end;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec {
            flags: 0,
            pad: Pad::Default,
            upper: false,
            swap: false,
            width: None,
        };
        while let Some(&f) = fmt.get(i) {
            match f {
                b'_' => spec.pad = Pad::Space,
                b'-' => spec.pad = Pad::None,
                b'0' => spec.pad = Pad::Zero,
                b'+' => spec.pad = Pad::Plus,
                b'^' => spec.upper = true,
                b'#' => spec.swap = true,
                _ => break,
            }
            spec.flags += 1;
            i += 1;
        }
        let mut width: Option<usize> = None;
        while let Some(&d) = fmt.get(i) {
            if !d.is_ascii_digit() {
                break;
            }
            let w = width.unwrap_or(0);
            width = Some(w.saturating_mul(10).saturating_add((d - b'0') as usize));
            i += 1;
        }
        spec.width = width;
        let mut modifier = None;
        if let Some(&m @ (b'E' | b'O')) = fmt.get(i) {
            modifier = Some(m);
            i += 1;
        }
        let mut colons = 0;
        while fmt.get(i + colons) == Some(&b':') {
            colons += 1;
        }
        if colons > 0 && fmt.get(i + colons) != Some(&b'z') {
            // Colons not before z: "%5:" is copied and the rest read as plain text.
            bad(&fmt[start..i + 1], spec, out, budget)?;
            i += 1;
            continue;
        }
        i += colons;
        match fmt.get(i) {
            None => {
                bad(&fmt[start..], spec, out, budget)?;
                break;
            }
            Some(b'%') => {
                if i == start + 1 {
                    out.push(b'%');
                    i += 1;
                } else {
                    // "%_%": the text before the second % is copied, and the % starts anew.
                    bad(&fmt[start..i], spec, out, budget)?;
                }
                continue;
            }
            Some(&conv) => {
                i += 1;
                let ok = colons <= 3
                    && modifier_ok(modifier, conv)
                    && convert(conv, colons, modifier, spec, tm, out, budget)?;
                if !ok {
                    bad(&fmt[start..i], spec, out, budget)?;
                }
            }
        }
    }
    Ok(())
}

/// A conversion GNU does not know is copied as written, padded to its width.
fn bad(text: &[u8], spec: Spec, out: &mut Vec<u8>, budget: &Budget) -> Result<()> {
    let text = if spec.upper {
        text.to_ascii_uppercase()
    } else {
        text.to_vec()
    };
    let fill = match spec.pad {
        Pad::None => {
            out.extend_from_slice(&text);
            return Ok(());
        }
        Pad::Zero | Pad::Plus => b'0',
        _ => b' ',
    };
    pad_left(&text, spec.width.unwrap_or(0), fill, out, budget)
}

/// Which conversions take the E and O modifiers.
fn modifier_ok(modifier: Option<u8>, conv: u8) -> bool {
    match modifier {
        None => true,
        Some(b'E') => b"cCnpPqrRstTuxXyYzZ".contains(&conv),
        Some(_) => b"bBCdeEgGhHIjklmMnNpPrRsStTuUVwWyzZ".contains(&conv),
    }
}

fn memchr_pct(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == b'%')
}

/// Writes one conversion; `false` when `conv` is not one, so the caller copies it literally.
fn convert(
    conv: u8,
    colons: usize,
    modifier: Option<u8>,
    spec: Spec,
    tm: &Tm,
    out: &mut Vec<u8>,
    budget: &Budget,
) -> Result<bool> {
    let day = DAYS.get(tm.wday as usize).copied().unwrap_or("?");
    let month = MONTHS
        .get((tm.month as usize).wrapping_sub(1))
        .copied()
        .unwrap_or("?");
    let hour12 = if tm.hour.is_multiple_of(12) {
        12
    } else {
        tm.hour % 12
    };
    // With E or O, a number is written as usual and then padded as a word.
    let alt = match modifier {
        Some(b'O') => b"CdegHIjklmMSuUVwWyz".contains(&conv),
        Some(_) => b"CyY".contains(&conv),
        None => false,
    };
    if alt {
        let plain = Spec {
            flags: 0,
            pad: Pad::Default,
            upper: false,
            swap: false,
            width: if conv == b'Y' || conv == b'C' {
                Some(1)
            } else {
                None
            },
        };
        let mut inner = Vec::new();
        // The alternative year digits count from the floor, not toward zero.
        match conv {
            b'y' => inner.extend_from_slice(format!("{:02}", tm.year.rem_euclid(100)).as_bytes()),
            b'C' => inner.extend_from_slice(tm.year.div_euclid(100).to_string().as_bytes()),
            _ => {
                convert(conv, colons, None, plain, tm, &mut inner, budget)?;
            }
        }
        let fill = match spec.pad {
            Pad::None => {
                return Ok({
                    out.extend_from_slice(&inner);
                    true
                })
            }
            Pad::Zero | Pad::Plus => b'0',
            _ => b' ',
        };
        pad_left(&inner, spec.width.unwrap_or(0), fill, out, budget)?;
        return Ok(true);
    }
    match conv {
        b'a' => text(&day[..3], spec, true, out, budget)?,
        b'A' => text(day, spec, true, out, budget)?,
        b'b' | b'h' => text(&month[..3], spec, true, out, budget)?,
        b'B' => text(month, spec, true, out, budget)?,
        b'p' | b'P' => {
            let s = if tm.hour < 12 { "AM" } else { "PM" };
            // %p: `#` makes it lower case; %P is lower case and ignores `^`.
            let lower = conv == b'P' || spec.swap;
            let spec = Spec {
                upper: spec.upper && !spec.swap,
                ..spec
            };
            let s = if lower {
                s.to_ascii_lowercase()
            } else {
                s.to_string()
            };
            let spec = Spec {
                upper: spec.upper && conv == b'p',
                swap: false,
                ..spec
            };
            text(&s, spec, false, out, budget)?
        }
        b'Z' => {
            let spec2 = Spec {
                upper: spec.upper && !spec.swap,
                swap: false,
                ..spec
            };
            let s = if spec.swap {
                tm.abbrev.to_ascii_lowercase()
            } else {
                tm.abbrev.clone()
            };
            text(&s, spec2, false, out, budget)?
        }
        b'c' => composite(b"%a %b %e %H:%M:%S %EY", spec, tm, out, budget)?,
        b'D' => {
            // Only the year of %D takes the padding flag.
            let sub: &[u8] = match spec.pad {
                Pad::None => b"%m/%d/%-y",
                Pad::Space => b"%m/%d/%_y",
                _ => b"%m/%d/%y",
            };
            composite(sub, spec, tm, out, budget)?
        }
        b'x' => composite(b"%m/%d/%Ey", spec, tm, out, budget)?,
        b'r' => composite(b"%I:%M:%S %p", spec, tm, out, budget)?,
        b'R' => composite(b"%H:%M", spec, tm, out, budget)?,
        b'T' | b'X' => composite(b"%H:%M:%S", spec, tm, out, budget)?,
        b'F' => {
            // %F is %+4Y-%m-%d; a width goes to the year, less the 6 bytes of -mm-dd.
            let (ypad, ywidth) = match (spec.width, spec.pad) {
                (None, Pad::Default | Pad::Plus) => (Pad::Plus, None),
                (None, _) => (Pad::Default, Some(1)),
                (Some(w), pad) => (pad, Some(w.saturating_sub(6))),
            };
            let yspec = Spec {
                pad: ypad,
                width: ywidth,
                ..spec
            };
            year_like(tm.year, 4, yspec, out, budget)?;
            out.extend_from_slice(format!("-{:02}-{:02}", tm.month, tm.day).as_bytes());
        }
        b'C' => {
            // The century truncates toward zero and keeps the sign of a negative year.
            let c = tm.year / 100;
            let neg = tm.year < 0;
            signed_number(neg, c.unsigned_abs(), 2, b'0', spec, true, out, budget)?
        }
        b'y' => number((tm.year % 100).abs(), 2, b'0', spec, true, out, budget)?,
        b'Y' => year_like(tm.year, 4, spec, out, budget)?,
        b'G' => year_like(iso_week(tm).0, 4, spec, out, budget)?,
        b'g' => number(
            (iso_week(tm).0 % 100).abs(),
            2,
            b'0',
            spec,
            true,
            out,
            budget,
        )?,
        b'V' => number(iso_week(tm).1 as i64, 2, b'0', spec, false, out, budget)?,
        b'd' => number(tm.day as i64, 2, b'0', spec, false, out, budget)?,
        b'e' => number(tm.day as i64, 2, b' ', spec, false, out, budget)?,
        b'H' => number(tm.hour as i64, 2, b'0', spec, false, out, budget)?,
        b'k' => number(tm.hour as i64, 2, b' ', spec, false, out, budget)?,
        b'I' => number(hour12 as i64, 2, b'0', spec, false, out, budget)?,
        b'l' => number(hour12 as i64, 2, b' ', spec, false, out, budget)?,
        b'j' => number(tm.yday as i64 + 1, 3, b'0', spec, false, out, budget)?,
        b'm' => number(tm.month as i64, 2, b'0', spec, false, out, budget)?,
        b'M' => number(tm.minute as i64, 2, b'0', spec, false, out, budget)?,
        b'S' => number(tm.second as i64, 2, b'0', spec, false, out, budget)?,
        b'u' => number(
            ((tm.wday + 6) % 7 + 1) as i64,
            1,
            b'0',
            spec,
            false,
            out,
            budget,
        )?,
        b'w' => number(tm.wday as i64, 1, b'0', spec, false, out, budget)?,
        b'q' => number(
            tm.month.div_ceil(3) as i64,
            1,
            b'0',
            spec,
            false,
            out,
            budget,
        )?,
        b'U' => {
            let w = (tm.yday + 7 - tm.wday) / 7;
            number(w as i64, 2, b'0', spec, false, out, budget)?
        }
        b'W' => {
            let w = (tm.yday + 7 - (tm.wday + 6) % 7) / 7;
            number(w as i64, 2, b'0', spec, false, out, budget)?
        }
        b's' => number(tm.epoch, 1, b'0', spec, false, out, budget)?,
        b'N' => nanos(tm.nanos, spec, out, budget)?,
        b'z' => zone(tm.offset, colons, spec, out, budget)?,
        b'n' => text("\n", spec, false, out, budget)?,
        b't' => text("\t", spec, false, out, budget)?,
        b'%' => text("%", spec, false, out, budget)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Pads `body` on the left to the width, spending steps for the padding.
fn pad_left(body: &[u8], width: usize, fill: u8, out: &mut Vec<u8>, budget: &Budget) -> Result<()> {
    if width > body.len() {
        let n = width - body.len();
        budget.spend_bytes(n)?;
        out.resize(out.len() + n, fill);
    }
    out.extend_from_slice(body);
    Ok(())
}

/// A word (`%a`, `%B`, `%Z`...): padded with spaces, or zeros with the `0` flag.
fn text(s: &str, spec: Spec, swap_upper: bool, out: &mut Vec<u8>, budget: &Budget) -> Result<()> {
    let s = if spec.upper || (spec.swap && swap_upper) {
        s.to_ascii_uppercase()
    } else {
        s.to_string()
    };
    let fill = match spec.pad {
        Pad::Zero | Pad::Plus => b'0',
        _ => b' ',
    };
    match (spec.pad, spec.width) {
        (Pad::None, _) | (_, None) => out.extend_from_slice(s.as_bytes()),
        (_, Some(w)) => pad_left(s.as_bytes(), w, fill, out, budget)?,
    }
    Ok(())
}

/// A conversion made of others (`%c`, `%D`, `%T`...): the whole is padded like a word.
fn composite(sub: &[u8], spec: Spec, tm: &Tm, out: &mut Vec<u8>, budget: &Budget) -> Result<()> {
    let mut inner = Vec::new();
    format(sub, tm, &mut inner, budget)?;
    if spec.upper {
        inner.make_ascii_uppercase();
    }
    let fill = match spec.pad {
        Pad::Zero | Pad::Plus => b'0',
        _ => b' ',
    };
    match (spec.pad, spec.width) {
        (Pad::None, _) | (_, None) => out.extend_from_slice(&inner),
        (_, Some(w)) => pad_left(&inner, w, fill, out, budget)?,
    }
    Ok(())
}

/// A non-negative or negative number with its default width and padding.
fn number(
    v: i64,
    digits: usize,
    fill: u8,
    spec: Spec,
    yearish: bool,
    out: &mut Vec<u8>,
    budget: &Budget,
) -> Result<()> {
    signed_number(
        v < 0,
        v.unsigned_abs(),
        digits,
        fill,
        spec,
        yearish,
        out,
        budget,
    )
}

fn year_like(y: i64, digits: usize, spec: Spec, out: &mut Vec<u8>, budget: &Budget) -> Result<()> {
    signed_number(
        y < 0,
        y.unsigned_abs(),
        digits,
        b'0',
        spec,
        true,
        out,
        budget,
    )
}

/// GNU's number padding: the sign counts toward the width; zeros go after the sign and
/// spaces before it; with `+`, a year-like number wider than its default gets a `+`.
#[allow(clippy::too_many_arguments)]
fn signed_number(
    neg: bool,
    mag: u64,
    digits: usize,
    fill: u8,
    spec: Spec,
    yearish: bool,
    out: &mut Vec<u8>,
    budget: &Budget,
) -> Result<()> {
    let body = mag.to_string();
    let fill = match spec.pad {
        Pad::Default => fill,
        Pad::Space => b' ',
        Pad::Zero | Pad::Plus => b'0',
        Pad::None => 0,
    };
    let width = match spec.pad {
        Pad::None => 0,
        _ => spec.width.unwrap_or(digits),
    };
    let sign = if neg {
        Some(b'-')
    } else if spec.pad == Pad::Plus
        && yearish
        && (body.len() > digits || spec.width.is_some_and(|w| w > digits))
    {
        Some(b'+')
    } else {
        None
    };
    let len = body.len() + usize::from(sign.is_some());
    let padn = width.saturating_sub(len);
    budget.spend_bytes(padn)?;
    if fill == b'0' {
        out.extend(sign);
        out.resize(out.len() + padn, b'0');
    } else {
        out.resize(out.len() + padn, b' ');
        out.extend(sign);
    }
    out.extend_from_slice(body.as_bytes());
    Ok(())
}

/// `%N`: the digits of the fraction, cut or zero-extended to the width (9 by default).
fn nanos(ns: u32, spec: Spec, out: &mut Vec<u8>, budget: &Budget) -> Result<()> {
    let width = spec.width.unwrap_or(9);
    budget.spend_bytes(width)?;
    let mut digits = format!("{ns:09}").into_bytes();
    digits.resize(width.max(1), b'0');
    digits.truncate(width.max(1));
    let strip = match spec.pad {
        Pad::Space => true,
        // A lone `-` keeps all nine digits; `-` among other flags or with a width strips.
        Pad::None => spec.width.is_some() || spec.flags > 1,
        _ => false,
    };
    if strip {
        while digits.len() > 1 && digits.last() == Some(&b'0') {
            digits.pop();
        }
    }
    out.extend_from_slice(&digits);
    if spec.pad == Pad::Space {
        out.resize(out.len() + width.saturating_sub(digits.len()), b' ');
    }
    Ok(())
}

/// `%z`, `%:z`, `%::z`, `%:::z`: the hours are a number padded to what the width leaves.
fn zone(offset: i32, colons: usize, spec: Spec, out: &mut Vec<u8>, budget: &Budget) -> Result<()> {
    let neg = offset < 0;
    let a = offset.unsigned_abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    let (hours, rest) = match colons {
        0 => (u64::from(h) * 100 + u64::from(m), String::new()),
        1 => (u64::from(h), format!(":{m:02}")),
        2 => (u64::from(h), format!(":{m:02}:{s:02}")),
        _ => {
            if s != 0 {
                (u64::from(h), format!(":{m:02}:{s:02}"))
            } else if m != 0 {
                (u64::from(h), format!(":{m:02}"))
            } else {
                (u64::from(h), String::new())
            }
        }
    };
    let default_digits = if colons == 0 { 4 } else { 2 };
    let fill = match spec.pad {
        Pad::Space => b' ',
        Pad::None => 0,
        _ => b'0',
    };
    let body = hours.to_string();
    let hwidth = match (spec.pad, spec.width) {
        (Pad::None, _) => 0,
        (_, None) => default_digits + 1,
        (_, Some(w)) => w.saturating_sub(rest.len()),
    };
    let padn = hwidth.saturating_sub(body.len() + 1);
    budget.spend_bytes(padn)?;
    let sign = if neg { b'-' } else { b'+' };
    if fill == b' ' {
        out.resize(out.len() + padn, b' ');
        out.push(sign);
    } else {
        out.push(sign);
        out.resize(out.len() + padn, b'0');
    }
    out.extend_from_slice(body.as_bytes());
    out.extend_from_slice(rest.as_bytes());
    Ok(())
}

/// The ISO 8601 week-based year and week number of `tm`.
fn iso_week(tm: &Tm) -> (i64, u32) {
    // Monday-based weekday, 0 = Monday.
    let wd = (tm.wday + 6) % 7;
    let yday = tm.yday as i64;
    // The Thursday of this week decides the year.
    let thursday = yday - wd as i64 + 3;
    let year_len = |y: i64| if is_leap(y) { 366 } else { 365 };
    if thursday < 0 {
        let py = tm.year - 1;
        let t = thursday + year_len(py);
        (py, (t / 7 + 1) as u32)
    } else if thursday >= year_len(tm.year) {
        (tm.year + 1, 1)
    } else {
        (tm.year, (thursday / 7 + 1) as u32)
    }
}
