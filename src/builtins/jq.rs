//! `jq`: jq 1.7.1's command line on the engine in [`crate::jq`].
//!
//! Steps: one per 64 bytes of input read and of output written, plus what the filter
//! spends (see [`crate::jq`]); the limit is exact.

use std::rc::Rc;

use crate::builtins::Ctx;
use crate::error::{Error, Result, Status};
use crate::jq::fuel::{self, Abort};
use crate::jq::json::{self, Reader, ReaderState, Style};
use crate::jq::value::{Key, Map};
use crate::jq::{self as engine, Cache, Failure, Inputs, RunData, Val};

/// The options of one run.
#[derive(Default)]
struct Opts {
    null_input: bool,
    raw_input: bool,
    slurp: bool,
    raw_output: bool,
    join_output: bool,
    raw_output0: bool,
    exit_status: bool,
    seq: bool,
    stream: bool,
    style: Style,
    program: Option<String>,
    /// `-f`: the program operand names the file that holds the program
    from_file: bool,
    files: Vec<Vec<u8>>,
    named: Vec<(String, Val)>,
    positional: Vec<Val>,
}

enum ArgMode {
    Files,
    Args,
    JsonArgs,
}

fn usage_error(ctx: &mut Ctx<'_>, prog: &str, msg: &str) -> Result<Status> {
    ctx.stderr.extend_from_slice(
        format!(
            "{prog}: {msg}\nUse {prog} --help for help with command-line options,\nor see the jq manpage, or online docs  at https://jqlang.github.io/jq\n"
        )
        .as_bytes(),
    );
    Ok(2)
}

/// `jq --help`: our own summary (jq's help text is its own documentation).
const USAGE: &str = "\
Usage: jq [OPTION...] FILTER [FILE...]
       jq [OPTION...] --args FILTER [STRING...]
       jq [OPTION...] --jsonargs FILTER [JSON...]

mkfifo's jq: the language, input and output of jq 1.7.1. FILTER runs over each JSON
text of the FILEs (or of stdin), and its results are printed as JSON. Without a FILTER,
`.` runs.

Input:  -n (null as the one input)  -R (each line a string)  -s (all inputs as one array)
        --stream  --stream-errors  --seq
Output: -c (compact)  -r (strings raw)  -j (raw, no newlines)  --raw-output0  -a (ASCII)
        -S (keys sorted)  -C / -M (colour or not)  --tab  --indent N  --unbuffered
Values: --arg NAME TEXT  --argjson NAME JSON  --slurpfile NAME FILE  --rawfile NAME FILE
        --args  --jsonargs  ($ARGS.named, $ARGS.positional)
Other:  -f (FILTER names the filter's file)  -e (exit status from the last output)
        -V / --version  -h / --help  -- (no options after it)
";

/// Reads a file operand: `-`, a URL, or nothing.
async fn open(ctx: &mut Ctx<'_>, name: &[u8]) -> Result<std::result::Result<Vec<u8>, String>> {
    Ok(ctx.open(name).await?.map(|b| b.to_vec()))
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let prog = String::from_utf8_lossy(args.first().map_or(b"jq".as_slice(), |a| a)).into_owned();
    let mut o = Opts::default();
    let mut mode = ArgMode::Files;
    let mut i = 1;
    let mut no_more_opts = false;
    let text = |a: &[u8]| json::lossy(a).into_owned();
    while i < args.len() {
        let a = &args[i];
        i += 1;
        // like jq, an argument is an option when it is `--...` or `-LETTER...` (`-` alone
        // is an operand)
        let optish =
            a.first() == Some(&b'-') && a.len() > 1 && (a[1] == b'-' || a[1].is_ascii_alphabetic());
        let is_opt = !no_more_opts && optish;
        if !is_opt {
            if o.program.is_none() {
                o.program = Some(text(a));
            } else {
                match mode {
                    ArgMode::Files => o.files.push(a.clone()),
                    ArgMode::Args => o.positional.push(Val::str(text(a))),
                    ArgMode::JsonArgs => match json::parse_one(&text(a)) {
                        Ok(v) => o.positional.push(v),
                        Err(_) => {
                            return usage_error(
                                ctx,
                                &prog,
                                "invalid JSON text passed to --jsonargs",
                            )
                        }
                    },
                }
            }
            continue;
        }
        if a == b"--" {
            no_more_opts = true;
            continue;
        }
        let s = text(a);
        if let Some(long) = s.strip_prefix("--") {
            let need = |n: usize, i: usize| i + n <= args.len();
            match long {
                "null-input" => o.null_input = true,
                "raw-input" => o.raw_input = true,
                "slurp" => o.slurp = true,
                "compact-output" => o.style.indent = 0,
                "raw-output" => o.raw_output = true,
                "raw-output0" => {
                    o.raw_output = true;
                    o.raw_output0 = true;
                }
                "join-output" => {
                    o.raw_output = true;
                    o.join_output = true;
                }
                "ascii-output" => o.style.ascii = true,
                "sort-keys" => o.style.sort_keys = true,
                "color-output" => o.style.color = true,
                "monochrome-output" => o.style.color = false,
                "tab" => {
                    o.style.tab = true;
                    o.style.indent = 1;
                }
                "indent" => {
                    if !need(1, i) {
                        return usage_error(ctx, &prog, "--indent takes one parameter");
                    }
                    let n: i64 = text(&args[i]).parse().unwrap_or(-2);
                    i += 1;
                    if !(-1..=7).contains(&n) {
                        return usage_error(ctx, &prog, "--indent takes a number between -1 and 7");
                    }
                    o.style.tab = false;
                    o.style.indent = n.max(0) as usize;
                }
                "unbuffered" => {}
                "stream" => o.stream = true,
                "stream-errors" => o.stream = true,
                "seq" => o.seq = true,
                "exit-status" => o.exit_status = true,
                "from-file" => o.from_file = true,
                "arg" => {
                    if !need(2, i) {
                        return usage_error(
                            ctx,
                            &prog,
                            "--arg takes two parameters (e.g. --arg varname value)",
                        );
                    }
                    o.named.push((text(&args[i]), Val::str(text(&args[i + 1]))));
                    i += 2;
                }
                "argjson" => {
                    if !need(2, i) {
                        return usage_error(
                            ctx,
                            &prog,
                            "--argjson takes two parameters (e.g. --argjson varname text)",
                        );
                    }
                    match json::parse_one(&text(&args[i + 1])) {
                        Ok(v) => o.named.push((text(&args[i]), v)),
                        Err(_) => {
                            return usage_error(
                                ctx,
                                &prog,
                                "invalid JSON text passed to --argjson",
                            );
                        }
                    }
                    i += 2;
                }
                "slurpfile" | "rawfile" => {
                    if !need(2, i) {
                        return usage_error(
                            ctx,
                            &prog,
                            &format!(
                                "--{long} takes two parameters (e.g. --{long} varname filename)"
                            ),
                        );
                    }
                    let name = text(&args[i]);
                    let file = args[i + 1].clone();
                    i += 2;
                    let data = match open(ctx, &file).await? {
                        Ok(d) => d,
                        Err(e) => {
                            ctx.stderr.extend_from_slice(
                                format!("{prog}: Bad JSON in --{long} {name} {}: Could not open {}: {e}\n", text(&file), text(&file)).as_bytes(),
                            );
                            return Ok(2);
                        }
                    };
                    if !fuel::spend_bytes(data.len())
                        || ctx.io.budget.spend_bytes(data.len()).is_err()
                    {
                        return Err(Error::StepLimit {
                            limit: ctx.io.budget.limit(),
                        });
                    }
                    if long == "rawfile" {
                        o.named
                            .push((name, Val::str(json::lossy(&data).into_owned())));
                    } else {
                        let mut r = Reader::new(&data);
                        let mut vals = Vec::new();
                        while let Some(v) = r.next_value() {
                            match v {
                                Ok(v) => vals.push(v),
                                Err(e) => {
                                    ctx.stderr.extend_from_slice(
                                        format!(
                                            "{prog}: Bad JSON in --slurpfile {name} {}: {}\n",
                                            text(&file),
                                            e.text()
                                        )
                                        .as_bytes(),
                                    );
                                    return Ok(2);
                                }
                            }
                        }
                        o.named.push((name, Val::arr(vals)));
                    }
                }
                "args" => mode = ArgMode::Args,
                "jsonargs" => mode = ArgMode::JsonArgs,
                "version" => {
                    ctx.stdout.extend_from_slice(b"jq-1.7.1\n");
                    return Ok(0);
                }
                "help" => {
                    ctx.stdout.extend_from_slice(USAGE.as_bytes());
                    return Ok(0);
                }
                "build-configuration" => {
                    ctx.stdout.extend_from_slice(b"mkfifo\n");
                    return Ok(0);
                }
                _ => return usage_error(ctx, &prog, &format!("Unknown option {s}")),
            }
            continue;
        }
        // short options, possibly several in one word
        let letters: Vec<char> = s[1..].chars().collect();
        for c in letters {
            match c {
                'n' => o.null_input = true,
                'R' => o.raw_input = true,
                's' => o.slurp = true,
                'c' => o.style.indent = 0,
                'r' => o.raw_output = true,
                'j' => {
                    o.raw_output = true;
                    o.join_output = true;
                }
                'a' => o.style.ascii = true,
                'S' => o.style.sort_keys = true,
                'C' => o.style.color = true,
                'M' => o.style.color = false,
                'e' => o.exit_status = true,
                'f' => o.from_file = true,
                'L' => {
                    if i < args.len() {
                        i += 1;
                    }
                }
                'h' => {
                    ctx.stdout.extend_from_slice(USAGE.as_bytes());
                    return Ok(0);
                }
                'V' => {
                    ctx.stdout.extend_from_slice(b"jq-1.7.1\n");
                    return Ok(0);
                }
                _ => return usage_error(ctx, &prog, &format!("Unknown option {s}")),
            }
        }
    }
    // The program is the first operand; without one, `.` (jq's default when its input or
    // output is not a terminal, as a script's never are). With -f the operand names the
    // program's file (`-` is no name for stdin there).
    let mut program = o.program.take().unwrap_or_else(|| ".".to_string());
    if o.from_file {
        let file = program.into_bytes();
        let opened = if file == b"-" {
            Err("No such file or directory".to_string())
        } else {
            open(ctx, &file).await?
        };
        match opened {
            Ok(d) => program = String::from_utf8_lossy(&d).into_owned(),
            Err(e) => {
                ctx.stderr.extend_from_slice(
                    format!("{prog}: Could not open {}: {e}\n", text(&file)).as_bytes(),
                );
                return Ok(2);
            }
        }
    }
    run_program(ctx, &prog, o, program).await
}

/// The values `input` reads: JSON texts, raw lines, or stream events, from stdin or
/// the file operands in turn.
struct Source {
    files: Vec<(Val, Vec<u8>)>,
    idx: usize,
    pos: ReaderState,
    raw: bool,
    stream: bool,
    events: std::collections::VecDeque<Val>,
    lines: usize,
    /// bytes whose newlines `lines` counts
    counted: usize,
    /// just past the first newline at or after the last value's end
    nl_at: usize,
    failed: bool,
    read_any: bool,
}

impl Source {
    fn current(&self) -> Option<&(Val, Vec<u8>)> {
        self.files.get(self.idx)
    }

    /// Counts the lines read once a value that ends at `end` has been read: jq reads
    /// its input a line at a time, so up to the end of the line where the value ends.
    fn count_lines(&mut self, end: usize) {
        let Some((_, data)) = self.files.get(self.idx) else {
            return;
        };
        if end >= self.nl_at {
            self.nl_at = match data.get(end..).and_then(memchr_nl) {
                Some(n) => end + n + 1,
                None => data.len(),
            };
        }
        let upto = self.nl_at;
        if upto > self.counted {
            self.lines += memchr::memchr_iter(b'\n', &data[self.counted..upto]).count();
            self.counted = upto;
        }
    }
}

impl Inputs for Source {
    fn next_input(&mut self) -> Option<std::result::Result<Val, String>> {
        if let Some(e) = self.events.pop_front() {
            return Some(Ok(e));
        }
        loop {
            if self.failed {
                return None;
            }
            let (_, data) = self.files.get(self.idx)?;
            self.read_any = true;
            if self.raw {
                let start = self.pos.offset();
                if start >= data.len() {
                    self.idx += 1;
                    self.pos = self
                        .files
                        .get(self.idx)
                        .map_or_else(ReaderState::default, |(_, d)| ReaderState::start(d));
                    continue;
                }
                let rest = &data[start..];
                let (line, used) = match memchr_nl(rest) {
                    Some(n) => (&rest[..n], n + 1),
                    None => (rest, rest.len()),
                };
                if !fuel::spend_bytes(used) {
                    return Some(Err("step limit".into()));
                }
                self.lines += usize::from(used > line.len());
                self.pos.skip_to(start + used);
                return Some(Ok(Val::str(json::lossy(line).into_owned())));
            }
            let before = self.pos.offset();
            let mut r = self.pos.resume(data);
            let next = r.next_value();
            let after = r.offset();
            let end = r.last_end;
            self.pos = r.detach();
            if !fuel::spend_bytes(after.saturating_sub(before)) {
                return Some(Err("step limit".into()));
            }
            self.count_lines(end);
            match next {
                None => {
                    self.idx += 1;
                    self.counted = 0;
                    self.nl_at = 0;
                    self.pos = self
                        .files
                        .get(self.idx)
                        .map_or_else(ReaderState::default, |(_, d)| ReaderState::start(d));
                    continue;
                }
                Some(Err(e)) => {
                    self.failed = true;
                    return Some(Err(e.text()));
                }
                Some(Ok(v)) => {
                    if self.stream {
                        stream_events(&v, &mut Vec::new(), &mut self.events, true);
                        if let Some(e) = self.events.pop_front() {
                            return Some(Ok(e));
                        }
                        continue;
                    }
                    return Some(Ok(v));
                }
            }
        }
    }

    fn line_number(&self) -> usize {
        self.lines
    }

    fn copy_next(&mut self, out: &mut Vec<u8>, style: &Style) -> Option<bool> {
        if self.failed || self.raw || self.stream || !self.events.is_empty() {
            return None;
        }
        let (_, data) = self.files.get(self.idx)?;
        let before = self.pos.offset();
        let start = out.len();
        let mut r = self.pos.resume(data);
        if !r.copy_value(out, style) {
            return None;
        }
        let after = r.offset();
        let end = r.last_end;
        self.pos = r.detach();
        self.read_any = true;
        if !fuel::spend_bytes(after.saturating_sub(before)) {
            out.truncate(start);
            return Some(false);
        }
        self.count_lines(end);
        Some(true)
    }

    fn filename(&self) -> Val {
        // jq names stdin "<stdin>", once it has read from it.
        if !self.read_any {
            return Val::Null;
        }
        self.current().map_or(Val::Null, |(n, _)| n.clone())
    }

    fn read_any(&self) -> bool {
        self.read_any
    }
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', b)
}

/// `tostream` of one value, as `--stream` gives it.
fn stream_events(
    v: &Val,
    path: &mut Vec<Val>,
    out: &mut std::collections::VecDeque<Val>,
    top: bool,
) {
    let leaf = |p: &Vec<Val>, x: Val| Val::arr(vec![Val::arr(p.clone()), x]);
    match v {
        Val::Arr(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                path.push(Val::Num(i as f64));
                stream_events(x, path, out, false);
                path.pop();
            }
            let mut last = path.clone();
            last.push(Val::Num((a.len() - 1) as f64));
            out.push_back(Val::arr(vec![Val::arr(last)]));
        }
        Val::Obj(o) if !o.is_empty() => {
            let mut lastk = Val::Null;
            for (k, x) in o.iter() {
                path.push(k.to_val());
                stream_events(x, path, out, false);
                path.pop();
                lastk = k.to_val();
            }
            let mut last = path.clone();
            last.push(lastk);
            out.push_back(Val::arr(vec![Val::arr(last)]));
        }
        x => out.push_back(leaf(path, x.clone())),
    }
    let _ = top;
}

async fn run_program(ctx: &mut Ctx<'_>, prog: &str, o: Opts, program: String) -> Result<Status> {
    // `localtime`, `strflocaltime` and `%Z` read the zone from TZ, as jq does.
    crate::jq::time::set_tz(ctx.io.vars.get(b"TZ"));
    // global variables: $ENV, $__prog_name..., named args, $ARGS
    let mut names: Vec<String> = vec!["$ENV".into(), "$ARGS".into()];
    let mut env = Map::default();
    // `$ENV` copies every exported variable: only for a program that can read it (`env`
    // is `$ENV`). A text search, so it errs on the side of building it.
    if program.contains("ENV") || program.contains("env") {
        for (k, v) in ctx.io.vars.exported() {
            env.insert(
                Key::from(json::lossy(&k).as_ref()),
                Val::str(json::lossy(&v).into_owned()),
            );
        }
    }
    let mut named = Map::default();
    for (k, v) in &o.named {
        named.insert(Key::from(k.as_str()), v.clone());
    }
    let mut args_obj = Map::default();
    args_obj.insert(Key::from("positional"), Val::arr(o.positional.clone()));
    args_obj.insert(Key::from("named"), Val::obj(named));
    let mut values = vec![Val::obj(env), Val::obj(args_obj)];
    for (k, v) in &o.named {
        names.push(format!("${k}"));
        values.push(v.clone());
    }
    let compiled = {
        let mut cache = ctx.io.caches.get::<Cache>();
        match cache.get(&program, &names) {
            Ok(f) => f,
            Err(errs) => {
                for e in &errs {
                    let mut line = format!("{prog}: error: {}", e.msg);
                    if e.pos != usize::MAX {
                        let (lno, text, col) = locate(&program, e.pos);
                        line.push_str(&format!(
                            " at <top-level>, line {lno}:\n{text}{}",
                            " ".repeat(col)
                        ));
                    } else if !e.msg.starts_with("module not found")
                        && !e.msg.starts_with("Top-level program not given")
                    {
                        line.push_str(" at <top-level>, line 1:");
                    }
                    ctx.stderr.extend_from_slice(line.as_bytes());
                    ctx.stderr.push(b'\n');
                }
                let n = errs.len();
                ctx.stderr.extend_from_slice(
                    format!(
                        "{prog}: {n} compile error{}\n",
                        if n == 1 { "" } else { "s" }
                    )
                    .as_bytes(),
                );
                return Ok(3);
            }
        }
    };

    // the inputs
    let mut files = Vec::new();
    // With -n jq reads stdin only for `input` and `inputs`: a script's later commands
    // still have it (`jq -n ...; cat`).
    let reads_stdin = !o.null_input || program.contains("input");
    if o.files.is_empty() {
        let data = if reads_stdin {
            ctx.io.stdin.read_all().await?
        } else {
            Vec::new()
        };
        files.push((Val::str("<stdin>".to_string()), data));
    } else {
        for f in &o.files {
            match open(ctx, f).await? {
                Ok(d) => {
                    let name = if f == b"-" {
                        "<stdin>".to_string()
                    } else {
                        String::from_utf8_lossy(f).into_owned()
                    };
                    files.push((Val::str(name), d))
                }
                Err(e) => {
                    ctx.stderr.extend_from_slice(
                        format!(
                            "{prog}: error: Could not open {}: {e}\n",
                            String::from_utf8_lossy(f)
                        )
                        .as_bytes(),
                    );
                    files.push((Val::Null, Vec::new()));
                    // jq goes on with the other files and exits with 2
                    files.pop();
                }
            }
        }
    }
    let open_failed = files.len() < o.files.len();
    if o.seq {
        for (_, d) in files.iter_mut() {
            for b in d.iter_mut() {
                if *b == 0x1e {
                    *b = b' ';
                }
            }
        }
    }
    let mut src = Source {
        files,
        idx: 0,
        pos: ReaderState::default(),
        raw: o.raw_input,
        stream: o.stream,
        events: Default::default(),
        lines: 0,
        counted: 0,
        nl_at: 0,
        failed: false,
        read_any: false,
    };
    if let Some((_, d)) = src.files.first() {
        if !o.raw_input {
            src.pos = ReaderState::start(d);
        }
    }

    let now = {
        let t = ctx.io.host.now();
        t.secs as f64 + f64::from(t.nanos) / 1e9
    };
    let run = fuel::Run::start(ctx.io.budget.remaining());
    let mut out: Vec<u8> = Vec::new();
    let mut status: Status = 0;
    let mut last_output: Option<bool> = None;
    let mut halted: Option<Status> = None;
    let mut abort: Option<Abort> = None;
    {
        // slurped or raw-slurped inputs become one value
        let slurped: Option<std::result::Result<Val, String>> = if o.slurp {
            if o.raw_input {
                let mut all = String::new();
                for (_, d) in &src.files {
                    json::lossy_lines(d, &mut all);
                }
                if !fuel::spend_bytes(all.len()) {
                    abort = Some(Abort::Steps);
                }
                src.files.clear();
                Some(Ok(Val::str(all)))
            } else {
                let mut vals = Vec::new();
                let mut err = None;
                while let Some(v) = src.next_input() {
                    match v {
                        Ok(v) => vals.push(v),
                        Err(e) => {
                            err = Some(e);
                            break;
                        }
                    }
                }
                Some(match err {
                    Some(e) => Err(e),
                    None => Ok(Val::arr(vals)),
                })
            }
        } else {
            None
        };
        let mut slurp_src = SlurpSource {
            value: slurped,
            inner: &mut src,
        };
        let data = RunData::new(&compiled, &mut slurp_src, now);
        let copy = program.trim_matches([' ', '\t', '\n', '\r']) == "."
            && !(o.null_input || o.raw_input || o.slurp || o.raw_output || o.seq || o.stream)
            && !(o.style.sort_keys || o.style.ascii || o.style.color);
        let mut first = true;
        loop {
            if abort.is_some() {
                break;
            }
            if copy {
                // `.` with a layout-only style: arrays and objects go straight from the
                // input text to the output, spending what the general path spends (the
                // text read, one step for the filter, one for the output, its bytes)
                let start = out.len();
                match data.copy_next(&mut out, &o.style) {
                    None => {}
                    Some(false) => {
                        abort = Some(Abort::Steps);
                        break;
                    }
                    Some(true) => {
                        if !fuel::spend(1) || !fuel::spend(1) {
                            out.truncate(start);
                            abort = Some(Abort::Steps);
                            break;
                        }
                        out.push(b'\n');
                        if !fuel::spend_bytes(out.len() - start) {
                            abort = Some(Abort::Steps);
                            break;
                        }
                        // an array or object is true
                        last_output = Some(true);
                        status = 0;
                        first = false;
                        continue;
                    }
                }
            }
            let input = if o.null_input {
                if !first {
                    break;
                }
                Val::Null
            } else {
                match data.main_input() {
                    None => break,
                    Some(Ok(v)) => v,
                    Some(Err(e)) => {
                        if let Some(a) = fuel::aborted() {
                            abort = Some(a);
                            break;
                        }
                        ctx.stderr
                            .extend_from_slice(format!("{prog}: parse error: {e}\n").as_bytes());
                        status = 5;
                        break;
                    }
                }
            };
            first = false;
            let mut this_status = 0;
            for r in data.run(&compiled.filter, &values, input) {
                match r {
                    Ok(v) => {
                        if !fuel::spend(1) {
                            abort = Some(Abort::Steps);
                            break;
                        }
                        let before = out.len();
                        if let Err(msg) = write_output(&mut out, &v, &o) {
                            ctx.stderr.extend_from_slice(
                                format!("{prog}: error (at {}): {msg}\n", location(&data))
                                    .as_bytes(),
                            );
                            this_status = 5;
                            break;
                        }
                        if !fuel::spend_bytes(out.len() - before) {
                            abort = Some(Abort::Steps);
                            break;
                        }
                        last_output = Some(v.is_true());
                    }
                    Err(e) => match engine::failure(e) {
                        Failure::Abort(a) => {
                            abort = Some(a);
                            break;
                        }
                        Failure::Halt(code) => {
                            halted = Some(code);
                            break;
                        }
                        Failure::Error(v) => {
                            if let Some(a) = fuel::aborted() {
                                abort = Some(a);
                                break;
                            }
                            let msg = match &v {
                                Val::Str(s) => {
                                    format!("{prog}: error (at {}): {s}\n", location(&data))
                                }
                                v => format!(
                                    "{prog}: error (at {}) (not a string): {}\n",
                                    location(&data),
                                    v.to_json()
                                ),
                            };
                            ctx.stderr.extend_from_slice(msg.as_bytes());
                            this_status = 5;
                            break;
                        }
                    },
                }
            }
            ctx.stderr.extend_from_slice(&data.stderr.borrow());
            data.stderr.borrow_mut().clear();
            if abort.is_some() || halted.is_some() {
                break;
            }
            status = this_status;
            if let Some(a) = fuel::aborted() {
                abort = Some(a);
                break;
            }
        }
        ctx.stderr.extend_from_slice(&data.stderr.borrow());
    }
    let used = run.used();
    drop(run);
    ctx.stdout.extend_from_slice(&out);
    match abort {
        Some(Abort::Steps) => {
            return Err(ctx
                .io
                .budget
                .spend(ctx.io.budget.remaining() + 1)
                .err()
                .unwrap_or(Error::StepLimit {
                    limit: ctx.io.budget.limit(),
                }));
        }
        Some(Abort::Memory) => {
            ctx.io.budget.spend(used)?;
            ctx.stderr.extend_from_slice(
                format!("{prog}: error: cannot allocate memory (values are limited in size)\n")
                    .as_bytes(),
            );
            return Ok(5);
        }
        Some(Abort::Depth) => {
            ctx.io.budget.spend(used)?;
            ctx.stderr.extend_from_slice(
                format!("{prog}: error: cannot allocate memory (recursion too deep)\n").as_bytes(),
            );
            return Ok(5);
        }
        None => {}
    }
    ctx.io.budget.spend(used)?;
    if let Some(code) = halted {
        return Ok(code);
    }
    if src.failed && status == 0 {
        status = 5;
    }
    if open_failed && status == 0 {
        status = 2;
    }
    if o.exit_status && status == 0 {
        return Ok(match last_output {
            None => 4,
            Some(true) => 0,
            Some(false) => 1,
        });
    }
    Ok(status)
}

/// `<stdin>:N`, `FILE:N` or `<unknown>`, as jq's error messages say where they are.
fn location(data: &RunData<'_>) -> String {
    let name = data.filename.borrow().clone();
    let lines = data.line_number();
    match (name, data.read_any()) {
        (_, false) => "<unknown>".into(),
        (Val::Str(f), true) => format!("{f}:{lines}"),
        (_, true) => format!("<stdin>:{lines}"),
    }
}

fn write_output(out: &mut Vec<u8>, v: &Val, o: &Opts) -> std::result::Result<(), String> {
    if o.seq {
        out.push(0x1e);
    }
    match v {
        Val::Str(s) if o.raw_output => {
            if o.style.ascii {
                json::write_str(out, s, true);
            } else {
                if o.raw_output0 && s.contains('\0') {
                    return Err(
                        "Cannot dump a string containing NUL with --raw-output0 option".into(),
                    );
                }
                out.extend_from_slice(s.as_bytes());
            }
        }
        v => json::write(out, v, &o.style),
    }
    if o.raw_output0 {
        out.push(0);
    } else if !o.join_output {
        out.push(b'\n');
    }
    Ok(())
}

/// The inputs after `-s`: the slurped value first, then nothing.
struct SlurpSource<'a> {
    value: Option<std::result::Result<Val, String>>,
    inner: &'a mut Source,
}

impl Inputs for SlurpSource<'_> {
    fn next_input(&mut self) -> Option<std::result::Result<Val, String>> {
        match self.value.take() {
            Some(v) => {
                self.inner.read_any = true;
                Some(v)
            }
            None if self.inner.files.is_empty() && self.inner.read_any => None,
            None => self.inner.next_input(),
        }
    }
    fn line_number(&self) -> usize {
        self.inner.line_number()
    }
    fn filename(&self) -> Val {
        self.inner.filename()
    }
    fn read_any(&self) -> bool {
        self.inner.read_any
    }
    fn copy_next(&mut self, out: &mut Vec<u8>, style: &Style) -> Option<bool> {
        if self.value.is_some() || (self.inner.files.is_empty() && self.inner.read_any) {
            return None;
        }
        self.inner.copy_next(out, style)
    }
}

/// Line `lno` (from 1), its text and the column of byte `pos` in `program`.
fn locate(program: &str, pos: usize) -> (usize, &str, usize) {
    let pos = pos.min(program.len());
    let start = program[..pos].rfind('\n').map_or(0, |i| i + 1);
    let end = program[pos..].find('\n').map_or(program.len(), |i| pos + i);
    let lno = program[..start].matches('\n').count() + 1;
    (lno, &program[start..end], pos - start)
}

#[allow(dead_code)]
fn _keep(_: Rc<()>) {}
