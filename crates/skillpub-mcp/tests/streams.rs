//! The cap on open event streams over real TCP on 127.0.0.1: `subscriptions/listen` streams
//! and sessions' `GET` streams count together; beyond the cap a stream request gets `503`
//! with `Retry-After` and a JSON-RPC error naming it, while every other request is answered;
//! and the place of a client that leaves is free again.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use skillpub_core::{Catalog, LiveCatalog, Skill};
use skillpub_mcp::{HttpOptions, McpSkills};
use skillpub_testkit::{Response, finish_response, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{sleep, timeout};

#[expect(
    dead_code,
    reason = "serve_mcp serves a fixed catalog; these tests serve a live one"
)]
mod peers;
use peers::{INITIALIZE, post_mcp};

/// How long an answer may take: generous, the machine may be loaded.
const ANSWERED_WITHIN: Duration = Duration::from_secs(10);

/// `subscriptions/listen` of a 2026-07-28 client, with this request id.
fn listen(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"subscriptions/listen","params":{{"notifications":{{"resourcesListChanged":true}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

/// A live catalog's well-known routes and MCP at `/mcp`, with sessions and this stream cap.
async fn serve_live(max_streams: usize) -> SocketAddr {
    let live = LiveCatalog::new(
        Catalog::new([Skill::from_static(
            "---\nname: alpha\ndescription: Does alpha.\n---\nA.\n",
        )])
        .unwrap(),
    );
    let mcp = McpSkills::live(live.clone()).build().unwrap();
    let options = HttpOptions::default()
        .stateful(true)
        .max_streams(max_streams);
    let app = Router::new()
        .merge(skillpub_axum::live_router(live))
        .nest_service("/mcp", mcp.streamable_http_service(options).unwrap());
    serve(app).await
}

/// What a request for a stream got: the stream, held open, or a whole answer.
enum Stream {
    Open(TcpStream),
    Refused(Response),
}

/// Sends `head` (and `body`) on a new connection and reads the answer's head: an event
/// stream is kept open, anything else is read whole.
async fn ask_for_stream(addr: SocketAddr, head: &str, body: &str) -> Stream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("{head}\r\n{body}").as_bytes())
        .await
        .unwrap();
    let mut raw = Vec::new();
    let read_head = async {
        while !raw.windows(4).any(|window| window == b"\r\n\r\n") {
            let mut chunk = [0; 4096];
            let read = stream.read(&mut chunk).await.unwrap();
            assert!(read > 0, "closed before an answer");
            raw.extend_from_slice(&chunk[..read]);
        }
    };
    timeout(ANSWERED_WITHIN, read_head)
        .await
        .expect("no answer within the bound");
    let head = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    if head.starts_with("http/1.1 200") && head.contains("content-type: text/event-stream") {
        Stream::Open(stream)
    } else {
        Stream::Refused(finish_response(&mut stream, raw).await)
    }
}

async fn open_listen(addr: SocketAddr, id: &str) -> Stream {
    let body = listen(id);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n",
        body.len()
    );
    ask_for_stream(addr, &head, &body).await
}

/// A new session (clients before 2026-07-28) and its `GET` stream.
async fn open_session_stream(addr: SocketAddr) -> Stream {
    let opened = post_mcp(addr, &[], INITIALIZE).await;
    let session = opened
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("no session: {}", opened.head))
        .to_owned();
    let session_headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    post_mcp(addr, &session_headers, initialized).await;
    let head = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
    );
    ask_for_stream(addr, &head, "").await
}

#[track_caller]
fn opened(stream: Stream) -> TcpStream {
    match stream {
        Stream::Open(stream) => stream,
        Stream::Refused(answer) => panic!("refused: {} {}", answer.head, answer.text()),
    }
}

#[track_caller]
fn refused(stream: Stream) -> Response {
    match stream {
        Stream::Open(_) => panic!("a stream was opened beyond the cap"),
        Stream::Refused(answer) => answer,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn beyond_the_stream_cap_a_listen_gets_503_and_a_json_rpc_error_and_other_requests_pass() {
    let addr = serve_live(2).await;
    // One listen and one session stream: the two places.
    let first = opened(open_listen(addr, "listen-1").await);
    let _session = opened(open_session_stream(addr).await);

    let answer = refused(open_listen(addr, "listen-3").await);
    assert_eq!(answer.status, 503, "{}", answer.head);
    assert_eq!(answer.header("retry-after"), Some("3"), "{}", answer.head);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let error: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
    assert_eq!(error["jsonrpc"], "2.0");
    assert_eq!(error["id"], "listen-3", "{error}");
    assert_eq!(
        error["error"]["code"],
        skillpub_mcp::TOO_MANY_STREAMS.0,
        "{error}"
    );
    assert_eq!(error["error"]["data"]["maxStreams"], 2, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 2 open streams"), "{message}");

    // A session's stream counts the same.
    let answer = refused(open_session_stream(addr).await);
    assert_eq!(answer.status, 503, "{}", answer.head);

    // Requests that are not streams are answered at the cap: a session opens, the index reads.
    let session = post_mcp(addr, &[], INITIALIZE).await;
    assert_eq!(session.status, 200, "{}", session.head);
    let index = skillpub_testkit::request(addr, "GET", skillpub_core::paths::INDEX_PATH, &[]).await;
    assert_eq!(index.status, 200);

    // The first client leaves: its place is free again once the server sees it gone.
    drop(first);
    let started = Instant::now();
    loop {
        match open_listen(addr, "listen-4").await {
            Stream::Open(_) => break,
            Stream::Refused(answer) => {
                assert_eq!(answer.status, 503, "{}", answer.head);
                assert!(
                    started.elapsed() < ANSWERED_WITHIN,
                    "the place of a client that left is still taken"
                );
                sleep(Duration::from_millis(50)).await;
            }
        }
    }
}
