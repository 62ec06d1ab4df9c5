//! `head`: the first lines or bytes of each operand, or all but the last ones, as GNU
//! head. Spends 1 step per line it counts plus 1 per 64 bytes it looks at.

use memchr::{memchr, memrchr};

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::operands::{self, parse_size, SizeError};
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "c:n:qvz0123456789",
    long: &[
        long("bytes", Arg::Required, Some('c')),
        long("lines", Arg::Required, Some('n')),
        long("quiet", Arg::No, Some('q')),
        long("silent", Arg::No, Some('q')),
        long("verbose", Arg::No, Some('v')),
        long("zero-terminated", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

struct Opts {
    bytes: bool,
    count: u64,
    /// All but the last `count`.
    elide: bool,
    headers: Option<bool>,
    eol: u8,
}

pub fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let (opts, operands) = match parse_args(&args[1..]) {
        Ok(v) => v,
        Err((msg, usage)) => {
            if usage {
                usage_error(ctx.stderr, "head", &msg);
            } else {
                ctx.stderr
                    .extend_from_slice(format!("head: {msg}\n").as_bytes());
            }
            return Ok(1);
        }
    };
    let operands = operands::or_stdin(&operands);
    let headers = opts.headers.unwrap_or(operands.len() > 1);
    let mut status = 0;
    let mut first = true;
    for name in &operands {
        if name == b"-" && opts.bytes && !opts.elide {
            // Like GNU head on a pipe, take only the bytes asked for, leaving the rest
            // of stdin to whoever reads next.
            let n = opts.count.min(ctx.stdin.rest().len() as u64) as usize;
            ctx.budget.spend_bytes(n)?;
            if headers {
                operands::file_header(ctx.stdout, &mut first, name);
            }
            ctx.stdout.extend_from_slice(&ctx.stdin.rest()[..n]);
            ctx.stdin.consume(n);
            continue;
        }
        let Some(data) = operands::open_for_reading(ctx, "head", name)? else {
            status = 1;
            continue;
        };
        if headers {
            operands::file_header(ctx.stdout, &mut first, name);
        }
        let part = select(ctx, &opts, &data)?;
        ctx.stdout.extend_from_slice(part);
    }
    Ok(status)
}

/// The part of `data` that head prints.
fn select<'d>(ctx: &mut Ctx<'_>, o: &Opts, data: &'d [u8]) -> Result<&'d [u8]> {
    let len = data.len() as u64;
    if o.bytes {
        let end = if o.elide {
            len.saturating_sub(o.count)
        } else {
            o.count.min(len)
        };
        ctx.budget.spend_bytes(end as usize)?;
        return Ok(&data[..end as usize]);
    }
    if o.elide {
        ctx.budget.spend_bytes(data.len())?;
        let start = last_lines_start(ctx, data, o.count, o.eol)?;
        return Ok(&data[..start]);
    }
    let mut end = 0;
    for _ in 0..o.count {
        if end >= data.len() {
            break;
        }
        ctx.budget.spend(1)?;
        end = match memchr(o.eol, &data[end..]) {
            Some(at) => end + at + 1,
            None => data.len(),
        };
    }
    ctx.budget.spend_bytes(end)?;
    Ok(&data[..end])
}

/// Where the last `n` lines of `data` start (a last line without its terminator counts).
pub fn last_lines_start(ctx: &mut Ctx<'_>, data: &[u8], n: u64, eol: u8) -> Result<usize> {
    let mut start = data.len();
    let mut search_end = match data.last() {
        Some(&b) if b == eol => data.len() - 1,
        _ => data.len(),
    };
    for _ in 0..n {
        if start == 0 {
            break;
        }
        ctx.budget.spend(1)?;
        match memrchr(eol, &data[..search_end]) {
            Some(at) => {
                start = at + 1;
                search_end = at;
            }
            None => {
                start = 0;
                break;
            }
        }
    }
    Ok(start)
}

type ArgError = (String, bool);

fn parse_args(args: &[Vec<u8>]) -> std::result::Result<(Opts, Vec<Vec<u8>>), ArgError> {
    let mut o = Opts {
        bytes: false,
        count: 10,
        elide: false,
        headers: None,
        eol: b'\n',
    };
    let mut rest = args;
    if let Some(first) = args.first() {
        if first.len() > 1 && first[0] == b'-' && first[1].is_ascii_digit() {
            obsolete(&first[1..], &mut o)?;
            rest = &args[1..];
        }
    }
    let parsed = SPEC.parse(rest).map_err(|m| (m, true))?;
    for opt in &parsed.opts {
        match opt.key {
            "c" | "n" => {
                o.bytes = opt.key == "c";
                let (count, elide) = parse_count(opt.value(), o.bytes)?;
                o.count = count;
                o.elide = elide;
            }
            "q" => o.headers = Some(false),
            "v" => o.headers = Some(true),
            "z" => o.eol = 0,
            digit => {
                return Err((format!("invalid trailing option -- {digit}"), true));
            }
        }
    }
    if o.bytes && o.elide && o.count > i64::MAX as u64 {
        let msg = format!(
            "invalid number of bytes: '{}': Value too large for defined data type",
            o.count
        );
        return Err((msg, false));
    }
    Ok((o, parsed.operands))
}

/// `-NUM[bkmclqvz]...`, the old way to give a count.
fn obsolete(spec: &[u8], o: &mut Opts) -> std::result::Result<(), ArgError> {
    let digits = spec.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut mult: u64 = 1;
    let mut bytes = false;
    for &c in &spec[digits..] {
        match c {
            b'b' => (mult, bytes) = (512, true),
            b'k' => (mult, bytes) = (1024, true),
            b'm' => (mult, bytes) = (1 << 20, true),
            b'c' => (mult, bytes) = (1, true),
            b'l' => bytes = false,
            b'q' => o.headers = Some(false),
            b'v' => o.headers = Some(true),
            b'z' => o.eol = 0,
            _ => return Err((format!("invalid trailing option -- {}", c as char), true)),
        }
    }
    let num = &spec[..digits];
    let what = if bytes { "bytes" } else { "lines" };
    let too_large = || {
        (
            format!(
                "invalid number of {what}: {}: Value too large for defined data type",
                quote_str(num)
            ),
            false,
        )
    };
    let n = parse_size(num).map_err(|_| too_large())?;
    o.count = n.checked_mul(mult).ok_or_else(too_large)?;
    o.bytes = bytes;
    o.elide = false;
    Ok(())
}

/// A `-n`/`-c` argument: `[-]NUM[suffix]`; the `-` asks for all but the last NUM.
pub fn parse_count(arg: &[u8], bytes: bool) -> std::result::Result<(u64, bool), ArgError> {
    let what = if bytes { "bytes" } else { "lines" };
    let (elide, num) = match arg.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, arg),
    };
    match parse_size(num) {
        Ok(n) => Ok((n, elide)),
        Err(SizeError::Invalid) => Err((
            format!("invalid number of {what}: {}", quote_str(num)),
            false,
        )),
        Err(SizeError::TooLarge) => Err((
            format!(
                "invalid number of {what}: {}: Value too large for defined data type",
                quote_str(num)
            ),
            false,
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn head(args: &[&str], stdin: &str) -> (String, i32) {
        let mut argv = vec!["head"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.stdout_str(), r.status)
    }

    const S12: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";

    // Expected values from GNU head 9.1.
    #[test]
    fn counts() {
        assert_eq!(head(&["-3"], S12).0, "1\n2\n3\n");
        assert_eq!(head(&["-3c"], S12).0, "1\n2");
        assert_eq!(head(&["-n", "-10"], S12).0, "1\n2\n");
        assert_eq!(head(&["-c", "-20"], S12).0, "1\n2\n3\n4");
        assert_eq!(head(&["-n", "-1"], "a\nb").0, "a\n");
        assert_eq!(head(&["-1bl"], S12).0, S12);
        assert_eq!(head(&["-1kc"], S12).0, "1");
    }

    #[test]
    fn headers_and_errors() {
        assert_eq!(head(&["-2", "-v"], S12).0, "==> standard input <==\n1\n2\n");
        assert_eq!(
            head(&["-n1", "nofile", "-"], S12),
            ("==> standard input <==\n1\n".into(), 1)
        );
        assert_eq!(head(&["-n", "1x"], S12).1, 1);
        assert_eq!(head(&["-2", "-3"], S12).1, 1);
    }
}
