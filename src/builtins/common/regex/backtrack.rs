//! A backtracking matcher over a small program compiled from the [`Node`] tree: it gives
//! GNU's subexpression positions (the first path in preference order that ends where the
//! longest match ends) and runs patterns with back-references. It spends one step per
//! [`OPS_PER_STEP`] instructions executed, so a catastrophic pattern stops at the budget.

use std::cell::RefCell;

use super::parse::{Look, Node};
use super::ByteSet;
use crate::budget::Budget;
use crate::error::Result;

/// Instructions executed per step of the budget.
pub const OPS_PER_STEP: u64 = 8;

/// Programs larger than this are "too big".
pub const MAX_INSTS: usize = 1 << 20;

/// How a group closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    Plain,
    /// A copy GNU treats as optional (a `*` body, the first optional copy of an
    /// interval), tried first with a non-empty match...
    NonEmpty,
    /// ...and then empty, keeping the group's value from the last non-empty group close.
    EmptyKeep,
    /// The same copy when it is too big to try twice: either way, in preference order.
    Marked,
}

/// Programs past this size no longer get the two tries of an optional group.
const SPLIT_LIMIT: usize = 1 << 16;

#[derive(Debug, Clone, Copy)]
enum Inst {
    Byte(u8),
    Set(u32),
    Look(Look),
    /// Try the first target, then the second.
    Split(u32, u32),
    Jmp(u32),
    Open(u32),
    /// Close a group.
    Close(u32, Close),
    Backref(u32),
    /// Remember where a loop iteration starts.
    Mark(u32),
    /// End of a loop iteration: loop again (first target) only if it consumed input.
    Progress(u32, u32, u32),
    Match,
}

/// A compiled program.
#[derive(Debug)]
pub struct Prog {
    insts: Vec<Inst>,
    sets: Vec<ByteSet>,
    groups: usize,
    regs: usize,
    icase: bool,
    multiline: bool,
    backrefs: bool,
    /// Buffers kept from one run to the next (a substitution runs once per match).
    scratch: RefCell<Scratch>,
}

/// The working memory of a run.
#[derive(Debug, Default)]
struct Scratch {
    so: Vec<Option<usize>>,
    eo: Vec<Option<usize>>,
    snap_so: Vec<Option<usize>>,
    snap_eo: Vec<Option<usize>>,
    regs: Vec<usize>,
    stack: Vec<Undo>,
    visited: Vec<u64>,
}

/// Positions of the groups: `[start, end]` per group, group 0 being the whole match.
pub type Slots = Vec<Option<(usize, usize)>>;

struct Compiler {
    insts: Vec<Inst>,
    sets: Vec<ByteSet>,
    regs: usize,
}

impl Compiler {
    fn push(&mut self, inst: Inst) -> std::result::Result<u32, ()> {
        if self.insts.len() >= MAX_INSTS {
            return Err(());
        }
        self.insts.push(inst);
        Ok((self.insts.len() - 1) as u32)
    }

    fn pc(&self) -> u32 {
        self.insts.len() as u32
    }

    fn patch(&mut self, at: u32, inst: Inst) {
        if let Some(slot) = self.insts.get_mut(at as usize) {
            *slot = inst;
        }
    }

    /// Emits `node`; `marked` marks the group `node` is (if it is one) as optional.
    fn emit(&mut self, node: &Node, marked: bool) -> std::result::Result<(), ()> {
        match node {
            Node::Empty => {}
            Node::Byte(b) => {
                self.push(Inst::Byte(*b))?;
            }
            Node::Set(set) => {
                let idx = match self.sets.iter().position(|s| s == &**set) {
                    Some(i) => i,
                    None => {
                        self.sets.push((**set).clone());
                        self.sets.len() - 1
                    }
                };
                self.push(Inst::Set(idx as u32))?;
            }
            Node::Look(l) => {
                self.push(Inst::Look(*l))?;
            }
            Node::Group { index, node } => {
                let g = *index as u32;
                if !marked {
                    self.push(Inst::Open(g))?;
                    self.emit(node, false)?;
                    self.push(Inst::Close(g, Close::Plain))?;
                    return Ok(());
                }
                // GNU prefers a non-empty match of an optional group, then an empty one.
                let start = self.insts.len();
                let split = self.push(Inst::Split(0, 0))?;
                self.push(Inst::Open(g))?;
                self.emit(node, false)?;
                self.push(Inst::Close(g, Close::NonEmpty))?;
                let jmp = self.push(Inst::Jmp(0))?;
                let size = self.insts.len() - start;
                if self.insts.len() + size > SPLIT_LIMIT {
                    self.insts.truncate(start);
                    self.push(Inst::Open(g))?;
                    self.emit(node, false)?;
                    self.push(Inst::Close(g, Close::Marked))?;
                    return Ok(());
                }
                let second = self.pc();
                self.push(Inst::Open(g))?;
                self.emit(node, false)?;
                self.push(Inst::Close(g, Close::EmptyKeep))?;
                let end = self.pc();
                self.patch(split, Inst::Split(split + 1, second));
                self.patch(jmp, Inst::Jmp(end));
            }
            Node::Concat(items) => {
                for item in items {
                    self.emit(item, false)?;
                }
            }
            Node::Alt(branches) => {
                // Split(b1, next) ; b1 ; Jmp end ; next: Split(b2, ...) ...
                let mut jumps = Vec::new();
                for (i, b) in branches.iter().enumerate() {
                    if i + 1 < branches.len() {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit(b, false)?;
                        jumps.push(self.push(Inst::Jmp(0))?);
                        let next = self.pc();
                        self.patch(split, Inst::Split(split + 1, next));
                    } else {
                        self.emit(b, false)?;
                    }
                }
                let end = self.pc();
                for j in jumps {
                    self.patch(j, Inst::Jmp(end));
                }
            }
            Node::Repeat { node, min, max } => {
                let is_group = matches!(**node, Node::Group { .. });
                for _ in 0..*min {
                    self.emit(node, false)?;
                }
                match max {
                    Some(m) if *m == *min => {}
                    None => {
                        let reg = self.regs as u32;
                        self.regs += 1;
                        let top = self.push(Inst::Split(0, 0))?;
                        self.push(Inst::Mark(reg))?;
                        self.emit(node, is_group)?;
                        let prog = self.push(Inst::Progress(reg, top, 0))?;
                        let exit = self.pc();
                        self.patch(top, Inst::Split(top + 1, exit));
                        self.patch(prog, Inst::Progress(reg, top, exit));
                    }
                    Some(m) => {
                        let mut splits = Vec::new();
                        for i in 0..(m - min) {
                            splits.push(self.push(Inst::Split(0, 0))?);
                            self.emit(node, is_group && i == 0)?;
                        }
                        let end = self.pc();
                        for s in splits {
                            self.patch(s, Inst::Split(s + 1, end));
                        }
                    }
                }
            }
            Node::Backref(n) => {
                self.push(Inst::Backref(*n as u32))?;
            }
        }
        Ok(())
    }
}

impl Prog {
    /// Compiles `node`; `Err` when the program would be too big.
    pub fn new(
        node: &Node,
        groups: usize,
        icase: bool,
        multiline: bool,
        backrefs: bool,
    ) -> Option<Prog> {
        let mut c = Compiler {
            insts: Vec::new(),
            sets: Vec::new(),
            regs: 0,
        };
        c.emit(node, false).ok()?;
        c.push(Inst::Match).ok()?;
        Some(Prog {
            insts: c.insts,
            sets: c.sets,
            groups,
            regs: c.regs,
            icase,
            multiline,
            backrefs,
            scratch: RefCell::new(Scratch::default()),
        })
    }

    /// Runs a search with the kept buffers (or fresh ones if they are in use).
    fn with_run<T>(
        &self,
        hay: &[u8],
        start: usize,
        end: Option<usize>,
        budget: &Budget,
        f: impl FnOnce(&mut Run<'_, '_>) -> Result<T>,
    ) -> Result<T> {
        let mut fresh = Scratch::default();
        let mut kept = self.scratch.try_borrow_mut();
        let scratch = match kept.as_mut() {
            Ok(s) => &mut **s,
            Err(_) => &mut fresh,
        };
        let mut run = Run::new(self, hay, start, end, budget, scratch);
        f(&mut run)
    }

    /// The longest match that starts at `start`: its end, or `None`.
    pub fn longest_at(&self, hay: &[u8], start: usize, budget: &Budget) -> Result<Option<usize>> {
        self.with_run(hay, start, None, budget, |run| {
            run.go(true)?;
            Ok(run.best)
        })
    }

    /// The groups of the first path, in preference order, from `start` to `end`.
    pub fn captures(
        &self,
        hay: &[u8],
        start: usize,
        end: usize,
        budget: &Budget,
    ) -> Result<Option<Slots>> {
        self.with_run(hay, start, Some(end), budget, |run| {
            run.go(false)?;
            Ok(run.found.take())
        })
    }
}

#[inline]
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `look` holds at `pos` in `hay`.
pub fn look_at(look: Look, hay: &[u8], pos: usize, multiline: bool) -> bool {
    let before = pos.checked_sub(1).and_then(|p| hay.get(p)).copied();
    let after = hay.get(pos).copied();
    let wb = before.is_some_and(is_word);
    let wa = after.is_some_and(is_word);
    match look {
        Look::LineStart => before.is_none() || (multiline && before == Some(b'\n')),
        Look::LineEnd => after.is_none() || (multiline && after == Some(b'\n')),
        Look::BufStart => before.is_none(),
        Look::BufEnd => after.is_none(),
        Look::Word => wb != wa,
        Look::NotWord => wb == wa,
        Look::WordStart => !wb && wa,
        Look::WordEnd => wb && !wa,
        Look::NotAfterWord => !wb,
        Look::NotBeforeWord => !wa,
    }
}

/// What to undo when backtracking past a point.
#[derive(Debug)]
enum Undo {
    Try { pc: u32, pos: usize },
    Start(usize, Option<usize>),
    End(usize, Option<usize>),
    Snap(usize, Option<usize>, Option<usize>),
    Reg(usize, usize),
}

struct Run<'a, 'b> {
    prog: &'a Prog,
    hay: &'a [u8],
    start: usize,
    end: Option<usize>,
    budget: &'b Budget,
    /// Group starts and ends (`so`, `eo`; a group is set when both are), the groups as
    /// they were at the last non-empty group close (`snap_*`), loop registers, the undo
    /// stack, and the (pc, pos) pairs known to fail when there are no back-references.
    s: &'b mut Scratch,
    memo: bool,
    span: usize,
    ops: u64,
    best: Option<usize>,
    found: Option<Slots>,
}

/// Memo tables larger than this many bits are not kept.
const MAX_MEMO_BITS: usize = 1 << 25;

impl<'a, 'b> Run<'a, 'b> {
    fn new(
        prog: &'a Prog,
        hay: &'a [u8],
        start: usize,
        end: Option<usize>,
        budget: &'b Budget,
        s: &'b mut Scratch,
    ) -> Self {
        let n = prog.groups + 1;
        let span = end.unwrap_or(hay.len()).saturating_sub(start) + 1;
        let bits = span.saturating_mul(prog.insts.len());
        let memo = !prog.backrefs && bits <= MAX_MEMO_BITS;
        for v in [&mut s.so, &mut s.eo, &mut s.snap_so, &mut s.snap_eo] {
            v.clear();
            v.resize(n, None);
        }
        s.regs.clear();
        s.regs.resize(prog.regs, 0);
        s.stack.clear();
        s.visited.clear();
        if memo {
            s.visited.resize(bits.div_ceil(64), 0);
        }
        Run {
            prog,
            hay,
            start,
            end,
            budget,
            s,
            memo,
            span,
            ops: 0,
            best: None,
            found: None,
        }
    }

    /// Runs the search. `all`: explore every path and keep the longest end (in `best`);
    /// otherwise stop at the first path that reaches `end` (in `found`).
    fn go(&mut self, all: bool) -> Result<()> {
        self.s.stack.push(Undo::Try {
            pc: 0,
            pos: self.start,
        });
        while let Some(frame) = self.s.stack.pop() {
            match frame {
                Undo::Try { pc, pos } => {
                    if self.step(pc, pos, all)? {
                        return Ok(());
                    }
                }
                Undo::Start(g, v) => self.s.so[g] = v,
                Undo::End(g, v) => self.s.eo[g] = v,
                Undo::Snap(g, s, e) => {
                    self.s.snap_so[g] = s;
                    self.s.snap_eo[g] = e;
                }
                Undo::Reg(r, v) => self.s.regs[r] = v,
            }
        }
        self.spend_rest()
    }

    fn spend_rest(&mut self) -> Result<()> {
        let n = self.ops.div_ceil(OPS_PER_STEP);
        self.ops = 0;
        self.budget.spend(n)
    }

    /// Follows one thread from (`pc`, `pos`) until it fails or matches; `Ok(true)` when
    /// the search is over.
    fn step(&mut self, mut pc: u32, mut pos: usize, all: bool) -> Result<bool> {
        let hay = self.hay;
        loop {
            self.ops += 1;
            if self.ops >= OPS_PER_STEP * 1024 {
                self.budget.spend(1024)?;
                self.ops -= OPS_PER_STEP * 1024;
            }
            if self.memo {
                let off = pos - self.start;
                if off < self.span {
                    let bit = pc as usize * self.span + off;
                    let (w, m) = (bit / 64, 1u64 << (bit % 64));
                    if let Some(word) = self.s.visited.get_mut(w) {
                        if *word & m != 0 {
                            return Ok(false);
                        }
                        *word |= m;
                    }
                }
            }
            let Some(&inst) = self.prog.insts.get(pc as usize) else {
                return Ok(false);
            };
            match inst {
                Inst::Byte(b) => {
                    if hay.get(pos) != Some(&b) {
                        return Ok(false);
                    }
                    pos += 1;
                    pc += 1;
                }
                Inst::Set(i) => {
                    match (hay.get(pos), self.prog.sets.get(i as usize)) {
                        (Some(&c), Some(set)) if set.contains(c) => {}
                        _ => return Ok(false),
                    }
                    pos += 1;
                    pc += 1;
                }
                Inst::Look(l) => {
                    if !look_at(l, hay, pos, self.prog.multiline) {
                        return Ok(false);
                    }
                    pc += 1;
                }
                Inst::Split(a, b) => {
                    self.s.stack.push(Undo::Try { pc: b, pos });
                    pc = a;
                }
                Inst::Jmp(a) => pc = a,
                Inst::Open(g) => {
                    let g = g as usize;
                    self.s.stack.push(Undo::Start(g, self.s.so[g]));
                    self.s.stack.push(Undo::End(g, self.s.eo[g]));
                    self.s.so[g] = Some(pos);
                    self.s.eo[g] = None;
                    pc += 1;
                }
                Inst::Close(g, how) => {
                    let g = g as usize;
                    let open = self.s.so[g].unwrap_or(pos);
                    let nonempty = open < pos;
                    match how {
                        Close::NonEmpty if !nonempty => return Ok(false),
                        Close::EmptyKeep if nonempty => return Ok(false),
                        _ => {}
                    }
                    let marked = matches!(how, Close::EmptyKeep | Close::Marked);
                    if nonempty {
                        self.s.stack.push(Undo::End(g, self.s.eo[g]));
                        self.s.eo[g] = Some(pos);
                        for k in 1..self.s.so.len() {
                            if self.s.snap_so[k] != self.s.so[k]
                                || self.s.snap_eo[k] != self.s.eo[k]
                            {
                                self.s.stack.push(Undo::Snap(
                                    k,
                                    self.s.snap_so[k],
                                    self.s.snap_eo[k],
                                ));
                                self.s.snap_so[k] = self.s.so[k];
                                self.s.snap_eo[k] = self.s.eo[k];
                            }
                        }
                    } else if marked && self.s.snap_so[g].is_some() {
                        self.s.stack.push(Undo::Start(g, self.s.so[g]));
                        self.s.stack.push(Undo::End(g, self.s.eo[g]));
                        self.s.so[g] = self.s.snap_so[g];
                        self.s.eo[g] = self.s.snap_eo[g];
                    } else {
                        self.s.stack.push(Undo::End(g, self.s.eo[g]));
                        self.s.eo[g] = Some(pos);
                    }
                    pc += 1;
                }
                Inst::Backref(g) => {
                    let g = g as usize;
                    let (Some(s), Some(e)) = (self.s.so[g], self.s.eo[g]) else {
                        return Ok(false);
                    };
                    let len = e.saturating_sub(s);
                    let (Some(want), Some(got)) = (hay.get(s..e), hay.get(pos..pos + len)) else {
                        return Ok(false);
                    };
                    let same = if self.prog.icase {
                        want.eq_ignore_ascii_case(got)
                    } else {
                        want == got
                    };
                    if !same {
                        return Ok(false);
                    }
                    self.ops += len as u64 / 8;
                    pos += len;
                    pc += 1;
                }
                Inst::Mark(r) => {
                    let r = r as usize;
                    self.s.stack.push(Undo::Reg(r, self.s.regs[r]));
                    self.s.regs[r] = pos;
                    pc += 1;
                }
                Inst::Progress(r, again, exit) => {
                    pc = if pos > self.s.regs[r as usize] {
                        again
                    } else {
                        exit
                    };
                }
                Inst::Match => {
                    if all {
                        if self.best.is_none_or(|b| pos > b) {
                            self.best = Some(pos);
                        }
                        if pos == hay.len() {
                            self.spend_rest()?;
                            return Ok(true);
                        }
                        return Ok(false);
                    }
                    if Some(pos) != self.end {
                        return Ok(false);
                    }
                    let mut slots: Slots = Vec::with_capacity(self.s.so.len());
                    slots.push(Some((self.start, pos)));
                    for g in 1..self.s.so.len() {
                        slots.push(match (self.s.so[g], self.s.eo[g]) {
                            (Some(s), Some(e)) => Some((s, e)),
                            _ => None,
                        });
                    }
                    self.found = Some(slots);
                    self.spend_rest()?;
                    return Ok(true);
                }
            }
        }
    }
}
