//! The limits of one jq run: steps left, the stack it may use, and why it stopped.
//!
//! jaq calls back into [`crate::jq`] from places that have no handle on the run (value
//! methods, iterators), so the state lives in thread-locals, set up by [`Run::start`] and
//! read back by [`Run::finish`]. The Workers runtime and `mkfifo-sh` run one jq at a time.

use std::cell::Cell;

/// Why a run was stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abort {
    /// The step budget ran out.
    Steps,
    /// A value grew past the size caps.
    Memory,
    /// Recursion went deeper than the stack allows.
    Depth,
}

/// Bytes of stack a run may use below the frame that started it. The Workers runtime
/// gives wasm about 1 MiB of stack in all, and test threads have 2 MiB.
const MAX_STACK: usize = 384 * 1024;

thread_local! {
    static FUEL: Cell<u64> = const { Cell::new(u64::MAX) };
    static ABORT: Cell<Option<Abort>> = const { Cell::new(None) };
    static STACK_BASE: Cell<usize> = const { Cell::new(0) };
}

/// Spends `n` steps; false (and the run is aborted) when fewer are left.
#[inline]
pub fn spend(n: u64) -> bool {
    FUEL.with(|f| {
        let left = f.get();
        if left >= n && ABORT.with(|a| a.get().is_none()) {
            f.set(left - n);
            true
        } else {
            f.set(0);
            fail(Abort::Steps);
            false
        }
    })
}

/// Spends the steps for handling `bytes` bytes (one per started 64).
#[inline]
pub fn spend_bytes(bytes: usize) -> bool {
    spend((bytes as u64).div_ceil(crate::budget::BYTES_PER_STEP))
}

/// Marks the run as aborted (the first reason wins).
pub fn fail(why: Abort) {
    ABORT.with(|a| {
        if a.get().is_none() {
            a.set(Some(why))
        }
    })
}

/// Why the run was aborted, if it was.
pub fn aborted() -> Option<Abort> {
    ABORT.with(|a| a.get())
}

#[inline(never)]
fn stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Whether the stack still has room; aborts the run when it has not.
#[inline]
pub fn stack_ok() -> bool {
    let base = STACK_BASE.with(|b| b.get());
    let used = base.saturating_sub(stack_pointer());
    if used > MAX_STACK {
        fail(Abort::Depth);
        return false;
    }
    aborted().is_none()
}

/// One jq run's hold on the limits.
pub struct Run {
    start: u64,
}

impl Run {
    /// Starts a run with `steps` steps.
    pub fn start(steps: u64) -> Run {
        FUEL.with(|f| f.set(steps));
        ABORT.with(|a| a.set(None));
        STACK_BASE.with(|b| b.set(stack_pointer()));
        Run { start: steps }
    }

    /// Steps spent so far.
    pub fn used(&self) -> u64 {
        self.start - FUEL.with(|f| f.get()).min(self.start)
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        FUEL.with(|f| f.set(u64::MAX));
        STACK_BASE.with(|b| b.set(0));
    }
}
