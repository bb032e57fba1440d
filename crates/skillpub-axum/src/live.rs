//! Routers over catalogs that change: one [`LiveCatalog`] ([`RouterBuilder::live`]), or one
//! per host ([`RouterBuilder::hosts`]). Each follows its catalogs through a
//! [`LiveView`] that prepares every answer, by path, before a catalog is published; a request
//! loads one snapshot and answers from it alone.
//!
//! [`RouterBuilder::live`]: crate::RouterBuilder::live
//! [`RouterBuilder::hosts`]: crate::RouterBuilder::hosts

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::Body;
use http::{HeaderValue, Request, Response};
use skillpub_core::{Catalog, Digest, LiveCatalog, catalog::Artifact, live::LiveView};

use crate::hosts::{HostName, Hosts};
use crate::policy::{Answer, Policy, Resource, Shared, answer};

/// Maps looked up on every request by path or host: foldhash, seeded per map, hashes a path
/// several times faster than the standard SipHash. The keys are the catalog's paths and the
/// configured hosts, so a request can only make a look-up miss, never grow a map.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What identifies the answers of an artifact under one policy: its bytes (by digest) and
/// their type.
type Key = (Digest, &'static str);

/// The answers of artifacts, by what identifies them: paths that serve the same bytes as the
/// same type (the legacy layout, a file shared by several skills, an artifact that a new
/// catalog keeps) share one [`Resource`], so each encoded variant is made once.
#[derive(Debug, Default)]
pub(crate) struct Resources(HashMap<Key, Arc<Resource>>);

impl Resources {
    /// The answers for `artifact`: the ones made already for the same bytes and type, here or
    /// in `known`, or new ones.
    pub(crate) fn get_or_prepare(
        &mut self,
        policy: &Policy,
        artifact: &Artifact,
        known: Option<&Self>,
    ) -> Arc<Resource> {
        let key = (artifact.digest(), artifact.media_type());
        let resource = self.0.entry(key).or_insert_with(|| {
            let known = known.and_then(|known| known.0.get(&key));
            known.cloned().unwrap_or_else(|| {
                let content_type = HeaderValue::from_static(artifact.media_type());
                let body = artifact.bytes().clone();
                Arc::new(policy.resource(content_type, body, artifact.digest()))
            })
        });
        Arc::clone(resource)
    }
}

/// The answers of one catalog: by route of the router that prepared them, and by path.
#[derive(Debug)]
pub(crate) struct Published {
    /// The answers at each exact route of the router, in the order of its routes: `None`
    /// where this catalog publishes nothing.
    routed: Vec<Option<Arc<Resource>>>,
    by_path: FastMap<Box<str>, Arc<Resource>>,
}

impl Published {
    /// The answers at the exact route `route`, or else at `path`; `None` where nothing is
    /// published.
    fn resource(&self, route: Option<usize>, path: &str) -> Option<Arc<Resource>> {
        match route {
            Some(route) => self.routed.get(route).cloned().flatten(),
            None => self.by_path.get(path).cloned(),
        }
    }
}

/// Answers `request` from the answers `view` publishes at `route` or at its path. The
/// snapshot is read only to take those answers: making an encoded variant, on the first
/// request for it, happens after, on the encoder, so it never holds up a replacement or
/// other requests.
fn answer_from<B>(
    view: &LiveView<Published>,
    route: Option<usize>,
    shared: &Arc<Shared>,
    request: Request<B>,
) -> Answer {
    let path = request.uri().path();
    let resource = view.read(|snapshot| snapshot.prepared().resource(route, path));
    answer(resource.as_ref(), shared, request)
}

/// How a router prepares the answers of each catalog it follows.
struct Preparer {
    policy: Policy,
    /// The paths of the router's exact routes.
    routes: Vec<Box<str>>,
    /// The answers of the newest catalog, to reuse for the artifacts the next one keeps.
    last: Mutex<Resources>,
}

impl Preparer {
    /// Prepares every answer of `catalog`, reusing those of the artifacts the last catalog
    /// had.
    fn prepare(&self, catalog: &Catalog) -> Published {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let mut resources = Resources::default();
        let by_path: FastMap<Box<str>, Arc<Resource>> = catalog
            .served()
            .map(|(path, artifact)| {
                let resource = resources.get_or_prepare(&self.policy, artifact, Some(&last));
                (Box::from(path), resource)
            })
            .collect();
        let routed = self
            .routes
            .iter()
            .map(|path| by_path.get(path).cloned())
            .collect();
        // Only the newest catalog's answers are kept for the next one, so the answers of
        // whatever it dropped are freed with the snapshots that hold them.
        *last = resources;
        Published { routed, by_path }
    }
}

/// Follows `live`: every catalog it publishes gets its answers prepared under `policy`, for
/// a router with exact routes at `routes` (and routes by path for the rest). An artifact that
/// the next catalog keeps keeps its answers, and the encoded variants made so far.
pub(crate) fn follow(
    live: &LiveCatalog,
    policy: Policy,
    routes: Vec<Box<str>>,
) -> LiveView<Published> {
    let preparer = Preparer {
        policy,
        routes,
        last: Mutex::new(Resources::default()),
    };
    live.view(move |catalog| preparer.prepare(catalog))
}

/// The service of the routes of a live router: an exact route, whose answers each snapshot
/// has ready, or a folder, whose answers are found by path.
#[derive(Debug, Clone)]
pub(crate) struct LiveAnswers {
    view: LiveView<Published>,
    shared: Arc<Shared>,
    route: Option<usize>,
}

impl LiveAnswers {
    /// The service of the router's exact route number `route`, or of a folder (every path
    /// under it) for `None`.
    pub(crate) fn new(
        view: LiveView<Published>,
        shared: Arc<Shared>,
        route: Option<usize>,
    ) -> Self {
        Self {
            view,
            shared,
            route,
        }
    }
}

impl<B> tower::Service<Request<B>> for LiveAnswers {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Answer;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        answer_from(&self.view, self.route, &self.shared, request)
    }
}

/// The service of a per-host router: the catalog of the request's host, or the default one,
/// or none (every path is then unpublished).
#[derive(Clone)]
pub(crate) struct HostAnswers {
    by_host: Arc<FastMap<HostName, LiveView<Published>>>,
    default: Option<LiveView<Published>>,
    shared: Arc<Shared>,
}

impl HostAnswers {
    pub(crate) fn new(hosts: &Hosts, policy: &Policy, shared: Arc<Shared>) -> Self {
        let follow = |live| follow(live, policy.clone(), Vec::new());
        let by_host = hosts
            .names()
            .map(|(name, live)| (name.clone(), follow(live)))
            .collect();
        let default = hosts.default_live().map(follow);
        Self {
            by_host: Arc::new(by_host),
            default,
            shared,
        }
    }
}

impl fmt::Debug for HostAnswers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostAnswers")
            .field("hosts", &self.by_host.keys().collect::<Vec<_>>())
            .field("default", &self.default.is_some())
            .finish_non_exhaustive()
    }
}

impl<B> tower::Service<Request<B>> for HostAnswers {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Answer;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let view = HostName::of_request(&request)
            .and_then(|host| self.by_host.get(host.as_ref()))
            .or(self.default.as_ref());
        match view {
            Some(view) => answer_from(view, None, &self.shared, request),
            None => answer(None, &self.shared, request),
        }
    }
}
