//! `sed --debug`: the parsed program written back in GNU sed 4.9's canonical form, and
//! the lines of the execution trace (`INPUT:`, `PATTERN:`, `COMMAND:`, `HOLD:`, the
//! matched registers). The runner decides when each is written; this only formats.

use super::parse::{Addr, Addr2, Cmd, Kind, Re, Repl, Script};

/// Each command's block depth: commands inside `{` are indented, a `}` is at the depth
/// of its `{`.
fn depths(script: &Script) -> Vec<usize> {
    let mut depth = 0usize;
    script
        .cmds
        .iter()
        .map(|c| match c.kind {
            Kind::Block(_) => {
                depth += 1;
                depth - 1
            }
            Kind::EndBlock => {
                depth = depth.saturating_sub(1);
                depth
            }
            _ => depth,
        })
        .collect()
}

/// `SED PROGRAM:` and one line per command (comments and `v` are not shown).
pub fn program(script: &Script, out: &mut Vec<u8>) {
    out.extend_from_slice(b"SED PROGRAM:\n");
    for (c, d) in script.cmds.iter().zip(depths(script)) {
        if matches!(c.kind, Kind::Comment) {
            continue;
        }
        indent(out, d + 1);
        command(c, out);
        out.push(b'\n');
    }
}

/// `COMMAND:` and the command, indented by its depth.
pub fn command_line(c: &Cmd, depth: usize, out: &mut Vec<u8>) {
    if matches!(c.kind, Kind::Comment) {
        return;
    }
    out.extend_from_slice(b"COMMAND: ");
    indent(out, depth);
    command(c, out);
    out.push(b'\n');
}

/// `INPUT:   'NAME' line N` (standard input is `STDIN`).
pub fn input(name: &[u8], line: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(b"INPUT:   '");
    out.extend_from_slice(if name == b"-" { b"STDIN" } else { name });
    out.extend_from_slice(format!("' line {line}\n").as_bytes());
}

/// `PATTERN: ` or `HOLD:    ` and the buffer, escaped.
pub fn space(label: &[u8], text: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(label);
    escape(text, false, out);
    out.push(b'\n');
}

/// The groups of the first match of `s`, up to the first that did not take part.
pub fn registers(hay: &[u8], slots: &[Option<(usize, usize)>], out: &mut Vec<u8>) {
    out.extend_from_slice(b"MATCHED REGEX REGISTERS\n");
    for (i, s) in slots.iter().enumerate() {
        let Some((a, b)) = *s else { break };
        out.extend_from_slice(format!("  regex[{i}] = {a}-{b} '").as_bytes());
        out.extend_from_slice(hay.get(a..b).unwrap_or(b""));
        out.extend_from_slice(b"'\n");
    }
}

fn indent(out: &mut Vec<u8>, depth: usize) {
    for _ in 0..depth {
        out.extend_from_slice(b"  ");
    }
}

/// GNU's picture of a buffer: C escapes, `\\`, and `\oNNN` for other unprintable bytes
/// (bytes above 127 as a sign-extended char, `\o37777777NNN`). `slash`: `/` as `\/`.
fn escape(text: &[u8], slash: bool, out: &mut Vec<u8>) {
    for &b in text {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'/' if slash => out.extend_from_slice(b"\\/"),
            0x07 => out.extend_from_slice(b"\\a"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0b => out.extend_from_slice(b"\\v"),
            0x20..=0x7e => out.push(b),
            _ => {
                let v = b as i8 as i32 as u32;
                out.extend_from_slice(format!("\\o{v:03o}").as_bytes());
            }
        }
    }
}

fn regex(re: &Re, out: &mut Vec<u8>) {
    out.push(b'/');
    escape(&re.text, true, out);
    out.push(b'/');
}

fn addr1(a: &Addr, out: &mut Vec<u8>) {
    match a {
        Addr::Line(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Addr::Zero => out.push(b'0'),
        Addr::Last => out.push(b'$'),
        Addr::Step(first, 0) => out.extend_from_slice(first.to_string().as_bytes()),
        Addr::Step(first, step) => out.extend_from_slice(format!("{first}~{step}").as_bytes()),
        Addr::Re(re) => {
            regex(re, out);
            if re.icase {
                out.push(b'I');
            }
            if re.multi {
                out.push(b'M');
            }
        }
    }
}

fn addr2(a: &Addr2, out: &mut Vec<u8>) {
    match a {
        Addr2::Line(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Addr2::Last => out.push(b'$'),
        Addr2::Plus(0) | Addr2::Tilde(0) => out.extend_from_slice(b"[ADDR-NULL]"),
        Addr2::Plus(n) => out.extend_from_slice(format!("+{n}").as_bytes()),
        Addr2::Tilde(n) => out.extend_from_slice(format!("~{n}").as_bytes()),
        Addr2::Step(first, 0) => out.extend_from_slice(first.to_string().as_bytes()),
        Addr2::Step(first, step) => out.extend_from_slice(format!("{first}~{step}").as_bytes()),
        Addr2::Re(re) => addr1(&Addr::Re(re.clone()), out),
    }
}

/// The text of `a`, `i`, `c`: GNU keeps it with its final newline (none when empty).
fn text(letter: u8, t: &[u8], out: &mut Vec<u8>) {
    out.push(letter);
    out.push(b'\\');
    out.extend_from_slice(t);
    if !t.is_empty() {
        out.push(b'\n');
    }
}

/// One command as `--debug` writes it, without indentation or newline.
fn command(c: &Cmd, out: &mut Vec<u8>) {
    if let Some(a) = &c.a1 {
        addr1(a, out);
        if let Some(a) = &c.a2 {
            out.push(b',');
            addr2(a, out);
        }
    }
    if c.negate {
        out.push(b'!');
    }
    if c.a1.is_some() || c.negate {
        out.push(b' ');
    }
    let simple = |out: &mut Vec<u8>, s: &[u8]| out.extend_from_slice(s);
    match &c.kind {
        Kind::Block(_) => simple(out, b"{"),
        Kind::EndBlock => simple(out, b"}"),
        Kind::Eq => simple(out, b"="),
        Kind::Append(t) => text(b'a', t, out),
        Kind::Insert(t) => text(b'i', t, out),
        Kind::Change(t) => text(b'c', t, out),
        Kind::Branch(_) | Kind::BranchIf(_) | Kind::BranchUnless(_) => {
            out.push(match c.kind {
                Kind::Branch(_) => b'b',
                Kind::BranchIf(_) => b't',
                _ => b'T',
            });
            if !c.arg.is_empty() {
                out.push(b' ');
                out.extend_from_slice(&c.arg);
            }
        }
        Kind::Label => {
            out.push(b':');
            out.extend_from_slice(&c.arg);
        }
        Kind::Delete => simple(out, b"d"),
        Kind::DeleteFirst => simple(out, b"D"),
        Kind::Get => simple(out, b"g"),
        Kind::GetAppend => simple(out, b"G"),
        Kind::Hold => simple(out, b"h"),
        Kind::HoldAppend => simple(out, b"H"),
        Kind::Exchange => simple(out, b"x"),
        Kind::List(n) => {
            out.push(b'l');
            if let Some(n) = n {
                out.extend_from_slice(format!(" {n}").as_bytes());
            }
        }
        Kind::Next => simple(out, b"n"),
        Kind::NextAppend => simple(out, b"N"),
        Kind::Print => simple(out, b"p"),
        Kind::PrintFirst => simple(out, b"P"),
        Kind::Quit(n) | Kind::QuitSilent(n) => {
            out.push(if matches!(c.kind, Kind::Quit(_)) {
                b'q'
            } else {
                b'Q'
            });
            if let Some(n) = n {
                out.extend_from_slice(format!(" {n}").as_bytes());
            }
        }
        Kind::Read(line) => {
            out.extend_from_slice(if *line { b"R " } else { b"r " });
            out.extend_from_slice(&c.arg);
        }
        Kind::Write(_) => {
            out.push(b'w');
            out.extend_from_slice(&c.arg);
        }
        Kind::WriteFirst(_) => {
            out.push(b'W');
            out.extend_from_slice(&c.arg);
        }
        Kind::Subst(s) => {
            out.push(b's');
            regex(&s.re, out);
            replacement(&s.repl, out);
            out.push(b'/');
            if s.re.icase {
                out.push(b'i');
            }
            if s.re.multi {
                out.push(b'm');
            }
            if s.global {
                out.push(b'g');
            }
            if s.print > 0 {
                out.push(b'p');
            }
            if s.nth_given {
                out.extend_from_slice(s.nth.to_string().as_bytes());
            }
            if s.write.is_some() {
                out.push(b'w');
                out.extend_from_slice(&c.arg);
            }
        }
        Kind::Translate(map) => {
            out.extend_from_slice(b"y/");
            for (i, &m) in map.iter().enumerate() {
                if usize::from(m) != i {
                    out.push(i as u8);
                }
            }
            out.push(b'/');
            for (i, &m) in map.iter().enumerate() {
                if usize::from(m) != i {
                    out.push(m);
                }
            }
            out.push(b'/');
        }
        Kind::Zap => simple(out, b"z"),
        Kind::FileName => simple(out, b"F"),
        Kind::Comment => {}
    }
}

/// Case conversion of a replacement piece: the whole-text case and the one-letter
/// modifier, as GNU groups them.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Case {
    base: u8,
    one: u8,
}

/// The replacement as GNU keeps it: pieces of (text, group, case) cut at each group
/// and each case escape, written back with a case escape wherever the case changes.
fn replacement(repl: &[Repl], out: &mut Vec<u8>) {
    const ASIS: Case = Case { base: 0, one: 0 };
    let mut pieces: Vec<(Vec<u8>, Option<usize>, Case)> = Vec::new();
    let mut prefix: Vec<u8> = Vec::new();
    let mut case = ASIS;
    for r in repl {
        match r {
            Repl::Lit(t) => prefix.extend_from_slice(t),
            Repl::Group(g) => {
                pieces.push((std::mem::take(&mut prefix), Some(*g), case));
                case.one = 0;
            }
            Repl::Cut => {
                pieces.push((std::mem::take(&mut prefix), None, case));
                case.one = 0;
            }
            other => {
                pieces.push((std::mem::take(&mut prefix), None, case));
                case = match other {
                    Repl::Upper => Case { base: b'U', one: 0 },
                    Repl::Lower => Case { base: b'L', one: 0 },
                    Repl::UpperOne => Case { one: b'u', ..case },
                    Repl::LowerOne => Case { one: b'l', ..case },
                    _ => ASIS,
                };
            }
        }
    }
    if !prefix.is_empty() {
        pieces.push((prefix, None, case));
    }
    let mut last = ASIS;
    for (text, group, case) in pieces {
        if case != last {
            out.push(b'\\');
            out.push(match case {
                Case { one: 0, base: 0 } => b'E',
                Case { one: 0, base } => base,
                Case { one, .. } => one,
            });
            last = case;
        }
        out.extend_from_slice(&text);
        match group {
            Some(0) => out.push(b'&'),
            Some(g) => out.extend_from_slice(format!("\\{g}").as_bytes()),
            None => {}
        }
    }
}
