//! The step budget: how much work one Request may do.
//!
//! A step is a small, fixed amount of work: the shell spends one per simple command,
//! loop pass and function call; a builtin spends one per line or per [`BYTES_PER_STEP`]
//! bytes it handles (each tool's `//!` header says which). Accounting is deterministic,
//! so the limit is exact: a script that needs N steps runs with a budget of N and stops
//! with [`Error::StepLimit`] at N - 1.

use std::cell::Cell;

use crate::error::{Error, Result};

/// Bytes of input or output that cost one step in a byte-oriented builtin.
pub const BYTES_PER_STEP: u64 = 64;

/// The default budget of one Request, when neither the FIFO nor the operator sets one.
pub const DEFAULT_LIMIT: u64 = 10_000_000;

/// The counter is a cell: the stages of a pipeline run together and all spend from it.
#[derive(Debug, Clone)]
pub struct Budget {
    used: Cell<u64>,
    limit: u64,
}

impl Budget {
    pub fn new(limit: u64) -> Self {
        Budget {
            used: Cell::new(0),
            limit,
        }
    }

    /// Spends `n` steps, or fails without spending any when fewer than `n` are left.
    #[inline]
    pub fn spend(&self, n: u64) -> Result<()> {
        match self.used.get().checked_add(n) {
            Some(total) if total <= self.limit => {
                self.used.set(total);
                Ok(())
            }
            _ => {
                self.used.set(self.limit);
                Err(Error::StepLimit { limit: self.limit })
            }
        }
    }

    /// Spends the steps for handling `bytes` bytes: one per started [`BYTES_PER_STEP`].
    #[inline]
    pub fn spend_bytes(&self, bytes: usize) -> Result<()> {
        self.spend((bytes as u64).div_ceil(BYTES_PER_STEP))
    }

    pub fn used(&self) -> u64 {
        self.used.get()
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    pub fn remaining(&self) -> u64 {
        self.limit - self.used.get()
    }

    /// Puts the counter back to an earlier reading.
    pub fn rewind(&self, used: u64) {
        self.used.set(used.min(self.limit));
    }
}

/// Byte steps for a stream that comes in chunks: one per started [`BYTES_PER_STEP`] of the
/// whole, as if it had come at once, so the count does not depend on how it was cut.
#[derive(Debug, Default, Clone, Copy)]
pub struct ByteMeter {
    total: u64,
}

impl ByteMeter {
    /// Counts `bytes` more, spending a step for each block of 64 they complete.
    #[inline]
    pub fn add(&mut self, budget: &Budget, bytes: usize) -> Result<()> {
        let before = self.total / BYTES_PER_STEP;
        self.total += bytes as u64;
        budget.spend(self.total / BYTES_PER_STEP - before)
    }

    /// Spends the step of a last, partial block.
    pub fn finish(&mut self, budget: &Budget) -> Result<()> {
        let partial = !self.total.is_multiple_of(BYTES_PER_STEP);
        self.total = 0;
        budget.spend(u64::from(partial))
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(DEFAULT_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_is_exact() {
        let b = Budget::new(10);
        assert!(b.spend(10).is_ok());
        assert_eq!(b.spend(1), Err(Error::StepLimit { limit: 10 }));
        let b = Budget::new(10);
        assert!(b.spend(9).is_ok());
        assert!(b.spend(2).is_err());
    }

    #[test]
    fn bytes_round_up() {
        let b = Budget::new(100);
        b.spend_bytes(0).unwrap();
        assert_eq!(b.used(), 0);
        b.spend_bytes(1).unwrap();
        b.spend_bytes(64).unwrap();
        b.spend_bytes(65).unwrap();
        assert_eq!(b.used(), 4);
    }

    #[test]
    fn meter_counts_the_whole_not_the_chunks() {
        for cuts in [vec![65], vec![1, 64], vec![63, 1, 1], vec![10; 13]] {
            let b = Budget::new(100);
            let mut m = ByteMeter::default();
            for n in &cuts {
                m.add(&b, *n).unwrap();
            }
            m.finish(&b).unwrap();
            let whole = Budget::new(100);
            whole.spend_bytes(cuts.iter().sum()).unwrap();
            assert_eq!(b.used(), whole.used(), "{cuts:?}");
        }
    }
}
