//! The router for `/.well-known/agent-skills/`: each published path to the answers of its
//! artifact, every other path under the folders to the answers of an unpublished path. What
//! a request gets there is decided by the policy (`crate::policy`).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use http::HeaderValue;
use skillpub_core::{
    Catalog, LiveCatalog,
    live::Retained,
    paths::{API_CATALOG_PATH, INDEX_PATH, LEGACY_INDEX_PATH, LEGACY_PATH, WELL_KNOWN_PATH},
};
use tower::Service;

use crate::callers::{Callers, Choose, Visibility};
use crate::hosts::Hosts;
use crate::live::{self, CallerAnswers, LiveAnswers};
use crate::policy::{Answers, Fetcher, Policy, Private, PrivateError, Table};
use crate::store::ArtifactStore;

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

/// A `Router` that serves the catalog `live` holds at each moment, with the default policy:
/// [`LiveCatalog::replace`] changes what it serves without a restart. See
/// [`RouterBuilder::live`].
///
/// # Example
///
/// ```
/// use axum::Router;
/// use skillpub_core::{Catalog, LiveCatalog, Skill};
///
/// let live = LiveCatalog::new(Catalog::new(Vec::<Skill>::new())?);
/// let app: Router = Router::new().merge(skillpub_axum::live_router(live.clone()));
/// // Later, from anywhere: the next request is answered from the new catalog.
/// live.replace(Catalog::new([Skill::from_static(
///     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
/// )])?);
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
///
/// # Routes
///
/// The router takes every path under `/.well-known/agent-skills/`, whatever the catalog. The
/// optional paths outside it, `/.well-known/api-catalog` and the legacy layout under
/// `/.well-known/skills/`, are routed when the catalog the router is built with publishes
/// them (afterwards they answer `404` while a catalog does not); to turn one of them on
/// later, build the router again.
///
/// # Panics
///
/// Merging panics if the app already has a route under `/.well-known/agent-skills/`.
pub fn live_router<S>(live: LiveCatalog) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    RouterBuilder::live(live).build()
}

/// Builds the `/.well-known/agent-skills/` router with a chosen header policy.
///
/// The settings are how long answers may be cached; what each answer carries is listed in
/// the [HTTP policy](crate#http-policy). How long a live router keeps answering the addressed
/// URLs of replaced catalogs is set on the handle:
/// [`LiveCatalog::with_retention`](skillpub_core::LiveCatalog::with_retention).
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
    source: Source,
    policy: Policy,
    /// The private policy, when set.
    private: Option<Private>,
    /// The knobs of public views set explicitly, to refuse on a router without any.
    public_knobs: Vec<&'static str>,
    /// Where addressed paths the catalog does not serve are looked for.
    store: Option<Arc<dyn ArtifactStore>>,
}

/// What a router serves.
#[derive(Debug, Clone)]
enum Source {
    /// One catalog for the router's life.
    Fixed(Catalog),
    /// The catalog of a handle at each moment.
    Live(LiveCatalog),
    /// A catalog per host: the case of [`Source::Callers`] whose key is the host.
    Hosts(Hosts),
    /// A catalog per caller.
    Callers(Arc<dyn Choose>),
}

impl RouterBuilder {
    /// Serves `catalog` for the router's life, with the default policy.
    pub fn new(catalog: Catalog) -> Self {
        Self::from_source(Source::Fixed(catalog))
    }

    /// Serves the catalog `live` holds at each moment, with the default policy.
    ///
    /// Every catalog that [`LiveCatalog::replace`] publishes has its answers prepared before
    /// it is swapped in; each request loads the current snapshot once and answers from it
    /// alone, so it never sees an index from one catalog and a file or `ETag` from another,
    /// and a swap never fails a request. The answers and the encoded variants of artifacts
    /// that a new catalog keeps (same bytes, same type) are kept.
    ///
    /// The router has the routes of the folders (`/.well-known/agent-skills/` and, if the
    /// catalog it starts with publishes the legacy index, `/.well-known/skills/`) and of
    /// `/.well-known/api-catalog` if that catalog publishes it; a later catalog is served on
    /// those routes, and anything it does not publish there is a `404`. Build a new router to
    /// change which of those a site publishes.
    ///
    /// # Example
    ///
    /// ```
    /// use axum::Router;
    /// use skillpub_axum::RouterBuilder;
    /// use skillpub_core::{Catalog, LiveCatalog};
    ///
    /// let live = LiveCatalog::new(Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let skills: Router = RouterBuilder::live(live)
    ///     .error_cache_control(http::HeaderValue::from_static("no-store"))
    ///     .build();
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn live(live: LiveCatalog) -> Self {
        Self::from_source(Source::Live(live))
    }

    /// Serves the catalog of each request's host (see [`Hosts`]), with the default policy;
    /// each can be live, as with [`live`](Self::live).
    pub fn hosts(hosts: Hosts) -> Self {
        Self::from_source(Source::Hosts(hosts))
    }

    /// Serves the catalog of each request's caller (see [`Callers`]): each view public or
    /// private as [`Callers`] says, private ones under the policy of
    /// [`private`](Self::private) (its defaults when not set), public ones under the public
    /// policy with `Vary` on the credential headers when the router has private views. Each
    /// catalog can be live, as with [`live`](Self::live).
    pub fn callers<K>(callers: Callers<K>) -> Self
    where
        K: Clone + Eq + std::hash::Hash + Send + Sync + 'static,
    {
        Self::from_source(Source::Callers(callers.into_chooser()))
    }

    fn from_source(source: Source) -> Self {
        Self {
            source,
            policy: Policy::default(),
            private: None,
            public_knobs: Vec::new(),
            store: None,
        }
    }

    /// Answers the addressed paths (`sha256-<hex>/...`) that the catalog does not serve from
    /// `store`, a store that every replica of the site writes before it serves an index (see
    /// [`store`](crate::store)): so a client that got its index from one replica gets every
    /// artifact it names from any other, during a rolling deploy too. What the store gives is
    /// served only once its SHA-256 is the digest the path names, within
    /// [`STORED_ARTIFACT_LIMIT`](crate::store::STORED_ARTIFACT_LIMIT) bytes; anything else
    /// is the `404` no cache keeps.
    ///
    /// For a router of one public catalog, fixed or live: [`try_build`](Self::try_build)
    /// refuses it beside private or per-caller views ([`PrivateError::StoreBesideViews`]),
    /// since the store serves anything it holds to anyone who names it.
    pub fn store(mut self, store: impl ArtifactStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// The private policy: for a router of [`new`](Self::new), [`live`](Self::live) or
    /// [`hosts`](Self::hosts), every answer is private; for one of [`callers`](Self::callers),
    /// the views it marks [`Visibility::Private`] are. A private answer is never `public`
    /// (the `Cache-Control` values of [`Private`], checked by [`try_build`](Self::try_build)),
    /// varies on the credential headers and on `Origin`, and names the request's origin with
    /// `Access-Control-Allow-Credentials: true` when [`Private::allow_origins`] lists it (no
    /// `Access-Control-Allow-Origin` at all otherwise); its preflight allows `Authorization`.
    /// The [HTTP policy](crate#private-catalogs) lists every answer.
    ///
    /// The `Cache-Control` knobs of this builder are those of the public views; a router whose
    /// every view is private takes them from [`Private`] instead, and refuses them here.
    ///
    /// # Example
    ///
    /// ```
    /// use http::Request;
    /// use skillpub_axum::{Private, RouterBuilder};
    /// use tower::ServiceExt;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let skills: axum::Router = RouterBuilder::new(catalog)
    ///     .private(Private::new().allow_origins(["https://app.example.com"]))
    ///     .try_build()?;
    /// let request = Request::get("/.well-known/agent-skills/index.json")
    ///     .header("origin", "https://app.example.com")
    ///     .body(axum::body::Body::empty())?;
    /// let response = skills.oneshot(request).await?;
    /// assert_eq!(response.headers()["cache-control"], "private, no-cache, no-transform");
    /// assert_eq!(response.headers()["access-control-allow-origin"], "https://app.example.com");
    /// assert_eq!(response.headers()["access-control-allow-credentials"], "true");
    /// assert_eq!(response.headers()["vary"], "Accept-Encoding, Origin, Authorization, Cookie");
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(run()).unwrap();
    /// ```
    pub fn private(mut self, private: Private) -> Self {
        self.private = Some(private);
        self
    }

    /// `Cache-Control` of the `200`, `304` and preflight answers at every path but the
    /// addressed ones: the index, the canonical paths, the supporting files, the legacy layout
    /// and the API catalog (default [`DEFAULT_CACHE_CONTROL`](crate::DEFAULT_CACHE_CONTROL),
    /// `public, no-cache, no-transform`).
    ///
    /// The default makes every cache revalidate the index before each use, which is what
    /// keeps a cached index from ever naming bytes the origin no longer serves (see the
    /// [HTTP policy](crate#http-policy)). A `max-age` instead lets a cache hand out an index
    /// that old: safe only while every process that may answer retains the addressed
    /// artifacts of replaced catalogs for longer
    /// ([`Retention`](skillpub_core::live::Retention)), which a restart breaks.
    pub fn cache_control(mut self, value: HeaderValue) -> Self {
        self.public_knobs.push("cache_control");
        self.policy.cache_control = value;
        self
    }

    /// `Cache-Control` of the `200` and `304` answers at the addressed paths
    /// (`/.well-known/agent-skills/sha256-<hex>/...`), whose bytes never change (default
    /// [`ADDRESSED_CACHE_CONTROL`](crate::ADDRESSED_CACHE_CONTROL),
    /// `public, max-age=31536000, immutable, no-transform`).
    ///
    /// # Example
    ///
    /// ```
    /// use http::HeaderValue;
    /// use skillpub_axum::RouterBuilder;
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// // Private caches only, still for good.
    /// let skills: axum::Router = RouterBuilder::new(catalog)
    ///     .addressed_cache_control(HeaderValue::from_static("private, max-age=31536000, immutable"))
    ///     .build();
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn addressed_cache_control(mut self, value: HeaderValue) -> Self {
        self.public_knobs.push("addressed_cache_control");
        self.policy.addressed_cache_control = value;
        self
    }

    /// `Cache-Control` of error answers (`404`, `405`, `406`, `412`)
    /// (default [`DEFAULT_ERROR_CACHE_CONTROL`](crate::DEFAULT_ERROR_CACHE_CONTROL),
    /// `public, max-age=10`).
    pub fn error_cache_control(mut self, value: HeaderValue) -> Self {
        self.public_knobs.push("error_cache_control");
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
    /// If [`try_build`](Self::try_build) fails: a setting of the private policy that could
    /// leak one caller's answer to another. Merging the result panics if the app already has
    /// a route under `/.well-known/agent-skills/`.
    #[track_caller]
    pub fn build<S>(self) -> Router<S>
    where
        S: Clone + Send + Sync + 'static,
    {
        match self.try_build() {
            Ok(router) => router,
            Err(error) => panic!("{error}"),
        }
    }

    /// Prepares every answer and returns the router, or why its private policy cannot be
    /// used.
    ///
    /// # Errors
    ///
    /// A setting of [`Private`] that [`Private::check`] refuses, when the router has private
    /// views; a `Cache-Control` knob of this builder set for a router whose every view is
    /// private ([`PrivateError::PublicKnob`]).
    ///
    /// # Example
    ///
    /// ```
    /// use http::HeaderValue;
    /// use skillpub_axum::{Private, PrivateError, RouterBuilder};
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let leaky = RouterBuilder::new(catalog)
    ///     .private(Private::new())
    ///     .cache_control(HeaderValue::from_static("public, max-age=60"))
    ///     .try_build::<()>();
    /// assert_eq!(leaky.unwrap_err(), PrivateError::PublicKnob("cache_control"));
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn try_build<S>(self) -> Result<Router<S>, PrivateError>
    where
        S: Clone + Send + Sync + 'static,
    {
        let everything_private =
            self.private.is_some() && !matches!(self.source, Source::Callers(_));
        if everything_private && let Some(knob) = self.public_knobs.first() {
            return Err(PrivateError::PublicKnob(knob));
        }
        let rules = match &self.private {
            Some(private) => Some(Arc::new(private.rules()?)),
            None => None,
        };
        let policy = match (&rules, everything_private) {
            (Some(rules), true) => self.policy.private(rules),
            _ => self.policy.clone(),
        };
        let public_catalog = match &self.source {
            Source::Fixed(catalog) => Some(catalog.clone()),
            Source::Live(live) => Some(live.catalog()),
            Source::Hosts(_) | Source::Callers(_) => None,
        };
        let mut shared = policy.shared();
        if let Some(store) = self.store {
            let Some(catalog) = public_catalog.filter(|_| self.private.is_none()) else {
                return Err(PrivateError::StoreBesideViews);
            };
            let base_path = catalog.base_path().as_str();
            shared = shared.with_fetcher(Arc::new(Fetcher::new(store, base_path, policy.clone())));
        }
        let shared = Arc::new(shared);
        Ok(match self.source {
            Source::Fixed(catalog) => {
                let table = Table::new(&policy, &catalog, &Retained::default(), None);
                let answers = Answers::new(Arc::new(table), shared);
                routes(Router::new(), [&catalog], &answers)
            }
            Source::Live(live) => {
                // The folders and the API catalog as the first catalog publishes them; every
                // catalog after it is served on those routes.
                let first = live.catalog();
                let answers = LiveAnswers::new(live::follow(&live, policy), shared);
                routes(Router::new(), [&first], &answers)
            }
            Source::Hosts(hosts) => {
                let visibility = if everything_private {
                    Visibility::Private
                } else {
                    Visibility::Public
                };
                callers_routes(&self.policy, hosts.into_chooser(visibility), rules)?
            }
            Source::Callers(chooser) => callers_routes(&self.policy, chooser, rules)?,
        })
    }
}

/// The routes of a router that chooses a view per request: each view under the policy
/// of its visibility (the private one of `rules`, the defaults of [`Private`] when a view
/// is private and none was given), the public ones varying on the credential headers
/// when any view is private.
fn callers_routes<S>(
    base: &Policy,
    chooser: Arc<dyn Choose>,
    rules: Option<Arc<crate::policy::Rules>>,
) -> Result<Router<S>, PrivateError>
where
    S: Clone + Send + Sync + 'static,
{
    let views = chooser.views();
    let any_private = views.iter().any(|(_, v)| *v == Visibility::Private);
    let rules = match (rules, any_private) {
        (Some(rules), _) => Some(rules),
        (None, true) => Some(Arc::new(Private::new().rules()?)),
        (None, false) => None,
    };
    let policy_of = |visibility| match (&rules, visibility) {
        (Some(rules), Visibility::Private) => base.private(rules),
        (Some(rules), Visibility::Public) => base.beside(rules),
        (None, _) => base.clone(),
    };
    let catalogs: Vec<Catalog> = views.iter().map(|(live, _)| live.catalog()).collect();
    // A request that no view is for gets the errors of the strictest view.
    let nobody = policy_of(if any_private {
        Visibility::Private
    } else {
        Visibility::Public
    });
    let answers = CallerAnswers::new(chooser, &views, policy_of, &nobody);
    Ok(routes(Router::new(), &catalogs, &answers))
}

/// `router` with the routes to `service`: `/.well-known/agent-skills/` and everything under
/// it, and the legacy `/.well-known/skills/` and the API catalog when one of `catalogs`
/// publishes them. Every path under the folders is looked up in a table of prepared answers
/// (see `crate::policy`), so the router has a handful of routes whatever the catalog.
fn routes<'a, S, T>(
    router: Router<S>,
    catalogs: impl IntoIterator<Item = &'a Catalog>,
    service: &T,
) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    T: RouteService,
{
    let (mut legacy, mut api_catalog) = (false, false);
    for catalog in catalogs {
        legacy |= catalog.has_legacy_index();
        api_catalog |= catalog.artifacts().any(|a| a.path() == API_CATALOG_PATH);
    }
    // The index has an exact route of its own: it is what clients ask for most (an update
    // check asks for nothing else), and a route with a wildcard costs each request the
    // decoding of the path into a parameter (about 1,100 instructions, counted with
    // callgrind). The legacy index is alike.
    let mut router =
        folder_routes(router, WELL_KNOWN_PATH, service).route_service(INDEX_PATH, service.clone());
    if legacy {
        router = folder_routes(router, LEGACY_PATH, service)
            .route_service(LEGACY_INDEX_PATH, service.clone());
    }
    if api_catalog {
        router = router.route_service(API_CATALOG_PATH, service.clone());
    }
    router
}

/// A service that answers a route on its own: what `Router::route_service` takes, with
/// prepared answers that never fail.
trait RouteService:
    Service<
        http::Request<axum::body::Body>,
        Response = http::Response<axum::body::Body>,
        Error = std::convert::Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + Sync
    + 'static
{
}

impl<T> RouteService for T where
    T: Service<
            http::Request<axum::body::Body>,
            Response = http::Response<axum::body::Body>,
            Error = std::convert::Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + Sync
        + 'static
{
}

/// `folder` (with and without its trailing `/`) and every path under it, to `service`.
fn folder_routes<S, T>(router: Router<S>, folder: &str, service: &T) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    T: RouteService,
{
    router
        .route_service(folder.trim_end_matches('/'), service.clone())
        .route_service(folder, service.clone())
        .route_service(&format!("{folder}{{*path}}"), service.clone())
}
