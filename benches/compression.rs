//! How long an unrelated request waits while the router makes an encoded variant: a 15 MiB
//! Markdown file is asked for in `br` by 2, then by 200 clients at once, each on its own
//! connection, before its variant exists; meanwhile a client on another keep-alive
//! connection asks for `index.json` (its own `br` variant made already) every 10 ms. The
//! server is `skillpub serve`'s: the live router, served by `skillpub::web::serve` on a runtime
//! of two worker threads; the clients run on a thread of their own. Each case runs five
//! times, each with a new router, so that every run makes the variant.
//!
//! ```sh
//! cargo bench --bench compression
//! ```
//!
//! It prints, per case, the longest wait of an `index.json` request sent before the first
//! client got its variant, and how long the first client waited for it (the making).

use std::cell::Cell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use skillpub::{Catalog, LiveCatalog, Skill, SkillFile};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The size of the file whose variant is made.
const SIZE: usize = 15 << 20;

/// How many clients ask for the variant at once, in each case.
const CONCURRENT: [usize; 2] = [2, 200];

/// Runs of each case.
const RUNS: usize = 5;

/// How often the unrelated client asks for `index.json`.
const EVERY: Duration = Duration::from_millis(10);

const INDEX: &str = "/.well-known/agent-skills/index.json";
const LARGE: &str = "/.well-known/agent-skills/large/references/large.md";

fn main() {
    let large = Skill::new(
        None,
        "---\nname: large\ndescription: One large reference.\n---\nSee references/large.md.\n",
    )
    .with_files(vec![SkillFile::new(
        "references/large.md",
        skillpub_testkit::varied_markdown(SIZE),
        false,
    )]);
    let catalog = Catalog::new([large]).unwrap();
    for concurrent in CONCURRENT {
        let mut waits = Vec::new();
        let mut makings = Vec::new();
        for _ in 0..RUNS {
            let (wait, making) = run(&catalog, concurrent);
            waits.push(wait);
            makings.push(making);
        }
        println!(
            "{} MiB in br, {concurrent} clients at once: longest wait of index.json {}, making {}",
            SIZE >> 20,
            summary(&mut waits),
            summary(&mut makings),
        );
    }
}

/// The median, least and most of `times`.
fn summary(times: &mut [Duration]) -> String {
    times.sort();
    format!(
        "{:.1} ms (from {:.1} to {:.1})",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1])
    )
}

fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1000.0
}

/// One run: the longest wait of `index.json` while the variant was being made, and how long
/// the first client waited for the variant.
fn run(catalog: &Catalog, concurrent: usize) -> (Duration, Duration) {
    // The runtime and router of `skillpub serve`.
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = server
        .block_on(skillpub::web::serve::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = skillpub::web::live_router(LiveCatalog::new(catalog.clone()));
    server.spawn(async move { skillpub::web::serve(listener, app).await });

    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let measured =
        client.block_on(tokio::task::LocalSet::new().run_until(measure(addr, concurrent)));
    server.shutdown_background();
    measured
}

async fn measure(addr: SocketAddr, concurrent: usize) -> (Duration, Duration) {
    let mut unrelated = TcpStream::connect(addr).await.unwrap();
    get(&mut unrelated, INDEX).await;

    let answered = Rc::new(Answered::default());
    let started = Instant::now();
    let mut clients = Vec::new();
    for _ in 0..concurrent {
        let answered = Rc::clone(&answered);
        clients.push(tokio::task::spawn_local(async move {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            send(&mut stream, LARGE).await;
            let head = read_head(&mut stream).await;
            let waited = started.elapsed();
            answered.flag.set(true);
            answered.notify.notify_waiters();
            read_rest(&mut stream, head).await;
            waited
        }));
    }
    // Until the first client has its variant; a request under way then is waited for, and
    // counted.
    let mut longest = Duration::ZERO;
    loop {
        let sent = Instant::now();
        get(&mut unrelated, INDEX).await;
        longest = longest.max(sent.elapsed());
        let notified = answered.notify.notified();
        if answered.flag.get() {
            break;
        }
        tokio::select! {
            () = notified => break,
            () = tokio::time::sleep(EVERY) => {}
        }
    }
    let mut making = Duration::MAX;
    for client in clients {
        making = making.min(client.await.unwrap());
    }
    (longest, making)
}

/// Whether a client has its variant, and the wake-up of the unrelated client when one does.
#[derive(Default)]
struct Answered {
    flag: Cell<bool>,
    notify: tokio::sync::Notify,
}

async fn send(stream: &mut TcpStream, path: &str) {
    let head = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: br\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
}

/// `GET path` on a keep-alive connection, and its whole answer.
async fn get(stream: &mut TcpStream, path: &str) {
    send(stream, path).await;
    let head = read_head(stream).await;
    read_rest(stream, head).await;
}

/// The head of an answer: its `Content-Length`, and the body bytes read with it.
struct Head {
    length: usize,
    read: usize,
}

async fn read_head(stream: &mut TcpStream) -> Head {
    let mut raw = Vec::new();
    let mut chunk = [0; 4096];
    loop {
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "closed before a response head");
        raw.extend_from_slice(&chunk[..n]);
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&raw[..end]).unwrap();
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            assert!(head.contains("content-encoding: br"), "{head}");
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .unwrap()
                .parse()
                .unwrap();
            return Head {
                length,
                read: raw.len() - end - 4,
            };
        }
    }
}

/// Reads the rest of a body, and drops it.
async fn read_rest(stream: &mut TcpStream, head: Head) {
    let mut left = head.length - head.read;
    let mut chunk = vec![0; 256 << 10];
    while left > 0 {
        let n = stream
            .read(&mut chunk[..left.min(256 << 10)])
            .await
            .unwrap();
        assert!(n > 0, "closed in the middle of a body");
        left -= n;
    }
}
