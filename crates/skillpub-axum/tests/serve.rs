//! The hardened server over real TCP on 127.0.0.1, with short timeouts set through the library:
//! silent, slow and idle connections are closed on time, busy ones never, request bodies that
//! stop or trickle are closed at their timeouts, the memory of bodies in flight is one budget
//! for every connection, the connection cap makes room by closing the oldest quiet connection
//! (else one stuck in its body, else an event stream), and shutdown drains gracefully.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::BytesRejection;
use axum::routing::{get, post};
use bytes::Bytes;
use http::StatusCode;
use http::header::{self, CONTENT_TYPE, HeaderName};
use http_body::Frame;
use http_body_util::BodyExt;
use skillpub_axum::serve::{MIN_BODY_BUDGET, Serve, ServeError};
use skillpub_testkit::{
    Response, closed_within, find_program, finish_response, read_response, request_with_body,
    send_get, skip_or_fail, still_open,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::{Instant, Sleep, sleep, timeout};

/// Slack allowed on top of a timeout for the machine to get round to closing the connection.
const SLACK: Duration = Duration::from_secs(2);

/// How long a test waits for a condition it polls: far longer than it takes (liveness only).
const LIVENESS: Duration = Duration::from_secs(30);

/// The size of `/large`: more than the kernel buffers at both ends hold, so that the response
/// stays in hyper's hands while the client does not read.
const LARGE: usize = 24 << 20;

/// A body that sends `tick\n` `chunks` times, one every `every`.
struct Drip {
    chunks: usize,
    every: Duration,
    sleep: Pin<Box<Sleep>>,
}

impl Drip {
    fn body(chunks: usize, every: Duration) -> Body {
        Body::new(Self {
            chunks,
            every,
            sleep: Box::pin(sleep(every)),
        })
    }
}

impl http_body::Body for Drip {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.chunks == 0 {
            return Poll::Ready(None);
        }
        ready!(self.sleep.as_mut().poll(cx));
        self.chunks -= 1;
        let every = self.every;
        self.sleep.as_mut().reset(Instant::now() + every);
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"tick\n")))))
    }
}

/// The CORS headers of `/upload-with-cors`.
const APP_CORS: [(HeaderName, &str); 4] = [
    (header::ACCESS_CONTROL_ALLOW_ORIGIN, "https://app.example"),
    (header::ACCESS_CONTROL_ALLOW_CREDENTIALS, "true"),
    (header::ACCESS_CONTROL_EXPOSE_HEADERS, "X-Upload-Id"),
    (header::VARY, "Origin"),
];

/// A body of `LARGE` bytes in pieces of 64 KiB, each made when hyper asks for it, as a
/// streamed answer is: hyper holds the body until its last piece.
struct Pieces {
    left: usize,
}

impl http_body::Body for Pieces {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let piece = self.left.min(64 << 10);
        if piece == 0 {
            return Poll::Ready(None);
        }
        self.left -= piece;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(vec![b'x'; piece])))))
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left as u64)
    }
}

/// The test app; `/upload` adds the body bytes it reads to `received`.
fn app(received: Arc<AtomicUsize>) -> Router {
    Router::new()
        .route("/", get(|| async { "hello" }))
        // Three ticks 400 ms apart, after 400 ms of thought: longer gaps than the timeouts.
        .route(
            "/slow",
            get(|| async {
                sleep(Duration::from_millis(400)).await;
                Drip::body(3, Duration::from_millis(400))
            }),
        )
        .route(
            "/drip",
            get(|| async { Drip::body(4, Duration::from_millis(300)) }),
        )
        .route(
            "/long",
            get(|| async { Drip::body(20, Duration::from_millis(300)) }),
        )
        .route("/large", get(|| async { vec![b'x'; LARGE] }))
        // Counts the bytes of its body as they reach it, in `received`.
        .route(
            "/upload",
            post(move |request: axum::extract::Request| {
                let received = Arc::clone(&received);
                async move {
                    let mut body = request.into_body();
                    let mut length = 0;
                    while let Some(frame) = body.frame().await {
                        match frame {
                            Ok(frame) => {
                                let bytes = frame.into_data().map_or(0, |data| data.len());
                                length += bytes;
                                received.fetch_add(bytes, Ordering::AcqRel);
                            }
                            Err(error) => return (StatusCode::BAD_REQUEST, error.to_string()),
                        }
                    }
                    (StatusCode::OK, length.to_string())
                }
            }),
        )
        // Reads its whole body, then answers server-sent events that never end: an MCP
        // `subscriptions/listen`.
        .route(
            "/listen",
            post(|_: Bytes| async {
                (
                    [(CONTENT_TYPE, "text/event-stream")],
                    Drip::body(usize::MAX, Duration::from_millis(300)),
                )
            }),
        )
        // Reads its whole body, then streams `LARGE` bytes.
        .route(
            "/upload-then-large",
            post(|_: Bytes| async { Body::new(Pieces { left: LARGE }) }),
        )
        // An app with a CORS policy of its own, which it applies to every answer, an error
        // included: one origin, with credentials.
        .route(
            "/upload-with-cors",
            post(|body: Result<Bytes, BytesRejection>| async move {
                let status = match body {
                    Ok(_) => StatusCode::OK,
                    Err(_) => StatusCode::BAD_REQUEST,
                };
                (status, APP_CORS, "")
            }),
        )
        // Thinks for 800 ms before it reads the body: longer than the body timeouts below.
        .route(
            "/think-then-upload",
            post(|request: axum::extract::Request| async move {
                sleep(Duration::from_millis(800)).await;
                let body = axum::body::to_bytes(request.into_body(), usize::MAX).await;
                body.map_or_else(|error| error.to_string(), |body| body.len().to_string())
            }),
        )
        // Server-sent events that never end on their own.
        .route(
            "/events",
            get(|| async {
                (
                    [(CONTENT_TYPE, "text/event-stream")],
                    Drip::body(usize::MAX, Duration::from_millis(300)),
                )
            }),
        )
}

/// Sends the head of `POST path` with `Content-Length: length`, or chunked when `None`.
async fn send_post_head(stream: &mut TcpStream, path: &str, length: Option<usize>) {
    let host = stream.peer_addr().unwrap();
    let framing = match length {
        Some(length) => format!("Content-Length: {length}"),
        None => "Transfer-Encoding: chunked".to_owned(),
    };
    let head = format!("POST {path} HTTP/1.1\r\nHost: {host}\r\n{framing}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
}

/// `POST /upload` with a chunked body, framing included; the answer.
async fn upload_chunked(addr: SocketAddr, chunked: &[u8]) -> Response {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    send_post_head(&mut stream, "/upload", None).await;
    // A server that refuses the body may close before it has read it all.
    let _ = stream.write_all(chunked).await;
    timeout(SLACK, read_response(&mut stream))
        .await
        .expect("no answer to a chunked upload")
}

/// A connection that has sent `sent` bytes of a body of `length` to `/upload`, and holds.
async fn upload_in_part(addr: SocketAddr, length: usize, sent: usize) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    send_post_head(&mut stream, "/upload", Some(length)).await;
    stream.write_all(&vec![b'x'; sent]).await.unwrap();
    stream
}

/// A server on a free port of 127.0.0.1, stopped by [`Running::stop`] or aborted when dropped.
struct Running {
    addr: SocketAddr,
    /// The body bytes `/upload` has read.
    received: Arc<AtomicUsize>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServeError>>,
}

impl Running {
    async fn start(configure: impl FnOnce(Serve) -> Serve) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let received = Arc::new(AtomicUsize::new(0));
        let app = app(Arc::clone(&received));
        let server =
            configure(skillpub_axum::serve(listener, app)).with_graceful_shutdown(async move {
                let _ = stopped.await;
            });
        Self {
            addr,
            received,
            stop: Some(stop),
            task: tokio::spawn(server.into_future()),
        }
    }

    fn stop(&mut self) {
        self.stop.take().unwrap().send(()).unwrap();
    }

    /// Waits until `/upload` has read `bytes` of body in all: the server charged them to the
    /// budget before the app had them.
    async fn until_received(&self, bytes: usize) {
        let started = Instant::now();
        while self.received.load(Ordering::Acquire) < bytes {
            assert!(
                started.elapsed() < LIVENESS,
                "the app has read {} bytes of {bytes}",
                self.received.load(Ordering::Acquire)
            );
            sleep(Duration::from_millis(5)).await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[tokio::test]
async fn a_silent_connection_is_closed_within_the_header_timeout() {
    let header = Duration::from_millis(300);
    let server = Running::start(|s| s.header_read_timeout(header)).await;
    let started = Instant::now();
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    closed_within(&mut silent, header + SLACK).await;
    assert!(started.elapsed() >= header, "closed before the timeout");
}

#[tokio::test]
async fn a_head_sent_slowly_is_closed_within_the_header_timeout() {
    let header = Duration::from_millis(400);
    let server = Running::start(|s| s.header_read_timeout(header)).await;
    let started = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut read_half, mut write_half) = stream.split();
    let slow_loris = async {
        write_half.write_all(b"GET / HTTP/1.1\r\n").await?;
        loop {
            sleep(Duration::from_millis(50)).await;
            write_half.write_all(b"X-Slow: 1\r\n").await?;
        }
    };
    let mut byte = [0; 1];
    tokio::select! {
        // A write fails once the server has closed the connection.
        result = slow_loris => {
            let _: std::io::Result<()> = result;
        }
        read = timeout(header + SLACK, read_half.read(&mut byte)) => {
            assert!(matches!(read, Ok(Ok(0) | Err(_))), "still open, or answered: {read:?}");
        }
    }
    let elapsed = started.elapsed();
    assert!(
        elapsed >= header,
        "closed after {elapsed:?}, before the timeout"
    );
    assert!(elapsed < header + SLACK, "closed after {elapsed:?}");
}

/// A request head of about `size` bytes, without its last line ending: 4 KiB header lines.
fn unfinished_head(size: usize) -> Vec<u8> {
    let mut head = b"GET / HTTP/1.1\r\nHost: x\r\n".to_vec();
    let mut line = 0;
    while head.len() < size {
        head.extend_from_slice(format!("X-Pad-{line}: {}\r\n", "a".repeat(4000)).as_bytes());
        line += 1;
    }
    head
}

#[tokio::test]
async fn a_head_longer_than_the_limit_gets_431_as_soon_as_it_is_too_long() {
    let server = Running::start(|s| s.header_read_timeout(Duration::from_secs(60))).await;
    // 40 KB of a head that has not ended: past the 32 KiB, long before the header timeout.
    let mut long = TcpStream::connect(server.addr).await.unwrap();
    long.write_all(&unfinished_head(40_000)).await.unwrap();
    let answered = until_closed(&mut long).await;
    assert!(answered.starts_with("HTTP/1.1 431"), "{answered}");

    // A head within the limit is served.
    let mut within = TcpStream::connect(server.addr).await.unwrap();
    within.write_all(&unfinished_head(28_000)).await.unwrap();
    within.write_all(b"\r\n").await.unwrap();
    let Response { head, body, .. } = timeout(SLACK, read_response(&mut within)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, b"hello");

    // And a longer one where the limit is raised.
    let raised = Running::start(|s| s.max_header_size(64 << 10)).await;
    let mut long = TcpStream::connect(raised.addr).await.unwrap();
    long.write_all(&unfinished_head(40_000)).await.unwrap();
    long.write_all(b"\r\n").await.unwrap();
    let Response { head, .. } = timeout(SLACK, read_response(&mut long)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

#[tokio::test]
async fn a_keep_alive_connection_is_closed_after_the_idle_timeout_and_not_the_header_one() {
    let header = Duration::from_millis(200);
    let idle = Duration::from_millis(800);
    let server = Running::start(|s| s.header_read_timeout(header).idle_timeout(idle)).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut stream, "/").await;
    let Response { head, body, .. } = read_response(&mut stream).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, b"hello");

    // Idle for twice the header timeout: the connection still takes a request.
    sleep(header * 2).await;
    send_get(&mut stream, "/").await;
    let Response { head, .. } = read_response(&mut stream).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");

    let idle_for = closed_within(&mut stream, idle + SLACK).await;
    assert!(
        idle_for >= idle - Duration::from_millis(50),
        "closed after {idle_for:?}"
    );
}

#[tokio::test]
async fn a_response_slower_than_every_timeout_is_never_cut() {
    let short = Duration::from_millis(200);
    let server = Running::start(|s| s.header_read_timeout(short).idle_timeout(short)).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut stream, "/slow").await;
    let Response { head, body, .. } = read_response(&mut stream).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(String::from_utf8(body).unwrap().matches("tick").count(), 3);
}

#[tokio::test]
async fn a_large_response_read_slowly_is_never_cut() {
    let short = Duration::from_millis(200);
    let server = Running::start(|s| s.header_read_timeout(short).idle_timeout(short)).await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let mut stream = socket.connect(server.addr).await.unwrap();
    send_get(&mut stream, "/large").await;
    let mut first = [0; 1024];
    stream.read_exact(&mut first).await.unwrap();
    // The client stops reading for five idle timeouts: the response waits in the server.
    sleep(short * 5).await;
    let Response { body, .. } = finish_response(&mut stream, first.to_vec()).await;
    assert_eq!(body.len(), LARGE, "the response was cut");
}

#[tokio::test]
async fn a_client_that_stops_reading_is_closed_after_the_send_timeout() {
    let send = Duration::from_millis(300);
    let server = Running::start(|s| s.send_timeout(send)).await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let mut stream = socket.connect(server.addr).await.unwrap();
    send_get(&mut stream, "/large").await;
    let mut first = [0; 1024];
    stream.read_exact(&mut first).await.unwrap();
    sleep(send + SLACK).await;
    // What the kernel had already taken still arrives, then the end: the rest never does.
    let mut rest = Vec::new();
    let read = timeout(SLACK, stream.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "still open after the send timeout");
    assert!(
        first.len() + rest.len() < LARGE,
        "the whole response arrived"
    );
}

#[tokio::test]
async fn shutdown_closes_quiet_connections_at_once_and_lets_requests_in_flight_finish() {
    let mut server = Running::start(|s| s.grace_period(Duration::from_secs(5))).await;
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    let mut idle = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut idle, "/").await;
    read_response(&mut idle).await;
    let mut busy = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut busy, "/drip").await;
    let mut first = [0; 1];
    busy.read_exact(&mut first).await.unwrap();

    server.stop();
    let stopped = Instant::now();
    closed_within(&mut silent, Duration::from_millis(500)).await;
    closed_within(&mut idle, Duration::from_millis(500)).await;
    assert!(
        TcpStream::connect(server.addr).await.is_err(),
        "the listener is still open"
    );

    let mut rest = Vec::new();
    busy.read_to_end(&mut rest).await.unwrap();
    let whole = [&first[..], &rest[..]].concat();
    assert!(whole.ends_with(b"0\r\n\r\n"), "the response was cut");
    assert_eq!(String::from_utf8_lossy(&whole).matches("tick").count(), 4);
    let result = timeout(SLACK, &mut server.task).await;
    assert!(matches!(result, Ok(Ok(Ok(())))), "{result:?}");
    assert!(
        stopped.elapsed() < Duration::from_secs(5),
        "waited for the grace period"
    );
}

#[tokio::test]
async fn shutdown_closes_what_is_still_busy_after_the_grace_period() {
    let grace = Duration::from_millis(300);
    let mut server = Running::start(|s| s.grace_period(grace)).await;
    let mut busy = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut busy, "/long").await;
    let mut first = [0; 1];
    busy.read_exact(&mut first).await.unwrap();

    server.stop();
    let mut rest = Vec::new();
    let read = timeout(grace + SLACK, busy.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "still open after the grace period");
    assert!(!rest.ends_with(b"0\r\n\r\n"), "the long response finished");
    let result = timeout(SLACK, &mut server.task).await;
    assert!(matches!(result, Ok(Ok(Ok(())))), "{result:?}");
}

#[tokio::test]
async fn at_the_connection_cap_the_oldest_quiet_connection_makes_room() {
    let server = Running::start(|s| s.max_connections(2)).await;
    let mut oldest = TcpStream::connect(server.addr).await.unwrap();
    sleep(Duration::from_millis(50)).await;
    let mut newer = TcpStream::connect(server.addr).await.unwrap();
    sleep(Duration::from_millis(50)).await;

    let mut third = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut third, "/").await;
    let Response { head, .. } = timeout(SLACK, read_response(&mut third)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    closed_within(&mut oldest, Duration::from_millis(100)).await;
    assert!(still_open(&mut newer, Duration::from_millis(200)).await);
}

#[tokio::test]
async fn at_the_connection_cap_a_busy_connection_is_never_closed() {
    let server = Running::start(|s| s.max_connections(1)).await;
    let mut busy = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut busy, "/drip").await;
    let mut first = [0; 1];
    busy.read_exact(&mut first).await.unwrap();

    let mut waiting = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut waiting, "/").await;
    let Response { body, .. } = finish_response(&mut busy, first.to_vec()).await;
    assert_eq!(String::from_utf8_lossy(&body).matches("tick").count(), 4);
    // The waiting request is answered once the busy one is done and its connection idle.
    let Response { head, .. } = timeout(SLACK, read_response(&mut waiting)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

#[tokio::test]
async fn a_body_that_stops_is_closed_at_the_body_timeout() {
    let body = Duration::from_millis(400);
    let server = Running::start(|s| s.body_read_timeout(body)).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    // Content-Length: 100000, one byte, then silence.
    send_post_head(&mut stream, "/upload", Some(100_000)).await;
    stream.write_all(b"{").await.unwrap();
    let waited = closed_within(&mut stream, body + SLACK).await;
    assert!(
        waited >= body - Duration::from_millis(50),
        "closed after {waited:?}, before the body timeout"
    );
}

#[tokio::test]
async fn a_body_that_trickles_forever_is_closed_at_the_request_timeout() {
    let (body, whole) = (Duration::from_millis(400), Duration::from_millis(1500));
    let server = Running::start(|s| s.body_read_timeout(body).request_read_timeout(whole)).await;
    let started = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut read_half, mut write_half) = stream.split();
    let trickle = async {
        write_half
            .write_all(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
            .await?;
        // A byte every 100 ms, well within the body timeout, forever.
        loop {
            write_half.write_all(b"x").await?;
            sleep(Duration::from_millis(100)).await;
        }
    };
    let mut byte = [0; 1];
    tokio::select! {
        result = trickle => {
            let _: std::io::Result<()> = result;
        }
        read = timeout(whole + SLACK, read_half.read(&mut byte)) => {
            assert!(matches!(read, Ok(Ok(0) | Err(_))), "still open, or answered: {read:?}");
        }
    }
    let elapsed = started.elapsed();
    assert!(
        elapsed >= whole - Duration::from_millis(50),
        "closed after {elapsed:?}, before the request timeout"
    );
    assert!(elapsed < whole + SLACK, "closed after {elapsed:?}");
}

#[tokio::test]
async fn a_body_sent_steadily_and_an_app_slow_to_read_its_body_are_never_cut() {
    let short = Duration::from_millis(300);
    let server = Running::start(|s| {
        s.header_read_timeout(short)
            .idle_timeout(short)
            .body_read_timeout(short)
    })
    .await;
    // Ten pieces 150 ms apart: 1.5 s in all, each gap within the body timeout.
    let mut steady = TcpStream::connect(server.addr).await.unwrap();
    send_post_head(&mut steady, "/upload", Some(10_000)).await;
    for _ in 0..10 {
        sleep(Duration::from_millis(150)).await;
        steady.write_all(&[b'x'; 1000]).await.unwrap();
    }
    let Response { head, body, .. } = timeout(SLACK, read_response(&mut steady)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, b"10000");

    // The whole body at once to an app that reads it only after 800 ms: not the client's wait.
    let mut thinking = TcpStream::connect(server.addr).await.unwrap();
    send_post_head(&mut thinking, "/think-then-upload", Some(5)).await;
    thinking.write_all(b"hello").await.unwrap();
    let Response { head, body, .. } = timeout(SLACK, read_response(&mut thinking)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, b"5");
}

#[tokio::test]
async fn the_body_budget_is_shared_by_every_connection() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    // 800 KiB of a 900 KiB body held by the app: 224 KiB of the 1 MiB budget are left.
    let mut holder = upload_in_part(server.addr, 900 << 10, 800 << 10).await;
    server.until_received(800 << 10).await;

    // More than the room left: 503 at once, before the app sees it.
    let mut refused = TcpStream::connect(server.addr).await.unwrap();
    send_post_head(&mut refused, "/upload", Some(400 << 10)).await;
    let answer = timeout(SLACK, read_response(&mut refused))
        .await
        .expect("no answer: the request waits for its body");
    assert_eq!(answer.status, 503, "{}", answer.head);
    assert_eq!(answer.header("retry-after"), Some("1"), "{}", answer.head);
    assert_eq!(
        answer.header("connection"),
        Some("close"),
        "{}",
        answer.head
    );
    closed_within(&mut refused, SLACK).await;

    // More than the whole budget: 413.
    let mut too_large = TcpStream::connect(server.addr).await.unwrap();
    send_post_head(&mut too_large, "/upload", Some(2 << 20)).await;
    let Response { head, .. } = timeout(SLACK, read_response(&mut too_large)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");

    // Once the holder's response is done, its bytes are room again.
    holder.write_all(&vec![b'x'; 100 << 10]).await.unwrap();
    let Response { head, body, .. } = timeout(SLACK, read_response(&mut holder)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, (900 << 10).to_string().as_bytes());
    let retried =
        request_with_body(server.addr, "POST", "/upload", &[], &vec![b'x'; 400 << 10]).await;
    assert_eq!(retried.status, 200, "{}", retried.head);
}

#[tokio::test]
async fn a_body_whose_bytes_find_no_room_is_answered_503_by_the_server() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    let mut holder = upload_in_part(server.addr, 900 << 10, 800 << 10).await;
    server.until_received(800 << 10).await;

    // A chunked body of 300 KiB: admitted (its length is unknown and some room is left), but
    // only 224 KiB of it fit while the holder holds its 800 KiB.
    let mut chunked = format!("{:x}\r\n", 300 << 10).into_bytes();
    chunked.extend_from_slice(&vec![b'x'; 300 << 10]);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let answer = upload_chunked(server.addr, &chunked).await;
    assert_eq!(
        answer.status, 503,
        "the app's answer went out: {}",
        answer.head
    );
    assert_eq!(answer.header("retry-after"), Some("1"), "{}", answer.head);

    // The holder was never refused, and its bytes are room again once it is answered.
    holder.write_all(&vec![b'x'; 100 << 10]).await.unwrap();
    let Response { head, .. } = timeout(SLACK, read_response(&mut holder)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let retried = upload_chunked(server.addr, &chunked).await;
    assert_eq!(retried.status, 200, "{}", retried.head);
    assert_eq!(retried.body, (300 << 10).to_string().as_bytes());
}

/// Reads `stream` until the first event of an event stream has come: its head is sent.
async fn until_first_event(stream: &mut TcpStream) {
    let mut raw = Vec::new();
    let mut chunk = [0; 4096];
    while !raw.windows(4).any(|window| window == b"tick") {
        let n = timeout(SLACK, stream.read(&mut chunk))
            .await
            .expect("no event")
            .unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&chunk[..n]);
    }
    assert!(
        raw.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
}

#[tokio::test]
async fn held_event_streams_after_large_posts_leave_the_room_intact() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    // Three listens padded to 900 KiB each, as any client may send them, their streams held:
    // together more than the whole budget.
    let mut streams = Vec::new();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        send_post_head(&mut stream, "/listen", Some(900 << 10)).await;
        stream.write_all(&vec![b' '; 900 << 10]).await.unwrap();
        until_first_event(&mut stream).await;
        streams.push(stream);
    }
    // An ordinary POST meanwhile finds the whole budget.
    let upload =
        request_with_body(server.addr, "POST", "/upload", &[], &vec![b'x'; 900 << 10]).await;
    assert_eq!(upload.status, 200, "{}", upload.head);
    // And the streams go on.
    for mut stream in streams {
        let mut more = [0; 64];
        let read = timeout(SLACK, stream.read(&mut more))
            .await
            .expect("no more events");
        assert!(read.unwrap() > 0, "the stream was closed");
    }
}

#[tokio::test]
async fn a_large_answer_read_slowly_after_a_large_post_leaves_the_room_intact() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let mut slow = socket.connect(server.addr).await.unwrap();
    send_post_head(&mut slow, "/upload-then-large", Some(900 << 10)).await;
    slow.write_all(&vec![b'x'; 900 << 10]).await.unwrap();
    let mut first = [0; 1024];
    slow.read_exact(&mut first).await.unwrap();

    // The client reads no more of its answer: an ordinary POST meanwhile finds the budget.
    let upload =
        request_with_body(server.addr, "POST", "/upload", &[], &vec![b'x'; 900 << 10]).await;
    assert_eq!(upload.status, 200, "{}", upload.head);
    let Response { body, .. } = finish_response(&mut slow, first.to_vec()).await;
    assert_eq!(body.len(), LARGE, "the answer was cut");
}

#[tokio::test]
async fn a_chunked_body_larger_than_the_whole_budget_gets_413_not_a_retry() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    // 1.5 MiB in three chunks, to a server that takes 1 MiB of bodies in all: it can never
    // fit, however long the client waits.
    let mut chunked = Vec::new();
    for _ in 0..3 {
        chunked.extend_from_slice(format!("{:x}\r\n", 512 << 10).as_bytes());
        chunked.extend_from_slice(&vec![b'x'; 512 << 10]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let answer = upload_chunked(server.addr, &chunked).await;
    assert_eq!(answer.status, 413, "{}", answer.head);
    assert_eq!(answer.header("retry-after"), None, "{}", answer.head);
    assert_eq!(
        answer.header("connection"),
        Some("close"),
        "{}",
        answer.head
    );

    // A body that fits, once the room is free, is not refused.
    let fits = request_with_body(server.addr, "POST", "/upload", &[], &vec![b'x'; 1 << 20]).await;
    assert_eq!(fits.status, 200, "{}", fits.head);
}

#[tokio::test]
async fn the_servers_own_refusals_can_be_read_from_any_origin() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    let mut holder = upload_in_part(server.addr, 900 << 10, 800 << 10).await;
    server.until_received(800 << 10).await;
    let from_a_page = |answer: &Response| {
        assert_eq!(
            answer.header("access-control-allow-origin"),
            Some("*"),
            "{}",
            answer.head
        );
    };

    // Refused before the app: more than the room left, and more than the whole budget.
    let mut refused = TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /upload HTTP/1.1\r\nHost: x\r\nOrigin: https://page.example\r\nContent-Length: {}\r\n\r\n",
        400 << 10
    );
    refused.write_all(head.as_bytes()).await.unwrap();
    let answer = timeout(SLACK, read_response(&mut refused)).await.unwrap();
    assert_eq!(answer.status, 503, "{}", answer.head);
    from_a_page(&answer);
    assert_eq!(
        answer.header("access-control-expose-headers"),
        Some("Retry-After"),
        "{}",
        answer.head
    );
    let mut too_large = TcpStream::connect(server.addr).await.unwrap();
    send_post_head(&mut too_large, "/upload", Some(2 << 20)).await;
    let answer = timeout(SLACK, read_response(&mut too_large)).await.unwrap();
    assert_eq!(answer.status, 413, "{}", answer.head);
    from_a_page(&answer);

    // Refused in place of the app's answer, which had no CORS headers.
    let mut chunked = format!("{:x}\r\n", 300 << 10).into_bytes();
    chunked.extend_from_slice(&vec![b'x'; 300 << 10]);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let answer = upload_chunked(server.addr, &chunked).await;
    assert_eq!(answer.status, 503, "{}", answer.head);
    from_a_page(&answer);
    assert_eq!(
        answer.header("access-control-expose-headers"),
        Some("Retry-After"),
        "{}",
        answer.head
    );
    holder.write_all(&vec![b'x'; 100 << 10]).await.unwrap();
    let Response { head, .. } = timeout(SLACK, read_response(&mut holder)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

#[tokio::test]
async fn a_503_in_place_of_the_apps_answer_keeps_the_apps_cors_policy() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    let mut holder = upload_in_part(server.addr, 900 << 10, 800 << 10).await;
    server.until_received(800 << 10).await;

    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(
            b"POST /upload-with-cors HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example\r\n\
              Transfer-Encoding: chunked\r\n\r\n",
        )
        .await
        .unwrap();
    let mut chunked = format!("{:x}\r\n", 300 << 10).into_bytes();
    chunked.extend_from_slice(&vec![b'x'; 300 << 10]);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let _ = stream.write_all(&chunked).await;
    let answer = timeout(SLACK, read_response(&mut stream)).await.unwrap();
    assert_eq!(answer.status, 503, "{}", answer.head);
    assert_eq!(answer.header("retry-after"), Some("1"), "{}", answer.head);
    // The app's policy for this origin stands, and the server's header is exposed with the
    // app's.
    for (name, value) in [
        ("access-control-allow-origin", "https://app.example"),
        ("access-control-allow-credentials", "true"),
        ("access-control-expose-headers", "X-Upload-Id, Retry-After"),
        ("vary", "Origin"),
    ] {
        assert_eq!(answer.header(name), Some(value), "{}", answer.head);
    }
    holder.write_all(&vec![b'x'; 100 << 10]).await.unwrap();
    let Response { head, .. } = timeout(SLACK, read_response(&mut holder)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

/// Reads everything `stream` gets until the server closes it.
async fn until_closed(stream: &mut TcpStream) -> String {
    let mut raw = Vec::new();
    let mut chunk = [0; 16 << 10];
    loop {
        match timeout(SLACK, stream.read(&mut chunk)).await {
            Ok(Ok(0) | Err(_)) => return String::from_utf8_lossy(&raw).into_owned(),
            Ok(Ok(n)) => raw.extend_from_slice(&chunk[..n]),
            Err(_) => panic!("still open: {}", String::from_utf8_lossy(&raw)),
        }
    }
}

#[tokio::test]
async fn a_request_after_a_refused_one_is_never_answered() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    let pipelined = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    // Refused before the app, by its length: its body, whole, then a request on its heels.
    let mut holder = upload_in_part(server.addr, 1 << 20, (1 << 20) - 4096).await;
    server.until_received((1 << 20) - 4096).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let body = "x".repeat(5000);
    let request = format!(
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}{pipelined}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let answered = until_closed(&mut stream).await;
    assert!(answered.starts_with("HTTP/1.1 503"), "{answered}");
    assert_eq!(answered.matches("HTTP/1.1").count(), 1, "{answered}");

    // Refused on its way, in place of the app: the same.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n{pipelined}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let answered = until_closed(&mut stream).await;
    assert!(answered.starts_with("HTTP/1.1 503"), "{answered}");
    assert_eq!(answered.matches("HTTP/1.1").count(), 1, "{answered}");
    holder.write_all(&[b'x'; 4096]).await.unwrap();
    let Response { head, .. } = timeout(SLACK, read_response(&mut holder)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

#[tokio::test]
async fn a_client_that_expects_100_continue_is_refused_at_once_or_told_to_send() {
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    // Refused: the final answer comes at once, without `100 Continue`, and the body need
    // never be sent.
    let mut refused = TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        2 << 20
    );
    refused.write_all(head.as_bytes()).await.unwrap();
    let answered = until_closed(&mut refused).await;
    assert!(answered.starts_with("HTTP/1.1 413"), "{answered}");

    // Admitted: `100 Continue` once the app asks for the body, then its answer.
    let mut admitted = TcpStream::connect(server.addr).await.unwrap();
    admitted
        .write_all(b"POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0; 25];
    timeout(SLACK, admitted.read_exact(&mut first))
        .await
        .expect("no 100 Continue")
        .unwrap();
    assert_eq!(&first, b"HTTP/1.1 100 Continue\r\n\r\n");
    admitted.write_all(b"hello").await.unwrap();
    let Response { head, body, .. } = timeout(SLACK, read_response(&mut admitted)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, b"5");
}

/// The page of `a_page_of_another_origin_reads_the_servers_refusals`: two uploads to
/// `TARGET`, more than the whole budget and more than the room left, and what the page could
/// read of each answer, in its title.
const PAGE: &str = r#"<!doctype html><title>running</title><script>
async function upload(bytes) {
  try {
    const answer = await fetch("TARGET", { method: "POST", body: new Uint8Array(bytes) });
    return `${answer.status} retry-after ${answer.headers.get("retry-after")}`;
  } catch (error) {
    return `unreadable (${error})`;
  }
}
(async () => {
  const tooLarge = await upload(2 << 20);
  const noRoom = await upload(400 << 10);
  document.title = `${tooLarge}; ${noRoom}`;
})();
</script>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_another_origin_reads_the_servers_refusals() {
    const TEST: &str = "a_page_of_another_origin_reads_the_servers_refusals";
    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find_map(|name| find_program(name, &[]))
    else {
        skip_or_fail(
            TEST,
            "Chromium is not on PATH (Debian: `apt-get install chromium`)",
        );
        return;
    };
    let server = Running::start(|s| s.body_budget(MIN_BODY_BUDGET)).await;
    let mut holder = upload_in_part(server.addr, 900 << 10, 800 << 10).await;
    server.until_received(800 << 10).await;
    // The page comes from another origin: the same host on another port.
    let page = PAGE.replace("TARGET", &format!("http://{}/upload", server.addr));
    let page_addr = skillpub_testkit::serve(
        Router::new().route("/", get(move || async move { axum::response::Html(page) })),
    )
    .await;

    let page_url = format!("http://{page_addr}/");
    let dom =
        tokio::task::spawn_blocking(move || skillpub_testkit::headless_dom(&chromium, &page_url))
            .await
            .unwrap();
    assert!(
        dom.contains("<title>413 retry-after null; 503 retry-after 1</title>"),
        "the page read: {dom}"
    );
    holder.write_all(&vec![b'x'; 100 << 10]).await.unwrap();
    let Response { head, .. } = timeout(SLACK, read_response(&mut holder)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

#[tokio::test]
async fn at_the_connection_cap_a_connection_stuck_in_its_body_makes_room() {
    let server = Running::start(|s| s.max_connections(1)).await;
    let mut stuck = upload_in_part(server.addr, 1000, 1).await;
    sleep(Duration::from_millis(100)).await;

    let mut other = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut other, "/").await;
    let Response { head, .. } = timeout(SLACK, read_response(&mut other))
        .await
        .expect("no answer: the stuck body holds the only place");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    closed_within(&mut stuck, Duration::from_millis(100)).await;
}

#[tokio::test]
async fn at_the_connection_cap_an_event_stream_makes_room_when_no_connection_is_quiet() {
    let server = Running::start(|s| s.max_connections(1)).await;
    let mut events = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut events, "/events").await;
    let mut first = [0; 1];
    events.read_exact(&mut first).await.unwrap();

    let mut other = TcpStream::connect(server.addr).await.unwrap();
    send_get(&mut other, "/").await;
    let Response { head, .. } = timeout(SLACK, read_response(&mut other))
        .await
        .expect("no answer: the event stream holds the only place");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let mut rest = Vec::new();
    timeout(SLACK, events.read_to_end(&mut rest))
        .await
        .expect("the event stream is still open")
        .unwrap();
}

#[tokio::test]
async fn a_knob_out_of_range_stops_the_server_before_it_accepts() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let result = skillpub_axum::serve(listener, app(Arc::default()))
        .idle_timeout(Duration::ZERO)
        .await;
    assert!(
        matches!(
            result,
            Err(ServeError::OutOfRange {
                knob: "idle_timeout",
                ..
            })
        ),
        "{result:?}"
    );
}
