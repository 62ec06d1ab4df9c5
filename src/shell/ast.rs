//! The syntax tree of a parsed script: lists of and-or lists of pipelines of commands.

use std::cell::OnceCell;
use std::rc::Rc;

/// A command list: and-or lists run one after the other.
pub type List = Vec<AndOr>;

/// A whole parsed script.
#[derive(Debug, Default)]
pub struct Script {
    pub body: List,
}

/// `p1 && p2 || p3 ...`.
#[derive(Debug)]
pub struct AndOr {
    pub first: Pipeline,
    /// `(true, p)` for `&& p`, `(false, p)` for `|| p`.
    pub rest: Vec<(bool, Pipeline)>,
}

/// `[!] c1 | c2 | ...`.
#[derive(Debug)]
pub struct Pipeline {
    pub bang: bool,
    pub cmds: Vec<Command>,
}

#[derive(Debug)]
pub enum Command {
    Simple(Simple),
    Compound(Box<Compound>, Vec<Redir>),
    FuncDef(Rc<FuncDef>),
}

/// `name() compound-command [redirections]`.
#[derive(Debug)]
pub struct FuncDef {
    pub name: Vec<u8>,
    pub body: Compound,
    pub redirs: Vec<Redir>,
}

#[derive(Debug)]
pub enum Compound {
    Group(List),
    Subshell(List),
    If {
        /// `if c0; then b0; elif c1; then b1 ...`
        arms: Vec<(List, List)>,
        otherwise: Option<List>,
    },
    For {
        var: Vec<u8>,
        /// `None` when there is no `in`: the positional parameters.
        words: Option<Vec<Word>>,
        body: List,
    },
    Loop {
        until: bool,
        cond: List,
        body: List,
    },
    Case {
        word: Word,
        arms: Vec<CaseArm>,
    },
}

#[derive(Debug)]
pub struct CaseArm {
    pub patterns: Vec<Word>,
    pub body: List,
    /// How the arm ends: `;;` stops, `;&` runs the next body, `;;&` tests the next patterns.
    pub end: CaseEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseEnd {
    Break,
    FallThrough,
    Continue,
}

/// A simple command: assignments, words and redirections, in any order in the source.
#[derive(Debug)]
pub struct Simple {
    pub assigns: Vec<Assign>,
    pub words: Vec<Word>,
    /// The command is a declaration utility (`export`, `readonly`, `local`...): its
    /// arguments that look like assignments are expanded like assignments (POSIX 2.9.1).
    pub declaration: bool,
    pub redirs: Vec<Redir>,
    pub line: u32,
}

impl Simple {
    /// Its words are text and plain parameters only (no substitution, arithmetic or
    /// `${name OP word}`): expanding them changes nothing and cannot fail but under `set -u`.
    pub fn words_are_plain(&self) -> bool {
        fn plain(parts: &[Part]) -> bool {
            parts.iter().all(|p| match p {
                Part::Lit(_) | Part::Quoted(_) | Part::Tilde(_) => true,
                Part::Double(inner) => plain(inner),
                Part::Param(p) => p.op == ParamOp::Plain,
                Part::Command(_) | Part::Arith(_) => false,
            })
        }
        self.words.iter().all(|w| plain(&w.parts))
    }

    /// Where fds 0, 1 and 2 point after its redirections, when each redirection is one
    /// that cannot fail and touches only those fds: `</dev/null`, `>/dev/null`,
    /// `2>>/dev/null`, `&>/dev/null`, `2>&1`, `>&2`. `None` for any other.
    pub fn std_redirs(&self) -> Option<[StdFd; 3]> {
        let mut fds = [StdFd::In, StdFd::Out, StdFd::Err];
        for r in &self.redirs {
            let RedirTarget::Word(w) = &r.target else {
                return None;
            };
            let [Part::Lit(target)] = w.parts.as_slice() else {
                return None;
            };
            let null = target.as_slice() == b"/dev/null";
            let fd = r.fd.unwrap_or(u32::from(r.op != RedirOp::In)) as usize;
            match r.op {
                RedirOp::In if fd == 0 && null => fds[0] = StdFd::Null,
                RedirOp::Out | RedirOp::Append if (1..=2).contains(&fd) && null => {
                    fds[fd] = StdFd::Null;
                }
                RedirOp::OutErr if r.fd.is_none() && null => fds[1..].fill(StdFd::Null),
                RedirOp::DupOut if (1..=2).contains(&fd) => match target.as_slice() {
                    b"1" => fds[fd] = fds[1],
                    b"2" => fds[fd] = fds[2],
                    _ => return None,
                },
                _ => return None,
            }
        }
        Some(fds)
    }
}

/// What one of fds 0-2 of a command points to (see [`Simple::std_redirs`]): the stdin,
/// stdout or stderr it was given, or `/dev/null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdFd {
    In,
    Out,
    Err,
    Null,
}

/// `name=value` (`append` for bash's `name+=value`).
#[derive(Debug)]
pub struct Assign {
    pub name: Vec<u8>,
    pub value: Word,
    pub append: bool,
}

#[derive(Debug)]
pub struct Redir {
    /// The file descriptor written before the operator (`2>`), if any.
    pub fd: Option<u32>,
    pub op: RedirOp,
    pub target: RedirTarget,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`
    In,
    /// `>` and `>|`
    Out,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `<&`
    DupIn,
    /// `>&`
    DupOut,
    /// `&>` (bash): stdout and stderr
    OutErr,
    /// `<<`, `<<-` and `<<<`
    HereDoc,
}

#[derive(Debug)]
pub enum RedirTarget {
    Word(Word),
    /// A here-document's body, filled in when the parser reaches the line after the
    /// operator (a quoted delimiter gives one quoted part).
    Here(Rc<OnceCell<Word>>),
}

/// A word: parts that are expanded and joined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Unquoted literal text (pattern characters in it are active).
    Lit(Vec<u8>),
    /// Quoted literal text: single quotes, a backslash escape, or the literal text
    /// inside double quotes.
    Quoted(Vec<u8>),
    /// `"..."`: its parts are expanded without field splitting.
    Double(Vec<Part>),
    Param(Box<Param>),
    /// `$(...)` or a backquoted command.
    Command(Rc<Script>),
    /// `$((...))`: the parts are expanded like a double-quoted word, then evaluated.
    Arith(Vec<Part>),
    /// A tilde-prefix (`~`, `~name`) at the start of a word or of an assignment's value
    /// (and after its `:`s): the login name, empty for `~`.
    Tilde(Vec<u8>),
}

impl PartialEq for Script {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for Script {}

/// `$name`, `${name}` and `${name OP word}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: ParamName,
    pub op: ParamOp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamName {
    Var(Vec<u8>),
    /// `$0`, `$1`, `${10}`.
    Positional(usize),
    /// One of `@ * # ? - $ !`.
    Special(u8),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamOp {
    Plain,
    /// `${#name}`
    Length,
    /// `${name-w}` / `${name:-w}`
    Default(bool, Word),
    /// `${name=w}` / `${name:=w}`
    Assign(bool, Word),
    /// `${name?w}` / `${name:?w}`
    Error(bool, Word),
    /// `${name+w}` / `${name:+w}`
    Alt(bool, Word),
    /// `${name#p}` (false) / `${name##p}` (true)
    TrimPrefix(bool, Word),
    /// `${name%p}` / `${name%%p}`
    TrimSuffix(bool, Word),
    /// `${name/p/r}` and friends (bash).
    Replace {
        all: bool,
        anchor: Anchor,
        pattern: Word,
        with: Word,
    },
    /// `${name:offset}` / `${name:offset:length}` (bash).
    Substring(Word, Option<Word>),
    /// `${name^}` `${name^^}` `${name,}` `${name,,}` (bash): `upper`, `all`.
    Case(bool, bool),
    /// A `${...}` that means nothing (`${%}`): an error when it is expanded, not when
    /// it is parsed (POSIX leaves it unspecified; dash and bash agree). The text.
    Bad(Vec<u8>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    None,
    Start,
    End,
}

impl Word {
    /// The word's text when it is a single unquoted literal (keywords, names).
    pub fn as_literal(&self) -> Option<&[u8]> {
        match self.parts.as_slice() {
            [Part::Lit(s)] => Some(s),
            _ => None,
        }
    }

    /// The word's text with quotes removed, when it has no expansions (here-document
    /// delimiters, function names).
    pub fn unquoted_text(&self) -> Option<Vec<u8>> {
        fn walk(parts: &[Part], out: &mut Vec<u8>) -> bool {
            for p in parts {
                match p {
                    Part::Lit(s) | Part::Quoted(s) => out.extend_from_slice(s),
                    Part::Tilde(name) => {
                        out.push(b'~');
                        out.extend_from_slice(name);
                    }
                    Part::Double(inner) => {
                        if !walk(inner, out) {
                            return false;
                        }
                    }
                    _ => return false,
                }
            }
            true
        }
        let mut out = Vec::new();
        walk(&self.parts, &mut out).then_some(out)
    }

    /// Whether any part is quoted (a quoted here-document delimiter turns off expansion).
    pub fn has_quotes(&self) -> bool {
        self.parts
            .iter()
            .any(|p| !matches!(p, Part::Lit(_) | Part::Tilde(_)))
    }
}
