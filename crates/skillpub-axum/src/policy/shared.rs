//! The answers every path of a router shares, prepared once when it is built.

use std::sync::Arc;

use super::prepared::Prepared;
use super::rejection::Rejection;
use super::stored::Fetcher;
use http::{HeaderMap, HeaderValue, Method};
use skillpub_core::paths::is_addressed_artifact;

use super::settings::{ADDRESSED_MISS_CACHE_CONTROL, Audience, Policy};
use super::template::Templates;

/// The answers that do not depend on the artifact, and the headers that the answers of every
/// artifact share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(super) not_found: Prepared,
    /// The `404` of an addressed path: never stored by a cache
    /// ([`ADDRESSED_MISS_CACHE_CONTROL`](super::settings::ADDRESSED_MISS_CACHE_CONTROL)).
    pub(super) addressed_not_found: Prepared,
    pub(super) method_not_allowed: Prepared,
    pub(super) precondition_failed: Prepared,
    pub(super) not_acceptable: Prepared,
    pub(super) preflight: Prepared,
    pub(super) templates: Templates,
    /// Who the answers are for: which requests get an origin of their own named back.
    audience: Audience,
    /// Where an addressed path that the table does not serve is looked for.
    pub(super) fetcher: Option<Arc<Fetcher>>,
}

impl Shared {
    /// The same answers, with addressed misses looked for in `fetcher`'s store.
    pub(crate) fn with_fetcher(mut self, fetcher: Arc<Fetcher>) -> Self {
        self.fetcher = Some(fetcher);
        self
    }

    /// The `404` of `path`, where nothing is published: that of an addressed `SKILL.md` or
    /// archive, which another replica may publish a moment later, is never stored; any other
    /// path's (a malformed address included, which nothing ever publishes) keeps the error
    /// knob.
    pub(super) fn not_found_at(&self, path: &str) -> &Prepared {
        if is_addressed_artifact(path) {
            &self.addressed_not_found
        } else {
            &self.not_found
        }
    }

    /// The origin a request's answer names back with `Access-Control-Allow-Credentials`:
    /// an allowed origin, on every answer of a private view and on the preflight of a public
    /// view beside private ones; `None` otherwise (the prepared CORS headers stand).
    pub(super) fn credentialed_origin(
        &self,
        method: &Method,
        headers: &HeaderMap,
    ) -> Option<HeaderValue> {
        match &self.audience {
            Audience::Public => None,
            Audience::Beside(rules) if method == Method::OPTIONS => rules.allowed_origin(headers),
            Audience::Beside(_) => None,
            Audience::Private(rules) => rules.allowed_origin(headers),
        }
    }
}

impl Policy {
    /// Prepares the answers that every path shares.
    pub(crate) fn shared(&self) -> Shared {
        Shared {
            not_found: self.error(Rejection::NotFound),
            addressed_not_found: self.error_cached(
                Rejection::NotFound,
                &HeaderValue::from_static(ADDRESSED_MISS_CACHE_CONTROL),
            ),
            method_not_allowed: self.error(Rejection::MethodNotAllowed),
            precondition_failed: self.error(Rejection::PreconditionFailed),
            not_acceptable: self.error(Rejection::NotAcceptable),
            preflight: self.preflight(),
            templates: self.templates(),
            audience: self.audience.clone(),
            fetcher: None,
        }
    }
}
