//! The demos, real shipped binaries, under floods up to their open-file limit (`ulimit -n 256`):
//! idle and slow connections against the basic demo, slow request bodies against the live
//! demo's admin API and (with feature `mcp`) the MCP demo's `POST /mcp`, and held
//! `subscriptions/listen` streams against the live MCP demo (below its stream cap of 512, so
//! the server closes the oldest streams to make room). A request sent during a flood is
//! answered within a second, and SIGTERM still stops the demo with status 0.
#![cfg(unix)]

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use skillpub_testkit::{Running, built_binary, request_blocking};

/// The demo's open-file limit.
const OPEN_FILES: usize = 256;

/// Connections the attacker holds open at most: the server's limit twice and more, within the
/// 1,024 files a test process commonly gets.
const FLOOD: usize = 800;

/// The bound BENCHMARKS.md states for a request sent during the flood.
const ANSWERED_WITHIN: Duration = Duration::from_secs(1);

/// The admin token the live demo is started with.
const TOKEN: &str = "correct horse battery staple";

/// Starts a demo (which `cargo test` builds with the tests) on a free port under
/// `ulimit -n 256`, with `env` set; `exec` leaves no shell behind.
fn start_demo(example: &str, env: &[(&str, &str)]) -> (Running, SocketAddr) {
    let mut command = Command::new("sh");
    command
        .args(["-c", &format!("ulimit -n {OPEN_FILES} && exec \"$0\"")])
        .arg(built_binary(example))
        .envs(env.iter().copied());
    let (demo, announced) = Running::demo(&mut command);
    (demo, announced.addr)
}

/// Opens connections until `stop` is set or [`FLOOD`] are open, sends `first_bytes` of the
/// connection's number on each, and holds them.
fn flood(
    addr: SocketAddr,
    opened: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    first_bytes: fn(usize) -> Vec<u8>,
) -> Vec<TcpStream> {
    let mut held = Vec::new();
    while !stop.load(Ordering::Relaxed) && held.len() < FLOOD {
        let Ok(mut stream) = TcpStream::connect(addr) else {
            continue;
        };
        let _ = stream.write_all(&first_bytes(held.len()));
        held.push(stream);
        opened.fetch_add(1, Ordering::Relaxed);
    }
    held
}

/// Every other connection sends half a request head, the others nothing.
fn idle_or_half_a_head(connection: usize) -> Vec<u8> {
    if connection % 2 == 1 {
        b"GET / HTTP/1.1\r\nHost: attacker\r\n".to_vec()
    } else {
        Vec::new()
    }
}

/// An authenticated `PUT` of a 100,000-byte `SKILL.md` of which one byte is sent.
fn slow_admin_upload(_: usize) -> Vec<u8> {
    format!(
        "PUT /admin/skills/slow HTTP/1.1\r\nHost: attacker\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: 100000\r\n\r\n-"
    )
    .into_bytes()
}

/// `POST /mcp` with `Content-Length: 100000` and one byte of JSON, to a `Host` the endpoint
/// answers (another is refused before the body is read).
#[cfg(feature = "mcp")]
fn slow_mcp_post(_: usize) -> Vec<u8> {
    b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{".to_vec()
}

/// A `subscriptions/listen` of a 2026-07-28 client, whose stream is held open and never read.
#[cfg(feature = "mcp")]
fn held_listen(_: usize) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// `GET /.well-known/agent-skills/index.json`; the status line, and how long the answer took.
fn get_index(addr: SocketAddr) -> (String, Duration) {
    let started = Instant::now();
    let answer = request_blocking(addr, "GET", skillpub::model::paths::INDEX_PATH, &[]);
    (answer.status_line().to_owned(), started.elapsed())
}

/// Floods the demo with connections that send `first_bytes`; once they have run it out of file
/// descriptors twice over, a request for the index is answered within [`ANSWERED_WITHIN`], and
/// SIGTERM still stops the demo, promptly and with status 0.
fn answers_during_a_flood(mut demo: Running, addr: SocketAddr, first_bytes: fn(usize) -> Vec<u8>) {
    let opened = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let attacker = {
        let (opened, stop) = (Arc::clone(&opened), Arc::clone(&stop));
        thread::spawn(move || flood(addr, opened, stop, first_bytes))
    };
    // Wait until the flood has run the demo out of file descriptors twice over.
    let started = Instant::now();
    while opened.load(Ordering::Relaxed) < 2 * OPEN_FILES {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the flood stalled"
        );
        thread::sleep(Duration::from_millis(5));
    }

    let (status, took) = get_index(addr);
    let during = opened.load(Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    let held = attacker.join().unwrap();
    assert_eq!(status, "HTTP/1.1 200 OK");
    eprintln!(
        "answered in {took:?} while {during} flood connections were open against a limit of {OPEN_FILES} files"
    );
    assert!(took < ANSWERED_WITHIN, "answered after {took:?}");

    // Still graceful after the flood: SIGTERM, status 0, promptly (the requests still in
    // flight are the flood's, stuck in their bodies: they get the grace period at most).
    drop(held);
    demo.signal("-TERM");
    let exit = demo
        .wait_within(Duration::from_secs(15))
        .expect("still running after SIGTERM");
    assert!(exit.success(), "{exit}");
}

#[test]
fn the_basic_demo_answers_during_a_flood_at_its_open_file_limit() {
    let (demo, addr) = start_demo("examples/basic", &[]);
    answers_during_a_flood(demo, addr, idle_or_half_a_head);
}

#[test]
fn the_live_demo_answers_during_a_flood_of_slow_admin_uploads() {
    let (demo, addr) = start_demo("examples/live", &[("SKILLPUB_ADMIN_TOKEN", TOKEN)]);
    answers_during_a_flood(demo, addr, slow_admin_upload);
}

#[cfg(feature = "mcp")]
#[test]
fn the_mcp_demo_answers_during_a_flood_of_slow_mcp_posts() {
    let (demo, addr) = start_demo("examples/mcp", &[]);
    answers_during_a_flood(demo, addr, slow_mcp_post);
}

#[cfg(feature = "mcp")]
#[test]
fn the_live_mcp_demo_answers_during_a_flood_of_held_listen_streams() {
    let (demo, addr) = start_demo("examples/live_mcp", &[]);
    answers_during_a_flood(demo, addr, held_listen);
}
