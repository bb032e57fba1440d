//! What stateful MCP sessions cost the server, and whether the memory comes back once they
//! end (Linux: it reads `/proc/<pid>/status`). The bench runs itself again as a server (the
//! MCP example's catalog and surfaces, with sessions, under `skillpub::web::serve`), opens
//! waves of sessions against it over 127.0.0.1 with raw `initialize` and
//! `notifications/initialized` POSTs on keep-alive connections, and prints the server's
//! resident memory at each step. Three runs, each in a server of its own:
//!
//! - `delete`: a cap of 20,000; three waves of 20,000 sessions, each ended with `DELETE`;
//! - `cap`: a cap of 10,000; 20,000 `initialize`s, each past the cap ending the least recently
//!   used session;
//! - `live`: a live catalog replaced every 100 ms, an idle time of 30 s; three waves of 5,000
//!   sessions never used after `initialized`, each left to expire.
//!
//! Each run first opens and ends 1,000 sessions, so that the memory the request path keeps
//! for itself (connection buffers, tasks, what the allocator holds on to) is counted before
//! the sessions are: the figure per session is what the sessions add.
//!
//! Not a criterion bench: it prints one line per step.
//!
//! ```sh
//! cargo bench --bench mcp_sessions --features mcp
//! # one run:
//! cargo bench --bench mcp_sessions --features mcp -- delete
//! ```

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use skillpub::mcp::{HttpOptions, McpSkills};
use skillpub::{Catalog, LiveCatalog, Skill};
use skillpub_testkit::{Response, finish_response};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// The runs, in order; name some after `--` to measure those only.
const RUNS: [&str; 3] = ["delete", "cap", "live"];
/// Set in the process that serves: the run it serves.
const SERVE: &str = "SKILLPUB_SESSIONS_SERVE";
/// Sessions per wave.
const SESSIONS: usize = 20_000;
/// The cap of the `cap` run: half a wave.
const CAP: usize = SESSIONS / 2;
/// Keep-alive connections the sessions are opened on.
const CONNECTIONS: usize = 32;
/// Sessions per wave of the `live` run: fewer, so that a wave takes less than its idle time.
const LIVE_SESSIONS: usize = 5_000;
/// The idle time of the `live` run.
const LIVE_IDLE: Duration = Duration::from_secs(30);
/// Sessions opened and ended before the figures start.
const WARM_UP: usize = 1_000;
/// How often the `live` run replaces its catalog.
const LIVE_REPLACE: Duration = Duration::from_millis(100);

static PUBLISH_AGENT_SKILLS: Skill = skillpub::skill!("examples/skills/publish-agent-skills");
static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");
/// The skills of `examples/mcp.rs`.
static EXAMPLE_SKILLS: [&Skill; 3] = [
    &PUBLISH_AGENT_SKILLS,
    &VERIFY_SKILL_DIGESTS,
    &WRITE_SKILL_MD,
];

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn main() {
    if let Ok(run) = std::env::var(SERVE) {
        serve(&run);
    } else if !std::env::args().any(|arg| arg == "--list") {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let asked: Vec<String> = std::env::args().skip(1).collect();
        for run in RUNS {
            if asked.iter().all(|arg| arg.starts_with('-')) || asked.iter().any(|arg| arg == run) {
                runtime.block_on(measure(run));
            }
        }
    }
}

/// The server of `run`: the catalog and surfaces of `examples/mcp.rs`, with sessions.
fn serve(run: &str) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let catalog = Catalog::new(EXAMPLE_SKILLS).unwrap();
        let cap = if run == "cap" { CAP } else { SESSIONS };
        let options = HttpOptions::default()
            .with_stateful(true)
            .with_max_sessions(cap);
        let mcp = if run == "live" {
            let live = LiveCatalog::new(catalog.clone());
            tokio::spawn(replace_forever(live.clone(), catalog.clone()));
            McpSkills::live(live)
                .prompts(true)
                .tools(true)
                .instructions(true)
                .build()
                .unwrap()
                .streamable_http_service(options.with_session_idle_timeout(LIVE_IDLE))
                .unwrap()
        } else {
            McpSkills::builder(catalog.clone())
                .prompts(true)
                .tools(true)
                .instructions(true)
                .build()
                .unwrap()
                .streamable_http_service(options)
                .unwrap()
        };
        let app = axum::Router::new()
            .merge(skillpub::web::router(catalog))
            .nest_service("/mcp", mcp);
        let listener = skillpub::web::serve::bind("127.0.0.1:0").await.unwrap();
        println!("{}", listener.local_addr().unwrap());
        skillpub::web::serve(listener, app).await.unwrap();
    });
}

/// Replaces the catalog every [`LIVE_REPLACE`], without one of the skills and with it in
/// turn, so that both lists change each time.
async fn replace_forever(live: LiveCatalog, catalog: Catalog) {
    let catalogs = [
        Catalog::new(EXAMPLE_SKILLS[1..].iter().copied()).unwrap(),
        catalog,
    ];
    for turn in 0.. {
        tokio::time::sleep(LIVE_REPLACE).await;
        live.replace(catalogs[turn % 2].clone());
    }
}

/// A figure of `/proc/<pid>/status`, in KiB.
fn status_kib(pid: u32, field: &str) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Prints the server's resident memory; its anonymous part, in KiB.
fn report(pid: u32, step: &str, start: i64) -> i64 {
    let anon = status_kib(pid, "RssAnon");
    println!(
        "  {step}: VmRSS {} KiB, RssAnon {anon} KiB ({:+} KiB from the start)",
        status_kib(pid, "VmRSS"),
        anon - start
    );
    anon
}

async fn measure(run: &str) {
    let me = std::env::current_exe().unwrap();
    let mut server = tokio::process::Command::from(Command::new(me))
        .env(SERVE, run)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = server.id().unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let addr: SocketAddr = lines.next_line().await.unwrap().unwrap().parse().unwrap();
    let cap = if run == "cap" { CAP } else { SESSIONS };
    println!("{run} (at most {cap} sessions):");
    tokio::time::sleep(Duration::from_millis(200)).await;
    report(pid, "fresh", 0);
    let (warm, _) = open_sessions(addr, WARM_UP).await;
    end_sessions(addr, warm).await;
    let start = report(pid, "start (after 1,000 sessions opened and ended)", 0);
    let (waves, count) = match run {
        "cap" => (1, SESSIONS),
        "live" => (3, LIVE_SESSIONS),
        _ => (3, SESSIONS),
    };
    for wave in 1..=waves {
        let started = Instant::now();
        let (sessions, refused) = open_sessions(addr, count).await;
        println!(
            "  wave {wave}: {} sessions opened, {refused} refused, in {:.2} s",
            sessions.len(),
            started.elapsed().as_secs_f64()
        );
        let open = report(pid, &format!("wave {wave}, sessions open"), start);
        println!(
            "  {:.0} bytes per session",
            (open - start) as f64 * 1024.0 / sessions.len() as f64
        );
        if run == "live" {
            let quiet = Duration::from_secs(10);
            tokio::time::sleep(quiet).await;
            report(pid, "after 100 replacements, sessions idle", start);
            tokio::time::sleep(LIVE_IDLE - quiet + Duration::from_secs(1)).await;
            // This request also sweeps the expired sessions.
            let gone = probe(addr, &sessions[0]).await;
            let last = probe(addr, &sessions[sessions.len() - 1]).await;
            println!("  a request of the first and of the last session gets {gone}, {last}");
            report(pid, &format!("wave {wave}, sessions expired"), start);
        } else if run == "cap" {
            let first = probe(addr, &sessions[0]).await;
            let last = probe(addr, &sessions[sessions.len() - 1]).await;
            println!("  a request of the first and of the last session gets {first}, {last}");
        } else {
            end_sessions(addr, sessions).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
            report(pid, &format!("wave {wave}, sessions ended"), start);
        }
    }
    server.kill().await.unwrap();
}

/// Opens up to `count` sessions on [`CONNECTIONS`] keep-alive connections: their ids, and
/// how many `initialize`s were refused.
async fn open_sessions(addr: SocketAddr, count: usize) -> (Vec<String>, usize) {
    let connections = CONNECTIONS.min(count);
    let per_connection = count / connections;
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(addr).await.unwrap();
                let mut ids = Vec::with_capacity(per_connection);
                let mut refused = 0;
                for _ in 0..per_connection {
                    let response = post(&mut stream, addr, None, INITIALIZE).await;
                    match response.header("mcp-session-id") {
                        Some(id) => {
                            let id = id.to_owned();
                            post(&mut stream, addr, Some(&id), INITIALIZED).await;
                            ids.push(id);
                        }
                        None if response.status == 503 => refused += 1,
                        None => panic!("{}: {}", response.status_line(), response.text()),
                    }
                }
                (ids, refused)
            })
        })
        .collect();
    let mut ids = Vec::with_capacity(count);
    let mut refused = 0;
    for task in tasks {
        let (opened, turned_away) = task.await.unwrap();
        ids.extend(opened);
        refused += turned_away;
    }
    (ids, refused)
}

/// Ends the sessions with `DELETE`, as well-behaved clients do.
async fn end_sessions(addr: SocketAddr, sessions: Vec<String>) {
    let chunks: Vec<Vec<String>> = sessions
        .chunks(sessions.len().div_ceil(CONNECTIONS).max(1))
        .map(<[String]>::to_vec)
        .collect();
    let tasks: Vec<_> = chunks
        .into_iter()
        .map(|ids| {
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(addr).await.unwrap();
                for id in ids {
                    let head = format!(
                        "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: {id}\r\n\
                         MCP-Protocol-Version: 2025-11-25\r\nContent-Length: 0\r\n\r\n"
                    );
                    stream.write_all(head.as_bytes()).await.unwrap();
                    let ended = finish_response(&mut stream, Vec::new()).await;
                    assert_eq!(ended.status, 204, "{}", ended.text());
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
}

/// The status of a `ping` in the session `id`.
async fn probe(addr: SocketAddr, id: &str) -> u16 {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    post(&mut stream, addr, Some(id), ping).await.status
}

/// One POST to `/mcp` on a keep-alive connection.
async fn post(
    stream: &mut TcpStream,
    addr: SocketAddr,
    session: Option<&str>,
    body: &str,
) -> Response {
    let session = session.map_or(String::new(), |id| {
        format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n")
    });
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{session}Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    finish_response(stream, Vec::new()).await
}
