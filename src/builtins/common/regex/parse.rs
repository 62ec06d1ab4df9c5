//! GNU regular expression syntax (BRE and ERE, as GNU sed and GNU grep accept it in the C
//! locale) parsed into a small [`Node`] tree, with GNU's error messages.

use super::ByteSet;

/// Which tool's dialect: GNU sed (glibc's POSIX syntax with GNU extensions) and GNU grep
/// (its own parser) differ on stacked and leading repetition operators and on `{`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    Sed,
    Grep,
}

/// How to read a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Syntax {
    pub extended: bool,
    pub icase: bool,
    pub dialect: Dialect,
}

/// A zero-width assertion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Look {
    /// `^`: start of the subject (or after a newline in multi-line mode).
    LineStart,
    /// `$`: end of the subject (or before a newline in multi-line mode).
    LineEnd,
    /// `` \` ``: start of the subject, always.
    BufStart,
    /// `\'`: end of the subject, always.
    BufEnd,
    /// `\b`
    Word,
    /// `\B`
    NotWord,
    /// `\<`
    WordStart,
    /// `\>`
    WordEnd,
    /// `grep -w`: not preceded by a word character.
    NotAfterWord,
    /// `grep -w`: not followed by a word character.
    NotBeforeWord,
}

/// A parsed regular expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Empty,
    Byte(u8),
    Set(Box<ByteSet>),
    Look(Look),
    /// A capturing group: its number (from 1) and body.
    Group {
        index: usize,
        node: Box<Node>,
    },
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    /// `node{min,max}`, `max` `None` for no upper bound.
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
    Backref(usize),
}

/// The largest count an interval may have (`RE_DUP_MAX`).
pub const DUP_MAX: u32 = 0x7fff;

/// A syntax error, in GNU's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    BadRepeat,
    UnmatchedParen,
    UnmatchedCloseParen,
    UnmatchedBrace,
    BadBrace,
    TooBig,
    UnmatchedBracket,
    BadClass,
    BadCollation,
    BadRange,
    TrailingBackslash,
    BadBackref,
    /// `[:space:]` outside a bracket: GNU refuses it before compiling.
    ClassSyntax,
}

impl ParseError {
    pub fn message(self) -> &'static str {
        match self {
            ParseError::BadRepeat => "Invalid preceding regular expression",
            ParseError::UnmatchedParen => "Unmatched ( or \\(",
            ParseError::UnmatchedCloseParen => "Unmatched ) or \\)",
            ParseError::UnmatchedBrace => "Unmatched \\{",
            ParseError::BadBrace => "Invalid content of \\{\\}",
            ParseError::TooBig => "Regular expression too big",
            ParseError::UnmatchedBracket => "Unmatched [, [^, [:, [., or [=",
            ParseError::BadClass => "Invalid character class name",
            ParseError::BadCollation => "Invalid collation character",
            ParseError::BadRange => "Invalid range end",
            ParseError::TrailingBackslash => "Trailing backslash",
            ParseError::BadBackref => "Invalid back reference",
            ParseError::ClassSyntax => "character class syntax is [[:space:]], not [:space:]",
        }
    }
}

/// The outcome of parsing: the tree, the number of groups, and grep's warnings.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub node: Node,
    pub groups: usize,
    pub has_backrefs: bool,
    pub warnings: Vec<String>,
}

/// Parses `pattern` in `syntax`.
pub fn parse(pattern: &[u8], syntax: Syntax) -> Result<Parsed, ParseError> {
    let mut p = Parser {
        s: pattern,
        i: 0,
        syn: syntax,
        groups: 0,
        completed: Vec::new(),
        has_backrefs: false,
        warnings: Vec::new(),
        depth: 0,
    };
    let node = p.alternation()?;
    if p.i < p.s.len() {
        // Only an unmatched close paren stops the top level early.
        return Err(ParseError::UnmatchedCloseParen);
    }
    // GNU checks this after the pattern compiled.
    check_class_syntax(pattern)?;
    Ok(Parsed {
        node,
        groups: p.groups,
        has_backrefs: p.has_backrefs,
        warnings: p.warnings,
    })
}

/// GNU refuses `[:alpha:]` where `[[:alpha:]]` was meant.
fn check_class_syntax(s: &[u8]) -> Result<(), ParseError> {
    let mut i = 0;
    let mut escaped = false;
    while i < s.len() {
        let c = s[i];
        if escaped {
            escaped = false;
            i += 1;
            continue;
        }
        if c == b'\\' {
            escaped = true;
            i += 1;
            continue;
        }
        if c == b'[' {
            let mut j = i + 1;
            if s.get(j) == Some(&b'^') {
                j += 1;
            }
            let start = j;
            // The bracket's end, skipping a leading `]` and `[:...:]`-style items.
            if s.get(j) == Some(&b']') {
                j += 1;
            }
            let mut end = None;
            while j < s.len() {
                if s[j] == b'[' && matches!(s.get(j + 1), Some(b':' | b'.' | b'=')) {
                    let kind = s[j + 1];
                    let mut k = j + 2;
                    let mut found = None;
                    while k + 1 < s.len() {
                        if s[k] == kind && s[k + 1] == b']' {
                            found = Some(k + 2);
                            break;
                        }
                        k += 1;
                    }
                    match found {
                        Some(n) => {
                            j = n;
                            continue;
                        }
                        None => break,
                    }
                }
                if s[j] == b']' {
                    end = Some(j);
                    break;
                }
                j += 1;
            }
            if let Some(e) = end {
                let body = &s[start..e];
                if body.len() >= 3 && body[0] == b':' && body[body.len() - 1] == b':' {
                    return Err(ParseError::ClassSyntax);
                }
                i = e + 1;
                continue;
            }
            return Ok(());
        }
        i += 1;
    }
    Ok(())
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    syn: Syntax,
    groups: usize,
    /// Whether each group (index - 1) is complete where the parser is, for `\N`.
    completed: Vec<bool>,
    has_backrefs: bool,
    warnings: Vec<String>,
    depth: usize,
}

/// Groups may nest this deep; deeper is "too big" rather than a deep recursion.
const MAX_DEPTH: usize = 200;

/// What an atom turned out to be, for the rules about what may follow it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Start of the pattern, after `(` or after `|`.
    Start,
    /// After an anchor `^` that starts an expression (BRE: `*` is literal there).
    StartAnchor,
    /// After any other anchor (`$`, `\<`, ...).
    Anchor,
    Atom,
    /// After a repetition operator: `*`, `\+`, `\?` or an interval.
    Repeat,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn peek2(&self) -> Option<u8> {
        self.s.get(self.i + 1).copied()
    }

    fn ere(&self) -> bool {
        self.syn.extended
    }

    fn sed(&self) -> bool {
        self.syn.dialect == Dialect::Sed
    }

    /// At `|` (ERE) or `\|` (BRE)?
    fn at_alt(&self) -> bool {
        if self.ere() {
            self.peek() == Some(b'|')
        } else {
            self.peek() == Some(b'\\') && self.peek2() == Some(b'|')
        }
    }

    /// At `)` (ERE) or `\)` (BRE)?
    fn at_close(&self) -> bool {
        if self.ere() {
            self.peek() == Some(b')')
        } else {
            self.peek() == Some(b'\\') && self.peek2() == Some(b')')
        }
    }

    fn alternation(&mut self) -> Result<Node, ParseError> {
        let at_open = self.completed.clone();
        let mut branches = vec![self.branch()?];
        let mut done = self.completed.clone();
        while self.at_alt() {
            self.i += if self.ere() { 1 } else { 2 };
            self.completed = at_open.clone();
            branches.push(self.branch()?);
            for (d, c) in done.iter_mut().zip(self.completed.iter()) {
                *d |= *c;
            }
            if self.completed.len() > done.len() {
                done.extend_from_slice(&self.completed[done.len()..]);
            }
        }
        self.completed = done;
        Ok(if branches.len() == 1 {
            branches.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(branches)
        })
    }

    fn branch(&mut self) -> Result<Node, ParseError> {
        let mut items: Vec<Node> = Vec::new();
        let mut prev = Prev::Start;
        while let Some(c) = self.peek() {
            if self.at_alt() {
                break;
            }
            if self.at_close() {
                if self.depth > 0 {
                    break;
                }
                if self.ere() && !self.sed() {
                    // grep -E: an unmatched `)` is an ordinary character.
                    self.i += 1;
                    items.push(self.lit(b')'));
                    prev = Prev::Atom;
                    continue;
                }
                return Err(ParseError::UnmatchedCloseParen);
            }
            // Repetition operators.
            if let Some(op) = self.repeat_op(prev)? {
                match op {
                    RepeatOp::Literal(b) => {
                        items.push(self.lit(b));
                        prev = Prev::Atom;
                    }
                    RepeatOp::Ignore => {}
                    RepeatOp::Apply(min, max) => {
                        let last = items.pop().unwrap_or(Node::Empty);
                        items.push(repeat(last, min, max));
                        prev = Prev::Repeat;
                    }
                }
                continue;
            }
            let _ = c;
            let (node, kind) = self.atom(prev)?;
            items.push(node);
            prev = kind;
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    /// A repetition operator at the cursor, read and judged by what precedes it; `None`
    /// when the cursor is not at one.
    fn repeat_op(&mut self, prev: Prev) -> Result<Option<RepeatOp>, ParseError> {
        let c = self.peek().unwrap_or(0);
        let ere = self.ere();
        let (kind, len) = match c {
            b'*' => (b'*', 1),
            b'+' | b'?' if ere => (c, 1),
            b'{' if ere => (b'{', 1),
            b'\\' if !ere => match self.peek2() {
                Some(b'+') => (b'+', 2),
                Some(b'?') => (b'?', 2),
                Some(b'{') => (b'{', 2),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let at_start = matches!(prev, Prev::Start | Prev::StartAnchor);
        if !ere {
            // BRE: at the start of an expression `*`, `\+` and `\?` are ordinary.
            if at_start {
                match kind {
                    b'*' | b'+' | b'?' => {
                        self.i += len;
                        return Ok(Some(RepeatOp::Literal(kind)));
                    }
                    _ => {
                        if self.sed() {
                            return Err(ParseError::BadRepeat);
                        }
                        // grep: `\{` with nothing before it is an ordinary `{`.
                        self.i += len;
                        return Ok(Some(RepeatOp::Literal(b'{')));
                    }
                }
            }
            if self.sed() && prev == Prev::Repeat && matches!(kind, b'*' | b'{') {
                return Err(ParseError::BadRepeat);
            }
        }
        let start_pos = self.i;
        self.i += len;
        let (min, max) = match kind {
            b'*' => (0, None),
            b'+' => (1, None),
            b'?' => (0, Some(1)),
            _ => match self.interval()? {
                Some(mm) => mm,
                None => {
                    // grep -E: `{` that does not start a valid interval is ordinary.
                    self.i = start_pos + 1;
                    return Ok(Some(RepeatOp::Literal(b'{')));
                }
            },
        };
        if ere {
            let nothing = at_start || (prev == Prev::Anchor);
            if self.sed() && nothing {
                return Err(ParseError::BadRepeat);
            }
            // grep -E refuses `(a$*)`: an assertion, `*`, `+` or `?`, then `)`.
            if !self.sed()
                && self.depth > 0
                && matches!(prev, Prev::Anchor | Prev::StartAnchor)
                && kind != b'{'
                && self.peek() == Some(b')')
            {
                return Err(ParseError::UnmatchedParen);
            }
            if at_start {
                let what = match kind {
                    b'{' => "{...}".to_string(),
                    k => (k as char).to_string(),
                };
                let w = format!("{what} at start of expression");
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
                if prev == Prev::Start {
                    return Ok(Some(RepeatOp::Ignore));
                }
            }
        }
        Ok(Some(RepeatOp::Apply(min, max)))
    }

    /// The rest of an interval after `{` or `\{`. `Ok(None)`: not an interval (grep -E
    /// then reads `{` as itself).
    fn interval(&mut self) -> Result<Option<(u32, Option<u32>)>, ParseError> {
        let ere = self.ere();
        let lenient = ere && !self.sed();
        let start = self.i;
        let min = self.number();
        let mut max = min;
        let mut comma = false;
        if self.peek() == Some(b',') {
            self.i += 1;
            comma = true;
            max = self.number();
        }
        let closed = if ere {
            if self.peek() == Some(b'}') {
                self.i += 1;
                true
            } else {
                false
            }
        } else if self.peek() == Some(b'\\') && self.peek2() == Some(b'}') {
            self.i += 2;
            true
        } else {
            false
        };
        if !closed {
            if lenient {
                self.i = start;
                return Ok(None);
            }
            // No close anywhere: unmatched; otherwise the content is bad.
            let rest = &self.s[start..];
            let has_close = if ere {
                rest.contains(&b'}')
            } else {
                rest.windows(2).any(|w| w == b"\\}")
            };
            return Err(if has_close {
                ParseError::BadBrace
            } else {
                ParseError::UnmatchedBrace
            });
        }
        let min_v = match min {
            Some(Num::Value(v)) => v,
            Some(Num::Huge) => return Err(ParseError::TooBig),
            None => {
                if !comma {
                    return Err(ParseError::BadBrace);
                }
                0
            }
        };
        let max_v = if comma {
            match max {
                Some(Num::Value(v)) => Some(v),
                Some(Num::Huge) => return Err(ParseError::TooBig),
                None => None,
            }
        } else {
            Some(min_v)
        };
        if let Some(m) = max_v {
            if m < min_v {
                return Err(ParseError::BadBrace);
            }
        }
        if min_v > DUP_MAX || max_v.is_some_and(|m| m > DUP_MAX) {
            return Err(ParseError::TooBig);
        }
        Ok(Some((min_v, max_v)))
    }

    fn number(&mut self) -> Option<Num> {
        let start = self.i;
        let mut v: u32 = 0;
        let mut huge = false;
        while let Some(d) = self.peek().filter(u8::is_ascii_digit) {
            v = v.saturating_mul(10).saturating_add(u32::from(d - b'0'));
            if v > DUP_MAX {
                huge = true;
            }
            self.i += 1;
        }
        if self.i == start {
            None
        } else if huge {
            Some(Num::Huge)
        } else {
            Some(Num::Value(v))
        }
    }

    fn lit(&self, b: u8) -> Node {
        literal(b, self.syn.icase)
    }

    fn atom(&mut self, prev: Prev) -> Result<(Node, Prev), ParseError> {
        let ere = self.ere();
        let c = self.peek().unwrap_or(0);
        self.i += 1;
        match c {
            b'.' => Ok((Node::Set(Box::new(ByteSet::full())), Prev::Atom)),
            b'[' => Ok((self.bracket()?, Prev::Atom)),
            b'^' => {
                if ere || prev == Prev::Start {
                    let kind = if prev == Prev::Start {
                        Prev::StartAnchor
                    } else {
                        Prev::Anchor
                    };
                    Ok((Node::Look(Look::LineStart), kind))
                } else {
                    Ok((self.lit(b'^'), Prev::Atom))
                }
            }
            b'$' => {
                if ere || self.i >= self.s.len() || self.at_close() || self.at_alt() {
                    Ok((Node::Look(Look::LineEnd), Prev::Anchor))
                } else {
                    Ok((self.lit(b'$'), Prev::Atom))
                }
            }
            b'(' if ere => self.group(),
            b'\\' => self.escape(prev),
            _ => Ok((self.lit(c), Prev::Atom)),
        }
    }

    fn group(&mut self) -> Result<(Node, Prev), ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(ParseError::TooBig);
        }
        self.groups += 1;
        let index = self.groups;
        if self.completed.len() < index {
            self.completed.resize(index, false);
        }
        self.depth += 1;
        let body = self.alternation()?;
        self.depth -= 1;
        if !self.at_close() {
            return Err(ParseError::UnmatchedParen);
        }
        self.i += if self.ere() { 1 } else { 2 };
        if let Some(c) = self.completed.get_mut(index - 1) {
            *c = true;
        }
        Ok((
            Node::Group {
                index,
                node: Box::new(body),
            },
            Prev::Atom,
        ))
    }

    fn escape(&mut self, prev: Prev) -> Result<(Node, Prev), ParseError> {
        let Some(c) = self.peek() else {
            return Err(ParseError::TrailingBackslash);
        };
        self.i += 1;
        let ere = self.ere();
        let node = match c {
            b'(' if !ere => return self.group(),
            b'{' if !ere => {
                // Reached only when not taken as an interval: grep's ordinary `{`.
                return Ok((self.lit(b'{'), Prev::Atom));
            }
            b'1'..=b'9' => {
                let n = usize::from(c - b'0');
                if !self.completed.get(n - 1).copied().unwrap_or(false) {
                    return Err(ParseError::BadBackref);
                }
                self.has_backrefs = true;
                return Ok((Node::Backref(n), Prev::Atom));
            }
            b'w' | b'W' | b's' | b'S' => {
                let mut set = if c.eq_ignore_ascii_case(&b'w') {
                    ByteSet::word()
                } else {
                    ByteSet::space()
                };
                if c.is_ascii_uppercase() {
                    set.negate();
                }
                Node::Set(Box::new(set))
            }
            b'b' | b'B' | b'<' | b'>' | b'`' | b'\'' => {
                let look = match c {
                    b'b' => Look::Word,
                    b'B' => Look::NotWord,
                    b'<' => Look::WordStart,
                    b'>' => Look::WordEnd,
                    b'`' => Look::BufStart,
                    _ => Look::BufEnd,
                };
                // In a sed BRE, a repetition operator after these is ordinary, as at the
                // start; grep repeats the assertion, unless it starts the expression.
                let kind = if ere {
                    if !self.sed() && prev == Prev::Start {
                        // grep -E: a repetition here is "at start of expression".
                        Prev::StartAnchor
                    } else {
                        Prev::Anchor
                    }
                } else if self.sed() || matches!(prev, Prev::Start | Prev::StartAnchor) {
                    Prev::StartAnchor
                } else {
                    Prev::Anchor
                };
                return Ok((Node::Look(look), kind));
            }
            _ => self.lit(c),
        };
        Ok((node, Prev::Atom))
    }

    fn bracket(&mut self) -> Result<Node, ParseError> {
        let mut set = ByteSet::empty();
        let mut negate = false;
        if self.peek() == Some(b'^') {
            negate = true;
            self.i += 1;
        }
        let mut first = true;
        let mut mixed = false;
        loop {
            let Some(c) = self.peek() else {
                return Err(ParseError::UnmatchedBracket);
            };
            if c == b']' && !first {
                self.i += 1;
                break;
            }
            first = false;
            // One item: a class, an equivalence class, a collating symbol or a byte.
            let start = self.bracket_item()?;
            let lo = match start {
                Item::Class(cs) => {
                    set.union(&cs);
                    // A class cannot start a range.
                    if self.peek() == Some(b'-') && self.peek2().is_some_and(|n| n != b']') {
                        return Err(ParseError::BadRange);
                    }
                    continue;
                }
                Item::Byte(b) | Item::Equiv(b) => (b, matches!(start, Item::Equiv(_))),
            };
            if self.peek() == Some(b'-') && self.peek2().is_some_and(|n| n != b']') {
                self.i += 1;
                if lo.1 {
                    return Err(ParseError::BadRange);
                }
                let hi = match self.bracket_item()? {
                    Item::Byte(b) => b,
                    Item::Class(_) | Item::Equiv(_) => return Err(ParseError::BadRange),
                };
                // Case-insensitive ranges are checked with their ends in upper case;
                // GNU then matches nothing for an inverted range like `[a-Z]`, and a
                // range like `[A-b]` as its upper-case form `[A-B]`.
                let (mut lo_b, mut hi_b) = (lo.0, hi);
                if self.syn.icase {
                    let (ul, uh) = (lo_b.to_ascii_uppercase(), hi_b.to_ascii_uppercase());
                    if uh < ul {
                        return Err(ParseError::BadRange);
                    }
                    let folded = |a: u8, b: u8| {
                        let mut s = ByteSet::empty();
                        for x in a..=b {
                            s.insert(x);
                        }
                        s.add_case_variants();
                        s
                    };
                    if self.syn.dialect == Dialect::Sed
                        && (hi_b < lo_b || folded(lo_b, hi_b) != folded(ul, uh))
                    {
                        // glibc's odd case: such a bracket, negated, matches nothing.
                        mixed = true;
                    }
                    if hi_b < lo_b {
                        continue;
                    }
                    // grep selects lines with the range as written (then folded).
                    if self.syn.dialect == Dialect::Sed {
                        (lo_b, hi_b) = (ul, uh);
                    }
                }
                if hi_b < lo_b {
                    return Err(ParseError::BadRange);
                }
                for b in lo_b..=hi_b {
                    set.insert(b);
                }
                // A range cannot end where another starts: `[a-c-e]`.
                if self.peek() == Some(b'-') && self.peek2().is_some_and(|n| n != b']') {
                    return Err(ParseError::BadRange);
                }
            } else {
                set.insert(lo.0);
            }
        }
        if self.syn.icase {
            set.add_case_variants();
        }
        if negate {
            set.negate();
            if mixed {
                set = ByteSet::empty();
            }
        }
        Ok(Node::Set(Box::new(set)))
    }

    fn bracket_item(&mut self) -> Result<Item, ParseError> {
        let c = self.peek().ok_or(ParseError::UnmatchedBracket)?;
        self.i += 1;
        if c == b'[' {
            if let Some(kind @ (b':' | b'.' | b'=')) = self.peek() {
                let body_start = self.i + 1;
                let mut k = body_start;
                while k + 1 < self.s.len() && !(self.s[k] == kind && self.s[k + 1] == b']') {
                    k += 1;
                }
                if k + 1 >= self.s.len() {
                    return Err(ParseError::UnmatchedBracket);
                }
                let body = &self.s[body_start..k];
                self.i = k + 2;
                return match kind {
                    b':' => ByteSet::class(body)
                        .map(|s| Item::Class(Box::new(s)))
                        .ok_or(ParseError::BadClass),
                    _ => {
                        if body.len() != 1 {
                            return Err(ParseError::BadCollation);
                        }
                        if kind == b'=' {
                            Ok(Item::Equiv(body[0]))
                        } else {
                            Ok(Item::Byte(body[0]))
                        }
                    }
                };
            }
        }
        Ok(Item::Byte(c))
    }
}

enum Item {
    Byte(u8),
    Equiv(u8),
    Class(Box<ByteSet>),
}

#[derive(Clone, Copy)]
enum Num {
    Value(u32),
    Huge,
}

enum RepeatOp {
    /// The operator is an ordinary character here.
    Literal(u8),
    /// grep -E: a repetition of nothing, ignored.
    Ignore,
    Apply(u32, Option<u32>),
}

/// A literal byte, both cases when `icase`.
pub fn literal(b: u8, icase: bool) -> Node {
    if icase && b.is_ascii_alphabetic() {
        let mut set = ByteSet::empty();
        set.insert(b.to_ascii_lowercase());
        set.insert(b.to_ascii_uppercase());
        Node::Set(Box::new(set))
    } else {
        Node::Byte(b)
    }
}

/// `node{min,max}`.
fn repeat(node: Node, min: u32, max: Option<u32>) -> Node {
    // A repeated assertion is the assertion or nothing.
    if let Node::Look(_) = node {
        return if min == 0 { Node::Empty } else { node };
    }
    if min == 1 && max == Some(1) {
        return node;
    }
    Node::Repeat {
        node: Box::new(node),
        min,
        max,
    }
}
