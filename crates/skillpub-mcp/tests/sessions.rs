//! Sessions (stateful mode) over real TCP on 127.0.0.1, in raw HTTP/1.1 so that every status
//! and header is seen as sent: the cap and what a client past it gets, the idle time counted
//! from the client's last request however often the catalog changes, what waits for a
//! session that does not read, `DELETE`, event streams, and the `Host` and `Origin` checks on
//! what the session layer answers itself.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use serde_json::Value;
use skillpub_core::{Catalog, LiveCatalog, Skill};
use skillpub_mcp::{HttpOptions, McpSkills};
use skillpub_testkit::{Response, request, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

#[expect(
    dead_code,
    reason = "these tests speak raw HTTP; rmcp's client is used only past the cap"
)]
mod peers;
use peers::{INITIALIZE, post_mcp, serve_mcp};

/// How long an answer or an event may take to arrive: generous, the machine may be loaded.
const WITHIN: Duration = Duration::from_secs(10);

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LIST_SKILLS: &str = r#"{"jsonrpc":"2.0","id":2,"method":"skills/list","params":{}}"#;
const RESOURCES_CHANGED: &str = "notifications/resources/list_changed";
const PROMPTS_CHANGED: &str = "notifications/prompts/list_changed";

fn skill(name: &str) -> Skill {
    Skill::new(
        Some(name.to_owned()),
        format!("---\nname: {name}\ndescription: Does {name}.\n---\nBody of {name}.\n"),
    )
}

/// One catalog or the other, in turn: a skill comes or goes, so both lists change.
fn catalog(turn: usize) -> Catalog {
    if turn.is_multiple_of(2) {
        Catalog::new([skill("alpha")]).unwrap()
    } else {
        Catalog::new([skill("alpha"), skill("beta")]).unwrap()
    }
}

/// A fixed catalog at /mcp with these options.
async fn serve_fixed(options: HttpOptions) -> SocketAddr {
    serve_mcp(McpSkills::new(catalog(0)), catalog(0), options).await
}

/// A live catalog at /mcp with these options, prompts on.
async fn serve_live(live: &LiveCatalog, options: HttpOptions) -> SocketAddr {
    let mcp = McpSkills::live(live.clone())
        .prompts(true)
        .build()
        .unwrap()
        .streamable_http_service(options)
        .unwrap();
    serve(Router::new().nest_service("/mcp", mcp)).await
}

fn stateful() -> HttpOptions {
    HttpOptions::default().with_stateful(true)
}

/// Posts `body` in the session `session`.
async fn post_in(addr: SocketAddr, session: &str, body: &str) -> Response {
    let headers = [
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    post_mcp(addr, &headers, body).await
}

/// `initialize` and `notifications/initialized`: the new session's id.
async fn open_session(addr: SocketAddr) -> String {
    let answer = post_mcp(addr, &[], INITIALIZE).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    let session = answer
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("no session: {}", answer.head))
        .to_owned();
    assert_eq!(post_in(addr, &session, INITIALIZED).await.status, 202);
    session
}

/// The status of a `skills/list` in the session, and its skills' names when it answered
/// (in JSON, or in an event stream, which a client accepts too).
async fn list_in(addr: SocketAddr, session: &str) -> (u16, Vec<String>) {
    let answer = post_in(addr, session, LIST_SKILLS).await;
    let names = if answer.status == 200 {
        let text = answer.text();
        let event = text.lines().find_map(|line| {
            let data = line.strip_prefix("data:")?.trim();
            data.starts_with('{').then_some(data)
        });
        let message: Value = match event {
            Some(data) => serde_json::from_str(data).unwrap(),
            None => json(&answer),
        };
        let skills = message["result"]["skills"].as_array().cloned();
        let skills = skills.unwrap_or_else(|| panic!("not a skills/list result: {message}"));
        skills
            .iter()
            .map(|skill| {
                skill["frontmatter"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    } else {
        Vec::new()
    };
    (answer.status, names)
}

async fn delete(addr: SocketAddr, session: &str, origin: Option<&str>) -> Response {
    let mut headers = vec![
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    headers.extend(origin.map(|origin| ("Origin", origin)));
    request(addr, "DELETE", "/mcp", &headers).await
}

fn json(answer: &Response) -> Value {
    serde_json::from_slice(&answer.body)
        .unwrap_or_else(|error| panic!("not JSON ({error}): {}", answer.text()))
}

/// The JSON-RPC error of a refusal, which has no `id`.
fn refusal(answer: &Response) -> (i32, String, Value) {
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let message = json(answer);
    assert!(message.get("id").is_none(), "{message}");
    let error = &message["error"];
    (
        i32::try_from(error["code"].as_i64().unwrap()).unwrap(),
        error["message"].as_str().unwrap().to_owned(),
        error["data"].clone(),
    )
}

/// A session's event stream over raw HTTP/1.1, whose head has been read.
struct Events {
    stream: TcpStream,
    read: Vec<u8>,
}

impl Events {
    /// The answer to the session's `GET`: the head of the stream, or the whole answer when it
    /// is not one.
    async fn open(addr: SocketAddr, session: &str) -> Result<Self, String> {
        let stream = TcpStream::connect(addr).await.unwrap();
        Self::open_on(stream, addr, session).await
    }

    /// [`open`](Self::open) on a connection whose receive buffer is `bytes`.
    async fn open_with_receive_buffer(
        addr: SocketAddr,
        session: &str,
        bytes: u32,
    ) -> Result<Self, String> {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(bytes).unwrap();
        let stream = socket.connect(addr).await.unwrap();
        Self::open_on(stream, addr, session).await
    }

    async fn open_on(
        mut stream: TcpStream,
        addr: SocketAddr,
        session: &str,
    ) -> Result<Self, String> {
        let head = format!(
            "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\
             Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut events = Self {
            stream,
            read: Vec::new(),
        };
        while !events.text().contains("\r\n\r\n") {
            assert!(events.read_some(WITHIN).await, "no answer to the GET");
        }
        let head = events.text();
        if !head.starts_with("HTTP/1.1 200") {
            return Err(head);
        }
        assert!(head.contains("content-type: text/event-stream"), "{head}");
        let body = head.find("\r\n\r\n").unwrap() + 4;
        events.read.drain(..body);
        Ok(events)
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.read).into_owned()
    }

    /// Reads what arrives within `wait`; `false` when nothing did.
    async fn read_some(&mut self, wait: Duration) -> bool {
        let mut chunk = [0; 4096];
        match timeout(wait, self.stream.read(&mut chunk)).await {
            Ok(Ok(read)) if read > 0 => {
                self.read.extend_from_slice(&chunk[..read]);
                true
            }
            _ => false,
        }
    }

    /// How many times each list was told: read until `expected` of each came (or [`WITHIN`]
    /// passed), then until nothing more arrives for half a second. Waiting for the expected
    /// ones first keeps a loaded machine's slow stream from failing the count; the quiet read
    /// after still sees anything told more than expected.
    async fn told(&mut self, expected: (usize, usize)) -> (usize, usize) {
        let started = Instant::now();
        loop {
            let (resources, prompts) = self.counts();
            let missing = resources < expected.0 || prompts < expected.1;
            if !missing || started.elapsed() >= WITHIN {
                break;
            }
            self.read_some(WITHIN.saturating_sub(started.elapsed()))
                .await;
        }
        while self.read_some(Duration::from_millis(500)).await {}
        let counts = self.counts();
        self.read.clear();
        counts
    }

    /// How many times each list was told in what was read.
    fn counts(&self) -> (usize, usize) {
        let text = self.text();
        (
            text.matches(RESOURCES_CHANGED).count(),
            text.matches(PROMPTS_CHANGED).count(),
        )
    }

    /// Reads until the stream's last chunk: the server ended it.
    async fn until_ended(&mut self) {
        let started = Instant::now();
        while !self.text().ends_with("0\r\n\r\n") {
            assert!(started.elapsed() < WITHIN, "not ended: {}", self.text());
            self.read_some(WITHIN).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn past_the_cap_an_initialize_ends_the_least_recently_used_idle_session() {
    let addr = serve_fixed(stateful().with_max_sessions(2)).await;
    let first = open_session(addr).await;
    let second = open_session(addr).await;
    // The first is used again: the second is now the one least recently used.
    assert_eq!(list_in(addr, &first).await.0, 200);

    let third = post_mcp(addr, &[], INITIALIZE).await;
    assert_eq!(third.status, 200, "{}", third.text());
    let third = third.header("mcp-session-id").unwrap().to_owned();

    // The client of the session that made room gets 404, and opens a new one, as the
    // transport says; the others keep working.
    let gone = post_in(addr, &second, LIST_SKILLS).await;
    assert_eq!(gone.status, 404, "{}", gone.text());
    let (code, message, _) = refusal(&gone);
    assert_eq!(code, skillpub_mcp::SESSION_NOT_FOUND.0);
    assert!(message.contains("initialize"), "{message}");
    for session in [&first, &third] {
        assert_eq!(
            list_in(addr, session).await,
            (200, vec!["alpha".to_owned()])
        );
    }
    let again = open_session(addr).await;
    assert_eq!(list_in(addr, &again).await.0, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn when_every_session_is_busy_an_initialize_gets_503_with_retry_after() {
    let live = LiveCatalog::new(catalog(0));
    let addr = serve_live(&live, stateful().with_max_sessions(1)).await;
    let only = open_session(addr).await;
    // An open event stream keeps its session busy.
    let stream = Events::open(addr, &only).await.unwrap();

    let refused = post_mcp(addr, &[], INITIALIZE).await;
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert!(refused.header("mcp-session-id").is_none());
    assert_eq!(refused.header("retry-after"), Some("3"));
    let (code, message, data) = refusal(&refused);
    assert_eq!(code, skillpub_mcp::TOO_MANY_SESSIONS.0);
    assert_ne!(code, skillpub_mcp::TOO_MANY_STREAMS.0);
    assert!(
        message.contains("at most 1 sessions") && message.contains("2026-07-28"),
        "{message}"
    );
    assert_eq!(data["maxSessions"], 1);
    assert_eq!(data["retryAfterSeconds"], 3);
    assert_eq!(list_in(addr, &only).await.0, 200, "the busy session works");

    // Once its stream ends the session is idle, and a new one may take its place.
    drop(stream);
    let started = Instant::now();
    while post_mcp(addr, &[], INITIALIZE).await.status == 503 {
        assert!(
            started.elapsed() < WITHIN,
            "the session's stream never ended"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(list_in(addr, &only).await.0, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn rmcps_client_fails_to_connect_when_every_session_is_busy_and_a_2026_client_needs_none() {
    let live = LiveCatalog::new(catalog(0));
    let addr = serve_live(&live, stateful().with_max_sessions(1)).await;
    let only = open_session(addr).await;
    let _busy = Events::open(addr, &only).await.unwrap();
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let refused = rmcp::ServiceExt::serve((), transport).await;
    assert!(refused.is_err(), "a session past the cap");
    // 2026-07-28 has no sessions: the cap does not apply.
    for _ in 0..3 {
        let client = peers::modern_client(addr).await;
        assert_eq!(client.list_skills(None).await.unwrap().skills.len(), 1);
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_idle_past_its_idle_time_is_gone_while_the_catalog_changes_faster() {
    let live = LiveCatalog::new(catalog(0));
    let idle = Duration::from_secs(1);
    let addr = serve_live(&live, stateful().with_session_idle_timeout(idle)).await;
    let unused = open_session(addr).await;
    let used = open_session(addr).await;

    // Three idle times, a replacement every tenth of one (each tells both lists), a request
    // of `used` every third.
    let started = Instant::now();
    let mut turn = 1;
    while started.elapsed() < 3 * idle {
        live.replace(catalog(turn));
        if turn.is_multiple_of(3) {
            assert_eq!(list_in(addr, &used).await.0, 200, "a session in use lives");
        }
        turn += 1;
        tokio::time::sleep(idle / 10).await;
    }
    let (status, _) = list_in(addr, &unused).await;
    assert_eq!(
        status, 404,
        "idle for three idle times while told of changes"
    );
    let gone = post_in(addr, &unused, LIST_SKILLS).await;
    let (code, message, _) = refusal(&gone);
    assert_eq!(code, skillpub_mcp::SESSION_NOT_FOUND.0);
    assert!(message.contains("initialize"), "{message}");
    assert_eq!(list_in(addr, &used).await.0, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_whose_client_does_not_read_is_told_far_fewer_events_than_changes() {
    let live = LiveCatalog::new(catalog(0));
    let mcp = McpSkills::live(live.clone())
        .prompts(true)
        .build()
        .unwrap()
        .streamable_http_service(stateful())
        .unwrap();
    // Small socket buffers on both sides (the server's as the connections inherit them from
    // the listener), so that the connection holds a few hundred events at most.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_send_buffer_size(SMALL_BUFFER).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(64).unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        async move { axum::serve(listener, Router::new().nest_service("/mcp", mcp)).await },
    );
    let session = open_session(addr).await;
    // The client reads nothing: once the connection's buffers are full the server cannot
    // write, and the changes coalesce.
    let mut events = Events::open_with_receive_buffer(addr, &session, SMALL_BUFFER)
        .await
        .unwrap();
    for turn in 1..=CHANGES {
        live.replace(catalog(turn));
        tokio::task::yield_now().await;
    }
    let (resources, prompts) = events.told((1, 1)).await;
    assert!(
        (1..CHANGES / 4).contains(&resources) && (1..CHANGES / 4).contains(&prompts),
        "{CHANGES} changes of both lists told {resources} and {prompts} times"
    );
    // Nothing is left over: from then on, each change is told once, as it comes.
    live.replace(catalog(CHANGES + 1));
    assert_eq!(events.told((1, 1)).await, (1, 1));
}

/// Changes of both lists made while a client does not read its stream: each notification is
/// about 100 bytes, so that their sum is many times what the connection's buffers hold.
const CHANGES: usize = 4_000;

/// The socket buffers of that stream's connection, on each side.
const SMALL_BUFFER: u32 = 4096;

/// The session's stream, on an endpoint that allows one stream at a time, once the server has
/// seen the stream before it (of any session) end: until then the `GET` is refused with `503`.
async fn open_alone(addr: SocketAddr, session: &str) -> Events {
    let started = Instant::now();
    loop {
        match Events::open(addr, session).await {
            Ok(events) => return events,
            Err(head) if head.starts_with("HTTP/1.1 503") && started.elapsed() < WITHIN => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(head) => panic!("the stream was refused: {head}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_stream_of_a_session_tells_only_what_its_streams_before_did_not() {
    let live = LiveCatalog::new(catalog(0));
    // One stream at a time, so that the test can tell when the server has seen a stream end:
    // a change made before it has is handed to the closing connection and counts as told,
    // as it would for any client that goes away as the change is made.
    let addr = serve_live(&live, stateful().with_max_streams(1)).await;
    let session = open_session(addr).await;
    let mut first = open_alone(addr, &session).await;
    live.replace(catalog(1));
    assert_eq!(first.told((1, 1)).await, (1, 1));
    drop(first);

    // The client reconnects: what the first stream told is not told again.
    let mut second = open_alone(addr, &session).await;
    assert_eq!(second.told((0, 0)).await, (0, 0), "told again");
    live.replace(catalog(2));
    assert_eq!(second.told((1, 1)).await, (1, 1));
    drop(second);
    // Another session's stream opens once the server has seen the second end.
    let other = open_session(addr).await;
    drop(open_alone(addr, &other).await);
    live.replace(catalog(3));
    let mut third = open_alone(addr, &session).await;
    assert_eq!(
        third.told((1, 1)).await,
        (1, 1),
        "the change made between streams"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_open_event_stream_keeps_its_session_and_its_end_starts_the_idle_time() {
    let live = LiveCatalog::new(catalog(0));
    let idle = Duration::from_secs(1);
    let addr = serve_live(&live, stateful().with_session_idle_timeout(idle)).await;
    let session = open_session(addr).await;
    let mut first = Events::open(addr, &session).await.unwrap();

    // A second stream replaces the first, which ends.
    let mut second = Events::open(addr, &session).await.unwrap();
    first.until_ended().await;
    live.replace(catalog(1));
    assert_eq!(second.told((1, 1)).await, (1, 1));

    // A stream in progress is a request in progress: no idle time runs meanwhile.
    tokio::time::sleep(2 * idle).await;
    assert_eq!(list_in(addr, &session).await.0, 200);

    // DELETE ends the session and its stream.
    assert_eq!(delete(addr, &session, None).await.status, 204);
    second.until_ended().await;
    assert_eq!(list_in(addr, &session).await.0, 404);
    assert_eq!(delete(addr, &session, None).await.status, 404);
    let gone = Events::open(addr, &session).await.err().unwrap();
    assert!(gone.starts_with("HTTP/1.1 404"), "{gone}");
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_without_their_session_are_refused_as_the_transport_says() {
    let addr = serve_fixed(stateful()).await;
    let missing = post_mcp(addr, &[], LIST_SKILLS).await;
    assert_eq!(missing.status, 400);
    let (code, message, _) = refusal(&missing);
    assert_eq!(code, skillpub_mcp::SESSION_REQUIRED.0);
    assert!(message.contains("Mcp-Session-Id"), "{message}");

    for unknown in ["2b0b4e8e-6f4b-4a43-9b54-3d6f0e0c2a11", "not-a-session"] {
        assert_eq!(list_in(addr, unknown).await.0, 404, "{unknown}");
        assert_eq!(delete(addr, unknown, None).await.status, 404, "{unknown}");
    }

    // A fixed catalog never changes: there is no event stream to open.
    let session = open_session(addr).await;
    let get = Events::open(addr, &session).await.err().unwrap();
    assert!(get.starts_with("HTTP/1.1 405"), "{get}");
    assert!(get.contains("allow: POST, DELETE"), "{get}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_host_and_origin_checks_cover_what_the_session_layer_answers() {
    let live = LiveCatalog::new(catalog(0));
    let addr = serve_live(&live, stateful().with_max_sessions(1)).await;
    let session = open_session(addr).await;
    let _busy = Events::open(addr, &session).await.unwrap();
    let evil = Some("https://evil.example");

    assert_eq!(delete(addr, &session, evil).await.status, 403);
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
        ("Origin", "https://evil.example"),
    ];
    assert_eq!(request(addr, "GET", "/mcp", &get).await.status, 403);
    let past_the_cap = post_mcp(addr, &[("Origin", "https://evil.example")], INITIALIZE).await;
    assert_eq!(past_the_cap.status, 403);
    let unknown = [
        ("Mcp-Session-Id", "not-a-session"),
        ("Host", "evil.example"),
    ];
    assert_eq!(post_mcp(addr, &unknown, LIST_SKILLS).await.status, 403);
    // The session is still there.
    assert_eq!(list_in(addr, &session).await.0, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_host_or_origin_is_answered_before_the_body_is_read() {
    let addr = serve_fixed(stateful()).await;
    let heads = [
        // Over the body limit: refused for its origin, not for its size.
        format!(
            "Content-Length: {}\r\nOrigin: https://evil.example\r\n",
            5 * 1024 * 1024
        ),
        "Transfer-Encoding: chunked\r\nOrigin: https://evil.example\r\n".to_owned(),
        "Content-Length: 100\r\nHost: evil.example\r\n".to_owned(),
    ];
    for extra in heads {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let host = if extra.contains("Host:") {
            String::new()
        } else {
            format!("Host: {addr}\r\n")
        };
        let head = format!(
            "POST /mcp HTTP/1.1\r\n{host}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{extra}\r\n{{"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        // The rest of the body never comes: the answer must not wait for it.
        let answer = timeout(WITHIN, skillpub_testkit::read_response(&mut stream))
            .await
            .unwrap_or_else(|_| panic!("no answer without the body: {extra}"));
        assert_eq!(answer.status, 403, "{extra}: {}", answer.text());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_refused_for_its_origin_does_not_keep_its_session() {
    let addr = serve_fixed(stateful().with_max_sessions(2)).await;
    let first = open_session(addr).await;
    let second = open_session(addr).await;
    // Refused requests of the first session: were they to count as its client's, the second
    // would be the least recently used.
    let evil = [
        ("Mcp-Session-Id", first.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Origin", "https://evil.example"),
    ];
    for _ in 0..3 {
        assert_eq!(post_mcp(addr, &evil, LIST_SKILLS).await.status, 403);
    }
    let _third = open_session(addr).await;
    assert_eq!(
        list_in(addr, &first).await.0,
        404,
        "the first was kept alive"
    );
    assert_eq!(list_in(addr, &second).await.0, 200);
    // Nor can a refused request end a session.
    let evil = Some("https://evil.example");
    assert_eq!(delete(addr, &second, evil).await.status, 403);
    assert_eq!(list_in(addr, &second).await.0, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_protocol_version_is_refused_and_never_skips_the_sessions() {
    let live = LiveCatalog::new(catalog(0));
    let addr = serve_live(&live, stateful()).await;
    let session = open_session(addr).await;
    for version in ["9", "abc", "2026-07-28x", "2026-07-29"] {
        let headers = [
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", version),
        ];
        for method in ["GET", "DELETE"] {
            let answer = request(addr, method, "/mcp", &headers).await;
            assert_eq!(answer.status, 400, "{method} {version}: {}", answer.head);
            assert_eq!(
                answer.text(),
                format!("Bad Request: Unsupported MCP-Protocol-Version: {version}")
            );
        }
        let initialize = INITIALIZE.replace("2025-11-25", version);
        let answer = post_mcp(addr, &[("MCP-Protocol-Version", version)], &initialize).await;
        assert_eq!(
            answer.status,
            400,
            "initialize {version}: {}",
            answer.text()
        );
        assert!(answer.header("mcp-session-id").is_none());
        let answer = post_mcp(addr, &[("MCP-Protocol-Version", version)], LIST_SKILLS).await;
        assert_eq!(
            answer.status,
            400,
            "skills/list {version}: {}",
            answer.text()
        );
    }
    // The session was neither ended nor touched.
    assert_eq!(list_in(addr, &session).await.0, 200);

    // A later client that names its version in `_meta` is told which versions are served,
    // so that it can ask again with one of them.
    let discover = r#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let headers = [
        ("MCP-Protocol-Version", "2027-01-01"),
        ("Mcp-Method", "server/discover"),
    ];
    let answer = post_mcp(addr, &headers, discover).await;
    assert_eq!(answer.status, 400, "{}", answer.text());
    let error = json(&answer);
    assert_eq!(error["error"]["code"], -32022, "{error}");
    let supported = error["error"]["data"]["supported"].to_string();
    assert!(supported.contains("2026-07-28"), "{error}");
}

#[test]
fn knobs_out_of_range_are_errors_that_name_the_knob() {
    let skills = McpSkills::new(catalog(0));
    let service = |options: HttpOptions| skills.streamable_http_service(options).err();
    let sessions = skillpub_mcp::MAX_SESSIONS_LIMIT + 1;
    let streams = skillpub_mcp::MAX_STREAMS_LIMIT + 1;
    let refused = [
        service(stateful().with_max_sessions(0)),
        service(stateful().with_max_sessions(sessions)),
        service(stateful().with_session_idle_timeout(Duration::ZERO)),
        service(stateful().with_session_idle_timeout(Duration::MAX)),
        service(HttpOptions::default().with_max_streams(0)),
        service(HttpOptions::default().with_max_streams(streams)),
        // Checked with sessions off too, so that turning them on cannot fail later.
        service(HttpOptions::default().with_max_sessions(0)),
        service(HttpOptions::default().with_allowed_hosts(["https://skills.example.com"])),
        service(HttpOptions::default().with_allowed_origins(["app.example.com"])),
    ];
    let messages: Vec<String> = refused
        .iter()
        .map(|error| error.as_ref().expect("refused").to_string())
        .collect();
    assert_eq!(
        messages,
        [
            "`max_sessions` is 0; give at least 1 and at most 1000000",
            "`max_sessions` is 1000001; give at least 1 and at most 1000000",
            "`session_idle_timeout` is 0ns; give more than zero and at most 86400s",
            "`session_idle_timeout` is 18446744073709551615.999999999s; give more than zero and at most 86400s",
            "`max_streams` is 0; give at least 1 and at most 1000000",
            "`max_streams` is 1000001; give at least 1 and at most 1000000",
            "`max_sessions` is 0; give at least 1 and at most 1000000",
            "`allowed_hosts` entry `https://skills.example.com` is not a host; give a name or an address, with or without a port, such as `skills.example.com`, `skills.example.com:8443`, `127.0.0.1` or `[::1]:3000`",
            "`allowed_origins` entry `app.example.com` is not an origin; give `scheme://host`, with `:port` or `:*` for any port, such as `https://app.example.com` or `http://localhost:*`, or `null`",
        ]
    );
    let defaults = HttpOptions::default();
    assert_eq!(
        (
            defaults.max_streams(),
            defaults.max_sessions(),
            defaults.session_idle_timeout()
        ),
        (
            skillpub_mcp::DEFAULT_MAX_STREAMS,
            skillpub_mcp::DEFAULT_MAX_SESSIONS,
            skillpub_mcp::DEFAULT_SESSION_IDLE_TIMEOUT
        )
    );
    let edges = [
        defaults.clone(),
        stateful().with_max_sessions(1),
        stateful().with_max_sessions(skillpub_mcp::MAX_SESSIONS_LIMIT),
        stateful().with_session_idle_timeout(Duration::from_nanos(1)),
        stateful().with_session_idle_timeout(skillpub_mcp::MAX_SESSION_IDLE_TIMEOUT),
        stateful().with_max_streams(1),
        stateful().with_max_streams(skillpub_mcp::MAX_STREAMS_LIMIT),
        defaults.with_allowed_hosts(Vec::<String>::new()),
    ];
    for options in edges {
        assert!(service(options).is_none());
    }
}
