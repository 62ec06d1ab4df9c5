//! `tee`: copies stdin to stdout; there is no file system, so a file operand (even `-`,
//! which GNU tee 9.1 takes as a file name) cannot be written. Spends 1 step per 64
//! bytes read and 1 per 64 bytes written, and copies each chunk as it comes.

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "aip",
    long: &[
        long("append", Arg::No, Some('a')),
        long("ignore-interrupts", Arg::No, Some('i')),
        long("output-error", Arg::Optional, None),
    ],
    stop_at_operand: false,
};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "tee", &msg);
            return Ok(1);
        }
    };
    for opt in &parsed.opts {
        if opt.key == "output-error" {
            if let Some(mode) = &opt.value {
                let modes: [&[u8]; 4] = [b"warn", b"warn-nopipe", b"exit", b"exit-nopipe"];
                let hits: Vec<&[u8]> = modes
                    .iter()
                    .copied()
                    .filter(|m| m.starts_with(mode) && !mode.is_empty())
                    .collect();
                let exact = modes.contains(&mode.as_slice());
                if !exact && hits.len() != 1 {
                    let shown = crate::builtins::common::quote::quote_str(mode);
                    let what = if hits.is_empty() {
                        "invalid"
                    } else {
                        "ambiguous"
                    };
                    let msg = format!(
                        "{what} argument {shown} for '--output-error'\nValid arguments are:\n  - 'warn'\n  - 'warn-nopipe'\n  - 'exit'\n  - 'exit-nopipe'"
                    );
                    usage_error(ctx.stderr, "tee", &msg);
                    return Ok(1);
                }
            }
        }
    }
    let mut status = 0;
    for name in &parsed.operands {
        // GNU opens every file before copying; each failure is reported and tee goes on.
        ctx.stderr.extend_from_slice(b"tee: ");
        ctx.stderr.extend_from_slice(name);
        ctx.stderr.extend_from_slice(b": Read-only file system\n");
        status = 1;
    }
    let mut read = ByteMeter::default();
    let mut written = ByteMeter::default();
    while let Some(chunk) = ctx.io.stdin.read().await? {
        read.add(ctx.io.budget, chunk.len())?;
        written.add(ctx.io.budget, chunk.len())?;
        ctx.stdout.extend_from_slice(&chunk);
        ctx.flush_some().await?;
    }
    read.finish(ctx.io.budget)?;
    written.finish(ctx.io.budget)?;
    Ok(status)
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    #[test]
    fn copies_and_refuses_files() {
        let r = run(&["tee", "-a"], b"abc\n").unwrap();
        assert_eq!((r.status, r.stdout_str()), (0, "abc\n".into()));
        let r = run(&["tee", "x"], b"abc\n").unwrap();
        assert_eq!(r.stdout_str(), "abc\n");
        assert_eq!(r.status, 1);
        assert_eq!(r.stderr_str(), "tee: x: Read-only file system\n");
        let r = run(&["tee", "-x"], b"abc\n").unwrap();
        assert_eq!((r.status, r.stdout_str()), (1, "".into()));
    }
}
