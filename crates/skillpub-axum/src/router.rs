//! The router for `/.well-known/agent-skills/`: each published path to the answers of its
//! artifact, every other path under the folders to the answers of an unpublished path. What
//! a request gets there is decided by the policy (`crate::policy`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use http::HeaderValue;
use skillpub_core::{Catalog, LEGACY_PATH, WELL_KNOWN_PATH};

use crate::policy::{Answers, Policy};

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
/// The settings are how long answers may be cached; what each answer carries is listed in
/// the [HTTP policy](crate#http-policy).
///
/// # Example
///
/// ```
/// use std::time::Duration;
///
/// use axum::Router;
/// use http::HeaderValue;
/// use skillpub_axum::RouterBuilder;
/// use skillpub_core::Catalog;
///
/// let catalog = Catalog::new(Vec::<skillpub_core::Skill>::new())?;
/// let skills: Router = RouterBuilder::new(catalog)
///     .cache_control(HeaderValue::from_static("public, max-age=60, no-transform"))
///     .error_cache_control(HeaderValue::from_static("no-store"))
///     .cors_max_age(Duration::from_secs(600))
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

    /// `Cache-Control` of error answers (`404`, `405`, `406`, `412`)
    /// (default [`DEFAULT_ERROR_CACHE_CONTROL`](crate::DEFAULT_ERROR_CACHE_CONTROL),
    /// `public, max-age=10`).
    pub fn error_cache_control(mut self, value: HeaderValue) -> Self {
        self.policy.error_cache_control = value;
        self
    }

    /// How long a browser may reuse the answer to a CORS preflight: `Access-Control-Max-Age`
    /// (default [`DEFAULT_CORS_MAX_AGE`](crate::DEFAULT_CORS_MAX_AGE), one day).
    ///
    /// The header counts whole seconds, so the fraction of a second is dropped, as
    /// tower-http's `CorsLayer::max_age` does: less than a second is `0`, which tells the
    /// browser not to reuse the answer. Browsers also cap it (Firefox at one day, Chromium
    /// at two hours).
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use http::{Method, Request};
    /// use skillpub_axum::RouterBuilder;
    /// use tower::ServiceExt;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let skills: axum::Router = RouterBuilder::new(catalog)
    ///     .cors_max_age(Duration::from_millis(90_500))
    ///     .build();
    /// let preflight = Request::builder()
    ///     .method(Method::OPTIONS)
    ///     .uri("/.well-known/agent-skills/index.json")
    ///     .body(axum::body::Body::empty())?;
    /// let response = skills.oneshot(preflight).await?;
    /// assert_eq!(response.headers()["access-control-max-age"], "90");
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(run()).unwrap();
    /// ```
    pub fn cors_max_age(mut self, max_age: Duration) -> Self {
        self.policy.cors_max_age = max_age;
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
            let answers = Answers::published(Arc::clone(resource), Arc::clone(&shared));
            router = router.route_service(artifact.path(), answers);
        }
        // Everything else under the folders: 404, or a preflight answer.
        let unpublished = Answers::unpublished(shared);
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
