//! The step budget: how much work one Request may do.
//!
//! A step is a small, fixed amount of work: the shell spends one per simple command,
//! loop pass and function call; a builtin spends one per line or per [`BYTES_PER_STEP`]
//! bytes it handles (each tool's `//!` header says which). Accounting is deterministic,
//! so the limit is exact: a script that needs N steps runs with a budget of N and stops
//! with [`Error::StepLimit`] at N - 1.

use crate::error::{Error, Result};

/// Bytes of input or output that cost one step in a byte-oriented builtin.
pub const BYTES_PER_STEP: u64 = 64;

/// The default budget of one Request, when neither the FIFO nor the operator sets one.
pub const DEFAULT_LIMIT: u64 = 10_000_000;

#[derive(Debug, Clone)]
pub struct Budget {
    used: u64,
    limit: u64,
}

impl Budget {
    pub fn new(limit: u64) -> Self {
        Budget { used: 0, limit }
    }

    /// Spends `n` steps, or fails without spending any when fewer than `n` are left.
    #[inline]
    pub fn spend(&mut self, n: u64) -> Result<()> {
        match self.used.checked_add(n) {
            Some(total) if total <= self.limit => {
                self.used = total;
                Ok(())
            }
            _ => {
                self.used = self.limit;
                Err(Error::StepLimit { limit: self.limit })
            }
        }
    }

    /// Spends the steps for handling `bytes` bytes: one per started [`BYTES_PER_STEP`].
    #[inline]
    pub fn spend_bytes(&mut self, bytes: usize) -> Result<()> {
        self.spend((bytes as u64).div_ceil(BYTES_PER_STEP))
    }

    pub fn used(&self) -> u64 {
        self.used
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    pub fn remaining(&self) -> u64 {
        self.limit - self.used
    }

    /// Puts the counter back to an earlier reading: used when a builtin is rerun after
    /// its [`Error::Need`] was served, so the rerun costs what one run costs.
    pub fn rewind(&mut self, used: u64) {
        self.used = used.min(self.limit);
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
        let mut b = Budget::new(10);
        assert!(b.spend(10).is_ok());
        assert_eq!(b.spend(1), Err(Error::StepLimit { limit: 10 }));
        let mut b = Budget::new(10);
        assert!(b.spend(9).is_ok());
        assert!(b.spend(2).is_err());
    }

    #[test]
    fn bytes_round_up() {
        let mut b = Budget::new(100);
        b.spend_bytes(0).unwrap();
        assert_eq!(b.used(), 0);
        b.spend_bytes(1).unwrap();
        b.spend_bytes(64).unwrap();
        b.spend_bytes(65).unwrap();
        assert_eq!(b.used(), 4);
    }
}
