//! The basic demo, a real shipped binary, under a flood of idle and slow connections up to its
//! open-file limit (`ulimit -n 256`): a request sent during the flood is answered within a
//! second, and SIGTERM still stops it gracefully with status 0.
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

/// The bound the README states for a request sent during the flood.
const ANSWERED_WITHIN: Duration = Duration::from_secs(1);

/// Starts the basic demo (which `cargo test` builds with the tests) on a free port under
/// `ulimit -n 256`; `exec` leaves no shell behind.
fn start_demo() -> (Running, SocketAddr) {
    let (demo, announced) = Running::demo(
        Command::new("sh")
            .args(["-c", &format!("ulimit -n {OPEN_FILES} && exec \"$0\"")])
            .arg(built_binary("examples/basic")),
    );
    (demo, announced.addr)
}

/// Opens connections until `stop` is set or [`FLOOD`] are open, and holds them: every other one
/// sends half a request head, the others nothing.
fn flood(addr: SocketAddr, opened: Arc<AtomicUsize>, stop: Arc<AtomicBool>) -> Vec<TcpStream> {
    let mut held = Vec::new();
    while !stop.load(Ordering::Relaxed) && held.len() < FLOOD {
        let Ok(mut stream) = TcpStream::connect(addr) else {
            continue;
        };
        if held.len() % 2 == 1 {
            let _ = stream.write_all(b"GET / HTTP/1.1\r\nHost: attacker\r\n");
        }
        held.push(stream);
        opened.fetch_add(1, Ordering::Relaxed);
    }
    held
}

/// `GET /.well-known/agent-skills/index.json`; the status line, and how long the answer took.
fn get_index(addr: SocketAddr) -> (String, Duration) {
    let started = Instant::now();
    let answer = request_blocking(addr, "GET", skillpub::model::INDEX_PATH, &[]);
    (answer.status_line().to_owned(), started.elapsed())
}

#[test]
fn the_basic_demo_answers_during_a_flood_at_its_open_file_limit() {
    let (mut demo, addr) = start_demo();
    let opened = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let attacker = {
        let (opened, stop) = (Arc::clone(&opened), Arc::clone(&stop));
        thread::spawn(move || flood(addr, opened, stop))
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

    // Still graceful after the flood: SIGTERM, status 0, promptly.
    demo.signal("-TERM");
    let exit = demo
        .wait_within(Duration::from_secs(5))
        .expect("still running after SIGTERM");
    assert!(exit.success(), "{exit}");
    drop(held);
}
