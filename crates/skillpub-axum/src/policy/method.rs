//! Which prepared answer a request gets: `GET` and `HEAD` the artifact at its path (after
//! content negotiation and the conditional headers), `OPTIONS` the CORS preflight, any other
//! method `405` with `Allow`; a path where nothing is published gets `404` for every method
//! but `OPTIONS`.

use std::convert::Infallible;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::body::Body;
use http::{HeaderMap, HeaderValue, Method, Request, Response};

use super::address::Address;
use super::conditional::Condition;
use super::deferred::Ticket;
use super::prepared::Prepared;
use super::private::allow_credentials;
use super::resource::{Resource, Selected, Unavailable, Variant};
use super::shared::Shared;
use super::stored::Fetcher;
use super::table::{Hit, Table};
use crate::coding::Coding;
use skillpub_core::paths::is_addressed_artifact;

/// The service of the folders for one catalog: each path to the answers the table has there,
/// or to those of a path where nothing is published.
#[derive(Debug, Clone)]
pub(crate) struct Answers {
    table: Arc<Table>,
    shared: Arc<Shared>,
}

impl Answers {
    /// The answers of `table`.
    pub(crate) fn new(table: Arc<Table>, shared: Arc<Shared>) -> Self {
        Self { table, shared }
    }
}

/// Answers `request` on a path that publishes what `hit` says (`None` where nothing is
/// published): every router's one way to pick a prepared answer. The answer is ready at once,
/// unless it is an encoded variant not made yet: the future then waits for the encoder to
/// make it, without holding the thread it runs on.
// Inlined (with `Answer::poll`): about 100 instructions fewer on every request, counted with
// callgrind.
#[inline]
pub(crate) fn answer<B>(hit: Option<Hit<'_>>, shared: &Arc<Shared>, request: Request<B>) -> Answer {
    if hit.is_none()
        && let Some(fetcher) = &shared.fetcher
        && (request.method() == Method::GET || request.method() == Method::HEAD)
        && is_addressed_artifact(request.uri().path())
    {
        return from_store(fetcher, shared, request);
    }
    let method = request.method();
    let origin = shared.credentialed_origin(method, request.headers());
    match pick(
        hit,
        shared,
        request.uri().path(),
        method,
        request.headers(),
        Unavailable::default(),
    ) {
        Pick::Ready(ready) => {
            let mut response = ready.response(shared, method);
            if let Some(origin) = origin {
                allow_credentials(response.headers_mut(), origin);
            }
            Answer(State::Ready(Some(response)))
        }
        Pick::Pending(resource, address, coding) => {
            let (parts, _) = request.into_parts();
            Answer(State::Waiting(Box::new(Waiting {
                resource: Arc::clone(resource),
                address: address.map(Clone::clone),
                shared: Arc::clone(shared),
                method: parts.method,
                headers: parts.headers,
                coding,
                ticket: None,
                unavailable: Unavailable::default(),
                origin,
            })))
        }
    }
}

/// Answers an addressed path the table does not serve from what `fetcher`'s store holds:
/// at once if it was read before, else once it is read and checked.
fn from_store<B>(fetcher: &Arc<Fetcher>, shared: &Arc<Shared>, request: Request<B>) -> Answer {
    let path = request.uri().path();
    if let Some(stored) = fetcher.kept(path) {
        return answer(Some(stored.hit()), shared, request);
    }
    let reading = fetcher.fetch(path);
    let (parts, _) = request.into_parts();
    Answer(State::Fetching(Box::new(Fetching {
        reading,
        fetcher: Arc::clone(fetcher),
        shared: Arc::clone(shared),
        request: Request::from_parts(parts, ()),
    })))
}

/// A request whose artifact is being read from the store.
struct Fetching {
    reading: crate::store::StoreFetch,
    fetcher: Arc<Fetcher>,
    shared: Arc<Shared>,
    request: Request<()>,
}

impl fmt::Debug for Fetching {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fetching")
            .field("path", &self.request.uri().path())
            .finish_non_exhaustive()
    }
}

impl Fetching {
    /// The answer once the store has answered: the artifact if it gave the bytes the path
    /// names, else the `404` no cache keeps.
    fn poll_answer(&mut self, cx: &mut Context<'_>) -> Poll<Answer> {
        let fetched = ready!(self.reading.as_mut().poll(cx));
        let request = std::mem::take(&mut self.request);
        Poll::Ready(match self.fetcher.accept(request.uri().path(), fetched) {
            Some(stored) => answer(Some(stored.hit()), &self.shared, request),
            None => {
                let missing = self.shared.not_found_at(request.uri().path());
                Answer(State::Ready(Some(missing.response(request.method()))))
            }
        })
    }
}

/// The answer a request gets, or the variant it waits for.
enum Pick<'a> {
    Ready(Ready<'a>),
    /// The variant of `resource` in this coding, not made yet.
    Pending(&'a Arc<Resource>, Address<&'a HeaderValue>, Coding),
}

/// An answer that can be sent at once.
enum Ready<'a> {
    /// One of the answers every path shares (errors, preflight).
    Shared(&'a Prepared),
    /// The `200` of a variant.
    Ok(&'a Resource, &'a Variant, Address<&'a HeaderValue>),
    /// The `304` of a variant.
    NotModified(&'a Resource, &'a Variant, Address<&'a HeaderValue>),
}

impl Ready<'_> {
    fn response(&self, shared: &Shared, method: &Method) -> Response<Body> {
        match *self {
            Self::Shared(prepared) => prepared.response(method),
            Self::Ok(resource, variant, address) => {
                shared.templates.ok(resource, variant, address, method)
            }
            Self::NotModified(resource, variant, address) => {
                shared.templates.not_modified(resource, variant, address)
            }
        }
    }
}

/// The answer to `method` at `path`, which publishes what `hit` says.
fn pick<'a>(
    hit: Option<Hit<'a>>,
    shared: &'a Shared,
    path: &str,
    method: &Method,
    headers: &HeaderMap,
    unavailable: Unavailable,
) -> Pick<'a> {
    Pick::Ready(match (hit, method) {
        // A preflight asks whether the method is allowed, not whether the path exists;
        // the request that follows it gets the 404, readable by the page thanks to CORS.
        (_, &Method::OPTIONS) => Ready::Shared(&shared.preflight),
        (None, _) => Ready::Shared(shared.not_found_at(path)),
        (Some(Hit { resource, address }), &Method::GET | &Method::HEAD) => {
            // Negotiation first: preconditions only apply to what would be a 2xx
            // (RFC 9110, 13.2.1).
            let variant = match resource.select(headers, unavailable) {
                Selected::Variant(variant) => variant,
                Selected::NotAcceptable => {
                    return Pick::Ready(Ready::Shared(&shared.not_acceptable));
                }
                Selected::Pending(coding) => return Pick::Pending(resource, address, coding),
            };
            match Condition::of(headers, variant.etag.as_bytes()) {
                Condition::Send => Ready::Ok(resource, variant, address),
                Condition::NotModified => Ready::NotModified(resource, variant, address),
                Condition::Failed => Ready::Shared(&shared.precondition_failed),
            }
        }
        (Some(_), _) => Ready::Shared(&shared.method_not_allowed),
    })
}

/// The future of an answer: ready, or waiting for a variant.
#[derive(Debug)]
pub(crate) struct Answer(State);

#[derive(Debug)]
enum State {
    /// The answer, until it is taken.
    Ready(Option<Response<Body>>),
    /// Boxed, so that the ready answers, nearly all of them, stay small.
    Waiting(Box<Waiting>),
    /// Reading the artifact from a shared store.
    Fetching(Box<Fetching>),
}

/// A request that waits for a variant: what is needed to pick its answer again once the
/// variant is made.
#[derive(Debug)]
struct Waiting {
    resource: Arc<Resource>,
    address: Address<HeaderValue>,
    shared: Arc<Shared>,
    method: Method,
    headers: HeaderMap,
    /// The coding of the variant waited for.
    coding: Coding,
    ticket: Option<Ticket>,
    /// The codings whose making failed while this request waited.
    unavailable: Unavailable,
    /// The origin its answer names back, if any (see `Shared::credentialed_origin`).
    origin: Option<HeaderValue>,
}

impl Future for Answer {
    type Output = Result<Response<Body>, Infallible>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let waiting = match &mut self.0 {
            State::Ready(response) => {
                return Poll::Ready(Ok(response.take().expect("an answer is polled once done")));
            }
            State::Waiting(waiting) => waiting,
            // The answer made from what the store gave has its artifact: polled once more, it
            // is ready or waits for a variant, and never reads the store again.
            State::Fetching(fetching) => {
                let next = ready!(fetching.poll_answer(cx));
                self.0 = next.0;
                return self.poll(cx);
            }
        };
        // At most twice: a variant, once made or failed, is never pending again.
        loop {
            let made = ready!(waiting.resource.poll_variant(
                waiting.coding,
                &mut waiting.ticket,
                cx
            ));
            if !made {
                waiting.unavailable = waiting.unavailable.and(waiting.coding);
            }
            let hit = Hit {
                resource: &waiting.resource,
                address: waiting.address.as_ref(),
            };
            // The path only matters where nothing is published.
            let pick = pick(
                Some(hit),
                &waiting.shared,
                "",
                &waiting.method,
                &waiting.headers,
                waiting.unavailable,
            );
            match pick {
                Pick::Ready(ready) => {
                    let mut response = ready.response(&waiting.shared, &waiting.method);
                    if let Some(origin) = waiting.origin.take() {
                        allow_credentials(response.headers_mut(), origin);
                    }
                    return Poll::Ready(Ok(response));
                }
                Pick::Pending(_, _, coding) => waiting.coding = coding,
            }
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(ticket) = self.ticket.take() {
            self.resource.forget(self.coding, ticket);
        }
    }
}

impl<B> tower::Service<Request<B>> for Answers {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Answer;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let hit = self.table.get(request.uri().path());
        answer(hit, &self.shared, request)
    }
}
