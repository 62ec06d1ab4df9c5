//! `tail`: the last lines or bytes of each operand, or all from the Nth on, as GNU tail.
//! Following (`-f`, `-F`) has nothing to follow here: input is read once, as GNU does for
//! a pipe. Spends 1 step per line it counts plus 1 per 64 bytes it looks at. It keeps
//! only what it may print: the last N lines or bytes, or nothing when counting from the
//! start (`+N` prints as it reads).

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
    short: "c:n:fFqs:vz0123456789",
    long: &[
        long("bytes", Arg::Required, Some('c')),
        long("follow", Arg::Optional, Some('f')),
        long("lines", Arg::Required, Some('n')),
        long("max-unchanged-stats", Arg::Required, None),
        long("pid", Arg::Required, None),
        long("quiet", Arg::No, Some('q')),
        long("retry", Arg::No, None),
        long("silent", Arg::No, Some('q')),
        long("sleep-interval", Arg::Required, Some('s')),
        long("verbose", Arg::No, Some('v')),
        long("zero-terminated", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

struct Opts {
    bytes: bool,
    count: u64,
    /// Count from the start (`+N`) instead of from the end.
    from_start: bool,
    headers: Option<bool>,
    eol: u8,
    follow_name: bool,
    follow: bool,
    retry: bool,
    pid: bool,
}

/// A message and whether GNU adds its "Try ... --help" line.
type ArgError = (String, bool);

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let (opts, operands) = match parse_args(&args[1..]) {
        Ok(v) => v,
        Err((msg, usage)) => {
            if usage {
                usage_error(ctx.stderr, "tail", &msg);
            } else {
                ctx.stderr
                    .extend_from_slice(format!("tail: {msg}\n").as_bytes());
            }
            return Ok(1);
        }
    };
    if opts.retry && opts.follow && !opts.follow_name {
        ctx.stderr
            .extend_from_slice(b"tail: warning: --retry only effective for the initial open\n");
    }
    if opts.retry && !opts.follow {
        ctx.stderr.extend_from_slice(
            b"tail: warning: --retry ignored; --retry is useful only when following\n",
        );
    }
    if opts.pid && !opts.follow {
        ctx.stderr.extend_from_slice(
            b"tail: warning: PID ignored; --pid=PID is useful only when following\n",
        );
    }
    if opts.count == 0 && !opts.from_start && !opts.follow {
        return Ok(0);
    }
    let operands = operands::or_stdin(&operands);
    if opts.follow_name && operands.iter().any(|o| o == b"-") {
        ctx.stderr
            .extend_from_slice(b"tail: cannot follow '-' by name\n");
        return Ok(1);
    }
    let headers = opts.headers.unwrap_or(operands.len() > 1);
    let mut status = 0;
    let mut first = true;
    for name in &operands {
        let Some(input) = operands::open_for_reading(ctx, "tail", name).await? else {
            status = 1;
            continue;
        };
        if headers {
            operands::file_header(ctx.stdout, &mut first, name);
        }
        match (opts.bytes, opts.from_start) {
            (true, true) => from_byte(ctx, opts.count, &input).await?,
            (true, false) => last_bytes(ctx, opts.count, &input).await?,
            (false, true) => from_line(ctx, opts.count, opts.eol, &input).await?,
            (false, false) => last_lines(ctx, opts.count, opts.eol, &input).await?,
        }
    }
    // What it follows is what it could open that is not a pipe, and everything here is
    // a pipe; GNU says so only when an operand could not be opened.
    if opts.follow && status != 0 && !opts.retry {
        ctx.stderr.extend_from_slice(b"tail: no files remaining\n");
    }
    Ok(status)
}

/// Everything from byte `count` on (1 is the first), printed as it comes.
async fn from_byte(ctx: &mut Ctx<'_>, count: u64, input: &Stdin) -> Result<()> {
    let mut skip = count.saturating_sub(1);
    let mut meter = ByteMeter::default();
    while let Some(chunk) = input.read().await? {
        let from = skip.min(chunk.len() as u64) as usize;
        skip -= from as u64;
        meter.add(ctx.io.budget, chunk.len() - from)?;
        ctx.stdout.extend_from_slice(&chunk[from..]);
        ctx.flush_some().await?;
    }
    meter.finish(ctx.io.budget)
}

/// The last `count` bytes: only those are kept (the front is cut when the window has
/// doubled, so each byte is moved a bounded number of times).
async fn last_bytes(ctx: &mut Ctx<'_>, count: u64, input: &Stdin) -> Result<()> {
    let keep = usize::try_from(count).unwrap_or(usize::MAX);
    let mut held: Vec<u8> = Vec::new();
    while let Some(chunk) = input.read().await? {
        held.extend_from_slice(&chunk);
        if held.len() > keep.saturating_mul(2).max(64 * 1024) {
            held.drain(..held.len() - keep);
        }
    }
    let start = held.len().saturating_sub(keep);
    ctx.io.budget.spend_bytes(held.len() - start)?;
    ctx.stdout.extend_from_slice(&held[start..]);
    Ok(())
}

/// Everything from line `count` on: 1 step per line skipped and, for each, 1 per 64 bytes
/// from the start of the input to its end (GNU's count); 1 per 64 bytes printed.
async fn from_line(ctx: &mut Ctx<'_>, count: u64, eol: u8, input: &Stdin) -> Result<()> {
    let mut to_skip = count.saturating_sub(1);
    // Bytes before the current chunk, and the end of the last line skipped.
    let mut offset: u64 = 0;
    let mut skipped_to: u64 = 0;
    let mut meter = ByteMeter::default();
    while let Some(chunk) = input.read().await? {
        let mut from = 0;
        while to_skip > 0 {
            let Some(at) = memchr(eol, &chunk[from..]) else {
                break;
            };
            from += at + 1;
            to_skip -= 1;
            skipped_to = offset + from as u64;
            ctx.io.budget.spend(1)?;
            ctx.io.budget.spend_bytes(skipped_to as usize)?;
        }
        if to_skip == 0 {
            let from = (skipped_to.saturating_sub(offset) as usize).min(chunk.len());
            meter.add(ctx.io.budget, chunk.len() - from)?;
            ctx.stdout.extend_from_slice(&chunk[from..]);
            ctx.flush_some().await?;
        }
        offset += chunk.len() as u64;
    }
    if to_skip > 0 && skipped_to < offset {
        // A last line without its line end is skipped too.
        ctx.io.budget.spend(1)?;
        ctx.io.budget.spend_bytes(offset as usize)?;
    }
    meter.finish(ctx.io.budget)
}

/// The last `count` lines: only a window of them is kept; 1 step per line counted back
/// from the end and 1 per 64 bytes printed.
async fn last_lines(ctx: &mut Ctx<'_>, count: u64, eol: u8, input: &Stdin) -> Result<()> {
    let mut window = LineWindow::new(count, eol);
    while let Some(chunk) = input.read().await? {
        window.push(&chunk, |_| {});
    }
    ctx.io.budget.spend(window.search_steps())?;
    let held = window.held();
    let start = last_lines_start(held, count, eol);
    ctx.io.budget.spend_bytes(held.len() - start)?;
    ctx.stdout.extend_from_slice(&held[start..]);
    Ok(())
}

fn parse_args(args: &[Vec<u8>]) -> std::result::Result<(Opts, Vec<Vec<u8>>), ArgError> {
    let mut o = Opts {
        bytes: false,
        count: 10,
        from_start: false,
        headers: None,
        eol: b'\n',
        follow_name: false,
        follow: false,
        retry: false,
        pid: false,
    };
    if let Some(operands) = obsolete(args, &mut o)? {
        return Ok((o, operands));
    }
    // Each option acts as it comes, as with GNU's getopt loop: a bad count or a digit
    // before a bad option is the error reported.
    let (parsed, bad_option) = SPEC.parse_in_order(args);
    for opt in &parsed.opts {
        let v = opt.value();
        match opt.key {
            "c" | "n" => {
                o.bytes = opt.key == "c";
                let what = if o.bytes { "bytes" } else { "lines" };
                // `+N` counts from the start, and stays so for later counts without `+`;
                // the `+` itself goes to the number parser, which allows one.
                let num = match v.first() {
                    Some(b'+') => {
                        o.from_start = true;
                        v
                    }
                    Some(b'-') => &v[1..],
                    _ => v,
                };
                o.count = match parse_size(num) {
                    Ok(n) => n,
                    Err(SizeError::Invalid) => {
                        // GNU names the number without the `-` it allows before it.
                        return Err((
                            format!("invalid number of {what}: {}", quote_str(num)),
                            false,
                        ));
                    }
                    Err(SizeError::TooLarge) => {
                        return Err((
                            format!(
                            "invalid number of {what}: {}: Value too large for defined data type",
                            quote_str(num)
                        ),
                            false,
                        ))
                    }
                };
            }
            "f" => {
                o.follow = true;
                o.follow_name = false;
                match v {
                    b"" | b"d" | b"de" | b"des" | b"desc" | b"descr" | b"descri" | b"descrip"
                    | b"descript" | b"descripto" | b"descriptor" => {}
                    b"n" | b"na" | b"nam" | b"name" => o.follow_name = true,
                    _ => {
                        return Err((
                            format!(
                                "invalid argument {} for '--follow'\nValid arguments are:\n  - 'descriptor'\n  - 'name'",
                                quote_str(v)
                            ),
                            true,
                        ))
                    }
                }
            }
            "F" => {
                o.follow = true;
                o.follow_name = true;
                o.retry = true;
            }
            "retry" => o.retry = true,
            "pid" => {
                let ok = !v.is_empty() && v.iter().all(u8::is_ascii_digit);
                if !ok {
                    return Err((format!("invalid PID: {}", quote_str(v)), false));
                }
                o.pid = true;
            }
            "s" => {
                let ok = std::str::from_utf8(v)
                    .ok()
                    .and_then(|s| s.trim_start().parse::<f64>().ok())
                    .is_some_and(|x| x >= 0.0);
                if !ok {
                    return Err((
                        format!("invalid number of seconds: {}", quote_str(v)),
                        false,
                    ));
                }
            }
            "max-unchanged-stats" => {
                if parse_size(v).is_err() || v.ends_with(b"b") {
                    return Err((
                        format!(
                            "invalid maximum number of unchanged stats between opens: {}",
                            quote_str(v)
                        ),
                        false,
                    ));
                }
            }
            "q" => o.headers = Some(false),
            "v" => o.headers = Some(true),
            "z" => o.eol = 0,
            digit => {
                return Err((format!("option used in invalid context -- {digit}"), false));
            }
        }
    }
    if let Some(message) = bad_option {
        return Err((message, true));
    }
    Ok((o, parsed.operands))
}

/// The old forms `tail [+-]NUM[bcl][f] [FILE]`: the operands when `args` is one.
fn obsolete(args: &[Vec<u8>], o: &mut Opts) -> std::result::Result<Option<Vec<Vec<u8>>>, ArgError> {
    let eligible = match args {
        [_] => true,
        [_, second] => !(second.len() > 1 && second[0] == b'-') || second == b"--",
        [_, second, _] => second == b"--",
        _ => false,
    };
    let Some(first) = args.first().filter(|_| eligible) else {
        return Ok(None);
    };
    let (from_start, body) = match first.split_first() {
        Some((b'+', body)) => (true, body),
        Some((b'-', body)) if !body.is_empty() && body != b"c" => (false, body),
        _ => return Ok(None),
    };
    let digits = body.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut rest = &body[digits..];
    let mut mult = 1u64;
    let mut bytes = false;
    match rest.first() {
        Some(b'b') => (mult, bytes) = (512, true),
        Some(b'c') => bytes = true,
        Some(b'l') => {}
        _ => mult = 0,
    }
    if mult != 0 || rest.first() == Some(&b'l') {
        rest = &rest[1..];
    }
    let mult = mult.max(1);
    let follow = rest == b"f";
    if !rest.is_empty() && !follow {
        return Ok(None);
    }
    let count = if digits == 0 {
        10 * mult
    } else {
        let n = parse_size(&body[..digits]).ok();
        match n.and_then(|n| n.checked_mul(mult)) {
            Some(n) => n,
            None => {
                return Err((
                    format!(
                        "invalid number: {}: Numerical result out of range",
                        quote_str(first)
                    ),
                    false,
                ))
            }
        }
    };
    o.count = count;
    o.bytes = bytes;
    o.from_start = from_start;
    o.follow = follow;
    Ok(Some(
        args[1..].iter().filter(|a| *a != b"--").cloned().collect(),
    ))
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn tail(args: &[&str], stdin: &str) -> (String, i32) {
        let mut argv = vec!["tail"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.stdout_str(), r.status)
    }

    const S12: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";

    // Expected values from GNU tail 9.1.
    #[test]
    fn counts() {
        assert_eq!(tail(&["-3"], S12).0, "10\n11\n12\n");
        assert_eq!(tail(&["+11"], S12).0, "11\n12\n");
        assert_eq!(tail(&["-3c"], S12).0, "12\n");
        assert_eq!(tail(&["-c", "+25"], S12).0, "12\n");
        assert_eq!(tail(&["+"], S12).0, "10\n11\n12\n");
        assert_eq!(tail(&["-n", "+0"], S12).0, S12);
        assert_eq!(tail(&["-n", "1"], "a\nb").0, "b");
        assert_eq!(tail(&["-z", "-n", "2"], "a\0b\0c").0, "b\0c");
    }

    #[test]
    fn errors() {
        assert_eq!(tail(&["-3", "-v"], S12).1, 1);
        assert_eq!(tail(&["-F"], S12), (String::new(), 1));
        assert_eq!(tail(&["-f", "-n1"], S12), ("12\n".into(), 0));
        assert_eq!(tail(&["+3", "nofile"], S12).1, 1);
    }
}
