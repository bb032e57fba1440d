//! Work on several skills at once: std's scoped threads over a shared queue, results in the
//! order of the input whatever the order they finish in, so that a parallel build gives the
//! very bytes and errors of a sequential one.

use std::num::NonZeroUsize;
use std::sync::{Mutex, PoisonError};
use std::thread;

/// How many threads a build uses by default: every core the process may run on.
pub(crate) fn available() -> NonZeroUsize {
    thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

/// How many threads to use for `wanted` pieces of work at once: that many, at most `cap`
/// (by default every core). Work for one thread never asks how many cores there are: on
/// Linux that reads the cgroup files, which costs more than building a small catalog.
pub(crate) fn threads(wanted: usize, cap: Option<NonZeroUsize>) -> NonZeroUsize {
    match NonZeroUsize::new(wanted) {
        Some(wanted) if wanted.get() > 1 => wanted.min(cap.unwrap_or_else(available)),
        _ => NonZeroUsize::MIN,
    }
}

/// Runs `work` on every item, on the calling thread and up to `threads - 1` more, and returns
/// the results in the order of `items`. Each thread takes the next item from a shared queue
/// when it is done with one, so a large skill does not hold up the small ones behind it.
///
/// With one thread, or one item, nothing is spawned. A thread that the system refuses to
/// start is simply not used; a panic in `work` reaches the caller, as it would without threads.
pub(crate) fn map<T, R, F>(items: Vec<T>, threads: NonZeroUsize, work: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync,
{
    let count = items.len();
    let helpers = threads.get().min(count).saturating_sub(1);
    if helpers == 0 {
        return items.into_iter().map(work).collect();
    }
    let queue = Mutex::new(items.into_iter().enumerate());
    let next = || queue.lock().unwrap_or_else(PoisonError::into_inner).next();
    let drain = || {
        let mut done = Vec::new();
        while let Some((at, item)) = next() {
            done.push((at, work(item)));
        }
        done
    };
    let mut finished = thread::scope(|scope| {
        let spawned: Vec<_> = (0..helpers)
            .filter_map(|_| thread::Builder::new().spawn_scoped(scope, drain).ok())
            .collect();
        let mut finished = drain();
        for helper in spawned {
            match helper.join() {
                Ok(done) => finished.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        finished
    });
    finished.sort_unstable_by_key(|(at, _)| *at);
    debug_assert_eq!(finished.len(), count, "every item is taken exactly once");
    finished.into_iter().map(|(_, result)| result).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threads(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn results_keep_the_order_of_the_items_whatever_the_threads() {
        let items: Vec<u64> = (0..500).collect();
        let sequential = map(items.clone(), threads(1), |n| n * n);
        for count in [2, 3, 8, 1_000] {
            let parallel = map(items.clone(), threads(count), |n| {
                // Uneven work, so that threads finish out of order.
                if n.is_multiple_of(7) {
                    thread::yield_now();
                }
                n * n
            });
            assert_eq!(parallel, sequential, "{count} threads");
        }
    }

    #[test]
    fn the_items_are_shared_among_the_threads() {
        // Each item waits (a generous ten seconds at most) until two threads have taken one,
        // which only happens when a second thread really works beside the caller.
        let seen = Mutex::new(std::collections::HashSet::new());
        let ids = map(vec![(); 2], threads(2), |()| {
            seen.lock().unwrap().insert(thread::current().id());
            let start = std::time::Instant::now();
            while seen.lock().unwrap().len() < 2 && start.elapsed().as_secs() < 10 {
                thread::yield_now();
            }
            thread::current().id()
        });
        assert_ne!(ids[0], ids[1]);
    }

    #[test]
    fn no_items_give_no_results() {
        assert!(map(Vec::<u8>::new(), threads(4), |n| n).is_empty());
    }

    #[test]
    #[should_panic(expected = "boom")]
    fn a_panic_in_the_work_reaches_the_caller() {
        map((0..100).collect::<Vec<u8>>(), threads(4), |n| {
            assert!(n != 57, "boom");
            n
        });
    }
}
