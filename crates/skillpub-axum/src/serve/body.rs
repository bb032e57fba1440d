//! Request bodies: the memory they hold, counted against one budget shared by every
//! connection, and the time the app waits for their bytes, told to the connection's
//! [`Activity`] so that the body timeouts apply and the accept loop can reclaim it.
//!
//! A body that finds no room in the budget is refused (`503` with `Retry-After`), never held
//! back to wait for room: bodies that each hold part of the budget and wait for more would
//! wait for one another until the body timeout closed one of them, while a client told to
//! retry does so at once. A client that fills the budget has to send the bytes, and is closed
//! by the body and request timeouts.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::{error, fmt};

use axum::body::Body;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;

use super::activity::Activity;

/// `Retry-After` on a `503` for want of room: bodies in flight are done within moments, or
/// closed by the body timeouts.
const RETRY_AFTER_SECONDS: &str = "1";

/// The bytes of request bodies that the app may hold at once, across every connection.
///
/// Each body byte handed to the app is taken from the budget and given back once the app has
/// answered (the response head) and the body has ended or been dropped, whichever is later:
/// the app may keep the body until it answers, as a `Bytes` extractor or rmcp's JSON parser
/// do, but what it sends after its head (an event stream, a large answer read slowly) is its
/// answer, not the request body.
#[derive(Debug)]
pub(super) struct Budget {
    /// The bytes not taken.
    room: AtomicUsize,
    total: usize,
}

impl Budget {
    pub(super) fn new(total: usize) -> Arc<Self> {
        Arc::new(Self {
            room: AtomicUsize::new(total),
            total,
        })
    }

    /// The answer that replaces the app's for a request whose head is `headers` and whose body
    /// is not empty, if it may not reach the app: a declared length larger than the whole
    /// budget can never fit (`413`), and one larger than the room left now, or a body of
    /// unknown length when no room is left, must wait for others to finish (`503` with
    /// `Retry-After`). Either answer closes the connection, since the body is not read.
    pub(super) fn refusal(&self, headers: &HeaderMap) -> Option<Response<Body>> {
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
        let needed = declared.unwrap_or(1);
        if needed > self.total as u64 {
            return Some(refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is larger than this server takes at once\n",
            ));
        }
        (needed > self.room.load(Ordering::Acquire) as u64).then(no_room)
    }

    /// Takes `n` bytes if there is room.
    fn take(&self, n: usize) -> bool {
        self.room
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |room| {
                room.checked_sub(n)
            })
            .is_ok()
    }

    fn give_back(&self, n: usize) {
        self.room.fetch_add(n, Ordering::AcqRel);
    }
}

/// The answer to a request whose body finds no room: `503`, retry in a second.
pub(super) fn no_room() -> Response<Body> {
    let mut response = refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "the server holds as many request bodies as it takes at once; retry shortly\n",
    );
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_static(RETRY_AFTER_SECONDS),
    );
    response
}

/// A short plain-text answer that closes the connection.
fn refusal(status: StatusCode, message: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from(message));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The body bytes one request has taken from the budget, given back when the last of its
/// holders (the request until its response head, the body until it ends) lets go; and
/// whether its body was refused for want of room, so that the server answers `503` in place
/// of the app.
#[derive(Debug)]
pub(super) struct Charge {
    budget: Arc<Budget>,
    bytes: AtomicUsize,
    refused: AtomicBool,
}

impl Charge {
    pub(super) fn new(budget: &Arc<Budget>) -> Arc<Self> {
        Arc::new(Self {
            budget: Arc::clone(budget),
            bytes: AtomicUsize::new(0),
            refused: AtomicBool::new(false),
        })
    }

    /// Whether the body found no room for some of its bytes.
    pub(super) fn was_refused(&self) -> bool {
        self.refused.load(Ordering::Acquire)
    }

    /// Counts `n` more bytes of the body, or records that they found no room.
    fn take(&self, n: usize) -> bool {
        if self.budget.take(n) {
            self.bytes.fetch_add(n, Ordering::AcqRel);
            true
        } else {
            self.refused.store(true, Ordering::Release);
            false
        }
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.budget.give_back(*self.bytes.get_mut());
    }
}

/// Why the app could not read a request body.
#[derive(Debug)]
pub(super) enum BodyError {
    /// As hyper says: the client went away, or sent a malformed body.
    Hyper(hyper::Error),
    /// The body budget had no room for the next bytes; the server answers `503`.
    NoRoom,
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Hyper(error) => fmt::Display::fmt(error, f),
            Self::NoRoom => f.write_str("the server's budget for request bodies is full"),
        }
    }
}

impl error::Error for BodyError {
    fn source(&self) -> Option<&(dyn error::Error + 'static)> {
        match self {
            Self::Hyper(error) => Some(error),
            Self::NoRoom => None,
        }
    }
}

/// What a body that has not ended needs besides hyper's.
struct Receiving {
    activity: Arc<Activity>,
    charge: Arc<Charge>,
}

/// A request body as the app reads it: hyper's, with each data frame charged to the budget
/// before the app gets it, and the app's waits told to the connection.
pub(super) struct RequestBody {
    inner: Incoming,
    /// `None` for a body that was empty from the start, or once it has ended.
    receiving: Option<Receiving>,
}

impl RequestBody {
    /// `inner` as the app will read it; `charge` is `Some` unless the body is empty.
    pub(super) fn new(
        inner: Incoming,
        activity: &Arc<Activity>,
        charge: Option<Arc<Charge>>,
    ) -> Self {
        let receiving = charge.map(|charge| {
            activity.body_opened();
            Receiving {
                activity: Arc::clone(activity),
                charge,
            }
        });
        Self { inner, receiving }
    }

    /// The body has ended, failed or been refused: the connection no longer receives it.
    fn close(&mut self) {
        if let Some(receiving) = self.receiving.take() {
            receiving.activity.body_closed();
        }
    }
}

impl Drop for RequestBody {
    fn drop(&mut self) {
        self.close();
    }
}

impl http_body::Body for RequestBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = &mut *self;
        let next = Pin::new(&mut this.inner).poll_frame(cx);
        let Some(receiving) = &this.receiving else {
            return next.map_err(BodyError::Hyper);
        };
        let frame = match next {
            Poll::Pending => {
                receiving.activity.body_waits();
                return Poll::Pending;
            }
            Poll::Ready(Some(Ok(frame))) => frame,
            Poll::Ready(ended) => {
                this.close();
                return Poll::Ready(ended.map(|result| result.map_err(BodyError::Hyper)));
            }
        };
        let bytes = frame.data_ref().map_or(0, Bytes::len);
        if !receiving.charge.take(bytes) {
            this.close();
            return Poll::Ready(Some(Err(BodyError::NoRoom)));
        }
        receiving.activity.body_moved();
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
