//! The HTTP policy, all of it: content types, caching, validators, conditional requests, CORS
//! and error bodies.
//!
//! Every answer is prepared here once, when the router is built; a request only picks one.

mod entity_tags;

use bytes::Bytes;
use http::header::{
    ACCESS_CONTROL_MAX_AGE, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, ETAG, HeaderName,
};
use http::{HeaderMap, HeaderValue, StatusCode};
use skillpub_core::Digest;

/// Default `Cache-Control` of `200`, `304` and preflight answers.
///
/// Five minutes bounds how long a cached index and a cached artifact can disagree after a
/// deploy: a client that holds an old index and fetches a new `SKILL.md` (or the reverse)
/// sees a digest mismatch and drops the skill until both expire.
pub const DEFAULT_CACHE_CONTROL: HeaderValue = HeaderValue::from_static(DEFAULT_CACHE_CONTROL_TEXT);

/// Default `Cache-Control` of `404`, `405` and `412` answers: short, so that a skill added by
/// a deploy is not hidden behind a cached `404`.
pub const DEFAULT_ERROR_CACHE_CONTROL: HeaderValue =
    HeaderValue::from_static(DEFAULT_ERROR_CACHE_CONTROL_TEXT);

/// The default `Cache-Control` of error answers, as text.
pub const DEFAULT_ERROR_CACHE_CONTROL_TEXT: &str = "public, max-age=10";

/// Default `Access-Control-Max-Age` of preflight answers, in seconds (one day).
pub const DEFAULT_CORS_MAX_AGE: u32 = 86_400;

const METHODS: &str = "GET, HEAD, OPTIONS";

/// The methods every route answers, as the `Allow` and `Access-Control-Allow-Methods` value.
pub const ALLOWED_METHODS: HeaderValue = HeaderValue::from_static(METHODS);

const JSON: HeaderValue = HeaderValue::from_static(skillpub_core::JSON);
/// The headers of a preflight answer besides the common ones and `Access-Control-Max-Age`,
/// as text: a static export configures its server with the same list.
pub const PREFLIGHT_HEADERS: [(&str, &str); 3] = [
    ("allow", METHODS),
    ("access-control-allow-methods", METHODS),
    ("access-control-allow-headers", "If-None-Match, If-Match"),
];

/// The headers every answer carries besides `Cache-Control`, as text: CORS, `nosniff`, and a
/// CSP that sandboxes everything, because nothing served here is a page (an SVG, XML or HTML
/// file opened in a browser must not run script on the publishing site). A static export
/// configures its server with the same list.
/// Names are lowercase, as `http` stores them; HTTP header names are case-insensitive.
pub const COMMON_HEADERS: [(&str, &str); 4] = [
    ("access-control-allow-origin", "*"),
    ("access-control-expose-headers", "ETag"),
    ("x-content-type-options", "nosniff"),
    ("content-security-policy", "default-src 'none'; sandbox"),
];

/// The default `Cache-Control` of `200` and `304` answers, as text.
pub const DEFAULT_CACHE_CONTROL_TEXT: &str = "public, max-age=300";

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

/// The answers that do not depend on the artifact.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) not_found: Prepared,
    pub(crate) method_not_allowed: Prepared,
    pub(crate) precondition_failed: Prepared,
    pub(crate) preflight: Prepared,
}

/// The prepared answers for one published artifact.
#[derive(Debug)]
pub(crate) struct Resource {
    /// The quoted strong entity tag, `"sha256:<hex>"`.
    etag: Bytes,
    pub(crate) ok: Prepared,
    pub(crate) not_modified: Prepared,
}

/// What the conditional headers of a `GET` or `HEAD` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Condition {
    /// Send the artifact.
    Send,
    /// `If-None-Match` matched: `304`.
    NotModified,
    /// `If-Match` did not match: `412`.
    Failed,
}

impl Resource {
    /// Evaluates `If-Match` (strong comparison), then `If-None-Match` (weak comparison), in
    /// the order of RFC 9110, 13.2.2.
    pub(crate) fn condition(&self, request: &HeaderMap) -> Condition {
        if !entity_tags::if_match_holds(request, &self.etag) {
            Condition::Failed
        } else if entity_tags::if_none_match_matches(request, &self.etag) {
            Condition::NotModified
        } else {
            Condition::Send
        }
    }
}

impl Policy {
    /// Prepares the answers for an artifact served with `content_type`.
    pub(crate) fn resource(
        &self,
        content_type: HeaderValue,
        body: Bytes,
        digest: Digest,
    ) -> Resource {
        let etag = Bytes::from(format!("\"{digest}\""));
        let mut validators = self.common(&self.cache_control);
        validators.insert(
            ETAG,
            HeaderValue::from_maybe_shared(etag.clone())
                .expect("a quoted digest is a valid header value"),
        );

        let mut ok = validators.clone();
        ok.insert(CONTENT_TYPE, content_type);
        ok.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));

        Resource {
            etag,
            ok: Prepared {
                status: StatusCode::OK,
                headers: ok,
                body,
            },
            // No Content-Length on a 304: hyper drops it from the answer to GET but keeps it
            // on HEAD, so sending it would break GET/HEAD parity.
            not_modified: Prepared {
                status: StatusCode::NOT_MODIFIED,
                headers: validators,
                body: Bytes::new(),
            },
        }
    }

    /// Prepares the answers that every path shares.
    pub(crate) fn shared(&self) -> Shared {
        Shared {
            not_found: self.error(Rejection::NotFound),
            method_not_allowed: self.error(Rejection::MethodNotAllowed),
            precondition_failed: self.error(Rejection::PreconditionFailed),
            preflight: self.preflight(),
        }
    }

    /// The answer to a CORS preflight: `204`, the allowed methods and how long to cache that.
    fn preflight(&self) -> Prepared {
        let mut headers = self.common(&self.cache_control);
        for (name, value) in PREFLIGHT_HEADERS {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        headers.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from(self.cors_max_age));
        Prepared {
            status: StatusCode::NO_CONTENT,
            headers,
            body: Bytes::new(),
        }
    }

    /// The answer for a rejection: its status, a small JSON body and short-lived caching.
    fn error(&self, rejection: Rejection) -> Prepared {
        let body = Bytes::from(rejection.body_text());
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

    /// The headers on every answer: caching, CORS, `nosniff` and a sandboxing CSP.
    fn common(&self, cache_control: &HeaderValue) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(10);
        headers.insert(CACHE_CONTROL, cache_control.clone());
        for (name, value) in COMMON_HEADERS {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
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
/// assert!(Rejection::NotFound.body_text().starts_with(r#"{"error":"not_found""#));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// No skill or file is published at this exact path.
    NotFound,
    /// The path exists, but only `GET`, `HEAD` and `OPTIONS` are answered.
    MethodNotAllowed,
    /// `If-Match` names none of the artifact's entity tags.
    PreconditionFailed,
}

impl Rejection {
    /// The status code.
    #[must_use]
    pub fn status(self) -> StatusCode {
        match self {
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
        }
    }

    /// The JSON body, one line.
    #[must_use]
    pub fn body_text(self) -> String {
        let (code, message) = match self {
            Self::NotFound => (
                "not_found",
                "No skill or file is published at this path; index.json in this folder lists every skill.",
            ),
            Self::MethodNotAllowed => ("method_not_allowed", "Skills are read-only."),
            Self::PreconditionFailed => (
                "precondition_failed",
                "If-Match names none of this file's entity tags; fetch it again.",
            ),
        };
        format!("{{\"error\":\"{code}\",\"message\":\"{message}\",\"allow\":\"{METHODS}\"}}\n")
    }
}
