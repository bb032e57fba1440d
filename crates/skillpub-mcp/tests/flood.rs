//! The `live_mcp` example, a real binary, under a flood of held `subscriptions/listen` streams
//! up to its open-file limit (`ulimit -n 256`, below the default stream cap of 512): the
//! server closes the oldest streams to make room, so a request sent during the flood is
//! answered within a second, and SIGTERM still stops it with status 0.
#![cfg(unix)]

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use skillpub_testkit::{Running, built_binary, request_blocking};

/// The example's open-file limit.
const OPEN_FILES: usize = 256;

/// Streams the attacker holds open at most: the server's limit three times over, within the
/// 1,024 files a test process commonly gets.
const FLOOD: usize = 800;

/// The bound for a request sent during the flood, as for the basic demo's flood.
const ANSWERED_WITHIN: Duration = Duration::from_secs(1);

/// A `subscriptions/listen` of a 2026-07-28 client, head and body.
fn listen_request(addr: SocketAddr) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Opens listen streams until `stop` is set or [`FLOOD`] are open, and holds them unread.
fn flood(addr: SocketAddr, opened: Arc<AtomicUsize>, stop: Arc<AtomicBool>) -> Vec<TcpStream> {
    let request = listen_request(addr);
    let mut held = Vec::new();
    while !stop.load(Ordering::Relaxed) && held.len() < FLOOD {
        let Ok(mut stream) = TcpStream::connect(addr) else {
            continue;
        };
        let _ = stream.write_all(&request);
        held.push(stream);
        opened.fetch_add(1, Ordering::Relaxed);
    }
    held
}

#[test]
fn the_live_mcp_example_answers_during_a_flood_of_held_listen_streams() {
    let (mut server, announced) = Running::demo(
        Command::new("sh")
            .args(["-c", &format!("ulimit -n {OPEN_FILES} && exec \"$0\"")])
            .arg(built_binary("examples/live_mcp")),
    );
    let addr = announced.addr;
    let opened = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let attacker = {
        let (opened, stop) = (Arc::clone(&opened), Arc::clone(&stop));
        thread::spawn(move || flood(addr, opened, stop))
    };
    let started = Instant::now();
    while opened.load(Ordering::Relaxed) < 2 * OPEN_FILES {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the flood stalled"
        );
        thread::sleep(Duration::from_millis(5));
    }

    let asked = Instant::now();
    let answer = request_blocking(addr, "GET", skillpub_core::paths::INDEX_PATH, &[]);
    let took = asked.elapsed();
    let during = opened.load(Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    let held = attacker.join().unwrap();
    assert_eq!(answer.status_line(), "HTTP/1.1 200 OK");
    eprintln!(
        "answered in {took:?} while {during} listen streams were opened against a limit of {OPEN_FILES} files"
    );
    assert!(took < ANSWERED_WITHIN, "answered after {took:?}");
    drop(held);

    server.signal("-TERM");
    let exit = server
        .wait_within(Duration::from_secs(15))
        .expect("still running after SIGTERM");
    assert!(exit.success(), "{exit}");
}
