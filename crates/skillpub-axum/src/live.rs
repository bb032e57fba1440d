//! Routers over catalogs that change: one [`LiveCatalog`] ([`RouterBuilder::live`]), or one
//! per caller ([`RouterBuilder::callers`]; per host, [`RouterBuilder::hosts`], is the case
//! whose key is the host). Each follows its catalogs through a [`LiveView`] that prepares the table of every answer, by path, before a catalog is
//! published, with the artifacts the handle retains of the catalogs it replaced; a request
//! reads one snapshot and answers from it alone.
//!
//! [`RouterBuilder::live`]: crate::RouterBuilder::live
//! [`RouterBuilder::hosts`]: crate::RouterBuilder::hosts
//! [`RouterBuilder::callers`]: crate::RouterBuilder::callers

use std::convert::Infallible;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::Body;
use http::{Request, Response};
use skillpub_core::{Catalog, LiveCatalog, live::LiveView, live::Retained};

use crate::callers::{Choose, Visibility};
use crate::policy::{Answer, Policy, Shared, Table, answer};

/// Answers `request` from the table `view` publishes. The snapshot is read only while the
/// answer is picked (and, when it is ready, made): making an encoded variant, on the first
/// request for it, happens after, on the encoder, so it never holds up a replacement or other
/// requests.
fn answer_from<B>(
    view: &LiveView<Arc<Table>>,
    shared: &Arc<Shared>,
    request: Request<B>,
) -> Answer {
    view.read(|snapshot| {
        let hit = snapshot.prepared().get(request.uri().path());
        answer(hit, shared, request)
    })
}

/// How a router prepares the table of each catalog it follows.
struct Preparer {
    policy: Policy,
    /// The table of the newest catalog, whose answers the next one takes for the artifacts
    /// it keeps.
    last: Mutex<Option<Arc<Table>>>,
}

impl Preparer {
    /// Prepares the table of `catalog` and of what is `retained`, taking the answers the
    /// last table had.
    fn prepare(&self, catalog: &Catalog, retained: &Retained) -> Arc<Table> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let table = Arc::new(Table::new(&self.policy, catalog, retained, last.as_deref()));
        // Only the newest table is kept for the next one, so the answers of whatever it
        // dropped are freed with the snapshots that hold them.
        *last = Some(Arc::clone(&table));
        table
    }
}

/// Follows `live`: every catalog it publishes, and every end of a grace period, gets its
/// table prepared under `policy`. An artifact that the next table keeps keeps its answers,
/// and the encoded variants made so far.
pub(crate) fn follow(live: &LiveCatalog, policy: Policy) -> LiveView<Arc<Table>> {
    let preparer = Preparer {
        policy,
        last: Mutex::new(None),
    };
    live.view_with_retained(move |catalog, retained| preparer.prepare(catalog, retained))
}

/// The service of the folders of a live router: every path, looked up in the current table.
#[derive(Debug, Clone)]
pub(crate) struct LiveAnswers {
    view: LiveView<Arc<Table>>,
    shared: Arc<Shared>,
}

impl LiveAnswers {
    pub(crate) fn new(view: LiveView<Arc<Table>>, shared: Arc<Shared>) -> Self {
        Self { view, shared }
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
        answer_from(&self.view, &self.shared, request)
    }
}

/// A view of a per-caller router: the tables of its catalog, and its policy's shared answers.
type View = (LiveView<Arc<Table>>, Arc<Shared>);

/// The service of a per-caller (and per-host) router: the view the request's key chooses, or
/// none (every path is then unpublished, under the policy of the strictest view).
#[derive(Clone)]
pub(crate) struct CallerAnswers {
    chooser: Arc<dyn Choose>,
    views: Arc<[View]>,
    nobody: Arc<Shared>,
}

impl CallerAnswers {
    /// Follows every view of `chooser` (`views`, in its order), each under the policy
    /// `policy_of` its visibility; `nobody` is the policy of requests no view is for.
    pub(crate) fn new(
        chooser: Arc<dyn Choose>,
        views: &[(LiveCatalog, Visibility)],
        policy_of: impl Fn(Visibility) -> Policy,
        nobody: &Policy,
    ) -> Self {
        let views = views
            .iter()
            .map(|(live, visibility)| {
                let policy = policy_of(*visibility);
                let shared = Arc::new(policy.shared());
                (follow(live, policy), shared)
            })
            .collect();
        Self {
            chooser,
            views,
            nobody: Arc::new(nobody.shared()),
        }
    }
}

impl fmt::Debug for CallerAnswers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallerAnswers")
            .field("chooser", &self.chooser)
            .field("views", &self.views.len())
            .finish_non_exhaustive()
    }
}

impl tower::Service<Request<Body>> for CallerAnswers {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Answer;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        let chosen = self.chooser.choose(&mut request);
        match chosen.and_then(|index| self.views.get(index)) {
            Some((view, shared)) => answer_from(view, shared, request),
            None => answer(None, &self.nobody, request),
        }
    }
}
