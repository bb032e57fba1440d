//! The hardened server over real TCP on 127.0.0.1, with short timeouts set through the library:
//! silent, slow and idle connections are closed on time, busy ones never, the connection cap
//! makes room by closing the oldest quiet connection, and shutdown drains gracefully.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::routing::get;
use bytes::Bytes;
use http_body::Frame;
use skillpub_axum::serve::{Serve, ServeError};
use skillpub_testkit::{
    Response, closed_within, finish_response, read_response, send_get, still_open,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::{Instant, Sleep, sleep, timeout};

/// Slack allowed on top of a timeout for the machine to get round to closing the connection.
const SLACK: Duration = Duration::from_secs(2);

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

fn app() -> Router {
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
}

/// A server on a free port of 127.0.0.1, stopped by [`Running::stop`] or aborted when dropped.
struct Running {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServeError>>,
}

impl Running {
    async fn start(configure: impl FnOnce(Serve) -> Serve) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let server =
            configure(skillpub_axum::serve(listener, app())).with_graceful_shutdown(async move {
                let _ = stopped.await;
            });
        Self {
            addr,
            stop: Some(stop),
            task: tokio::spawn(server.into_future()),
        }
    }

    fn stop(&mut self) {
        self.stop.take().unwrap().send(()).unwrap();
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
async fn a_knob_out_of_range_stops_the_server_before_it_accepts() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let result = skillpub_axum::serve(listener, app())
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
