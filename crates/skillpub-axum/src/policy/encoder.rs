//! The threads that make the encoded variants, so that no async worker ever compresses.
//!
//! Making a variant takes time in proportion to the file (a 15 MiB text file takes about half
//! a second in `br`): on an async worker it would stall every connection that worker serves.
//! The router's encoder runs the making on threads of its own instead, at most one per core
//! and at least two (so a small file is not kept waiting behind a large one), started when a
//! variant is asked for and gone once nothing is left to make. It needs no async runtime
//! (the router runs under any executor, with or without feature `server`).

use std::collections::VecDeque;
use std::num::NonZeroUsize;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

/// A making to run: it ends its attempt whichever way it goes (when it is dropped without
/// running too, so that a making no thread could take never leaves its waiters waiting).
pub(super) type Job = Box<dyn FnOnce() + Send>;

/// The fewest threads the encoder may run at once, whatever the number of cores.
const MIN_THREADS: usize = 2;

/// The encoder of one router: its jobs, and the threads that run them.
#[derive(Debug, Default)]
pub(super) struct Encoder {
    queue: Arc<Mutex<Queue>>,
    /// How many threads may run at once: asked once, on the first job, since asking reads
    /// files on Linux (the cgroup's CPU quota) and a router that never encodes never asks.
    most: OnceLock<usize>,
}

/// The jobs not yet taken, and how many threads take them.
#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    threads: usize,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("jobs", &self.jobs.len())
            .field("threads", &self.threads)
            .finish()
    }
}

impl Encoder {
    /// Runs `job` on an encoder thread: a running one takes it when it is free, or a new one
    /// is started while fewer than the most run. When no thread runs and none can be started
    /// (the process is out of threads), `job` is dropped, which ends its attempt.
    pub(super) fn run(&self, job: Job) {
        let most = *self.most.get_or_init(|| {
            std::thread::available_parallelism()
                .map_or(MIN_THREADS, NonZeroUsize::get)
                .max(MIN_THREADS)
        });
        let mut queue = lock(&self.queue);
        queue.jobs.push_back(job);
        if queue.threads >= most {
            return;
        }
        queue.threads += 1;
        drop(queue);
        let shared = Arc::clone(&self.queue);
        let started = std::thread::Builder::new()
            .name("skillpub-encoder".to_owned())
            .spawn(move || work(&shared));
        if started.is_err() {
            let mut queue = lock(&self.queue);
            queue.threads -= 1;
            // Another thread takes the jobs, if one runs; if none does, they are dropped
            // after the lock is let go, since dropping one wakes its waiters.
            let orphans = if queue.threads == 0 {
                std::mem::take(&mut queue.jobs)
            } else {
                VecDeque::new()
            };
            drop(queue);
            drop(orphans);
        }
    }
}

/// An encoder thread: takes jobs until none is left, then ends. A job that panics ends its
/// own attempt (its waiters answer without the variant); the thread goes on with the next.
fn work(queue: &Mutex<Queue>) {
    loop {
        let job = {
            let mut queue = lock(queue);
            match queue.jobs.pop_front() {
                Some(job) => job,
                None => {
                    queue.threads -= 1;
                    return;
                }
            }
        };
        let _ = catch_unwind(AssertUnwindSafe(job));
    }
}

/// The queue; every change to it is made whole under the lock, so it is consistent even if a
/// thread panicked while holding it.
fn lock(queue: &Mutex<Queue>) -> MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use super::*;

    /// Waits until the encoder's threads have ended; liveness only.
    fn until_idle(encoder: &Encoder) {
        let started = Instant::now();
        while lock(&encoder.queue).threads > 0 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "threads still running"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn jobs_run_on_encoder_threads_and_a_panic_ends_only_its_own_job() {
        let encoder = Encoder::default();
        encoder.run(Box::new(|| panic!("a job that panics")));
        let (sent, received) = mpsc::channel();
        for job in 0..10 {
            let sent = sent.clone();
            encoder.run(Box::new(move || {
                let thread = std::thread::current().name().map(str::to_owned);
                sent.send((job, thread)).unwrap();
            }));
        }
        let mut done: Vec<_> = received.iter().take(10).collect();
        done.sort();
        for (job, (ran, thread)) in done.into_iter().enumerate() {
            assert_eq!(ran, job);
            assert_eq!(thread.as_deref(), Some("skillpub-encoder"));
        }
        until_idle(&encoder);
        assert!(lock(&encoder.queue).jobs.is_empty());
    }

    #[test]
    fn no_more_threads_run_at_once_than_the_most_and_all_end_when_the_jobs_do() {
        let encoder = Encoder::default();
        let running = Arc::new(AtomicUsize::new(0));
        let most_seen = Arc::new(AtomicUsize::new(0));
        let (sent, received) = mpsc::channel();
        for _ in 0..32 {
            let (running, most_seen, sent) =
                (Arc::clone(&running), Arc::clone(&most_seen), sent.clone());
            encoder.run(Box::new(move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most_seen.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
                running.fetch_sub(1, Ordering::SeqCst);
                sent.send(()).unwrap();
            }));
        }
        assert_eq!(received.iter().take(32).count(), 32);
        let most = *encoder.most.get().unwrap();
        assert!(most >= MIN_THREADS);
        assert!(most_seen.load(Ordering::SeqCst) <= most);
        until_idle(&encoder);
    }
}
