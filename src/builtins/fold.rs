//! `fold`: wraps lines at a width, as GNU fold in the C locale (columns: tab to the next
//! multiple of 8, backspace back one, carriage return to 0; `-b` counts bytes; `-s` breaks
//! after the last blank). Spends 1 step per line plus 1 per 64 bytes of input. It folds
//! each chunk as it comes.

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::operands;
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "bsw:0123456789",
    long: &[
        long("bytes", Arg::No, Some('b')),
        long("spaces", Arg::No, Some('s')),
        long("width", Arg::Required, Some('w')),
    ],
    stop_at_operand: false,
};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "fold", &msg);
            return Ok(1);
        }
    };
    let (mut bytes, mut spaces, mut width) = (false, false, 80usize);
    let mut digits: Option<Vec<u8>> = None;
    let mut prev_digit = false;
    for o in &parsed.opts {
        let digit = o.key.as_bytes()[0].is_ascii_digit() && o.key.len() == 1;
        if digit {
            // The obsolete -NUM: digits of one cluster make one number.
            let d = digits.get_or_insert_with(Vec::new);
            if !prev_digit {
                d.clear();
            }
            d.push(o.key.as_bytes()[0]);
            match parse_width(d) {
                Ok(w) => width = w,
                Err(msg) => return fail(ctx, &msg),
            }
            prev_digit = true;
            continue;
        }
        prev_digit = false;
        match o.key {
            "b" => bytes = true,
            "s" => spaces = true,
            _ => match parse_width(o.value()) {
                Ok(w) => width = w,
                Err(msg) => return fail(ctx, &msg),
            },
        }
    }
    let mut status = 0;
    for name in operands::or_stdin(&parsed.operands) {
        let Some(input) = operands::open_stream(ctx, "fold", &name).await? else {
            status = 1;
            continue;
        };
        let mut folder = Folder {
            width,
            bytes,
            spaces,
            line: Vec::new(),
            column: 0,
        };
        let mut meter = ByteMeter::default();
        while let Some(chunk) = input.read().await? {
            meter.add(ctx.io.budget, chunk.len())?;
            folder.fold(ctx, &chunk)?;
            ctx.flush_some().await?;
        }
        meter.finish(ctx.io.budget)?;
        ctx.stdout.extend_from_slice(&folder.line);
    }
    Ok(status)
}

fn fail(ctx: &mut Ctx<'_>, msg: &str) -> Result<Status> {
    ctx.stderr
        .extend_from_slice(format!("fold: {msg}\n").as_bytes());
    Ok(1)
}

fn parse_width(v: &[u8]) -> std::result::Result<usize, String> {
    let digits = operands::trim_start_blanks(v);
    let digits = digits.strip_prefix(b"+").unwrap_or(digits);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(format!("invalid number of columns: {}", quote_str(v)));
    }
    let mut n: u64 = 0;
    for &d in digits {
        n = match n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
        {
            Some(n) => n,
            None => {
                return Err(format!(
                    "invalid number of columns: {}: Value too large for defined data type",
                    quote_str(v)
                ))
            }
        };
    }
    if n == 0 {
        return Err(format!(
            "invalid number of columns: {}: Numerical result out of range",
            quote_str(v)
        ));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

fn advance(column: usize, c: u8, bytes: bool) -> usize {
    if bytes {
        return column + 1;
    }
    match c {
        8 => column.saturating_sub(1),
        b'\r' => 0,
        b'\t' => column + 8 - column % 8,
        _ => column + 1,
    }
}

/// The line being folded, kept from chunk to chunk (it is at most a width long).
struct Folder {
    width: usize,
    bytes: bool,
    spaces: bool,
    line: Vec<u8>,
    column: usize,
}

impl Folder {
    /// Folds `data`; 1 step per newline.
    fn fold(&mut self, ctx: &mut Ctx<'_>, data: &[u8]) -> Result<()> {
        let (width, bytes, spaces) = (self.width, self.bytes, self.spaces);
        let out = &mut *ctx.stdout;
        let line = &mut self.line;
        let mut column = self.column;
        for &c in data {
            if c == b'\n' {
                ctx.io.budget.spend(1)?;
                out.extend_from_slice(line);
                out.push(b'\n');
                line.clear();
                column = 0;
                continue;
            }
            loop {
                let next = advance(column, c, bytes);
                if next <= width {
                    column = next;
                    break;
                }
                if spaces {
                    if let Some(at) = line.iter().rposition(|&b| b == b' ' || b == b'\t') {
                        out.extend_from_slice(&line[..=at]);
                        out.push(b'\n');
                        line.drain(..=at);
                        column = line.iter().fold(0, |col, &b| advance(col, b, bytes));
                        continue;
                    }
                }
                if line.is_empty() {
                    column = next;
                    break;
                }
                out.extend_from_slice(line);
                out.push(b'\n');
                line.clear();
                column = 0;
            }
            line.push(c);
        }
        self.column = column;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn fold(args: &[&str], stdin: &str) -> (String, i32) {
        let mut argv = vec!["fold"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.stdout_str(), r.status)
    }

    // Expected values from GNU fold 9.1.
    #[test]
    fn widths() {
        assert_eq!(fold(&["-w", "3"], "abcdefghij\n").0, "abc\ndef\nghi\nj\n");
        assert_eq!(
            fold(&["-s", "-w", "5"], "ab cd ef gh\n").0,
            "ab \ncd \nef gh\n"
        );
        assert_eq!(fold(&["-w", "10"], "a\tb\tc\n").0, "a\tb\n\tc\n");
        assert_eq!(fold(&["-3"], "abcdef\n").0, "abc\ndef\n");
        assert_eq!(fold(&["-w", "2"], "ab\x08cd\n").0, "ab\x08c\nd\n");
        assert_eq!(fold(&["-w", "0"], "abc").1, 1);
    }
}
