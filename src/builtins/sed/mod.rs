//! `sed`: GNU sed 4.9 in the C locale, without a file system (`w` to /dev/stdout and
//! /dev/stderr only, `r` reads nothing, no `e`). Spends one step per input line and per
//! command executed, one per 64 bytes of pattern space read or rewritten, plus what the
//! regex engine spends.

mod debug;
mod parse;
mod run;

use crate::builtins::common::args::{long, Arg, Spec};
use crate::builtins::common::regex;
use crate::builtins::{Bytes, Ctx};
use crate::error::{Result, Status};

use parse::{Origin, Script, SedError};

const SPEC: Spec = Spec {
    short: "nrsuEe:f:l:i::zb",
    long: &[
        long("quiet", Arg::No, Some('n')),
        long("silent", Arg::No, Some('n')),
        long("debug", Arg::No, None),
        long("expression", Arg::Required, Some('e')),
        long("file", Arg::Required, Some('f')),
        long("follow-symlinks", Arg::No, None),
        long("in-place", Arg::Optional, Some('i')),
        long("line-length", Arg::Required, Some('l')),
        long("null-data", Arg::No, Some('z')),
        long("zero-terminated", Arg::No, Some('z')),
        long("posix", Arg::No, None),
        long("regexp-extended", Arg::No, Some('E')),
        long("separate", Arg::No, Some('s')),
        long("sandbox", Arg::No, None),
        long("unbuffered", Arg::No, Some('u')),
        long("binary", Arg::No, Some('b')),
        long("help", Arg::No, None),
        long("version", Arg::No, None),
    ],
    stop_at_operand: false,
};

const USAGE: &str = "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
";

const VERSION: &str = "sed (GNU sed) 4.9
Copyright (C) 2022 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by Jay Fenlason, Tom Lord, Ken Pizzini,
Paolo Bonzini, Jim Meyering, and Assaf Gordon.

This sed program was built without SELinux support.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
E-mail bug reports to: <bug-sed@gnu.org>.
";

/// Parsed scripts, by their text and options: envelopes run the same sed again and again.
#[derive(Default)]
struct ScriptCache {
    entries: Vec<CachedScript>,
}

/// The script pieces (text, from a file), -E, --posix, and the parsed script.
type CachedScript = (Vec<(Vec<u8>, bool)>, bool, bool, std::rc::Rc<Script>);

const SCRIPT_CACHE: usize = 32;

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(args.get(1..).unwrap_or(&[])) {
        Ok(p) => p,
        Err(msg) => {
            ctx.stderr
                .extend_from_slice(format!("sed: {msg}\n{USAGE}").as_bytes());
            return Ok(1);
        }
    };
    let mut quiet = false;
    let mut extended = false;
    let mut separate = false;
    let mut zero = false;
    let mut posix = false;
    let mut in_place = false;
    let mut debug = false;
    let mut line_wrap = 70usize;
    // Script pieces: (text, is_file, name).
    let mut pieces: Vec<(Vec<u8>, Origin)> = Vec::new();
    let mut expr_no = 0;
    for o in &parsed.opts {
        match o.key {
            "n" => quiet = true,
            "r" | "E" => extended = true,
            "s" => separate = true,
            "z" => zero = true,
            "i" => {
                in_place = true;
                separate = true;
            }
            "posix" => posix = true,
            "debug" => debug = true,
            "l" => {
                // GNU reads the length with atoi: leading digits, anything else is 0.
                let v = String::from_utf8_lossy(o.value());
                let v = v.trim_start();
                let digits: String = v
                    .strip_prefix('+')
                    .unwrap_or(v)
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                match digits.parse::<usize>() {
                    Ok(n) => line_wrap = n,
                    Err(_) if digits.is_empty() || v.starts_with('-') => line_wrap = 0,
                    Err(_) => {
                        ctx.stderr.extend_from_slice(
                            format!("sed: invalid line length: {v}\n").as_bytes(),
                        );
                        return Ok(1);
                    }
                }
            }
            "e" => {
                expr_no += 1;
                pieces.push((o.value().to_vec(), Origin::Expr(expr_no)));
            }
            "f" => {
                let name = o.value().to_vec();
                match ctx.open(&name).await? {
                    Ok(bytes) => {
                        let mut text = bytes.to_vec();
                        if text.last() == Some(&b'\n') {
                            text.pop();
                        }
                        pieces.push((text, Origin::File(name)));
                    }
                    Err(reason) => {
                        ctx.stderr.extend_from_slice(
                            format!(
                                "sed: couldn't open file {}: {reason}\n",
                                String::from_utf8_lossy(&name)
                            )
                            .as_bytes(),
                        );
                        return Ok(4);
                    }
                }
            }
            "help" => {
                ctx.stdout.extend_from_slice(USAGE.as_bytes());
                return Ok(0);
            }
            "version" => {
                ctx.stdout.extend_from_slice(VERSION.as_bytes());
                return Ok(0);
            }
            _ => {}
        }
    }
    let mut operands = parsed.operands.clone();
    if pieces.is_empty() {
        if operands.is_empty() {
            ctx.stderr.extend_from_slice(USAGE.as_bytes());
            return Ok(1);
        }
        let script = operands.remove(0);
        pieces.push((script, Origin::Expr(1)));
    }
    let script = {
        let key: Vec<(Vec<u8>, bool)> = pieces
            .iter()
            .map(|(t, o)| (t.clone(), matches!(o, Origin::File(_))))
            .collect();
        let cached = {
            let cache = ctx.io.caches.get::<ScriptCache>();
            cache
                .entries
                .iter()
                .find(|e| e.0 == key && e.1 == extended && e.2 == posix)
                .map(|e| e.3.clone())
        };
        match cached {
            Some(s) => s,
            None => {
                let parsed = {
                    let mut re_cache = ctx.io.caches.get::<regex::Cache>();
                    parse::parse(&pieces, extended, posix, &mut re_cache)
                };
                match parsed {
                    Ok(s) => {
                        let s = std::rc::Rc::new(s);
                        let mut cache = ctx.io.caches.get::<ScriptCache>();
                        if cache.entries.len() >= SCRIPT_CACHE {
                            cache.entries.remove(0);
                        }
                        cache.entries.push((key, extended, posix, s.clone()));
                        s
                    }
                    Err(e) => return Ok(report(ctx, &e)),
                }
            }
        }
    };
    if script.quiet {
        quiet = true;
    }
    if in_place && operands.is_empty() {
        if debug {
            // GNU shows the program before it finds there is nothing to edit.
            debug::program(&script, ctx.stdout);
        }
        ctx.stderr.extend_from_slice(b"sed: no input files\n");
        return Ok(4);
    }
    if operands.is_empty() {
        operands.push(b"-".to_vec());
    }
    let mut status = 0;
    let mut files: Vec<(Bytes, Vec<u8>)> = Vec::new();
    for name in &operands {
        match ctx.open(name).await? {
            Ok(b) => files.push((b, name.clone())),
            Err(reason) => {
                ctx.stderr.extend_from_slice(
                    format!(
                        "sed: can't read {}: {reason}\n",
                        String::from_utf8_lossy(name)
                    )
                    .as_bytes(),
                );
                status = 2;
            }
        }
    }
    let sep = if zero { 0 } else { b'\n' };
    let input = run::Input::new(files, sep, separate);
    let mut runner = run::Runner::new(&script, input, quiet, line_wrap, posix, debug);
    let end = runner.run(ctx.io.budget, ctx.stdout, ctx.stderr)?;
    Ok(match end {
        run::End::Exit(code) => {
            if code != 0 {
                code
            } else {
                status
            }
        }
    })
}

fn report(ctx: &mut Ctx<'_>, e: &SedError) -> Status {
    ctx.stderr.extend_from_slice(e.render().as_bytes());
    e.status
}
