//! The HTTP policy, all of it: content types, content codings, caching, validators,
//! conditional requests, CORS and error bodies.
//!
//! Every answer is prepared here, when the router is built or, for the variants in another
//! content coding, once on first demand; a request only picks one.

mod accept_encoding;
mod entity_tags;

use std::sync::OnceLock;

use bytes::Bytes;
use http::header::{
    ACCESS_CONTROL_MAX_AGE, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE,
    ETAG, HeaderName, VARY,
};
use http::{HeaderMap, HeaderValue, StatusCode};
use skillpub_core::Digest;

use crate::coding::{self, Coding};
use accept_encoding::AcceptEncoding;

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

/// The headers every answer carries besides `Cache-Control` and `Content-Encoding`, as text:
/// CORS, `nosniff`, and a CSP that sandboxes everything, because nothing served here is a page
/// (an SVG, XML or HTML file opened in a browser must not run script on the publishing site).
/// A static export configures its server with the same list.
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

/// `Vary` of every answer whose bytes depend on `Accept-Encoding`.
const VARY_ACCEPT_ENCODING: HeaderValue = HeaderValue::from_static("Accept-Encoding");

/// `Content-Encoding` of every answer that is not encoded: "no encoding" (RFC 9110, 12.5.3).
/// A compression layer outside the router leaves a response that has a `Content-Encoding`
/// alone (tower-http's `CompressionLayer`, nginx's `gzip`), so it never sends other bytes
/// under the router's strong `ETag` or makes a `HEAD` differ from its `GET`.
const IDENTITY: HeaderValue = HeaderValue::from_static("identity");

/// The answers that do not depend on the artifact.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) not_found: Prepared,
    pub(crate) method_not_allowed: Prepared,
    pub(crate) precondition_failed: Prepared,
    pub(crate) not_acceptable: Prepared,
    pub(crate) preflight: Prepared,
}

/// One representation of an artifact (its bytes in one content coding): its strong entity
/// tag and its prepared `200` and `304`.
#[derive(Debug)]
pub(crate) struct Variant {
    /// The quoted strong entity tag.
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

impl Variant {
    /// Evaluates `If-Match` (strong comparison), then `If-None-Match` (weak comparison),
    /// against this variant's entity tag, in the order of RFC 9110, 13.2.2.
    pub(crate) fn condition(&self, request: &HeaderMap) -> Condition {
        if !entity_tags::if_match_holds(request, &self.etag) {
            Condition::Failed
        } else if entity_tags::if_none_match_matches(request, &self.etag) {
            Condition::NotModified
        } else {
            Condition::Send
        }
    }

    /// The same representation sent in `coding`: its own entity tag, `Content-Encoding`,
    /// body and `Content-Length`; everything else as in `self`.
    fn in_coding(&self, coding: Coding, etag: Bytes, body: Bytes) -> Self {
        let etag_value = etag_header(&etag);
        let content_encoding = HeaderValue::from_static(coding.token());
        let mut ok = self.ok.headers.clone();
        ok.insert(ETAG, etag_value.clone());
        ok.insert(CONTENT_ENCODING, content_encoding.clone());
        ok.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
        let mut not_modified = self.not_modified.headers.clone();
        not_modified.insert(ETAG, etag_value);
        not_modified.insert(CONTENT_ENCODING, content_encoding);
        Self {
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
        }
    }
}

/// The quoted strong entity tag of an artifact's bytes in a coding: the digest
/// (`"sha256:<hex>"`) for the bytes themselves, with the coding appended for the others
/// (`"sha256:<hex>-br"`, `"sha256:<hex>-gzip"`, as Apache's `mod_deflate` does).
fn entity_tag(digest: Digest, coding: Coding) -> Bytes {
    Bytes::from(match coding {
        Coding::Identity => format!("\"{digest}\""),
        coding => format!("\"{digest}-{}\"", coding.token()),
    })
}

fn etag_header(etag: &Bytes) -> HeaderValue {
    HeaderValue::from_maybe_shared(etag.clone()).expect("a quoted digest is a valid header value")
}

/// The answers for one published artifact: one [`Variant`] per content coding.
#[derive(Debug)]
pub(crate) struct Resource {
    digest: Digest,
    /// The bytes the digest covers, `Content-Encoding: identity`.
    identity: Variant,
    /// The encoded variants; `None` for media types that are never encoded (archives, images).
    encoded: Option<Encoded>,
}

/// The brotli and gzip variants of a text artifact, each made on first demand: its first
/// request pays the compression, later ones pick it. `None` inside if the encoder failed.
#[derive(Debug, Default)]
struct Encoded {
    brotli: OnceLock<Option<Variant>>,
    gzip: OnceLock<Option<Variant>>,
}

impl Resource {
    /// The variant to answer a `GET` or `HEAD` with (RFC 9110, 12.5.3): identity for a
    /// request without `Accept-Encoding`; otherwise the acceptable coding it prefers, skipping
    /// a coding that would not make the bytes smaller while identity is acceptable. `None`
    /// when the request refuses every coding this artifact has, identity included
    /// (`identity;q=0`, `*;q=0`): the answer is then `406`.
    pub(crate) fn select(&self, request: &HeaderMap) -> Option<&Variant> {
        let Some(accept) = AcceptEncoding::of(request) else {
            return Some(&self.identity);
        };
        let mut larger = None;
        for coding in accept.preferred() {
            let cell = match (coding, &self.encoded) {
                (Coding::Identity, _) => return Some(&self.identity),
                (Coding::Brotli, Some(encoded)) => &encoded.brotli,
                (Coding::Gzip, Some(encoded)) => &encoded.gzip,
                (_, None) => continue,
            };
            if let Some(variant) = cell.get_or_init(|| self.encode(coding)) {
                if variant.ok.body.len() < self.identity.ok.body.len() {
                    return Some(variant);
                }
                larger = larger.or(Some(variant));
            }
        }
        larger
    }

    /// The variant in `coding`.
    fn encode(&self, coding: Coding) -> Option<Variant> {
        let body = coding.encode(&self.identity.ok.body)?;
        let etag = entity_tag(self.digest, coding);
        Some(self.identity.in_coding(coding, etag, body))
    }
}

impl Policy {
    /// Prepares the answers for an artifact served with `content_type`. Its encoded
    /// variants are made later, on first demand.
    pub(crate) fn resource(
        &self,
        content_type: HeaderValue,
        body: Bytes,
        digest: Digest,
    ) -> Resource {
        let encoded = coding::is_encoded(content_type.to_str().unwrap_or_default());
        let etag = entity_tag(digest, Coding::Identity);
        let mut validators = self.common(&self.cache_control);
        validators.insert(ETAG, etag_header(&etag));
        if encoded {
            validators.insert(VARY, VARY_ACCEPT_ENCODING);
        }

        let mut ok = validators.clone();
        ok.insert(CONTENT_TYPE, content_type);
        ok.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));

        Resource {
            digest,
            identity: Variant {
                etag,
                ok: Prepared {
                    status: StatusCode::OK,
                    headers: ok,
                    body,
                },
                // No Content-Length on a 304: hyper drops it from the answer to GET but keeps
                // it on HEAD, so sending it would break GET/HEAD parity.
                not_modified: Prepared {
                    status: StatusCode::NOT_MODIFIED,
                    headers: validators,
                    body: Bytes::new(),
                },
            },
            encoded: encoded.then(Encoded::default),
        }
    }

    /// Prepares the answers that every path shares.
    pub(crate) fn shared(&self) -> Shared {
        let mut not_acceptable = self.error(Rejection::NotAcceptable);
        not_acceptable.headers.insert(VARY, VARY_ACCEPT_ENCODING);
        Shared {
            not_found: self.error(Rejection::NotFound),
            method_not_allowed: self.error(Rejection::MethodNotAllowed),
            precondition_failed: self.error(Rejection::PreconditionFailed),
            not_acceptable,
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

    /// The headers on every answer: caching, CORS, `nosniff`, a sandboxing CSP, and
    /// `Content-Encoding: identity` (an encoded variant replaces it).
    fn common(&self, cache_control: &HeaderValue) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(12);
        headers.insert(CACHE_CONTROL, cache_control.clone());
        headers.insert(CONTENT_ENCODING, IDENTITY);
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
    /// `Accept-Encoding` refuses every content coding the artifact is served in, identity
    /// included.
    NotAcceptable,
}

impl Rejection {
    /// The status code.
    #[must_use]
    pub fn status(self) -> StatusCode {
        match self {
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
            Self::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
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
            Self::NotAcceptable => (
                "not_acceptable",
                "Accept-Encoding refuses every coding this file is served in; accept identity.",
            ),
        };
        format!("{{\"error\":\"{code}\",\"message\":\"{message}\",\"allow\":\"{METHODS}\"}}\n")
    }
}
