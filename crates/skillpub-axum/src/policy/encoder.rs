//! The threads that make the encoded variants, so that no async worker ever compresses.
//!
//! Making a variant takes time in proportion to the file (a 15 MiB text file takes about half
//! a second in `br`): on an async worker it would stall every connection that worker serves.
//! The encoder runs the making on threads of its own instead, shared by every router of the
//! process: at most one per core and at least two (so a small file is not kept waiting behind
//! a large one), started when a variant is asked for, and ended once they have been idle for
//! [`IDLE`]. Keeping them that long spares the next variants the start of a thread and of its
//! memory, which costs more than compressing a small file. It needs no async runtime: the
//! router runs under any executor, with or without feature `server`.

use std::collections::VecDeque;
use std::num::NonZeroUsize;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

/// A making to run: it ends its attempt whichever way it goes (when it is dropped without
/// running too, so that a making no thread could take never leaves its waiters waiting).
pub(super) type Job = Box<dyn FnOnce() + Send>;

/// The fewest threads the encoder may run at once, whatever the number of cores.
const MIN_THREADS: usize = 2;

/// How long an encoder thread waits for another job before it ends (as long as tokio keeps
/// an idle blocking thread).
const IDLE: Duration = Duration::from_secs(10);

/// The encoder of the process.
static ENCODER: Encoder = Encoder::new(IDLE);

/// Runs `job` on an encoder thread.
pub(super) fn run(job: Job) {
    ENCODER.run(job);
}

/// Jobs, and the threads that run them.
#[derive(Debug)]
struct Encoder {
    queue: Mutex<Queue>,
    /// Wakes an idle thread when a job comes.
    queued: Condvar,
    /// How many threads may run at once: asked once, on the first job, since asking reads
    /// files on Linux (the cgroup's CPU quota).
    most: OnceLock<usize>,
    idle: Duration,
}

/// The jobs not yet taken, and the threads that take them.
struct Queue {
    jobs: VecDeque<Job>,
    threads: usize,
    /// The threads waiting for a job.
    idle: usize,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("jobs", &self.jobs.len())
            .field("threads", &self.threads)
            .field("idle", &self.idle)
            .finish()
    }
}

impl Encoder {
    const fn new(idle: Duration) -> Self {
        Self {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                threads: 0,
                idle: 0,
            }),
            queued: Condvar::new(),
            most: OnceLock::new(),
            idle,
        }
    }

    /// Runs `job` on a thread of the encoder: an idle one, or a new one while fewer than the
    /// most run, or else the first that is free. When no thread runs and none can be started
    /// (the process is out of threads), `job` is dropped, which ends its attempt.
    fn run(&'static self, job: Job) {
        let most = *self.most.get_or_init(|| {
            std::thread::available_parallelism()
                .map_or(MIN_THREADS, NonZeroUsize::get)
                .max(MIN_THREADS)
        });
        let mut queue = self.lock();
        queue.jobs.push_back(job);
        self.queued.notify_one();
        // More jobs waiting than idle threads to take them: one more thread, if allowed.
        if queue.jobs.len() <= queue.idle || queue.threads >= most {
            return;
        }
        queue.threads += 1;
        drop(queue);
        let started = std::thread::Builder::new()
            .name("skillpub-encoder".to_owned())
            .spawn(move || self.work());
        if started.is_err() {
            let mut queue = self.lock();
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

    /// An encoder thread: takes jobs, and ends once none has come for [`IDLE`]. A job that
    /// panics ends its own attempt (its waiters answer without the variant); the thread goes
    /// on with the next.
    fn work(&self) {
        let mut queue = self.lock();
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                drop(queue);
                let _ = catch_unwind(AssertUnwindSafe(job));
                queue = self.lock();
                continue;
            }
            queue.idle += 1;
            let (woken, waited) = self
                .queued
                .wait_timeout(queue, self.idle)
                .unwrap_or_else(PoisonError::into_inner);
            queue = woken;
            queue.idle -= 1;
            if waited.timed_out() && queue.jobs.is_empty() {
                queue.threads -= 1;
                return;
            }
        }
    }

    /// The queue; every change to it is made whole under the lock, so it is consistent even
    /// if a thread panicked while holding it.
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Instant;

    use super::*;

    /// An encoder of its own, whose threads end after `idle`.
    fn encoder(idle: Duration) -> &'static Encoder {
        Box::leak(Box::new(Encoder::new(idle)))
    }

    /// Waits until the encoder's threads have ended; liveness only.
    fn until_no_thread(encoder: &Encoder) {
        let started = Instant::now();
        while encoder.lock().threads > 0 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "threads still run"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn jobs_run_on_encoder_threads_and_a_panic_ends_only_its_own_job() {
        let encoder = encoder(Duration::from_millis(10));
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
        until_no_thread(encoder);
        assert!(encoder.lock().jobs.is_empty());
    }

    #[test]
    fn no_more_threads_run_at_once_than_the_most_and_an_idle_one_is_reused() {
        let encoder = encoder(Duration::from_secs(60));
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
                sent.send(std::thread::current().id()).unwrap();
            }));
        }
        assert_eq!(received.iter().take(32).count(), 32);
        let most = *encoder.most.get().unwrap();
        assert!(most >= MIN_THREADS);
        assert!(most_seen.load(Ordering::SeqCst) <= most);
        let threads = encoder.lock().threads;
        assert!((1..=most).contains(&threads));

        // Once they are idle, the next jobs start none.
        for _ in 0..4 {
            let started = Instant::now();
            while encoder.lock().idle < threads {
                assert!(
                    started.elapsed() < Duration::from_secs(60),
                    "threads still busy"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            let sent = sent.clone();
            encoder.run(Box::new(move || {
                sent.send(std::thread::current().id()).unwrap()
            }));
            received.recv().unwrap();
        }
        assert_eq!(encoder.lock().threads, threads);
    }
}
