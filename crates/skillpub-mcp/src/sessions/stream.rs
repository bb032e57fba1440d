//! A session's event stream, the answer to its client's `GET`: a server-sent event with
//! `notifications/resources/list_changed` (or `prompts/list_changed`) for each list that
//! changed, and an empty comment every [`KEEP_ALIVE`] while nothing does.
//!
//! Nothing waits in a queue for a client that does not read: a task follows the catalog's
//! versions and hands the stream one event at a time (a channel of one), and while that
//! event is not taken, later changes of the same list coalesce into it. A stream therefore
//! holds at most one pending event and the bytes the HTTP connection buffers, however often
//! the catalog changes; on opening, it tells at once of every list that changed since its
//! session was opened, so that no change is lost before or between streams.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use rmcp::model::{ServerJsonRpcMessage, ServerNotification};
use tokio::sync::{Notify, mpsc};
use tokio::time::{Interval, MissedTickBehavior};

use super::registry::InFlight;
use super::service::BoxResponse;
use crate::live::{Changes, List, Listener};

/// How often an idle event stream sends an empty comment: often enough that proxies keep
/// it open and a connection whose client is gone fails to write (rmcp's interval).
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The `200` that opens the stream: `changes` from the versions its session started from,
/// until `ended` is told or the client goes away; `open` marks the session busy meanwhile.
pub(crate) fn event_stream(changes: Changes, ended: Arc<Notify>, open: InFlight) -> BoxResponse {
    let (sender, events) = mpsc::channel(1);
    tokio::spawn(async move {
        let sender = Events(sender);
        let until = async {
            tokio::select! {
                () = ended.notified() => {}
                () = sender.0.closed() => {}
            }
        };
        changes.tell(&sender, until).await;
    });
    let mut keep_alive =
        tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    keep_alive.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let body = EventStream {
        events,
        keep_alive,
        _open: open,
    };
    let mut response = Response::new(body.boxed());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The stream's side of the channel: the task tells it of each list, one event at a time.
struct Events(mpsc::Sender<Bytes>);

impl Listener for Events {
    async fn tell(&self, list: List) -> bool {
        self.0.send(event(list)).await.is_ok()
    }
}

/// The server-sent event that tells of `list`.
fn event(list: List) -> Bytes {
    let notification = match list {
        List::Resources => ServerNotification::ResourceListChangedNotification(Default::default()),
        List::Prompts => ServerNotification::PromptListChangedNotification(Default::default()),
    };
    let message = ServerJsonRpcMessage::notification(notification);
    let json = serde_json::to_string(&message).unwrap_or_default();
    Bytes::from(format!("data: {json}\n\n"))
}

/// The body of the stream: each event when it comes, an empty comment after
/// [`KEEP_ALIVE`] without one, and the end when the task stops telling.
struct EventStream {
    events: mpsc::Receiver<Bytes>,
    keep_alive: Interval,
    _open: InFlight,
}

impl Body for EventStream {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        match this.events.poll_recv(cx) {
            Poll::Ready(Some(event)) => {
                this.keep_alive.reset();
                return Poll::Ready(Some(Ok(Frame::data(event))));
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        ready!(this.keep_alive.poll_tick(cx));
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b":\n\n")))))
    }
}
