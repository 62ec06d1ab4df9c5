//! `rev`: reverses the characters of each line, as util-linux rev in the C locale, where
//! a byte above 127 is not a character: rev stops that input with an error. Spends 1 step
//! per line plus 1 per 64 bytes. It reads blocks of whole lines as they come.

use memchr::memchr;

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::lines::LineBlocks;
use crate::builtins::Ctx;
use crate::error::{Result, Status};
use crate::stream::Stdin;

const SPEC: Spec = Spec {
    short: "hV",
    long: &[
        long("help", Arg::No, Some('h')),
        long("version", Arg::No, Some('V')),
    ],
    stop_at_operand: false,
};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "rev", &msg);
            return Ok(1);
        }
    };
    if let Some(o) = parsed.opts.first() {
        if o.key == "V" {
            ctx.stdout
                .extend_from_slice(b"rev from util-linux 2.38.1\n");
        } else {
            ctx.stdout.extend_from_slice(
                b"Usage: rev [options] [file ...]\n\nReverse lines characterwise.\n\nOptions:\n -h, --help     display this help\n -V, --version  display version\n\nFor more details see rev(1).\n",
            );
        }
        return Ok(0);
    }
    let mut status = 0;
    if parsed.operands.is_empty() {
        let input = ctx.io.stdin.clone();
        status |= reverse(ctx, b"stdin", input).await?;
    }
    for name in &parsed.operands {
        // rev has no `-` for stdin: every operand is a file name.
        let reason = if name == b"-" {
            "No such file or directory".to_string()
        } else {
            match ctx.open_stream(name).await? {
                Ok(input) => {
                    status |= reverse(ctx, name, input).await?;
                    continue;
                }
                Err(reason) => reason,
            }
        };
        let msg = format!(
            "rev: cannot open {}: {reason}\n",
            String::from_utf8_lossy(name)
        );
        ctx.stderr.extend_from_slice(msg.as_bytes());
        status = 1;
    }
    Ok(status)
}

/// Emulates rev's wide-character line buffer: each read appends up to a newline (a NUL
/// cuts what counts of it, the rest staying in the buffer), a whole line is reversed and
/// printed, and a byte that is no character ends the input, after printing what the
/// buffer holds as rev does (the rest is read and paid for all the same).
async fn reverse(ctx: &mut Ctx<'_>, name: &[u8], input: Stdin) -> Result<Status> {
    let mut meter = ByteMeter::default();
    let mut blocks = LineBlocks::new(input, b'\n');
    let mut rev = LineBuffer::default();
    while let Some(block) = blocks.next().await? {
        meter.add(ctx.io.budget, block.len())?;
        if !rev.lines(ctx, name, &block)? {
            while let Some(block) = blocks.next().await? {
                meter.add(ctx.io.budget, block.len())?;
            }
            meter.finish(ctx.io.budget)?;
            return Ok(1);
        }
        ctx.flush_some().await?;
    }
    meter.finish(ctx.io.budget)?;
    ctx.stdout.extend(rev.buf[..rev.len].iter().rev());
    Ok(0)
}

/// rev's buffer: what it holds, how much of it counts, and how many reads it took.
#[derive(Default)]
struct LineBuffer {
    buf: Vec<u8>,
    len: usize,
    reads: u64,
}

impl LineBuffer {
    fn put(&mut self, at: usize, bytes: &[u8]) {
        if self.buf.len() < at + bytes.len() {
            self.buf.resize(at + bytes.len(), 0);
        }
        self.buf[at..at + bytes.len()].copy_from_slice(bytes);
    }

    /// Takes whole lines in, 1 step each; `false` when a byte ended the input.
    fn lines(&mut self, ctx: &mut Ctx<'_>, name: &[u8], mut rest: &[u8]) -> Result<bool> {
        while !rest.is_empty() {
            ctx.io.budget.spend(1)?;
            let end = memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            let chunk = &rest[..end];
            rest = &rest[end..];
            let len = self.len;
            if let Some(bad) = chunk.iter().position(|&b| b >= 0x80) {
                if len > 0 {
                    self.put(len, &chunk[..bad]);
                    ctx.stdout.extend(self.buf[..len].iter().rev());
                    let tail = &self.buf[len..];
                    let stop = memchr(0, tail).unwrap_or(tail.len());
                    ctx.stdout.extend_from_slice(&tail[..stop]);
                }
                let msg = format!(
                    "rev: {}: {}: Invalid or incomplete multibyte or wide character\n",
                    String::from_utf8_lossy(name),
                    self.reads
                );
                ctx.stderr.extend_from_slice(msg.as_bytes());
                return Ok(false);
            }
            self.put(len, chunk);
            self.put(len + chunk.len(), &[0]);
            self.len += memchr(0, &self.buf[len..]).unwrap_or(self.buf.len() - len);
            self.reads += 1;
            if self.len > 0 && self.buf[self.len - 1] == b'\n' {
                ctx.stdout.extend(self.buf[..self.len - 1].iter().rev());
                ctx.stdout.push(b'\n');
                self.len = 0;
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn rev(args: &[&str], stdin: &[u8]) -> (Vec<u8>, i32) {
        let mut argv = vec!["rev"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin).unwrap();
        (r.stdout, r.status)
    }

    // Expected values from util-linux rev 2.38.1 with LC_ALL=C.
    #[test]
    fn lines() {
        assert_eq!(rev(&[], b"abc\ndef"), (b"cba\nfed".to_vec(), 0));
        assert_eq!(rev(&[], b"a\0b\ncd\n"), (b"dca\n".to_vec(), 0));
        assert_eq!(rev(&[], b"ab\nc\xe9b\nxy\n"), (b"ba\n".to_vec(), 1));
        assert_eq!(rev(&["-"], b"ab\n"), (Vec::new(), 1));
        assert_eq!(
            rev(&[], b"c12\t\n\rb \ncc\r\ra\ra\x00\na \r\x80 c b\n"),
            (b"\t21c\n b\r\na\ra\r\rcca \r".to_vec(), 1)
        );
        assert_eq!(
            rev(&[], b"c\x00c1212 12 ac\n\x0012\t\xc3\xa9 bc \n"),
            (b"c".to_vec(), 1)
        );
    }
}
