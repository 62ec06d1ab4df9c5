//! GNU regular expressions (BRE and ERE as GNU sed and grep read them, C locale, bytes)
//! with POSIX leftmost-longest matches and GNU's subexpression positions.
//!
//! A pattern is parsed ([`parse`]) into a small tree. Without back-references the tree
//! becomes a `regex-syntax` HIR: a leftmost-first `regex-automata` meta regex finds where
//! the leftmost match starts, and a lazy DFA built with `MatchKind::All`, run anchored
//! from there, finds where the longest match ends. Subexpression positions, and whole
//! matches of patterns with back-references, come from the [`backtrack`] matcher. Matching
//! spends one step per 64 bytes scanned and one per match; the backtracker spends per
//! instruction. See docs/regex.md for the why and the measurements.

pub mod backtrack;
pub mod parse;

use std::cell::RefCell;
use std::rc::Rc;

use regex_automata::hybrid::dfa::{Cache as DfaCache, DFA};
use regex_automata::meta;
use regex_automata::nfa::thompson;
use regex_automata::{Anchored, Input, MatchKind};
use regex_syntax::hir::{self, Hir};

use crate::budget::Budget;
use crate::error::Result;

pub use backtrack::Slots;
pub use parse::{Dialect, Look, Node, ParseError, Syntax};

/// A set of bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ByteSet([u64; 4]);

impl ByteSet {
    pub fn empty() -> Self {
        ByteSet([0; 4])
    }

    pub fn full() -> Self {
        ByteSet([u64::MAX; 4])
    }

    #[inline]
    pub fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    pub fn insert(&mut self, b: u8) {
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    pub fn union(&mut self, other: &ByteSet) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a |= *b;
        }
    }

    pub fn negate(&mut self) {
        for a in self.0.iter_mut() {
            *a = !*a;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    fn from_fn(f: impl Fn(u8) -> bool) -> Self {
        let mut s = ByteSet::empty();
        for b in 0..=255u8 {
            if f(b) {
                s.insert(b);
            }
        }
        s
    }

    /// `\w`: letters, digits and `_`.
    pub fn word() -> Self {
        Self::from_fn(|b| b.is_ascii_alphanumeric() || b == b'_')
    }

    /// `\s`: `[[:space:]]`.
    pub fn space() -> Self {
        Self::from_fn(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
    }

    /// A POSIX class by name, in the C locale.
    pub fn class(name: &[u8]) -> Option<Self> {
        let f: fn(u8) -> bool = match name {
            b"alpha" => |b| b.is_ascii_alphabetic(),
            b"upper" => |b| b.is_ascii_uppercase(),
            b"lower" => |b| b.is_ascii_lowercase(),
            b"digit" => |b| b.is_ascii_digit(),
            b"xdigit" => |b| b.is_ascii_hexdigit(),
            b"alnum" => |b| b.is_ascii_alphanumeric(),
            b"punct" => |b| b.is_ascii_punctuation(),
            b"graph" => |b| b.is_ascii_graphic(),
            b"print" => |b| b.is_ascii_graphic() || b == b' ',
            b"cntrl" => |b| b < 0x20 || b == 0x7f,
            b"blank" => |b| b == b' ' || b == b'\t',
            b"space" => |b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
            _ => return None,
        };
        Some(Self::from_fn(f))
    }

    /// Adds the other case of every ASCII letter in the set.
    pub fn add_case_variants(&mut self) {
        for b in b'a'..=b'z' {
            let u = b.to_ascii_uppercase();
            if self.contains(b) || self.contains(u) {
                self.insert(b);
                self.insert(u);
            }
        }
    }

    fn ranges(&self) -> Vec<hir::ClassBytesRange> {
        let mut out = Vec::new();
        let mut b = 0usize;
        while b < 256 {
            if self.contains(b as u8) {
                let start = b;
                while b + 1 < 256 && self.contains((b + 1) as u8) {
                    b += 1;
                }
                out.push(hir::ClassBytesRange::new(start as u8, b as u8));
            }
            b += 1;
        }
        out
    }
}

/// How a pattern is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Options {
    pub syntax: Syntax,
    /// sed's `M`: `^` and `$` also match around newlines.
    pub multiline: bool,
}

/// A compiled regular expression.
pub struct Regex {
    groups: usize,
    prog: backtrack::Prog,
    fast: Option<Fast>,
    /// With back-references: a regex for a superset of the matches, to skip ahead.
    approx: Option<meta::Regex>,
    /// Every match from a given start has the same length.
    fixed_len: bool,
    /// grep's warnings about the pattern.
    pub warnings: Vec<String>,
}

struct Fast {
    first: meta::Regex,
    longest: Option<DFA>,
    cache: RefCell<Option<DfaCache>>,
}

/// Why a pattern could not be compiled.
pub type CompileError = ParseError;

/// The budget of lazy DFA states, per regex.
const DFA_CACHE: usize = 2 << 20;
const NFA_LIMIT: usize = 32 << 20;

impl Regex {
    /// Parses and compiles `pattern`.
    pub fn new(pattern: &[u8], opts: Options) -> std::result::Result<Regex, ParseError> {
        let parsed = parse::parse(pattern, opts.syntax)?;
        let mut re = Regex::from_node(
            &parsed.node,
            parsed.groups,
            parsed.has_backrefs,
            opts.syntax.icase,
            opts.multiline,
        )?;
        re.warnings = parsed.warnings;
        Ok(re)
    }

    /// Compiles a tree (grep assembles several patterns into one).
    pub fn from_node(
        node: &Node,
        groups: usize,
        has_backrefs: bool,
        icase: bool,
        multiline: bool,
    ) -> std::result::Result<Regex, ParseError> {
        if depth(node) > 400 {
            return Err(ParseError::TooBig);
        }
        let prog = backtrack::Prog::new(node, groups, icase, multiline, has_backrefs)
            .ok_or(ParseError::TooBig)?;
        let (lo, hi) = lengths(node);
        let fixed_len = !has_backrefs && hi == Some(lo);
        let mut fast = None;
        let mut approx = None;
        if has_backrefs {
            let h = to_hir(node, multiline);
            approx = build_meta(&h).ok();
        } else {
            let h = to_hir(node, multiline);
            let first = build_meta(&h).map_err(|_| ParseError::TooBig)?;
            let longest = if fixed_len { None } else { build_longest(&h) };
            fast = Some(Fast {
                first,
                longest,
                cache: RefCell::new(None),
            });
        }
        Ok(Regex {
            groups,
            prog,
            fast,
            approx,
            fixed_len,
            warnings: Vec::new(),
        })
    }

    /// The number of groups.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// The leftmost-longest match in `hay` starting at `start` or later (look-behind sees
    /// the bytes before `start`).
    pub fn find_at(
        &self,
        hay: &[u8],
        start: usize,
        budget: &Budget,
    ) -> Result<Option<(usize, usize)>> {
        if start > hay.len() {
            return Ok(None);
        }
        if let Some(fast) = &self.fast {
            let input = Input::new(hay).range(start..);
            let Some(m) = fast.first.search(&input) else {
                budget.spend_bytes(hay.len() - start)?;
                return Ok(None);
            };
            let s = m.start();
            let mut e = m.end();
            if !self.fixed_len {
                e = self.longest_end(fast, hay, s, e, budget)?;
            }
            budget.spend_bytes(e - start)?;
            budget.spend(1)?;
            return Ok(Some((s, e)));
        }
        // Back-references: try each start where the superset matches.
        let mut from = start;
        loop {
            let s = match &self.approx {
                Some(a) => match a.search(&Input::new(hay).range(from..)) {
                    Some(m) => m.start(),
                    None => {
                        budget.spend_bytes(hay.len() - from)?;
                        return Ok(None);
                    }
                },
                None => from,
            };
            budget.spend_bytes(s - from + 1)?;
            if let Some(e) = self.prog.longest_at(hay, s, budget)? {
                budget.spend(1)?;
                return Ok(Some((s, e)));
            }
            if s >= hay.len() {
                return Ok(None);
            }
            from = s + 1;
        }
    }

    fn longest_end(
        &self,
        fast: &Fast,
        hay: &[u8],
        s: usize,
        e: usize,
        budget: &Budget,
    ) -> Result<usize> {
        if let Some(dfa) = &fast.longest {
            let mut slot = fast.cache.borrow_mut();
            let cache = slot.get_or_insert_with(|| dfa.create_cache());
            let input = Input::new(hay).range(s..).anchored(Anchored::Yes);
            if let Ok(Some(hm)) = dfa.try_search_fwd(cache, &input) {
                return Ok(hm.offset().max(e));
            }
        }
        Ok(self.prog.longest_at(hay, s, budget)?.unwrap_or(e).max(e))
    }

    /// Whether the pattern matches anywhere in `hay`.
    pub fn is_match(&self, hay: &[u8], budget: &Budget) -> Result<bool> {
        if let Some(fast) = &self.fast {
            budget.spend_bytes(hay.len())?;
            budget.spend(1)?;
            return Ok(fast.first.is_match(Input::new(hay)));
        }
        Ok(self.find_at(hay, 0, budget)?.is_some())
    }

    /// The groups of match `m` (group 0 is `m`), as GNU assigns them.
    pub fn captures(&self, hay: &[u8], m: (usize, usize), budget: &Budget) -> Result<Slots> {
        if self.groups == 0 {
            return Ok(vec![Some(m)]);
        }
        match self.prog.captures(hay, m.0, m.1, budget)? {
            Some(slots) => Ok(slots),
            None => {
                let mut v = vec![None; self.groups + 1];
                v[0] = Some(m);
                Ok(v)
            }
        }
    }
}

fn build_meta(h: &Hir) -> std::result::Result<meta::Regex, ()> {
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .utf8_empty(false)
                .nfa_size_limit(Some(NFA_LIMIT))
                .hybrid_cache_capacity(DFA_CACHE)
                .which_captures(thompson::WhichCaptures::Implicit),
        )
        .build_from_hir(h)
        .map_err(|_| ())
}

fn build_longest(h: &Hir) -> Option<DFA> {
    let nfa = thompson::Compiler::new()
        .configure(
            thompson::Config::new()
                .utf8(false)
                .nfa_size_limit(Some(NFA_LIMIT))
                .which_captures(thompson::WhichCaptures::None),
        )
        .build_from_hir(h)
        .ok()?;
    DFA::builder()
        .configure(
            DFA::config()
                .match_kind(MatchKind::All)
                .cache_capacity(DFA_CACHE)
                .minimum_cache_clear_count(None),
        )
        .build_from_nfa(nfa)
        .ok()
}

/// The HIR of a tree. A back-reference becomes "any bytes", giving a superset of the
/// matches.
fn to_hir(node: &Node, multiline: bool) -> Hir {
    match node {
        Node::Empty => Hir::empty(),
        Node::Byte(b) => Hir::literal(vec![*b]),
        Node::Set(set) => Hir::class(hir::Class::Bytes(hir::ClassBytes::new(set.ranges()))),
        Node::Look(l) => Hir::look(match l {
            Look::LineStart if multiline => hir::Look::StartLF,
            Look::LineEnd if multiline => hir::Look::EndLF,
            Look::LineStart | Look::BufStart => hir::Look::Start,
            Look::LineEnd | Look::BufEnd => hir::Look::End,
            Look::Word => hir::Look::WordAscii,
            Look::NotWord => hir::Look::WordAsciiNegate,
            Look::WordStart => hir::Look::WordStartAscii,
            Look::WordEnd => hir::Look::WordEndAscii,
            Look::NotAfterWord => hir::Look::WordStartHalfAscii,
            Look::NotBeforeWord => hir::Look::WordEndHalfAscii,
        }),
        Node::Group { node, .. } => to_hir(node, multiline),
        Node::Concat(items) => Hir::concat(items.iter().map(|n| to_hir(n, multiline)).collect()),
        Node::Alt(items) => Hir::alternation(items.iter().map(|n| to_hir(n, multiline)).collect()),
        Node::Repeat { node, min, max } => Hir::repetition(hir::Repetition {
            min: *min,
            max: *max,
            greedy: true,
            sub: Box::new(to_hir(node, multiline)),
        }),
        Node::Backref(_) => Hir::repetition(hir::Repetition {
            min: 0,
            max: None,
            greedy: true,
            sub: Box::new(Hir::class(hir::Class::Bytes(hir::ClassBytes::new([
                hir::ClassBytesRange::new(0, 255),
            ])))),
        }),
    }
}

/// The shortest and longest lengths of a match (`None`: unbounded).
fn lengths(node: &Node) -> (u64, Option<u64>) {
    match node {
        Node::Empty | Node::Look(_) => (0, Some(0)),
        Node::Byte(_) | Node::Set(_) => (1, Some(1)),
        Node::Group { node, .. } => lengths(node),
        Node::Concat(items) => items.iter().fold((0, Some(0)), |(lo, hi), n| {
            let (l, h) = lengths(n);
            (
                lo.saturating_add(l),
                hi.zip(h).map(|(a, b)| a.saturating_add(b)),
            )
        }),
        Node::Alt(items) => {
            let mut lo = u64::MAX;
            let mut hi = Some(0u64);
            for n in items {
                let (l, h) = lengths(n);
                lo = lo.min(l);
                hi = hi.zip(h).map(|(a, b)| a.max(b));
            }
            (if items.is_empty() { 0 } else { lo }, hi)
        }
        Node::Repeat { node, min, max } => {
            let (l, h) = lengths(node);
            (
                l.saturating_mul(u64::from(*min)),
                match (h, max) {
                    (Some(0), _) => Some(0),
                    (Some(h), Some(m)) => Some(h.saturating_mul(u64::from(*m))),
                    _ => None,
                },
            )
        }
        Node::Backref(_) => (0, None),
    }
}

/// How deeply the tree nests, counted without recursion.
fn depth(node: &Node) -> usize {
    let mut max = 0;
    let mut stack = vec![(node, 1usize)];
    while let Some((n, d)) = stack.pop() {
        max = max.max(d);
        match n {
            Node::Group { node, .. } | Node::Repeat { node, .. } => stack.push((node, d + 1)),
            Node::Concat(items) | Node::Alt(items) => {
                for i in items {
                    stack.push((i, d + 1));
                }
            }
            _ => {}
        }
        if max > 10_000 {
            break;
        }
    }
    max
}

/// Renumbers the groups of `node` by `offset` (for joining several patterns).
pub fn shift_groups(node: &mut Node, offset: usize) {
    match node {
        Node::Group { index, node } => {
            *index += offset;
            shift_groups(node, offset);
        }
        Node::Backref(n) => *n += offset,
        Node::Concat(items) | Node::Alt(items) => {
            for i in items {
                shift_groups(i, offset);
            }
        }
        Node::Repeat { node, .. } => shift_groups(node, offset),
        _ => {}
    }
}

/// Compiled regexes by pattern and options, most recently used last: the same script
/// runs again and again.
#[derive(Default)]
pub struct Cache {
    entries: Vec<(Vec<u8>, Options, Rc<Regex>)>,
}

/// How many compiled regexes the cache keeps.
pub const CACHE_SIZE: usize = 64;

impl Cache {
    /// The compiled `pattern`, from the cache or freshly compiled.
    pub fn get(
        &mut self,
        pattern: &[u8],
        opts: Options,
    ) -> std::result::Result<Rc<Regex>, ParseError> {
        if let Some(i) = self
            .entries
            .iter()
            .position(|(p, o, _)| p == pattern && *o == opts)
        {
            let entry = self.entries.remove(i);
            let re = entry.2.clone();
            self.entries.push(entry);
            return Ok(re);
        }
        let re = Rc::new(Regex::new(pattern, opts)?);
        if self.entries.len() >= CACHE_SIZE {
            self.entries.remove(0);
        }
        self.entries.push((pattern.to_vec(), opts, re.clone()));
        Ok(re)
    }
}
