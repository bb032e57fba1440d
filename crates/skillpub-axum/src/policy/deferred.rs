//! A value made once, on another thread, that any number of tasks await without blocking the
//! thread they run on: the encoded variants, whose making can take seconds.
//!
//! A request that finds the value missing starts the making (once: later ones only wait),
//! leaves a waker and returns `Pending`; the maker stores the value and wakes every waiter. An
//! attempt that ends without a value (no thread could be started, the encoder panicked) wakes
//! its waiters too, who then answer without it, and leaves the cell empty for the next request
//! to try again: a failure never poisons the value, and no waiter waits for an attempt that
//! has ended.

use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::task::{Context, Poll, Waker};

/// A value made once elsewhere, and awaited.
#[derive(Debug)]
pub(super) struct Deferred<T> {
    value: OnceLock<T>,
    waiters: Mutex<Waiters>,
}

impl<T> Default for Deferred<T> {
    fn default() -> Self {
        Self {
            value: OnceLock::new(),
            waiters: Mutex::default(),
        }
    }
}

/// Who waits for the attempt under way, if any.
#[derive(Debug, Default)]
struct Waiters {
    /// Whether an attempt is under way.
    making: bool,
    /// Counts the attempts that ended: a ticket of an earlier attempt is stale.
    ended: u64,
    /// A waker per waiter of the attempt under way, by slot; `None` for a slot given up.
    wakers: Vec<Option<Waker>>,
    /// The slots given up, to reuse: a waiter polled again keeps its slot, and one dropped
    /// frees it, so the list never holds more than one waker per waiter.
    free: Vec<usize>,
}

/// A waiter's place in the attempt it waits for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ticket {
    attempt: u64,
    slot: usize,
}

impl<T> Deferred<T> {
    /// The value, once made.
    pub(super) fn get(&self) -> Option<&T> {
        self.value.get()
    }

    /// `Ready(true)` once the value is made, `Ready(false)` once the attempt `ticket` waits
    /// for has ended without it (`ticket` is then `None`); else `Pending`, with the task's
    /// waker kept and `ticket` set. When no attempt is under way, one starts: `start` is
    /// called (without the lock held) and must hand the making to another thread, which ends
    /// it with [`set`](Self::set) or [`abandon`](Self::abandon).
    pub(super) fn poll(
        &self,
        ticket: &mut Option<Ticket>,
        cx: &mut Context<'_>,
        start: impl FnOnce(),
    ) -> Poll<bool> {
        let mut waiters = self.lock();
        // Under the lock: a maker stores the value before it takes the lock to wake.
        if self.value.get().is_some() {
            *ticket = None;
            return Poll::Ready(true);
        }
        if ticket.is_some_and(|ticket| ticket.attempt != waiters.ended) {
            *ticket = None;
            return Poll::Ready(false);
        }
        let starts = !waiters.making;
        waiters.making = true;
        match ticket {
            Some(ticket) => {
                let kept = &mut waiters.wakers[ticket.slot];
                if !kept.as_ref().is_some_and(|kept| kept.will_wake(cx.waker())) {
                    *kept = Some(cx.waker().clone());
                }
            }
            None => {
                let waker = Some(cx.waker().clone());
                let slot = match waiters.free.pop() {
                    Some(slot) => {
                        waiters.wakers[slot] = waker;
                        slot
                    }
                    None => {
                        waiters.wakers.push(waker);
                        waiters.wakers.len() - 1
                    }
                };
                *ticket = Some(Ticket {
                    attempt: waiters.ended,
                    slot,
                });
            }
        }
        drop(waiters);
        if starts {
            start();
        }
        Poll::Pending
    }

    /// Gives up the waiter's place: for a waiter dropped before the attempt ended.
    pub(super) fn forget(&self, ticket: Ticket) {
        let mut waiters = self.lock();
        if ticket.attempt == waiters.ended {
            waiters.wakers[ticket.slot] = None;
            waiters.free.push(ticket.slot);
        }
    }

    /// Stores the value made and wakes every waiter.
    pub(super) fn set(&self, value: T) {
        // Only the attempt under way sets it, so the cell is empty.
        let _ = self.value.set(value);
        self.end();
    }

    /// Ends the attempt under way without a value and wakes every waiter; the next request
    /// starts another.
    pub(super) fn abandon(&self) {
        self.end();
    }

    fn end(&self) {
        let mut waiters = self.lock();
        waiters.making = false;
        waiters.ended += 1;
        waiters.free.clear();
        let wakers = std::mem::take(&mut waiters.wakers);
        drop(waiters);
        wakers.into_iter().flatten().for_each(Waker::wake);
    }

    /// The waiters. Every change to them is made whole under the lock, so a panic in a waker
    /// while it was held leaves them consistent.
    fn lock(&self) -> MutexGuard<'_, Waiters> {
        self.waiters.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use super::*;

    /// A waker that counts its wake-ups.
    #[derive(Default)]
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl Count {
        fn waker() -> (Arc<Self>, Waker) {
            let count = Arc::new(Self::default());
            (Arc::clone(&count), Waker::from(count))
        }

        fn woken(&self) -> usize {
            self.0.load(Ordering::SeqCst)
        }
    }

    /// Polls `cell` for a waiter with `waker`; counts the attempts started in `starts`.
    fn poll(
        cell: &Deferred<u32>,
        ticket: &mut Option<Ticket>,
        waker: &Waker,
        starts: &mut usize,
    ) -> Poll<bool> {
        cell.poll(ticket, &mut Context::from_waker(waker), || *starts += 1)
    }

    #[test]
    fn the_first_waiter_starts_the_making_and_every_waiter_is_woken_once_it_is_made() {
        let cell = Deferred::default();
        let mut starts = 0;
        let waiters = [Count::waker(), Count::waker(), Count::waker()];
        let mut tickets = [None; 3];
        for ((_, waker), ticket) in waiters.iter().zip(&mut tickets) {
            assert_eq!(poll(&cell, ticket, waker, &mut starts), Poll::Pending);
        }
        assert_eq!(starts, 1, "one making, however many wait");
        cell.set(7);
        for ((count, waker), ticket) in waiters.iter().zip(&mut tickets) {
            assert_eq!(count.woken(), 1);
            assert_eq!(poll(&cell, ticket, waker, &mut starts), Poll::Ready(true));
            assert!(ticket.is_none());
        }
        assert_eq!(cell.get(), Some(&7));
        let (_, late) = Count::waker();
        assert_eq!(
            poll(&cell, &mut None, &late, &mut starts),
            Poll::Ready(true)
        );
        assert_eq!(starts, 1);
    }

    #[test]
    fn a_waiter_polled_again_keeps_one_place_and_its_newest_waker() {
        let cell = Deferred::<u32>::default();
        let mut starts = 0;
        let mut ticket = None;
        let (same, waker) = Count::waker();
        for _ in 0..1000 {
            assert_eq!(poll(&cell, &mut ticket, &waker, &mut starts), Poll::Pending);
        }
        let (newest, other) = Count::waker();
        assert_eq!(poll(&cell, &mut ticket, &other, &mut starts), Poll::Pending);
        assert_eq!(cell.lock().wakers.len(), 1);
        cell.set(1);
        assert_eq!((same.woken(), newest.woken()), (0, 1));
    }

    #[test]
    fn a_waiter_dropped_gives_its_place_back_and_the_making_goes_on() {
        let cell = Deferred::<u32>::default();
        let mut starts = 0;
        let (gone, waker) = Count::waker();
        let mut ticket = None;
        assert_eq!(poll(&cell, &mut ticket, &waker, &mut starts), Poll::Pending);
        cell.forget(ticket.unwrap());
        let (stays, waker) = Count::waker();
        let mut ticket = None;
        assert_eq!(poll(&cell, &mut ticket, &waker, &mut starts), Poll::Pending);
        assert_eq!(cell.lock().wakers.len(), 1, "the place is reused");
        assert_eq!(
            starts, 1,
            "the making under way is waited for, not started again"
        );
        cell.set(2);
        assert_eq!((gone.woken(), stays.woken()), (0, 1));
        assert_eq!(
            poll(&cell, &mut ticket, &waker, &mut starts),
            Poll::Ready(true)
        );
    }

    #[test]
    fn a_failed_attempt_lets_its_waiters_go_on_and_the_next_request_try_again() {
        let cell = Deferred::<u32>::default();
        let mut starts = 0;
        let (count, waker) = Count::waker();
        let mut ticket = None;
        assert_eq!(poll(&cell, &mut ticket, &waker, &mut starts), Poll::Pending);
        cell.abandon();
        assert_eq!(count.woken(), 1);
        assert_eq!(
            poll(&cell, &mut ticket, &waker, &mut starts),
            Poll::Ready(false)
        );
        assert!(ticket.is_none() && cell.get().is_none());

        let mut next = None;
        assert_eq!(poll(&cell, &mut next, &waker, &mut starts), Poll::Pending);
        assert_eq!(starts, 2, "a new attempt");
        cell.set(3);
        assert_eq!(
            poll(&cell, &mut next, &waker, &mut starts),
            Poll::Ready(true)
        );
        assert_eq!(cell.get(), Some(&3));
    }

    #[test]
    fn a_making_that_fails_at_once_wakes_the_waiter_that_started_it() {
        let cell = Deferred::<u32>::default();
        let (count, waker) = Count::waker();
        let mut ticket = None;
        let mut cx = Context::from_waker(&waker);
        assert_eq!(
            cell.poll(&mut ticket, &mut cx, || cell.abandon()),
            Poll::Pending
        );
        assert_eq!(count.woken(), 1);
        assert_eq!(cell.poll(&mut ticket, &mut cx, || {}), Poll::Ready(false));
    }
}
