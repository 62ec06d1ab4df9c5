//! `rev`: reverses the characters of each line, as util-linux rev in the C locale, where
//! a byte above 127 is not a character: rev stops that input with an error. Spends 1 step
//! per line plus 1 per 64 bytes.

use memchr::memchr;

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

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
        let data = ctx.stdin.read_all().await?;
        status |= reverse(ctx, b"stdin", &data)?;
    }
    for name in &parsed.operands {
        // rev has no `-` for stdin: every operand is a file name.
        let reason = if name == b"-" {
            "No such file or directory".to_string()
        } else {
            match ctx.open(name).await? {
                Ok(data) => {
                    status |= reverse(ctx, name, &data)?;
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
/// buffer holds as rev does.
fn reverse(ctx: &mut Ctx<'_>, name: &[u8], data: &[u8]) -> Result<Status> {
    ctx.budget.spend_bytes(data.len())?;
    let mut buf: Vec<u8> = Vec::new();
    let mut len = 0usize;
    let mut rest = data;
    let mut chunkno = 0u64;
    let put = |buf: &mut Vec<u8>, at: usize, bytes: &[u8]| {
        if buf.len() < at + bytes.len() {
            buf.resize(at + bytes.len(), 0);
        }
        buf[at..at + bytes.len()].copy_from_slice(bytes);
    };
    while !rest.is_empty() {
        ctx.budget.spend(1)?;
        let end = memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let chunk = &rest[..end];
        rest = &rest[end..];
        if let Some(bad) = chunk.iter().position(|&b| b >= 0x80) {
            if len > 0 {
                put(&mut buf, len, &chunk[..bad]);
                ctx.stdout.extend(buf[..len].iter().rev());
                let tail = &buf[len..];
                let stop = memchr(0, tail).unwrap_or(tail.len());
                ctx.stdout.extend_from_slice(&tail[..stop]);
            }
            let msg = format!(
                "rev: {}: {chunkno}: Invalid or incomplete multibyte or wide character\n",
                String::from_utf8_lossy(name)
            );
            ctx.stderr.extend_from_slice(msg.as_bytes());
            return Ok(1);
        }
        put(&mut buf, len, chunk);
        put(&mut buf, len + chunk.len(), &[0]);
        len += memchr(0, &buf[len..]).unwrap_or(buf.len() - len);
        chunkno += 1;
        if len > 0 && buf[len - 1] == b'\n' {
            ctx.stdout.extend(buf[..len - 1].iter().rev());
            ctx.stdout.push(b'\n');
            len = 0;
        }
    }
    ctx.stdout.extend(buf[..len].iter().rev());
    Ok(0)
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
