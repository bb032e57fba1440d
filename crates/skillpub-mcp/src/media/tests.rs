//! The media types as rmcp reads them: for each `Accept` and `Content-Type`, whether a `POST`
//! is one the transport takes must be what rmcp decides, so that the endpoint never reads a
//! body rmcp would refuse unread, nor lets through one it would take.

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};

use super::{accepts, is_json_post};
use crate::HttpOptions;
use crate::http::rmcp_transport;

const ACCEPTS: &[&str] = &[
    "application/json, text/event-stream",
    "Application/JSON , Text/Event-Stream",
    "application/json;q=1, text/event-stream;q=0.5",
    "application/json, text/event-stream;q=0",
    "application/json, text/event-stream; q=0.000",
    "application/json, text/event-stream;Q=0.0",
    "application/json, text/event-stream;q=0.0000",
    "application/json, text/event-stream;q=00",
    "application/json, text/event-stream;q=0.x",
    "application/json, text/event-stream;q=",
    "application/json, text/event-stream;q",
    "application/json;q=0, text/event-stream",
    "application/json;q=0.001, text/event-stream",
    "application/json;foo=\"a,text/event-stream\"",
    "application/json;foo=\"a\\\",text/event-stream\"",
    "application/json;foo=\"a\",text/event-stream",
    "application/json;foo=\"a;q=0\", text/event-stream",
    "*/*",
    "application/*, text/*",
    "application/json",
    "text/event-stream",
    "application/json text/event-stream",
    "",
];

const CONTENT_TYPES: &[&str] = &[
    "application/json",
    "Application/Json; charset=utf-8",
    " application/json ;",
    "application/json, text/plain",
    "text/plain",
    "application/jsonx",
    "",
];

/// rmcp's verdict: `true` when it read the body (here, refused as not JSON-RPC: it is empty),
/// `false` when it refused the request from its headers.
async fn rmcp_takes(headers: &HeaderMap) -> bool {
    let mut request = Request::new(Full::new(Bytes::new()));
    *request.method_mut() = Method::POST;
    *request.uri_mut() = "/mcp".parse().unwrap();
    *request.headers_mut() = headers.clone();
    request
        .headers_mut()
        .insert("host", HeaderValue::from_static("localhost"));
    let answer = rmcp_transport(&HttpOptions::default())
        .handle(request)
        .await;
    let status = answer.status();
    let text = answer.into_body().collect().await.unwrap().to_bytes();
    match status {
        StatusCode::NOT_ACCEPTABLE => false,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => !text.starts_with(b"Unsupported Media Type"),
        other => panic!("{other}: {}", String::from_utf8_lossy(&text)),
    }
}

#[tokio::test]
async fn a_post_is_taken_exactly_when_rmcp_takes_it() {
    for accept in ACCEPTS {
        for content_type in CONTENT_TYPES {
            let mut headers = HeaderMap::new();
            headers.insert("accept", HeaderValue::from_str(accept).unwrap());
            headers.insert("content-type", HeaderValue::from_str(content_type).unwrap());
            assert_eq!(
                is_json_post(&headers),
                rmcp_takes(&headers).await,
                "Accept: {accept}; Content-Type: {content_type}"
            );
        }
    }
    // Several Accept headers count together.
    let mut headers = HeaderMap::new();
    headers.append("accept", HeaderValue::from_static("application/json"));
    headers.append("accept", HeaderValue::from_static("text/event-stream"));
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    assert!(is_json_post(&headers) && rmcp_takes(&headers).await);
}

#[test]
fn an_entry_weighted_zero_is_not_accepted() {
    let accept = |value: &str| {
        let mut headers = HeaderMap::new();
        headers.insert("accept", HeaderValue::from_str(value).unwrap());
        accepts(&headers, "text/event-stream")
    };
    assert!(accept("text/event-stream"));
    assert!(accept("TEXT/EVENT-STREAM;q=0.1"));
    assert!(!accept("text/event-stream;q=0"));
    assert!(!accept("text/event-stream ; q = 0.00"));
    assert!(accept("text/event-stream;q=0.0001"), "malformed: ignored");
    assert!(!accept("text/plain;x=\"text/event-stream\""));
}
