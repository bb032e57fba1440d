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

fn alpha() -> Catalog {
    Catalog::new([Skill::from_static(
        "---\nname: alpha\ndescription: Does alpha.\n---\nA.\n",
    )])
    .unwrap()
}

fn alpha_and_beta() -> Catalog {
    Catalog::new([
        Skill::from_static("---\nname: alpha\ndescription: Does alpha.\n---\nA.\n"),
        Skill::from_static("---\nname: beta\ndescription: Does beta.\n---\nB.\n"),
    ])
    .unwrap()
}

/// A live catalog's well-known routes and MCP at `/mcp`, with sessions and this stream cap.
async fn serve_live(max_streams: usize) -> SocketAddr {
    serve_live_with(max_streams, true).await.0
}

/// [`serve_live`], with sessions or without, and the live catalog.
async fn serve_live_with(max_streams: usize, stateful: bool) -> (SocketAddr, LiveCatalog) {
    let live = LiveCatalog::new(alpha());
    let mcp = McpSkills::live(live.clone()).build().unwrap();
    let options = HttpOptions::default()
        .with_stateful(stateful)
        .with_max_streams(max_streams);
    let app = Router::new()
        .merge(skillpub_axum::live_router(live.clone()))
        .nest_service("/mcp", mcp.streamable_http_service(options).unwrap());
    (serve(app).await, live)
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
    open_listen_with(addr, id, "").await
}

/// [`open_listen`], with `extra` header lines in its head.
async fn open_listen_with(addr: SocketAddr, id: &str, extra: &str) -> Stream {
    let body = listen(id);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n{extra}Content-Length: {}\r\n",
        body.len()
    );
    ask_for_stream(addr, &head, &body).await
}

/// A new session (clients before 2026-07-28) and its `GET` stream.
async fn open_session_stream(addr: SocketAddr) -> Stream {
    let session = open_session(addr).await;
    session_stream(addr, &session).await
}

/// `initialize` and `notifications/initialized`: the new session's id.
async fn open_session(addr: SocketAddr) -> String {
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
    session
}

/// The `GET` stream of the session `session`.
async fn session_stream(addr: SocketAddr, session: &str) -> Stream {
    let head = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
    );
    ask_for_stream(addr, &head, "").await
}

/// Reads `stream` until `text` has arrived; what arrived.
async fn read_until(stream: &mut TcpStream, text: &str) -> String {
    let mut read = Vec::new();
    let reading = async {
        while !String::from_utf8_lossy(&read).contains(text) {
            let mut chunk = [0; 4096];
            let got = stream.read(&mut chunk).await.unwrap();
            assert!(got > 0, "closed: {}", String::from_utf8_lossy(&read));
            read.extend_from_slice(&chunk[..got]);
        }
    };
    timeout(ANSWERED_WITHIN, reading)
        .await
        .unwrap_or_else(|_| panic!("{text} did not arrive: {}", String::from_utf8_lossy(&read)));
    String::from_utf8_lossy(&read).into_owned()
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

#[tokio::test(flavor = "multi_thread")]
async fn a_session_header_does_not_take_a_listen_past_the_cap_with_sessions_or_without() {
    for stateful in [false, true] {
        let (addr, _live) = serve_live_with(1, stateful).await;
        let _first = opened(open_listen(addr, "listen-1").await);
        assert_eq!(refused(open_listen(addr, "listen-2").await).status, 503);
        // rmcp's stateless transport ignores `Mcp-Session-Id`, and so does the cap: the
        // header, of no session at all, changes nothing.
        let header = "Mcp-Session-Id: 00000000-0000-0000-0000-000000000000\r\n";
        for attempt in 0..5 {
            let answer = refused(open_listen_with(addr, &format!("with-{attempt}"), header).await);
            assert_eq!(answer.status, 503, "stateful: {stateful}; {}", answer.head);
            let error: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
            assert_eq!(error["id"], format!("with-{attempt}"), "{error}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_get_beyond_the_cap_leaves_the_open_stream_of_its_session_working() {
    let (addr, live) = serve_live_with(1, true).await;
    let session = open_session(addr).await;
    let mut working = opened(session_stream(addr, &session).await);

    // A second GET of the same session finds no place: refused, and the stream open before
    // it is not ended for a stream that never opened.
    let answer = refused(session_stream(addr, &session).await);
    assert_eq!(answer.status, 503, "{}", answer.head);
    live.replace(alpha_and_beta());
    let told = read_until(&mut working, "notifications/resources/list_changed").await;
    assert!(!told.contains("0\r\n\r\n"), "the stream was ended: {told}");
}
