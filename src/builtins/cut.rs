//! `cut`: prints selected bytes, characters or fields of each line, as GNU cut in the C
//! locale. Spends 1 step per line plus 1 per 64 bytes of input. It reads blocks of whole
//! lines as they come (a line is held whole; with `-d` the line end, all the input is
//! one line and is read whole).

use memchr::memchr;

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::lines::LineBlocks;
use crate::builtins::common::operands;
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "b:c:d:f:nsz",
    long: &[
        long("bytes", Arg::Required, Some('b')),
        long("characters", Arg::Required, Some('c')),
        long("complement", Arg::No, None),
        long("delimiter", Arg::Required, Some('d')),
        long("fields", Arg::Required, Some('f')),
        long("only-delimited", Arg::No, Some('s')),
        long("output-delimiter", Arg::Required, None),
        long("zero-terminated", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

/// An inclusive range of 1-based positions; `hi` is `u64::MAX` for "to the end".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    lo: u64,
    hi: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bytes,
    Fields,
}

struct Options {
    mode: Mode,
    ranges: Vec<Range>,
    delim: u8,
    out_delim: Option<Vec<u8>>,
    only_delimited: bool,
    eol: u8,
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let opts = match parse_args(&args[1..]) {
        Ok(v) => v,
        Err(msg) => {
            usage_error(ctx.stderr, "cut", &msg);
            return Ok(1);
        }
    };
    let (opts, operands) = opts;
    let mut status = 0;
    for name in operands::or_stdin(&operands) {
        let Some(input) = operands::open_stream(ctx, "cut", &name).await? else {
            status = 1;
            continue;
        };
        let mut meter = ByteMeter::default();
        if opts.mode == Mode::Fields && opts.delim == opts.eol {
            // The delimiter ends lines too: the whole input is one line of fields.
            let data = input.read_all().await?;
            meter.add(ctx.io.budget, data.len())?;
            meter.finish(ctx.io.budget)?;
            if !data.is_empty() {
                ctx.io.budget.spend(1)?;
                let line = data.strip_suffix(&[opts.eol]).unwrap_or(&data);
                cut_fields(&opts, line, ctx.stdout);
            }
            continue;
        }
        let mut blocks = LineBlocks::new(input, opts.eol);
        while let Some(block) = blocks.next().await? {
            meter.add(ctx.io.budget, block.len())?;
            cut_lines(ctx, &opts, &block)?;
            ctx.flush_some().await?;
        }
        meter.finish(ctx.io.budget)?;
    }
    Ok(status)
}

fn parse_args(args: &[Vec<u8>]) -> std::result::Result<(Options, Vec<Vec<u8>>), String> {
    let parsed = SPEC.parse(args)?;
    let mut list: Option<(Mode, Vec<u8>)> = None;
    let mut delim: Option<u8> = None;
    let mut out_delim = None;
    let mut only_delimited = false;
    let mut complement = false;
    let mut eol = b'\n';
    for opt in &parsed.opts {
        match opt.key {
            "b" | "c" | "f" => {
                if list.is_some() {
                    return Err("only one list may be specified".into());
                }
                let mode = if opt.key == "f" {
                    Mode::Fields
                } else {
                    Mode::Bytes
                };
                list = Some((mode, opt.value().to_vec()));
            }
            "d" => {
                let v = opt.value();
                if v.len() > 1 {
                    return Err("the delimiter must be a single character".into());
                }
                delim = Some(v.first().copied().unwrap_or(0));
            }
            "s" => only_delimited = true,
            "z" => eol = 0,
            "complement" => complement = true,
            // An empty output delimiter is a NUL byte.
            "output-delimiter" => {
                out_delim = Some(if opt.value().is_empty() {
                    vec![0]
                } else {
                    opt.value().to_vec()
                })
            }
            _ => {}
        }
    }
    let Some((mode, list)) = list else {
        return Err("you must specify a list of bytes, characters, or fields".into());
    };
    if mode == Mode::Bytes && delim.is_some() {
        return Err("an input delimiter may be specified only when operating on fields".into());
    }
    if mode == Mode::Bytes && only_delimited {
        return Err(
            "suppressing non-delimited lines makes sense\n\tonly when operating on fields".into(),
        );
    }
    let mut ranges = parse_list(&list, mode)?;
    if complement {
        ranges = complement_of(&ranges);
    }
    Ok((
        Options {
            mode,
            ranges,
            delim: delim.unwrap_or(b'\t'),
            out_delim,
            only_delimited,
            eol,
        },
        parsed.operands,
    ))
}

/// Parses a list like `1,3-5,7-` into sorted ranges, overlapping ones merged (adjacent
/// ones stay apart: `--output-delimiter` goes between them in byte mode).
fn parse_list(list: &[u8], mode: Mode) -> std::result::Result<Vec<Range>, String> {
    let fields = mode == Mode::Fields;
    let from_one = if fields {
        "fields are numbered from 1"
    } else {
        "byte/character positions are numbered from 1"
    };
    let bad_range = if fields {
        "invalid field range"
    } else {
        "invalid byte or character range"
    };
    let mut ranges = Vec::new();
    let (mut lo, mut hi): (Option<u64>, Option<u64>) = (None, None);
    let mut dash = false;
    let mut i = 0;
    loop {
        let c = list.get(i).copied();
        match c {
            Some(b'-') => {
                if dash {
                    return Err(bad_range.into());
                }
                dash = true;
                i += 1;
            }
            None | Some(b',') | Some(b' ') | Some(b'\t') => {
                if dash {
                    match (lo, hi) {
                        (None, None) => return Err("invalid range with no endpoint: -".into()),
                        (Some(0), _) => return Err(from_one.into()),
                        (l, Some(h)) => {
                            let l = l.unwrap_or(1);
                            if l > h {
                                return Err("invalid decreasing range".into());
                            }
                            ranges.push(Range { lo: l, hi: h });
                        }
                        (Some(l), None) => ranges.push(Range {
                            lo: l,
                            hi: u64::MAX,
                        }),
                    }
                } else {
                    match lo {
                        None | Some(0) => return Err(from_one.into()),
                        Some(l) => ranges.push(Range { lo: l, hi: l }),
                    }
                }
                if c.is_none() {
                    break;
                }
                (lo, hi, dash) = (None, None, false);
                i += 1;
            }
            Some(d) if d.is_ascii_digit() => {
                let len = list[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                let digits = &list[i..i + len];
                let mut n: u64 = 0;
                for &d in digits {
                    n = n
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(u64::from(d - b'0')))
                        .filter(|&v| v != u64::MAX)
                        .ok_or_else(|| {
                            format!(
                                "{} number {} is too large",
                                if fields { "field" } else { "byte/character" },
                                quote_str(digits)
                            )
                        })?;
                }
                if dash {
                    hi = Some(n);
                } else {
                    lo = Some(n);
                }
                i += len;
            }
            Some(_) => {
                return Err(format!(
                    "invalid {} {}",
                    if fields {
                        "field value"
                    } else {
                        "byte/character position"
                    },
                    quote_str(&list[i..])
                ));
            }
        }
    }
    // GNU cut 9.1 orders ranges by their start cut to a C int (stable on ties), so that a
    // start of 2^31 or more can come first and absorb every later range:
    // `-c1,2147483648` selects nothing on short lines.
    ranges.sort_by_key(|r| r.lo as u32 as i32);
    let mut merged: Vec<Range> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.lo <= last.hi => last.hi = last.hi.max(r.hi),
            _ => merged.push(r),
        }
    }
    Ok(merged)
}

/// The positions not in `ranges` (sorted, disjoint), as ranges.
fn complement_of(ranges: &[Range]) -> Vec<Range> {
    let mut out = Vec::new();
    let mut next = 1u64;
    for r in ranges {
        if r.lo > next {
            out.push(Range {
                lo: next,
                hi: r.lo - 1,
            });
        }
        if r.hi == u64::MAX {
            return out;
        }
        next = next.max(r.hi + 1);
    }
    out.push(Range {
        lo: next,
        hi: u64::MAX,
    });
    out
}

/// Cuts whole lines (the last one may lack its line end): 1 step per line.
fn cut_lines(ctx: &mut Ctx<'_>, opts: &Options, data: &[u8]) -> Result<()> {
    let mut rest = data;
    while !rest.is_empty() {
        ctx.io.budget.spend(1)?;
        let (line, next) = match memchr(opts.eol, rest) {
            Some(at) => (&rest[..at], &rest[at + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        match opts.mode {
            Mode::Bytes => cut_bytes(opts, line, ctx.stdout),
            Mode::Fields => cut_fields(opts, line, ctx.stdout),
        }
    }
    Ok(())
}

fn cut_bytes(opts: &Options, line: &[u8], out: &mut Vec<u8>) {
    let len = line.len() as u64;
    let mut first = true;
    for r in &opts.ranges {
        if r.lo > len {
            break;
        }
        if let (Some(d), false) = (&opts.out_delim, first) {
            out.extend_from_slice(d);
        }
        first = false;
        let end = r.hi.min(len) as usize;
        out.extend_from_slice(&line[(r.lo - 1) as usize..end]);
    }
    out.push(opts.eol);
}

fn cut_fields(opts: &Options, line: &[u8], out: &mut Vec<u8>) {
    let Some(first_delim) = memchr(opts.delim, line) else {
        if !opts.only_delimited {
            out.extend_from_slice(line);
            out.push(opts.eol);
        }
        return;
    };
    let out_delim: &[u8] = match &opts.out_delim {
        Some(d) => d,
        None => std::slice::from_ref(&opts.delim),
    };
    let last_wanted = opts.ranges.last().map_or(0, |r| r.hi);
    let mut ranges = opts.ranges.iter().peekable();
    let mut field: u64 = 1;
    let mut start = 0usize;
    let mut end = first_delim;
    let mut printed = false;
    loop {
        while ranges.peek().is_some_and(|r| r.hi < field) {
            ranges.next();
        }
        let Some(r) = ranges.peek() else { break };
        if r.lo <= field {
            if printed {
                out.extend_from_slice(out_delim);
            }
            out.extend_from_slice(&line[start..end]);
            printed = true;
        }
        if end >= line.len() || field >= last_wanted {
            break;
        }
        start = end + 1;
        end = match memchr(opts.delim, &line[start..]) {
            Some(at) => start + at,
            None => line.len(),
        };
        field += 1;
    }
    out.push(opts.eol);
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn cut(args: &[&str], stdin: &str) -> (String, i32) {
        let mut argv = vec!["cut"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.stdout_str(), r.status)
    }

    #[test]
    fn fields() {
        assert_eq!(cut(&["-d:", "-f2"], "a:b:c\nxyz\n"), ("b\nxyz\n".into(), 0));
        assert_eq!(cut(&["-d:", "-f2", "-s"], "a:b:c\nxyz"), ("b\n".into(), 0));
        assert_eq!(cut(&["-d:", "-f3,1"], "a:b:c\n"), ("a:c\n".into(), 0));
        assert_eq!(
            cut(&["-d:", "-f2-", "--output-delimiter=--"], "a:b:c\n"),
            ("b--c\n".into(), 0)
        );
        assert_eq!(
            cut(&["-d:", "-f2", "--complement"], "a:b:c\n"),
            ("a:c\n".into(), 0)
        );
    }

    #[test]
    fn bytes() {
        // From GNU cut 9.1.
        assert_eq!(
            cut(&["-b1-2,3-4", "--output-delimiter=:"], "ab\tcdef\n"),
            ("ab:\tc\n".into(), 0)
        );
        assert_eq!(
            cut(
                &["-b2-3,5-", "--complement", "--output-delimiter=::"],
                "ab\tcdef\n"
            ),
            ("a::c\n".into(), 0)
        );
    }

    #[test]
    fn newline_delimiter() {
        assert_eq!(
            cut(&["-d\n", "-f1,3"], "a:b\nc:d\n\n"),
            ("a:b\n\n".into(), 0)
        );
    }

    #[test]
    fn errors() {
        assert_eq!(cut(&[], "").1, 1);
        assert_eq!(cut(&["-f0"], "").1, 1);
        assert_eq!(cut(&["-f", "1", "nofile", "-"], "x\n"), ("x\n".into(), 1));
    }
}
