//! `head`: the first lines or bytes of each operand, or all but the last ones, as GNU
//! head. Spends 1 step per line it counts plus 1 per 64 bytes it looks at. It reads as
//! it prints and stops once it has what it needs; all but the last N holds N lines (or
//! bytes) back until the input ends.

use memchr::memchr;

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::lines::{last_lines_start, LineWindow};
use crate::builtins::common::operands::{self, parse_size, SizeError};
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};
use crate::stream::Stdin;

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

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
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
        let Some(input) = operands::open_for_reading(ctx, "head", name).await? else {
            status = 1;
            continue;
        };
        if headers {
            operands::file_header(ctx.stdout, &mut first, name);
        }
        match (opts.bytes, opts.elide) {
            (true, false) => first_bytes(ctx, opts.count, &input).await?,
            (true, true) => all_but_last_bytes(ctx, opts.count, &input).await?,
            (false, false) => first_lines(ctx, opts.count, opts.eol, &input).await?,
            (false, true) => all_but_last_lines(ctx, opts.count, opts.eol, &input).await?,
        }
    }
    Ok(status)
}

/// GNU head reads a pipe this many bytes at a time (BUFSIZ) when it counts lines.
const LINE_READ: u64 = 8192;

/// The first `count` bytes. Like GNU head on a pipe, it takes no more than it prints,
/// leaving the rest of stdin to whoever reads next.
async fn first_bytes(ctx: &mut Ctx<'_>, count: u64, input: &Stdin) -> Result<()> {
    let mut left = count;
    let mut meter = ByteMeter::default();
    while left > 0 {
        let Some(mut chunk) = input.read().await? else {
            break;
        };
        if chunk.len() as u64 > left {
            input.unread(chunk.split_off(left as usize));
        }
        left -= chunk.len() as u64;
        meter.add(ctx.io.budget, chunk.len())?;
        ctx.stdout.extend_from_slice(&chunk);
        ctx.flush_some().await?;
    }
    meter.finish(ctx.io.budget)
}

/// All but the last `count` bytes: those are held back until the input ends.
async fn all_but_last_bytes(ctx: &mut Ctx<'_>, count: u64, input: &Stdin) -> Result<()> {
    let mut held = std::collections::VecDeque::new();
    let mut meter = ByteMeter::default();
    while let Some(chunk) = input.read().await? {
        held.extend(chunk);
        let surplus = (held.len() as u64).saturating_sub(count) as usize;
        if surplus > 0 {
            meter.add(ctx.io.budget, surplus)?;
            ctx.stdout.extend(held.drain(..surplus));
            ctx.flush_some().await?;
        }
    }
    meter.finish(ctx.io.budget)
}

/// The first `count` lines: 1 step per line, 1 per 64 bytes printed.
async fn first_lines(ctx: &mut Ctx<'_>, count: u64, eol: u8, input: &Stdin) -> Result<()> {
    let mut left = count;
    let mut in_line = false;
    let mut meter = ByteMeter::default();
    let mut printed: u64 = 0;
    let mut rest = Vec::new();
    while left > 0 || in_line {
        let Some(mut chunk) = input.read().await? else {
            return meter.finish(ctx.io.budget);
        };
        let mut end = 0;
        while end < chunk.len() {
            if !in_line {
                if left == 0 {
                    break;
                }
                ctx.io.budget.spend(1)?;
                in_line = true;
            }
            match memchr(eol, &chunk[end..]) {
                Some(at) => {
                    end += at + 1;
                    in_line = false;
                    left -= 1;
                }
                None => end = chunk.len(),
            }
        }
        meter.add(ctx.io.budget, end)?;
        printed += end as u64;
        rest = chunk.split_off(end);
        ctx.stdout.extend_from_slice(&chunk);
        ctx.flush_some().await?;
    }
    meter.finish(ctx.io.budget)?;
    give_back_past_read(input, rest, printed).await
}

/// What GNU head read past the lines it printed is gone, up to the end of its read of
/// [`LINE_READ`] bytes; the rest is left to the next reader.
async fn give_back_past_read(input: &Stdin, mut rest: Vec<u8>, printed: u64) -> Result<()> {
    let mut gone = (printed.next_multiple_of(LINE_READ) - printed) as usize;
    loop {
        if rest.len() >= gone {
            input.unread(rest.split_off(gone));
            return Ok(());
        }
        gone -= rest.len();
        match input.read().await? {
            Some(chunk) => rest = chunk,
            None => return Ok(()),
        }
    }
}

/// All but the last `count` lines: 1 step per 64 bytes read and 1 per line counted back
/// from the end, as if the input had come whole.
async fn all_but_last_lines(ctx: &mut Ctx<'_>, count: u64, eol: u8, input: &Stdin) -> Result<()> {
    let mut window = LineWindow::new(count, eol);
    let mut meter = ByteMeter::default();
    while let Some(chunk) = input.read().await? {
        meter.add(ctx.io.budget, chunk.len())?;
        window.push(&chunk, |before| ctx.stdout.extend_from_slice(before));
        ctx.flush_some().await?;
    }
    meter.finish(ctx.io.budget)?;
    ctx.io.budget.spend(window.search_steps())?;
    let held = window.held();
    let start = last_lines_start(held, count, eol);
    ctx.stdout.extend_from_slice(&held[..start]);
    Ok(())
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
    // Each option acts as it comes, as with GNU's getopt loop: a bad count or a digit
    // before a bad option is the error reported.
    let (parsed, bad_option) = SPEC.parse_in_order(rest);
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
    if let Some(message) = bad_option {
        return Err((message, true));
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
    // GNU reads the number with its b, k or m as one count, and names them together.
    let mut unit = None;
    for &c in &spec[digits..] {
        match c {
            b'b' | b'k' | b'm' => unit = Some(c),
            b'c' | b'l' => unit = None,
            _ => {}
        }
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
    let mut shown = num.to_vec();
    shown.extend(unit.filter(|_| bytes));
    let too_large = || {
        (
            format!(
                "invalid number of {what}: {}: Value too large for defined data type",
                quote_str(&shown)
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
