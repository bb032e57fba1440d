//! The client's deadline over real TCP: a server that never answers, or that sends its body
//! a byte at a time, cannot hold a call past the deadline, whatever the per-request timeout.

#![cfg(feature = "http")]

use std::io::Write;
use std::time::{Duration, Instant};

use skillpub_client::{Client, ClientError, FetchError, HostPolicy, HttpTransport};
use skillpub_testkit::serve_raw;

/// A client that may reach 127.0.0.1, with a long per-request timeout and a deadline in 1 s.
fn client() -> Client<HttpTransport> {
    Client::new(HttpTransport::allowing_private(Duration::from_secs(60)))
        .with_policy(HostPolicy {
            allow_private: true,
            allowlist: None,
        })
        .with_deadline(Instant::now() + Duration::from_secs(1))
}

fn assert_deadline(result: Result<skillpub_client::Index, ClientError>, started: Instant) {
    assert!(
        matches!(result, Err(ClientError::Fetch(FetchError::Deadline(_)))),
        "{result:?}"
    );
    // Well before the 60 s timeout of each request.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_server_that_never_answers_is_left_at_the_deadline() {
    let addr = serve_raw(|stream| {
        std::thread::sleep(Duration::from_secs(120));
        drop(stream);
    });
    let started = Instant::now();
    assert_deadline(client().discover(&format!("http://{addr}")), started);
}

#[test]
fn a_body_sent_a_byte_at_a_time_is_left_at_the_deadline() {
    let addr = serve_raw(|mut stream| {
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        for _ in 0..100_000 {
            if stream.write_all(b" ").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let started = Instant::now();
    assert_deadline(client().discover(&format!("http://{addr}")), started);
}

#[test]
fn a_deadline_already_passed_sends_nothing() {
    // A request that reached it would see its connection closed: a transport error.
    let addr = serve_raw(drop);
    let client = client().with_deadline(Instant::now());
    let started = Instant::now();
    assert_deadline(client.discover(&format!("http://{addr}")), started);
}
