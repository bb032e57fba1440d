//! A live catalog over real Streamable HTTP on 127.0.0.1 with rmcp's own client: sessions
//! (stateful mode) are told `notifications/resources/list_changed` and, where the prompts
//! change, `notifications/prompts/list_changed`; 2026-07-28 clients get the same through
//! `subscriptions/listen`; `skills/list` answers from the new catalog as soon as `replace`
//! returns; and the hardened server keeps a session's stream open past its idle timeout and
//! still shuts down within its grace period.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use rmcp::model::{GetSkillRequestParams, ServerNotification, SubscriptionFilter};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use skillpub_core::{Catalog, LiveCatalog, Skill};
use skillpub_mcp::{HttpOptions, LiveMcpSkills, McpSkills};
use skillpub_testkit::{Response, serve as serve_app};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::time::timeout;

#[expect(
    dead_code,
    reason = "serve_mcp serves a fixed catalog; these tests serve a live one"
)]
mod peers;
use peers::{INITIALIZE, http_get, legacy_client, modern_client, post_mcp, protocol_error};

/// How long a notification may take to arrive: generous, the machine may be loaded.
const TOLD_WITHIN: Duration = Duration::from_secs(10);

fn skill(name: &str, body: &str) -> Skill {
    Skill::new(
        Some(name.to_owned()),
        format!("---\nname: {name}\ndescription: Does {name}.\n---\n{body}\n"),
    )
}

fn catalog(skills: &[(&str, &str)]) -> Catalog {
    Catalog::new(skills.iter().map(|(name, body)| skill(name, body))).unwrap()
}

fn live_mcp(live: &LiveCatalog) -> LiveMcpSkills {
    McpSkills::live(live.clone())
        .prompts(true)
        .tools(true)
        .build()
        .unwrap()
}

/// The well-known routes and MCP at /mcp (with sessions), from one live catalog.
async fn serve(live: &LiveCatalog) -> SocketAddr {
    let mcp = live_mcp(live)
        .streamable_http_service(HttpOptions::default().with_stateful(true))
        .unwrap();
    let app = Router::new()
        .merge(skillpub_axum::live_router(live.clone()))
        .nest_service("/mcp", mcp);
    serve_app(app).await
}

/// A client that hands every list-changed notification to the test.
#[derive(Clone)]
struct Told(mpsc::UnboundedSender<&'static str>);

impl ClientHandler for Told {
    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.0.send("resources");
    }

    async fn on_prompt_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.0.send("prompts");
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.0.send("tools");
    }
}

/// A client with a session (a protocol version before 2026-07-28), and what it is told.
async fn session_client(
    addr: SocketAddr,
) -> (
    RunningService<RoleClient, Told>,
    mpsc::UnboundedReceiver<&'static str>,
) {
    let (sender, told) = mpsc::unbounded_channel();
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    (Told(sender).serve(transport).await.unwrap(), told)
}

async fn skill_names(client: &RunningService<RoleClient, Told>) -> Vec<String> {
    let listed = client.list_skills(None).await.unwrap();
    listed.skills.iter().map(|s| s.name().to_owned()).collect()
}

/// Waits until the session's event stream is open: the client opens it after `initialized`,
/// and a notification sent before it is open has nowhere to go. Each try publishes a new
/// catalog; returns the catalog that was first told.
async fn until_told(
    live: &LiveCatalog,
    told: &mut mpsc::UnboundedReceiver<&'static str>,
) -> Vec<String> {
    let started = Instant::now();
    for attempt in 0.. {
        let name = format!("warm-up-{attempt}");
        live.replace(catalog(&[("alpha", "A."), (&name, "W.")]));
        // The stream may open between two notifications of one replacement, so the first
        // one told may be any list.
        if let Ok(Some(_)) = timeout(Duration::from_millis(250), told.recv()).await {
            // Whatever else this replacement told, so that the next checks start clean.
            while timeout(Duration::from_millis(250), told.recv())
                .await
                .is_ok()
            {}
            return vec!["alpha".to_owned(), name];
        }
        assert!(started.elapsed() < TOLD_WITHIN, "never told of a change");
    }
    unreachable!()
}

/// The lists told next, until none comes for a moment, in name order: rmcp's client may run
/// the handlers of two notifications in either order.
async fn next_told(told: &mut mpsc::UnboundedReceiver<&'static str>) -> Vec<&'static str> {
    let mut lists = vec![
        timeout(TOLD_WITHIN, told.recv())
            .await
            .expect("told within the bound")
            .expect("the client is running"),
    ];
    while let Ok(Some(list)) = timeout(Duration::from_millis(300), told.recv()).await {
        lists.push(list);
    }
    lists.sort_unstable();
    lists
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_told_which_lists_changed_and_lists_the_new_catalog_at_once() {
    let live = LiveCatalog::new(catalog(&[("alpha", "A.")]));
    let addr = serve(&live).await;
    let (client, mut told) = session_client(addr).await;
    let capabilities = client.peer_info().unwrap().capabilities.clone();
    assert_eq!(capabilities.resources.unwrap().list_changed, Some(true));
    assert_eq!(capabilities.prompts.unwrap().list_changed, Some(true));
    assert_eq!(
        capabilities.tools.unwrap().list_changed,
        None,
        "the tools are the same for every catalog"
    );
    assert_eq!(skill_names(&client).await, ["alpha"]);

    let names = until_told(&live, &mut told).await;
    assert_eq!(skill_names(&client).await, names);

    // A new body: the manifests' digests change, the prompts' names and descriptions do not.
    live.replace(catalog(&[("alpha", "A, again."), (&names[1], "W.")]));
    assert_eq!(next_told(&mut told).await, ["resources"]);

    // A new skill: both lists change; skills/list has it as soon as `replace` returned.
    live.replace(catalog(&[("alpha", "A, again."), ("beta", "B.")]));
    assert_eq!(skill_names(&client).await, ["alpha", "beta"]);
    let prompts = client.list_prompts(None).await.unwrap();
    let prompts: Vec<&str> = prompts.prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(prompts, ["alpha", "beta"]);
    assert_eq!(next_told(&mut told).await, ["prompts", "resources"]);

    // The same catalog again: nothing to tell, then a real change is told alone.
    live.replace(catalog(&[("alpha", "A, again."), ("beta", "B.")]));
    live.replace(catalog(&[("beta", "B.")]));
    assert_eq!(next_told(&mut told).await, ["prompts", "resources"]);

    // A skill the new catalog dropped is not served any more.
    let gone = client
        .get_skill(GetSkillRequestParams::new("skill://alpha/SKILL.md"))
        .await
        .unwrap_err();
    assert_eq!(protocol_error(gone).code.0, -32602);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn every_session_is_told_and_the_well_known_index_agrees() {
    let live = LiveCatalog::new(catalog(&[("alpha", "A.")]));
    let addr = serve(&live).await;
    let (first, mut first_told) = session_client(addr).await;
    let (second, mut second_told) = session_client(addr).await;
    until_told(&live, &mut first_told).await;
    // The second session's stream opened meanwhile, or opens now.
    until_told(&live, &mut second_told).await;
    while timeout(Duration::from_millis(300), first_told.recv())
        .await
        .is_ok()
    {}

    live.replace(catalog(&[("gamma", "G.")]));
    assert_eq!(next_told(&mut first_told).await, ["prompts", "resources"]);
    assert_eq!(next_told(&mut second_told).await, ["prompts", "resources"]);
    for client in [&first, &second] {
        assert_eq!(skill_names(client).await, ["gamma"]);
    }
    let index = String::from_utf8(http_get(addr, skillpub_core::paths::INDEX_PATH).await).unwrap();
    assert!(index.contains("\"name\": \"gamma\""), "{index}");
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_client_follows_changes_with_subscriptions_listen() {
    let live = LiveCatalog::new(catalog(&[("alpha", "A.")]));
    let addr = serve(&live).await;
    let client = modern_client(addr).await;
    let filter = SubscriptionFilter::builder()
        .resources_list_changed()
        .prompts_list_changed()
        .tools_list_changed()
        .build();
    let mut subscription = client.peer().listen(filter).await.unwrap();
    assert_eq!(
        subscription.acknowledged(),
        &SubscriptionFilter::builder()
            .resources_list_changed()
            .prompts_list_changed()
            .build(),
        "tools are never told: their list never changes"
    );

    live.replace(catalog(&[("alpha", "A."), ("beta", "B.")]));
    let mut lists = Vec::new();
    while lists.len() < 2 {
        let notification = timeout(TOLD_WITHIN, subscription.next())
            .await
            .expect("told within the bound")
            .unwrap()
            .expect("the subscription is open");
        lists.push(match notification {
            ServerNotification::ResourceListChangedNotification(_) => "resources",
            ServerNotification::PromptListChangedNotification(_) => "prompts",
            other => panic!("unexpected {other:?}"),
        });
    }
    assert_eq!(lists, ["resources", "prompts"]);
    let listed = client.list_skills(None).await.unwrap();
    let names: Vec<&str> = listed.skills.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["alpha", "beta"]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn without_sessions_every_request_still_answers_from_the_current_catalog() {
    let live = LiveCatalog::new(catalog(&[("alpha", "A.")]));
    let mcp = live_mcp(&live)
        .streamable_http_service(HttpOptions::default())
        .unwrap();
    let addr = serve_app(Router::new().nest_service("/mcp", mcp)).await;
    let client = legacy_client(addr).await;
    for round in 0..5 {
        let name = format!("skill-{round}");
        live.replace(catalog(&[(&name, "S.")]));
        let listed = client.list_skills(None).await.unwrap();
        let names: Vec<&str> = listed.skills.iter().map(|s| s.name()).collect();
        assert_eq!(names, [name.as_str()]);
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_hardened_server_keeps_an_open_session_stream_past_its_idle_timeout_and_still_stops_in_its_grace_period()
 {
    let live = LiveCatalog::new(catalog(&[("alpha", "A.")]));
    let mcp = live_mcp(&live)
        .streamable_http_service(HttpOptions::default().with_stateful(true))
        .unwrap();
    let app = Router::new()
        .merge(skillpub_axum::live_router(live.clone()))
        .nest_service("/mcp", mcp);
    let listener = skillpub_axum::serve::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let grace = Duration::from_secs(1);
    let server = tokio::spawn(
        skillpub_axum::serve(listener, app)
            .idle_timeout(Duration::from_millis(300))
            .grace_period(grace)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
    );
    // A raw stream, which (unlike rmcp's client) never reconnects: what it reads came over
    // the one connection.
    let mut stream = SessionStream::open(addr).await;

    // Well past the idle timeout, with no request: the stream's connection is busy, not idle.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    live.replace(catalog(&[("delta", "D.")]));
    stream
        .read_until("notifications/resources/list_changed")
        .await;

    // Shutdown with the stream still open: done within the grace period (and a margin).
    let signalled = Instant::now();
    stop.send(()).unwrap();
    timeout(grace + Duration::from_secs(5), server)
        .await
        .expect("the server stops within its grace period")
        .unwrap()
        .unwrap();
    let took = signalled.elapsed();
    assert!(took >= grace, "the open stream was waited for: {took:?}");
    stream.read_until_closed().await;
}

/// A session opened over raw HTTP/1.1, with its `GET` event stream open.
struct SessionStream {
    stream: tokio::net::TcpStream,
    read: Vec<u8>,
}

impl SessionStream {
    /// `initialize`, `notifications/initialized`, then the `GET` stream, whose head has been
    /// read: the session's notifications go to it from then on.
    async fn open(addr: SocketAddr) -> Self {
        let answer = post(addr, None, INITIALIZE).await;
        let session = answer
            .header("mcp-session-id")
            .unwrap_or_else(|| panic!("no session: {}", answer.head))
            .to_owned();
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        post(addr, Some(&session), initialized).await;
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut opened = Self {
            stream,
            read: Vec::new(),
        };
        opened.read_until("\r\n\r\n").await;
        let head = String::from_utf8_lossy(&opened.read).into_owned();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(
            head.to_ascii_lowercase().contains("text/event-stream"),
            "{head}"
        );
        opened
    }

    /// Reads until `text` has arrived, within the bound.
    async fn read_until(&mut self, text: &str) {
        let found = timeout(TOLD_WITHIN, async {
            while !String::from_utf8_lossy(&self.read).contains(text) {
                let mut chunk = [0; 4096];
                let read = self.stream.read(&mut chunk).await.unwrap();
                assert!(
                    read > 0,
                    "closed before {text:?}: {}",
                    String::from_utf8_lossy(&self.read)
                );
                self.read.extend_from_slice(&chunk[..read]);
            }
        })
        .await;
        assert!(found.is_ok(), "no {text:?} within the bound");
    }

    /// Reads until the server closes the connection.
    async fn read_until_closed(&mut self) {
        let mut rest = Vec::new();
        timeout(TOLD_WITHIN, self.stream.read_to_end(&mut rest))
            .await
            .expect("closed")
            .unwrap_or_default();
    }
}

/// Posts a JSON-RPC message to /mcp (in the session, when given); the answer, a `2xx`.
async fn post(addr: SocketAddr, session: Option<&str>, body: &str) -> Response {
    let mut headers = Vec::new();
    if let Some(session) = session {
        headers.extend([
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ]);
    }
    let answer = post_mcp(addr, &headers, body).await;
    assert!((200..300).contains(&answer.status), "{}", answer.head);
    answer
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skills_server_on_a_transport_with_sessions_tells_its_session_and_ends_with_it() {
    use skillpub_mcp::SkillsServer;

    let live = LiveCatalog::new(catalog(&[("alpha", "A.")]));
    let server = SkillsServer::live(live_mcp(&live));
    // A session over a byte stream (as over stdio): initialize, then initialized.
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let serving = tokio::spawn(async move {
        server.serve(server_io).await?.waiting().await.ok();
        Ok::<(), rmcp::service::ServerInitializeError>(())
    });
    let (sender, mut told) = mpsc::unbounded_channel();
    let client = Told(sender).serve(client_io).await.unwrap();
    until_told(&live, &mut told).await;
    live.replace(catalog(&[("alpha", "A."), ("beta", "B.")]));
    assert_eq!(next_told(&mut told).await, ["prompts", "resources"]);

    // The session ends with its client: the server's loop stops, its handler is dropped.
    client.cancel().await.unwrap();
    timeout(TOLD_WITHIN, serving)
        .await
        .expect("the session ended")
        .unwrap()
        .unwrap();
}
