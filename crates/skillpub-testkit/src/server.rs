//! Servers on a free port of 127.0.0.1: an axum app in a tokio task, or a raw TCP server that
//! hands each connection to a function, for servers that misbehave on purpose.

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};

/// Serves `app` with `axum::serve` on a free port of 127.0.0.1, in a task of the current tokio
/// runtime, until the runtime (the test) ends; returns the address.
///
/// # Example
///
/// ```
/// use axum::{Router, routing::get};
/// use skillpub_testkit::{request, serve};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let addr = serve(Router::new().route("/", get(|| async { "hello" }))).await;
/// let response = request(addr, "GET", "/", &[]).await;
/// assert_eq!(response.status, 200);
/// assert_eq!(response.body, b"hello");
/// # });
/// ```
///
/// # Panics
///
/// When no port of 127.0.0.1 can be bound; the task panics if the server fails.
pub async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("a bound address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the server runs") });
    addr
}

/// What a [`serve_recording`] server was asked, request by request: the path and the values
/// of the two headers it notes (`None` where a request had none).
pub type Seen = Arc<Mutex<Vec<(String, Option<String>, Option<String>)>>>;

/// Serves, like [`serve`], an app that notes the path and the headers `noted` of every
/// request, and answers with `answer(path, other)`, where `other` is the address of a second
/// server, set once both run: two of them are two origins that name each other, for tests of
/// what a client sends to which origin (credentials above all).
///
/// # Panics
///
/// As [`serve`]; a request that arrives before `other` is set panics its task.
pub async fn serve_recording(
    other: Arc<OnceLock<SocketAddr>>,
    noted: [&'static str; 2],
    answer: fn(&str, SocketAddr) -> Response<Body>,
) -> (SocketAddr, Seen) {
    let seen = Seen::default();
    let log = seen.clone();
    let app = Router::new().fallback(move |request: Request<Body>| {
        let log = log.clone();
        let other = *other.get().expect("both servers run");
        async move {
            let text = |name: &str| {
                let value = request.headers().get(name)?;
                value.to_str().ok().map(str::to_owned)
            };
            let path = request.uri().path().to_owned();
            let entry = (path.clone(), text(noted[0]), text(noted[1]));
            log.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(entry);
            answer(&path, other)
        }
    });
    (serve(app).await, seen)
}

/// A raw server on a free port of 127.0.0.1: for each connection, a thread reads the request
/// head (up to the blank line) and calls `answer` with the connection, which may answer
/// anything, slowly, or nothing at all. Runs until the test process ends; returns the address.
///
/// A connection closed before its head is complete is dropped without calling `answer`.
///
/// # Example
///
/// ```
/// use std::io::Write;
/// use skillpub_testkit::{request_blocking, serve_raw};
///
/// let addr = serve_raw(|mut stream| {
///     let _ = stream.write_all(b"HTTP/1.1 418 I'm a teapot\r\ncontent-length: 0\r\n\r\n");
/// });
/// assert_eq!(request_blocking(addr, "GET", "/", &[]).status, 418);
/// ```
///
/// # Panics
///
/// When no port of 127.0.0.1 can be bound.
pub fn serve_raw(answer: fn(TcpStream)) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("a bound address");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                if read_head(&mut stream) {
                    answer(stream);
                }
            });
        }
    });
    addr
}

/// Reads a byte at a time up to the end of a request head; whether the head was complete.
fn read_head(stream: &mut TcpStream) -> bool {
    let mut head = Vec::new();
    let mut byte = [0_u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).unwrap_or(0) == 0 {
            return false;
        }
        head.push(byte[0]);
    }
    true
}
