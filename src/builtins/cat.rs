//! `cat`: concatenates its operands, optionally numbering lines and showing nonprinting
//! bytes; spends 1 step per 64 bytes read and 1 per 64 bytes written. It writes each
//! chunk as it comes (plain `cat` hands the chunk itself on).

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::quote::quote_name;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "AbeEnstTuv",
    long: &[
        // In GNU's order, which its "ambiguous" message lists.
        long("number-nonblank", Arg::No, Some('b')),
        long("number", Arg::No, Some('n')),
        long("squeeze-blank", Arg::No, Some('s')),
        long("show-nonprinting", Arg::No, Some('v')),
        long("show-ends", Arg::No, Some('E')),
        long("show-tabs", Arg::No, Some('T')),
        long("show-all", Arg::No, Some('A')),
    ],
    stop_at_operand: false,
};

#[derive(Default, Clone, Copy)]
struct Options {
    number: bool,
    number_nonblank: bool,
    show_ends: bool,
    show_nonprinting: bool,
    show_tabs: bool,
    squeeze: bool,
}

impl Options {
    fn plain(&self) -> bool {
        !(self.number
            || self.number_nonblank
            || self.show_ends
            || self.show_nonprinting
            || self.show_tabs
            || self.squeeze)
    }
}

/// What carries over from one operand to the next, as GNU cat keeps it.
struct State {
    line: u64,
    at_line_start: bool,
    prev_blank: bool,
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "cat", &msg);
            return Ok(1);
        }
    };
    let mut o = Options::default();
    for opt in &parsed.opts {
        match opt.key {
            "A" => {
                o.show_nonprinting = true;
                o.show_ends = true;
                o.show_tabs = true;
            }
            "b" => o.number_nonblank = true,
            "e" => {
                o.show_nonprinting = true;
                o.show_ends = true;
            }
            "E" => o.show_ends = true,
            "n" => o.number = true,
            "s" => o.squeeze = true,
            "t" => {
                o.show_nonprinting = true;
                o.show_tabs = true;
            }
            "T" => o.show_tabs = true,
            "v" => o.show_nonprinting = true,
            _ => {}
        }
    }
    if o.number_nonblank {
        o.number = false;
    }
    let operands = if parsed.operands.is_empty() {
        vec![b"-".to_vec()]
    } else {
        parsed.operands
    };
    let mut state = State {
        line: 0,
        at_line_start: true,
        prev_blank: false,
    };
    let mut status = 0;
    for name in &operands {
        let input = match ctx.open_stream(name).await? {
            Ok(input) => input,
            Err(reason) => {
                let msg = format!("cat: {}: {reason}\n", quote_name(name));
                ctx.stderr.extend_from_slice(msg.as_bytes());
                status = 1;
                continue;
            }
        };
        let mut read = ByteMeter::default();
        let mut written = ByteMeter::default();
        // With -E a CR that ends a chunk waits for the next one: it may be half of a CRLF.
        let mut cr: Option<u8> = None;
        while let Some(mut chunk) = input.read().await? {
            read.add(ctx.io.budget, chunk.len())?;
            let before = ctx.stdout.len();
            if o.plain() {
                if ctx.stdout.is_empty() {
                    *ctx.stdout = chunk;
                } else {
                    ctx.stdout.extend_from_slice(&chunk);
                }
            } else {
                if let Some(b) = cr.take() {
                    chunk.insert(0, b);
                }
                if o.show_ends && chunk.last() == Some(&b'\r') {
                    cr = chunk.pop();
                }
                format(&chunk, &o, &mut state, ctx.stdout);
            }
            written.add(ctx.io.budget, ctx.stdout.len() - before)?;
            ctx.flush_some().await?;
        }
        if let Some(b) = cr {
            let before = ctx.stdout.len();
            format(&[b], &o, &mut state, ctx.stdout);
            written.add(ctx.io.budget, ctx.stdout.len() - before)?;
        }
        read.finish(ctx.io.budget)?;
        written.finish(ctx.io.budget)?;
    }
    Ok(status)
}

fn format(data: &[u8], o: &Options, st: &mut State, out: &mut Vec<u8>) {
    let mut rest = data;
    while !rest.is_empty() {
        let (line, has_nl) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], true),
            None => (rest, false),
        };
        rest = &rest[line.len() + usize::from(has_nl)..];
        if st.at_line_start {
            let blank = line.is_empty();
            if blank && o.squeeze && st.prev_blank {
                continue;
            }
            st.prev_blank = blank;
            if o.number || (o.number_nonblank && !blank) {
                st.line = st.line.saturating_add(1);
                number(out, st.line);
            }
        }
        // GNU 9.1 `-E` shows the CR of a CRLF line end as `^M$`.
        let crlf = has_nl && o.show_ends && line.last() == Some(&b'\r');
        let body = if crlf { &line[..line.len() - 1] } else { line };
        if o.show_nonprinting || o.show_tabs {
            // Runs of printable ASCII go out as they are.
            let mut rest = body;
            while !rest.is_empty() {
                let run = rest
                    .iter()
                    .position(|&b| !(0x20..0x7f).contains(&b))
                    .unwrap_or(rest.len());
                out.extend_from_slice(&rest[..run]);
                if let Some(&b) = rest.get(run) {
                    show(b, o, out);
                    rest = &rest[run + 1..];
                } else {
                    break;
                }
            }
        } else {
            out.extend_from_slice(body);
        }
        if has_nl {
            if crlf {
                out.extend_from_slice(b"^M");
            }
            if o.show_ends {
                out.push(b'$');
            }
            out.push(b'\n');
        }
        st.at_line_start = has_nl;
    }
}

/// `%6d\t`, without the formatting machinery.
fn number(out: &mut Vec<u8>, n: u64) {
    let mut digits = [b' '; 20];
    let mut i = digits.len();
    let mut v = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let start = i.min(digits.len() - 6);
    out.extend_from_slice(&digits[start..]);
    out.push(b'\t');
}

/// One byte as `cat -v`/`-T` shows it: `^X` for controls, `M-` for the high half.
fn show(b: u8, o: &Options, out: &mut Vec<u8>) {
    if b == b'\t' {
        if o.show_tabs {
            out.extend_from_slice(b"^I");
        } else {
            out.push(b);
        }
        return;
    }
    if !o.show_nonprinting {
        out.push(b);
        return;
    }
    let low = if b >= 128 {
        out.extend_from_slice(b"M-");
        b - 128
    } else {
        b
    };
    match low {
        0..=31 => {
            out.push(b'^');
            out.push(low + 64);
        }
        127 => out.extend_from_slice(b"^?"),
        _ => out.push(low),
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    #[test]
    fn plain_and_stdin() {
        let r = run(&["cat"], b"abc").unwrap();
        assert_eq!(r.stdout, b"abc");
        let r = run(&["cat", "-", "-"], b"a").unwrap();
        assert_eq!(r.stdout, b"a");
    }

    #[test]
    fn missing_operand_continues() {
        let r = run(&["cat", "-n", "-", "nonexist"], b"x\n").unwrap();
        assert_eq!(r.stdout_str(), "     1\tx\n");
        assert_eq!(r.stderr_str(), "cat: nonexist: No such file or directory\n");
        assert_eq!(r.status, 1);
    }

    #[test]
    fn show_all() {
        // GNU: printf '\t\x80\xff\x7f\x00\x1b' | cat -A
        let r = run(&["cat", "-A"], b"\t\x80\xff\x7f\x00\x1b\n").unwrap();
        assert_eq!(r.stdout_str(), "^IM-^@M-^?^?^@^[$\n");
    }

    #[test]
    fn squeeze_and_number() {
        let r = run(&["cat", "-bs"], b"\n\n\n").unwrap();
        assert_eq!(r.stdout, b"\n");
        let r = run(&["cat", "-sn"], b"a\n\n\n\nb").unwrap();
        assert_eq!(r.stdout_str(), "     1\ta\n     2\t\n     3\tb");
    }

    #[test]
    fn wide_numbers() {
        let mut out = Vec::new();
        super::number(&mut out, 1);
        super::number(&mut out, 1234567);
        assert_eq!(out, b"     1\t1234567\t");
    }

    #[test]
    fn bad_option() {
        let r = run(&["cat", "-x"], b"").unwrap();
        assert_eq!(r.status, 1);
        assert_eq!(
            r.stderr_str(),
            "cat: invalid option -- 'x'\nTry 'cat --help' for more information.\n"
        );
    }
}
