//! A session's event stream, the answer to its client's `GET`: a server-sent event with
//! `notifications/resources/list_changed` (or `prompts/list_changed`) for each list that
//! changed, and an empty comment every [`KEEP_ALIVE`] while nothing does.
//!
//! Nothing waits in a queue for a client that does not read: a task follows the catalog's
//! versions and hands the stream one event at a time (a channel of one), and while that
//! event is not taken, later changes of the same list coalesce into it. A stream therefore
//! holds at most one pending event and the bytes the HTTP connection buffers, however often
//! the catalog changes. On opening, it tells at once of every list that changed since its
//! session's streams last told it (since its session was opened, for the first), so that no
//! change is lost before or between streams, and none is told again by the next stream: each
//! event handed to the connection is recorded in the session as told.

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
use rmcp::transport::common::http_header::EVENT_STREAM_MIME_TYPE;
use tokio::sync::{Notify, mpsc};
use tokio::time::{Interval, MissedTickBehavior};

use super::registry::InFlight;
use crate::answers::BoxResponse;
use crate::live::{Changes, List, Listener, Versions};
use crate::streams::Slot;

/// How often an idle event stream sends an empty comment: often enough that proxies keep
/// it open and a connection whose client is gone fails to write (rmcp's interval).
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The `200` that opens the stream: `changes` from the versions its session's streams told,
/// until `ended` is told or the client goes away; `open` marks the session busy meanwhile,
/// and `slot` is the stream's place among the endpoint's open streams.
pub(crate) fn event_stream(
    changes: Changes,
    ended: Arc<Notify>,
    open: InFlight,
    slot: Slot,
) -> BoxResponse {
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
        open,
        _slot: slot,
    };
    let mut response = Response::new(body.boxed());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(EVENT_STREAM_MIME_TYPE),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// One event, with what it tells: that `list` changed, up to its version in `now`.
struct Event {
    bytes: Bytes,
    list: List,
    now: Versions,
}

/// The stream's side of the channel: the task tells it of each list, one event at a time.
struct Events(mpsc::Sender<Event>);

impl Listener for Events {
    async fn tell(&self, list: List, now: Versions) -> bool {
        let bytes = event(list);
        self.0.send(Event { bytes, list, now }).await.is_ok()
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
    events: mpsc::Receiver<Event>,
    keep_alive: Interval,
    open: InFlight,
    _slot: Slot,
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
                this.open.told(event.list, event.now);
                return Poll::Ready(Some(Ok(Frame::data(event.bytes))));
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        ready!(this.keep_alive.poll_tick(cx));
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b":\n\n")))))
    }
}
