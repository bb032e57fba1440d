//! `skillpub serve` stops gracefully on SIGTERM and on Ctrl-C (SIGINT): it stops listening,
//! closes quiet connections at once, finishes a download in flight, and exits with status 0.
#![cfg(unix)]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tokio::process::{Child, Command};
use tokio::time::{Instant, sleep, timeout};

/// The size of the file downloaded while the signal arrives: more than the kernel buffers at
/// both ends hold, so that the response is still being written when the signal comes.
const LARGE: usize = 12 << 20;

/// How long the server may take to close a quiet connection, or to exit after its last
/// response: it should take milliseconds.
const PROMPTLY: Duration = Duration::from_secs(2);

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A skill folder with a large supporting file.
fn skills(signal: &str) -> Scratch {
    let dir = Scratch(std::env::temp_dir().join(format!(
        "skillpub-serve-shutdown-{signal}-{}",
        std::process::id()
    )));
    let assets = dir.0.join("greeting/assets");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::write(
        dir.0.join("greeting/SKILL.md"),
        "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
    )
    .unwrap();
    std::fs::write(assets.join("large.txt"), vec![b'x'; LARGE]).unwrap();
    dir
}

/// Starts `skillpub serve` on a free port; killed when dropped.
async fn start(dir: &Scratch) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args(["serve", dir.0.to_str().unwrap(), "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let line = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .next_line()
        .await
        .unwrap()
        .expect("serve prints the index URL");
    let host = line
        .strip_prefix("Agent Skills index: http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("serve printed {line:?}"))
        .to_owned();
    (child, host)
}

async fn get(stream: &mut TcpStream, host: &str, path: &str) {
    let head = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
}

/// Reads one response whose body has a `Content-Length`, leaving the connection idle.
async fn read_response(stream: &mut TcpStream) -> String {
    let mut raw = Vec::new();
    let mut chunk = [0; 16 * 1024];
    loop {
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "closed before the whole response");
        raw.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&raw);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .expect("a Content-Length")
                .parse()
                .unwrap();
            if body.len() >= length {
                return text.into_owned();
            }
        }
    }
}

/// Waits until the server closes `stream`, without a byte from it.
async fn closed_promptly(stream: &mut TcpStream) {
    let mut byte = [0; 1];
    let read = timeout(PROMPTLY, stream.read(&mut byte)).await;
    assert!(
        matches!(read, Ok(Ok(0) | Err(_))),
        "not closed at once: {read:?}"
    );
}

async fn stops_gracefully_on(signal: &str) {
    let dir = skills(signal);
    let (mut child, host) = start(&dir).await;

    let mut silent = TcpStream::connect(&host).await.unwrap();
    let mut idle = TcpStream::connect(&host).await.unwrap();
    get(&mut idle, &host, "/.well-known/agent-skills/index.json").await;
    let answer = read_response(&mut idle).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");

    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let mut download = socket.connect(host.parse().unwrap()).await.unwrap();
    get(
        &mut download,
        &host,
        "/.well-known/agent-skills/greeting/assets/large.txt",
    )
    .await;
    let mut received = vec![0; 64 * 1024];
    download.read_exact(&mut received).await.unwrap();

    let pid = child.id().unwrap().to_string();
    let status = Command::new("kill")
        .args([signal, &pid])
        .status()
        .await
        .unwrap();
    assert!(status.success());
    let signalled = Instant::now();
    closed_promptly(&mut silent).await;
    closed_promptly(&mut idle).await;
    assert!(
        TcpStream::connect(&host).await.is_err(),
        "still listening after {signal}"
    );
    // The client does not read for a while: the server keeps waiting for it.
    sleep(Duration::from_millis(300)).await;
    assert!(
        child.try_wait().unwrap().is_none(),
        "exited with a download in flight"
    );

    download.read_to_end(&mut received).await.unwrap();
    let head_end = received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head")
        + 4;
    let body = &received[head_end..];
    assert_eq!(body.len(), LARGE, "the download was cut");
    assert!(body.iter().all(|&b| b == b'x'));

    let exit = timeout(PROMPTLY, child.wait())
        .await
        .expect("exits promptly after the download")
        .unwrap();
    assert!(exit.success(), "{exit}");
    eprintln!(
        "{signal}: exited {:?} after the signal, once the download in flight was done",
        signalled.elapsed()
    );
}

#[tokio::test]
async fn serve_stops_gracefully_on_sigterm() {
    stops_gracefully_on("-TERM").await;
}

#[tokio::test]
async fn serve_stops_gracefully_on_ctrl_c() {
    stops_gracefully_on("-INT").await;
}
