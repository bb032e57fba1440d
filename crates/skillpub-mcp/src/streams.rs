//! [`Streams`]: the cap on the event streams an endpoint holds open.
//!
//! Two kinds of answer stay open for as long as the client likes: the `GET` stream of a
//! session (clients before 2026-07-28) and the stream of a `subscriptions/listen` request
//! (2026-07-28 clients). Each holds a connection, a task and a little memory for nothing the
//! client pays, so their number is capped
//! ([`HttpOptions::with_max_streams`](crate::HttpOptions::with_max_streams)).
//!
//! A stream takes its place ([`Slot`]) before it is answered, and gives it back when its body
//! is dropped. The session layer takes a place before it opens a session's stream, so that a
//! `GET` refused for want of one leaves the session's stream as it was. Every event stream
//! rmcp answers takes one when rmcp has answered: with JSON answers on, rmcp answers with an
//! event stream only a request that stays open (a listen, or one whose handler sends messages
//! before its result), so the cap follows what rmcp did, never what the request claims.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::combinators::BoxBody;

use crate::answers::BoxResponse;

/// The open streams and their cap.
#[derive(Debug)]
pub(crate) struct Streams {
    open: AtomicUsize,
    max: usize,
}

impl Streams {
    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            open: AtomicUsize::new(0),
            max,
        })
    }

    /// The cap.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// The streams open now.
    pub(crate) fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// A place for one more stream, if there is one.
    pub(crate) fn take(self: &Arc<Self>) -> Option<Slot> {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.max).then_some(open + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(self)))
    }
}

/// One stream's place, given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot(Arc<Streams>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// `response`, an event stream, holding `slot` until its body is dropped.
pub(crate) fn held(response: BoxResponse, slot: Slot) -> BoxResponse {
    response.map(|stream| {
        BoxBody::new(Held {
            stream,
            _slot: slot,
        })
    })
}

/// An event stream holding its place.
struct Held {
    stream: BoxBody<Bytes, Infallible>,
    _slot: Slot,
}

impl Body for Held {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.stream).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.stream.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.stream.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use http::Response;
    use http_body_util::{BodyExt, Empty};

    use super::*;

    #[test]
    fn the_cap_gives_places_until_it_is_reached_and_takes_them_back() {
        let streams = Streams::new(2);
        let first = streams.take().unwrap();
        let _second = streams.take().unwrap();
        assert!(streams.take().is_none());
        assert_eq!(streams.open(), 2);
        drop(first);
        assert!(streams.take().is_some());
    }

    #[test]
    fn a_held_stream_gives_its_place_back_with_its_body() {
        let streams = Streams::new(1);
        let response = held(Response::new(Empty::new().boxed()), streams.take().unwrap());
        assert!(streams.take().is_none());
        drop(response);
        assert!(streams.take().is_some());
    }
}
