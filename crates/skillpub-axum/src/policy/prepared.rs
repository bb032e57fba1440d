//! A prepared answer, and how it is sent: with its content and `Content-Length`, or, for a
//! `304` or `204`, without either.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use http::header::CONTENT_LENGTH;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode};
use http_body::Frame;

/// A complete answer: status, headers and content, all prepared.
#[derive(Debug)]
pub(super) struct Prepared {
    status: StatusCode,
    headers: HeaderMap,
    /// `None` for an answer that has no content at all (`304`, `204`), as opposed to content
    /// of zero bytes.
    content: Option<Bytes>,
}

impl Prepared {
    /// An answer with content; `Content-Length` is set to its length.
    pub(super) fn with_content(status: StatusCode, mut headers: HeaderMap, content: Bytes) -> Self {
        headers.insert(CONTENT_LENGTH, HeaderValue::from(content.len()));
        Self {
            status,
            headers,
            content: Some(content),
        }
    }

    /// An answer without content, a `304` or a `204`: it never carries `Content-Length`. A
    /// `204` must not (RFC 9110, 8.6), and on a `304` hyper drops it from the answer to `GET`
    /// but keeps it on `HEAD`, so sending it would break GET/HEAD parity.
    pub(super) fn without_content(status: StatusCode, mut headers: HeaderMap) -> Self {
        headers.remove(CONTENT_LENGTH);
        Self {
            status,
            headers,
            content: None,
        }
    }

    /// A response without content (a `304` or a `204`) with these headers, none of which may
    /// be `Content-Length` (see [`without_content`](Self::without_content)).
    pub(super) fn bodiless(status: StatusCode, headers: HeaderMap) -> Response<Body> {
        let mut response = Response::new(Body::new(Bodiless));
        *response.status_mut() = status;
        *response.headers_mut() = headers;
        response
    }

    /// Copies the answer into a response to `method`: the status, the header map
    /// (reference-counted values) and the content, except for `HEAD`, which gets the same
    /// headers and no body.
    pub(super) fn response(&self, method: &Method) -> Response<Body> {
        let body = match &self.content {
            None => Body::new(Bodiless),
            Some(_) if method == Method::HEAD => Body::empty(),
            Some(content) => Body::from(content.clone()),
        };
        let mut response = Response::new(body);
        *response.status_mut() = self.status;
        *response.headers_mut() = self.headers.clone();
        response
    }
}

/// The body of a `304` or `204`: empty, and without a known length, so that no layer adds the
/// `Content-Length: 0` that such answers must not carry.
struct Bodiless;

impl http_body::Body for Bodiless {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(None)
    }
}
