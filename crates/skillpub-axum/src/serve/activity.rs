//! What each connection is doing, and the register of open connections from which the accept
//! loop reclaims the oldest quiet ones.
//!
//! A connection is *busy* while a request is in flight (from the complete head until the
//! response body is dropped by hyper) or while the socket refuses the bytes of a response
//! (hyper may have dropped a large body already and still be writing it): then it is *stalled*
//! from the first refused write after the last accepted one. Otherwise it is *quiet*, and then
//! either reading a request head (since it was accepted, or since the first byte of the next
//! request) or idle between requests.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// The low bit of [`Activity::wait`]: set while a request head is being read.
const READING_HEAD: u64 = 1;

/// How long a connection may stay quiet, or stalled.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timeouts {
    pub(super) header_read: Duration,
    pub(super) idle: Duration,
    pub(super) send: Duration,
}

/// What the connection's supervisor does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    /// A timeout has passed: close the connection.
    Expired,
    /// Look again at this instant.
    At(Instant),
}

impl Timeouts {
    /// Decides from the connection's state at `now`.
    ///
    /// It never looks further ahead than the shortest timeout, so that a change of state
    /// since (a request ends, the first byte of a head arrives, a write is refused) is seen
    /// before its own deadline: a connection is closed at its deadline, never later, and
    /// nothing has to wake the supervisor on each request.
    pub(super) fn check(self, state: State, now: Instant) -> Check {
        let horizon = now + self.header_read.min(self.idle).min(self.send);
        let deadline = match state {
            State::Busy => return Check::At(horizon),
            State::Stalled { since } => since + self.send,
            State::ReadingHead { since } => since + self.header_read,
            State::Idle { since } => since + self.idle,
        };
        if now >= deadline {
            Check::Expired
        } else {
            Check::At(deadline.min(horizon))
        }
    }
}

/// A connection's state, as [`Activity::state`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// A request is in flight, and the socket takes its bytes.
    Busy,
    /// The socket has refused the bytes of a response since `since`: the client does not read.
    Stalled { since: Instant },
    /// Quiet, and waiting for the rest of a request head since `since`.
    ReadingHead { since: Instant },
    /// Quiet between two requests since `since`.
    Idle { since: Instant },
}

/// One connection's activity, updated by its I/O, its service and its response bodies, all on
/// the connection's own task, and read by the accept loop when it reclaims connections.
#[derive(Debug)]
pub(super) struct Activity {
    /// The instant that [`Activity::wait`] counts from.
    epoch: Instant,
    /// Requests whose response body hyper has not dropped yet.
    requests: AtomicUsize,
    /// Zero while the socket takes writes; else one more than the nanoseconds since `epoch`
    /// at which it began refusing them (hyper holds bytes it could not send yet).
    stalled: AtomicU64,
    /// When the current quiet spell began, in nanoseconds since `epoch`, shifted left by one,
    /// with [`READING_HEAD`] set while it is spent reading a request head.
    wait: AtomicU64,
    /// The accept loop asked this connection to close if it is quiet.
    reclaim_requested: AtomicBool,
    reclaim: Notify,
}

impl Activity {
    /// A connection accepted now, which owes a request head within the header timeout.
    fn accepted(epoch: Instant) -> Self {
        let activity = Self {
            epoch,
            requests: AtomicUsize::new(0),
            stalled: AtomicU64::new(0),
            wait: AtomicU64::new(0),
            reclaim_requested: AtomicBool::new(false),
            reclaim: Notify::new(),
        };
        activity.begin_wait(READING_HEAD);
        activity
    }

    /// The connection's state now.
    pub(super) fn state(&self) -> State {
        let stalled = self.stalled.load(Ordering::Acquire);
        if stalled > 0 {
            return State::Stalled {
                since: self.instant(stalled - 1),
            };
        }
        if self.requests.load(Ordering::Acquire) > 0 {
            return State::Busy;
        }
        let wait = self.wait.load(Ordering::Acquire);
        let since = self.instant(wait >> 1);
        if wait & READING_HEAD == 0 {
            State::Idle { since }
        } else {
            State::ReadingHead { since }
        }
    }

    /// Whether a request is in flight or a response is waiting for the socket.
    pub(super) fn is_busy(&self) -> bool {
        self.requests.load(Ordering::Acquire) > 0 || self.stalled.load(Ordering::Acquire) > 0
    }

    /// Bytes arrived: on an idle connection they begin a request head, and the header timeout
    /// starts.
    pub(super) fn bytes_read(&self) {
        if !self.is_busy() && self.wait.load(Ordering::Acquire) & READING_HEAD == 0 {
            self.begin_wait(READING_HEAD);
        }
    }

    /// A complete request head reached the service; the request is in flight until the
    /// returned guard is dropped (with the response body).
    pub(super) fn request_started(self: &Arc<Self>) -> InFlight {
        self.requests.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(self))
    }

    /// The socket accepted a write (`refused` false) or refused one (`refused` true).
    pub(super) fn wrote(&self, refused: bool) {
        if refused {
            if self.stalled.load(Ordering::Acquire) == 0 {
                self.stalled.store(self.nanos() + 1, Ordering::Release);
            }
        } else if self.stalled.swap(0, Ordering::AcqRel) > 0
            && self.requests.load(Ordering::Acquire) == 0
        {
            self.begin_wait(0);
        }
    }

    /// Waits until the accept loop asks this connection to close if it is quiet.
    pub(super) async fn reclaimed(&self) {
        self.reclaim.notified().await;
    }

    /// Keeps a connection that was asked to close but became busy meanwhile; it may be asked
    /// again.
    pub(super) fn decline_reclaim(&self) {
        self.reclaim_requested.store(false, Ordering::Release);
    }

    fn request_finished(&self) {
        let was = self.requests.fetch_sub(1, Ordering::AcqRel);
        if was == 1 && self.stalled.load(Ordering::Acquire) == 0 {
            self.begin_wait(0);
        }
    }

    /// Starts a quiet spell now, reading a head (`READING_HEAD`) or idle (`0`).
    fn begin_wait(&self, reading_head: u64) {
        self.wait
            .store((self.nanos() << 1) | reading_head, Ordering::Release);
    }

    /// Now, in nanoseconds since `epoch`; room is left for a flag bit (some 290 years).
    fn nanos(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos())
            .unwrap_or(u64::MAX)
            .min(u64::MAX >> 1)
    }

    fn instant(&self, nanos: u64) -> Instant {
        self.epoch + Duration::from_nanos(nanos)
    }
}

/// A request in flight; dropping it ends the request.
#[derive(Debug)]
pub(super) struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// The open connections in the order they were accepted.
#[derive(Debug)]
pub(super) struct Connections {
    epoch: Instant,
    register: Mutex<Register>,
}

#[derive(Debug, Default)]
struct Register {
    next: u64,
    open: BTreeMap<u64, Arc<Activity>>,
}

impl Connections {
    pub(super) fn new() -> Arc<Self> {
        Arc::new(Self {
            epoch: Instant::now(),
            register: Mutex::new(Register::default()),
        })
    }

    /// Registers a connection accepted now; it leaves the register when the guard drops.
    pub(super) fn open(self: &Arc<Self>) -> Open {
        let activity = Arc::new(Activity::accepted(self.epoch));
        let mut register = self.lock();
        let id = register.next;
        register.next += 1;
        register.open.insert(id, Arc::clone(&activity));
        Open {
            connections: Arc::clone(self),
            id,
            activity,
        }
    }

    /// Asks up to `at_most` of the oldest quiet connections to close, as nginx reuses its
    /// oldest keep-alive connections when it runs out; says how many were asked.
    pub(super) fn reclaim(&self, at_most: usize) -> usize {
        let register = self.lock();
        let mut asked = 0;
        for activity in register.open.values() {
            if asked == at_most {
                break;
            }
            if !activity.is_busy() && !activity.reclaim_requested.swap(true, Ordering::AcqRel) {
                activity.reclaim.notify_one();
                asked += 1;
            }
        }
        asked
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Register> {
        // Nothing panics while the lock is held; a poisoned register is still consistent.
        self.register.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A registered connection.
#[derive(Debug)]
pub(super) struct Open {
    connections: Arc<Connections>,
    id: u64,
    activity: Arc<Activity>,
}

impl Open {
    pub(super) fn activity(&self) -> &Arc<Activity> {
        &self.activity
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.connections.lock().open.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMEOUTS: Timeouts = Timeouts {
        header_read: Duration::from_secs(10),
        idle: Duration::from_secs(60),
        send: Duration::from_secs(30),
    };

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    #[test]
    fn a_head_that_is_still_being_read_expires_after_the_header_timeout() {
        let since = Instant::now();
        let state = State::ReadingHead { since };
        assert_eq!(TIMEOUTS.check(state, since), Check::At(since + secs(10)));
        assert_eq!(
            TIMEOUTS.check(state, since + secs(9)),
            Check::At(since + secs(10))
        );
        assert_eq!(TIMEOUTS.check(state, since + secs(10)), Check::Expired);
    }

    #[test]
    fn an_idle_connection_is_looked_at_within_the_shorter_timeout_and_expires_after_the_idle_one() {
        let since = Instant::now();
        let state = State::Idle { since };
        assert_eq!(TIMEOUTS.check(state, since), Check::At(since + secs(10)));
        assert_eq!(
            TIMEOUTS.check(state, since + secs(55)),
            Check::At(since + secs(60))
        );
        assert_eq!(TIMEOUTS.check(state, since + secs(60)), Check::Expired);
    }

    #[test]
    fn a_stalled_response_expires_after_the_send_timeout() {
        let since = Instant::now();
        let state = State::Stalled { since };
        assert_eq!(
            TIMEOUTS.check(state, since + secs(25)),
            Check::At(since + secs(30))
        );
        assert_eq!(TIMEOUTS.check(state, since + secs(30)), Check::Expired);
    }

    #[test]
    fn a_busy_connection_never_expires() {
        let now = Instant::now();
        assert_eq!(TIMEOUTS.check(State::Busy, now), Check::At(now + secs(10)));
    }

    #[tokio::test]
    async fn a_connection_is_busy_from_the_head_until_the_response_is_written() {
        let connections = Connections::new();
        let open = connections.open();
        let activity = open.activity();
        assert!(matches!(activity.state(), State::ReadingHead { .. }));

        let request = activity.request_started();
        assert_eq!(activity.state(), State::Busy);
        activity.wrote(true);
        let State::Stalled { since } = activity.state() else {
            panic!("not stalled: {:?}", activity.state());
        };
        activity.wrote(true);
        assert_eq!(
            activity.state(),
            State::Stalled { since },
            "still the first refusal"
        );
        drop(request);
        assert!(activity.is_busy(), "the socket still owes bytes");
        activity.wrote(false);
        assert!(matches!(activity.state(), State::Idle { .. }));

        activity.bytes_read();
        assert!(matches!(activity.state(), State::ReadingHead { .. }));
    }

    #[tokio::test]
    async fn reclaiming_asks_the_oldest_quiet_connections_once() {
        let connections = Connections::new();
        let oldest = connections.open();
        let busy = connections.open();
        let _request = busy.activity().request_started();
        let newest = connections.open();

        assert_eq!(connections.reclaim(1), 1);
        assert!(oldest.activity().reclaim_requested.load(Ordering::Acquire));
        assert!(!busy.activity().reclaim_requested.load(Ordering::Acquire));
        assert!(!newest.activity().reclaim_requested.load(Ordering::Acquire));

        assert_eq!(connections.reclaim(5), 1, "the busy one is left alone");
        assert!(newest.activity().reclaim_requested.load(Ordering::Acquire));
        assert_eq!(connections.reclaim(5), 0, "each is asked once");

        drop(oldest);
        assert_eq!(connections.lock().open.len(), 2);
    }
}
