//! `date`: prints a moment (now, `-d STRING`, or each line of `-f FILE`) as GNU date does in
//! the C locale, in the zone of `TZ` (or UTC with `-u`). Spends 4 steps per date parsed and
//! printed, one per 16 bytes of date string, and one per 64 bytes of output.

mod debug;
mod format;
mod parse;
pub(crate) mod tz;

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

use tz::Zone;

const SPEC: Spec = Spec {
    short: "d:f:I::r:Rs:u",
    long: &[
        long("date", Arg::Required, Some('d')),
        long("debug", Arg::No, None),
        long("file", Arg::Required, Some('f')),
        long("iso-8601", Arg::Optional, Some('I')),
        long("reference", Arg::Required, Some('r')),
        long("resolution", Arg::No, None),
        long("rfc-2822", Arg::No, Some('R')),
        long("rfc-3339", Arg::Required, None),
        long("rfc-822", Arg::No, Some('R')),
        long("rfc-email", Arg::No, Some('R')),
        long("set", Arg::Required, Some('s')),
        long("universal", Arg::No, Some('u')),
        long("utc", Arg::No, Some('u')),
        long("help", Arg::No, None),
        long("version", Arg::No, None),
    ],
    stop_at_operand: false,
};

const DEFAULT_FORMAT: &[u8] = b"%a %b %e %H:%M:%S %Z %Y";

/// Steps for one date parsed and printed.
const STEPS_PER_DATE: u64 = 4;

enum Source {
    Now,
    Date(Vec<u8>),
    File(Vec<u8>),
    Resolution,
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    // GNU acts on each option as it comes: a bad format argument, or a second format,
    // is reported before a bad option after it.
    let (parsed, bad_option) = SPEC.parse_in_order(&args[1..]);
    let mut source = Source::Now;
    let mut sources = 0;
    let mut format: Option<Vec<u8>> = None;
    let mut utc = false;
    let mut debug = false;
    let mut set = false;
    let mut reference: Option<Vec<u8>> = None;
    for o in &parsed.opts {
        match o.key {
            "d" => {
                if !matches!(source, Source::Date(_)) {
                    sources += 1;
                }
                source = Source::Date(o.value().to_vec());
            }
            "f" => {
                if !matches!(source, Source::File(_)) {
                    sources += 1;
                }
                source = Source::File(o.value().to_vec());
            }
            "resolution" => {
                if !matches!(source, Source::Resolution) {
                    sources += 1;
                }
                source = Source::Resolution;
            }
            "r" => {
                sources += 1;
                reference = Some(o.value().to_vec());
            }
            "I" => {
                let fmt: &[u8] = match o.value.as_deref() {
                    None => b"%Y-%m-%d",
                    Some(v) => match pick(v, &["hours", "minutes", "date", "seconds", "ns"]) {
                        Some("hours") => b"%Y-%m-%dT%H%:z",
                        Some("minutes") => b"%Y-%m-%dT%H:%M%:z",
                        Some("date") => b"%Y-%m-%d",
                        Some("seconds") => b"%Y-%m-%dT%H:%M:%S%:z",
                        Some(_) => b"%Y-%m-%dT%H:%M:%S,%N%:z",
                        None => {
                            bad_arg(
                                ctx,
                                v,
                                "--iso-8601",
                                &["hours", "minutes", "date", "seconds", "ns"],
                            );
                            return Ok(1);
                        }
                    },
                };
                if format.is_some() {
                    return Ok(multiple_formats(ctx));
                }
                format = Some(fmt.to_vec());
            }
            "R" => {
                if format.is_some() {
                    return Ok(multiple_formats(ctx));
                }
                format = Some(b"%a, %d %b %Y %H:%M:%S %z".to_vec());
            }
            "rfc-3339" => {
                let fmt: &[u8] = match pick(o.value(), &["date", "seconds", "ns"]) {
                    Some("date") => b"%Y-%m-%d",
                    Some("seconds") => b"%Y-%m-%d %H:%M:%S%:z",
                    Some(_) => b"%Y-%m-%d %H:%M:%S.%N%:z",
                    None => {
                        bad_arg(ctx, o.value(), "--rfc-3339", &["date", "seconds", "ns"]);
                        return Ok(1);
                    }
                };
                if format.is_some() {
                    return Ok(multiple_formats(ctx));
                }
                format = Some(fmt.to_vec());
            }
            "s" => set = true,
            "debug" => debug = true,
            "u" => utc = true,
            "help" => {
                ctx.stdout.extend_from_slice(HELP);
                return Ok(0);
            }
            "version" => {
                ctx.stdout.extend_from_slice(b"date (GNU coreutils) 9.1\n");
                return Ok(0);
            }
            _ => {}
        }
    }
    if let Some(msg) = bad_option {
        usage_error(ctx.stderr, "date", &msg);
        return Ok(1);
    }
    if sources > 1 {
        usage_error(
            ctx.stderr,
            "date",
            "the options to specify dates for printing are mutually exclusive",
        );
        return Ok(1);
    }
    if set && sources > 0 {
        usage_error(
            ctx.stderr,
            "date",
            "the options to print and set the time may not be used together",
        );
        return Ok(1);
    }
    let mut operands = parsed.operands.iter();
    if let Some(op) = operands.next() {
        if let Some(extra) = operands.next() {
            let msg = format!("extra operand {}", quote_str(extra));
            usage_error(ctx.stderr, "date", &msg);
            return Ok(1);
        }
        if let Some(f) = op.strip_prefix(b"+") {
            if format.is_some() {
                return Ok(multiple_formats(ctx));
            }
            format = Some(f.to_vec());
        } else if set || sources > 0 {
            let msg = format!(
                "the argument {} lacks a leading '+';\nwhen using an option to specify \
                 date(s), any non-option\nargument must be a format string beginning with '+'",
                quote_str(op)
            );
            usage_error(ctx.stderr, "date", &msg);
            return Ok(1);
        } else {
            set = true;
        }
    }
    if let Some(file) = reference {
        let msg = format!("date: {}: No such file or directory\n", show(&file));
        ctx.stderr.extend_from_slice(msg.as_bytes());
        return Ok(1);
    }
    if set {
        // There is no clock to set here.
        ctx.stderr
            .extend_from_slice(b"date: cannot set date: Operation not permitted\n");
        return Ok(1);
    }
    let env_tz: Option<Vec<u8>> = if utc {
        Some(b"UTC0".to_vec())
    } else {
        ctx.io.vars.get(b"TZ").map(<[u8]>::to_vec)
    };
    let env_tz = env_tz.as_deref();
    let zone = Zone::from_tz(env_tz);
    // The resolution is shown as a moment one tick after the epoch: "%s.%N" unless a
    // format is given.
    let default: &[u8] = if matches!(source, Source::Resolution) {
        b"%s.%N"
    } else {
        DEFAULT_FORMAT
    };
    let format = format.unwrap_or_else(|| default.to_vec());
    let now = ctx.io.host.now();
    let now = (now.secs, now.nanos);
    match source {
        Source::Resolution | Source::Now => {
            if debug {
                debug::output_format(ctx.stderr, &format);
            }
            let m = if matches!(source, Source::Now) {
                now
            } else {
                (0, 1)
            };
            show_moment(ctx, m, &zone, &format)
        }
        Source::Date(s) => {
            ctx.io.budget.spend(STEPS_PER_DATE)?;
            ctx.io.budget.spend((s.len() as u64).div_ceil(16))?;
            match parse_date(ctx, &s, &s, now, &zone, env_tz, debug, &format) {
                Some(m) => show_moment(ctx, m, &zone, &format),
                None => {
                    invalid(ctx, &s);
                    Ok(1)
                }
            }
        }
        Source::File(name) => {
            let data = match ctx.open(&name).await? {
                Ok(d) => d,
                Err(reason) => {
                    let msg = format!("date: {}: {reason}\n", show(&name));
                    ctx.stderr.extend_from_slice(msg.as_bytes());
                    return Ok(1);
                }
            };
            let mut status = 0;
            let mut rest: &[u8] = &data;
            while !rest.is_empty() {
                // --debug shows the line as read, with its newline.
                let (line, whole, next) = match rest.iter().position(|&b| b == b'\n') {
                    Some(p) => (&rest[..p], &rest[..p + 1], &rest[p + 1..]),
                    None => (rest, rest, &b""[..]),
                };
                rest = next;
                ctx.io.budget.spend(STEPS_PER_DATE)?;
                ctx.io.budget.spend((line.len() as u64).div_ceil(16))?;
                match parse_date(ctx, line, whole, now, &zone, env_tz, debug, &format) {
                    Some(m) => {
                        if show_moment(ctx, m, &zone, &format)? != 0 {
                            status = 1;
                        }
                    }
                    None => {
                        invalid(ctx, line);
                        status = 1;
                    }
                }
            }
            Ok(status)
        }
    }
}

/// Parses a date string; with --debug, the notes go to stderr (`whole` is the string as
/// they show it), and the output format after a date that parses.
#[allow(clippy::too_many_arguments)]
fn parse_date(
    ctx: &mut Ctx<'_>,
    s: &[u8],
    whole: &[u8],
    now: (i64, u32),
    zone: &Zone,
    env_tz: Option<&[u8]>,
    debug: bool,
    format: &[u8],
) -> Option<(i64, u32)> {
    if !debug {
        return parse::parse(s, now, zone);
    }
    let mut trace = debug::Trace::new(env_tz);
    let m = parse::parse_traced(whole, now, zone, Some(&mut trace));
    trace.write(ctx.stderr);
    if m.is_some() {
        debug::output_format(ctx.stderr, format);
    }
    m
}

fn show_moment(ctx: &mut Ctx<'_>, m: (i64, u32), zone: &Zone, format: &[u8]) -> Result<Status> {
    ctx.io.budget.spend(STEPS_PER_DATE)?;
    let Some((tm, _)) = zone.localtime(m.0, m.1) else {
        let msg = format!("date: time '{}' is out of range\n", m.0);
        ctx.stderr.extend_from_slice(msg.as_bytes());
        return Ok(1);
    };
    let before = ctx.stdout.len();
    format::format(format, &tm, ctx.stdout, ctx.io.budget)?;
    ctx.stdout.push(b'\n');
    ctx.io.budget.spend_bytes(ctx.stdout.len() - before)?;
    Ok(0)
}

fn multiple_formats(ctx: &mut Ctx<'_>) -> Status {
    ctx.stderr
        .extend_from_slice(b"date: multiple output formats specified\n");
    1
}

fn invalid(ctx: &mut Ctx<'_>, s: &[u8]) {
    let msg = format!("date: invalid date {}\n", quote_str(s));
    ctx.stderr.extend_from_slice(msg.as_bytes());
}

/// The one argument of `choices` that `v` names or abbreviates uniquely, as GNU's argmatch.
fn pick<'a>(v: &[u8], choices: &[&'a str]) -> Option<&'a str> {
    if v.is_empty() {
        return None;
    }
    if let Some(c) = choices.iter().find(|c| c.as_bytes() == v) {
        return Some(c);
    }
    let mut found = choices.iter().filter(|c| c.as_bytes().starts_with(v));
    let first = found.next()?;
    found.next().is_none().then_some(*first)
}

fn bad_arg(ctx: &mut Ctx<'_>, v: &[u8], opt: &str, choices: &[&str]) {
    let mut msg = format!(
        "date: invalid argument {} for '{opt}'\nValid arguments are:\n",
        quote_str(v)
    );
    for c in choices {
        msg.push_str(&format!("  - '{c}'\n"));
    }
    msg.push_str("Try 'date --help' for more information.\n");
    ctx.stderr.extend_from_slice(msg.as_bytes());
}

fn show(s: &[u8]) -> String {
    String::from_utf8_lossy(s).into_owned()
}

const HELP: &[u8] = b"Usage: date [OPTION]... [+FORMAT]
  or:  date [-u|--utc|--universal] [MMDDhhmm[[CC]YY][.ss]]
Display date and time in the given FORMAT.

  -d, --date=STRING          display time described by STRING, not 'now'
  -f, --file=DATEFILE        like --date; once for each line of DATEFILE
  -I[FMT], --iso-8601[=FMT]  output date/time in ISO 8601 format.
                               FMT='date' for date only (the default),
                               'hours', 'minutes', 'seconds', or 'ns'
                               for date and time to the indicated precision.
  -R, --rfc-email            output date and time in RFC 5322 format.
      --rfc-3339=FMT         output date/time in RFC 3339 format.
                               FMT='date', 'seconds', or 'ns'
  -u, --utc, --universal     print Coordinated Universal Time (UTC)
";

#[cfg(test)]
mod tests;
