//! `skillpub serve` stops gracefully on SIGTERM and on Ctrl-C (SIGINT): it stops listening,
//! closes quiet connections at once, finishes a download in flight, and exits with status 0.
#![cfg(unix)]

use std::time::Duration;

use skillpub_testkit::{Cli, Response, Running, Scratch, closed_within, read_response, send_get};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::{Instant, sleep};

/// The size of the file downloaded while the signal arrives: more than the kernel buffers at
/// both ends hold, so that the response is still being written when the signal comes.
const LARGE: usize = 12 << 20;

/// How long the server may take to close a quiet connection, or to exit after its last
/// response: it should take milliseconds.
const PROMPTLY: Duration = Duration::from_secs(2);

/// A skill folder with a large supporting file.
fn skills(signal: &str) -> Scratch {
    let dir = Scratch::new(&format!("serve-shutdown{signal}"));
    dir.write(
        "greeting/SKILL.md",
        "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
    );
    dir.write("greeting/assets/large.txt", vec![b'x'; LARGE]);
    dir
}

async fn stops_gracefully_on(signal: &str) {
    let dir = skills(signal);
    let mut command = Cli::new(env!("CARGO_BIN_EXE_skillpub")).command([
        "serve",
        dir.arg(),
        "--addr",
        "127.0.0.1:0",
    ]);
    command.stderr(std::process::Stdio::null());
    let (mut server, announced) = Running::announced(&mut command);
    let addr = announced.addr;

    let mut silent = TcpStream::connect(addr).await.unwrap();
    let mut idle = TcpStream::connect(addr).await.unwrap();
    send_get(&mut idle, "/.well-known/agent-skills/index.json").await;
    let answer = read_response(&mut idle).await;
    assert!(answer.head.starts_with("HTTP/1.1 200 OK"), "{answer:?}");

    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let mut download = socket.connect(addr).await.unwrap();
    send_get(
        &mut download,
        "/.well-known/agent-skills/greeting/assets/large.txt",
    )
    .await;
    let mut received = vec![0; 64 * 1024];
    download.read_exact(&mut received).await.unwrap();

    server.signal(signal);
    let signalled = Instant::now();
    closed_within(&mut silent, PROMPTLY).await;
    closed_within(&mut idle, PROMPTLY).await;
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "still listening after {signal}"
    );
    // The client does not read for a while: the server keeps waiting for it.
    sleep(Duration::from_millis(300)).await;
    assert!(server.is_running(), "exited with a download in flight");

    download.read_to_end(&mut received).await.unwrap();
    let body = Response::parse(&received).body;
    assert_eq!(body.len(), LARGE, "the download was cut");
    assert!(body.iter().all(|&b| b == b'x'));

    let exit = server
        .wait_within(PROMPTLY)
        .expect("exits promptly after the download");
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
