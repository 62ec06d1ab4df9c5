//! `basename`: a name without its directories (and a suffix), as GNU basename. Spends 1
//! step per name.

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "as:z",
    long: &[
        long("multiple", Arg::No, Some('a')),
        long("suffix", Arg::Required, Some('s')),
        long("zero", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

/// The last component of `name`, trailing slashes dropped; `/` for all slashes.
pub fn base(name: &[u8]) -> &[u8] {
    if name.is_empty() {
        return name;
    }
    let mut end = name.len();
    while end > 0 && name[end - 1] == b'/' {
        end -= 1;
    }
    if end == 0 {
        return b"/";
    }
    let start = memchr::memrchr(b'/', &name[..end]).map_or(0, |i| i + 1);
    &name[start..end]
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "basename", &msg);
            return Ok(1);
        }
    };
    let (mut multiple, mut suffix, mut eol) = (false, None, b'\n');
    for o in &parsed.opts {
        match o.key {
            "a" => multiple = true,
            "s" => {
                multiple = true;
                suffix = Some(o.value().to_vec());
            }
            _ => eol = 0,
        }
    }
    let ops = &parsed.operands;
    if ops.is_empty() {
        usage_error(ctx.stderr, "basename", "missing operand");
        return Ok(1);
    }
    let names: &[Vec<u8>] = if multiple {
        ops
    } else {
        if ops.len() > 2 {
            let msg = format!("extra operand {}", quote_str(&ops[2]));
            usage_error(ctx.stderr, "basename", &msg);
            return Ok(1);
        }
        suffix = ops.get(1).cloned();
        &ops[..1]
    };
    for name in names {
        ctx.io.budget.spend(1)?;
        let mut b = base(name);
        if let Some(s) = &suffix {
            if b.len() > s.len() && b.ends_with(s) {
                b = &b[..b.len() - s.len()];
            }
        }
        ctx.stdout.extend_from_slice(b);
        ctx.stdout.push(eol);
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn basename(args: &[&str]) -> (String, i32) {
        let mut argv = vec!["basename"];
        argv.extend_from_slice(args);
        let r = run(&argv, b"").unwrap();
        (r.stdout_str(), r.status)
    }

    // Expected values from GNU basename 9.1.
    #[test]
    fn names() {
        assert_eq!(basename(&["//"]).0, "/\n");
        assert_eq!(basename(&["//a//"]).0, "a\n");
        assert_eq!(basename(&["a.txt", ".txt"]).0, "a\n");
        assert_eq!(basename(&[".txt", ".txt"]).0, ".txt\n");
        assert_eq!(basename(&["x/abc/", "bc"]).0, "a\n");
        assert_eq!(basename(&["-s", ".c", "a.c", "b.c"]).0, "a\nb\n");
        assert_eq!(basename(&["a", "b", "c"]).1, 1);
        assert_eq!(basename(&[]).1, 1);
    }
}
