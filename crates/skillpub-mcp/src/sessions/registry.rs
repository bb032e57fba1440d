//! [`Sessions`]: the open sessions, at most [`Limits::max`] of them, each gone once its
//! client has made no request for [`Limits::idle`].
//!
//! A session is a small record: when its client's last request began or ended, how many of
//! its requests are in progress (an open `GET` stream is one), the versions of the lists its
//! streams have told, and the signal that ends its stream. Nothing is queued for it: what its
//! stream tells is computed from the versions when the stream is polled.
//!
//! The sessions with no request in progress are also kept in the order of their last
//! request. The first of that order is the next to expire, so expired sessions are dropped
//! as soon as the table is used, one look each; and it is the one a full table ends to make
//! room for a new session, so that a flood of `initialize`s, which can fill any table, only
//! ever ends the sessions idle the longest, never one in use: their clients get `404` and
//! initialize again, as the transport says. Only when every session is busy is an
//! `initialize` refused.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use uuid::Uuid;

use crate::live::{List, Versions};

/// How many sessions may be open at once, and how long one lasts after its client's last
/// request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max: usize,
    pub(crate) idle: Duration,
}

/// The sessions of one MCP endpoint.
pub(crate) struct Sessions {
    limits: Limits,
    clock: Clock,
    state: Mutex<State>,
}

/// The limits and the count, never the ids: a session id is a bearer credential.
impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("limits", &self.limits)
            .field("open", &self.len())
            .finish_non_exhaustive()
    }
}

/// Where the sessions read the time: the system's monotonic clock, or in unit tests one that
/// moves only when told, so that no test depends on how fast it runs.
#[derive(Debug, Clone)]
pub(crate) enum Clock {
    System,
    #[cfg(test)]
    Manual(Arc<Mutex<Instant>>),
}

impl Clock {
    fn now(&self) -> Instant {
        match self {
            Self::System => Instant::now(),
            #[cfg(test)]
            Self::Manual(now) => *now.lock().unwrap_or_else(PoisonError::into_inner),
        }
    }
}

struct State {
    open: HashMap<u128, Session>,
    /// The sessions with no request in progress, by their last request: the least recently
    /// used first.
    idle: BTreeSet<(Instant, u128)>,
    /// Places held by `initialize` requests in progress, so that they cannot open more than
    /// the cap between them.
    reserved: usize,
}

struct Session {
    /// When the client's last request began or ended.
    last_request: Instant,
    /// Requests of the client in progress; an open event stream counts as one.
    in_flight: u32,
    /// The versions of the lists this session's streams have told (those of its
    /// `initialize` until one has): a stream tells of every list that differs from them when
    /// it opens, so nothing is lost before or between streams, and nothing told twice.
    versions: Versions,
    /// Told to end the session's event stream, when one is open.
    stream: Option<Arc<Notify>>,
}

/// Why a session was not opened: every one of the `max` sessions is busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AllBusy {
    pub(crate) max: usize,
}

/// Why a session's stream was not opened.
#[derive(Debug)]
pub(crate) enum NoStream {
    /// No such session (never opened, ended or expired).
    NoSession,
    /// The stream was not admitted (no place among the open streams): the session, and its
    /// stream if one is open, are as they were.
    NotAdmitted,
}

impl Sessions {
    pub(crate) fn new(limits: Limits) -> Self {
        Self::with_clock(limits, Clock::System)
    }

    pub(crate) fn with_clock(limits: Limits, clock: Clock) -> Self {
        Self {
            limits,
            clock,
            state: Mutex::new(State {
                open: HashMap::new(),
                idle: BTreeSet::new(),
                reserved: 0,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many sessions are open.
    pub(crate) fn len(&self) -> usize {
        self.state().open.len()
    }

    /// A place for a session that an `initialize` in progress may open: a free one, or the
    /// place of the least recently used idle session, which ends. [`AllBusy`] when every
    /// session has a request in progress.
    pub(crate) fn reserve(self: &Arc<Self>) -> Result<Reservation, AllBusy> {
        let mut state = self.state();
        state.expire(self.clock.now(), self.limits.idle);
        if state.open.len() + state.reserved >= self.limits.max {
            let Some((_, key)) = state.idle.pop_first() else {
                return Err(AllBusy {
                    max: self.limits.max,
                });
            };
            state.open.remove(&key);
        }
        state.reserved += 1;
        Ok(Reservation {
            sessions: Arc::clone(self),
        })
    }

    /// A request of the session `id` begins: `None` when there is no such session.
    pub(crate) fn enter(self: &Arc<Self>, id: &str) -> Option<InFlight> {
        let key = key(id)?;
        let mut state = self.state();
        state.begin(key, self.clock.now(), self.limits.idle)?;
        Some(InFlight {
            sessions: Arc::clone(self),
            key,
            stream: None,
        })
    }

    /// The event stream of the session `id` opens, once `admit` gives it what it needs (its
    /// place among the open streams), in place of the stream open before, which is told to
    /// end: the request in progress that the stream is, the signal that ends it, the
    /// versions its session's streams have told, and what `admit` gave.
    pub(crate) fn open_stream<T>(
        self: &Arc<Self>,
        id: &str,
        admit: impl FnOnce() -> Option<T>,
    ) -> Result<(InFlight, Arc<Notify>, Versions, T), NoStream> {
        let key = key(id).ok_or(NoStream::NoSession)?;
        let mut state = self.state();
        state.expire(self.clock.now(), self.limits.idle);
        if !state.open.contains_key(&key) {
            return Err(NoStream::NoSession);
        }
        let admitted = admit().ok_or(NoStream::NotAdmitted)?;
        let session = state
            .begin(key, self.clock.now(), self.limits.idle)
            .ok_or(NoStream::NoSession)?;
        let ended = Arc::new(Notify::new());
        if let Some(before) = session.stream.replace(Arc::clone(&ended)) {
            before.notify_one();
        }
        let versions = session.versions;
        let open = InFlight {
            sessions: Arc::clone(self),
            key,
            stream: Some(Arc::clone(&ended)),
        };
        Ok((open, ended, versions, admitted))
    }

    /// Ends the session `id` and its stream; `false` when there is no such session.
    pub(crate) fn close(&self, id: &str) -> bool {
        let Some(key) = key(id) else {
            return false;
        };
        let mut state = self.state();
        state.expire(self.clock.now(), self.limits.idle);
        let Some(session) = state.open.remove(&key) else {
            return false;
        };
        if session.in_flight == 0 {
            state.idle.remove(&(session.last_request, key));
        }
        if let Some(stream) = session.stream {
            stream.notify_one();
        }
        true
    }
}

impl State {
    /// Drops every session idle for `idle` or longer: the first ones of [`State::idle`].
    fn expire(&mut self, now: Instant, idle: Duration) {
        while let Some(&(last, key)) = self.idle.first() {
            if now.duration_since(last) < idle {
                break;
            }
            self.idle.pop_first();
            self.open.remove(&key);
        }
    }

    /// Marks a request of the session `key` as begun; `None` when there is no such session.
    fn begin(&mut self, key: u128, now: Instant, idle: Duration) -> Option<&mut Session> {
        self.expire(now, idle);
        let session = self.open.get_mut(&key)?;
        if session.in_flight == 0 {
            self.idle.remove(&(session.last_request, key));
        }
        session.in_flight += 1;
        session.last_request = now;
        Some(session)
    }
}

/// The session id of a header value: a UUID in any of its forms.
fn key(id: &str) -> Option<u128> {
    Uuid::try_parse(id).ok().map(|id| id.as_u128())
}

/// A place held for a session while its `initialize` is answered; given back when dropped
/// without [`open`](Self::open).
#[derive(Debug)]
pub(crate) struct Reservation {
    sessions: Arc<Sessions>,
}

impl Reservation {
    /// Opens the session, with the versions of the lists it starts from; its id (a random
    /// UUID, as the transport asks: globally unique and hard to guess).
    pub(crate) fn open(self, versions: Versions) -> String {
        let now = self.sessions.clock.now();
        let mut state = self.sessions.state();
        let id = loop {
            let id = Uuid::new_v4();
            if !state.open.contains_key(&id.as_u128()) {
                break id;
            }
        };
        let key = id.as_u128();
        state.open.insert(
            key,
            Session {
                last_request: now,
                in_flight: 0,
                versions,
                stream: None,
            },
        );
        state.idle.insert((now, key));
        drop(state);
        // The place is the session's now; dropping `self` gives back the reservation's count.
        id.hyphenated().to_string()
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.sessions.state().reserved -= 1;
    }
}

/// A request of a session in progress (or its open event stream): when dropped, the request
/// has ended, and the session's idle time starts again from now.
#[derive(Debug)]
pub(crate) struct InFlight {
    sessions: Arc<Sessions>,
    key: u128,
    /// For an event stream, the signal that ends it: the session forgets it when it ends.
    stream: Option<Arc<Notify>>,
}

impl InFlight {
    /// The session's stream has told that `list` changed, up to its version in `now`: the
    /// session's next stream does not tell it again.
    pub(crate) fn told(&self, list: List, now: Versions) {
        if let Some(session) = self.sessions.state().open.get_mut(&self.key) {
            session.versions = session.versions.told(list, now);
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let now = self.sessions.clock.now();
        let mut state = self.sessions.state();
        let Some(session) = state.open.get_mut(&self.key) else {
            return;
        };
        session.in_flight -= 1;
        session.last_request = now;
        if let (Some(mine), Some(current)) = (&self.stream, &session.stream)
            && Arc::ptr_eq(mine, current)
        {
            session.stream = None;
        }
        if session.in_flight == 0 {
            state.idle.insert((now, self.key));
        }
    }
}

#[cfg(test)]
mod tests;
