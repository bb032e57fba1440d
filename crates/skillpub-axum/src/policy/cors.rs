//! CORS preflight: the methods and request headers any page may use, and for how long a
//! browser may remember that. Every other answer allows any origin through
//! [`COMMON_HEADERS`](super::COMMON_HEADERS).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use http::header::{ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_MAX_AGE, HeaderName, VARY};
use http::{HeaderValue, Method, Response, StatusCode};

use super::prepared::Prepared;
use super::private::{Rules, allow_credentials};
use super::settings::METHODS;
use super::settings::{Audience, Policy};

/// The request headers any page may send: the conditional ones.
const CONDITIONAL_HEADERS: &str = "If-None-Match, If-Match";

/// The headers of a preflight answer besides the common ones and `Access-Control-Max-Age`,
/// as text: a static export configures its server with the same list.
pub const PREFLIGHT_HEADERS: [(&str, &str); 3] = [
    ("allow", METHODS),
    ("access-control-allow-methods", METHODS),
    ("access-control-allow-headers", CONDITIONAL_HEADERS),
];

impl Policy {
    /// The answer to a CORS preflight: `204`, the allowed methods and how long to cache that.
    /// Beside private views it is answered as theirs are: a preflight of an allowed origin
    /// names it with credentials, so it never says `public` either.
    pub(super) fn preflight(&self) -> Prepared {
        let cache_control = match &self.audience {
            Audience::Beside(rules) => &rules.cache_control,
            Audience::Public | Audience::Private(_) => &self.cache_control,
        };
        let mut headers = self.common(cache_control);
        for (name, value) in PREFLIGHT_HEADERS {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        headers.insert(ACCESS_CONTROL_MAX_AGE, max_age(self.cors_max_age));
        // Beside or in private views, a page may send credentials, and an allowed origin is
        // named back (see `method.rs`), so the answer depends on `Origin` too.
        if let Audience::Beside(rules) | Audience::Private(rules) = &self.audience
            && !rules.sendable.is_empty()
        {
            let allowed = format!("{CONDITIONAL_HEADERS}, {}", rules.sendable);
            // The names were checked as header names, and `, ` joins them.
            if let Ok(allowed) = HeaderValue::from_str(&allowed) {
                headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, allowed);
            }
        }
        if let Audience::Beside(rules) | Audience::Private(rules) = &self.audience {
            headers.insert(VARY, rules.vary_with_origin(false));
        }
        Prepared::without_content(StatusCode::NO_CONTENT, headers)
    }
}

/// The preflight of a private view, for a preflight the app's auth refused: a browser never
/// sends credentials with a preflight (the Fetch standard), so an auth layer that asks for
/// them refuses every one, and no page could send a token at all. Prepared once per
/// [`RefusalLayer`](crate::RefusalLayer).
#[derive(Debug)]
pub(crate) struct RefusedPreflight(Prepared);

impl RefusedPreflight {
    /// The preflight of the private policy `rules`.
    pub(crate) fn new(rules: &Arc<Rules>) -> Self {
        Self(Policy::default().private(rules).preflight())
    }

    /// The answer, naming `origin` back with credentials when it is allowed.
    pub(crate) fn response(&self, origin: Option<HeaderValue>) -> Response<Body> {
        let mut response = self.0.response(&Method::OPTIONS);
        if let Some(origin) = origin {
            allow_credentials(response.headers_mut(), origin);
        }
        response
    }
}

/// `Access-Control-Max-Age` is in whole seconds (delta-seconds): the fraction is dropped, as
/// tower-http's `CorsLayer::max_age` does, so less than a second is `0`.
fn max_age(duration: Duration) -> HeaderValue {
    HeaderValue::from(duration.as_secs())
}
