//! The gate of a FIFO's object for large Request bodies held whole.
//!
//! A body the envelope needs whole (for selectors, for a durable delivery, for mail) sits
//! in the object's memory while its Request runs. An isolate has 128 MB for everything, so
//! the large ones (over [`SMALL`]) take turns: they are let in, in order of arrival, while
//! those inside add up to at most [`BOUND`] (one alone is always let in), and one that
//! waits [`MAX_WAIT`] without being let in is turned away. Plain Rust over any timer, so
//! that the order and the wait are tested natively.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

/// Bodies up to this size pass without waiting.
pub const SMALL: usize = 64 * 1024;
/// How many bytes of large bodies an object holds at once.
pub const BOUND: usize = 16 * 1024 * 1024;
/// How long a large body waits to be let in.
pub const MAX_WAIT: Duration = Duration::from_secs(20);
/// How often a waiting body looks again.
pub const POLL: Duration = Duration::from_millis(5);

/// The gate of one object.
#[derive(Default)]
pub struct Gate {
    inside: Rc<Cell<usize>>,
    /// Tickets of the bodies waiting, in order of arrival.
    queue: RefCell<VecDeque<u64>>,
    next_ticket: Cell<u64>,
}

/// A large body's place inside the gate, given back when dropped.
pub struct Permit {
    inside: Rc<Cell<usize>>,
    bytes: usize,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.inside.set(self.inside.get() - self.bytes);
    }
}

/// A body that waited [`MAX_WAIT`] and was not let in.
#[derive(Debug, PartialEq, Eq)]
pub struct Busy;

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "too many large bodies at once: none let in within {} s, try again",
            MAX_WAIT.as_secs()
        )
    }
}

impl Gate {
    /// Waits, by `sleep`, until `bytes` of body may be held.
    pub async fn enter<S, F>(&self, bytes: usize, sleep: S) -> Result<Permit, Busy>
    where
        S: Fn(Duration) -> F,
        F: Future<Output = ()>,
    {
        let bytes = bytes.min(BOUND);
        let ticket = self.next_ticket.get();
        self.next_ticket.set(ticket + 1);
        self.queue.borrow_mut().push_back(ticket);
        let mut waited = Duration::ZERO;
        loop {
            let first = self.queue.borrow().front() == Some(&ticket);
            let inside = self.inside.get();
            if first && (inside == 0 || inside + bytes <= BOUND) {
                self.queue.borrow_mut().pop_front();
                self.inside.set(inside + bytes);
                return Ok(Permit {
                    inside: self.inside.clone(),
                    bytes,
                });
            }
            if waited >= MAX_WAIT {
                self.queue.borrow_mut().retain(|t| *t != ticket);
                return Err(Busy);
            }
            sleep(POLL).await;
            waited += POLL;
        }
    }

    /// Bytes of large bodies inside now.
    pub fn inside(&self) -> usize {
        self.inside.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::pin;
    use std::task::Poll;

    const MIB: usize = 1 << 20;

    /// A sleep that gives the other futures one turn (time is counted, not waited).
    fn turn(_: Duration) -> impl Future<Output = ()> {
        let mut yielded = false;
        std::future::poll_fn(move |cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
    }

    fn now<T>(fut: impl Future<Output = T>) -> T {
        crate::stream::block_on(fut)
    }

    #[test]
    fn bodies_within_the_bound_go_in_at_once() {
        let gate = Gate::default();
        let a = now(gate.enter(8 * MIB, turn)).unwrap();
        let b = now(gate.enter(8 * MIB, turn)).unwrap();
        assert_eq!(gate.inside(), 16 * MIB);
        drop((a, b));
        assert_eq!(gate.inside(), 0);
        // One larger than the bound goes in alone, counted as the bound.
        let big = now(gate.enter(40 * MIB, turn)).unwrap();
        assert_eq!(gate.inside(), BOUND);
        drop(big);
    }

    #[test]
    fn a_waiting_body_is_turned_away_after_the_wait() {
        let gate = Gate::default();
        let _held = now(gate.enter(12 * MIB, turn)).unwrap();
        assert_eq!(now(gate.enter(8 * MIB, turn)).err(), Some(Busy));
        // The one turned away left the queue: a small enough one still goes in.
        assert!(now(gate.enter(4 * MIB, turn)).is_ok());
    }

    #[test]
    fn bodies_go_in_in_order_of_arrival() {
        let gate = Gate::default();
        let first = now(gate.enter(12 * MIB, turn)).unwrap();
        let order = RefCell::new(Vec::new());
        let mut big = pin!(async {
            let p = gate.enter(10 * MIB, turn).await.unwrap();
            order.borrow_mut().push("big");
            p
        });
        // Would fit beside the first, but arrived after the big one: it waits its turn.
        let mut small = pin!(async {
            let p = gate.enter(MIB, turn).await.unwrap();
            order.borrow_mut().push("small");
            p
        });
        let mut first = Some(first);
        let (mut got_big, mut got_small) = (None, None);
        let mut turns = 0;
        now(std::future::poll_fn(|cx| {
            turns += 1;
            if turns == 100 {
                assert!(
                    order.borrow().is_empty(),
                    "nothing goes in while the first is inside"
                );
                first = None;
            }
            if got_big.is_none() {
                if let Poll::Ready(p) = big.as_mut().poll(cx) {
                    got_big = Some(p);
                }
            }
            if got_small.is_none() {
                if let Poll::Ready(p) = small.as_mut().poll(cx) {
                    got_small = Some(p);
                }
            }
            if got_big.is_some() && got_small.is_some() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }));
        assert_eq!(*order.borrow(), ["big", "small"]);
        assert_eq!(gate.inside(), 11 * MIB);
        drop((got_big, got_small, first));
        assert_eq!(gate.inside(), 0);
    }
}
