//! [`McpService`]: the Streamable HTTP transport of a skills server (rmcp's stateless
//! transport, with skillpub's sessions in front of it when they are on) with a cap on the
//! event streams that clients hold open.
//!
//! Two kinds of response stay open for as long as the client likes: the `GET` stream of a
//! session (clients before 2026-07-28) and the stream of a `subscriptions/listen` request
//! (2026-07-28 clients). Each holds a connection, a task and a little memory for nothing the
//! client pays, so their number is capped ([`HttpOptions::max_streams`]); beyond the cap the
//! request gets `503` with `Retry-After` and a JSON-RPC error, [`TOO_MANY_STREAMS`].
//!
//! The transport answers every other request with JSON, or with an event stream that ends
//! with the answer (a session's requests, `initialize`), so the streams are told apart by
//! their response: an event stream that answers a `GET`, or a `POST` outside any session
//! (neither the request nor the response names one), is one that the client holds. The cap
//! is applied there, so no parse of the request can disagree with rmcp's; the request's id
//! for the error comes from its body, which is buffered for requests outside a session.

use std::convert::Infallible;
use std::fmt::{self, Display};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::{Buf, Bytes, BytesMut};
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body::{Body, Frame, SizeHint};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::model::{ErrorCode, ErrorData, JsonRpcError, RequestId};
use rmcp::transport::common::http_header::{EVENT_STREAM_MIME_TYPE, HEADER_SESSION_ID};
use tower::Service;

use crate::sessions::{BoxResponse, Endpoint, MAX_BODY};

#[cfg(doc)]
use crate::HttpOptions;

/// The event streams an endpoint holds open at most by default, of both kinds together: half
/// the common limit of 1,024 open files, so that streams alone never hold every descriptor of
/// a server at that limit. Raise it with the limit.
pub const DEFAULT_MAX_STREAMS: usize = 512;

/// The JSON-RPC error code beyond the cap on open streams: `-32000`, the first of the codes
/// JSON-RPC leaves to servers ("Server error"), which MCP does not use.
pub const TOO_MANY_STREAMS: ErrorCode = ErrorCode(-32000);

/// `Retry-After` beyond the cap, in seconds: rmcp's `retry` for event-stream clients (3 s),
/// the pace at which they reconnect anyway.
const RETRY_AFTER_SECONDS: u64 = 3;

/// The tower service of the Streamable HTTP transport for a skills server, with the cap on
/// open event streams; nest it at `/mcp`. Made by
/// [`McpSkills::streamable_http_service`](crate::McpSkills::streamable_http_service) and
/// [`LiveMcpSkills::streamable_http_service`](crate::LiveMcpSkills::streamable_http_service).
/// Cheap to clone; every clone serves the same sessions and counts the same streams.
///
/// # Example
///
/// ```
/// use http_body_util::Full;
/// use skillpub_mcp::{HttpOptions, McpSkills};
/// use tower::ServiceExt;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
/// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
/// let options = HttpOptions::default().stateful(true);
/// let mcp = McpSkills::new(catalog).streamable_http_service(options)?;
/// let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{
///     "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"doc","version":"1"}}}"#;
/// let request = http::Request::post("/mcp")
///     .header("host", "localhost")
///     .header("content-type", "application/json")
///     .header("accept", "application/json, text/event-stream")
///     .body(Full::new(bytes::Bytes::from(initialize)))?;
/// let answer = mcp.oneshot(request).await?;
/// assert_eq!(answer.status(), 200);
/// assert!(answer.headers().contains_key("mcp-session-id"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct McpService {
    transport: Endpoint,
    streams: Arc<Streams>,
}

impl McpService {
    pub(crate) fn new(transport: Endpoint, max_streams: usize) -> Self {
        Self {
            transport,
            streams: Arc::new(Streams {
                open: AtomicUsize::new(0),
                max: max_streams,
            }),
        }
    }

    /// The event streams open now.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let service = McpSkills::new(catalog).streamable_http_service(HttpOptions::default())?;
    /// assert_eq!(service.open_streams(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn open_streams(&self) -> usize {
        self.streams.open.load(Ordering::Acquire)
    }
}

impl fmt::Debug for McpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpService")
            .field("transport", &self.transport)
            .field("open_streams", &self.open_streams())
            .field("max_streams", &self.streams.max)
            .finish_non_exhaustive()
    }
}

impl<B> Service<Request<B>> for McpService
where
    B: Body + Send + 'static,
    B::Error: Display,
    B::Data: Send + 'static,
{
    type Response = BoxResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let transport = self.transport.clone();
        let streams = Arc::clone(&self.streams);
        Box::pin(async move {
            let get = request.method() == Method::GET;
            let in_session = request.headers().contains_key(HEADER_SESSION_ID);
            let (response, body) = if request.method() == Method::POST && !in_session {
                let limit = MAX_BODY;
                let (head, body) = request.into_parts();
                let body = match buffer(body, limit).await {
                    Ok(body) => body,
                    Err(error) => return Ok(unreadable(&error)),
                };
                let request = Request::from_parts(head, Full::new(body.clone()));
                (transport.handle(request).await, Some(body))
            } else {
                (transport.handle(request).await, None)
            };
            if !is_held_stream(&response, get, in_session) {
                return Ok(response);
            }
            Ok(match streams.take() {
                Some(slot) => response.map(|stream| {
                    BoxBody::new(Held {
                        stream,
                        _slot: slot,
                    })
                }),
                // Dropping the stream ends the listen (or leaves the session as it was).
                None => too_many(streams.max, body.as_deref().and_then(request_id)),
            })
        })
    }
}

/// Whether `response` is an event stream the client holds open: one that answers a `GET`, or
/// a `POST` outside any session.
fn is_held_stream<T>(response: &Response<T>, get: bool, in_session: bool) -> bool {
    let event_stream = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            skillpub_core::media::essence(value).eq_ignore_ascii_case(EVENT_STREAM_MIME_TYPE)
        });
    event_stream && (get || !(in_session || response.headers().contains_key(HEADER_SESSION_ID)))
}

/// The open streams and their cap.
#[derive(Debug)]
struct Streams {
    open: AtomicUsize,
    max: usize,
}

impl Streams {
    /// A place for one more stream, if there is one.
    fn take(self: &Arc<Self>) -> Option<Slot> {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.max).then_some(open + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(self)))
    }
}

/// One stream's place, given back when the stream is dropped.
#[derive(Debug)]
struct Slot(Arc<Streams>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An event stream holding its place.
struct Held {
    stream: BoxBody<Bytes, Infallible>,
    _slot: Slot,
}

impl Body for Held {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.stream).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.stream.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.stream.size_hint()
    }
}

/// The body, whole, or its first bytes past `limit` (for the transport to refuse with its
/// own `413`). A body of one piece is not copied.
async fn buffer<B>(body: B, limit: usize) -> Result<Bytes, B::Error>
where
    B: Body,
{
    let mut body = std::pin::pin!(body);
    let mut first: Option<Bytes> = None;
    let mut rest = BytesMut::new();
    let mut length = 0;
    while length <= limit {
        let Some(frame) = body.frame().await.transpose()? else {
            break;
        };
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        length += data.remaining();
        match &first {
            None => first = Some(data.copy_to_bytes(data.remaining())),
            Some(first) => {
                if rest.is_empty() {
                    rest.extend_from_slice(first);
                }
                while data.has_remaining() {
                    let chunk = data.chunk();
                    rest.extend_from_slice(chunk);
                    let read = chunk.len();
                    data.advance(read);
                }
            }
        }
    }
    Ok(if rest.is_empty() {
        first.unwrap_or_default()
    } else {
        rest.freeze()
    })
}

/// The `id` of a JSON-RPC request, if `body` is one.
fn request_id(body: &[u8]) -> Option<RequestId> {
    let message: serde_json::Value = serde_json::from_slice(body).ok()?;
    serde_json::from_value(message.get("id")?.clone()).ok()
}

/// `503` beyond the cap, with `Retry-After` and the JSON-RPC error for request `id`.
fn too_many(max: usize, id: Option<RequestId>) -> Response<BoxBody<Bytes, Infallible>> {
    let error = ErrorData::new(
        TOO_MANY_STREAMS,
        format!(
            "this server holds at most {max} open streams (subscriptions/listen and session \
             streams) and all are taken; retry after {RETRY_AFTER_SECONDS} s"
        ),
        Some(serde_json::json!({
            "maxStreams": max,
            "retryAfterSeconds": RETRY_AFTER_SECONDS,
        })),
    );
    let body = serde_json::to_vec(&JsonRpcError::new(id, error)).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}

/// `400` for a body that could not be read (the client went away, or sent broken framing).
fn unreadable(error: &impl Display) -> Response<BoxBody<Bytes, Infallible>> {
    let message = format!("Bad Request: cannot read the request body: {error}");
    let mut response = Response::new(Full::new(Bytes::from(message)).boxed());
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(content_type: &str, session: bool) -> Response<()> {
        let mut response = Response::new(());
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(content_type).unwrap(),
        );
        if session {
            response
                .headers_mut()
                .insert(HEADER_SESSION_ID, HeaderValue::from_static("abc"));
        }
        response
    }

    #[test]
    fn held_streams_are_event_streams_of_a_get_or_of_a_post_outside_any_session() {
        let events = answer("text/event-stream", false);
        assert!(
            is_held_stream(&events, true, true),
            "a session's GET stream"
        );
        assert!(is_held_stream(&events, false, false), "a listen stream");
        assert!(is_held_stream(
            &answer("Text/Event-Stream; charset=utf-8", false),
            false,
            false
        ));
        assert!(!is_held_stream(&events, false, true), "a session's request");
        assert!(
            !is_held_stream(&answer("text/event-stream", true), false, false),
            "the answer to initialize, which opens a session"
        );
        assert!(!is_held_stream(
            &answer("application/json", false),
            false,
            false
        ));
    }

    #[test]
    fn the_cap_gives_places_until_it_is_reached_and_takes_them_back() {
        let streams = Arc::new(Streams {
            open: AtomicUsize::new(0),
            max: 2,
        });
        let first = streams.take().unwrap();
        let _second = streams.take().unwrap();
        assert!(streams.take().is_none());
        drop(first);
        assert!(streams.take().is_some());
        let none = Arc::new(Streams {
            open: AtomicUsize::new(0),
            max: 0,
        });
        assert!(none.take().is_none(), "a cap of 0 refuses every stream");
    }

    #[tokio::test]
    async fn the_error_beyond_the_cap_names_the_request_and_the_cap() {
        let id = request_id(br#"{"jsonrpc":"2.0","id":"l-7","method":"subscriptions/listen"}"#);
        let response = too_many(4, id);
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "3");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let error: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(error["id"], "l-7");
        assert_eq!(error["error"]["code"], -32000);
        assert_eq!(error["error"]["data"]["maxStreams"], 4);
        assert_eq!(request_id(b"[1, 2]"), None);
        assert_eq!(request_id(b"not json"), None);
    }

    #[tokio::test]
    async fn a_body_is_buffered_whole_or_up_to_just_past_the_limit() {
        let pieces = |pieces: &[&'static [u8]]| Pieces(pieces.to_vec());
        assert_eq!(buffer(pieces(&[b"one"]), 10).await.unwrap(), "one");
        assert_eq!(
            buffer(pieces(&[b"one", b"two"]), 10).await.unwrap(),
            "onetwo"
        );
        assert_eq!(
            buffer(pieces(&[b"0123456", b"789ab", b"cdef"]), 10)
                .await
                .unwrap(),
            "0123456789ab",
            "stops at the first piece past the limit"
        );
    }

    /// A body of these pieces, one frame each.
    struct Pieces(Vec<&'static [u8]>);

    impl Body for Pieces {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            if self.0.is_empty() {
                return Poll::Ready(None);
            }
            let piece = self.0.remove(0);
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(piece)))))
        }
    }
}
