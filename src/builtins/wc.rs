//! `wc`: counts lines, words, bytes and the longest line, as GNU wc in the C locale
//! (where `-m` counts bytes), with GNU's column widths. Spends 1 step per 64 bytes. It
//! counts each input as it comes and keeps only the counts.

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::operands;
use crate::builtins::common::quote::quote_name;
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "clLmw",
    long: &[
        long("bytes", Arg::No, Some('c')),
        long("chars", Arg::No, Some('m')),
        long("files0-from", Arg::Required, None),
        long("lines", Arg::No, Some('l')),
        long("max-line-length", Arg::No, Some('L')),
        long("words", Arg::No, Some('w')),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    lines: u64,
    words: u64,
    bytes: u64,
    max_line: u64,
}

/// Which columns to print, in GNU's order.
#[derive(Debug, Clone, Copy)]
struct Cols {
    lines: bool,
    words: bool,
    chars: bool,
    bytes: bool,
    max_line: bool,
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "wc", &msg);
            return Ok(1);
        }
    };
    let mut cols = Cols {
        lines: false,
        words: false,
        chars: false,
        bytes: false,
        max_line: false,
    };
    let mut files0: Option<Vec<u8>> = None;
    for o in &parsed.opts {
        match o.key {
            "c" => cols.bytes = true,
            "l" => cols.lines = true,
            "L" => cols.max_line = true,
            "m" => cols.chars = true,
            "w" => cols.words = true,
            _ => files0 = Some(o.value().to_vec()),
        }
    }
    if !(cols.lines || cols.words || cols.chars || cols.bytes || cols.max_line) {
        (cols.lines, cols.words, cols.bytes) = (true, true, true);
    }
    let mut status = 0;
    let mut files0_mode = false;
    let names = match &files0 {
        None => operands::or_stdin(&parsed.operands),
        Some(from) => {
            if let Some(extra) = parsed.operands.first() {
                let msg = format!(
                    "extra operand {}\nfile operands cannot be combined with --files0-from",
                    quote_str(extra)
                );
                usage_error(ctx.stderr, "wc", &msg);
                return Ok(1);
            }
            let Some(list) = operands::open_for_reading(ctx, "wc", from).await? else {
                return Ok(1);
            };
            let list = list.read_all().await?;
            ctx.io.budget.spend_bytes(list.len())?;
            // Empty names stay in their place: each is reported where GNU comes to it,
            // and counts toward the total line.
            let body = list.strip_suffix(b"\0").unwrap_or(&list);
            files0_mode = true;
            if list.is_empty() {
                Vec::new()
            } else {
                body.split(|&b| b == 0).map(<[u8]>::to_vec).collect()
            }
        }
    };
    // Count everything first: GNU sizes the columns from the inputs before printing.
    let mut rows: Vec<(Vec<u8>, Counts)> = Vec::new();
    let mut regular_size: u64 = 0;
    let mut from_stdin = false;
    for (i, name) in names.iter().enumerate() {
        if files0_mode && name.is_empty() {
            let from = files0.as_deref().unwrap_or_default();
            let msg = format!(
                "wc: {}:{}: invalid zero-length file name\n",
                quote_name(from),
                i + 1
            );
            ctx.stderr.extend_from_slice(msg.as_bytes());
            status = 1;
            continue;
        }
        if name == b"-" && files0.as_deref() == Some(b"-") {
            ctx.stderr.extend_from_slice(
                b"wc: when reading file names from stdin, no file name of '-' allowed\n",
            );
            status = 1;
            continue;
        }
        let Some(input) = operands::open_stream(ctx, "wc", name).await? else {
            status = 1;
            continue;
        };
        let mut counter = Counter::new(cols);
        let mut meter = ByteMeter::default();
        while let Some(chunk) = input.read().await? {
            meter.add(ctx.io.budget, chunk.len())?;
            counter.count(&chunk);
        }
        meter.finish(ctx.io.budget)?;
        let counts = counter.finish();
        if name == b"-" {
            from_stdin = true;
        } else {
            regular_size += counts.bytes;
        }
        rows.push((name.clone(), counts));
    }
    let ncols = [
        cols.lines,
        cols.words,
        cols.chars,
        cols.bytes,
        cols.max_line,
    ]
    .iter()
    .filter(|&&c| c)
    .count();
    let width = if files0_mode || (ncols == 1 && names.len() == 1) {
        1
    } else {
        let digits = regular_size.to_string().len();
        if from_stdin {
            digits.max(7)
        } else {
            digits
        }
    };
    let mut total = Counts::default();
    let implicit_stdin = parsed.operands.is_empty() && names.len() == 1 && names[0] == b"-";
    for (name, c) in &rows {
        total.lines += c.lines;
        total.words += c.words;
        total.bytes += c.bytes;
        total.max_line = total.max_line.max(c.max_line);
        let shown = if implicit_stdin {
            None
        } else {
            Some(name.as_slice())
        };
        print_row(ctx.stdout, c, cols, width, shown);
    }
    if names.len() > 1 {
        print_row(ctx.stdout, &total, cols, width, Some(b"total"));
    }
    Ok(status)
}

fn print_row(out: &mut Vec<u8>, c: &Counts, cols: Cols, width: usize, name: Option<&[u8]>) {
    let mut first = true;
    let values = [
        (cols.lines, c.lines),
        (cols.words, c.words),
        (cols.chars, c.bytes),
        (cols.bytes, c.bytes),
        (cols.max_line, c.max_line),
    ];
    for (on, v) in values {
        if !on {
            continue;
        }
        if !first {
            out.push(b' ');
        }
        first = false;
        out.extend_from_slice(format!("{v:>width$}").as_bytes());
    }
    if let Some(name) = name {
        out.push(b' ');
        out.extend_from_slice(name);
    }
    out.push(b'\n');
}

/// Counts as the input comes: the position in the line and whether a word is open carry
/// from one chunk to the next (in the C locale every byte is one character, so no
/// character is ever cut in two).
struct Counter {
    cols: Cols,
    c: Counts,
    in_word: bool,
    pos: u64,
}

impl Counter {
    fn new(cols: Cols) -> Self {
        Counter {
            cols,
            c: Counts::default(),
            in_word: false,
            pos: 0,
        }
    }

    fn count(&mut self, data: &[u8]) {
        let c = &mut self.c;
        c.bytes += data.len() as u64;
        let cols = self.cols;
        if cols.lines && !cols.words && !cols.max_line {
            c.lines += memchr::memchr_iter(b'\n', data).count() as u64;
            return;
        }
        if !cols.lines && !cols.words && !cols.max_line {
            return;
        }
        // A word is a run of non-space bytes holding at least one printable one; other
        // bytes neither start nor end a word. The longest line counts printable bytes,
        // tabs to the next multiple of 8; \n, \r and \f start a new line.
        let mut in_word = self.in_word;
        let mut pos = self.pos;
        for &b in data {
            match b {
                b'\n' => {
                    c.lines += 1;
                    c.max_line = c.max_line.max(pos);
                    pos = 0;
                    in_word = false;
                }
                b'\r' | b'\x0c' => {
                    c.max_line = c.max_line.max(pos);
                    pos = 0;
                    in_word = false;
                }
                b'\t' => {
                    pos = (pos / 8 + 1) * 8;
                    in_word = false;
                }
                b'\x0b' | b' ' => {
                    if b == b' ' {
                        pos += 1;
                    }
                    in_word = false;
                }
                0x21..=0x7e => {
                    pos += 1;
                    if !in_word {
                        in_word = true;
                        c.words += 1;
                    }
                }
                _ => {}
            }
        }
        self.in_word = in_word;
        self.pos = pos;
    }

    fn finish(mut self) -> Counts {
        self.c.max_line = self.c.max_line.max(self.pos);
        self.c
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn wc(args: &[&str], stdin: &[u8]) -> (String, i32) {
        let mut argv = vec!["wc"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin).unwrap();
        (r.stdout_str(), r.status)
    }

    // Expected values from GNU wc 9.1.
    #[test]
    fn columns() {
        assert_eq!(wc(&[], b"hi\n").0, "      1       1       3\n");
        assert_eq!(wc(&["-l"], b"hi\n").0, "1\n");
        assert_eq!(wc(&["-c", "-"], b"hi\n").0, "3 -\n");
        assert_eq!(
            wc(&["-", "-"], b"hi\n").0,
            "      1       1       3 -\n      0       0       0 -\n      1       1       3 total\n"
        );
        assert_eq!(wc(&["nofile", "nofile2"], b""), ("0 0 0 total\n".into(), 1));
    }

    #[test]
    fn words_and_width() {
        assert_eq!(wc(&["-w"], b"\x01 \x80 a\x00b \xc3\xa9").0, "1\n");
        assert_eq!(wc(&["-L"], b"a\tb\r\tc").0, "9\n");
        assert_eq!(wc(&["-L"], b"ab\x0bc").0, "3\n");
    }
}
