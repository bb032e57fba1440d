//! Content codings over real TCP on 127.0.0.1, on the runtime `skillpub serve` runs: making an
//! encoded variant never holds up the server's other requests.
//!
//! Linux only: a test knows that the making has started by watching the encoder's threads in
//! `/proc/self/task`.

#![cfg(target_os = "linux")]

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use skillpub_core::{Catalog, Digest, LiveCatalog, Skill, SkillFile};
use skillpub_testkit::{Response, decode};
use tokio::runtime::Runtime;

/// The size of the file whose variant is made: large enough that making it in `br` takes
/// seconds (about 1.3 s a MiB in a debug build, 30 ms in a release one).
const LARGE_SIZE: usize = if cfg!(debug_assertions) {
    2 << 20
} else {
    64 << 20
};

/// How many clients ask for the variant at once.
const CONCURRENT: usize = 4;

const INDEX: &str = "/.well-known/agent-skills/index.json";
const LARGE: &str = "/.well-known/agent-skills/large/references/large.md";

/// How long a read may wait: far longer than any answer here takes (liveness only).
const LIVENESS: Duration = Duration::from_secs(300);

/// The name the kernel gives the encoder's threads: `skillpub-encoder`, cut to the 15 bytes a
/// thread name may have on Linux.
const ENCODER_THREAD: &str = "skillpub-encode";

/// Held by each test while it makes a variant: the encoder's threads serve the whole process,
/// so a test that watches them must be the only one that gives them work.
static ONE_MAKING_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The CPU time each encoder thread of this process has had, in clock ticks, by thread id.
fn encoder_cpu() -> HashMap<u32, u64> {
    let tasks = std::fs::read_dir("/proc/self/task").expect("read /proc/self/task");
    tasks
        .flatten()
        .filter_map(|task| {
            let comm = std::fs::read_to_string(task.path().join("comm")).ok()?;
            if comm.trim_end() != ENCODER_THREAD {
                return None;
            }
            // After the name in parentheses: utime and stime are the 12th and 13th fields.
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            let ticks =
                fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
            Some((task.file_name().to_str()?.parse().ok()?, ticks))
        })
        .collect()
}

/// Waits until an encoder thread has had at least two clock ticks of CPU time more than it had
/// in `before` (a thread started since counts from zero): a variant is being made.
fn until_a_variant_is_being_made(before: &HashMap<u32, u64>) {
    let started = Instant::now();
    loop {
        let busy = encoder_cpu()
            .into_iter()
            .any(|(thread, ticks)| ticks >= before.get(&thread).copied().unwrap_or(0) + 2);
        if busy {
            return;
        }
        assert!(
            started.elapsed() < LIVENESS,
            "no variant is being made after {LIVENESS:?}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn large_catalog() -> (Catalog, String) {
    let text = skillpub_testkit::varied_markdown(LARGE_SIZE);
    let skill = Skill::new(
        None,
        "---\nname: large\ndescription: One large reference.\n---\nSee references/large.md.\n",
    )
    .with_files(vec![SkillFile::new(
        "references/large.md",
        text.clone(),
        false,
    )]);
    (Catalog::new([skill]).unwrap(), text)
}

/// A server on a free port of 127.0.0.1 as `skillpub serve` runs one: `serve` on a runtime of
/// two worker threads.
fn serve_as_the_cli_does(app: Router) -> (Runtime, SocketAddr) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(skillpub_axum::serve::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    runtime.spawn(skillpub_axum::serve(listener, app).into_future());
    (runtime, addr)
}

/// Sends `GET path` with `Accept-Encoding: br` (and `Connection: close` if `close`).
fn send_br(stream: &mut TcpStream, path: &str, close: bool) {
    let connection = if close { "Connection: close\r\n" } else { "" };
    let head = format!(
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: br\r\n{connection}\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
}

/// Reads one answer off a keep-alive connection: its head, and a body of `Content-Length`.
fn read_answer(stream: &mut TcpStream) -> Response {
    let mut raw = Vec::new();
    let mut chunk = [0; 16 << 10];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = Response::parse(&raw[..end + 4]);
            let length: usize = head.header("content-length").unwrap().parse().unwrap();
            if raw.len() >= end + 4 + length {
                return Response::parse(&raw);
            }
        }
        let n = stream.read(&mut chunk).unwrap();
        assert!(n > 0, "closed in the middle of an answer");
        raw.extend_from_slice(&chunk[..n]);
    }
}

/// Whether the server has sent anything on `stream` yet: looked up in the socket itself, so
/// that the answer does not depend on when the client got round to reading.
fn has_answered(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let peeked = stream.peek(&mut [0; 1]);
    stream.set_nonblocking(false).unwrap();
    match peeked {
        Ok(n) => n > 0,
        Err(error) if error.kind() == ErrorKind::WouldBlock => false,
        Err(error) => panic!("the connection failed: {error}"),
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(LIVENESS)).unwrap();
    stream
}

/// Several clients ask at once for a large file in `br`, before its variant exists; while it
/// is made, another client on its own keep-alive connection asks for `index.json`. Its answer
/// must come while no byte of the variant has: the making runs off the two worker threads,
/// and the requests waiting for it hold neither.
fn an_unrelated_request_is_answered_while_a_variant_is_made(app: Router, text: &str) {
    let _alone = ONE_MAKING_AT_A_TIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let (server, addr) = serve_as_the_cli_does(app);
    // The client blocks on its sockets, on a thread of its own.
    let mut unrelated = connect(addr);
    send_br(&mut unrelated, INDEX, false);
    assert_eq!(read_answer(&mut unrelated).status, 200);
    let before = encoder_cpu();
    let mut waiting: Vec<TcpStream> = (0..CONCURRENT).map(|_| connect(addr)).collect();
    for stream in &mut waiting {
        send_br(stream, LARGE, true);
    }
    // The making has started; it then takes seconds.
    until_a_variant_is_being_made(&before);

    send_br(&mut unrelated, INDEX, false);
    let index = read_answer(&mut unrelated);
    assert_eq!(index.status, 200, "{}", index.head);
    let answered: Vec<bool> = waiting.iter().map(has_answered).collect();
    assert!(
        !answered.contains(&true),
        "index.json waited for the variant, which came first: {answered:?}"
    );

    let etag = format!("\"{}-br\"", Digest::of(text.as_bytes()));
    for mut stream in waiting {
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        assert_variant(&Response::parse(&raw), &etag, text);
    }
    server.shutdown_background();
}

fn assert_variant(answer: &Response, etag: &str, text: &str) {
    assert_eq!(answer.status, 200, "{}", answer.head);
    assert_eq!(answer.header("content-encoding"), Some("br"));
    assert_eq!(answer.header("etag"), Some(etag));
    assert_eq!(answer.header("vary"), Some("Accept-Encoding"));
    assert!(decode(Some("br"), &answer.body) == text.as_bytes());
}

#[test]
fn the_live_router_answers_other_requests_while_a_variant_is_made() {
    let (catalog, text) = large_catalog();
    let app = skillpub_axum::live_router(LiveCatalog::new(catalog));
    an_unrelated_request_is_answered_while_a_variant_is_made(app, &text);
}

#[test]
fn the_fixed_router_answers_other_requests_while_a_variant_is_made() {
    let (catalog, text) = large_catalog();
    let app = skillpub_axum::router(catalog);
    an_unrelated_request_is_answered_while_a_variant_is_made(app, &text);
}
