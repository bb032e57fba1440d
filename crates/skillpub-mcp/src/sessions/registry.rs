//! [`Sessions`]: the open sessions, at most [`Limits::max`] of them, each gone once its
//! client has made no request for [`Limits::idle`].
//!
//! A session is a record of a few dozen bytes: when its client's last request began or ended,
//! how many of its requests are in progress (an open `GET` stream is one), the versions of the
//! lists at its `initialize`, and the signal that ends its stream. Nothing is queued for it:
//! what its stream tells is computed from the versions when the stream is polled.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use uuid::Uuid;

use crate::live::Versions;

/// How many sessions may be open at once, and how long one lasts after its client's last
/// request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max: usize,
    pub(crate) idle: Duration,
}

/// The sessions of one MCP endpoint. Expired sessions are dropped when their id is used
/// again, and all at once by a sweep when a session is opened or used and one is due: at
/// most every eighth of the idle time, so a sweep's cost (one pass over the sessions) is
/// spread over many requests and an expired session's place is free again within an eighth
/// of the idle time.
pub(crate) struct Sessions {
    limits: Limits,
    state: Mutex<State>,
}

/// The limits and the count, never the ids: a session id is a bearer credential.
impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("limits", &self.limits)
            .field("open", &self.len())
            .finish()
    }
}

struct State {
    open: HashMap<u128, Session>,
    /// Places held by `initialize` requests in progress, so that they cannot open more than
    /// the cap between them.
    reserved: usize,
    /// When the next sweep is due: no session expires before it, or it is an eighth of the
    /// idle time after the last sweep.
    next_sweep: Instant,
}

struct Session {
    /// When the client's last request began or ended.
    last_request: Instant,
    /// Requests of the client in progress; an open event stream counts as one.
    in_flight: u32,
    /// The versions of the lists when the session was opened: its stream tells of every list
    /// that differs from them when it opens, so nothing is lost before or between streams.
    versions: Versions,
    /// Told to end the session's event stream, when one is open.
    stream: Option<Arc<Notify>>,
}

impl Session {
    fn expired(&self, now: Instant, idle: Duration) -> bool {
        self.in_flight == 0 && now.duration_since(self.last_request) >= idle
    }
}

/// Why a session was not opened: the cap is reached, and no session can expire before
/// `retry_after` has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full {
    pub(crate) max: usize,
    pub(crate) retry_after: Duration,
}

impl Sessions {
    pub(crate) fn new(limits: Limits) -> Self {
        Self {
            limits,
            state: Mutex::new(State {
                open: HashMap::new(),
                reserved: 0,
                next_sweep: Instant::now(),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many sessions are open (expired ones included until they are swept).
    pub(crate) fn len(&self) -> usize {
        self.state().open.len()
    }

    /// A place for a session that an `initialize` in progress may open, or [`Full`].
    pub(crate) fn reserve(self: &Arc<Self>) -> Result<Reservation, Full> {
        let now = Instant::now();
        let mut state = self.state();
        state.sweep_if_due(now, self.limits.idle);
        if state.open.len() + state.reserved >= self.limits.max {
            return Err(Full {
                max: self.limits.max,
                retry_after: state.next_sweep.saturating_duration_since(now),
            });
        }
        state.reserved += 1;
        Ok(Reservation {
            sessions: Arc::clone(self),
        })
    }

    /// A request of the session `id` begins: `None` when there is no such session (never
    /// opened, ended or expired).
    pub(crate) fn enter(self: &Arc<Self>, id: &str) -> Option<InFlight> {
        let key = key(id)?;
        let mut state = self.state();
        state.begin(key, Instant::now(), self.limits.idle)?;
        Some(InFlight {
            sessions: Arc::clone(self),
            key,
            stream: None,
        })
    }

    /// The event stream of the session `id` opens, in place of the one open before (which is
    /// told to end): the request in progress that the stream is, the signal that ends it, and
    /// the versions of the lists when the session was opened. `None` when there is no such
    /// session.
    pub(crate) fn open_stream(
        self: &Arc<Self>,
        id: &str,
    ) -> Option<(InFlight, Arc<Notify>, Versions)> {
        let key = key(id)?;
        let mut state = self.state();
        let session = state.begin(key, Instant::now(), self.limits.idle)?;
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
        Some((open, ended, versions))
    }

    /// Ends the session `id` and its stream; `false` when there is no such session.
    pub(crate) fn close(&self, id: &str) -> bool {
        let Some(key) = key(id) else {
            return false;
        };
        let now = Instant::now();
        let mut state = self.state();
        match state.open.remove(&key) {
            Some(session) if !session.expired(now, self.limits.idle) => {
                if let Some(stream) = session.stream {
                    stream.notify_one();
                }
                true
            }
            _ => false,
        }
    }
}

impl State {
    /// Marks a request of the session `key` as begun; `None` (and the session dropped) when
    /// it expired.
    fn begin(&mut self, key: u128, now: Instant, idle: Duration) -> Option<&mut Session> {
        self.sweep_if_due(now, idle);
        if self.open.get(&key)?.expired(now, idle) {
            self.open.remove(&key);
            return None;
        }
        let session = self.open.get_mut(&key)?;
        session.in_flight += 1;
        session.last_request = now;
        Some(session)
    }

    /// Drops every expired session, when a sweep is due.
    fn sweep_if_due(&mut self, now: Instant, idle: Duration) {
        if now < self.next_sweep {
            return;
        }
        self.open.retain(|_, session| !session.expired(now, idle));
        // A session in progress now expires one idle time after its request ends at the
        // earliest; an idle one, one idle time after its last request.
        let earliest = self
            .open
            .values()
            .filter(|session| session.in_flight == 0)
            .map(|session| session.last_request + idle)
            .min()
            .unwrap_or(now + idle);
        self.next_sweep = earliest.max(now + idle / 8);
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
        let mut state = self.sessions.state();
        let id = loop {
            let id = Uuid::new_v4();
            if !state.open.contains_key(&id.as_u128()) {
                break id;
            }
        };
        state.open.insert(
            id.as_u128(),
            Session {
                last_request: Instant::now(),
                in_flight: 0,
                versions,
                stream: None,
            },
        );
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

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut state = self.sessions.state();
        if let Some(session) = state.open.get_mut(&self.key) {
            session.in_flight -= 1;
            session.last_request = Instant::now();
            if let (Some(mine), Some(current)) = (&self.stream, &session.stream)
                && Arc::ptr_eq(mine, current)
            {
                session.stream = None;
            }
        }
    }
}

#[cfg(test)]
mod tests;
