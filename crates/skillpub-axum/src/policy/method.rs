//! Which prepared answer a request gets: `GET` and `HEAD` the artifact (after content
//! negotiation and the conditional headers), `OPTIONS` the CORS preflight, any other method
//! `405` with `Allow`; a path where nothing is published gets `404` for every method but
//! `OPTIONS`.

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use http::{HeaderMap, HeaderValue, Method, Request, Response};

use super::Shared;
use super::conditional::Condition;
use super::prepared::Prepared;
use super::resource::Resource;

/// The methods every route answers, as text.
pub(super) const METHODS: &str = "GET, HEAD, OPTIONS";

/// The methods every route answers, as the `Allow` and `Access-Control-Allow-Methods` value.
pub const ALLOWED_METHODS: HeaderValue = HeaderValue::from_static(METHODS);

/// The service of one path under the folders: the answers of a published artifact, or of
/// a path where nothing is published.
#[derive(Debug, Clone)]
pub(crate) struct Answers {
    resource: Option<Arc<Resource>>,
    shared: Arc<Shared>,
}

impl Answers {
    /// The answers of a path that publishes `resource`.
    pub(crate) fn published(resource: Arc<Resource>, shared: Arc<Shared>) -> Self {
        Self {
            resource: Some(resource),
            shared,
        }
    }

    /// The answers of a path under the folders where nothing is published.
    pub(crate) fn unpublished(shared: Arc<Shared>) -> Self {
        Self {
            resource: None,
            shared,
        }
    }
}

/// Answers `request` on a path that publishes `resource` (`None` where nothing is
/// published): every router's one way to pick a prepared answer.
pub(crate) fn answer<B>(
    resource: Option<&Resource>,
    shared: &Shared,
    request: &Request<B>,
) -> Response<Body> {
    let method = request.method();
    pick(resource, shared, method, request.headers()).response(method)
}

fn pick<'a>(
    resource: Option<&'a Resource>,
    shared: &'a Shared,
    method: &Method,
    headers: &HeaderMap,
) -> &'a Prepared {
    match (resource, method) {
        // A preflight asks whether the method is allowed, not whether the path exists;
        // the request that follows it gets the 404, readable by the page thanks to CORS.
        (_, &Method::OPTIONS) => &shared.preflight,
        (None, _) => &shared.not_found,
        (Some(resource), &Method::GET | &Method::HEAD) => {
            // Negotiation first: preconditions only apply to what would be a 2xx
            // (RFC 9110, 13.2.1).
            let Some(variant) = resource.select(headers) else {
                return &shared.not_acceptable;
            };
            match Condition::of(headers, &variant.etag) {
                Condition::Send => &variant.ok,
                Condition::NotModified => &variant.not_modified,
                Condition::Failed => &shared.precondition_failed,
            }
        }
        (Some(_), _) => &shared.method_not_allowed,
    }
}

impl<B> tower::Service<Request<B>> for Answers {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Ready<Result<Response<Body>, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        ready(Ok(answer(self.resource.as_deref(), &self.shared, &request)))
    }
}
