//! `echo`: GNU coreutils echo (`-n`, `-e`, `-E`); spends 1 step per 64 bytes written.

use crate::builtins::Ctx;
use crate::error::{Result, Status};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let mut newline = true;
    let mut escapes = false;
    let mut words = args.get(1..).unwrap_or(&[]);
    // Leading words made only of `-` and the letters n, e, E are options; anything else,
    // `-x` or `--` included, is text.
    while let Some((first, rest)) = words.split_first() {
        let is_opt = first.len() > 1
            && first[0] == b'-'
            && first[1..].iter().all(|b| matches!(b, b'n' | b'e' | b'E'));
        if !is_opt {
            break;
        }
        for &b in &first[1..] {
            match b {
                b'n' => newline = false,
                b'e' => escapes = true,
                _ => escapes = false,
            }
        }
        words = rest;
    }
    let before = ctx.stdout.len();
    let out = &mut *ctx.stdout;
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        if escapes {
            if expand(word, out) {
                ctx.io.budget.spend_bytes(out.len() - before)?;
                return Ok(0);
            }
        } else {
            out.extend_from_slice(word);
        }
    }
    if newline {
        out.push(b'\n');
    }
    ctx.io.budget.spend_bytes(out.len() - before)?;
    Ok(0)
}

/// Writes `word` with echo's backslash escapes expanded; true when `\c` ends all output.
fn expand(word: &[u8], out: &mut Vec<u8>) -> bool {
    let mut i = 0;
    while i < word.len() {
        let Some(off) = memchr::memchr(b'\\', &word[i..]) else {
            out.extend_from_slice(&word[i..]);
            break;
        };
        out.extend_from_slice(&word[i..i + off]);
        i += off + 1;
        let Some(&c) = word.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        let byte = match c {
            b'a' => 7,
            b'b' => 8,
            b'c' => return true,
            b'e' => 27,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'\\' => b'\\',
            b'0'..=b'7' => {
                // `\0NNN`: up to three digits after the 0; `\NNN`: three digits in all.
                let (mut v, max) = if c == b'0' {
                    (0u32, 3)
                } else {
                    (u32::from(c - b'0'), 2)
                };
                let mut n = 0;
                while n < max {
                    match word.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                            n += 1;
                        }
                        _ => break,
                    }
                }
                (v & 0xff) as u8
            }
            b'x' => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 {
                    match word.get(i).and_then(|&d| (d as char).to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            i += 1;
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    out.extend_from_slice(b"\\x");
                    continue;
                }
                v as u8
            }
            other => {
                out.push(b'\\');
                other
            }
        };
        out.push(byte);
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn echo(args: &[&str]) -> Vec<u8> {
        let mut argv = vec!["echo"];
        argv.extend_from_slice(args);
        run(&argv, b"").unwrap().stdout
    }

    #[test]
    fn options() {
        assert_eq!(echo(&[]), b"\n");
        assert_eq!(echo(&["-n"]), b"");
        assert_eq!(echo(&["a", "-n", "b"]), b"a -n b\n");
        assert_eq!(echo(&["-n", "--", "a"]), b"-- a");
        assert_eq!(echo(&["-x", "-n", "a"]), b"-x -n a\n");
        assert_eq!(echo(&["-neX"]), b"-neX\n");
        assert_eq!(echo(&["-"]), b"-\n");
        assert_eq!(echo(&["-nE", "-e", "\\t"]), b"\t");
    }

    #[test]
    fn escapes() {
        // GNU: /usr/bin/echo -e '\101|\0101|\01011|\18|\8|\400|\0400|\777' | od -c
        assert_eq!(
            echo(&["-e", "\\101|\\0101|\\01011|\\18|\\8|\\400|\\0400|\\777"]),
            b"A|A|A1|\x018|\\8|\0|\0|\xff\n"
        );
        assert_eq!(
            echo(&["-e", "a\\01b\\0101\\x41\\x4g\\xg"]),
            b"a\x01bAA\x04g\\xg\n"
        );
        assert_eq!(echo(&["-e", "a\\cb", "c"]), b"a");
        assert_eq!(echo(&["-e", "ab\\"]), b"ab\\\n");
        assert_eq!(
            echo(&["-e", "\\a\\b\\e\\f\\n\\r\\t\\v\\\\\\\"\\?"]),
            b"\x07\x08\x1b\x0c\n\r\t\x0b\\\\\"\\?\n"
        );
    }
}
