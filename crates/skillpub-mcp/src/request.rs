//! [`Incoming`]: a request as the endpoint routes it, its body read once, and the few fields
//! of its JSON-RPC message that routing needs ([`Message`]).
//!
//! The body is read here and nowhere else: rmcp reads it again from these bytes (it takes a
//! body, not bytes), but a body of one piece is not copied on the way, and the session layer
//! and the stream cap read what they need from the same bytes without building the message.

use std::fmt::Display;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http::request::Parts;
use http::{HeaderMap, HeaderValue, Request};
use http_body::Body;
use http_body_util::{BodyExt, Full};
use rmcp::model::RequestId;
use rmcp::transport::common::http_header::{HEADER_MCP_PROTOCOL_VERSION, HEADER_SESSION_ID};
use serde::Deserialize;

use crate::answers::{self, BoxResponse};

/// The most bytes a request body may have: rmcp's limit, which it is given too.
pub(crate) const MAX_BODY: usize = 4 * 1024 * 1024;

/// A request with its body read (empty for the requests whose body nobody reads).
#[derive(Debug)]
pub(crate) struct Incoming {
    pub(crate) head: Parts,
    pub(crate) body: Bytes,
}

impl Incoming {
    /// The request as rmcp takes it.
    pub(crate) fn into_request(self) -> Request<Full<Bytes>> {
        Request::from_parts(self.head, Full::new(self.body))
    }

    pub(crate) fn headers(&self) -> &HeaderMap {
        &self.head.headers
    }

    /// The `Mcp-Session-Id` it names (a value that is not text names no session).
    pub(crate) fn session(&self) -> Option<&str> {
        self.headers()
            .get(HEADER_SESSION_ID)
            .map(|id| id.to_str().unwrap_or_default())
    }

    /// Its `MCP-Protocol-Version`.
    pub(crate) fn protocol_version(&self) -> Option<&HeaderValue> {
        self.headers().get(HEADER_MCP_PROTOCOL_VERSION)
    }

    /// What its body says, when it is a JSON-RPC message.
    pub(crate) fn message(&self) -> Option<Message> {
        Message::of(&self.body)
    }
}

/// The fields of a JSON-RPC message that routing needs; the rest is skipped unread.
#[derive(Debug, Deserialize)]
pub(crate) struct Message {
    pub(crate) id: Option<RequestId>,
    pub(crate) method: Option<String>,
    params: Option<Params>,
}

#[derive(Debug, Deserialize)]
struct Params {
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
}

#[derive(Debug, Deserialize)]
struct Meta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<String>,
}

impl Message {
    /// The message of a body, when it is a JSON-RPC message.
    pub(crate) fn of(body: &[u8]) -> Option<Self> {
        serde_json::from_slice(body).ok()
    }

    /// Whether it is a request (it has an `id`) for `method`.
    pub(crate) fn is_request_for(&self, method: &str) -> bool {
        self.id.is_some() && self.method.as_deref() == Some(method)
    }

    /// Whether it names its protocol version in its `_meta`, as requests from 2026-07-28 on
    /// do (rmcp then checks the version there, not in the header alone).
    pub(crate) fn names_its_version(&self) -> bool {
        self.id.is_some()
            && self
                .params
                .as_ref()
                .and_then(|params| params.meta.as_ref())
                .is_some_and(|meta| meta.protocol_version.is_some())
    }
}

/// The whole body, at most `limit` bytes: a body of one piece is not copied. Otherwise the
/// answer: `413` past the limit (at once when the body's length says so), `400` when it
/// cannot be read to its end.
pub(crate) async fn read<B>(body: B, limit: usize) -> Result<Bytes, BoxResponse>
where
    B: Body,
    B::Error: Display,
{
    let too_large = || answers::payload_too_large(limit);
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large());
    }
    let mut body = std::pin::pin!(body);
    let mut first: Option<Bytes> = None;
    let mut rest = BytesMut::new();
    let mut length = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| answers::unreadable_body(&error))?;
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        length += data.remaining();
        if length > limit {
            return Err(too_large());
        }
        match &first {
            None => first = Some(data.copy_to_bytes(data.remaining())),
            Some(first) => {
                if rest.is_empty() {
                    rest.extend_from_slice(first);
                }
                rest.put(data);
            }
        }
    }
    Ok(if rest.is_empty() {
        first.unwrap_or_default()
    } else {
        rest.freeze()
    })
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use http_body::{Frame, SizeHint};

    use super::*;

    /// A body of these pieces, one frame each, of unknown length.
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

        fn size_hint(&self) -> SizeHint {
            SizeHint::default()
        }
    }

    #[tokio::test]
    async fn a_body_is_read_whole_and_one_piece_is_not_copied() {
        let one = read(Pieces(vec![b"one"]), 10).await.unwrap();
        assert_eq!(one, "one");
        assert_eq!(one.as_ptr(), b"one".as_ptr(), "the piece itself");
        assert_eq!(
            read(Pieces(vec![b"one", b"two"]), 10).await.unwrap(),
            "onetwo"
        );
        assert_eq!(read(Pieces(vec![]), 10).await.unwrap(), "");
        assert_eq!(
            read(Pieces(vec![b"0123456789"]), 10).await.unwrap().len(),
            10
        );
    }

    #[tokio::test]
    async fn a_body_past_the_limit_is_413_before_it_is_read_when_its_length_says_so() {
        let answer = read(Pieces(vec![b"0123456", b"789ab"]), 10)
            .await
            .unwrap_err();
        assert_eq!(answer.status(), 413);
        let text = answer.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(text, "Payload Too Large: request body exceeds 10 bytes");
        let announced = Full::new(Bytes::from_static(b"0123456789ab"));
        assert_eq!(read(announced, 10).await.unwrap_err().status(), 413);
    }

    #[test]
    fn a_message_gives_what_routing_needs() {
        let message = |json: &str| serde_json::from_str::<Message>(json).unwrap();
        let initialize =
            message(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":[1,{"y":2}]}}"#);
        assert!(initialize.is_request_for("initialize"));
        assert!(!initialize.names_its_version());
        let listen = message(
            r#"{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        assert_eq!(listen.id, Some(RequestId::String("l".into())));
        assert!(listen.names_its_version());
        let notification = message(r#"{"jsonrpc":"2.0","method":"initialize"}"#);
        assert!(!notification.is_request_for("initialize"));
        assert!(serde_json::from_str::<Message>("[1, 2]").is_err());
    }
}
