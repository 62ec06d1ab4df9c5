//! `tac`: prints records in reverse order, as GNU tac: `-s SEP` (empty means NUL), `-b`
//! (separators before records), `-r` (SEP is a regular expression, in GNU's default
//! Emacs syntax, searched backwards). Spends 1 step per record plus 1 per 64 bytes.

use memchr::memmem;

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::operands;
use crate::builtins::common::regex::{Dialect, Options, Regex, Syntax};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "brs:",
    long: &[
        long("before", Arg::No, Some('b')),
        long("regex", Arg::No, Some('r')),
        long("separator", Arg::Required, Some('s')),
    ],
    stop_at_operand: false,
};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "tac", &msg);
            return Ok(1);
        }
    };
    let (mut before, mut regex, mut sep) = (false, false, b"\n".to_vec());
    for o in &parsed.opts {
        match o.key {
            "b" => before = true,
            "r" => regex = true,
            _ => sep = o.value().to_vec(),
        }
    }
    if sep.is_empty() {
        // GNU: an empty string separates at NUL bytes, an empty regex is refused.
        if regex {
            ctx.stderr
                .extend_from_slice(b"tac: separator cannot be empty\n");
            return Ok(1);
        }
        sep = vec![0];
    }
    let re = if regex {
        let opts = Options {
            syntax: Syntax {
                extended: true,
                icase: false,
                dialect: Dialect::Grep,
            },
            multiline: true,
        };
        match Regex::new(&emacs_to_ere(&sep), opts) {
            Ok(r) => Some(r),
            Err(e) => {
                let msg = format!("tac: {}\n", e.message());
                ctx.stderr.extend_from_slice(msg.as_bytes());
                return Ok(1);
            }
        }
    } else {
        None
    };
    let mut status = 0;
    for name in operands::or_stdin(&parsed.operands) {
        let Some(data) = open(ctx, &name).await? else {
            status = 1;
            continue;
        };
        ctx.io.budget.spend_bytes(data.len())?;
        let seps = match &re {
            Some(re) => regex_separators(ctx, re, &data)?,
            None => plain_separators(&data, &sep),
        };
        ctx.io.budget.spend(seps.len() as u64 + 1)?;
        write_reversed(ctx.stdout, &data, &seps, before);
    }
    Ok(status)
}

/// Opens an operand with tac's complaint.
async fn open(ctx: &mut Ctx<'_>, name: &[u8]) -> Result<Option<crate::builtins::Bytes>> {
    match ctx.open(name).await? {
        Ok(b) => Ok(Some(b)),
        Err(reason) => {
            let msg = format!(
                "tac: failed to open {} for reading: {reason}\n",
                crate::builtins::common::quote::quote_name_always(name)
            );
            ctx.stderr.extend_from_slice(msg.as_bytes());
            Ok(None)
        }
    }
}

/// Separators found from the end backwards, each searched before the previous one;
/// returned in increasing order.
fn plain_separators(data: &[u8], sep: &[u8]) -> Vec<(usize, usize)> {
    let mut seps = Vec::new();
    let mut limit = data.len();
    if sep.len() == 1 {
        for at in memchr::memrchr_iter(sep[0], data) {
            seps.push((at, at + 1));
        }
    } else {
        let finder = memmem::FinderRev::new(sep);
        while let Some(at) = finder.rfind(&data[..limit]) {
            seps.push((at, at + sep.len()));
            limit = at;
        }
    }
    seps.reverse();
    seps
}

/// The same with a regular expression: the rightmost match that ends before the previous
/// separator, empty matches not counting.
fn regex_separators(ctx: &mut Ctx<'_>, re: &Regex, data: &[u8]) -> Result<Vec<(usize, usize)>> {
    let mut seps = Vec::new();
    let mut limit = data.len();
    while limit > 0 {
        let hay = &data[..limit];
        let mut window = 256usize;
        let found = loop {
            let from = limit.saturating_sub(window);
            let mut pos = from;
            let mut last = None;
            while let Some((s, e)) = re.find_at(hay, pos, ctx.io.budget)? {
                if e > s {
                    last = Some((s, e));
                }
                pos = s + 1;
                if pos > limit {
                    break;
                }
            }
            if last.is_some() || from == 0 {
                break last;
            }
            window = window.saturating_mul(4);
        };
        match found {
            Some((s, e)) => {
                seps.push((s, e));
                limit = s;
            }
            None => break,
        }
    }
    seps.reverse();
    Ok(seps)
}

fn write_reversed(out: &mut Vec<u8>, data: &[u8], seps: &[(usize, usize)], before: bool) {
    if before {
        // Records start at separators: [sep_i.start, sep_{i+1}.start).
        let mut end = data.len();
        for &(s, _) in seps.iter().rev() {
            out.extend_from_slice(&data[s..end]);
            end = s;
        }
        out.extend_from_slice(&data[..end]);
    } else {
        // Records end after separators: [sep_{i-1}.end, sep_i.end).
        let tail_start = seps.last().map_or(0, |&(_, e)| e);
        out.extend_from_slice(&data[tail_start..]);
        let mut end = tail_start;
        for i in (0..seps.len()).rev() {
            let start = if i == 0 { 0 } else { seps[i - 1].1 };
            out.extend_from_slice(&data[start..end]);
            end = start;
        }
    }
}

/// GNU tac's regex syntax is Emacs's: `\( \) \|` group and alternate, `( ) | { }` are
/// plain, `* + ?` repeat. Rewritten as a POSIX extended expression.
fn emacs_to_ere(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len() + 8);
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        match c {
            b'[' => {
                // Copy a bracket expression whole.
                let start = i;
                i += 1;
                if p.get(i) == Some(&b'^') {
                    i += 1;
                }
                if p.get(i) == Some(&b']') {
                    i += 1;
                }
                while i < p.len() && p[i] != b']' {
                    i += 1;
                }
                let end = (i + 1).min(p.len());
                // Emacs brackets know no `[:class:]`: a `[` inside is a plain byte, moved
                // to the end so that the POSIX parser does not read a class.
                let body = &p[start..end];
                let inner_end = if body.ends_with(b"]") && body.len() > 1 {
                    body.len() - 1
                } else {
                    body.len()
                };
                let mut lead = 1;
                if body.get(lead) == Some(&b'^') {
                    lead += 1;
                }
                if body.get(lead) == Some(&b']') {
                    lead += 1;
                }
                let inner = &body[lead.min(inner_end)..inner_end];
                if inner.contains(&b'[') && body.ends_with(b"]") {
                    out.extend_from_slice(&body[..lead.min(inner_end)]);
                    out.extend(inner.iter().filter(|&&c| c != b'['));
                    out.extend_from_slice(b"[]");
                } else {
                    out.extend_from_slice(body);
                }
                i = end;
                continue;
            }
            b'\\' => match p.get(i + 1) {
                Some(b'(') => out.push(b'('),
                Some(b')') => out.push(b')'),
                Some(b'|') => out.push(b'|'),
                Some(b'{') => out.extend_from_slice(b"\\{"),
                Some(b'}') => out.extend_from_slice(b"\\}"),
                Some(&n) => {
                    out.push(b'\\');
                    out.push(n);
                }
                None => out.extend_from_slice(b"\\\\"),
            },
            b'(' | b')' | b'|' | b'{' | b'}' => {
                out.push(b'\\');
                out.push(c);
            }
            _ => {
                out.push(c);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn tac(args: &[&str], stdin: &[u8]) -> Vec<u8> {
        let mut argv = vec!["tac"];
        argv.extend_from_slice(args);
        run(&argv, stdin).unwrap().stdout
    }

    // Expected values from GNU tac 9.1.
    #[test]
    fn records() {
        assert_eq!(tac(&[], b"a\nb\nc\n"), b"c\nb\na\n");
        assert_eq!(tac(&[], b"a\nb\nc"), b"cb\na\n");
        assert_eq!(tac(&["-b"], b"a\nb\nc\n"), b"\n\nc\nba");
        assert_eq!(tac(&["-s", "::"], b"a:::b"), b"ba:::");
        assert_eq!(tac(&["-s", ""], b"a\0b\0"), b"b\0a\0");
        assert_eq!(tac(&["-r", "-s", "[0-9]+"], b"a1b22c"), b"c2b2a1");
        assert_eq!(tac(&["-r", "-s", "\\(1\\|2\\)"], b"a1b2"), b"b2a1");
        assert_eq!(tac(&["-r", "-s", "("], b"a(b)c"), b"b)ca(");
        assert_eq!(tac(&["-r", "-s", "X*"], b"aXbXc"), b"cbXaX");
    }
}
