//! `paste`: joins corresponding lines of its inputs (or, with `-s`, all lines of each
//! input), as GNU paste. Several `-` operands take stdin's lines in turn. Spends 1 step
//! per line plus 1 per 64 bytes of input. Every input is read as it comes, a block of
//! lines at a time.

use crate::budget::{Budget, ByteMeter};
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::lines::LineBlocks;
use crate::builtins::common::operands;
use crate::builtins::common::quote::quote_name;
use crate::builtins::Ctx;
use crate::error::{Result, Status};
use crate::stream::Stdin;

const SPEC: Spec = Spec {
    short: "d:sz",
    long: &[
        long("delimiters", Arg::Required, Some('d')),
        long("serial", Arg::No, Some('s')),
        long("zero-terminated", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

/// The delimiter list: each entry is one byte, or none (`\0`).
fn parse_delims(list: &[u8]) -> std::result::Result<Vec<Option<u8>>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let c = list[i];
        i += 1;
        if c != b'\\' {
            out.push(Some(c));
            continue;
        }
        let Some(&n) = list.get(i) else {
            return Err(format!(
                "delimiter list ends with an unescaped backslash: {}",
                String::from_utf8_lossy(list)
            ));
        };
        i += 1;
        out.push(match n {
            b'0' => None,
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            other => Some(other),
        });
    }
    if out.is_empty() {
        out.push(None);
    }
    Ok(out)
}

/// The lines of one input, read one at a time as the input comes; its bytes are paid
/// for as they are read.
struct Lines {
    blocks: LineBlocks,
    block: Vec<u8>,
    pos: usize,
    meter: ByteMeter,
    ended: bool,
}

impl Lines {
    fn new(input: Stdin, eol: u8) -> Self {
        Lines {
            blocks: LineBlocks::new(input, eol),
            block: Vec::new(),
            pos: 0,
            meter: ByteMeter::default(),
            ended: false,
        }
    }

    /// Where the next line is in `self.block`, without its terminator; `None` at the end.
    async fn next(&mut self, budget: &Budget, eol: u8) -> Result<Option<(usize, usize)>> {
        if self.pos >= self.block.len() {
            if self.ended {
                return Ok(None);
            }
            match self.blocks.next().await? {
                Some(block) => {
                    self.meter.add(budget, block.len())?;
                    self.block = block;
                    self.pos = 0;
                }
                None => {
                    self.meter.finish(budget)?;
                    self.ended = true;
                    return Ok(None);
                }
            }
        }
        let start = self.pos;
        let end = memchr::memchr(eol, &self.block[start..]).map_or(self.block.len(), |i| start + i);
        self.pos = end + 1;
        Ok(Some((start, end)))
    }

    fn line(&self, (start, end): (usize, usize)) -> &[u8] {
        &self.block[start..end]
    }
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "paste", &msg);
            return Ok(1);
        }
    };
    let mut delims = vec![Some(b'\t')];
    let (mut serial, mut eol) = (false, b'\n');
    for o in &parsed.opts {
        match o.key {
            "d" => match parse_delims(o.value()) {
                Ok(d) => delims = d,
                Err(msg) => {
                    ctx.stderr
                        .extend_from_slice(format!("paste: {msg}\n").as_bytes());
                    return Ok(1);
                }
            },
            "s" => serial = true,
            _ => eol = 0,
        }
    }
    let names = operands::or_stdin(&parsed.operands);
    if serial {
        // One input at a time: an input that cannot be read is skipped.
        let mut status = 0;
        for name in &names {
            let Some(input) = operands::open_stream(ctx, "paste", name).await? else {
                status = 1;
                continue;
            };
            let mut input = Lines::new(input, eol);
            let mut n = 0usize;
            while let Some(at) = input.next(ctx.io.budget, eol).await? {
                ctx.io.budget.spend(1)?;
                if n > 0 {
                    if let Some(d) = delims[(n - 1) % delims.len()] {
                        ctx.stdout.push(d);
                    }
                }
                ctx.stdout.extend_from_slice(input.line(at));
                n += 1;
                ctx.flush_some().await?;
            }
            ctx.stdout.push(eol);
        }
        return Ok(status);
    }
    // Open everything first: GNU paste gives up before printing when one cannot be read.
    // Every `-` shares stdin, which takes its lines in turn.
    let mut inputs: Vec<Lines> = Vec::new();
    let mut which: Vec<usize> = Vec::new();
    let mut stdin_slot: Option<usize> = None;
    for name in &names {
        if name == b"-" {
            if let Some(s) = stdin_slot {
                which.push(s);
                continue;
            }
        }
        match ctx.open_stream(name).await? {
            Ok(input) => {
                if name == b"-" {
                    stdin_slot = Some(inputs.len());
                }
                which.push(inputs.len());
                inputs.push(Lines::new(input, eol));
            }
            Err(reason) => {
                let msg = format!("paste: {}: {reason}\n", quote_name(name));
                ctx.stderr.extend_from_slice(msg.as_bytes());
                return Ok(1);
            }
        }
    }
    loop {
        let mut any = false;
        let mut line = Vec::new();
        for (col, &w) in which.iter().enumerate() {
            let input = &mut inputs[w];
            if let Some(at) = input.next(ctx.io.budget, eol).await? {
                any = true;
                line.extend_from_slice(input.line(at));
            }
            if col + 1 < which.len() {
                if let Some(d) = delims[col % delims.len()] {
                    line.push(d);
                }
            }
        }
        if !any {
            break;
        }
        ctx.io.budget.spend(1)?;
        ctx.stdout.extend_from_slice(&line);
        ctx.stdout.push(eol);
        ctx.flush_some().await?;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn paste(args: &[&str], stdin: &[u8]) -> (Vec<u8>, i32) {
        let mut argv = vec!["paste"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin).unwrap();
        (r.stdout, r.status)
    }

    // Expected values from GNU paste 9.1.
    #[test]
    fn joins() {
        assert_eq!(
            paste(&["-", "-"], b"1\n2\n3\n4\n5\n").0,
            b"1\t2\n3\t4\n5\t\n"
        );
        assert_eq!(
            paste(&["-", "-", "-"], b"1\n2\n3\n4\n5").0,
            b"1\t2\t3\n4\t5\t\n"
        );
        assert_eq!(paste(&["-s", "-d", ":,"], b"1\n2\n3\n").0, b"1:2,3\n");
        assert_eq!(paste(&["-s"], b"").0, b"\n");
        assert_eq!(paste(&["-", "-"], b"").0, b"");
        assert_eq!(paste(&["-d", "\\0", "-", "-"], b"1\n2\n").0, b"12\n");
    }

    #[test]
    fn errors() {
        assert_eq!(paste(&["-d", "a\\", "-"], b"x\n"), (Vec::new(), 1));
        assert_eq!(paste(&["nofile", "-"], b"x\n"), (Vec::new(), 1));
    }
}
