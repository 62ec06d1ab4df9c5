//! `uniq`: drops (or counts, or shows only) repeated adjacent lines, as GNU uniq in the C
//! locale. Spends 1 step per line plus 1 per 64 bytes of input. It reads lines as they
//! come and keeps only the current group's first and last line.

use memchr::memchr;

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::lines::LineBlocks;
use crate::builtins::common::operands;
use crate::builtins::common::quote::{quote_name, quote_str};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "0123456789cdDf:is:uw:z",
    long: &[
        long("all-repeated", Arg::Optional, Some('D')),
        long("check-chars", Arg::Required, Some('w')),
        long("count", Arg::No, Some('c')),
        long("group", Arg::Optional, None),
        long("ignore-case", Arg::No, Some('i')),
        long("repeated", Arg::No, Some('d')),
        long("skip-chars", Arg::Required, Some('s')),
        long("skip-fields", Arg::Required, Some('f')),
        long("unique", Arg::No, Some('u')),
        long("zero-terminated", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delimit {
    None,
    Prepend,
    Separate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Separate,
    Prepend,
    Append,
    Both,
}

struct Opts {
    count: bool,
    /// Print lines that have no repeat.
    uniques: bool,
    /// Print (one of) lines that have repeats.
    repeats: bool,
    all_repeated: Option<Delimit>,
    group: Option<Group>,
    skip_fields: usize,
    skip_chars: usize,
    check_chars: Option<usize>,
    ignore_case: bool,
    eol: u8,
}

/// A message, and whether GNU adds its "Try ... --help" line.
type Fail = (String, bool);

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let (o, operands) = match parse_args(&args[1..]) {
        Ok(v) => v,
        Err((msg, usage)) => {
            if usage {
                usage_error(ctx.stderr, "uniq", &msg);
            } else {
                ctx.stderr
                    .extend_from_slice(format!("uniq: {msg}\n").as_bytes());
            }
            return Ok(1);
        }
    };
    if let Some(out) = operands.get(1) {
        if out != b"-" {
            let msg = format!("uniq: {}: Read-only file system\n", quote_name(out));
            ctx.stderr.extend_from_slice(msg.as_bytes());
            return Ok(1);
        }
    }
    let input = operands.first().cloned().unwrap_or_else(|| b"-".to_vec());
    let Some(input) = operands::open_stream(ctx, "uniq", &input).await? else {
        return Ok(1);
    };
    let mut groups = Groups {
        o: &o,
        first: Vec::new(),
        last: Vec::new(),
        size: 0,
        first_group: true,
    };
    let mut meter = ByteMeter::default();
    let mut blocks = LineBlocks::new(input, o.eol);
    while let Some(block) = blocks.next().await? {
        meter.add(ctx.io.budget, block.len())?;
        let mut rest: &[u8] = &block;
        while !rest.is_empty() {
            ctx.io.budget.spend(1)?;
            let end = memchr(o.eol, rest).unwrap_or(rest.len());
            groups.line(&rest[..end], ctx.stdout);
            rest = rest.get(end + 1..).unwrap_or(&[]);
        }
        ctx.flush_some().await?;
    }
    meter.finish(ctx.io.budget)?;
    groups.finish(ctx.stdout);
    Ok(0)
}

/// The group of equal lines being read: its first line (what the next line is compared
/// with, and what is printed for it), its last one (for `-D`), and how many it has.
/// Lines that `-D` and `--group` print go out as they come, so a group may be any size.
struct Groups<'o> {
    o: &'o Opts,
    first: Vec<u8>,
    last: Vec<u8>,
    size: u64,
    first_group: bool,
}

impl Groups<'_> {
    fn line(&mut self, line: &[u8], out: &mut Vec<u8>) {
        let o = self.o;
        if self.size > 0 && same(field(&self.first, o), field(line, o), o.ignore_case) {
            self.size += 1;
            self.joined(line, out);
        } else {
            if self.size > 0 {
                self.end(out);
            }
            self.start(line, out);
        }
    }

    fn start(&mut self, line: &[u8], out: &mut Vec<u8>) {
        let o = self.o;
        self.size = 1;
        self.first.clear();
        self.first.extend_from_slice(line);
        if let Some(g) = o.group {
            let before = match g {
                Group::Prepend | Group::Both => true,
                Group::Separate | Group::Append => !self.first_group,
            };
            if before {
                out.push(o.eol);
            }
            put_line(out, line, o.eol);
            self.first_group = false;
        } else if o.all_repeated.is_some() {
            self.last.clear();
            self.last.extend_from_slice(line);
        }
    }

    fn joined(&mut self, line: &[u8], out: &mut Vec<u8>) {
        let o = self.o;
        if o.group.is_some() {
            put_line(out, line, o.eol);
            return;
        }
        let Some(delimit) = o.all_repeated else {
            return;
        };
        if self.size == 2 {
            match delimit {
                Delimit::Prepend => out.push(o.eol),
                Delimit::Separate if !self.first_group => out.push(o.eol),
                _ => {}
            }
            self.first_group = false;
        }
        // The line before goes out now; the group's last one only at its end, for with
        // -u as well it is left out.
        put_line(out, &self.last, o.eol);
        self.last.clear();
        self.last.extend_from_slice(line);
    }

    fn end(&mut self, out: &mut Vec<u8>) {
        let o = self.o;
        if o.group.is_some() {
            return;
        }
        let repeated = self.size > 1;
        if o.all_repeated.is_some() {
            if repeated && o.repeats {
                put_line(out, &self.last, o.eol);
            }
        } else if (repeated && o.repeats) || (!repeated && o.uniques) {
            if o.count {
                out.extend_from_slice(format!("{:>7} ", self.size).as_bytes());
            }
            put_line(out, &self.first, o.eol);
        }
    }

    fn finish(mut self, out: &mut Vec<u8>) {
        if self.size == 0 {
            return;
        }
        self.end(out);
        if matches!(self.o.group, Some(Group::Append | Group::Both)) {
            out.push(self.o.eol);
        }
    }
}

fn put_line(out: &mut Vec<u8>, line: &[u8], eol: u8) {
    out.extend_from_slice(line);
    out.push(eol);
}

fn same(a: &[u8], b: &[u8], ignore_case: bool) -> bool {
    if ignore_case {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// The part of a line that is compared: after `-f` fields and `-s` bytes, at most `-w`.
fn field<'l>(line: &'l [u8], o: &Opts) -> &'l [u8] {
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n');
    let mut p = 0;
    for _ in 0..o.skip_fields {
        if p >= line.len() {
            break;
        }
        while p < line.len() && space(line[p]) {
            p += 1;
        }
        while p < line.len() && !space(line[p]) {
            p += 1;
        }
    }
    p = p.saturating_add(o.skip_chars).min(line.len());
    let rest = &line[p..];
    match o.check_chars {
        Some(w) => &rest[..w.min(rest.len())],
        None => rest,
    }
}

/// A count argument: too large is as large as can be.
fn count(v: &[u8]) -> Option<usize> {
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0usize, |n, &d| {
        n.saturating_mul(10).saturating_add(usize::from(d - b'0'))
    }))
}

fn parse_args(args: &[Vec<u8>]) -> std::result::Result<(Opts, Vec<Vec<u8>>), Fail> {
    let mut o = Opts {
        count: false,
        uniques: true,
        repeats: true,
        all_repeated: None,
        group: None,
        skip_fields: 0,
        skip_chars: 0,
        check_chars: None,
        ignore_case: false,
        eol: b'\n',
    };
    // The obsolete `+N` (skip N bytes) comes as an operand.
    let mut args: Vec<Vec<u8>> = args.to_vec();
    let mut digits_field: Option<usize> = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == b"--" {
            break;
        }
        if a.len() > 1 && a[0] == b'+' && a[1..].iter().all(u8::is_ascii_digit) {
            o.skip_chars = count(&a[1..]).unwrap_or(usize::MAX);
            args.remove(i);
            continue;
        }
        i += 1;
    }
    let parsed = SPEC.parse(&args).map_err(|m| (m, true))?;
    let mut last_was_digit = false;
    let mut group_or_mode = false;
    for opt in &parsed.opts {
        let v = opt.value();
        let is_digit = opt.key.len() == 1 && opt.key.as_bytes()[0].is_ascii_digit();
        if is_digit {
            // -N: skip N fields; digits of one run form one number.
            let d = usize::from(opt.key.as_bytes()[0] - b'0');
            let n = if last_was_digit {
                digits_field
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(d)
            } else {
                d
            };
            digits_field = Some(n);
            o.skip_fields = n;
            last_was_digit = true;
            continue;
        }
        last_was_digit = false;
        match opt.key {
            "c" => {
                o.count = true;
                group_or_mode = true;
            }
            "d" => {
                o.uniques = false;
                group_or_mode = true;
            }
            "u" => {
                o.repeats = false;
                group_or_mode = true;
            }
            "D" => {
                group_or_mode = true;
                o.all_repeated = Some(match v {
                    b"" => Delimit::None,
                    w if !w.is_empty() && b"none".starts_with(w) => Delimit::None,
                    w if !w.is_empty() && b"prepend".starts_with(w) => Delimit::Prepend,
                    w if !w.is_empty() && b"separate".starts_with(w) => Delimit::Separate,
                    _ => {
                        return Err((
                            format!(
                                "invalid argument {} for '--all-repeated'\nValid arguments are:\n  - 'none'\n  - 'prepend'\n  - 'separate'",
                                quote_str(v)
                            ),
                            true,
                        ))
                    }
                });
            }
            "group" => {
                o.group = Some(match v {
                    b"" => Group::Separate,
                    w if b"separate".starts_with(w) => Group::Separate,
                    w if b"prepend".starts_with(w) => Group::Prepend,
                    w if b"append".starts_with(w) => Group::Append,
                    w if b"both".starts_with(w) => Group::Both,
                    _ => {
                        return Err((
                            format!(
                                "invalid argument {} for '--group'\nValid arguments are:\n  - 'prepend'\n  - 'append'\n  - 'separate'\n  - 'both'",
                                quote_str(v)
                            ),
                            true,
                        ))
                    }
                });
            }
            "f" => {
                o.skip_fields = count(v).ok_or_else(|| {
                    (
                        format!(
                            "{}: invalid number of fields to skip",
                            String::from_utf8_lossy(v)
                        ),
                        false,
                    )
                })?
            }
            "s" => {
                o.skip_chars = count(v).ok_or_else(|| {
                    (
                        format!(
                            "{}: invalid number of bytes to skip",
                            String::from_utf8_lossy(v)
                        ),
                        false,
                    )
                })?
            }
            "w" => {
                o.check_chars = Some(count(v).ok_or_else(|| {
                    (
                        format!(
                            "{}: invalid number of bytes to compare",
                            String::from_utf8_lossy(v)
                        ),
                        false,
                    )
                })?)
            }
            "i" => o.ignore_case = true,
            "z" => o.eol = 0,
            _ => {}
        }
    }
    if o.group.is_some() && group_or_mode {
        return Err((
            "--group is mutually exclusive with -c/-d/-D/-u".into(),
            true,
        ));
    }
    if o.all_repeated.is_some() && o.count {
        return Err((
            "printing all duplicated lines and repeat counts is meaningless".into(),
            true,
        ));
    }
    if let Some(extra) = parsed.operands.get(2) {
        return Err((format!("extra operand {}", quote_str(extra)), true));
    }
    Ok((o, parsed.operands))
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn uniq(args: &[&str], stdin: &str) -> (String, i32) {
        let mut argv = vec!["uniq"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.stdout_str(), r.status)
    }

    const U1: &str = "a\na\nb\nc\nc\nc\nd";

    // Expected values from GNU uniq 9.1.
    #[test]
    fn modes() {
        assert_eq!(uniq(&[], U1).0, "a\nb\nc\nd\n");
        assert_eq!(
            uniq(&["-c"], U1).0,
            "      2 a\n      1 b\n      3 c\n      1 d\n"
        );
        assert_eq!(uniq(&["-d"], U1).0, "a\nc\n");
        assert_eq!(uniq(&["-u"], U1).0, "b\nd\n");
        assert_eq!(
            uniq(&["--all-repeated=prepend"], U1).0,
            "\na\na\n\nc\nc\nc\n"
        );
        assert_eq!(
            uniq(&["--group=both"], U1).0,
            "\na\na\n\nb\n\nc\nc\nc\n\nd\n\n"
        );
        assert_eq!(
            uniq(&["--group=append"], U1).0,
            "a\na\n\nb\n\nc\nc\nc\n\nd\n\n"
        );
        assert_eq!(uniq(&["-f", "1", "-c"], "a b\nc b\n").0, "      2 a b\n");
    }

    #[test]
    fn errors() {
        assert_eq!(uniq(&["-cD"], U1).1, 1);
        assert_eq!(uniq(&["--group", "-c"], U1).1, 1);
        assert_eq!(uniq(&["-f", "x"], U1).1, 1);
    }
}
