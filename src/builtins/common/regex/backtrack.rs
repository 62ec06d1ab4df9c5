//! A backtracking matcher over a small program compiled from the [`Node`] tree: it gives
//! GNU's subexpression positions (the first path in preference order that ends where the
//! longest match ends) and runs patterns with back-references. It spends one step per
//! [`OPS_PER_STEP`] instructions executed, so a catastrophic pattern stops at the budget.

use super::parse::{Look, Node};
use super::ByteSet;
use crate::budget::Budget;
use crate::error::Result;

/// Instructions executed per step of the budget.
pub const OPS_PER_STEP: u64 = 64;

/// Programs larger than this are "too big".
pub const MAX_INSTS: usize = 1 << 20;

#[derive(Debug, Clone, Copy)]
enum Inst {
    Byte(u8),
    Set(u32),
    Look(Look),
    /// Try the first target, then the second.
    Split(u32, u32),
    Jmp(u32),
    Open(u32),
    /// Close a group; `true` when GNU treats this copy of it as optional.
    Close(u32, bool),
    Backref(u32),
    /// Remember where a loop iteration starts.
    Mark(u32),
    /// End of a loop iteration: loop again (first target) only if it consumed input.
    Progress(u32, u32, u32),
    Match,
}

/// A compiled program.
#[derive(Debug, Clone)]
pub struct Prog {
    insts: Vec<Inst>,
    sets: Vec<ByteSet>,
    groups: usize,
    regs: usize,
    icase: bool,
    multiline: bool,
    backrefs: bool,
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
                self.push(Inst::Open(*index as u32))?;
                self.emit(node, false)?;
                self.push(Inst::Close(*index as u32, marked))?;
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
        })
    }

    /// The longest match that starts at `start`: its end, or `None`.
    pub fn longest_at(
        &self,
        hay: &[u8],
        start: usize,
        budget: &mut Budget,
    ) -> Result<Option<usize>> {
        let mut run = Run::new(self, hay, start, None, budget);
        run.go(true)?;
        Ok(run.best)
    }

    /// The groups of the first path, in preference order, from `start` to `end`.
    pub fn captures(
        &self,
        hay: &[u8],
        start: usize,
        end: usize,
        budget: &mut Budget,
    ) -> Result<Option<Slots>> {
        let mut run = Run::new(self, hay, start, Some(end), budget);
        run.go(false)?;
        Ok(run.found)
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
    budget: &'b mut Budget,
    /// Group starts and ends; a group is set when both are.
    so: Vec<Option<usize>>,
    eo: Vec<Option<usize>>,
    /// The groups as they were at the last non-empty group close.
    snap_so: Vec<Option<usize>>,
    snap_eo: Vec<Option<usize>>,
    regs: Vec<usize>,
    stack: Vec<Undo>,
    /// (pc, pos) pairs known to fail, when there are no back-references.
    visited: Option<Vec<u64>>,
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
        budget: &'b mut Budget,
    ) -> Self {
        let n = prog.groups + 1;
        let span = end.unwrap_or(hay.len()).saturating_sub(start) + 1;
        let bits = span.saturating_mul(prog.insts.len());
        let visited =
            (!prog.backrefs && bits <= MAX_MEMO_BITS).then(|| vec![0u64; bits.div_ceil(64)]);
        Run {
            prog,
            hay,
            start,
            end,
            budget,
            so: vec![None; n],
            eo: vec![None; n],
            snap_so: vec![None; n],
            snap_eo: vec![None; n],
            regs: vec![0; prog.regs],
            stack: Vec::new(),
            visited,
            span,
            ops: 0,
            best: None,
            found: None,
        }
    }

    /// Runs the search. `all`: explore every path and keep the longest end (in `best`);
    /// otherwise stop at the first path that reaches `end` (in `found`).
    fn go(&mut self, all: bool) -> Result<()> {
        self.stack.push(Undo::Try {
            pc: 0,
            pos: self.start,
        });
        while let Some(frame) = self.stack.pop() {
            match frame {
                Undo::Try { pc, pos } => {
                    if self.step(pc, pos, all)? {
                        return Ok(());
                    }
                }
                Undo::Start(g, v) => self.so[g] = v,
                Undo::End(g, v) => self.eo[g] = v,
                Undo::Snap(g, s, e) => {
                    self.snap_so[g] = s;
                    self.snap_eo[g] = e;
                }
                Undo::Reg(r, v) => self.regs[r] = v,
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
            if let Some(v) = self.visited.as_mut() {
                let off = pos - self.start;
                if off < self.span {
                    let bit = pc as usize * self.span + off;
                    let (w, m) = (bit / 64, 1u64 << (bit % 64));
                    if let Some(word) = v.get_mut(w) {
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
                    self.stack.push(Undo::Try { pc: b, pos });
                    pc = a;
                }
                Inst::Jmp(a) => pc = a,
                Inst::Open(g) => {
                    let g = g as usize;
                    self.stack.push(Undo::Start(g, self.so[g]));
                    self.stack.push(Undo::End(g, self.eo[g]));
                    self.so[g] = Some(pos);
                    self.eo[g] = None;
                    pc += 1;
                }
                Inst::Close(g, marked) => {
                    let g = g as usize;
                    let open = self.so[g].unwrap_or(pos);
                    if open < pos {
                        self.stack.push(Undo::End(g, self.eo[g]));
                        self.eo[g] = Some(pos);
                        for k in 1..self.so.len() {
                            if self.snap_so[k] != self.so[k] || self.snap_eo[k] != self.eo[k] {
                                self.stack
                                    .push(Undo::Snap(k, self.snap_so[k], self.snap_eo[k]));
                                self.snap_so[k] = self.so[k];
                                self.snap_eo[k] = self.eo[k];
                            }
                        }
                    } else if marked && self.snap_so[g].is_some() {
                        self.stack.push(Undo::Start(g, self.so[g]));
                        self.stack.push(Undo::End(g, self.eo[g]));
                        self.so[g] = self.snap_so[g];
                        self.eo[g] = self.snap_eo[g];
                    } else {
                        self.stack.push(Undo::End(g, self.eo[g]));
                        self.eo[g] = Some(pos);
                    }
                    pc += 1;
                }
                Inst::Backref(g) => {
                    let g = g as usize;
                    let (Some(s), Some(e)) = (self.so[g], self.eo[g]) else {
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
                    self.stack.push(Undo::Reg(r, self.regs[r]));
                    self.regs[r] = pos;
                    pc += 1;
                }
                Inst::Progress(r, again, exit) => {
                    pc = if pos > self.regs[r as usize] {
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
                    let mut slots: Slots = Vec::with_capacity(self.so.len());
                    slots.push(Some((self.start, pos)));
                    for g in 1..self.so.len() {
                        slots.push(match (self.so[g], self.eo[g]) {
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
