//! The private policy of an endpoint ([`HttpOptions::with_private`](crate::HttpOptions::with_private)):
//! the headers every answer gets, and the answer to a CORS preflight.
//!
//! Every answer says `private, no-store`, so that no cache keeps one caller's skills for
//! another, and varies on the credential headers
//! ([`HttpOptions::with_credential_headers`](crate::HttpOptions::with_credential_headers)) and
//! `Origin`. A request that passed the guard with an `Origin` comes from an allowed origin,
//! which is named back with `Access-Control-Allow-Credentials: true` (never `*`, which
//! browsers refuse with credentials, and never `null`, which any sandboxed page sends).

use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE,
    CACHE_CONTROL, ORIGIN, VARY,
};
use http::{HeaderMap, HeaderName, HeaderValue, Response, StatusCode};
use http_body_util::{BodyExt, Empty};

use crate::answers::BoxResponse;
use crate::config::ConfigError;

/// `Cache-Control` of every answer of a private endpoint.
const NO_STORE: HeaderValue = HeaderValue::from_static("private, no-store");

/// The methods of the transport.
const METHODS: HeaderValue = HeaderValue::from_static("GET, POST, DELETE, OPTIONS");

/// The request headers of the transport that a page may send, besides the credential ones.
const TRANSPORT_HEADERS: &str =
    "Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID";

/// Default credential headers of a private endpoint: the ones its answers vary on, and that
/// its preflight allows a page to send (`Cookie` is never sent by a page's script, so only
/// `Authorization` is listed there).
///
/// # Example
///
/// ```
/// assert_eq!(skillpub_mcp::DEFAULT_CREDENTIAL_HEADERS, ["Authorization", "Cookie"]);
/// ```
pub const DEFAULT_CREDENTIAL_HEADERS: [&str; 2] = ["Authorization", "Cookie"];

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

/// The headers of a private endpoint that follow from its credential headers, made once.
#[derive(Debug)]
pub(crate) struct PrivateHeaders {
    /// `Origin` and the credential headers.
    vary: HeaderValue,
    /// What a preflight allows a page to send: the credential headers but `Cookie`, and the
    /// transport's.
    allow_headers: HeaderValue,
}

impl PrivateHeaders {
    /// The headers for `credential_headers`, as they were given (names are
    /// case-insensitive; people read them capitalized).
    pub(crate) fn new(credential_headers: &[String]) -> Result<Self, ConfigError> {
        if credential_headers.is_empty() {
            return Err(ConfigError::NoCredentialHeader);
        }
        let invalid = |name: &String| ConfigError::CredentialHeader(name.clone());
        for name in credential_headers {
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid(name))?;
        }
        let vary = format!("Origin, {}", credential_headers.join(", "));
        let sendable = credential_headers
            .iter()
            .filter(|name| !name.eq_ignore_ascii_case("cookie"))
            .map(String::as_str)
            .chain([TRANSPORT_HEADERS])
            .collect::<Vec<_>>()
            .join(", ");
        // Header names joined by ", " are a header value.
        let value = |text: String| HeaderValue::from_str(&text).expect("a list of header names");
        Ok(Self {
            vary: value(vary),
            allow_headers: value(sendable),
        })
    }

    /// Puts the private headers on `response`: caching, `Vary`, and CORS for `origin`.
    pub(crate) fn stamp(&self, response: &mut BoxResponse, origin: Option<HeaderValue>) {
        let headers = response.headers_mut();
        headers.insert(CACHE_CONTROL, NO_STORE);
        headers.append(VARY, self.vary.clone());
        if let Some(origin) = origin {
            headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            headers.insert(
                ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
            headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
        }
    }

    /// The answer to a CORS preflight from an allowed origin: `204` with the transport's
    /// methods and the headers a page may send (stamped by [`stamp`](Self::stamp) after).
    pub(crate) fn preflight(&self) -> BoxResponse {
        let mut response = Response::new(Empty::new().boxed());
        *response.status_mut() = StatusCode::NO_CONTENT;
        let headers = response.headers_mut();
        headers.insert(ACCESS_CONTROL_ALLOW_METHODS, METHODS);
        headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, self.allow_headers.clone());
        headers.insert(ACCESS_CONTROL_MAX_AGE, PREFLIGHT_MAX_AGE);
        response
    }
}
