//! Special builtins: the commands that read or change the shell's own state (`set`,
//! `unset`, `export`, `readonly`, `local`, `exit`, `return`, `break`, `continue`,
//! `shift`, `read`, `eval`, `sh`, `command`, `type`, ...). Each costs the one step of
//! its simple command; `read` also one per 64 bytes read, `sh -c` one for its subshell.

use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::exec::{sub_status, Ctl, Exec, Io, R};
use super::lex::is_name;
use super::options::{Opt, Options};
use super::state::{State, Var};
use crate::budget::BYTES_PER_STEP;
use crate::builtins;
use crate::error::Status;

/// The shell's own commands, each with whether POSIX counts it among the special built-in
/// utilities (XCU 2.14): assignments before those stay, their errors end a
/// non-interactive shell, and no function may take their names.
const SPECIALS: &[(&str, bool)] = &[
    (".", true),
    (":", true),
    ("bash", false),
    ("break", true),
    ("builtin", false),
    ("cd", false),
    ("command", false),
    ("continue", true),
    ("declare", false),
    ("eval", true),
    ("exec", true),
    ("exit", true),
    ("export", true),
    ("getopts", false),
    ("let", false),
    ("local", false),
    ("pwd", false),
    ("read", false),
    ("readonly", true),
    ("return", true),
    ("set", true),
    ("sh", false),
    ("shift", true),
    ("shopt", false),
    ("source", false),
    ("times", true),
    ("trap", true),
    ("type", false),
    ("typeset", false),
    ("umask", false),
    ("unset", true),
    ("wait", false),
];

thread_local! {
    // Every command a script runs is looked up here first: one hash probe.
    static SPECIAL_BY_NAME: FxHashMap<&'static [u8], bool> =
        SPECIALS.iter().map(|&(name, posix)| (name.as_bytes(), posix)).collect();
}

pub fn is_posix_special(name: &[u8]) -> bool {
    SPECIAL_BY_NAME.with(|m| m.get(name) == Some(&true))
}

pub fn is_special(name: &[u8]) -> bool {
    SPECIAL_BY_NAME.with(|m| m.contains_key(name))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A decimal argument as bash reads it (`exit 300` is 44 later, `-1` is allowed).
fn number(b: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(b).ok()?.trim();
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let v: i64 = digits.parse().ok()?;
    Some(if neg { -v } else { v })
}

/// Quotes a value for `set` and `export -p` output, as bash does.
pub fn quote_value(v: &[u8]) -> Vec<u8> {
    let plain = !v.is_empty()
        && v.iter()
            .all(|&c| c.is_ascii_alphanumeric() || b"_-./:,+=@%^".contains(&c));
    if plain {
        return v.to_vec();
    }
    single_quoted(v)
}

/// `v` in single quotes, each `'` in it written `'\''`: what the shell reads back as `v`.
pub fn single_quoted(v: &[u8]) -> Vec<u8> {
    let mut out = vec![b'\''];
    for &c in v {
        if c == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(c);
        }
    }
    out.push(b'\'');
    out
}

fn dq_value(v: &[u8]) -> Vec<u8> {
    let mut out = vec![b'"'];
    for &c in v {
        if matches!(c, b'"' | b'\\' | b'$' | b'`') {
            out.push(b'\\');
        }
        out.push(c);
    }
    out.push(b'"');
    out
}

impl Exec<'_> {
    pub async fn special(&mut self, argv: &[Vec<u8>], io: Io) -> R {
        let args = &argv[1..];
        match argv[0].as_slice() {
            b":" => Ok(0),
            b"break" | b"continue" => self.loop_control(argv, io),
            b"return" => {
                if self.st.frames.is_empty() {
                    self.diag(
                        io,
                        "return: can only `return' from a function or sourced script",
                    );
                    return Ok(args
                        .first()
                        .and_then(|a| number(a))
                        .map_or(1, |n| (n & 0xff) as Status));
                }
                let status = match args.first() {
                    None => self.st.status,
                    Some(a) => match number(a) {
                        Some(n) => (n & 0xff) as Status,
                        None => {
                            self.diag(
                                io,
                                &format!("return: {}: numeric argument required", text(a)),
                            );
                            2
                        }
                    },
                };
                Err(Ctl::Return(status))
            }
            b"exit" => {
                let status = match args.first() {
                    None => self.st.status,
                    Some(a) => match number(a) {
                        Some(n) => (n & 0xff) as Status,
                        None => {
                            self.diag(io, &format!("exit: {}: numeric argument required", text(a)));
                            2
                        }
                    },
                };
                Err(Ctl::Exit(status))
            }
            b"set" => self.set(args, io),
            b"shift" => {
                let n = match args.first() {
                    None => 1,
                    Some(a) => match number(a) {
                        Some(n) if n >= 0 => n as usize,
                        Some(_) => {
                            self.diag(io, &format!("shift: {}: shift count out of range", text(a)));
                            return Ok(1);
                        }
                        None => {
                            self.diag(
                                io,
                                &format!("shift: {}: numeric argument required", text(a)),
                            );
                            return Ok(1);
                        }
                    },
                };
                if n > self.st.params.len() {
                    return Ok(1);
                }
                Rc::make_mut(&mut self.st.params).drain(..n);
                Ok(0)
            }
            b"unset" => {
                let mut funcs = false;
                let mut status = 0;
                let mut names = args;
                while let Some(a) = names.first() {
                    match a.as_slice() {
                        b"-f" => funcs = true,
                        b"-v" => funcs = false,
                        b"--" => {
                            names = &names[1..];
                            break;
                        }
                        _ => break,
                    }
                    names = &names[1..];
                }
                for n in names {
                    if funcs {
                        Rc::make_mut(&mut self.st.funcs).remove(n);
                        continue;
                    }
                    if !is_name(n) {
                        self.diag(io, &format!("unset: `{}': not a valid identifier", text(n)));
                        status = 1;
                        continue;
                    }
                    if let Err(msg) = self.st.unset(n) {
                        self.diag(io, &format!("unset: {msg}"));
                        status = 1;
                    }
                }
                Ok(status)
            }
            b"export" | b"readonly" | b"declare" | b"typeset" | b"local" => self.declare(argv, io),
            b"read" => self.read(args, io).await,
            b"eval" => {
                if args.is_empty() {
                    return Ok(0);
                }
                let src = args.join(&b' ');
                let parsed = self.sh.scripts.borrow_mut().get(&src);
                match &*parsed {
                    Ok(script) => {
                        let r = self.list_boxed(&script.body, io).await;
                        drop(parsed);
                        r
                    }
                    Err(failed) => {
                        let r = self.list_boxed(&failed.prefix.body, io).await;
                        r?;
                        let msg = failed.error.to_string();
                        self.write(io.err, format!("sh: eval: {msg}\n").as_bytes());
                        // A syntax error in a special builtin's input ends the shell
                        // (POSIX 2.8.1).
                        Err(Ctl::Abort { top: 2, sub: 2 })
                    }
                }
            }
            b"sh" | b"bash" => self.sh(args, io).await,
            b"command" | b"builtin" => {
                let mut rest = args;
                let mut mode = 0u8;
                while let Some(a) = rest.first() {
                    match a.as_slice() {
                        b"-v" => mode = b'v',
                        b"-V" => mode = b'V',
                        b"-p" => {}
                        b"--" => {
                            rest = &rest[1..];
                            break;
                        }
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                if rest.is_empty() {
                    return Ok(0);
                }
                if mode != 0 {
                    return Ok(self.describe(rest, io, mode));
                }
                Box::pin(self.dispatch(rest, io, false)).await
            }
            b"type" => {
                let (mode, names) = match args.first().map(Vec::as_slice) {
                    Some(b"-t") => (b't', &args[1..]),
                    _ => (b'V', args),
                };
                Ok(self.describe(names, io, mode))
            }
            b"let" => {
                let mut v = 0;
                for a in args {
                    v = self.arith(a, io)?;
                }
                Ok(i32::from(v == 0))
            }
            b"exec" => {
                if args.is_empty() {
                    return Ok(0);
                }
                let status = Box::pin(self.dispatch(args, io, true)).await?;
                Err(Ctl::Exit(status))
            }
            b"trap" => self.trap(args, io),
            b"times" => {
                // The shell's and its children's user and system times: no processes run.
                self.write(io.out, b"0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
                Ok(0)
            }
            b"umask" => Ok(self.umask(args, io)),
            b"wait" | b"shopt" => Ok(0),
            b"pwd" => {
                self.write(io.out, b"/\n");
                Ok(0)
            }
            b"cd" => {
                self.diag(io, "cd: there is no file system");
                Ok(1)
            }
            b"." | b"source" => {
                self.diag(
                    io,
                    &format!(
                        "{}: there is no file system to read scripts from",
                        text(&argv[0])
                    ),
                );
                Ok(1)
            }
            b"getopts" => self.getopts(args, io),
            _ => Ok(0),
        }
    }

    /// `umask [-S] [MODE]`: MODE octal or symbolic (`u=rwx,g+w,o-r`). Remembered and
    /// shown; there are no files for it to act on.
    fn umask(&mut self, args: &[Vec<u8>], io: Io) -> Status {
        let (symbolic, args) = match args.first().map(Vec::as_slice) {
            Some(b"-S") => (true, &args[1..]),
            _ => (false, args),
        };
        let mask = self.st.umask.unwrap_or(0o022);
        let Some(mode) = args.first() else {
            let text = if symbolic {
                let perms = |shift: u32| -> String {
                    let allowed = !mask >> shift & 7;
                    [(4, 'r'), (2, 'w'), (1, 'x')]
                        .iter()
                        .filter(|(bit, _)| allowed & bit != 0)
                        .map(|(_, c)| *c)
                        .collect()
                };
                format!("u={},g={},o={}\n", perms(6), perms(3), perms(0))
            } else {
                format!("{mask:04o}\n")
            };
            self.write(io.out, text.as_bytes());
            return 0;
        };
        match parse_umask(mode, mask) {
            Some(m) => {
                self.st.umask = Some(m);
                0
            }
            None => {
                self.diag(io, &format!("umask: {}: invalid mode", text(mode)));
                1
            }
        }
    }

    fn loop_control(&mut self, argv: &[Vec<u8>], io: Io) -> R {
        let name = text(&argv[0]);
        let n = match argv.get(1) {
            None => 1,
            Some(a) => match number(a) {
                Some(n) if n >= 1 => n.min(i64::from(u32::MAX)) as u32,
                Some(_) => {
                    self.diag(io, &format!("{name}: {}: loop count out of range", text(a)));
                    return Ok(1);
                }
                None => {
                    self.diag(
                        io,
                        &format!("{name}: {}: numeric argument required", text(a)),
                    );
                    return Ok(1);
                }
            },
        };
        if self.st.loops == 0 {
            self.diag(
                io,
                &format!("{name}: only meaningful in a `for', `while', or `until' loop"),
            );
            return Ok(0);
        }
        let n = n.min(self.st.loops);
        Err(if argv[0] == b"break" {
            Ctl::Break(n)
        } else {
            Ctl::Continue(n)
        })
    }

    fn describe(&mut self, names: &[Vec<u8>], io: Io, mode: u8) -> Status {
        let mut status = 0;
        for n in names {
            let kind = if super::special::is_special(n) || builtins::lookup(n).is_some() {
                Some("builtin")
            } else if self.st.funcs.contains_key(n) {
                Some("function")
            } else {
                None
            };
            let line = match (kind, mode) {
                (Some(_), b'v') => format!("{}\n", text(n)),
                (Some(k), b't') => format!("{k}\n"),
                (Some("builtin"), _) => format!("{} is a shell builtin\n", text(n)),
                (Some(_), _) => format!("{} is a function\n", text(n)),
                (None, b'V') => {
                    self.diag(io, &format!("type: {}: not found", text(n)));
                    status = 1;
                    continue;
                }
                (None, _) => {
                    status = 1;
                    continue;
                }
            };
            self.write(io.out, line.as_bytes());
        }
        status
    }

    fn set(&mut self, args: &[Vec<u8>], io: Io) -> R {
        if args.is_empty() {
            let mut vars: Vec<(&Vec<u8>, &Var)> = self.st.vars.iter().collect();
            vars.sort_by(|a, b| a.0.cmp(b.0));
            let mut out = Vec::new();
            for (k, v) in vars {
                if let Some(val) = &v.value {
                    out.extend_from_slice(k);
                    out.push(b'=');
                    out.extend_from_slice(&quote_value(val));
                    out.push(b'\n');
                }
            }
            self.write(io.out, &out);
            return Ok(0);
        }
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_slice();
            match a {
                b"--" => {
                    self.set_params(args[i + 1..].to_vec());
                    return Ok(0);
                }
                // `set -` ends the options and turns off -x and -v (the old form of `--`).
                b"-" => {
                    self.st.opts.set(Opt::XTRACE, false);
                    self.st.opts.set(Opt::VERBOSE, false);
                    if i + 1 < args.len() {
                        self.set_params(args[i + 1..].to_vec());
                    }
                    return Ok(0);
                }
                // A lone `+` is an empty list of options.
                b"+" => {
                    i += 1;
                    continue;
                }
                b"-o" | b"+o" if i + 1 == args.len() => {
                    let text = if a[0] == b'-' {
                        self.st.opts.listing()
                    } else {
                        self.st.opts.commands()
                    };
                    self.write(io.out, text.as_bytes());
                    return Ok(0);
                }
                _ if !matches!(a.first(), Some(b'-' | b'+')) => {
                    self.set_params(args[i..].to_vec());
                    return Ok(0);
                }
                _ => {}
            }
            match set_options(&mut self.st.opts, a, args.get(i + 1).map(Vec::as_slice)) {
                Ok(used) => i += used,
                Err(msg) => {
                    // A special builtin's usage error ends the shell (POSIX 2.8.1).
                    self.diag(io, &format!("set: {msg}"));
                    return Err(Ctl::Abort { top: 2, sub: 2 });
                }
            }
        }
        Ok(0)
    }

    /// New positional parameters; `getopts` starts over (as in dash).
    fn set_params(&mut self, params: Vec<Vec<u8>>) {
        self.st.params = Rc::new(params);
        let _ = self.st.set(b"OPTIND", b"1".to_vec());
        let _ = self.st.unset(b"_GETOPTS_POS");
    }

    /// `export`, `readonly`, `local`, `declare`.
    fn declare(&mut self, argv: &[Vec<u8>], io: Io) -> R {
        let cmd = argv[0].as_slice();
        let mut export = cmd == b"export";
        let mut readonly = cmd == b"readonly";
        let local = cmd == b"local"
            || ((cmd == b"declare" || cmd == b"typeset") && !self.st.frames.is_empty());
        if cmd == b"local" && self.st.frames.is_empty() {
            self.diag(io, "local: can only be used in a function");
            return Ok(1);
        }
        let mut unexport = false;
        let mut print = false;
        let mut names = &argv[1..];
        while let Some(a) = names.first() {
            if a.len() < 2 || !matches!(a[0], b'-' | b'+') {
                break;
            }
            if a == b"--" {
                names = &names[1..];
                break;
            }
            for &c in &a[1..] {
                match c {
                    b'p' => print = true,
                    b'n' => unexport = true,
                    b'x' => export = true,
                    b'r' => readonly = true,
                    b'f' | b'g' | b'i' | b'a' | b'A' | b'l' | b'u' | b't' => {}
                    _ => {
                        self.diag(
                            io,
                            &format!("{}: -{}: invalid option", text(cmd), c as char),
                        );
                        return Ok(2);
                    }
                }
            }
            names = &names[1..];
        }
        if names.is_empty() && (print || cmd != b"local") {
            let mut vars: Vec<(&Vec<u8>, &Var)> = self
                .st
                .vars
                .iter()
                .filter(|(_, v)| (!export || v.exported) && (!readonly || v.readonly))
                .collect();
            vars.sort_by(|a, b| a.0.cmp(b.0));
            let mut out = Vec::new();
            for (k, v) in vars {
                let flags = match (v.exported, v.readonly) {
                    (true, true) => "-rx",
                    (true, false) => "-x",
                    (false, true) => "-r",
                    _ => "--",
                };
                out.extend_from_slice(format!("declare {flags} ").as_bytes());
                out.extend_from_slice(k);
                if let Some(val) = &v.value {
                    out.push(b'=');
                    out.extend_from_slice(&dq_value(val));
                }
                out.push(b'\n');
            }
            self.write(io.out, &out);
            return Ok(0);
        }
        let mut status = 0;
        for a in names {
            let (name, value) = match memchr::memchr(b'=', a) {
                Some(i) => (&a[..i], Some(a[i + 1..].to_vec())),
                None => (&a[..], None),
            };
            if !is_name(name) {
                self.diag(
                    io,
                    &format!("{}: `{}': not a valid identifier", text(cmd), text(a)),
                );
                status = 1;
                continue;
            }
            if local {
                let was = self.st.vars.get(name).cloned();
                // `local x` on a name already local here changes nothing.
                let again = self
                    .st
                    .frames
                    .last()
                    .is_some_and(|f| f.iter().any(|(n, _)| n == name));
                self.st.save_local(name);
                let v = self.st.var_mut(name);
                if value.is_none() && !export && !readonly && !again {
                    // `local x` hides the outer value.
                    if was.is_some_and(|w| w.value.is_some()) || v.value.is_some() {
                        *v = Var::default();
                    }
                }
            }
            if let Some(v) = &value {
                if let Err(msg) = self.st.set(name, v.clone()) {
                    self.diag(io, &msg);
                    status = 1;
                    continue;
                }
            }
            let var = self.st.var_mut(name);
            if export {
                var.exported = !unexport;
            } else if unexport {
                var.exported = false;
            }
            if readonly {
                var.readonly = true;
            }
        }
        Ok(status)
    }

    /// `read [-r] [-p PROMPT] [-d DELIM] [-n N] [NAME...]`: one line from stdin.
    async fn read(&mut self, args: &[Vec<u8>], io: Io) -> R {
        let mut raw = false;
        let mut delim = b'\n';
        let mut limit: Option<usize> = None;
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_slice();
            if a == b"--" {
                i += 1;
                break;
            }
            if a.len() < 2 || a[0] != b'-' {
                break;
            }
            let mut j = 1;
            while j < a.len() {
                match a[j] {
                    b'r' => raw = true,
                    b's' => {}
                    b'p' | b'd' | b'n' | b'N' | b't' | b'u' | b'a' => {
                        let opt = a[j];
                        let val = if j + 1 < a.len() {
                            a[j + 1..].to_vec()
                        } else {
                            i += 1;
                            match args.get(i) {
                                Some(v) => v.clone(),
                                None => {
                                    self.diag(
                                        io,
                                        &format!(
                                            "read: -{}: option requires an argument",
                                            opt as char
                                        ),
                                    );
                                    return Ok(2);
                                }
                            }
                        };
                        match opt {
                            b'd' => delim = val.first().copied().unwrap_or(0),
                            b'n' | b'N' => limit = number(&val).map(|n| n.max(0) as usize),
                            b'a' => {
                                self.diag(io, "read: -a: arrays are not supported");
                                return Ok(2);
                            }
                            _ => {}
                        }
                        j = a.len();
                        continue;
                    }
                    c => {
                        self.diag(io, &format!("read: -{}: invalid option", c as char));
                        return Ok(2);
                    }
                }
                j += 1;
            }
            i += 1;
        }
        let names: Vec<Vec<u8>> = if i < args.len() {
            args[i..].to_vec()
        } else {
            vec![b"REPLY".to_vec()]
        };
        for n in &names {
            if !is_name(n) {
                self.diag(io, &format!("read: `{}': not a valid identifier", text(n)));
                return Ok(1);
            }
        }
        // Take one line, with backslash escapes unless -r, and leave the rest of the stream
        // to the next command. A line may span chunks: read until it ends.
        let input = self.inputs[io.stdin].clone();
        let (line, quoted, found, used) = loop {
            let whole = input.take_pending(|rest| match take_line(rest, raw, delim, limit) {
                taken @ (_, _, true, used) => (used, Some(taken)),
                _ => (0, None),
            });
            if let Some(taken) = whole {
                break taken;
            }
            if !input.fill_more().await? {
                break input.take_pending(|rest| {
                    let taken = take_line(rest, raw, delim, limit);
                    (taken.3, taken)
                });
            }
        };
        self.sh.budget.spend(used as u64 / BYTES_PER_STEP)?;
        let ifs = self.st.ifs().unwrap_or_else(|| b" \t\n".to_vec());
        let fields = split_read(
            &line,
            &quoted,
            &ifs,
            names.len(),
            names[0] == b"REPLY" && i >= args.len(),
        );
        for (k, name) in names.iter().enumerate() {
            let v = fields.get(k).cloned().unwrap_or_default();
            if let Err(msg) = self.st.set(name, v) {
                self.diag(io, &format!("read: {msg}"));
                return Ok(1);
            }
        }
        Ok(if found { 0 } else { 1 })
    }

    /// `sh -c SCRIPT [ARG0 [ARG...]]`, `sh -s [ARG...]`, `sh` (script from stdin): a new
    /// shell with the exported variables.
    async fn sh(&mut self, args: &[Vec<u8>], io: Io) -> R {
        let mut opts = Options::default();
        let mut mode = None;
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_slice();
            if a == b"--" {
                i += 1;
                break;
            }
            if a.len() < 2 || !matches!(a[0], b'-' | b'+') {
                break;
            }
            // `c` and `s` say where the script is; the other letters are `set`'s.
            let mut word = vec![a[0]];
            for &c in &a[1..] {
                match c {
                    b'c' | b's' => mode = Some(c),
                    _ => word.push(c),
                }
            }
            if word.len() == 1 {
                i += 1;
                continue;
            }
            match set_options(&mut opts, &word, args.get(i + 1).map(Vec::as_slice)) {
                Ok(used) => i += used,
                Err(msg) => {
                    self.diag(io, &format!("sh: {msg}"));
                    return Ok(2);
                }
            }
        }
        let rest = &args[i..];
        let (script, arg0, params) = if mode == Some(b'c') {
            let Some(s) = rest.first() else {
                self.diag(io, "sh: -c: option requires an argument");
                return Ok(2);
            };
            let arg0 = rest.get(1).cloned().unwrap_or_else(|| b"sh".to_vec());
            let params = rest.get(2..).map(<[Vec<u8>]>::to_vec).unwrap_or_default();
            (s.clone(), arg0, params)
        } else {
            let script = self.inputs[io.stdin].read_all().await?;
            (script, b"sh".to_vec(), rest.to_vec())
        };
        self.sh.budget.spend(1)?;
        self.enter()?;
        let mut fresh = State {
            arg0: Rc::new(arg0),
            params: Rc::new(params),
            opts,
            ..State::default()
        };
        let _ = fresh.set(b"OPTIND", b"1".to_vec());
        for (k, v) in self.st.vars.iter().filter(|(_, v)| v.exported) {
            Rc::make_mut(&mut fresh.vars).insert(k.clone(), v.clone());
        }
        let outer = std::mem::replace(&mut self.st, fresh);
        let streams = self.save_streams();
        let (cond, line) = (self.cond, self.line);
        self.cond = 0;
        let parsed = self.sh.scripts.borrow_mut().get(&script);
        let r = match &*parsed {
            Ok(s) => self.list_boxed(&s.body, io).await,
            Err(failed) => match self.list_boxed(&failed.prefix.body, io).await {
                Ok(_) | Err(Ctl::Exit(_)) => {
                    self.write(io.err, format!("sh: {}\n", failed.error).as_bytes());
                    Ok(2)
                }
                Err(e) => Err(e),
            },
        };
        let r = match r {
            Ok(s) | Err(Ctl::Exit(s)) => self.run_exit_trap(s, io).await,
            Err(Ctl::Abort { top, .. }) => self.run_exit_trap(top, io).await,
            r => r,
        };
        self.st = outer;
        self.restore_streams(streams);
        self.cond = cond;
        self.line = line;
        self.depth -= 1;
        match r {
            Err(Ctl::Abort { top, .. }) => Ok(top),
            r => sub_status(r),
        }
    }

    /// `getopts OPTSTRING NAME [ARG...]`.
    fn getopts(&mut self, args: &[Vec<u8>], io: Io) -> R {
        let (Some(spec), Some(name)) = (args.first(), args.get(1)) else {
            self.diag(io, "getopts: usage: getopts optstring name [arg ...]");
            return Ok(2);
        };
        let params: Vec<Vec<u8>> = if args.len() > 2 {
            args[2..].to_vec()
        } else {
            self.st.params.to_vec()
        };
        let optind = self.st.get(b"OPTIND").and_then(number).unwrap_or(1).max(1) as usize;
        let sub = self
            .st
            .get(b"_GETOPTS_POS")
            .and_then(number)
            .unwrap_or(1)
            .max(1) as usize;
        let silent = spec.first() == Some(&b':');
        let spec = if silent { &spec[1..] } else { &spec[..] };
        let done = |ex: &mut Self, optind: usize| -> R {
            let _ = ex.st.set(b"OPTIND", optind.to_string().into_bytes());
            let _ = ex.st.set(name, b"?".to_vec());
            let _ = ex.st.unset(b"_GETOPTS_POS");
            Ok(1)
        };
        let Some(arg) = params.get(optind - 1) else {
            return done(self, optind);
        };
        if arg.len() < 2 || arg[0] != b'-' {
            return done(self, optind);
        }
        if arg == b"--" {
            return done(self, optind + 1);
        }
        let Some(&c) = arg.get(sub) else {
            return done(self, optind);
        };
        let (mut next_ind, mut next_sub) = if sub + 1 < arg.len() {
            (optind, sub + 1)
        } else {
            (optind + 1, 1)
        };
        let pos = spec.iter().position(|&s| s == c && s != b':');
        let set = |ex: &mut Self, k: &[u8], v: Vec<u8>| {
            let _ = ex.st.set(k, v);
        };
        match pos {
            None => {
                if silent {
                    set(self, b"OPTARG", vec![c]);
                } else {
                    self.diag(io, &format!("illegal option -- {}", c as char));
                    let _ = self.st.unset(b"OPTARG");
                }
                set(self, name, b"?".to_vec());
            }
            Some(p) if spec.get(p + 1) == Some(&b':') => {
                if sub + 1 < arg.len() {
                    set(self, b"OPTARG", arg[sub + 1..].to_vec());
                    next_ind = optind + 1;
                } else if let Some(v) = params.get(optind) {
                    set(self, b"OPTARG", v.clone());
                    next_ind = optind + 2;
                } else {
                    if silent {
                        set(self, b"OPTARG", vec![c]);
                        set(self, name, b":".to_vec());
                    } else {
                        self.diag(io, &format!("option requires an argument -- {}", c as char));
                        set(self, name, b"?".to_vec());
                    }
                    next_ind = optind + 1;
                    set(self, b"OPTIND", next_ind.to_string().into_bytes());
                    let _ = self.st.unset(b"_GETOPTS_POS");
                    return Ok(0);
                }
                next_sub = 1;
                set(self, name, vec![c]);
            }
            Some(_) => {
                let _ = self.st.unset(b"OPTARG");
                set(self, name, vec![c]);
            }
        }
        set(self, b"OPTIND", next_ind.to_string().into_bytes());
        if next_sub > 1 {
            set(self, b"_GETOPTS_POS", next_sub.to_string().into_bytes());
        } else {
            let _ = self.st.unset(b"_GETOPTS_POS");
        }
        Ok(0)
    }
}

/// A new umask from an octal or symbolic MODE (symbolic clauses say which permissions
/// files get, so they change the complement of the mask).
fn parse_umask(mode: &[u8], mask: u32) -> Option<u32> {
    if mode.first().is_some_and(u8::is_ascii_digit) {
        let s = std::str::from_utf8(mode).ok()?;
        return u32::from_str_radix(s, 8).ok().filter(|&m| m <= 0o777);
    }
    let mut allowed = !mask & 0o777;
    for clause in mode.split(|&c| c == b',') {
        let who_len = clause.iter().take_while(|c| b"ugoa".contains(c)).count();
        let (who, rest) = clause.split_at(who_len);
        let mut whom = 0;
        for &w in who {
            whom |= match w {
                b'u' => 0o700,
                b'g' => 0o070,
                b'o' => 0o007,
                _ => 0o777,
            };
        }
        if who.is_empty() {
            whom = 0o777;
        }
        let (&op, perms) = rest.split_first()?;
        let mut bits = 0;
        for &p in perms {
            bits |= match p {
                b'r' => 0o444,
                b'w' => 0o222,
                b'x' => 0o111,
                _ => return None,
            };
        }
        bits &= whom;
        match op {
            b'=' => allowed = (allowed & !whom) | bits,
            b'+' => allowed |= bits,
            b'-' => allowed &= !bits,
            _ => return None,
        }
    }
    Some(!allowed & 0o777)
}

/// Applies one word of options, `-abc` or `+abc` (with the name after `-o` or `+o`, the
/// next word when the `o` ends it), as `set` and `sh` take them: how many words it used.
pub fn set_options(opts: &mut Options, word: &[u8], next: Option<&[u8]>) -> Result<usize, String> {
    let on = word.first() == Some(&b'-');
    let sign = if on { '-' } else { '+' };
    let mut used = 1;
    let letters = &word[1..];
    for (k, &c) in letters.iter().enumerate() {
        if c == b'o' {
            let name = if k + 1 < letters.len() {
                &letters[k + 1..]
            } else {
                used = 2;
                next.ok_or_else(|| format!("{sign}o: option requires an argument"))?
            };
            let o = Options::by_name(name)
                .ok_or_else(|| format!("{}: invalid option name", text(name)))?;
            opts.set(o, on);
            return Ok(used);
        }
        let o =
            Options::by_letter(c).ok_or_else(|| format!("{sign}{}: invalid option", c as char))?;
        opts.set(o, on);
    }
    Ok(used)
}

/// Splits a line read by `read` into `n` fields by IFS; the last gets the rest. Escaped
/// bytes never split.
fn split_read(line: &[u8], quoted: &[bool], ifs: &[u8], n: usize, reply: bool) -> Vec<Vec<u8>> {
    let white =
        |i: usize| !quoted[i] && matches!(line[i], b' ' | b'\t' | b'\n') && ifs.contains(&line[i]);
    let other =
        |i: usize| !quoted[i] && !matches!(line[i], b' ' | b'\t' | b'\n') && ifs.contains(&line[i]);
    if reply {
        // REPLY gets the line as it is (bash strips nothing but the newline).
        return vec![line.to_vec()];
    }
    let len = line.len();
    let mut fields = Vec::with_capacity(n);
    let mut i = 0;
    while i < len && white(i) {
        i += 1;
    }
    while fields.len() + 1 < n && i < len {
        let start = i;
        while i < len && !white(i) && !other(i) {
            i += 1;
        }
        fields.push(line[start..i].to_vec());
        // The delimiter: white space, at most one other IFS byte, white space.
        while i < len && white(i) {
            i += 1;
        }
        if i < len && other(i) {
            i += 1;
            while i < len && white(i) {
                i += 1;
            }
        }
    }
    if fields.len() < n {
        let mut end = len;
        while end > i && white(end - 1) {
            end -= 1;
        }
        // A single trailing other-IFS byte after the last field is dropped, as bash does.
        let mut last = line[i.min(end)..end].to_vec();
        if end > i && other(end - 1) && !(i..end - 1).any(other) && fields.len() + 1 == n {
            last.pop();
            while last
                .last()
                .is_some_and(|&c| matches!(c, b' ' | b'\t' | b'\n') && ifs.contains(&c))
            {
                last.pop();
            }
        }
        fields.push(last);
    }
    fields
}

/// The line `read` takes from `rest`: its bytes, which of them were escaped, whether it
/// ended (by its delimiter or `limit`), and how many bytes of `rest` it used.
fn take_line(
    rest: &[u8],
    raw: bool,
    delim: u8,
    limit: Option<usize>,
) -> (Vec<u8>, Vec<bool>, bool, usize) {
    let mut line = Vec::new();
    let mut quoted = Vec::new();
    let mut used = 0;
    let mut found = false;
    while used < rest.len() {
        if limit.is_some_and(|l| line.len() >= l) {
            found = true;
            break;
        }
        let c = rest[used];
        used += 1;
        if c == delim {
            found = true;
            break;
        }
        if c == b'\\' && !raw {
            let Some(&n) = rest.get(used) else { break };
            used += 1;
            if n == b'\n' {
                continue;
            }
            line.push(n);
            quoted.push(true);
            continue;
        }
        line.push(c);
        quoted.push(false);
    }
    (line, quoted, found, used)
}

#[cfg(test)]
mod tests {
    /// The shell looks a pipeline stage's name up among the builtins before the special
    /// builtins (`Exec::light_stage`): that is right only while no name is in both.
    #[test]
    fn no_builtin_has_the_name_of_a_special_builtin() {
        for (name, _) in super::SPECIALS {
            assert!(
                crate::builtins::lookup(name.as_bytes()).is_none(),
                "{name} is a special builtin and a builtin"
            );
        }
    }
}
