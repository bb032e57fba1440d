//! One connection: hyper's HTTP/1.1 state machine, and a supervisor beside it that closes the
//! connection when a timeout passes, when the accept loop reclaims it, or when the server
//! drains and it is quiet. Each request's body is read through the body budget, and each
//! response is looked at once to tell event streams apart.

use std::convert::Infallible;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::Router;
use axum::body::Body;
use axum::routing::future::RouteFuture;
use bytes::Bytes;
use http::{HeaderValue, Request, Response, header};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use pin_project_lite::pin_project;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::{Instant, sleep_until};
use tower::Service;

use super::activity::{Activity, Check, InFlight, Open, Timeouts};
use super::body::{Budget, Charge, RequestBody};
use super::io::Watched;

/// Serves one connection until the client or a timeout closes it (or its head grows past
/// `max_header_size`, which hyper answers with `431`), the accept loop reclaims it
/// while it is reclaimable, or the server drains (`draining` becomes true): then a quiet
/// connection closes at once and a busy one finishes its response first. Dropping the
/// returned future closes the socket.
pub(super) async fn serve(
    stream: TcpStream,
    app: Router,
    open: Open,
    timeouts: Timeouts,
    max_header_size: usize,
    budget: Arc<Budget>,
    mut draining: watch::Receiver<bool>,
) {
    let activity = Arc::clone(open.activity());
    let io = TokioIo::new(Watched::new(stream, Arc::clone(&activity)));
    let service = Tracked {
        app,
        activity: Arc::clone(&activity),
        budget,
    };
    let mut connection = pin!(
        hyper::server::conn::http1::Builder::new()
            .max_header_size(max_header_size)
            .serve_connection(io, service)
            .with_upgrades()
    );
    let mut finishing = false;
    loop {
        if !finishing && *draining.borrow_and_update() {
            if !activity.is_busy() {
                return;
            }
            connection.as_mut().graceful_shutdown();
            finishing = true;
        }
        let next = match timeouts.check(activity.state(), Instant::now()) {
            Check::Expired => return,
            Check::At(next) => next,
        };
        tokio::select! {
            biased;
            // Closed by the client, at the end of a response after a graceful shutdown, on a
            // protocol error, or upgraded: nothing more to do for this connection.
            _ = connection.as_mut() => return,
            changed = draining.changed(), if !finishing => {
                if changed.is_err() {
                    return;
                }
            }
            () = activity.reclaimed() => {
                if activity.is_reclaimable() {
                    return;
                }
                activity.decline_reclaim();
            }
            () = sleep_until(next) => {}
        }
    }
}

/// The app, counting each request in flight on the connection's [`Activity`] and reading its
/// body through the budget.
#[derive(Debug, Clone)]
struct Tracked {
    app: Router,
    activity: Arc<Activity>,
    budget: Arc<Budget>,
}

impl hyper::service::Service<Request<Incoming>> for Tracked {
    type Response = Response<TrackedBody>;
    type Error = Infallible;
    type Future = TrackedFuture;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let in_flight = self.activity.request_started();
        let (head, body) = request.into_parts();
        let charge = if http_body::Body::is_end_stream(&body) {
            None
        } else if let Some(refusal) = self.budget.refusal(&http_body::Body::size_hint(&body)) {
            return TrackedFuture {
                answer: Answer::Refused {
                    response: Some(refusal.response()),
                },
                in_flight: Some(in_flight),
            };
        } else {
            Some(Charge::new(&self.budget))
        };
        let body = RequestBody::new(body, &self.activity, charge.clone());
        // `Router<()>` is always ready, so it is called without `poll_ready`, as axum's own
        // server does through `oneshot`.
        let inner = self.app.clone().call(Request::from_parts(head, body));
        TrackedFuture {
            answer: Answer::Routed { inner, charge },
            in_flight: Some(in_flight),
        }
    }
}

pin_project! {
    /// What answers a request: the app, or the server itself when the body budget has no room
    /// for its body.
    #[project = AnswerProjection]
    enum Answer {
        Routed {
            #[pin]
            inner: RouteFuture<Infallible>,
            // The body's bytes stay counted until the app answers (and the body has ended).
            charge: Option<Arc<Charge>>,
        },
        Refused {
            response: Option<Response<Body>>,
        },
    }
}

pin_project! {
    /// The response, its body carrying the request's [`InFlight`] guard.
    struct TrackedFuture {
        #[pin]
        answer: Answer,
        in_flight: Option<InFlight>,
    }
}

impl Future for TrackedFuture {
    type Output = Result<Response<TrackedBody>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.answer.project() {
            AnswerProjection::Routed { inner, charge } => {
                let response = ready!(inner.poll(cx))?;
                // The app has answered: what it holds from now on is its answer, not the
                // request body, whose bytes are given back here (or when the body ends, if the
                // app still reads it).
                let refusal = charge.take().and_then(|charge| charge.refusal());
                // The app saw its body refused: the server's answer replaces whatever the app
                // made of that.
                match refusal {
                    Some(refusal) => refusal.replacing(response.headers()),
                    None => response,
                }
            }
            AnswerProjection::Refused { response } => {
                let Some(response) = response.take() else {
                    return Poll::Pending;
                };
                response
            }
        };
        let mut in_flight = this.in_flight.take();
        if let Some(in_flight) = &mut in_flight
            && is_event_stream(response.headers().get(header::CONTENT_TYPE))
        {
            in_flight.answered_with_event_stream();
        }
        Poll::Ready(Ok(response.map(|body| TrackedBody {
            body,
            _in_flight: in_flight,
        })))
    }
}

/// The media type of server-sent events.
const EVENT_STREAM: &str = "text/event-stream";

/// Whether a `Content-Type` is `text/event-stream` (server-sent events), parameters aside.
fn is_event_stream(content_type: Option<&HeaderValue>) -> bool {
    content_type
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            skillpub_core::media::essence(value).eq_ignore_ascii_case(EVENT_STREAM)
        })
}

pin_project! {
    /// A response body that keeps its request in flight until hyper drops it.
    struct TrackedBody {
        #[pin]
        body: Body,
        _in_flight: Option<InFlight>,
    }
}

impl http_body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        self.project().body.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
