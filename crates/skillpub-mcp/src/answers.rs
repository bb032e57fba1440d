//! Every answer the endpoint gives itself, rather than rmcp: the refusals of the stream cap
//! and of the sessions, the session layer's own answers, and those it gives in rmcp's place
//! (the `Host` and `Origin` checks, a body that cannot be read or is too large, a version it
//! does not know), with rmcp's texts.
//!
//! The refusals a client acts on carry a JSON-RPC error with a code of its own in the range
//! JSON-RPC leaves to servers, and a message that says what to do; they have no `id` but the
//! stream cap's, as the transport allows for input the server cannot accept. The others are
//! plain text, as rmcp's.

use std::fmt::Display;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty, Full};
use rmcp::model::{ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::common::http_header::JSON_MIME_TYPE;

/// What every answer of the endpoint is.
pub(crate) type BoxResponse = Response<BoxBody<Bytes, std::convert::Infallible>>;

/// The JSON-RPC error code beyond the cap on open event streams
/// ([`HttpOptions::with_max_streams`](crate::HttpOptions::with_max_streams)): `-32000`, with
/// `503 Service Unavailable`, `Retry-After` and `data: {"maxStreams", "retryAfterSeconds"}`.
pub const TOO_MANY_STREAMS: ErrorCode = ErrorCode(-32000);

/// The JSON-RPC error code of a request whose `Mcp-Session-Id` names no open session (it
/// ended, was evicted or expired, or never was): `-32001`, the TypeScript SDK's, with
/// `404 Not Found`. The client sends a new `initialize`, as the transport says.
pub const SESSION_NOT_FOUND: ErrorCode = ErrorCode(-32001);

/// The JSON-RPC error code of an `initialize` refused because every session has a request
/// in progress ([`HttpOptions::with_max_sessions`](crate::HttpOptions::with_max_sessions)):
/// `-32003`, with `503 Service Unavailable`, `Retry-After` and
/// `data: {"maxSessions", "retryAfterSeconds"}`. (`-32002` is MCP's resource not found.)
pub const TOO_MANY_SESSIONS: ErrorCode = ErrorCode(-32003);

/// The JSON-RPC error code of a request that needs a session and came without
/// `Mcp-Session-Id`: `-32004`, with `400 Bad Request`.
pub const SESSION_REQUIRED: ErrorCode = ErrorCode(-32004);

/// `Retry-After` of both `503`s, in seconds: rmcp's `retry` for event-stream clients, the pace
/// at which they reconnect anyway. A place is free again as soon as a stream or a request ends.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(3);

/// `503` beyond the cap on open streams, for the request `id` when it is known.
pub(crate) fn too_many_streams(max: usize, id: Option<RequestId>) -> BoxResponse {
    let seconds = RETRY_AFTER.as_secs();
    let message = format!(
        "This MCP server holds at most {max} open streams (subscriptions/listen and session \
         streams) and all are taken. Retry after {seconds} s."
    );
    let data = serde_json::json!({ "maxStreams": max, "retryAfterSeconds": seconds });
    let error = ErrorData::new(TOO_MANY_STREAMS, message, Some(data));
    retry_later(json_error(StatusCode::SERVICE_UNAVAILABLE, error, id))
}

/// `503` to an `initialize` when every one of the `max` sessions is busy.
pub(crate) fn too_many_sessions(max: usize) -> BoxResponse {
    let seconds = RETRY_AFTER.as_secs();
    let message = format!(
        "This MCP server holds at most {max} sessions and every one has a request in \
         progress. Retry after {seconds} s, or use protocol version 2026-07-28, which needs \
         no session."
    );
    let data = serde_json::json!({ "maxSessions": max, "retryAfterSeconds": seconds });
    let error = ErrorData::new(TOO_MANY_SESSIONS, message, Some(data));
    retry_later(json_error(StatusCode::SERVICE_UNAVAILABLE, error, None))
}

fn retry_later(mut response: BoxResponse) -> BoxResponse {
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(RETRY_AFTER.as_secs()),
    );
    response
}

/// `404`: no open session has this id.
pub(crate) fn session_not_found() -> BoxResponse {
    let message = "Session not found: it ended, or made room for a new one, or expired after \
                   its idle time without a request. Send a new initialize without \
                   Mcp-Session-Id.";
    let error = ErrorData::new(SESSION_NOT_FOUND, message, None);
    json_error(StatusCode::NOT_FOUND, error, None)
}

/// `400`: a request that needs a session came without `Mcp-Session-Id`.
pub(crate) fn session_required() -> BoxResponse {
    let message = "Bad Request: Mcp-Session-Id header is required. Send initialize first and \
                   then the Mcp-Session-Id of its answer with every request.";
    let error = ErrorData::new(SESSION_REQUIRED, message, None);
    json_error(StatusCode::BAD_REQUEST, error, None)
}

/// `204`: the session of a `DELETE` ended. (rmcp answered `202`, which the Python SDK logs
/// as a failed termination; every client takes `204`.)
pub(crate) fn session_ended() -> BoxResponse {
    let mut response = Response::new(Empty::new().boxed());
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

/// `405` to a `GET` when the catalog is fixed: the server never has anything to tell.
pub(crate) fn no_event_stream() -> BoxResponse {
    let mut response = text(
        StatusCode::METHOD_NOT_ALLOWED,
        "Method Not Allowed: the catalog of this server is fixed, so it sends no notifications"
            .to_owned(),
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
    response
}

/// `406` to a `GET` that does not accept an event stream (rmcp's answer).
pub(crate) fn not_acceptable() -> BoxResponse {
    text(
        StatusCode::NOT_ACCEPTABLE,
        "Not Acceptable: Client must accept text/event-stream".to_owned(),
    )
}

/// `400` to an `MCP-Protocol-Version` that rmcp does not know (rmcp's answer).
pub(crate) fn unsupported_version(version: &HeaderValue) -> BoxResponse {
    let version = String::from_utf8_lossy(version.as_bytes());
    text(
        StatusCode::BAD_REQUEST,
        format!("Bad Request: Unsupported MCP-Protocol-Version: {version}"),
    )
}

/// `413` to a body over `limit` bytes (rmcp's answer).
pub(crate) fn payload_too_large(limit: usize) -> BoxResponse {
    text(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload Too Large: request body exceeds {limit} bytes"),
    )
}

/// `400` to a body that could not be read to its end (the client went away, or sent broken
/// framing).
pub(crate) fn unreadable_body(error: &dyn Display) -> BoxResponse {
    text(
        StatusCode::BAD_REQUEST,
        format!("Bad Request: the request body could not be read: {error}"),
    )
}

/// `403` to a `Host` or `Origin` that is not allowed, with rmcp's text.
pub(crate) fn forbidden(message: &'static str) -> BoxResponse {
    text(StatusCode::FORBIDDEN, message.to_owned())
}

/// `400` to a `Host` that cannot be read, with rmcp's text.
pub(crate) fn bad_host(message: &'static str) -> BoxResponse {
    text(StatusCode::BAD_REQUEST, message.to_owned())
}

fn json_error(status: StatusCode, error: ErrorData, id: Option<RequestId>) -> BoxResponse {
    let message = ServerJsonRpcMessage::error(error, id);
    let body = serde_json::to_vec(&message).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(JSON_MIME_TYPE),
    );
    response
}

fn text(status: StatusCode, text: String) -> BoxResponse {
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(response: BoxResponse) -> serde_json::Value {
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn the_refusals_a_client_acts_on_have_codes_of_their_own() {
        let codes = [
            TOO_MANY_STREAMS,
            SESSION_NOT_FOUND,
            TOO_MANY_SESSIONS,
            SESSION_REQUIRED,
        ];
        for (i, code) in codes.iter().enumerate() {
            assert!((-32099..=-32000).contains(&code.0), "{code:?}");
            assert!(!codes[i + 1..].contains(code), "{code:?} twice");
        }
        let answers = [
            (too_many_streams(4, None), TOO_MANY_STREAMS, 503),
            (session_not_found(), SESSION_NOT_FOUND, 404),
            (too_many_sessions(4), TOO_MANY_SESSIONS, 503),
            (session_required(), SESSION_REQUIRED, 400),
        ];
        for (answer, code, status) in answers {
            assert_eq!(answer.status(), status);
            assert_eq!(answer.headers()[header::CONTENT_TYPE], JSON_MIME_TYPE);
            if status == 503 {
                assert_eq!(answer.headers()[header::RETRY_AFTER], "3");
            }
            assert_eq!(body(answer).await["error"]["code"], code.0);
        }
    }

    #[tokio::test]
    async fn the_error_beyond_the_stream_cap_names_the_request_and_the_cap() {
        let answer = too_many_streams(4, Some(RequestId::Number(7)));
        let error = body(answer).await;
        assert_eq!(error["id"], 7);
        assert_eq!(error["error"]["data"]["maxStreams"], 4);
        assert_eq!(error["error"]["data"]["retryAfterSeconds"], 3);
    }

    #[test]
    fn text_answers_say_they_are_text() {
        for answer in [
            not_acceptable(),
            payload_too_large(10),
            unreadable_body(&"reset"),
            forbidden("Forbidden: Origin header is not allowed"),
            no_event_stream(),
        ] {
            assert_eq!(
                answer.headers()[header::CONTENT_TYPE],
                "text/plain; charset=utf-8"
            );
        }
    }
}
