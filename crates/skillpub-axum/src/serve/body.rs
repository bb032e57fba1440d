//! Request bodies: the memory they hold, counted against one budget shared by every
//! connection, and the time the app waits for their bytes, told to the connection's
//! [`Activity`] so that the body timeouts apply and the accept loop can reclaim it.
//!
//! A body that finds no room in the budget is refused (`503` with `Retry-After`), never held
//! back to wait for room: bodies that each hold part of the budget and wait for more would
//! wait for one another until the body timeout closed one of them, while a client told to
//! retry does so at once. A client that fills the budget has to send the bytes, and is closed
//! by the body and request timeouts. A body larger than the whole budget can never fit, and
//! is refused for good (`413`), so that its client does not retry.

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
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

    /// Why a body that is not empty, of `size` as hyper read its framing, may not reach the
    /// app: a length larger than the whole budget can never fit; one larger than the room left
    /// now, or a body of unknown length (chunked) when no room is left, must wait for others
    /// to finish.
    pub(super) fn refusal(&self, size: &SizeHint) -> Option<Refusal> {
        let needed = size.exact().unwrap_or(1);
        if needed > self.total as u64 {
            Some(Refusal::TooLarge)
        } else if needed > self.room.load(Ordering::Acquire) as u64 {
            Some(Refusal::NoRoom)
        } else {
            None
        }
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

/// Why the server answers a request itself, in place of the app. Either answer closes the
/// connection, since the rest of the body is not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The body is larger than the whole budget: it can never fit (`413`).
    TooLarge,
    /// The body finds no room now: `503`, retry in a second.
    NoRoom,
}

impl Refusal {
    /// The server's answer, which a page of any origin may read.
    pub(super) fn response(self) -> Response<Body> {
        let (status, message) = match self {
            Self::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is larger than this server takes at once\n",
            ),
            Self::NoRoom => (
                StatusCode::SERVICE_UNAVAILABLE,
                "the server holds as many request bodies as it takes at once; retry shortly\n",
            ),
        };
        let mut response = Response::new(Body::from(message));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        if self == Self::NoRoom {
            headers.insert(
                header::RETRY_AFTER,
                HeaderValue::from_static(RETRY_AFTER_SECONDS),
            );
            headers.insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static("Retry-After"),
            );
        }
        response
    }

    /// The server's answer in place of `replaced`, the app's answer to a request whose body
    /// the server refused: if the app gave this origin CORS headers, its policy stands (its
    /// `Access-Control-Allow-Origin`, `Access-Control-Allow-Credentials` and `Vary`, and the
    /// headers it exposes, with `Retry-After` added).
    pub(super) fn replacing(self, replaced: &HeaderMap) -> Response<Body> {
        let mut response = self.response();
        let Some(origin) = replaced.get(header::ACCESS_CONTROL_ALLOW_ORIGIN) else {
            return response;
        };
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        for name in [header::ACCESS_CONTROL_ALLOW_CREDENTIALS, header::VARY] {
            for value in replaced.get_all(&name) {
                headers.append(name.clone(), value.clone());
            }
        }
        let exposed = replaced
            .get_all(header::ACCESS_CONTROL_EXPOSE_HEADERS)
            .iter()
            .map(HeaderValue::as_bytes)
            .collect::<Vec<_>>();
        if !exposed.is_empty() {
            let mut list = exposed.join(&b", "[..]);
            if self == Self::NoRoom {
                list.extend_from_slice(b", Retry-After");
            }
            // Header values joined by commas are a header value.
            if let Ok(list) = HeaderValue::from_bytes(&list) {
                headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, list);
            }
        }
        response
    }
}

/// The body bytes one request has taken from the budget, given back when the last of its
/// holders (the request until its response head, the body until it ends) lets go; and why its
/// body was refused, if it was, so that the server answers in place of the app.
#[derive(Debug)]
pub(super) struct Charge {
    budget: Arc<Budget>,
    bytes: AtomicUsize,
    /// Set once, when the body is refused (it then ends for the app).
    refused: OnceLock<Refusal>,
}

impl Charge {
    pub(super) fn new(budget: &Arc<Budget>) -> Arc<Self> {
        Arc::new(Self {
            budget: Arc::clone(budget),
            bytes: AtomicUsize::new(0),
            refused: OnceLock::new(),
        })
    }

    /// Why the body was refused some of its bytes, if it was.
    pub(super) fn refusal(&self) -> Option<Refusal> {
        self.refused.get().copied()
    }

    /// Counts `n` more bytes of the body, or says why they may not reach the app: with them
    /// the body would be larger than the whole budget, or they find no room now.
    fn take(&self, n: usize) -> Result<(), Refusal> {
        let taken = self.bytes.load(Ordering::Acquire);
        let refusal = if taken.saturating_add(n) > self.budget.total {
            Refusal::TooLarge
        } else if self.budget.take(n) {
            self.bytes.fetch_add(n, Ordering::AcqRel);
            return Ok(());
        } else {
            Refusal::NoRoom
        };
        let _ = self.refused.set(refusal);
        Err(refusal)
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
    /// The server refused the next bytes, and answers in place of the app.
    Refused(Refusal),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Hyper(error) => fmt::Display::fmt(error, f),
            Self::Refused(Refusal::TooLarge) => {
                f.write_str("the request body is larger than the server's budget for bodies")
            }
            Self::Refused(Refusal::NoRoom) => {
                f.write_str("the server's budget for request bodies is full")
            }
        }
    }
}

impl error::Error for BodyError {
    fn source(&self) -> Option<&(dyn error::Error + 'static)> {
        match self {
            Self::Hyper(error) => Some(error),
            Self::Refused(_) => None,
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
        if let Err(refusal) = receiving.charge.take(bytes) {
            this.close();
            return Poll::Ready(Some(Err(BodyError::Refused(refusal))));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_length_beyond_the_budget_never_fits_and_one_beyond_the_room_left_waits() {
        let budget = Budget::new(1000);
        let exact = SizeHint::with_exact;
        assert_eq!(budget.refusal(&exact(1001)), Some(Refusal::TooLarge));
        assert_eq!(budget.refusal(&exact(1000)), None);
        assert!(budget.take(600));
        assert_eq!(budget.refusal(&exact(401)), Some(Refusal::NoRoom));
        assert_eq!(budget.refusal(&exact(400)), None);
        // A chunked body, of unknown length, is let in while any room is left.
        assert_eq!(budget.refusal(&SizeHint::new()), None);
        assert!(budget.take(400));
        assert_eq!(budget.refusal(&SizeHint::new()), Some(Refusal::NoRoom));
    }

    #[test]
    fn a_body_growing_past_the_whole_budget_is_too_large_and_one_that_finds_no_room_waits() {
        let budget = Budget::new(1000);
        let other = Charge::new(&budget);
        other.take(300).unwrap();
        let charge = Charge::new(&budget);
        charge.take(600).unwrap();
        assert_eq!(charge.take(200), Err(Refusal::NoRoom), "100 bytes left");
        assert_eq!(charge.refusal(), Some(Refusal::NoRoom));
        drop(charge);

        // Alone in the budget, a body of 1,001 bytes still cannot fit.
        drop(other);
        let alone = Charge::new(&budget);
        alone.take(1000).unwrap();
        assert_eq!(alone.take(1), Err(Refusal::TooLarge));
        assert_eq!(alone.refusal(), Some(Refusal::TooLarge));
        drop(alone);
        assert_eq!(
            budget.room.load(Ordering::Acquire),
            1000,
            "every byte given back"
        );
    }

    #[test]
    fn the_servers_answers_are_readable_from_any_origin_and_a_replacement_keeps_the_apps_cors() {
        let too_large = Refusal::TooLarge.response();
        assert_eq!(too_large.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(
            too_large.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "*"
        );
        assert!(!too_large.headers().contains_key(header::RETRY_AFTER));
        let no_room = Refusal::NoRoom.response();
        assert_eq!(no_room.headers()[header::RETRY_AFTER], "1");
        assert_eq!(
            no_room.headers()[header::ACCESS_CONTROL_EXPOSE_HEADERS],
            "Retry-After"
        );

        // An app without CORS headers: the server's stand.
        let replaced = Refusal::NoRoom.replacing(&HeaderMap::new());
        assert_eq!(replaced.headers(), no_room.headers());

        // An app that lets one origin read its answers with credentials.
        let mut app = HeaderMap::new();
        app.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("https://app.example"),
        );
        app.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
        app.insert(header::VARY, HeaderValue::from_static("Origin"));
        let replaced = Refusal::NoRoom.replacing(&app);
        let headers = replaced.headers();
        assert_eq!(
            headers[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "https://app.example"
        );
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_CREDENTIALS], "true");
        assert_eq!(headers[header::VARY], "Origin");
        assert_eq!(
            headers[header::ACCESS_CONTROL_EXPOSE_HEADERS],
            "Retry-After"
        );

        // The headers it exposes, in two lines, are one list with the server's.
        app.append(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("X-One"),
        );
        app.append(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("X-Two"),
        );
        let replaced = Refusal::NoRoom.replacing(&app);
        assert_eq!(
            replaced.headers()[header::ACCESS_CONTROL_EXPOSE_HEADERS],
            "X-One, X-Two, Retry-After"
        );
        let replaced = Refusal::TooLarge.replacing(&app);
        assert_eq!(
            replaced.headers()[header::ACCESS_CONTROL_EXPOSE_HEADERS],
            "X-One, X-Two"
        );
    }
}
