//! `expand`: turns tabs into spaces, as GNU expand in the C locale (`-t N`, `-t LIST`
//! with a last `/N` or `+N`, `-i`, obsolete `-N`). Spends 1 step per line plus 1 per 64
//! bytes of input. It expands each chunk as it comes.

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::operands;
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "it:0123456789",
    long: &[
        long("initial", Arg::No, Some('i')),
        long("tabs", Arg::Required, Some('t')),
    ],
    stop_at_operand: false,
};

/// Tab stops: explicit columns, then every `repeat` (from 0, or from the last stop).
#[derive(Debug, Clone, Default)]
pub struct Stops {
    list: Vec<u64>,
    every: Option<u64>,
    relative: bool,
}

impl Stops {
    /// The column the next tab moves to from `col`.
    pub fn next(&self, col: u64) -> u64 {
        if self.list.len() == 1 && self.every.is_none() {
            let n = self.list[0];
            return (col / n + 1) * n;
        }
        if let Some(&s) = self.list.iter().find(|&&s| s > col) {
            return s;
        }
        match self.every {
            Some(n) if n > 0 => {
                let base = if self.relative {
                    self.list.last().copied().unwrap_or(0)
                } else {
                    0
                };
                if col < base {
                    return base;
                }
                base + ((col - base) / n + 1) * n
            }
            _ => col + 1,
        }
    }
}

/// Adds a list like `3,5,/8` to the stops.
pub fn parse_stops(v: &[u8], stops: &mut Stops) -> std::result::Result<(), String> {
    let mut i = 0;
    while i < v.len() {
        let c = v[i];
        if c == b',' || c == b' ' || c == b'\t' {
            i += 1;
            continue;
        }
        let mut prefix = None;
        if c == b'/' || c == b'+' {
            prefix = Some(c);
            i += 1;
        }
        let len = v[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if len == 0 {
            return Err(format!(
                "tab size contains invalid character(s): {}",
                quote_str(&v[i.min(v.len())..])
            ));
        }
        let n = v[i..i + len].iter().fold(0u64, |n, &d| {
            n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
        });
        i += len;
        if n == 0 && prefix.is_none() {
            return Err("tab size cannot be 0".into());
        }
        match prefix {
            // `/0` and `+0` add nothing.
            Some(_) if n == 0 => {}
            Some(p) => {
                stops.every = Some(n);
                stops.relative = p == b'+';
            }
            None => {
                if stops.list.last().is_some_and(|&l| l >= n) {
                    return Err("tab sizes must be ascending".into());
                }
                stops.list.push(n);
            }
        }
    }
    Ok(())
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "expand", &msg);
            return Ok(1);
        }
    };
    let mut stops = Stops::default();
    let mut initial = false;
    let mut digits = Vec::new();
    let mut prev_digit = false;
    for o in &parsed.opts {
        let is_digit = o.key.len() == 1 && o.key.as_bytes()[0].is_ascii_digit();
        if !is_digit && prev_digit {
            if let Err(m) = parse_stops(&digits, &mut stops) {
                return fail(ctx, &m);
            }
            digits.clear();
        }
        prev_digit = is_digit;
        match o.key {
            "i" => initial = true,
            "t" => {
                if let Err(m) = parse_stops(o.value(), &mut stops) {
                    return fail(ctx, &m);
                }
            }
            d => {
                if !digits.is_empty() && !prev_digit {
                    digits.push(b',');
                }
                digits.extend_from_slice(d.as_bytes());
            }
        }
    }
    if !digits.is_empty() {
        if let Err(m) = parse_stops(&digits, &mut stops) {
            return fail(ctx, &m);
        }
    }
    if stops.list.is_empty() && stops.every.is_none() {
        stops.list.push(8);
    }
    let mut status = 0;
    for name in operands::or_stdin(&parsed.operands) {
        let Some(input) = operands::open_stream(ctx, "expand", &name).await? else {
            status = 1;
            continue;
        };
        let mut at = Column {
            col: 0,
            leading: true,
        };
        let mut meter = ByteMeter::default();
        while let Some(chunk) = input.read().await? {
            meter.add(ctx.io.budget, chunk.len())?;
            expand(ctx, &stops, initial, &chunk, &mut at)?;
            ctx.flush_some().await?;
        }
        meter.finish(ctx.io.budget)?;
    }
    Ok(status)
}

/// Where a line stands, from one chunk to the next: its column, and whether only blanks
/// came before (for `-i`).
struct Column {
    col: u64,
    leading: bool,
}

/// Expands the tabs of `data`: 1 step per line, and 1 per 64 spaces a tab becomes.
fn expand(
    ctx: &mut Ctx<'_>,
    stops: &Stops,
    initial: bool,
    data: &[u8],
    at: &mut Column,
) -> Result<()> {
    let out = &mut *ctx.stdout;
    let Column {
        mut col,
        mut leading,
    } = *at;
    for &c in data.iter() {
        match c {
            b'\t' if !initial || leading => {
                let next = stops.next(col);
                ctx.io.budget.spend_bytes((next - col) as usize)?;
                out.resize(out.len() + (next - col) as usize, b' ');
                col = next;
                continue;
            }
            b'\n' => {
                ctx.io.budget.spend(1)?;
                col = 0;
                leading = true;
                out.push(c);
                continue;
            }
            8 => col = col.saturating_sub(1),
            _ => col += 1,
        }
        if c != b' ' && c != b'\t' {
            leading = false;
        }
        out.push(c);
    }
    *at = Column { col, leading };
    Ok(())
}

fn fail(ctx: &mut Ctx<'_>, msg: &str) -> Result<Status> {
    ctx.stderr
        .extend_from_slice(format!("expand: {msg}\n").as_bytes());
    Ok(1)
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn expand(args: &[&str], stdin: &str) -> (String, i32) {
        let mut argv = vec!["expand"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.stdout_str(), r.status)
    }

    // Expected values from GNU expand 9.1.
    #[test]
    fn stops() {
        assert_eq!(expand(&[], "a\tb\n").0, "a       b\n");
        assert_eq!(expand(&["-t", "3,5"], "a\tb\tc\td\n").0, "a  b c d\n");
        assert_eq!(expand(&["-t", "3,/5"], "a\tb\tc\td\n").0, "a  b c    d\n");
        assert_eq!(expand(&["-i", "-t2"], "\ta\tb\n").0, "  a\tb\n");
        assert_eq!(expand(&["-t", "0"], "").1, 1);
        assert_eq!(expand(&["-t", "5,3"], "").1, 1);
    }
}
