//! sed scripts: the text of `-e` and `-f` pieces parsed into a list of commands, with
//! GNU sed 4.9's error messages and positions.

use std::rc::Rc;

use crate::builtins::common::regex::{self, Dialect, Options, ParseError, Regex, Syntax};

/// Where a piece of script came from, for error messages.
#[derive(Debug, Clone)]
pub enum Origin {
    Expr(usize),
    File(Vec<u8>),
}

/// A regex in a script: `None` is the empty regex, "the last regex used".
#[derive(Clone)]
pub struct Re {
    pub re: Option<Rc<Regex>>,
    /// The `-e` expression it is in, for "no previous regular expression".
    pub expr: usize,
    /// The pattern as GNU sed keeps it (delimiters and escapes resolved), and its `I`
    /// and `M` flags: what `--debug` shows.
    pub text: Rc<[u8]>,
    pub icase: bool,
    pub multi: bool,
}

#[derive(Clone)]
pub enum Addr {
    Line(u64),
    Last,
    Re(Re),
    Step(u64, u64),
    /// `0` in `0,/re/`.
    Zero,
}

#[derive(Clone)]
pub enum Addr2 {
    Line(u64),
    Last,
    Re(Re),
    Plus(u64),
    Tilde(u64),
    /// `first~step`: the range ends at the next line of that step.
    Step(u64, u64),
}

/// A piece of `s` replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repl {
    Lit(Vec<u8>),
    Group(usize),
    Upper,
    Lower,
    UpperOne,
    LowerOne,
    EndCase,
    /// After an escaped ordinary byte (`\\`, `\.`, `\&`): GNU ends a piece of the
    /// replacement there, which uses up a `\l`/`\u` (only `--debug` shows it).
    Cut,
}

/// Where `w` output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    Stdout,
    Stderr,
    /// A file: there is no file system, so the bytes go nowhere.
    Nowhere,
}

pub struct Subst {
    pub re: Re,
    pub repl: Vec<Repl>,
    pub global: bool,
    pub print: u8,
    pub nth: u64,
    /// The number was written (`s/a/b/1`), for `--debug`.
    pub nth_given: bool,
    pub write: Option<Out>,
    /// The largest group the replacement uses.
    pub max_ref: usize,
    /// Where the command ended, for a late "invalid reference" error.
    pub pos: (usize, usize),
}

pub enum Kind {
    /// `{`: the index just after its `}`.
    Block(usize),
    EndBlock,
    Eq,
    Append(Vec<u8>),
    Insert(Vec<u8>),
    Change(Vec<u8>),
    /// `b`, `t`, `T`: the target index (`None`: end of script), resolved after parsing.
    Branch(Option<usize>),
    BranchIf(Option<usize>),
    BranchUnless(Option<usize>),
    Label,
    Delete,
    DeleteFirst,
    Get,
    GetAppend,
    Hold,
    HoldAppend,
    Exchange,
    List(Option<usize>),
    Next,
    NextAppend,
    Print,
    PrintFirst,
    /// `q`, `Q` and their exit status, if one was written.
    Quit(Option<i32>),
    QuitSilent(Option<i32>),
    /// `r`, `R` (`true`): the file (there is none, so they read nothing).
    Read(bool),
    Write(Out),
    WriteFirst(Out),
    Subst(Box<Subst>),
    Translate(Box<[u8; 256]>),
    Zap,
    FileName,
    Comment,
}

pub struct Cmd {
    pub a1: Option<Addr>,
    pub a2: Option<Addr2>,
    pub negate: bool,
    pub kind: Kind,
    /// The label of `:`, `b`, `t`, `T`, or the file name of `r`, `R`, `w`, `W` and of
    /// `s///w`, as written: what `--debug` shows.
    pub arg: Vec<u8>,
}

pub struct Script {
    pub cmds: Vec<Cmd>,
    /// `#n` on the first line.
    pub quiet: bool,
}

/// A parse error: its message and where (origin, characters read), GNU style.
#[derive(Debug, Clone)]
pub struct SedError {
    pub message: String,
    /// `None`: a message without a position (`can't find label ...`).
    pub at: Option<(Origin, usize)>,
    /// The exit status: 1 for script errors, 4 for some.
    pub status: i32,
}

impl SedError {
    pub fn render(&self) -> String {
        match &self.at {
            Some((Origin::Expr(n), c)) => {
                format!("sed: -e expression #{n}, char {c}: {}\n", self.message)
            }
            Some((Origin::File(f), line)) => format!(
                "sed: file {} line {line}: {}\n",
                String::from_utf8_lossy(f),
                self.message
            ),
            None => format!("sed: {}\n", self.message),
        }
    }
}

/// Reads the script pieces as one text: a piece ends with a newline.
struct Reader<'a> {
    pieces: &'a [(Vec<u8>, Origin)],
    piece: usize,
    pos: usize,
    /// Lines read in a file piece (for `file F line N`).
    line: usize,
}

const EOF: i32 = -1;

impl Reader<'_> {
    fn get(&mut self) -> i32 {
        loop {
            let Some((text, _)) = self.pieces.get(self.piece) else {
                return EOF;
            };
            if self.pos < text.len() {
                let c = text[self.pos];
                self.pos += 1;
                if c == b'\n' {
                    self.line += 1;
                }
                return i32::from(c);
            }
            if self.pos == text.len() && self.piece + 1 < self.pieces.len() {
                // The newline between two pieces.
                self.pos += 1;
                return i32::from(b'\n');
            }
            if self.piece + 1 < self.pieces.len() {
                self.piece += 1;
                self.pos = 0;
                self.line = 0;
                continue;
            }
            return EOF;
        }
    }

    fn unget(&mut self, c: i32) {
        if c == EOF {
            return;
        }
        if self.pos == 0 {
            return;
        }
        self.pos -= 1;
        if c == i32::from(b'\n') {
            self.line = self.line.saturating_sub(1);
        }
    }

    fn here(&self) -> (Origin, usize) {
        let origin = self
            .pieces
            .get(self.piece)
            .map(|p| p.1.clone())
            .unwrap_or(Origin::Expr(1));
        // The newline between two `-e` pieces is not in GNU's count.
        let len = self.pieces.get(self.piece).map_or(0, |p| p.0.len());
        match origin {
            Origin::Expr(_) => (origin, self.pos.min(len)),
            Origin::File(_) => (origin, self.line + 1),
        }
    }

    fn err(&self, message: impl Into<String>) -> SedError {
        SedError {
            message: message.into(),
            at: Some(self.here()),
            status: 1,
        }
    }
}

fn is_space(c: i32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0b | 0x0c | 0x0d) || c == i32::from(b'\n')
}

fn is_blank(c: i32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0b | 0x0c | 0x0d)
}

pub struct Parser<'a> {
    r: Reader<'a>,
    pub extended: bool,
    pub posix: bool,
    cache: &'a mut regex::Cache,
}

/// Parses the whole script.
pub fn parse(
    pieces: &[(Vec<u8>, Origin)],
    extended: bool,
    posix: bool,
    cache: &mut regex::Cache,
) -> Result<Script, SedError> {
    let quiet = pieces
        .first()
        .is_some_and(|(t, _)| t.starts_with(b"#n") && matches!(t.get(2), None | Some(b'\n')));
    let mut p = Parser {
        r: Reader {
            pieces,
            piece: 0,
            pos: 0,
            line: 0,
        },
        extended,
        posix,
        cache,
    };
    let mut cmds: Vec<Cmd> = Vec::new();
    let mut blocks: Vec<usize> = Vec::new();
    let mut labels: Vec<(Vec<u8>, usize)> = Vec::new();
    let mut jumps: Vec<(usize, Vec<u8>)> = Vec::new();
    loop {
        let cmd = match p.command(&mut labels, &mut jumps, cmds.len())? {
            None => break,
            Some(c) => c,
        };
        match cmd.kind {
            Kind::Block(_) => blocks.push(cmds.len()),
            Kind::EndBlock => {
                let Some(open) = blocks.pop() else {
                    return Err(p.r.err("unexpected `}'"));
                };
                let end = cmds.len() + 1;
                if let Some(c) = cmds.get_mut(open) {
                    c.kind = Kind::Block(end);
                }
            }
            _ => {}
        }
        cmds.push(cmd);
    }
    if !blocks.is_empty() {
        let origin = pieces
            .last()
            .map(|p| p.1.clone())
            .unwrap_or(Origin::Expr(1));
        return Err(SedError {
            message: "unmatched `{'".into(),
            at: Some((origin, 0)),
            status: 1,
        });
    }
    for (at, name) in jumps {
        let target = if name.is_empty() {
            None
        } else {
            match labels.iter().find(|(l, _)| *l == name) {
                Some((_, i)) => Some(*i),
                None => {
                    return Err(SedError {
                        message: format!(
                            "can't find label for jump to `{}'",
                            String::from_utf8_lossy(&name)
                        ),
                        at: None,
                        status: 4,
                    })
                }
            }
        };
        if let Some(c) = cmds.get_mut(at) {
            c.kind = match c.kind {
                Kind::Branch(_) => Kind::Branch(target),
                Kind::BranchIf(_) => Kind::BranchIf(target),
                Kind::BranchUnless(_) => Kind::BranchUnless(target),
                _ => continue,
            };
        }
    }
    Ok(Script { cmds, quiet })
}

impl Parser<'_> {
    fn expr_no(&self) -> usize {
        match self.r.here().0 {
            Origin::Expr(n) => n,
            Origin::File(_) => 1,
        }
    }

    fn skip_spaces(&mut self) -> i32 {
        loop {
            let c = self.r.get();
            if !is_space(c) {
                return c;
            }
        }
    }

    fn skip_blanks(&mut self) -> i32 {
        loop {
            let c = self.r.get();
            if !is_blank(c) {
                return c;
            }
        }
    }

    fn command(
        &mut self,
        labels: &mut Vec<(Vec<u8>, usize)>,
        jumps: &mut Vec<(usize, Vec<u8>)>,
        index: usize,
    ) -> Result<Option<Cmd>, SedError> {
        let mut c;
        loop {
            c = self.skip_spaces();
            if c != i32::from(b';') {
                break;
            }
        }
        if c == EOF {
            return Ok(None);
        }
        self.r.unget(c);
        let a1 = self.address()?;
        let mut a2 = None;
        c = self.skip_blanks();
        if a1.is_some() && c == i32::from(b',') {
            c = self.skip_blanks();
            self.r.unget(c);
            a2 = match self.address2()? {
                Some(a) => Some(a),
                None => {
                    // GNU has read the byte after the comma when it gives up.
                    self.r.get();
                    return Err(self.r.err("unexpected `,'"));
                }
            };
            c = self.skip_blanks();
        }
        if let Some(Addr::Zero) = a1 {
            if self.posix || !matches!(a2, Some(Addr2::Re(_))) {
                return Err(self.r.err("invalid usage of line address 0"));
            }
        }
        let mut negate = false;
        if c == i32::from(b'!') {
            negate = true;
            c = self.skip_blanks();
            if c == i32::from(b'!') {
                return Err(self.r.err("multiple `!'s"));
            }
        }
        if c == EOF || c == i32::from(b'\n') || c == i32::from(b';') {
            if c == i32::from(b'\n') {
                self.r.unget(c);
            }
            return Err(self.r.err("missing command"));
        }
        let has_addr = a1.is_some();
        let ch = c as u8;
        let mut arg = Vec::new();
        let kind = match ch {
            b'{' => Kind::Block(0),
            b'}' => {
                if has_addr {
                    return Err(self.r.err("unexpected `}'"));
                }
                if negate {
                    return Err(self.r.err("unexpected `}'"));
                }
                self.end_of_cmd()?;
                Kind::EndBlock
            }
            b'#' => {
                if has_addr {
                    return Err(self.r.err("comments don't accept any addresses"));
                }
                loop {
                    let c = self.r.get();
                    if c == EOF || c == i32::from(b'\n') {
                        break;
                    }
                }
                Kind::Comment
            }
            b':' => {
                if has_addr {
                    return Err(self.r.err(": doesn't want any addresses"));
                }
                let label = self.label(true)?;
                if label.is_empty() {
                    return Err(self.r.err("\":\" lacks a label"));
                }
                labels.push((label.clone(), index));
                arg = label;
                Kind::Label
            }
            b'=' => {
                self.end_of_cmd()?;
                Kind::Eq
            }
            b'a' | b'i' | b'c' => {
                if ch == b'i' && a2.is_some() && self.posix {
                    return Err(self.r.err("command only uses one address"));
                }
                let text = self.text()?;
                match ch {
                    b'a' => Kind::Append(text),
                    b'i' => Kind::Insert(text),
                    _ => Kind::Change(text),
                }
            }
            b'T' | b'F' | b'z' | b'W' | b'R' | b'Q' | b'v' | b'L' if self.posix => {
                let shown = String::from_utf8_lossy(&[ch]).into_owned();
                return Err(self.r.err(format!("unknown command: `{shown}'")));
            }
            b'b' | b't' | b'T' => {
                let label = self.label(false)?;
                jumps.push((index, label.clone()));
                arg = label;
                match ch {
                    b'b' => Kind::Branch(None),
                    b't' => Kind::BranchIf(None),
                    _ => Kind::BranchUnless(None),
                }
            }
            b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'x' | b'n' | b'N' | b'p' | b'P' | b'z'
            | b'F' => {
                self.end_of_cmd()?;
                match ch {
                    b'd' => Kind::Delete,
                    b'D' => Kind::DeleteFirst,
                    b'g' => Kind::Get,
                    b'G' => Kind::GetAppend,
                    b'h' => Kind::Hold,
                    b'H' => Kind::HoldAppend,
                    b'x' => Kind::Exchange,
                    b'n' => Kind::Next,
                    b'N' => Kind::NextAppend,
                    b'p' => Kind::Print,
                    b'P' => Kind::PrintFirst,
                    b'z' => Kind::Zap,
                    _ => Kind::FileName,
                }
            }
            b'q' | b'Q' => {
                if a2.is_some() {
                    return Err(self.r.err("command only uses one address"));
                }
                let n = self.opt_number()?;
                self.end_of_cmd()?;
                let code = n.map(|v| v as i32);
                if ch == b'q' {
                    Kind::Quit(code)
                } else {
                    Kind::QuitSilent(code)
                }
            }
            b'l' | b'L' => {
                if ch == b'L' {
                    return Err(self.r.err("unknown command: `L'"));
                }
                let n = if self.posix { None } else { self.opt_number()? };
                self.end_of_cmd()?;
                Kind::List(n.map(|v| v as usize))
            }
            b'r' | b'R' => {
                arg = self.filename()?.1;
                Kind::Read(ch == b'R')
            }
            b'w' | b'W' => {
                let (out, name) = self.filename()?;
                arg = name;
                if ch == b'w' {
                    Kind::Write(out)
                } else {
                    Kind::WriteFirst(out)
                }
            }
            b'e' => return Err(self.r.err("e/r/w commands disabled in sandbox mode")),
            b'v' => {
                let label = self.label(false)?;
                if !label.is_empty() && version_newer(&label) {
                    return Err(self.r.err("expected newer version of sed"));
                }
                Kind::Comment
            }
            b's' => {
                let (s, name) = self.subst()?;
                arg = name;
                Kind::Subst(Box::new(s))
            }
            b'y' => Kind::Translate(self.translate()?),
            _ => {
                let shown = String::from_utf8_lossy(&[ch]).into_owned();
                return Err(self.r.err(format!("unknown command: `{shown}'")));
            }
        };
        Ok(Some(Cmd {
            a1,
            a2,
            negate,
            kind,
            arg,
        }))
    }

    /// After a command: blanks, then the end of the line, `;`, `}` or `#`.
    fn end_of_cmd(&mut self) -> Result<(), SedError> {
        let c = self.skip_blanks();
        if c == EOF || c == i32::from(b'\n') || c == i32::from(b';') {
            return Ok(());
        }
        if c == i32::from(b'}') || c == i32::from(b'#') {
            self.r.unget(c);
            return Ok(());
        }
        Err(self.r.err("extra characters after command"))
    }

    fn opt_number(&mut self) -> Result<Option<u64>, SedError> {
        let mut c = self.skip_blanks();
        if !(i32::from(b'0')..=i32::from(b'9')).contains(&c) {
            self.r.unget(c);
            return Ok(None);
        }
        let mut n: u64 = 0;
        while (i32::from(b'0')..=i32::from(b'9')).contains(&c) {
            n = n
                .saturating_mul(10)
                .saturating_add((c - i32::from(b'0')) as u64);
            c = self.r.get();
        }
        self.r.unget(c);
        Ok(Some(n))
    }

    fn label(&mut self, colon: bool) -> Result<Vec<u8>, SedError> {
        let mut c = self.skip_blanks();
        let mut out = Vec::new();
        while c != EOF
            && c != i32::from(b'\n')
            && c != i32::from(b';')
            && !is_blank(c)
            && (colon || c != i32::from(b'}'))
        {
            out.push(c as u8);
            c = self.r.get();
        }
        // The rest of the command: blanks, then its end.
        if is_blank(c) {
            self.r.unget(c);
            self.end_of_cmd()?;
        } else if c == i32::from(b'}') {
            self.r.unget(c);
        }
        Ok(out)
    }

    fn filename(&mut self) -> Result<(Out, Vec<u8>), SedError> {
        let mut c = self.skip_blanks();
        let mut name = Vec::new();
        while c != EOF && c != i32::from(b'\n') {
            name.push(c as u8);
            c = self.r.get();
        }
        if name.is_empty() {
            return Err(self.r.err("missing filename in r/R/w/W commands"));
        }
        let out = match name.as_slice() {
            b"/dev/stdout" => Out::Stdout,
            b"/dev/stderr" => Out::Stderr,
            _ => Out::Nowhere,
        };
        Ok((out, name))
    }

    /// The text of `a`, `i` and `c`, in the one-line or the classic form.
    fn text(&mut self) -> Result<Vec<u8>, SedError> {
        let mut c = self.skip_blanks();
        if c == EOF {
            return Err(self.r.err("expected \\ after `a', `c' or `i'"));
        }
        let mut text = Vec::new();
        if c == i32::from(b'\\') {
            c = self.r.get();
            if c == i32::from(b'\n') {
                c = self.r.get();
            } else if c == EOF {
                return Ok(Vec::new());
            } else if c == i32::from(b'\\') {
                // `a\\t`: the second backslash starts an escape (a tab here).
            } else {
                // GNU's one-line forms `a\text` and `a \text`: the byte after the
                // backslash is the text's first, as it is (`a\text` adds "text").
                text.push(c as u8);
                c = self.r.get();
            }
        } else {
            if self.posix || c == i32::from(b'\n') {
                return Err(self.r.err("expected \\ after `a', `c' or `i'"));
            }
            // One-line form: leading blanks are gone already.
        }
        // What was read, as it is: a text that ends the script with a lone backslash is
        // kept that way by GNU sed (no escapes done, the last backslash dropped).
        let mut raw = text.clone();
        while c != EOF {
            if c == i32::from(b'\\') {
                c = self.r.get();
                if c == EOF {
                    return Ok(raw);
                }
                raw.push(b'\\');
                raw.push(c as u8);
                match c as u8 {
                    b'\n' => text.push(b'\n'),
                    other => match escape_byte(other) {
                        Some(b) => text.push(b),
                        None => text.push(other),
                    },
                }
                c = self.r.get();
                continue;
            }
            if c == i32::from(b'\n') {
                break;
            }
            text.push(c as u8);
            raw.push(c as u8);
            c = self.r.get();
        }
        Ok(text)
    }

    fn address(&mut self) -> Result<Option<Addr>, SedError> {
        let c = self.r.get();
        if (i32::from(b'0')..=i32::from(b'9')).contains(&c) {
            self.r.unget(c);
            let n = self.opt_number()?.unwrap_or(0);
            let c = self.skip_blanks();
            if c == i32::from(b'~') && !self.posix {
                let step = self.opt_number()?.unwrap_or(0);
                if n == 0 && step == 0 {
                    return Err(self.r.err("invalid usage of line address 0"));
                }
                return Ok(Some(Addr::Step(n, step)));
            }
            self.r.unget(c);
            return Ok(Some(if n == 0 { Addr::Zero } else { Addr::Line(n) }));
        }
        if c == i32::from(b'$') {
            return Ok(Some(Addr::Last));
        }
        if c == i32::from(b'/') || c == i32::from(b'\\') {
            let delim = if c == i32::from(b'\\') {
                self.r.get()
            } else {
                c
            };
            if delim == EOF || delim == i32::from(b'\n') || delim == i32::from(b'\\') {
                return Err(self.r.err("unterminated address regex"));
            }
            let Some(pat) = self.delimited(delim as u8, true) else {
                return Err(self.r.err("unterminated address regex"));
            };
            let mut icase = false;
            let mut multi = false;
            loop {
                let c = self.r.get();
                // `--posix` has no `I` or `M`: they are read as the command.
                if c == i32::from(b'I') && !self.posix {
                    icase = true;
                } else if c == i32::from(b'M') && !self.posix {
                    multi = true;
                } else if is_blank(c) {
                } else {
                    self.r.unget(c);
                    break;
                }
            }
            let re = self.compile(&pat, icase, multi)?;
            return Ok(Some(Addr::Re(re)));
        }
        self.r.unget(c);
        Ok(None)
    }

    fn address2(&mut self) -> Result<Option<Addr2>, SedError> {
        let c = self.r.get();
        if (c == i32::from(b'+') || c == i32::from(b'~')) && !self.posix {
            let n = self.opt_number()?;
            let Some(n) = n else {
                return Err(self.r.err("expected newer version of sed"));
            };
            return Ok(Some(if c == i32::from(b'+') {
                Addr2::Plus(n)
            } else {
                Addr2::Tilde(n)
            }));
        }
        self.r.unget(c);
        Ok(match self.address()? {
            None => None,
            Some(Addr::Line(n)) => Some(Addr2::Line(n)),
            Some(Addr::Zero) => Some(Addr2::Line(0)),
            Some(Addr::Last) => Some(Addr2::Last),
            Some(Addr::Re(r)) => Some(Addr2::Re(r)),
            Some(Addr::Step(n, step)) => Some(Addr2::Step(n, step)),
        })
    }

    /// Reads up to an unescaped `delim` (brackets skipped whole in a regex). `\delim`
    /// becomes `delim` (`\&` in a replacement, as GNU sed reads it); `\n` a newline. `None` at the end of the script or a raw newline.
    fn delimited(&mut self, delim: u8, regex: bool) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            let c = self.r.get();
            if c == EOF {
                return None;
            }
            let b = c as u8;
            if b == b'\n' {
                // A newline may only be escaped. GNU's position does not count it.
                self.r.unget(c);
                return None;
            }
            if b == delim {
                return Some(out);
            }
            if b == b'\\' {
                let n = self.r.get();
                if n == EOF {
                    return None;
                }
                let nb = n as u8;
                if nb == delim && !regex && delim == b'&' {
                    // In a replacement, an escaped delimiter is that byte itself: `&`
                    // stays escaped, so it is not the match.
                    out.extend_from_slice(b"\\&");
                } else if nb == delim {
                    out.push(delim);
                } else if nb == b'n' && regex {
                    out.push(b'\n');
                } else if nb == b'\n' {
                    if regex {
                        out.push(b'\n');
                    } else {
                        out.extend_from_slice(b"\\\n");
                    }
                } else {
                    out.push(b'\\');
                    out.push(nb);
                }
                continue;
            }
            if b == b'[' && regex {
                // A bracket expression runs to its `]`, whatever it holds.
                out.push(b);
                let mut c = self.r.get();
                if c == i32::from(b'^') {
                    out.push(b'^');
                    c = self.r.get();
                }
                if c == i32::from(b']') {
                    out.push(b']');
                    c = self.r.get();
                }
                loop {
                    if c == EOF || c == i32::from(b'\n') {
                        self.r.unget(c);
                        return None;
                    }
                    let b = c as u8;
                    out.push(b);
                    if b == b']' {
                        break;
                    }
                    if b == b'[' {
                        let k = self.r.get();
                        if k == i32::from(b':') || k == i32::from(b'.') || k == i32::from(b'=') {
                            out.push(k as u8);
                            // Up to the closing `k]`.
                            let mut prev = -2;
                            loop {
                                let d = self.r.get();
                                if d == EOF || d == i32::from(b'\n') {
                                    self.r.unget(d);
                                    return None;
                                }
                                out.push(d as u8);
                                if d == i32::from(b']') && prev == k {
                                    break;
                                }
                                prev = d;
                            }
                        } else {
                            self.r.unget(k);
                        }
                    }
                    c = self.r.get();
                }
                continue;
            }
            out.push(b);
        }
    }

    fn compile(&mut self, pat: &[u8], icase: bool, multi: bool) -> Result<Re, SedError> {
        if pat.is_empty() {
            return Ok(Re {
                re: None,
                expr: self.expr_no(),
                text: Rc::from(&b""[..]),
                icase,
                multi,
            });
        }
        let raw = pat;
        let pat = convert_escapes(pat);
        let opts = Options {
            syntax: Syntax {
                extended: self.extended,
                icase,
                dialect: Dialect::Sed,
            },
            multiline: multi,
        };
        match self.cache.get(&pat, opts) {
            Ok(re) => Ok(Re {
                re: Some(re),
                expr: self.expr_no(),
                text: Rc::from(shown_pattern(raw)),
                icase,
                multi,
            }),
            Err(ParseError::ClassSyntax) => Err(SedError {
                message: ParseError::ClassSyntax.message().into(),
                at: None,
                status: 4,
            }),
            Err(e) => Err(self.r.err(e.message())),
        }
    }

    fn subst(&mut self) -> Result<(Subst, Vec<u8>), SedError> {
        let d = self.r.get();
        if d == EOF || d == i32::from(b'\n') || d == i32::from(b'\\') {
            return Err(self.r.err("unterminated `s' command"));
        }
        let delim = d as u8;
        let Some(pat) = self.delimited(delim, true) else {
            return Err(self.r.err("unterminated `s' command"));
        };
        let Some(rhs) = self.delimited(delim, false) else {
            return Err(self.r.err("unterminated `s' command"));
        };
        let (repl, max_ref) = parse_replacement(&rhs, self.posix);
        let mut global = false;
        let mut print = 0u8;
        let mut nth: Option<u64> = None;
        let mut icase = false;
        let mut multi = false;
        let mut write = None;
        let mut wname = Vec::new();
        loop {
            let c = self.r.get();
            match c {
                _ if c == i32::from(b'g') => {
                    if global {
                        return Err(self.r.err("multiple `g' options to `s' command"));
                    }
                    global = true;
                }
                _ if c == i32::from(b'p') => {
                    if print > 0 {
                        return Err(self.r.err("multiple `p' options to `s' command"));
                    }
                    print = 1;
                }
                _ if !self.posix && (c == i32::from(b'i') || c == i32::from(b'I')) => icase = true,
                _ if !self.posix && (c == i32::from(b'm') || c == i32::from(b'M')) => multi = true,
                _ if c == i32::from(b'e') => {
                    return Err(self.r.err("e/r/w commands disabled in sandbox mode"))
                }
                _ if (i32::from(b'0')..=i32::from(b'9')).contains(&c) => {
                    if nth.is_some() {
                        return Err(self.r.err("multiple number options to `s' command"));
                    }
                    self.r.unget(c);
                    let n = self.opt_number()?.unwrap_or(0);
                    if n == 0 {
                        return Err(self.r.err("number option to `s' command may not be zero"));
                    }
                    nth = Some(n);
                }
                _ if c == i32::from(b'w') => {
                    let (out, name) = self.filename()?;
                    write = Some(out);
                    wname = name;
                    break;
                }
                _ if is_blank(c) => {}
                _ if c == EOF || c == i32::from(b'\n') || c == i32::from(b';') => break,
                _ if c == i32::from(b'}') || c == i32::from(b'#') => {
                    self.r.unget(c);
                    break;
                }
                _ => return Err(self.r.err("unknown option to `s'")),
            }
        }
        let re = self.compile(&pat, icase, multi)?;
        if let Some(r) = &re.re {
            if max_ref > r.groups() {
                return Err(self.r.err(format!(
                    "invalid reference \\{max_ref} on `s' command's RHS"
                )));
            }
        }
        let here = self.r.here();
        let s = Subst {
            re,
            repl,
            global,
            print,
            nth: nth.unwrap_or(1),
            nth_given: nth.is_some(),
            write,
            max_ref,
            pos: (
                match here.0 {
                    Origin::Expr(n) => n,
                    Origin::File(_) => 0,
                },
                here.1,
            ),
        };
        Ok((s, wname))
    }

    fn translate(&mut self) -> Result<Box<[u8; 256]>, SedError> {
        let d = self.r.get();
        if d == EOF || d == i32::from(b'\n') || d == i32::from(b'\\') {
            return Err(self.r.err("unterminated `y' command"));
        }
        let delim = d as u8;
        let mut sides = Vec::new();
        for _ in 0..2 {
            let mut out = Vec::new();
            loop {
                let c = self.r.get();
                if c == EOF || c == i32::from(b'\n') {
                    self.r.unget(c);
                    return Err(self.r.err("unterminated `y' command"));
                }
                let b = c as u8;
                if b == delim {
                    break;
                }
                if b == b'\\' {
                    let n = self.r.get();
                    if n == EOF {
                        return Err(self.r.err("unterminated `y' command"));
                    }
                    let nb = n as u8;
                    if nb == delim {
                        out.push(delim);
                    } else if nb == b'\\' {
                        out.push(b'\\');
                    } else if nb == b'\n' {
                        out.push(b'\n');
                    } else if let Some(e) = escape_byte(nb) {
                        out.push(e);
                    } else {
                        out.push(b'\\');
                        out.push(nb);
                    }
                    continue;
                }
                out.push(b);
            }
            sides.push(out);
        }
        let (from, to) = (&sides[0], &sides[1]);
        if from.len() != to.len() {
            return Err(self.r.err("strings for `y' command are different lengths"));
        }
        self.end_of_cmd()?;
        let mut map = Box::new([0u8; 256]);
        for (i, m) in map.iter_mut().enumerate() {
            *m = i as u8;
        }
        for (f, t) in from.iter().zip(to.iter()) {
            map[usize::from(*f)] = *t;
        }
        Ok(map)
    }
}

/// `\n`, `\t` and friends: the byte they stand for in sed text.
fn escape_byte(c: u8) -> Option<u8> {
    Some(match c {
        b'a' => 0x07,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'v' => 0x0b,
        _ => return None,
    })
}

/// A numeric escape at `s[i..]` (after the backslash): `dNNN`, `oNNN`, `xHH`, `cX`.
/// Gives the byte and how many bytes it used.
fn numeric_escape(s: &[u8]) -> Option<(u8, usize)> {
    let (radix, max) = match s.first()? {
        b'd' => (10, 3),
        b'o' => (8, 3),
        b'x' => (16, 2),
        b'c' => {
            let c = *s.get(1)?;
            return Some((c.to_ascii_uppercase() ^ 0x40, 2));
        }
        _ => return None,
    };
    let mut v: u32 = 0;
    let mut n = 0;
    while n < max {
        let Some(d) = s.get(1 + n).and_then(|&c| (c as char).to_digit(radix)) else {
            break;
        };
        v = v * radix + d;
        n += 1;
    }
    if n == 0 {
        return None;
    }
    Some(((v & 0xff) as u8, 1 + n))
}

/// sed's escapes in a regex, done before the regex is compiled: the byte they make is
/// then read by the regex parser as itself.
pub fn convert_escapes(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        if p[i] == b'\\' && i + 1 < p.len() {
            let c = p[i + 1];
            if let Some(b) = escape_byte(c).filter(|_| c != b'n') {
                out.push(b);
                i += 2;
                continue;
            }
            if let Some((b, used)) = numeric_escape(&p[i + 1..]) {
                out.push(b);
                i += 1 + used;
                continue;
            }
            out.push(b'\\');
            out.push(c);
            i += 2;
            continue;
        }
        out.push(p[i]);
        i += 1;
    }
    out
}

/// A regex as GNU sed keeps it for `--debug`: sed's escapes done, `\n` a newline (in
/// brackets too).
fn shown_pattern(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len());
    let mut start = 0;
    let mut j = 0;
    while j < p.len() {
        if p[j] != b'\\' {
            j += 1;
            continue;
        }
        if p.get(j + 1) == Some(&b'n') {
            out.extend_from_slice(&convert_escapes(&p[start..j]));
            out.push(b'\n');
            j += 2;
            start = j;
        } else {
            j += 2;
        }
    }
    out.extend_from_slice(&convert_escapes(&p[start.min(p.len())..]));
    out
}

/// The replacement of `s`, and the largest group it refers to.
pub fn parse_replacement(rhs: &[u8], posix: bool) -> (Vec<Repl>, usize) {
    let mut out: Vec<Repl> = Vec::new();
    let mut max_ref = 0;
    let mut lit: Vec<u8> = Vec::new();
    let flush = |lit: &mut Vec<u8>, out: &mut Vec<Repl>| {
        if !lit.is_empty() {
            out.push(Repl::Lit(std::mem::take(lit)));
        }
    };
    let mut i = 0;
    while i < rhs.len() {
        let c = rhs[i];
        if c == b'&' {
            flush(&mut lit, &mut out);
            out.push(Repl::Group(0));
            i += 1;
            continue;
        }
        if c == b'\\' && i + 1 < rhs.len() {
            let n = rhs[i + 1];
            i += 2;
            match n {
                b'0'..=b'9' => {
                    flush(&mut lit, &mut out);
                    let g = usize::from(n - b'0');
                    max_ref = max_ref.max(g);
                    out.push(Repl::Group(g));
                }
                b'L' | b'U' | b'l' | b'u' | b'E' if !posix => {
                    flush(&mut lit, &mut out);
                    out.push(match n {
                        b'L' => Repl::Lower,
                        b'U' => Repl::Upper,
                        b'l' => Repl::LowerOne,
                        b'u' => Repl::UpperOne,
                        _ => Repl::EndCase,
                    });
                }
                b'\n' => lit.push(b'\n'),
                _ => {
                    if let Some(b) = escape_byte(n) {
                        lit.push(b);
                    } else if let Some((b, used)) = numeric_escape(&rhs[i - 1..]) {
                        lit.push(b);
                        i += used - 1;
                    } else {
                        lit.push(n);
                        flush(&mut lit, &mut out);
                        out.push(Repl::Cut);
                    }
                }
            }
            continue;
        }
        lit.push(c);
        i += 1;
    }
    flush(&mut lit, &mut out);
    (out, max_ref)
}

/// Whether a `v` version is newer than 4.9.
fn version_newer(v: &[u8]) -> bool {
    let s = String::from_utf8_lossy(v);
    let mut parts = s.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) > (4, 9)
}
