//! `printf`: GNU coreutils printf over the shared format engine; spends 1 step per pass
//! over the format and 1 per 64 bytes written, and hands its output on between passes.

use crate::builtins::common::args::usage_error;
use crate::builtins::common::format::{self, Sink};
use crate::builtins::Ctx;
use crate::error::{Result, Status};
use crate::stream::FLUSH_AT;

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let mut rest = args.get(1..).unwrap_or(&[]);
    // GNU printf takes no options, but skips one leading `--`.
    if rest.first().is_some_and(|a| a == b"--") {
        rest = &rest[1..];
    }
    let Some((fmt, operands)) = rest.split_first() else {
        usage_error(ctx.stderr, "printf", "missing operand");
        return Ok(1);
    };
    let parsed = format::cached(ctx.io.caches, fmt, true);
    // The output is usually about as long as the arguments: one allocation, not a
    // series of doublings that copy it again and again (up to what is handed on at once).
    let args_len: usize = operands.iter().map(|a| a.len() + 1).sum();
    ctx.stdout.reserve((args_len + fmt.len()).min(2 * FLUSH_AT));
    let mut run = format::Run::new(&parsed, operands);
    loop {
        let mut sink = Sink {
            out: ctx.stdout,
            err: ctx.stderr,
            budget: ctx.io.budget,
            prog: "printf",
        };
        if let Some(status) = run.pass(&mut sink)? {
            return Ok(status);
        }
        ctx.flush_some().await?;
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn p(args: &[&str]) -> (String, String, i32) {
        let mut argv = vec!["printf"];
        argv.extend_from_slice(args);
        let r = run(&argv, b"").unwrap();
        (r.stdout_str(), r.stderr_str(), r.status)
    }

    // Expected values from GNU printf 9.1, LC_ALL=C.
    #[test]
    fn numbers_and_warnings() {
        assert_eq!(
            p(&["%d\n", "abc"]),
            (
                "0\n".into(),
                "printf: 'abc': expected a numeric value\n".into(),
                1
            )
        );
        assert_eq!(
            p(&["%d", "12abc"]),
            (
                "12".into(),
                "printf: '12abc': value not completely converted\n".into(),
                1
            )
        );
        assert_eq!(
            p(&["%d", "99999999999999999999"]),
            (
                "9223372036854775807".into(),
                "printf: '99999999999999999999': Numerical result out of range\n".into(),
                1
            )
        );
        assert_eq!(p(&["%u", "-1"]).0, "18446744073709551615");
        assert_eq!(p(&["%d", "'a"]).0, "97");
        assert_eq!(
            p(&["%d", "'ab"]),
            (
                "97".into(),
                "printf: warning: b: character(s) following character constant have been ignored\n"
                    .into(),
                0
            )
        );
        assert_eq!(p(&["%d", ""]), ("0".into(), "".into(), 0));
        assert_eq!(
            p(&["%d", "a\nb"]).1,
            "printf: 'a\\nb': expected a numeric value\n"
        );
    }

    #[test]
    fn reuse_and_missing() {
        assert_eq!(p(&["%s %s\n", "a", "b", "c"]).0, "a b\nc \n");
        assert_eq!(p(&["%d %s\n", "1"]).0, "1 \n");
        assert_eq!(
            p(&["x\n", "a", "b"]),
            (
                "x\n".into(),
                "printf: warning: ignoring excess arguments, starting with 'a'\n".into(),
                0
            )
        );
        assert_eq!(p(&["%5.*d", "2", "3", "4"]).0, "   03 0000");
        assert_eq!(p(&["%*c|", "2", "3", "4"]).0, " 3|   \0|");
        assert_eq!(p(&["%d|%s|%f|%c|%b|%q|"]).0, "0||0.000000|\0|||");
    }

    #[test]
    fn escapes() {
        assert_eq!(
            run(&["printf", "\\101\\0101\\1\\18\\400\\777|\\x41\\x4g"], b"")
                .unwrap()
                .stdout,
            b"A\x081\x01\x018\x00\xff|A\x04g"
        );
        assert_eq!(
            p(&["a\\xZ"]),
            (
                "a".into(),
                "printf: missing hexadecimal number in escape\n".into(),
                1
            )
        );
        assert_eq!(p(&["\\u00e9\\u0024"]).0, "\\u00E9$");
        assert_eq!(
            p(&["\\u0041"]).1,
            "printf: invalid universal character name \\u0041\n"
        );
        assert_eq!(p(&["%b", "\\101\\0101\\1\\18"]).0, "AA\x01\x018");
        assert_eq!(p(&["%b|%s", "a\\cb", "x"]).0, "a");
        assert_eq!(p(&["a\\cb%s", "x"]).0, "a");
        assert_eq!(p(&["a\\qb\\\\\\\"\\c d"]).0, "a\\qb\\\"");
    }

    #[test]
    fn conversions() {
        assert_eq!(
            p(&[
                "%#o|%#x|%#X|%-5d|%05d|%.3d|%+d|% d",
                "8",
                "0",
                "255",
                "3",
                "-3",
                "5",
                "5",
                "5"
            ])
            .0,
            "010|0|0XFF|3    |-0003|005|+5| 5"
        );
        assert_eq!(
            p(&[
                "%0-5d|%-05d|%+ d|% +d|%05.3d|%-+5d|%#5o|%#.5o|%#5x|%#.5x|%#08x|%.3x",
                "1",
                "2",
                "3",
                "4",
                "5",
                "6",
                "8",
                "8",
                "255",
                "255",
                "255",
                "10"
            ])
            .0,
            "1    |2    |+3|+4|  005|+6   |  010|00010| 0xff|0x000ff|0x0000ff|00a"
        );
        assert_eq!(p(&["%.0d|%5.0d|%#.0o|", "0", "0", "0"]).0, "|     |0|");
        assert_eq!(
            p(&[
                "%08.3f|%-8.3e|%+.2g|% .0f|%#.0f|%#.0e|%#g",
                "3.14159",
                "3.14159",
                "1234",
                "2.5",
                "3",
                "3",
                "1"
            ])
            .0,
            "0003.142|3.142e+00|+1.2e+03| 2|3.|3.e+00|1.00000"
        );
        assert_eq!(p(&["%qd", "1"]).0, "1d");
        assert_eq!(p(&["%I d|%'d", "1", "1234567"]).0, " 1|1234567");
        assert_eq!(
            p(&["%y", "1"]),
            (
                "".into(),
                "printf: %y: invalid conversion specification\n".into(),
                1
            )
        );
    }
}
