//! `dirname`: a name without its last component, as GNU dirname. Spends 1 step per name.

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "z",
    long: &[long("zero", Arg::No, Some('z'))],
    stop_at_operand: false,
};

/// The directory part of `name`: `.` when there is none; leading slashes are kept.
pub fn dir(name: &[u8]) -> &[u8] {
    let prefix = usize::from(name.first() == Some(&b'/'));
    let mut end = name.len();
    while end > prefix && name[end - 1] == b'/' {
        end -= 1;
    }
    let mut len = memchr::memrchr(b'/', &name[..end]).map_or(0, |i| i + 1);
    while len > prefix && name[len - 1] == b'/' {
        len -= 1;
    }
    if len == 0 {
        b"."
    } else {
        &name[..len]
    }
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "dirname", &msg);
            return Ok(1);
        }
    };
    let eol = if parsed.opts.is_empty() { b'\n' } else { 0 };
    if parsed.operands.is_empty() {
        usage_error(ctx.stderr, "dirname", "missing operand");
        return Ok(1);
    }
    for name in &parsed.operands {
        ctx.io.budget.spend(1)?;
        ctx.stdout.extend_from_slice(dir(name));
        ctx.stdout.push(eol);
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::dir;

    // Expected values from GNU dirname 9.1.
    #[test]
    fn dirs() {
        for (name, want) in [
            ("/", "/"),
            ("//", "/"),
            ("a", "."),
            ("a/", "."),
            ("a/b/", "a"),
            ("//a//", "/"),
            ("a//b", "a"),
            ("", "."),
            ("/a/b/..", "/a/b"),
            ("///a///b///", "///a"),
        ] {
            assert_eq!(dir(name.as_bytes()), want.as_bytes(), "{name}");
        }
    }
}
