//! jq's `@format` strings: `@text @json @html @uri @csv @tsv @sh @base64 @base64d`.
//!
//! Steps: one per 64 bytes of output.

use base64::Engine;
use jaq_core::native::{bome, Filter};
use jaq_core::{Bind, Error, Native, ValR};

use super::fuel;
use super::ops::err;
use super::value::Val;
use super::Jq;

fn text(v: &Val) -> String {
    match v {
        Val::Str(s) => s.to_string(),
        v => v.to_json(),
    }
}

/// Applies format `name` (without `@`) to `v`.
pub fn apply(name: &str, v: Val) -> ValR<Val, Val> {
    let out = match name {
        "text" => text(&v),
        "json" => v.to_json(),
        "html" => {
            let mut o = String::new();
            for c in text(&v).chars() {
                match c {
                    '<' => o.push_str("&lt;"),
                    '>' => o.push_str("&gt;"),
                    '&' => o.push_str("&amp;"),
                    '\'' => o.push_str("&apos;"),
                    '"' => o.push_str("&quot;"),
                    c => o.push(c),
                }
            }
            o
        }
        "uri" => {
            let mut o = String::new();
            for &b in text(&v).as_bytes() {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                    o.push(b as char);
                } else {
                    o.push_str(&format!("%{b:02X}"));
                }
            }
            o
        }
        "csv" | "tsv" => {
            let Val::Arr(a) = &v else {
                return err(format!(
                    "{} cannot be {name}-formatted, only array",
                    v.kind_and_trunc()
                ));
            };
            let sep = if name == "csv" { "," } else { "\t" };
            let mut parts = Vec::with_capacity(a.len());
            for x in a.iter() {
                parts.push(match x {
                    Val::Null => String::new(),
                    Val::Bool(b) => b.to_string(),
                    Val::Num(_) | Val::Lit(_) => x.to_json(),
                    Val::Str(s) if name == "csv" => format!("\"{}\"", s.replace('"', "\"\"")),
                    Val::Str(s) => s
                        .replace('\\', "\\\\")
                        .replace('\t', "\\t")
                        .replace('\n', "\\n")
                        .replace('\r', "\\r"),
                    x => return err(format!("{} is not valid in a csv row", x.kind_and_trunc())),
                });
            }
            parts.join(sep)
        }
        "sh" => {
            let quote = |x: &Val| -> ValR<String, Val> {
                match x {
                    Val::Str(s) => Ok(format!("'{}'", s.replace('\'', "'\\''"))),
                    Val::Arr(_) | Val::Obj(_) => err(format!(
                        "{} can not be escaped for shell",
                        x.kind_and_trunc()
                    )),
                    x => Ok(x.to_json()),
                }
            };
            match &v {
                Val::Arr(a) => a
                    .iter()
                    .map(quote)
                    .collect::<ValR<Vec<_>, Val>>()?
                    .join(" "),
                v => quote(v)?,
            }
        }
        "base64" => base64::engine::general_purpose::STANDARD.encode(text(&v)),
        "base64d" => {
            let s = text(&v);
            let bytes = decode64(&s)
                .map_err(|m| Error::new(Val::str(format!("{} {m}", v.kind_and_trunc()))))?;
            String::from_utf8_lossy(&bytes).into_owned()
        }
        _ => return err(format!("{name} is not a valid format")),
    };
    if !fuel::spend_bytes(out.len()) {
        return Err(Error::abort());
    }
    Ok(Val::str(out))
}

/// jq's lenient base64 decoding: padding optional, a lone trailing character is an error.
fn decode64(s: &str) -> Result<Vec<u8>, &'static str> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let body = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let mut acc = 0u32;
    let mut n = 0;
    for &c in body.as_bytes() {
        let Some(d) = val(c) else {
            return Err("is not valid base64 data");
        };
        acc = (acc << 6) | d;
        n += 1;
        if n == 4 {
            out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]);
            acc = 0;
            n = 0;
        }
    }
    match n {
        0 => {}
        1 => return Err("trailing base64 byte found"),
        2 => out.push((acc >> 4) as u8),
        _ => out.extend_from_slice(&[(acc >> 10) as u8, (acc >> 2) as u8]),
    }
    Ok(out)
}

macro_rules! fmt {
    ($name:expr) => {
        (
            concat!("@", $name),
            Box::new([]) as Box<[Bind]>,
            Native::new(|cv| bome(apply($name, cv.1))),
        )
    };
}

/// The `@name` filters.
pub fn natives() -> Vec<Filter<Native<Jq>>> {
    vec![
        fmt!("text"),
        fmt!("json"),
        fmt!("html"),
        fmt!("uri"),
        fmt!("csv"),
        fmt!("tsv"),
        fmt!("sh"),
        fmt!("base64"),
        fmt!("base64d"),
        fmt!("base32"),
        fmt!("base32d"),
    ]
}
