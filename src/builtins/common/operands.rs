//! File operands of the text tools: opening each one with GNU's complaint, quoting names
//! in messages as GNU does, and size arguments with suffixes (`10K`, `1MiB`).

use crate::builtins::common::quote::{quote_name, quote_name_always};
use crate::builtins::{Bytes, Ctx};
use crate::error::Result;
use crate::stream::Stdin;

/// Opens `name` (`-` is stdin) and reads it whole. When it cannot be opened, writes
/// `PROG: NAME: REASON` to stderr, as GNU tools do, and gives `None`, so that the tool
/// goes on with the next one.
pub async fn open(ctx: &mut Ctx<'_>, prog: &str, name: &[u8]) -> Result<Option<Bytes>> {
    match open_stream(ctx, prog, name).await? {
        Some(input) => Ok(Some(input.read_all().await?)),
        None => Ok(None),
    }
}

/// Opens `name` as a stream to read as it comes, with [`open`]'s complaint.
pub async fn open_stream(ctx: &mut Ctx<'_>, prog: &str, name: &[u8]) -> Result<Option<Stdin>> {
    match ctx.open_stream(name).await? {
        Ok(input) => Ok(Some(input)),
        Err(reason) => {
            let line = format!("{prog}: {}: {reason}\n", quote_name(name));
            ctx.stderr.extend_from_slice(line.as_bytes());
            Ok(None)
        }
    }
}

/// Opens `name` as a stream for a tool that complains `PROG: cannot open 'NAME' for
/// reading: REASON` (head, tail).
pub async fn open_for_reading(ctx: &mut Ctx<'_>, prog: &str, name: &[u8]) -> Result<Option<Stdin>> {
    match ctx.open_stream(name).await? {
        Ok(input) => Ok(Some(input)),
        Err(reason) => {
            let line = format!(
                "{prog}: cannot open {} for reading: {reason}\n",
                quote_name_always(name)
            );
            ctx.stderr.extend_from_slice(line.as_bytes());
            Ok(None)
        }
    }
}

/// Writes the `==> NAME <==` header of head and tail, with a blank line before every
/// header but the first.
pub fn file_header(out: &mut Vec<u8>, first: &mut bool, name: &[u8]) {
    if !*first {
        out.push(b'\n');
    }
    *first = false;
    out.extend_from_slice(b"==> ");
    if name == b"-" {
        out.extend_from_slice(b"standard input");
    } else {
        out.extend_from_slice(name);
    }
    out.extend_from_slice(b" <==\n");
}

/// The operands, or `-` alone when there are none.
pub fn or_stdin(operands: &[Vec<u8>]) -> Vec<Vec<u8>> {
    if operands.is_empty() {
        vec![b"-".to_vec()]
    } else {
        operands.to_vec()
    }
}

/// Why a size argument was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    /// Not a number, or a suffix that is not known.
    Invalid,
    /// A number too large for 64 bits.
    TooLarge,
}

/// Parses a count with GNU's multiplier suffixes (coreutils 9.1): `b` (512), `k`/`K`/`KiB`
/// (1024), `kB`/`KB` (1000), and so on through `M G T P E Z Y` (`m` is `M`). Leading
/// blanks and one `+` are skipped, as `strtoumax` does; a `-` is refused.
/// A suffix without a number counts one of it (`b` is 512).
pub fn parse_size(s: &[u8]) -> std::result::Result<u64, SizeError> {
    let raw = s;
    let s = trim_start_blanks(s);
    let s = s.strip_prefix(b"+").unwrap_or(s);
    let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let (num, suffix): (&[u8], &[u8]) = if digits == 0 {
        match raw.first() {
            Some(c) if b"bkKmMGTPEZY".contains(c) => (b"1", raw),
            _ => return Err(SizeError::Invalid),
        }
    } else {
        s.split_at(digits)
    };
    let mut n: u64 = 0;
    let mut overflow = false;
    for &d in num {
        match n
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
        {
            Some(v) => n = v,
            None => overflow = true,
        }
    }
    let (base, power) = suffix_multiplier(suffix).ok_or(SizeError::Invalid)?;
    if overflow {
        return Err(SizeError::TooLarge);
    }
    let mut total = n;
    for _ in 0..power {
        total = total.checked_mul(base).ok_or(SizeError::TooLarge)?;
    }
    Ok(total)
}

/// `(base, power)` for a suffix: the multiplier is base^power.
fn suffix_multiplier(suffix: &[u8]) -> Option<(u64, u32)> {
    let Some((&first, rest)) = suffix.split_first() else {
        return Some((1, 0));
    };
    if first == b'b' {
        return rest.is_empty().then_some((512, 1));
    }
    let power = match first {
        b'k' | b'K' => 1,
        b'm' | b'M' => 2,
        b'G' => 3,
        b'T' => 4,
        b'P' => 5,
        b'E' => 6,
        b'Z' => 7,
        b'Y' => 8,
        _ => return None,
    };
    match rest {
        b"" | b"iB" => Some((1024, power)),
        b"B" => Some((1000, power)),
        _ => None,
    }
}

/// `s` without its leading blanks (space, tab, and the other C-locale `isspace` bytes).
pub fn trim_start_blanks(s: &[u8]) -> &[u8] {
    let skip = s
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
        .count();
    &s[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size(b"10"), Ok(10));
        assert_eq!(parse_size(b"2b"), Ok(1024));
        assert_eq!(parse_size(b"1K"), Ok(1024));
        assert_eq!(parse_size(b"1kB"), Ok(1000));
        assert_eq!(parse_size(b"1KiB"), Ok(1024));
        assert_eq!(parse_size(b"1MB"), Ok(1_000_000));
        assert_eq!(parse_size(b"1x"), Err(SizeError::Invalid));
        assert_eq!(parse_size(b"1Q"), Err(SizeError::Invalid));
        assert_eq!(parse_size(b"1Z"), Err(SizeError::TooLarge));
        assert_eq!(parse_size(b"1mB"), Ok(1_000_000));
        assert_eq!(parse_size(b"1bB"), Err(SizeError::Invalid));
        assert_eq!(parse_size(b""), Err(SizeError::Invalid));
        assert_eq!(parse_size(b"k"), Ok(1024));
        assert_eq!(parse_size(b" k"), Err(SizeError::Invalid));
    }
}
