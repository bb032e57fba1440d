//! The router for `/.well-known/agent-skills/`: one prepared answer per path and method.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::{Ready, ready};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response};
use http_body::Frame;
use skillpub_core::{Catalog, LEGACY_PATH, WELL_KNOWN_PATH};

use crate::headers::{Condition, Policy, Prepared, Resource, Shared};

/// A `Router` that serves a catalog at `/.well-known/agent-skills/`, with the default policy.
///
/// Merge it into an app of any state type. See [`RouterBuilder`] for the options.
///
/// # Example
///
/// ```
/// use axum::{Router, routing::get};
/// use skillpub_core::{Catalog, Skill};
///
/// let catalog = Catalog::new([Skill::from_static(
///     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
/// )])?;
/// let app: Router = Router::new()
///     .route("/", get(|| async { "my app" }))
///     .merge(skillpub_axum::router(catalog));
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
///
/// # Panics
///
/// Merging panics if the app already has a route under `/.well-known/agent-skills/`.
pub fn router<S>(catalog: Catalog) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    RouterBuilder::new(catalog).build()
}

/// Builds the `/.well-known/agent-skills/` router with a chosen header policy.
///
/// Every answer (`200`, `304`, `204`, `404`, `405`) carries `Cache-Control`,
/// `Access-Control-Allow-Origin: *`, `Access-Control-Expose-Headers: ETag` and
/// `X-Content-Type-Options: nosniff`; `GET` and `HEAD` get the same status and headers.
///
/// # Example
///
/// ```
/// use axum::Router;
/// use http::HeaderValue;
/// use skillpub_axum::RouterBuilder;
/// use skillpub_core::Catalog;
///
/// let catalog = Catalog::new(Vec::<skillpub_core::Skill>::new())?;
/// let skills: Router = RouterBuilder::new(catalog)
///     .cache_control(HeaderValue::from_static("public, max-age=60, no-transform"))
///     .error_cache_control(HeaderValue::from_static("no-store"))
///     .cors_max_age(600)
///     .build();
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct RouterBuilder {
    catalog: Catalog,
    policy: Policy,
}

impl RouterBuilder {
    /// Starts from the default policy.
    pub fn new(catalog: Catalog) -> Self {
        Self {
            catalog,
            policy: Policy::default(),
        }
    }

    /// `Cache-Control` of `200`, `304` and preflight answers
    /// (default [`DEFAULT_CACHE_CONTROL`](crate::DEFAULT_CACHE_CONTROL), `public, max-age=300`).
    ///
    /// Keep it short: a client that caches the index longer than a `SKILL.md`, or the reverse,
    /// sees a digest mismatch after a deploy and drops the skill until both expire.
    pub fn cache_control(mut self, value: HeaderValue) -> Self {
        self.policy.cache_control = value;
        self
    }

    /// `Cache-Control` of `404` and `405` answers
    /// (default [`DEFAULT_ERROR_CACHE_CONTROL`](crate::DEFAULT_ERROR_CACHE_CONTROL),
    /// `public, max-age=10`).
    pub fn error_cache_control(mut self, value: HeaderValue) -> Self {
        self.policy.error_cache_control = value;
        self
    }

    /// `Access-Control-Max-Age` of preflight answers, in seconds
    /// (default [`DEFAULT_CORS_MAX_AGE`](crate::DEFAULT_CORS_MAX_AGE), one day).
    pub fn cors_max_age(mut self, seconds: u32) -> Self {
        self.policy.cors_max_age = seconds;
        self
    }

    /// Prepares every answer and returns the router.
    ///
    /// # Panics
    ///
    /// Merging the result panics if the app already has a route under
    /// `/.well-known/agent-skills/`.
    pub fn build<S>(self) -> Router<S>
    where
        S: Clone + Send + Sync + 'static,
    {
        let shared = Arc::new(self.policy.shared());
        let mut router = Router::new();
        // Paths that serve the same bytes as the same type (the legacy layout, a file shared
        // by several skills) share their answers, so each encoded variant is made once.
        let mut resources = HashMap::new();
        for artifact in self.catalog.artifacts() {
            let resource = resources
                .entry((artifact.digest(), artifact.media_type()))
                .or_insert_with(|| {
                    let content_type = HeaderValue::from_static(artifact.media_type());
                    let resource = self.policy.resource(
                        content_type,
                        artifact.bytes().clone(),
                        artifact.digest(),
                    );
                    Arc::new(resource)
                });
            let service = Answers {
                resource: Some(Arc::clone(resource)),
                shared: Arc::clone(&shared),
            };
            router = router.route_service(artifact.path(), service);
        }
        // Everything else under the folders: 404, or a preflight answer.
        let unpublished = Answers {
            resource: None,
            shared,
        };
        let mut folders = vec![WELL_KNOWN_PATH];
        if self.catalog.has_legacy_index() {
            folders.push(LEGACY_PATH);
        }
        for folder in folders {
            router = router
                .route_service(folder.trim_end_matches('/'), unpublished.clone())
                .route_service(folder, unpublished.clone())
                .route_service(&format!("{folder}{{*path}}"), unpublished.clone());
        }
        router
    }
}

/// The service of one path under the folder: a published artifact, or (`None`) everything
/// else.
#[derive(Debug, Clone)]
struct Answers {
    resource: Option<Arc<Resource>>,
    shared: Arc<Shared>,
}

impl Answers {
    fn pick(&self, method: &Method, headers: &HeaderMap) -> &Prepared {
        let shared = &self.shared;
        match (&self.resource, method) {
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
                match variant.condition(headers) {
                    Condition::Send => &variant.ok,
                    Condition::NotModified => &variant.not_modified,
                    Condition::Failed => &shared.precondition_failed,
                }
            }
            (Some(_), _) => &shared.method_not_allowed,
        }
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
        let prepared = self.pick(request.method(), request.headers());
        ready(Ok(respond(prepared, request.method())))
    }
}

/// Copies a prepared answer into a response: the status, the header map (reference-counted
/// values) and, except for `HEAD`, the body.
fn respond(prepared: &Prepared, method: &Method) -> Response<Body> {
    let body = if prepared.body.is_empty() {
        Body::new(Bodiless)
    } else if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(prepared.body.clone())
    };
    let mut response = Response::new(body);
    *response.status_mut() = prepared.status;
    *response.headers_mut() = prepared.headers.clone();
    response
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
