//! `sort`: sorts, merges or checks lines as GNU sort in the C locale: keys (`-k`, `-t`),
//! numeric, general-numeric, human, month and version orders, `-u`, `-s`, `-m`, `-c`.
//! Spends 1 step per line plus 1 per 64 bytes of input (and a little more per `-g` key of
//! extreme magnitude).

mod compare;
mod debug;
mod keys;

use std::cmp::Ordering;

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::operands;
use crate::builtins::common::quote::quote_name;
use crate::builtins::common::quote::quote_str;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

use compare::{Config, KeyVal};
use keys::{Key, Order};

const SPEC: Spec = Spec {
    short: "bcCdfghik:mMno:rRsS:t:T:uVy:z",
    long: &[
        long("batch-size", Arg::Required, None),
        long("buffer-size", Arg::Required, None),
        long("check", Arg::Optional, None),
        long("compress-program", Arg::Required, None),
        long("debug", Arg::No, None),
        long("dictionary-order", Arg::No, Some('d')),
        long("field-separator", Arg::Required, Some('t')),
        long("files0-from", Arg::Required, None),
        long("general-numeric-sort", Arg::No, Some('g')),
        long("human-numeric-sort", Arg::No, Some('h')),
        long("ignore-case", Arg::No, Some('f')),
        long("ignore-leading-blanks", Arg::No, Some('b')),
        long("ignore-nonprinting", Arg::No, Some('i')),
        long("key", Arg::Required, Some('k')),
        long("merge", Arg::No, Some('m')),
        long("month-sort", Arg::No, Some('M')),
        long("numeric-sort", Arg::No, Some('n')),
        long("output", Arg::Required, Some('o')),
        long("parallel", Arg::Required, None),
        long("random-sort", Arg::No, Some('R')),
        long("random-source", Arg::Required, None),
        long("reverse", Arg::No, Some('r')),
        long("sort", Arg::Required, None),
        long("stable", Arg::No, Some('s')),
        long("temporary-directory", Arg::Required, Some('T')),
        long("unique", Arg::No, Some('u')),
        long("version-sort", Arg::No, Some('V')),
        long("zero-terminated", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

/// Why sort stops before sorting: a message, its exit status, and whether GNU adds the
/// "Try 'sort --help'" line.
struct Fail {
    msg: String,
    status: Status,
    usage: bool,
}

fn fail(msg: impl Into<String>) -> Fail {
    Fail {
        msg: msg.into(),
        status: 2,
        usage: false,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    No,
    Diagnose,
    Quiet,
}

struct Opts {
    cfg: Config,
    unique: bool,
    check: Check,
    merge: bool,
    eol: u8,
    files0: Option<Vec<u8>>,
    /// `--debug`: its warnings, and whether the keys get underlines of their own.
    debug: Option<(Vec<u8>, bool)>,
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let (opts, operands) = match parse_args(ctx, &args[1..]) {
        Ok(v) => v,
        Err(f) => {
            if f.usage {
                usage_error(ctx.stderr, "sort", &f.msg);
            } else {
                ctx.stderr
                    .extend_from_slice(format!("sort: {}\n", f.msg).as_bytes());
            }
            return Ok(f.status);
        }
    };
    match sort_main(ctx, &opts, &operands).await? {
        Ok(status) => Ok(status),
        Err(f) => {
            ctx.stderr
                .extend_from_slice(format!("sort: {}\n", f.msg).as_bytes());
            Ok(f.status)
        }
    }
}

/// The names to read: the operands, or those listed by `--files0-from`.
async fn input_names(
    ctx: &mut Ctx<'_>,
    opts: &Opts,
    operands: &[Vec<u8>],
) -> Result<std::result::Result<Vec<Vec<u8>>, Fail>> {
    let Some(from) = &opts.files0 else {
        return Ok(Ok(operands::or_stdin(operands)));
    };
    if let Some(extra) = operands.first() {
        return Ok(Err(Fail {
            msg: format!(
                "extra operand {}\nfile operands cannot be combined with --files0-from",
                quote_str(extra)
            ),
            status: 2,
            usage: true,
        }));
    }
    let list = match ctx.open(from).await? {
        Ok(b) => b,
        Err(reason) => {
            return Ok(Err(fail(format!(
                "cannot open {} for reading: {reason}",
                quote_str(from)
            ))))
        }
    };
    ctx.io.budget.spend_bytes(list.len())?;
    let body = list.strip_suffix(b"\0").unwrap_or(&list);
    let mut names = Vec::new();
    if !list.is_empty() {
        for (i, name) in body.split(|&b| b == 0).enumerate() {
            if name.is_empty() {
                return Ok(Err(fail(format!(
                    "{}:{}: invalid zero-length file name",
                    quote_name(from),
                    i + 1
                ))));
            }
            if name == b"-" && from == b"-" {
                return Ok(Err(fail(format!(
                    "when reading file names from stdin, no file name of {} allowed",
                    quote_str(name)
                ))));
            }
            names.push(name.to_vec());
        }
    }
    if names.is_empty() {
        return Ok(Err(fail(format!("no input from {}", quote_str(from)))));
    }
    Ok(Ok(names))
}

async fn sort_main(
    ctx: &mut Ctx<'_>,
    opts: &Opts,
    operands: &[Vec<u8>],
) -> Result<std::result::Result<Status, Fail>> {
    let names = match input_names(ctx, opts, operands).await? {
        Ok(n) => n,
        Err(f) => return Ok(Err(f)),
    };
    if let Some((warnings, _)) = &opts.debug {
        ctx.stderr.extend_from_slice(warnings);
    }
    if opts.check != Check::No && names.len() > 1 {
        return Ok(Err(Fail {
            msg: format!(
                "extra operand {} not allowed with -{}",
                quote_str(&names[1]),
                if opts.check == Check::Quiet { 'C' } else { 'c' }
            ),
            status: 2,
            usage: true,
        }));
    }
    // Read every input: lines are (input index, start, end) into the inputs.
    let mut inputs = Vec::with_capacity(names.len());
    for name in &names {
        match ctx.open(name).await? {
            Ok(b) => inputs.push(b),
            Err(reason) => {
                let what = if opts.check != Check::No {
                    "open failed"
                } else {
                    "cannot read"
                };
                return Ok(Err(fail(format!(
                    "{what}: {}: {reason}",
                    String::from_utf8_lossy(name)
                ))));
            }
        }
    }
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut file_starts = Vec::with_capacity(inputs.len());
    for data in &inputs {
        ctx.io.budget.spend_bytes(data.len())?;
        file_starts.push(lines.len());
        let body = data.strip_suffix(&[opts.eol]).unwrap_or(data);
        if data.is_empty() {
            continue;
        }
        for line in body.split(|&b| b == opts.eol) {
            ctx.io.budget.spend(1)?;
            lines.push(line);
        }
    }
    file_starts.push(lines.len());
    let cfg = &opts.cfg;
    // Decorate once.
    let nkeys = cfg.keys.len();
    let mut decor: Vec<KeyVal> = Vec::with_capacity(lines.len() * nkeys);
    let mut work = 0u64;
    for line in &lines {
        work += compare::decorate(line, cfg, &mut decor);
        // Spent as it grows, so that a budget runs out before all keys are read.
        if work >= 4096 {
            ctx.io.budget.spend(work / 4)?;
            work %= 4;
        }
    }
    ctx.io.budget.spend(work / 4)?;
    let kv = |i: usize| &decor[i * nkeys..(i + 1) * nkeys];
    let cmp = |i: usize, j: usize| compare::compare(lines[i], kv(i), lines[j], kv(j), cfg);
    // GNU never finds two NaN keys equal when it removes duplicates.
    let same_keys = |i: usize, j: usize| {
        compare::compare_keys(lines[i], kv(i), lines[j], kv(j), cfg) == Ordering::Equal
            && !kv(i)
                .iter()
                .zip(kv(j))
                .any(|(a, b)| a.val.is_nan() && b.val.is_nan())
    };

    if opts.check != Check::No {
        for (i, line) in lines.iter().enumerate().skip(1) {
            let bad = match cmp(i - 1, i) {
                Ordering::Greater => true,
                Ordering::Equal => opts.unique,
                Ordering::Less => false,
            };
            if bad {
                if opts.check == Check::Diagnose {
                    let mut msg = format!(
                        "sort: {}:{}: disorder: ",
                        String::from_utf8_lossy(&names[0]),
                        i + 1
                    )
                    .into_bytes();
                    msg.extend_from_slice(line);
                    msg.push(opts.eol);
                    ctx.stderr.extend_from_slice(&msg);
                }
                return Ok(Ok(1));
            }
        }
        return Ok(Ok(0));
    }

    let order: Vec<usize> = if opts.merge {
        merge(&file_starts, &cmp)
    } else {
        let mut idx: Vec<usize> = (0..lines.len()).collect();
        if nkeys == 1 && cfg.keys[0] == default_text_key() && cfg.last_resort {
            // Plain byte order of whole lines: no need for keys.
            idx.sort_by(|&a, &b| lines[a].cmp(lines[b]));
        } else {
            idx.sort_by(|&a, &b| cmp(a, b));
        }
        idx
    };
    let out = &mut *ctx.stdout;
    let mut prev: Option<usize> = None;
    for i in order {
        if opts.unique {
            if let Some(p) = prev {
                if same_keys(p, i) {
                    continue;
                }
            }
            prev = Some(i);
        }
        if let Some((_, show_keys)) = &opts.debug {
            let before = out.len();
            debug::annotate(out, lines[i], kv(i), cfg, *show_keys);
            ctx.io.budget.spend_bytes(out.len() - before)?;
            continue;
        }
        out.extend_from_slice(lines[i]);
        out.push(opts.eol);
    }
    Ok(Ok(0))
}

fn default_text_key() -> Key {
    Key::default()
}

/// Merges inputs that are each sorted: repeatedly the smallest head, the earliest input
/// winning ties.
fn merge(file_starts: &[usize], cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let n = file_starts.len().saturating_sub(1);
    let mut heads: Vec<usize> = file_starts[..n].to_vec();
    let ends: Vec<usize> = file_starts[1..].to_vec();
    let total = ends.last().copied().unwrap_or(0);
    let mut out = Vec::with_capacity(total);
    loop {
        let mut best: Option<usize> = None;
        for f in 0..n {
            if heads[f] >= ends[f] {
                continue;
            }
            best = match best {
                Some(b) if cmp(heads[b], heads[f]) != Ordering::Greater => Some(b),
                _ => Some(f),
            };
        }
        let Some(b) = best else { break };
        out.push(heads[b]);
        heads[b] += 1;
    }
    out
}

/// The value-taking options, for finding the obsolete `+POS` keys among the arguments.
fn takes_value(arg: &[u8]) -> bool {
    if let Some(name) = arg.strip_prefix(b"--") {
        if name.contains(&b'=') || name.is_empty() {
            return false;
        }
        let matches: Vec<&keys_arg::L> = keys_arg::LONGS
            .iter()
            .filter(|l| l.0.as_bytes().starts_with(name))
            .collect();
        return matches.len() == 1 && matches[0].1
            || matches.iter().any(|l| l.0.as_bytes() == name && l.1);
    }
    if arg.len() < 2 || arg[0] != b'-' {
        return false;
    }
    for (i, &c) in arg[1..].iter().enumerate() {
        if b"koSTty".contains(&c) {
            return i + 2 == arg.len();
        }
    }
    false
}

mod keys_arg {
    /// Long option names and whether each needs a separate argument.
    pub type L = (&'static str, bool);
    pub const LONGS: &[L] = &[
        ("batch-size", true),
        ("buffer-size", true),
        ("check", false),
        ("compress-program", true),
        ("debug", false),
        ("dictionary-order", false),
        ("field-separator", true),
        ("files0-from", true),
        ("general-numeric-sort", false),
        ("human-numeric-sort", false),
        ("ignore-case", false),
        ("ignore-leading-blanks", false),
        ("ignore-nonprinting", false),
        ("key", true),
        ("merge", false),
        ("month-sort", false),
        ("numeric-sort", false),
        ("output", true),
        ("parallel", true),
        ("random-sort", false),
        ("random-source", true),
        ("reverse", false),
        ("sort", true),
        ("stable", false),
        ("temporary-directory", true),
        ("unique", false),
        ("version-sort", false),
        ("zero-terminated", false),
    ];
}

/// Rewrites the obsolete `+POS1 [-POS2]` keys as `-k` options, in place.
fn rewrite_obsolete(args: &[Vec<u8>]) -> std::result::Result<Vec<Vec<u8>>, Fail> {
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == b"--" {
            out.extend_from_slice(&args[i..]);
            break;
        }
        if takes_value(a) {
            out.push(a.clone());
            if let Some(v) = args.get(i + 1) {
                out.push(v.clone());
            }
            i += 2;
            continue;
        }
        if a.len() > 1 && a[0] == b'+' && a[1].is_ascii_digit() {
            let pos2 = args
                .get(i + 1)
                .filter(|n| n.len() > 1 && n[0] == b'-' && n[1].is_ascii_digit());
            let key = keys::parse_obsolete(&a[1..], pos2.map(|p| &p[1..])).map_err(fail)?;
            // Marked with a leading NUL, which no real argument holds, for --debug.
            out.push(b"-k".to_vec());
            let mut spec = vec![0];
            spec.extend_from_slice(key_spec(&key).as_bytes());
            out.push(spec);
            i += if pos2.is_some() { 2 } else { 1 };
            continue;
        }
        out.push(a.clone());
        i += 1;
    }
    Ok(out)
}

/// A key written back as a `-k` argument.
fn key_spec(k: &Key) -> String {
    let mut s = format!(
        "{}.{}",
        k.sword.saturating_add(1),
        k.schar.saturating_add(1)
    );
    let mut letters = String::new();
    let o = &k.order;
    for (on, c) in [
        (o.ignore == Some(keys::Ignore::NonDictionary), 'd'),
        (o.ignore == Some(keys::Ignore::NonPrinting), 'i'),
        (o.fold, 'f'),
        (o.general, 'g'),
        (o.human, 'h'),
        (o.month, 'M'),
        (o.numeric, 'n'),
        (o.random, 'R'),
        (o.reverse, 'r'),
        (o.version, 'V'),
    ] {
        if on {
            letters.push(c);
        }
    }
    if k.skip_start_blanks {
        s.push('b');
    }
    s.push_str(&letters);
    if let Some(e) = k.eword {
        s.push_str(&format!(",{}", e.saturating_add(1)));
        if k.echar > 0 {
            s.push_str(&format!(".{}", k.echar));
        }
        if k.skip_end_blanks {
            s.push('b');
        }
    }
    s
}

fn parse_args(
    ctx: &mut Ctx<'_>,
    args: &[Vec<u8>],
) -> std::result::Result<(Opts, Vec<Vec<u8>>), Fail> {
    let args = rewrite_obsolete(args)?;
    let (parsed, getopt_error) = match SPEC.parse(&args) {
        Ok(p) => (p, None),
        Err(m) => {
            // GNU handles options in order: those before the bad one may fail first.
            let good = (0..args.len())
                .rev()
                .find_map(|k| SPEC.parse(&args[..k]).ok())
                .unwrap_or_default();
            (good, Some(m))
        }
    };
    let mut global = Order::default();
    let mut global_b = false;
    let mut keys: Vec<Key> = Vec::new();
    let mut tab: Option<u8> = None;
    let mut output: Option<Vec<u8>> = None;
    let mut stable = false;
    let mut unique = false;
    let mut check = Check::No;
    let mut check_letters = String::new();
    let mut merge = false;
    let mut eol = b'\n';
    let mut files0 = None;
    let mut debug = false;
    for opt in &parsed.opts {
        let v = opt.value();
        match opt.key {
            "b" => global_b = true,
            "d" | "f" | "g" | "h" | "i" | "M" | "n" | "r" | "R" | "V" => {
                global.set(opt.key.as_bytes()[0]);
            }
            "sort" => {
                let words: [(&str, u8); 6] = [
                    ("general-numeric", b'g'),
                    ("human-numeric", b'h'),
                    ("month", b'M'),
                    ("numeric", b'n'),
                    ("random", b'R'),
                    ("version", b'V'),
                ];
                let found: Vec<_> = words
                    .iter()
                    .filter(|(w, _)| w.as_bytes().starts_with(v) && !v.is_empty())
                    .collect();
                let exact = words.iter().find(|(w, _)| w.as_bytes() == v);
                match (exact, found.as_slice()) {
                    (Some((_, c)), _) | (None, [(_, c)]) => {
                        global.set(*c);
                    }
                    _ => {
                        let kind = if found.len() > 1 {
                            "ambiguous"
                        } else {
                            "invalid"
                        };
                        return Err(Fail {
                            msg: format!(
                                "{kind} argument {} for '--sort'\nValid arguments are:\n  - 'general-numeric'\n  - 'human-numeric'\n  - 'month'\n  - 'numeric'\n  - 'random'\n  - 'version'",
                                quote_str(v)
                            ),
                            status: 1,
                            usage: true,
                        });
                    }
                }
            }
            "k" => {
                let (spec, obsolete) = match v.strip_prefix(b"\0") {
                    Some(spec) => (spec, true),
                    None => (v, false),
                };
                let mut key = keys::parse_key(spec).map_err(fail)?;
                key.obsolete = obsolete;
                keys.push(key);
            }
            "t" => {
                let t = match v {
                    [] => return Err(fail("empty tab")),
                    [c] => *c,
                    b"\\0" => 0,
                    _ => return Err(fail(format!("multi-character tab {}", quote_str(v)))),
                };
                if tab.is_some_and(|old| old != t) {
                    return Err(fail("incompatible tabs"));
                }
                tab = Some(t);
            }
            "o" => {
                if output.as_ref().is_some_and(|o| o != v) {
                    return Err(fail("multiple output files specified"));
                }
                output = Some(v.to_vec());
            }
            "s" => stable = true,
            "u" => unique = true,
            "c" | "C" | "check" => {
                let mode = match (opt.key, v) {
                    ("c", _) => Check::Diagnose,
                    ("C", _) => Check::Quiet,
                    (_, b"") => Check::Diagnose,
                    (_, w) if b"quiet".starts_with(w) || b"silent".starts_with(w) => {
                        Check::Quiet
                    }
                    (_, w) if b"diagnose-first".starts_with(w) => Check::Diagnose,
                    _ => {
                        return Err(Fail {
                            msg: format!(
                                "invalid argument {} for '--check'\nValid arguments are:\n  - 'quiet', 'silent'\n  - 'diagnose-first'",
                                quote_str(v)
                            ),
                            status: 1,
                            usage: true,
                        })
                    }
                };
                let letter = if mode == Check::Quiet { 'C' } else { 'c' };
                if !check_letters.contains(letter) {
                    check_letters.push(letter);
                }
                check = mode;
            }
            "m" => merge = true,
            "z" => eol = 0,
            "S" => check_buffer_size("-S", v)?,
            "buffer-size" => check_buffer_size("--buffer-size", v)?,
            "parallel" => {
                let n = operands::parse_size(v)
                    .ok()
                    .filter(|_| v.iter().all(u8::is_ascii_digit));
                match n {
                    None => {
                        return Err(fail(format!(
                            "invalid --parallel argument {}",
                            quote_str(v)
                        )))
                    }
                    Some(0) => return Err(fail("number in parallel must be nonzero")),
                    _ => {}
                }
            }
            "batch-size" => check_batch_size(v)?,
            "files0-from" => files0 = Some(v.to_vec()),
            "debug" => debug = true,
            // -T, -y, --compress-program, --random-source: nothing to do without files.
            _ => {}
        }
    }
    if let Some(m) = getopt_error {
        return Err(Fail {
            msg: m,
            status: 2,
            usage: true,
        });
    }
    if check_letters.len() > 1 {
        return Err(fail("options '-cC' are incompatible"));
    }
    let explicit = !keys.is_empty();
    for key in keys.iter_mut() {
        if key.has_no_options() {
            key.order = global;
            key.skip_start_blanks = global_b;
            key.skip_end_blanks = global_b;
        }
    }
    if keys.is_empty() {
        keys.push(Key {
            skip_start_blanks: global_b,
            skip_end_blanks: global_b,
            order: global,
            ..Key::default()
        });
    }
    for key in &keys {
        if let Some(msg) = key.order.incompatible() {
            return Err(fail(msg));
        }
    }
    if debug && check != Check::No {
        let c = if check == Check::Quiet { 'C' } else { 'c' };
        return Err(fail(format!("options '-{c} --debug' are incompatible")));
    }
    if debug && output.is_some() {
        return Err(fail("options '-o --debug' are incompatible"));
    }
    if check != Check::No && output.is_some() {
        let c = if check == Check::Quiet { 'C' } else { 'c' };
        return Err(fail(format!("options '-{c}o' are incompatible")));
    }
    if let Some(o) = &output {
        if o != b"-" && o != b"/dev/stdout" {
            return Err(fail(format!(
                "open failed: {}: Read-only file system",
                String::from_utf8_lossy(o)
            )));
        }
    }
    let mut blank = [false; 256];
    blank[usize::from(b' ')] = true;
    blank[usize::from(b'\t')] = true;
    if eol == 0 {
        blank[usize::from(b'\n')] = true;
    }
    let mut salt = [0u8; 8];
    if keys.iter().any(|k| k.order.random) {
        ctx.io.host.fill_random(&mut salt);
    }
    let debug = debug.then(|| {
        let mut unsorted = global;
        unsorted.reverse = false;
        let warnings = debug::warnings(&debug::Setup {
            keys: &keys,
            explicit,
            global,
            global_b,
            tab,
            no_last_resort: stable || unique,
        });
        // With no -k and no ordering option there is no key, only the whole line.
        (warnings, explicit || global_b || !unsorted.is_empty())
    });
    let cfg = Config {
        keys,
        tab,
        blank,
        last_resort: !stable && !unique,
        reverse_last: global.reverse,
        salt: u64::from_le_bytes(salt),
    };
    Ok((
        Opts {
            cfg,
            unique,
            check,
            merge,
            eol,
            files0,
            debug,
        },
        parsed.operands,
    ))
}

/// `-S SIZE`: a number, then one of `% b K M G T P E Z Y` (any case but `b`). GNU names
/// the option as it was spelled.
fn check_buffer_size(name: &str, v: &[u8]) -> std::result::Result<(), Fail> {
    let digits = v.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return Err(fail(format!("invalid {name} argument {}", quote_str(v))));
    }
    match &v[digits..] {
        [] => Ok(()),
        [c] if b"%bkKmMgGtTpPeEzZyY".contains(c) => Ok(()),
        _ => Err(fail(format!(
            "invalid suffix in {name} argument {}",
            quote_str(v)
        ))),
    }
}

/// `--batch-size=NMERGE`: `+` and digits, at least 2.
fn check_batch_size(v: &[u8]) -> std::result::Result<(), Fail> {
    let body = v.strip_prefix(b"+").unwrap_or(v);
    let digits = body.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return Err(fail(format!(
            "invalid --batch-size argument {}",
            quote_str(v)
        )));
    }
    if digits < body.len() {
        return Err(fail(format!(
            "invalid suffix in --batch-size argument {}",
            quote_str(v)
        )));
    }
    let n = std::str::from_utf8(&body[..digits])
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    if n.is_some_and(|n| n < 2) {
        return Err(fail(format!(
            "invalid --batch-size argument {}\nsort: minimum --batch-size argument is '2'",
            quote_str(v)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn sort(args: &[&str], stdin: &str) -> (String, i32) {
        let mut argv = vec!["sort"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin.as_bytes()).unwrap();
        (r.stdout_str(), r.status)
    }

    // Expected values from GNU sort 9.1.
    #[test]
    fn orders() {
        assert_eq!(sort(&[], "b\na\nc\n").0, "a\nb\nc\n");
        assert_eq!(sort(&["-n"], "10\n9\n-1\n").0, "-1\n9\n10\n");
        assert_eq!(sort(&["-k2,2"], "a 2\nb 1\n").0, "b 1\na 2\n");
        assert_eq!(sort(&["-t:", "-k2n"], "a:10\nb:9\n").0, "b:9\na:10\n");
        assert_eq!(sort(&["-h"], "1K\n1000\n2M\n").0, "1000\n1K\n2M\n");
        assert_eq!(sort(&["-V"], "b11\nb3\nb1\n").0, "b1\nb3\nb11\n");
        assert_eq!(sort(&["-u", "-k1,1"], "a 2\na 1\nb 0\n").0, "a 2\nb 0\n");
        assert_eq!(sort(&["-r", "-k1,1"], "a 1\na 2\n").0, "a 2\na 1\n");
        assert_eq!(sort(&["-k1,1r"], "a 2\na 1\n").0, "a 1\na 2\n");
        assert_eq!(
            sort(&["+1"], "a b c d\nb a d c\nc c a b\n").0,
            "b a d c\na b c d\nc c a b\n"
        );
        assert_eq!(sort(&["-n", "-k1,1r"], "10 b\n9 a\n").0, "9 a\n10 b\n");
    }

    #[test]
    fn debug() {
        let r = run(&["sort", "--debug", "-k2n"], b"b 2\na x\n").unwrap();
        assert_eq!(
            r.stdout_str(),
            "a x\n  ^ no match for key\n___\nb 2\n  _\n___\n"
        );
        assert_eq!(
            r.stderr_str(),
            "sort: text ordering performed using simple byte comparison\n\
             sort: key 1 is numeric and spans multiple fields\n\
             sort: note numbers use '.' as a decimal point in this locale\n"
        );
        // Tabs shown as '>', control bytes take no column, no key of its own.
        assert_eq!(sort(&["--debug"], "a\t\x01b\n").0, "a>\x01b\n___\n");
        assert_eq!(sort(&["--debug", "-s", "-b"], " a\n").0, " a\n _\n");
        assert_eq!(sort(&["--debug", "-c"], "a\n").1, 2);
        let r = run(&["sort", "--debug", "+1n", "-0", "-k1,1f", "-rd"], b"").unwrap();
        assert_eq!(
            r.stderr_str(),
            "sort: text ordering performed using simple byte comparison\n\
             sort: obsolescent key '+1 -1' used; consider '-k 2,1' instead\n\
             sort: key 1 has zero width and will be ignored\n\
             sort: leading blanks are significant in key 2; consider also specifying 'b'\n\
             sort: note numbers use '.' as a decimal point in this locale\n\
             sort: option '-d' is ignored\n\
             sort: option '-r' only applies to last-resort comparison\n"
        );
    }

    #[test]
    fn checks_and_errors() {
        assert_eq!(sort(&["-c"], "b\na\n").1, 1);
        assert_eq!(sort(&["-C"], "a\nb\n").1, 0);
        assert_eq!(sort(&["-gn"], "").1, 2);
        assert_eq!(sort(&["-k0"], "").1, 2);
        assert_eq!(sort(&["-", "nofile"], "b\n"), (String::new(), 2));
        assert_eq!(sort(&["-m", "-"], "a\nb\na\n").0, "a\nb\na\n");
    }
}
