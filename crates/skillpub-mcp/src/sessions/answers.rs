//! The answers the session layer gives itself. Those about sessions carry a JSON-RPC error
//! without `id`, as the transport allows for input the server cannot accept, with a message
//! that says what to do; the others are rmcp's answers to the same requests.

use std::fmt::Display;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::{BodyExt, Empty, Full};
use rmcp::model::{ErrorCode, ErrorData, ServerJsonRpcMessage};

use super::registry::Full as SessionsFull;
use super::service::{BoxResponse, MAX_BODY};

/// The JSON-RPC code of a refused session request (the range of server errors; the
/// TypeScript SDK answers a missing session the same way).
pub(crate) const SESSION_REFUSED: ErrorCode = ErrorCode(-32000);

/// The JSON-RPC code of an unknown session (as the TypeScript SDK).
pub(crate) const SESSION_NOT_FOUND: ErrorCode = ErrorCode(-32001);

/// `503` with `Retry-After`: every session is taken.
pub(crate) fn sessions_full(full: SessionsFull) -> BoxResponse {
    let seconds = full.retry_after.as_secs_f64().ceil().max(1.0) as u64;
    let message = format!(
        "This MCP server holds its maximum of {} sessions. Retry after {seconds} s, end the \
         sessions you no longer use with DELETE, or use protocol version 2026-07-28, which \
         needs no session.",
        full.max
    );
    let data = serde_json::json!({ "maxSessions": full.max, "retryAfterSeconds": seconds });
    let mut response = json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        SESSION_REFUSED,
        message,
        Some(data),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// `404`: no open session has this id, which the transport answers so that the client
/// opens a new one.
pub(crate) fn session_not_found() -> BoxResponse {
    json_error(
        StatusCode::NOT_FOUND,
        SESSION_NOT_FOUND,
        "Session not found: it ended, or it expired after its idle time without a request. \
         Send a new initialize without Mcp-Session-Id."
            .into(),
        None,
    )
}

/// `400`: a request that needs a session came without `Mcp-Session-Id`.
pub(crate) fn session_required() -> BoxResponse {
    json_error(
        StatusCode::BAD_REQUEST,
        SESSION_REFUSED,
        "Bad Request: Mcp-Session-Id header is required. Send initialize first and then the \
         Mcp-Session-Id of its answer with every request."
            .into(),
        None,
    )
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
        "Method Not Allowed: the catalog of this server is fixed, so it sends no notifications",
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
        "Not Acceptable: Client must accept text/event-stream",
    )
}

/// `400` to an `MCP-Protocol-Version` that rmcp does not know (rmcp's answer).
pub(crate) fn unsupported_version(version: &HeaderValue) -> BoxResponse {
    let version = String::from_utf8_lossy(version.as_bytes());
    text(
        StatusCode::BAD_REQUEST,
        &format!("Bad Request: Unsupported MCP-Protocol-Version: {version}"),
    )
}

/// `413` to a body over [`MAX_BODY`] (rmcp's answer).
pub(crate) fn payload_too_large() -> BoxResponse {
    text(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("Payload Too Large: request body exceeds {MAX_BODY} bytes"),
    )
}

/// `400` to a body that could not be read to its end.
pub(crate) fn unreadable_body(error: &dyn Display) -> BoxResponse {
    text(
        StatusCode::BAD_REQUEST,
        &format!("Bad Request: the request body could not be read: {error}"),
    )
}

fn json_error(
    status: StatusCode,
    code: ErrorCode,
    message: String,
    data: Option<serde_json::Value>,
) -> BoxResponse {
    let error = ServerJsonRpcMessage::error(ErrorData::new(code, message, data), None);
    let body = serde_json::to_vec(&error).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn text(status: StatusCode, text: &str) -> BoxResponse {
    let mut response = Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *response.status_mut() = status;
    response
}
