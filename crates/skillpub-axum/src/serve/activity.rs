//! What each connection is doing, and the register of open connections from which the accept
//! loop reclaims connections: the oldest quiet ones first, then those whose app waits for a
//! request body, then long-lived event streams.
//!
//! A connection is *busy* while a request is in flight (from the complete head until the
//! response body is dropped by hyper) or while the socket refuses the bytes of a response
//! (hyper may have dropped a large body already and still be writing it): then it is *stalled*
//! from the first refused write after the last accepted one. A busy connection whose request
//! body has not ended is *receiving a body*, and *waiting* for it while the app asks for bytes
//! that have not come. Otherwise it is *quiet*, and then
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

/// How long a connection may stay quiet, stalled, or waiting for its request.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timeouts {
    pub(super) header_read: Duration,
    pub(super) idle: Duration,
    pub(super) send: Duration,
    /// The longest wait for the next byte of a request body.
    pub(super) body_read: Duration,
    /// The longest time for a whole request, head and body, to arrive.
    pub(super) request_read: Duration,
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
    ///
    /// The whole request must arrive within `request_read` of the moment its head began, the
    /// same moment the header timeout counts from; so a connection that was reading a head is
    /// looked at again by the end of the shorter of the two, before the request's deadline.
    pub(super) fn check(self, state: State, now: Instant) -> Check {
        let shortest = self
            .header_read
            .min(self.idle)
            .min(self.send)
            .min(self.body_read)
            .min(self.request_read);
        let horizon = now + shortest;
        let deadline = match state {
            State::Busy => return Check::At(horizon),
            State::Stalled { since } => since + self.send,
            State::ReceivingBody {
                request_since,
                waiting_since,
            } => {
                let whole = request_since + self.request_read;
                match waiting_since {
                    Some(waiting) => whole.min(waiting + self.body_read),
                    None => whole,
                }
            }
            State::ReadingHead { since } => since + self.header_read.min(self.request_read),
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
    /// A request is in flight, its body has ended (or it has none), and the socket takes the
    /// bytes of its response.
    Busy,
    /// The socket has refused the bytes of a response since `since`: the client does not read.
    Stalled { since: Instant },
    /// A request is in flight whose head began at `request_since` and whose body has not
    /// ended; the app has been waiting for its next byte since `waiting_since`, if it waits.
    ReceivingBody {
        request_since: Instant,
        waiting_since: Option<Instant>,
    },
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
    /// Request bodies that have neither ended nor been dropped by the app.
    bodies: AtomicUsize,
    /// Zero unless the app waits for body bytes; else one more than the nanoseconds since
    /// `epoch` at which it began to wait.
    body_waiting: AtomicU64,
    /// Zero unless the response in flight is an event stream; else one more than the
    /// nanoseconds since `epoch` at which it began.
    event_stream: AtomicU64,
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
            bodies: AtomicUsize::new(0),
            body_waiting: AtomicU64::new(0),
            event_stream: AtomicU64::new(0),
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
        let wait = self.wait.load(Ordering::Acquire);
        let since = self.instant(wait >> 1);
        if self.requests.load(Ordering::Acquire) > 0 {
            if self.bodies.load(Ordering::Acquire) == 0 {
                return State::Busy;
            }
            // While a request is in flight, the quiet spell's start is left as it was: the
            // moment its head began.
            let waiting = self.body_waiting.load(Ordering::Acquire);
            return State::ReceivingBody {
                request_since: since,
                waiting_since: (waiting > 0).then(|| self.instant(waiting - 1)),
            };
        }
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

    /// Whether the accept loop may close it to make room: it is quiet, or its app waits for a
    /// request body, or its response is an event stream.
    pub(super) fn is_reclaimable(&self) -> bool {
        !self.is_busy() || self.waits_for_body().is_some() || self.event_stream_since().is_some()
    }

    /// Since when the app has waited for body bytes that have not come, in nanoseconds since
    /// `epoch`, if it waits.
    fn waits_for_body(&self) -> Option<u64> {
        if self.bodies.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.body_waiting.load(Ordering::Acquire).checked_sub(1)
    }

    /// Since when the response in flight has been an event stream, in nanoseconds since
    /// `epoch`, if it is one.
    fn event_stream_since(&self) -> Option<u64> {
        self.event_stream.load(Ordering::Acquire).checked_sub(1)
    }

    /// A request body that has not ended reached the app.
    pub(super) fn body_opened(&self) {
        self.bodies.fetch_add(1, Ordering::AcqRel);
    }

    /// The app asked for body bytes that have not come: the body timeout starts, unless it
    /// already runs.
    pub(super) fn body_waits(&self) {
        if self.body_waiting.load(Ordering::Acquire) == 0 {
            self.body_waiting.store(self.nanos() + 1, Ordering::Release);
        }
    }

    /// Body bytes reached the app: it no longer waits.
    pub(super) fn body_moved(&self) {
        if self.body_waiting.load(Ordering::Acquire) != 0 {
            self.body_waiting.store(0, Ordering::Release);
        }
    }

    /// A request body ended, failed, or was dropped by the app.
    pub(super) fn body_closed(&self) {
        self.body_moved();
        self.bodies.fetch_sub(1, Ordering::AcqRel);
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
        InFlight {
            activity: Arc::clone(self),
            event_stream: false,
        }
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

    /// Asks the connection to close if it may; false if it was asked already.
    fn ask_to_close(&self) -> bool {
        if self.reclaim_requested.swap(true, Ordering::AcqRel) {
            return false;
        }
        self.reclaim.notify_one();
        true
    }

    /// Keeps a connection that was asked to close but is no longer reclaimable; it may be
    /// asked again.
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
pub(super) struct InFlight {
    activity: Arc<Activity>,
    /// Its response is an event stream.
    event_stream: bool,
}

impl InFlight {
    /// Its response is an event stream (`text/event-stream`), which lasts as long as the app
    /// has events to send: the accept loop may close it under pressure, after the quiet
    /// connections and those waiting for a body.
    pub(super) fn answered_with_event_stream(&mut self) {
        self.event_stream = true;
        let activity = &self.activity;
        activity
            .event_stream
            .store(activity.nanos() + 1, Ordering::Release);
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.event_stream {
            self.activity.event_stream.store(0, Ordering::Release);
        }
        self.activity.request_finished();
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

    /// Asks up to `at_most` connections to close, and says how many were asked: first the
    /// oldest quiet ones, as nginx reuses its oldest keep-alive connections when it runs out;
    /// then those whose app has waited longest for a request body (a client that sends
    /// nothing holds a descriptor and its body's memory, and is the slow-body attack); last
    /// the oldest event streams, whose clients reconnect by design (server-sent events retry,
    /// MCP clients listen again).
    pub(super) fn reclaim(&self, at_most: usize) -> usize {
        let register = self.lock();
        let mut asked = 0;
        for activity in register.open.values() {
            if asked == at_most {
                return asked;
            }
            if !activity.is_busy() && activity.ask_to_close() {
                asked += 1;
            }
        }
        for since in [Activity::waits_for_body, Activity::event_stream_since] {
            let mut candidates: Vec<(u64, &Arc<Activity>)> = register
                .open
                .values()
                .filter_map(|activity| Some((since(activity)?, activity)))
                .collect();
            candidates.sort_unstable_by_key(|(since, _)| *since);
            for (_, activity) in candidates {
                if asked == at_most {
                    return asked;
                }
                if activity.ask_to_close() {
                    asked += 1;
                }
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
        body_read: Duration::from_secs(20),
        request_read: Duration::from_secs(45),
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
    fn a_body_expires_after_the_body_timeout_of_waiting_or_the_request_timeout_of_its_head() {
        let head = Instant::now();
        let receiving = |waiting: Option<u64>| State::ReceivingBody {
            request_since: head,
            waiting_since: waiting.map(|at| head + secs(at)),
        };
        // The app reads nothing yet: only the whole request's bound applies.
        assert_eq!(
            TIMEOUTS.check(receiving(None), head + secs(40)),
            Check::At(head + secs(45))
        );
        assert_eq!(
            TIMEOUTS.check(receiving(None), head + secs(45)),
            Check::Expired
        );
        // Waiting since 5 s: 20 s without a byte.
        assert_eq!(
            TIMEOUTS.check(receiving(Some(5)), head + secs(24)),
            Check::At(head + secs(25))
        );
        assert_eq!(
            TIMEOUTS.check(receiving(Some(5)), head + secs(25)),
            Check::Expired
        );
        // Waiting since 30 s: the request's bound comes first.
        assert_eq!(
            TIMEOUTS.check(receiving(Some(30)), head + secs(44)),
            Check::At(head + secs(45))
        );
    }

    #[test]
    fn a_request_timeout_shorter_than_the_header_timeout_bounds_the_head_too() {
        let since = Instant::now();
        let short = Timeouts {
            request_read: secs(4),
            ..TIMEOUTS
        };
        let state = State::ReadingHead { since };
        assert_eq!(short.check(state, since), Check::At(since + secs(4)));
        assert_eq!(short.check(state, since + secs(4)), Check::Expired);
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

    #[tokio::test]
    async fn a_connection_receives_a_body_until_it_ends_and_waits_only_while_bytes_are_missing() {
        let connections = Connections::new();
        let open = connections.open();
        let activity = open.activity();
        let request = activity.request_started();
        activity.body_opened();
        let State::ReceivingBody {
            waiting_since: None,
            ..
        } = activity.state()
        else {
            panic!("not receiving: {:?}", activity.state());
        };
        assert!(!activity.is_reclaimable(), "the app is not waiting yet");
        activity.body_waits();
        assert!(matches!(
            activity.state(),
            State::ReceivingBody {
                waiting_since: Some(_),
                ..
            }
        ));
        assert!(activity.is_reclaimable());
        activity.body_moved();
        assert!(!activity.is_reclaimable());
        activity.body_waits();
        activity.body_closed();
        assert_eq!(activity.state(), State::Busy);
        assert!(!activity.is_reclaimable());
        drop(request);
        assert!(matches!(activity.state(), State::Idle { .. }));
    }

    #[tokio::test]
    async fn reclaiming_takes_quiet_connections_then_the_longest_waiting_bodies_then_the_oldest_streams()
     {
        let connections = Connections::new();
        let stream = connections.open();
        let mut streaming = stream.activity().request_started();
        streaming.answered_with_event_stream();
        let busy = connections.open();
        let _busy = busy.activity().request_started();
        let later_body = connections.open();
        let _later = later_body.activity().request_started();
        let earlier_body = connections.open();
        let _earlier = earlier_body.activity().request_started();
        for body in [&earlier_body, &later_body] {
            body.activity().body_opened();
            body.activity().body_waits();
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let quiet = connections.open();
        let asked = |open: &Open| open.activity().reclaim_requested.load(Ordering::Acquire);

        assert_eq!(connections.reclaim(2), 2);
        assert!(
            asked(&quiet) && asked(&earlier_body),
            "quiet first, then the longest wait"
        );
        assert!(!asked(&later_body) && !asked(&stream));
        assert_eq!(connections.reclaim(5), 2);
        assert!(asked(&later_body) && asked(&stream));
        assert!(!asked(&busy), "a busy connection is never asked");

        drop(streaming);
        assert_eq!(
            stream.activity().event_stream_since(),
            None,
            "the stream has ended"
        );
    }
}
