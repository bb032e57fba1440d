//! The private policy of an endpoint ([`HttpOptions::with_private`](crate::HttpOptions::with_private)):
//! the headers every answer gets, and the answer to a CORS preflight.
//!
//! Every answer says `private, no-store`, so that no cache keeps one caller's skills for
//! another, and varies on the credential headers and `Origin`. A request that passed the
//! guard with an `Origin` comes from an allowed origin, which is named back with
//! `Access-Control-Allow-Credentials: true` (never `*`, which browsers refuse with
//! credentials, and never `null`, which any sandboxed page sends).

use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE,
    CACHE_CONTROL, ORIGIN, VARY,
};
use http::{HeaderMap, HeaderValue, Response, StatusCode};
use http_body_util::{BodyExt, Empty};

use crate::answers::BoxResponse;

/// `Cache-Control` of every answer of a private endpoint.
const NO_STORE: HeaderValue = HeaderValue::from_static("private, no-store");

/// `Vary` of every answer of a private endpoint.
const VARY_CREDENTIALS: HeaderValue = HeaderValue::from_static("Origin, Authorization, Cookie");

/// The methods of the transport.
const METHODS: HeaderValue = HeaderValue::from_static("GET, POST, DELETE, OPTIONS");

/// The request headers a page may send to the transport.
const REQUEST_HEADERS: HeaderValue = HeaderValue::from_static(
    "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
);

/// The answer headers a page may read.
const EXPOSED: HeaderValue = HeaderValue::from_static("Mcp-Session-Id, Mcp-Protocol-Version");

/// How long a browser may keep a preflight's answer: two hours, Chromium's cap.
const PREFLIGHT_MAX_AGE: HeaderValue = HeaderValue::from_static("7200");

/// The `Origin` of a request the guard let through, to name back; `None` without one, or for
/// `null`.
pub(crate) fn origin(request: &HeaderMap) -> Option<HeaderValue> {
    request
        .get(ORIGIN)
        .filter(|origin| origin.as_bytes() != b"null")
        .cloned()
}

/// Puts the private headers on `response`: caching, `Vary`, and CORS for `origin`.
pub(crate) fn stamp(response: &mut BoxResponse, origin: Option<HeaderValue>) {
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, NO_STORE);
    headers.append(VARY, VARY_CREDENTIALS);
    if let Some(origin) = origin {
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
        headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
    }
}

/// The answer to a CORS preflight from an allowed origin: `204` with the transport's methods
/// and headers (stamped by [`stamp`] after).
pub(crate) fn preflight() -> BoxResponse {
    let mut response = Response::new(Empty::new().boxed());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_METHODS, METHODS);
    headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, REQUEST_HEADERS);
    headers.insert(ACCESS_CONTROL_MAX_AGE, PREFLIGHT_MAX_AGE);
    response
}
