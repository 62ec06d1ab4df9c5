//! `xargs`: GNU findutils xargs running builtins (default `echo`): `-0 -d -n -L -I -r -s
//! -t -x -E -a`; spends 1 step per 64 bytes read, 1 per item and 1 per command run
//! (the commands spend their own).

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::quote::shell_quote;
use std::task::Poll;

use crate::budget::ByteMeter;
use crate::builtins::{lookup, Ctx, Run, ToolIo};
use crate::error::{Result, Status};
use crate::host::LocalFuture;
use crate::stream::Stdin;

const SPEC: Spec = Spec {
    short: "0a:d:E:e::I:i::L:l::n:oP:prs:tx",
    long: &[
        long("arg-file", Arg::Required, Some('a')),
        long("delimiter", Arg::Required, Some('d')),
        long("eof", Arg::Optional, Some('e')),
        long("exit", Arg::No, Some('x')),
        long("interactive", Arg::No, Some('p')),
        long("max-args", Arg::Required, Some('n')),
        long("max-chars", Arg::Required, Some('s')),
        long("max-lines", Arg::Optional, Some('l')),
        long("max-procs", Arg::Required, Some('P')),
        long("no-run-if-empty", Arg::No, Some('r')),
        long("null", Arg::No, Some('0')),
        long("open-tty", Arg::No, Some('o')),
        long("process-slot-var", Arg::Required, None),
        long("replace", Arg::Optional, Some('i')),
        long("show-limits", Arg::No, None),
        long("verbose", Arg::No, Some('t')),
    ],
    stop_at_operand: true,
};

/// GNU's default size of the command buffer.
const DEFAULT_SIZE: usize = 131_072;
/// The largest `-s` GNU accepts on a typical system.
const MAX_SIZE: usize = 2_093_622;

struct Options {
    delim: Option<u8>,
    eof: Option<Vec<u8>>,
    replace: Option<Vec<u8>>,
    max_lines: Option<usize>,
    max_args: Option<usize>,
    size: usize,
    no_run_if_empty: bool,
    verbose: bool,
    exit_on_size: bool,
    arg_file: Option<Vec<u8>>,
    /// Commands that may run at once (`-P`).
    procs: usize,
}

/// An item read from the input, and whether an input line ends after it (for `-L`).
struct Item {
    word: Vec<u8>,
    line_end: bool,
}

fn warn(err: &mut Vec<u8>, msg: &str) {
    err.extend_from_slice(b"xargs: ");
    err.extend_from_slice(msg.as_bytes());
    err.push(b'\n');
}

fn number(err: &mut Vec<u8>, v: &[u8], opt: char, min: i64) -> Option<usize> {
    let text = String::from_utf8_lossy(v);
    let Ok(n) = text.trim_start().parse::<i64>() else {
        usage_error(
            err,
            "xargs",
            &format!("invalid number \"{text}\" for -{opt} option"),
        );
        return None;
    };
    if n < min {
        usage_error(
            err,
            "xargs",
            &format!("value {n} for -{opt} option should be >= {min}"),
        );
        return None;
    }
    Some(n as usize)
}

/// `-d`'s argument: one byte, or a C escape.
fn delimiter(v: &[u8]) -> Option<u8> {
    match v {
        [b] => Some(*b),
        [b'\\', rest @ ..] if !rest.is_empty() => {
            let simple = match rest {
                b"a" => Some(7),
                b"b" => Some(8),
                b"f" => Some(12),
                b"n" => Some(b'\n'),
                b"r" => Some(b'\r'),
                b"t" => Some(b'\t'),
                b"v" => Some(11),
                b"\\" => Some(b'\\'),
                _ => None,
            };
            if simple.is_some() {
                return simple;
            }
            let (digits, radix) = match rest {
                [b'x', hex @ ..] => (hex, 16),
                [b'0', oct @ ..] if !oct.is_empty() => (oct, 8),
                _ => (rest, 8),
            };
            let s = std::str::from_utf8(digits).ok()?;
            u32::from_str_radix(s, radix)
                .ok()
                .filter(|&n| n <= 255)
                .map(|n| n as u8)
        }
        _ => None,
    }
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    // GNU checks each option as getopt hands it over: a bad value before a bad option
    // is what it reports.
    let (parsed, bad_option) = SPEC.parse_in_order(&args[1..]);
    let mut o = Options {
        delim: None,
        eof: None,
        replace: None,
        max_lines: None,
        max_args: None,
        size: DEFAULT_SIZE,
        no_run_if_empty: false,
        procs: 1,
        verbose: false,
        exit_on_size: false,
        arg_file: None,
    };
    // -L (not the -L 1 that -I implies) was the last to set the line count.
    let mut lines_from_l = false;
    for opt in &parsed.opts {
        let v = opt.value();
        match opt.key {
            "0" => o.delim = Some(0),
            "a" => o.arg_file = Some(v.to_vec()),
            "d" => match delimiter(v) {
                Some(d) => o.delim = Some(d),
                None => {
                    let msg = format!(
                        "Invalid input delimiter specification {}: the delimiter must be either a single character or an escape sequence starting with \\.",
                        String::from_utf8_lossy(v)
                    );
                    warn(ctx.stderr, &msg);
                    return Ok(1);
                }
            },
            "E" => o.eof = (!v.is_empty()).then(|| v.to_vec()),
            "e" => o.eof = opt.value.as_ref().filter(|v| !v.is_empty()).cloned(),
            "I" | "i" => {
                if o.max_args.take().is_some() {
                    warn(ctx.stderr, "warning: options --max-args and --replace/-I/-i are mutually exclusive, ignoring previous --max-args value");
                }
                if lines_from_l {
                    warn(ctx.stderr, "warning: options --max-lines and --replace/-I/-i are mutually exclusive, ignoring previous --max-lines value");
                }
                o.replace = Some(match (&opt.value, opt.key) {
                    (Some(r), _) => r.clone(),
                    (None, _) => b"{}".to_vec(),
                });
                o.max_lines = Some(1);
                o.exit_on_size = true;
                lines_from_l = false;
                if opt.key == "I" && v.is_empty() {
                    o.replace = None;
                }
            }
            "L" | "l" => {
                let n = if opt.key == "l" && opt.value.is_none() {
                    1
                } else {
                    let letter = if opt.key == "l" { 'l' } else { 'L' };
                    match number(ctx.stderr, v, letter, 1) {
                        Some(n) => n,
                        None => return Ok(1),
                    }
                };
                let name = if opt.key == "l" {
                    "--max-lines/-l"
                } else {
                    "-L"
                };
                if o.max_args.take().is_some() {
                    warn(ctx.stderr, &format!("warning: options --max-args and {name} are mutually exclusive, ignoring previous --max-args value"));
                }
                if o.replace.take().is_some() {
                    warn(ctx.stderr, &format!("warning: options --replace and {name} are mutually exclusive, ignoring previous --replace value"));
                }
                o.max_lines = Some(n);
                o.exit_on_size = true;
                lines_from_l = true;
            }
            "n" => {
                let Some(n) = number(ctx.stderr, v, 'n', 1) else {
                    return Ok(1);
                };
                if lines_from_l {
                    warn(ctx.stderr, "warning: options --max-lines and --max-args/-n are mutually exclusive, ignoring previous --max-lines value");
                    o.max_lines = None;
                    lines_from_l = false;
                }
                // -n 1 goes with -I; any other count replaces it.
                if n != 1 && o.replace.take().is_some() {
                    warn(ctx.stderr, "warning: options --replace and --max-args/-n are mutually exclusive, ignoring previous --replace value");
                    o.max_lines = None;
                }
                o.max_args = Some(n);
            }
            "P" => match number(ctx.stderr, v, 'P', 0) {
                None => return Ok(1),
                // -P 0: as many at once as there are commands.
                Some(0) => o.procs = usize::MAX,
                Some(n) => o.procs = n,
            },
            "p" | "o" => {
                warn(
                    ctx.stderr,
                    "failed to open /dev/tty for reading: No such device or address",
                );
                return Ok(1);
            }
            "r" => o.no_run_if_empty = true,
            "s" => {
                let text = String::from_utf8_lossy(v).into_owned();
                match text.trim_start().parse::<i64>() {
                    Ok(n) if n < 1 => {
                        warn(
                            ctx.stderr,
                            &format!("value {n} for -s option should be >= 1"),
                        );
                        o.size = 1;
                    }
                    Ok(n) if n as u64 > MAX_SIZE as u64 => {
                        warn(
                            ctx.stderr,
                            &format!("value {n} for -s option should be <= {MAX_SIZE}"),
                        );
                        o.size = MAX_SIZE;
                    }
                    Ok(n) => o.size = n as usize,
                    Err(_) => {
                        usage_error(
                            ctx.stderr,
                            "xargs",
                            &format!("invalid number \"{text}\" for -s option"),
                        );
                        return Ok(1);
                    }
                }
            }
            "t" => o.verbose = true,
            "x" => o.exit_on_size = true,
            _ => {}
        }
    }
    if let Some(msg) = bad_option {
        usage_error(ctx.stderr, "xargs", &msg);
        return Ok(1);
    }
    if o.delim.is_some() && o.eof.is_some() {
        warn(
            ctx.stderr,
            "warning: the -E option has no effect if -0 or -d is used.\n",
        );
        o.eof = None;
    }
    let command: Vec<Vec<u8>> = if parsed.operands.is_empty() {
        vec![b"echo".to_vec()]
    } else {
        parsed.operands.clone()
    };

    let mut input = match &o.arg_file {
        Some(name) => match ctx.open(name).await? {
            Ok(data) => Input::whole(data.to_vec(), o.delim),
            Err(reason) => {
                let mut msg = b"xargs: Cannot open input file ".to_vec();
                msg.extend_from_slice(&crate::builtins::common::quote::quote(name));
                msg.extend_from_slice(b": ");
                msg.extend_from_slice(reason.as_bytes());
                msg.push(b'\n');
                ctx.stderr.extend_from_slice(&msg);
                return Ok(1);
            }
        },
        None => Input::stream(o.delim),
    };

    let mut runner = Runner {
        command: &command,
        verbose: o.verbose,
        failed: false,
        keep_stdin: o.arg_file.is_some(),
        procs: o.procs.max(1),
        running: Vec::new(),
        stop: None,
    };
    let base: usize = command.iter().map(|a| arg_len(a)).sum();
    if o.replace.is_none() && base > o.size {
        warn(
            ctx.stderr,
            "cannot fit single argument within argument list size limit",
        );
        return Ok(1);
    }
    // Commands run as the input comes: each piece of it ends where an item does, and the
    // command lines it completes run before the next piece is read.
    let mut pending: Vec<Item> = Vec::new();
    let mut seen_items = false;
    let mut warned_nul = false;
    let mut read_error = None;
    let mut status = None;
    let mut read_bytes = ByteMeter::default();
    while let Some((piece, last)) = input.next_piece(ctx.io.stdin).await? {
        read_bytes.add(ctx.io.budget, piece.len())?;
        let mut read = if let Some(d) = o.delim {
            Read {
                items: split_delimited(&piece, d),
                ..Read::default()
            }
        } else if o.replace.is_some() {
            read_lines(&piece, o.eof.as_deref())
        } else {
            read_words(&piece, o.eof.as_deref(), last)
        };
        // An argument is a C string to GNU: it ends at a NUL, which GNU warns about unless
        // the items are delimited.
        for item in &mut read.items {
            if let Some(z) = memchr::memchr(0, &item.word) {
                item.word.truncate(z);
                if o.delim.is_none() && !warned_nul {
                    warned_nul = true;
                    ctx.stderr.extend_from_slice(
                        b"xargs: WARNING: a NUL character occurred in the input.  It cannot be \
passed through in the argument list.  Did you mean to use the --null option?\n",
                    );
                }
            }
        }
        ctx.io.budget.spend(read.items.len() as u64)?;
        seen_items |= !read.items.is_empty();
        pending.append(&mut read.items);
        let ended = last || read.error.is_some() || read.eof_string;
        read_error = read.error;
        status = if let Some(r) = &o.replace {
            let ran = run_replace(ctx, &mut runner, &pending, r, o.size).await?;
            pending.clear();
            ran
        } else {
            // After a quoting error, GNU runs what it has read, but with -x (which -L and
            // -I imply) only the command lines that were complete.
            let drop_partial = read_error.is_some() && o.exit_on_size;
            let (ran, used) =
                run_batches(ctx, &mut runner, &pending, &o, ended, drop_partial).await?;
            pending.drain(..used);
            ran
        };
        if status.is_some() || ended {
            break;
        }
    }
    // No input at all: the command runs once, without arguments, unless -r.
    read_bytes.finish(ctx.io.budget)?;
    let no_input = !seen_items && status.is_none() && read_error.is_none();
    if no_input && o.replace.is_none() && !o.no_run_if_empty {
        let argv = runner.command.to_vec();
        status = runner.exec(ctx, &argv).await?;
    }
    // As GNU xargs, wait for the commands still running, whatever happened.
    let waited = runner.wait_all(ctx).await?;
    if let Some(status) = status.or(waited) {
        return Ok(status);
    }
    if let Some(msg) = read_error {
        warn(ctx.stderr, msg);
        return Ok(runner.fatal());
    }
    Ok(if runner.failed { 123 } else { 0 })
}

/// The input of xargs, given out in pieces that each end where an item ends (after a
/// delimiter, or a newline that no backslash escapes), so that each piece is read alone.
struct Input {
    buf: Vec<u8>,
    delim: Option<u8>,
    /// Nothing more comes from stdin.
    ended: bool,
    done: bool,
}

impl Input {
    fn stream(delim: Option<u8>) -> Self {
        Input {
            buf: Vec::new(),
            delim,
            ended: false,
            done: false,
        }
    }

    fn whole(data: Vec<u8>, delim: Option<u8>) -> Self {
        Input {
            buf: data,
            delim,
            ended: true,
            done: false,
        }
    }

    /// The next piece, and whether it is the last; `None` after the last.
    async fn next_piece(&mut self, stdin: &Stdin) -> Result<Option<(Vec<u8>, bool)>> {
        loop {
            if self.done {
                return Ok(None);
            }
            if self.ended {
                self.done = true;
                return Ok(Some((std::mem::take(&mut self.buf), true)));
            }
            if let Some(cut) = self.cut() {
                let rest = self.buf.split_off(cut);
                return Ok(Some((std::mem::replace(&mut self.buf, rest), false)));
            }
            match stdin.read().await? {
                Some(chunk) => self.buf.extend_from_slice(&chunk),
                None => self.ended = true,
            }
        }
    }

    /// Where the bytes at hand can be cut: after the last item boundary in them.
    fn cut(&self) -> Option<usize> {
        if let Some(d) = self.delim {
            return memchr::memrchr(d, &self.buf).map(|i| i + 1);
        }
        memchr::memrchr_iter(b'\n', &self.buf)
            .find(|&i| {
                let escapes = self.buf[..i]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                escapes % 2 == 0
            })
            .map(|i| i + 1)
    }
}

/// What one piece of the input gave.
#[derive(Default)]
struct Read {
    items: Vec<Item>,
    /// A quoting error ended the input here.
    error: Option<&'static str>,
    /// The end-of-file string (`-E`) ended the input here.
    eof_string: bool,
}

impl Read {
    fn ended_by_eof_string(items: Vec<Item>) -> Self {
        Read {
            items,
            eof_string: true,
            ..Read::default()
        }
    }

    fn failed(items: Vec<Item>, msg: &'static str) -> Self {
        Read {
            items,
            error: Some(msg),
            ..Read::default()
        }
    }
}

/// Items separated by `delim` (`-0`, `-d`): no quoting; a last item needs no delimiter.
fn split_delimited(input: &[u8], delim: u8) -> Vec<Item> {
    let mut items: Vec<Item> = input
        .split(|&b| b == delim)
        .map(|w| Item {
            word: w.to_vec(),
            line_end: true,
        })
        .collect();
    if input.last() == Some(&delim) || input.is_empty() {
        items.pop();
    }
    items
}

const UNMATCHED_SINGLE: &str =
    "unmatched single quote; by default quotes are special to xargs unless you use the -0 option";
const UNMATCHED_DOUBLE: &str =
    "unmatched double quote; by default quotes are special to xargs unless you use the -0 option";

/// The default input: words separated by blanks and newlines, with `'...'`, `"..."` and
/// backslash quoting. Carriage returns, vertical tabs and form feeds are skipped between
/// words and kept inside them, as GNU's. A newline ends an input line unless a blank comes
/// before it or the line has no word; so does the end of the input (`last`: this piece is
/// the end).
fn read_words(input: &[u8], eof: Option<&[u8]>, last: bool) -> Read {
    let mut items: Vec<Item> = Vec::new();
    let mut word: Option<Vec<u8>> = None;
    let mut i = 0;
    let mut prev_blank = false;
    let mut line_has_word = false;
    // Returns false when the word is the end-of-file string.
    let finish = |word: &mut Option<Vec<u8>>, items: &mut Vec<Item>| -> bool {
        if let Some(w) = word.take() {
            if eof == Some(w.as_slice()) {
                return false;
            }
            items.push(Item {
                word: w,
                line_end: false,
            });
        }
        true
    };
    while i < input.len() {
        let c = input[i];
        i += 1;
        match c {
            b' ' | b'\t' => {
                if !finish(&mut word, &mut items) {
                    return Read::ended_by_eof_string(items);
                }
                prev_blank = true;
                continue;
            }
            b'\r' | b'\x0b' | b'\x0c' if word.is_none() => continue,
            b'\n' => {
                line_has_word |= word.is_some();
                if !finish(&mut word, &mut items) {
                    return Read::ended_by_eof_string(items);
                }
                if !prev_blank && line_has_word {
                    if let Some(last) = items.last_mut() {
                        last.line_end = true;
                    }
                }
                prev_blank = false;
                line_has_word = false;
                continue;
            }
            b'\\' => {
                if let Some(&next) = input.get(i) {
                    word.get_or_insert_with(Vec::new).push(next);
                    i += 1;
                }
            }
            b'\'' | b'"' => {
                let w = word.get_or_insert_with(Vec::new);
                loop {
                    match input.get(i) {
                        Some(&q) if q == c => {
                            i += 1;
                            break;
                        }
                        Some(b'\n') | None => {
                            let msg = if c == b'\'' {
                                UNMATCHED_SINGLE
                            } else {
                                UNMATCHED_DOUBLE
                            };
                            return Read::failed(items, msg);
                        }
                        Some(&b) => {
                            w.push(b);
                            i += 1;
                        }
                    }
                }
            }
            _ => {
                // A run of ordinary bytes goes in at once.
                let run = input[i..]
                    .iter()
                    .position(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\\' | b'\'' | b'"'))
                    .unwrap_or(input.len() - i);
                let w = word.get_or_insert_with(Vec::new);
                w.push(c);
                w.extend_from_slice(&input[i..i + run]);
                i += run;
            }
        }
        prev_blank = false;
    }
    if !finish(&mut word, &mut items) {
        return Read::ended_by_eof_string(items);
    }
    if last {
        if let Some(item) = items.last_mut() {
            item.line_end = true;
        }
    }
    Read {
        items,
        ..Read::default()
    }
}

/// `-I`: each input line is one item, leading blanks dropped, quotes still removed.
fn read_lines(input: &[u8], eof: Option<&[u8]>) -> Read {
    let mut items = Vec::new();
    let mut word: Vec<u8> = Vec::new();
    let mut started = false;
    let mut i = 0;
    while i < input.len() {
        let c = input[i];
        i += 1;
        match c {
            // GNU skips every isspace() byte before a line's item (\v and \f too).
            b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r' if !started => {}
            b'\n' => {
                if started {
                    if eof == Some(word.as_slice()) {
                        return Read::ended_by_eof_string(items);
                    }
                    items.push(Item {
                        word: std::mem::take(&mut word),
                        line_end: true,
                    });
                }
                started = false;
            }
            b'\\' => {
                started = true;
                if let Some(&next) = input.get(i) {
                    word.push(next);
                    i += 1;
                }
            }
            b'\'' | b'"' => {
                started = true;
                loop {
                    match input.get(i) {
                        Some(&q) if q == c => {
                            i += 1;
                            break;
                        }
                        Some(b'\n') | None => {
                            let msg = if c == b'\'' {
                                UNMATCHED_SINGLE
                            } else {
                                UNMATCHED_DOUBLE
                            };
                            return Read::failed(items, msg);
                        }
                        Some(&b) => {
                            word.push(b);
                            i += 1;
                        }
                    }
                }
            }
            _ => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        if eof == Some(word.as_slice()) {
            return Read::ended_by_eof_string(items);
        }
        items.push(Item {
            word,
            line_end: true,
        });
    }
    Read {
        items,
        ..Read::default()
    }
}

struct Runner<'a, 'c> {
    command: &'a [Vec<u8>],
    verbose: bool,
    failed: bool,
    keep_stdin: bool,
    /// Commands that may run at once (`-P`); with 1, each runs before the next starts.
    procs: usize,
    /// The commands running at once, with their names.
    running: Vec<(Vec<u8>, LocalFuture<'c, Result<Status>>)>,
    /// The status xargs stops with, once a command said so (255).
    stop: Option<Status>,
}

impl<'c> Runner<'_, 'c> {
    /// The status of a fatal error: GNU still reports commands that failed before it.
    fn fatal(&self) -> Status {
        if self.failed {
            123
        } else {
            1
        }
    }

    /// Runs one command line (with `-P`, starts it); `Some(status)` when xargs must stop.
    async fn exec(&mut self, ctx: &mut Ctx<'c>, argv: &[Vec<u8>]) -> Result<Option<Status>> {
        ctx.io.budget.spend(1)?;
        if self.verbose {
            for (i, a) in argv.iter().enumerate() {
                if i > 0 {
                    ctx.stderr.push(b' ');
                }
                shell_quote(ctx.stderr, a);
            }
            ctx.stderr.push(b'\n');
        }
        let name = argv.first().map_or(&b""[..], |a| a.as_slice());
        let Some(tool) = lookup(name) else {
            let mut msg = b"xargs: ".to_vec();
            msg.extend_from_slice(name);
            msg.extend_from_slice(b": No such file or directory\n");
            ctx.stderr.extend_from_slice(&msg);
            return Ok(Some(127));
        };
        if self.procs > 1 {
            return self.start(ctx, tool, argv).await;
        }
        // GNU xargs gives its commands /dev/null as stdin unless -a leaves it free.
        let empty = Stdin::default();
        let stdin = if self.keep_stdin {
            ctx.io.stdin
        } else {
            &empty
        };
        // What xargs itself has to say (-t) goes out before the command's own output.
        ctx.flush().await?;
        let status = tool(ToolIo { stdin, ..ctx.io }, argv).await?;
        Ok(self.ended(ctx, name, status))
    }

    /// What a command's status means to xargs: 255 stops it (with 124), another failure
    /// makes its own status 123.
    fn ended(&mut self, ctx: &mut Ctx<'_>, name: &[u8], status: Status) -> Option<Status> {
        match status {
            0 => None,
            255 => {
                let mut msg = b"xargs: ".to_vec();
                msg.extend_from_slice(name);
                msg.extend_from_slice(b": exited with status 255; aborting\n");
                ctx.stderr.extend_from_slice(&msg);
                Some(124)
            }
            _ => {
                self.failed = true;
                None
            }
        }
    }

    /// `-P`: starts a command beside those running, once fewer than `procs` are. Each has
    /// buffers of its own and writes to xargs' stdout and stderr as it flushes, so output
    /// comes in the order the commands write it.
    async fn start(
        &mut self,
        ctx: &mut Ctx<'c>,
        tool: Run,
        argv: &[Vec<u8>],
    ) -> Result<Option<Status>> {
        while self.running.len() >= self.procs {
            if let Some(status) = self.wait_one(ctx).await? {
                return Ok(Some(status));
            }
        }
        // What xargs itself has to say (-t) goes out before the command's own output.
        ctx.flush().await?;
        let io = ctx.io;
        let shared_stdin = self.keep_stdin.then_some(ctx.io.stdin);
        let argv = argv.to_vec();
        let name = argv[0].clone();
        self.running.push((
            name,
            Box::pin(async move {
                let empty = Stdin::default();
                let stdin = shared_stdin.unwrap_or(&empty);
                tool(ToolIo { stdin, ..io }, &argv).await
            }),
        ));
        Ok(None)
    }

    /// Waits for the first running command to end.
    async fn wait_one(&mut self, ctx: &mut Ctx<'c>) -> Result<Option<Status>> {
        if self.running.is_empty() {
            return Ok(None);
        }
        let running = &mut self.running;
        let (i, status) = std::future::poll_fn(|cx| {
            for (i, (_, f)) in running.iter_mut().enumerate() {
                if let Poll::Ready(r) = f.as_mut().poll(cx) {
                    return Poll::Ready((i, r));
                }
            }
            Poll::Pending
        })
        .await;
        let (name, _) = self.running.remove(i);
        let status = status?;
        let stop = self.ended(ctx, &name, status);
        if stop.is_some() && self.stop.is_none() {
            self.stop = stop;
        }
        Ok(self.stop)
    }

    /// Waits for every command still running.
    async fn wait_all(&mut self, ctx: &mut Ctx<'c>) -> Result<Option<Status>> {
        while !self.running.is_empty() {
            self.wait_one(ctx).await?;
        }
        Ok(self.stop)
    }
}

fn arg_len(a: &[u8]) -> usize {
    a.len() + 1
}

/// The usual mode: as many items per command as `-n`, `-L` and `-s` allow. Runs the
/// command lines that `items` fill; the last one, if not full, only when the input has
/// `ended`. The status that stops xargs, if any, and how many items were used.
async fn run_batches<'c>(
    ctx: &mut Ctx<'c>,
    runner: &mut Runner<'_, 'c>,
    items: &[Item],
    o: &Options,
    ended: bool,
    drop_partial: bool,
) -> Result<(Option<Status>, usize)> {
    let base: usize = runner.command.iter().map(|a| arg_len(a)).sum();
    let mut i = 0;
    while i < items.len() {
        let mut argv = runner.command.to_vec();
        let mut len = base;
        let mut lines = 0;
        let start = i;
        let mut full = false;
        while i < items.len() {
            let item = &items[i];
            let need = arg_len(&item.word);
            if len + need > o.size {
                if i == start {
                    warn(ctx.stderr, "argument line too long");
                    return Ok((Some(runner.fatal()), i));
                }
                // -x (which -L implies): the items -n or -L asks for must all fit.
                if o.exit_on_size && (o.max_args.is_some() || o.max_lines.is_some()) {
                    warn(ctx.stderr, "argument list too long");
                    return Ok((Some(runner.fatal()), i));
                }
                full = true;
                break;
            }
            len += need;
            argv.push(item.word.clone());
            i += 1;
            if o.max_args.is_some_and(|n| i - start >= n) {
                full = true;
                break;
            }
            if item.line_end {
                lines += 1;
                if o.max_lines.is_some_and(|n| lines >= n) {
                    full = true;
                    break;
                }
            }
        }
        if !full && !ended {
            return Ok((None, start)); // more input may fill it
        }
        if drop_partial && !full {
            break;
        }
        if let Some(status) = runner.exec(ctx, &argv).await? {
            return Ok((Some(status), i));
        }
    }
    Ok((None, i))
}

/// `-I R`: one command per input line, with R replaced by the line in each argument (in
/// the initial arguments, as GNU's manual says: not in the command's name).
async fn run_replace<'c>(
    ctx: &mut Ctx<'c>,
    runner: &mut Runner<'_, 'c>,
    items: &[Item],
    r: &[u8],
    size: usize,
) -> Result<Option<Status>> {
    for item in items {
        let argv: Vec<Vec<u8>> = runner
            .command
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if i == 0 {
                    a.clone()
                } else {
                    replace_all(a, r, &item.word)
                }
            })
            .collect();
        let len: usize = argv.iter().map(|a| arg_len(a)).sum();
        ctx.io.budget.spend_bytes(len)?;
        // GNU's words, by what does not fit: the item alone, the command's name, or the
        // whole line (its "command too long", for some sizes in between, is not modelled).
        if arg_len(&item.word) > size {
            warn(ctx.stderr, "argument line too long");
            return Ok(Some(runner.fatal()));
        }
        if runner.command.first().map_or(0, |c| arg_len(c)) > size {
            warn(
                ctx.stderr,
                "cannot fit single argument within argument list size limit",
            );
            return Ok(Some(runner.fatal()));
        }
        if len > size {
            warn(ctx.stderr, "argument list too long");
            return Ok(Some(runner.fatal()));
        }
        if let Some(status) = runner.exec(ctx, &argv).await? {
            return Ok(Some(status));
        }
    }
    Ok(None)
}

fn replace_all(s: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn x(args: &[&str], stdin: &str) -> (i32, String) {
        let mut argv = vec!["xargs"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.status, r.stdout_str())
    }

    // Expected values from GNU xargs 4.9.0.
    #[test]
    fn like_gnu() {
        let input = "a b  c\nd \"e f\" 'g h' i\\ j\n";
        assert_eq!(x(&[], input), (0, "a b c d e f g h i j\n".into()));
        assert_eq!(x(&["-n", "2"], input).1, "a b\nc d\ne f g h\ni j\n");
        assert_eq!(
            x(&["-I", "{}", "echo", "[{}]"], input).1,
            "[a b  c]\n[d e f g h i j]\n"
        );
        assert_eq!(x(&["-L", "1"], input).1, "a b c\nd e f g h i j\n");
        assert_eq!(x(&["-0", "-n1"], "a\0b c\0").1, "a\nb c\n");
        assert_eq!(x(&["-d,"], "a,b,c\n").1, "a b c\n\n");
        assert_eq!(x(&[], ""), (0, "\n".into()));
        assert_eq!(x(&["-r", "echo", "hi"], ""), (0, "".into()));
        assert_eq!(x(&[], "a \"b\n"), (1, "a\n".into()));
        assert_eq!(x(&["-s", "10"], "1 2 3 4 5\n").1, "1 2\n3 4\n5\n");
        assert_eq!(x(&["-s", "5"], "1 2 3 4 5\n"), (1, "".into()));
        assert_eq!(x(&["false"], "a\n").0, 123);
        assert_eq!(x(&["nonexist"], "a\n").0, 127);
        assert_eq!(x(&["-L1"], "a \nb\n").1, "a b\n");
        assert_eq!(
            x(&["-I{}", "echo", "{}{}", "x{}y"], "abc\n").1,
            "abcabc xabcy\n"
        );
        assert_eq!(x(&["-E", "two"], "one two\nthree\n").1, "one\n");
    }
}
