//! The HTTP policy, all of it: content types, caching, validators, CORS and error bodies.
//!
//! Every header value is built here once, when the router is built; requests only copy them.

use bytes::Bytes;
use http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ALLOW, CACHE_CONTROL, CONTENT_LENGTH,
    CONTENT_TYPE, ETAG, HeaderName, X_CONTENT_TYPE_OPTIONS,
};
use http::{HeaderMap, HeaderValue, StatusCode};
use skillpub_core::Digest;

/// `Content-Type` of error bodies.
const JSON: HeaderValue = HeaderValue::from_static(skillpub_core::JSON);

/// Default `Cache-Control` of `200` and `304` answers.
///
/// Five minutes bounds how long a cached index and a cached `SKILL.md` can disagree after a
/// deploy: a client that holds an old index and fetches a new `SKILL.md` (or the reverse)
/// sees a digest mismatch and drops the skill until both expire.
pub const DEFAULT_CACHE_CONTROL: HeaderValue = HeaderValue::from_static("public, max-age=300");

/// Default `Cache-Control` of `404` and `405` answers: short, so that a skill added by a
/// deploy is not hidden behind a cached `404`.
pub const DEFAULT_ERROR_CACHE_CONTROL: HeaderValue = HeaderValue::from_static("public, max-age=10");

/// Default `Access-Control-Max-Age` of preflight answers, in seconds (one day).
pub const DEFAULT_CORS_MAX_AGE: u32 = 86_400;

/// The methods every route answers, as the `Allow` and `Access-Control-Allow-Methods` value.
pub const ALLOWED_METHODS: HeaderValue = HeaderValue::from_static("GET, HEAD, OPTIONS");

const ANY_ORIGIN: HeaderValue = HeaderValue::from_static("*");
const EXPOSED: HeaderValue = HeaderValue::from_static("ETag");
const REQUEST_HEADERS: HeaderValue = HeaderValue::from_static("If-None-Match");
const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");

/// The header policy's settings; see [`RouterBuilder`](crate::RouterBuilder) for each.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    pub(crate) cache_control: HeaderValue,
    pub(crate) error_cache_control: HeaderValue,
    pub(crate) cors_max_age: u32,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            cache_control: DEFAULT_CACHE_CONTROL,
            error_cache_control: DEFAULT_ERROR_CACHE_CONTROL,
            cors_max_age: DEFAULT_CORS_MAX_AGE,
        }
    }
}

/// A complete answer: status, headers and body, all prepared.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

/// The prepared answers for one published artifact.
#[derive(Debug, Clone)]
pub(crate) struct Resource {
    /// The quoted strong entity tag, `"sha256:<hex>"`.
    etag: HeaderValue,
    pub(crate) ok: Prepared,
    pub(crate) not_modified: Prepared,
    pub(crate) preflight: Prepared,
    pub(crate) method_not_allowed: Prepared,
}

impl Resource {
    /// Whether any `If-None-Match` value matches this resource (weak comparison, `*` matches).
    pub(crate) fn matches_if_none_match(&self, request: &HeaderMap) -> bool {
        let ours = opaque_tag(self.etag.as_bytes());
        request
            .get_all(http::header::IF_NONE_MATCH)
            .iter()
            .flat_map(|value| value.as_bytes().split(|b| *b == b','))
            .map(|tag| tag.trim_ascii())
            .any(|tag| tag == b"*" || opaque_tag(tag) == ours)
    }
}

/// Strips the weak prefix `W/`: `If-None-Match` uses the weak comparison (RFC 9110, 13.1.2).
fn opaque_tag(tag: &[u8]) -> &[u8] {
    tag.strip_prefix(b"W/").unwrap_or(tag)
}

impl Policy {
    /// Prepares every answer for an artifact served with `content_type`.
    pub(crate) fn resource(
        &self,
        content_type: HeaderValue,
        body: Bytes,
        digest: Digest,
    ) -> Resource {
        let etag =
            HeaderValue::try_from(format!("\"{digest}\"")).expect("a digest is printable ASCII");
        let length = HeaderValue::from(body.len());

        let mut validators = self.common(&self.cache_control);
        validators.insert(ETAG, etag.clone());

        let mut ok = validators.clone();
        ok.insert(CONTENT_TYPE, content_type);
        ok.insert(CONTENT_LENGTH, length);

        // No Content-Length on a 304: hyper drops it from the answer to GET but keeps it on
        // HEAD, so sending it would break GET/HEAD parity.
        let not_modified = validators;

        Resource {
            etag,
            ok: Prepared {
                status: StatusCode::OK,
                headers: ok,
                body,
            },
            not_modified: Prepared {
                status: StatusCode::NOT_MODIFIED,
                headers: not_modified,
                body: Bytes::new(),
            },
            preflight: self.preflight(),
            method_not_allowed: self.error(Rejection::MethodNotAllowed),
        }
    }

    /// The answer to a CORS preflight: `204`, the allowed methods and how long to cache that.
    fn preflight(&self) -> Prepared {
        let mut headers = self.common(&self.cache_control);
        headers.insert(ALLOW, ALLOWED_METHODS);
        headers.insert(ACCESS_CONTROL_ALLOW_METHODS, ALLOWED_METHODS);
        headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, REQUEST_HEADERS);
        headers.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from(self.cors_max_age));
        Prepared {
            status: StatusCode::NO_CONTENT,
            headers,
            body: Bytes::new(),
        }
    }

    /// The answer for a rejection: its status, a small JSON body and short-lived caching.
    pub(crate) fn error(&self, rejection: Rejection) -> Prepared {
        let body = Bytes::from_static(rejection.body_text().as_bytes());
        let mut headers = self.common(&self.error_cache_control);
        headers.insert(CONTENT_TYPE, JSON);
        headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
        if rejection == Rejection::MethodNotAllowed {
            headers.insert(ALLOW, ALLOWED_METHODS);
        }
        Prepared {
            status: rejection.status(),
            headers,
            body,
        }
    }

    /// The headers on every answer: caching, CORS and `nosniff`.
    fn common(&self, cache_control: &HeaderValue) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(10);
        let pairs: [(HeaderName, HeaderValue); 4] = [
            (CACHE_CONTROL, cache_control.clone()),
            (ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN),
            (ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED),
            (X_CONTENT_TYPE_OPTIONS, NOSNIFF),
        ];
        headers.extend(pairs);
        headers
    }
}

/// Why a request under `/.well-known/agent-skills/` gets no artifact.
///
/// # Example
///
/// ```
/// use skillpub_axum::Rejection;
///
/// assert_eq!(Rejection::NotFound.status(), http::StatusCode::NOT_FOUND);
/// let body: &str = Rejection::NotFound.body_text();
/// assert!(body.starts_with(r#"{"error":"not_found""#));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// No skill or file is published at this exact path.
    NotFound,
    /// The path exists, but only `GET`, `HEAD` and `OPTIONS` are answered.
    MethodNotAllowed,
}

impl Rejection {
    /// The status code.
    #[must_use]
    pub fn status(self) -> StatusCode {
        match self {
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        }
    }

    /// The JSON body.
    #[must_use]
    pub fn body_text(self) -> &'static str {
        match self {
            Self::NotFound => concat!(
                r#"{"error":"not_found","message":"No skill or file is published at this path; "#,
                r#"index.json in this folder lists every skill."}"#,
                "\n"
            ),
            Self::MethodNotAllowed => concat!(
                r#"{"error":"method_not_allowed","message":"Skills are read-only: use GET, HEAD "#,
                r#"or OPTIONS.","allow":"GET, HEAD, OPTIONS"}"#,
                "\n"
            ),
        }
    }
}
