//! The header policy's settings and the headers every answer shares.

use std::sync::Arc;
use std::time::Duration;

use http::header::{
    ACCESS_CONTROL_ALLOW_ORIGIN, CACHE_CONTROL, CONTENT_ENCODING, HeaderName, VARY,
};
use http::{HeaderMap, HeaderValue};

use super::private::Rules;

/// Default `Cache-Control` of the index, of every canonical path (`200` and `304`) and of
/// preflight answers: every cache may store them, and must ask the origin before each use.
///
/// `no-cache` with the strong `ETag` is what keeps an index from ever being paired with bytes
/// the origin no longer serves: a cache that honours `Cache-Control` revalidates the index
/// before each use (a `304` without a body when nothing changed), so it never hands out an
/// index older than the origin's, and the index names
/// [addressed](skillpub_core::catalog::Artifact::addressed_path) URLs, whose bytes never
/// change. A `max-age` instead would be safe only while every process retains the artifacts
/// of replaced catalogs for longer than it, which a restart or a rolling deploy breaks.
/// `no-transform` asks a CDN not to recompress: the router sends `br` and `gzip` itself, each
/// under its own `ETag`.
///
/// # Example
///
/// ```
/// use http::HeaderValue;
/// use skillpub_axum::{DEFAULT_CACHE_CONTROL, RouterBuilder};
///
/// assert_eq!(DEFAULT_CACHE_CONTROL, "public, no-cache, no-transform");
/// // The builder takes a `HeaderValue`; `from_static` makes one, in a `const` too.
/// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
/// let skills: axum::Router = RouterBuilder::new(catalog)
///     .cache_control(HeaderValue::from_static(DEFAULT_CACHE_CONTROL))
///     .build();
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
pub const DEFAULT_CACHE_CONTROL: &str = "public, no-cache, no-transform";

/// Default `Cache-Control` of the answers at an addressed path
/// (`/.well-known/agent-skills/sha256-<hex>/...`, `200` and `304`): the bytes there never
/// change, so every cache may keep them for a year and never revalidate them
/// (`immutable`, RFC 8246). `no-transform` as on the other answers.
///
/// # Example
///
/// ```
/// assert_eq!(
///     skillpub_axum::ADDRESSED_CACHE_CONTROL,
///     "public, max-age=31536000, immutable, no-transform",
/// );
/// ```
pub const ADDRESSED_CACHE_CONTROL: &str = "public, max-age=31536000, immutable, no-transform";

/// Default `Cache-Control` of error answers (`404`, `405`, `406`, `412`): short, so that a
/// skill added by a deploy is not hidden behind a cached `404`, and an addressed URL asked for
/// before its deploy reached this replica is not hidden for long either.
pub const DEFAULT_ERROR_CACHE_CONTROL: &str = "public, max-age=10";

/// `Cache-Control` of the `404` at an addressed path (`sha256-<hex>/...`) that this router
/// does not serve: `no-store`, so that no cache keeps the miss, whatever the error knobs say.
///
/// Such a miss is not an absence that lasts: during a rolling deploy, one replica's index names
/// bytes another replica does not hold yet (or no longer retains), and a moment later it does,
/// or the client retries on another one. Any freshness would let a shared cache in front of
/// every replica hand the `404` to every client after every replica has the file (with the
/// error default, 10 s: measured, 55 of 67 installs lost behind an nginx cache). `no-store`
/// (RFC 9111, 5.2.2.5) is the one directive every cache honours for a `404` (nginx,
/// Varnish, Fastly, Cloudflare; CloudFront too once its error-caching minimum TTL is 0), where
/// `max-age=0` still lets a cache store it for revalidation, and `private` still lets a
/// browser keep it. A canonical path's `404` keeps the error knob: its absence does last.
///
/// # Example
///
/// ```
/// assert_eq!(skillpub_axum::ADDRESSED_MISS_CACHE_CONTROL, "no-store");
/// ```
pub const ADDRESSED_MISS_CACHE_CONTROL: &str = "no-store";

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

/// Default `Access-Control-Max-Age` of preflight answers: one day.
///
/// Browsers cap what they honour (Firefox at one day, Chromium at two hours), so a longer
/// value changes nothing.
///
/// # Example
///
/// ```
/// use std::time::Duration;
///
/// assert_eq!(skillpub_axum::DEFAULT_CORS_MAX_AGE, Duration::from_secs(86_400));
/// ```
pub const DEFAULT_CORS_MAX_AGE: Duration = Duration::from_secs(86_400);

/// The methods every route answers, as text.
pub(super) const METHODS: &str = "GET, HEAD, OPTIONS";

/// The methods every route answers, as the `Allow` and `Access-Control-Allow-Methods` value.
pub const ALLOWED_METHODS: HeaderValue = HeaderValue::from_static(METHODS);

/// `Vary` of every answer whose bytes depend on `Accept-Encoding`.
pub(super) const VARY_ACCEPT_ENCODING: HeaderValue = HeaderValue::from_static("Accept-Encoding");

/// `Content-Encoding` of every answer that is not encoded: "no encoding" (RFC 9110, 12.5.3).
/// A compression layer outside the router leaves a response that has a `Content-Encoding`
/// alone (tower-http's `CompressionLayer`, nginx's `gzip`), so it never sends other bytes
/// under the router's strong `ETag` or makes a `HEAD` differ from its `GET`.
const IDENTITY: HeaderValue = HeaderValue::from_static("identity");

/// The header policy's settings; see [`RouterBuilder`](crate::RouterBuilder) for each.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    pub(crate) cache_control: HeaderValue,
    pub(crate) addressed_cache_control: HeaderValue,
    pub(crate) error_cache_control: HeaderValue,
    pub(crate) cors_max_age: Duration,
    /// Who the answers are for.
    pub(crate) audience: Audience,
}

/// Who a view's answers are for, which decides their `Vary` and CORS headers.
#[derive(Debug, Clone)]
pub(crate) enum Audience {
    /// Anyone, in a router without private views: today's policy.
    Public,
    /// Anyone, in a router that also has private views: `Vary` on the credential headers,
    /// and a preflight that allows them and names an allowed origin back.
    Beside(Arc<Rules>),
    /// Callers with credentials: the private policy.
    Private(Arc<Rules>),
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            cache_control: const { HeaderValue::from_static(DEFAULT_CACHE_CONTROL) },
            addressed_cache_control: const { HeaderValue::from_static(ADDRESSED_CACHE_CONTROL) },
            error_cache_control: const { HeaderValue::from_static(DEFAULT_ERROR_CACHE_CONTROL) },
            cors_max_age: DEFAULT_CORS_MAX_AGE,
            audience: Audience::Public,
        }
    }
}

impl Policy {
    /// The headers on every answer: caching, CORS, `nosniff`, a sandboxing CSP, and
    /// `Content-Encoding: identity` (an encoded variant replaces it); `Vary` on the
    /// credential headers beside or in private views. A private view's answers have no
    /// `Access-Control-Allow-Origin` here: each request gets its own, when its origin is
    /// allowed.
    pub(super) fn common(&self, cache_control: &HeaderValue) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(12);
        headers.insert(CACHE_CONTROL, cache_control.clone());
        headers.insert(CONTENT_ENCODING, IDENTITY);
        for (name, value) in COMMON_HEADERS {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        if let Audience::Private(_) = self.audience {
            headers.remove(ACCESS_CONTROL_ALLOW_ORIGIN);
        }
        if let Some(vary) = self.vary(false) {
            headers.insert(VARY, vary);
        }
        headers
    }

    /// The `Vary` of an answer, whose bytes depend on `Accept-Encoding` when `coded`: `None`
    /// for an answer that varies on nothing.
    pub(super) fn vary(&self, coded: bool) -> Option<HeaderValue> {
        match &self.audience {
            Audience::Public => coded.then_some(VARY_ACCEPT_ENCODING),
            Audience::Beside(rules) => Some(rules.vary(coded)),
            Audience::Private(rules) => Some(rules.vary_with_origin(coded)),
        }
    }

    /// The policy of a private view: the private policy's `Cache-Control` values, the
    /// other knobs of `self`.
    pub(crate) fn private(&self, rules: &Arc<Rules>) -> Self {
        Self {
            cache_control: rules.cache_control.clone(),
            addressed_cache_control: rules.addressed_cache_control.clone(),
            error_cache_control: rules.error_cache_control.clone(),
            cors_max_age: self.cors_max_age,
            audience: Audience::Private(Arc::clone(rules)),
        }
    }

    /// The policy of a public view in a router that has private views.
    pub(crate) fn beside(&self, rules: &Arc<Rules>) -> Self {
        Self {
            audience: Audience::Beside(Arc::clone(rules)),
            ..self.clone()
        }
    }
}
