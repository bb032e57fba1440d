//! A raw HTTP/1.1 client over TCP: it writes the request head itself and parses nothing but
//! the response head, so a test sees exactly what went over the wire (header order, chunked
//! framing, a `Content-Length` on a `204`), which a real client would hide or refuse.

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout};

/// How long a whole answer may take before a request helper fails the test, rather than
/// hanging it: far beyond any answer on 127.0.0.1.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// A response as read off the socket.
///
/// # Example
///
/// ```
/// use skillpub_testkit::Response;
///
/// let response = Response::parse(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhi");
/// assert_eq!(response.status_line(), "HTTP/1.1 200 OK");
/// assert_eq!(response.status, 200);
/// assert_eq!(response.header("content-type"), Some("text/plain"));
/// assert_eq!(response.body, b"hi");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status line and the header lines as received, without the blank line.
    pub head: String,
    /// The status code.
    pub status: u16,
    /// Every header in the order received, names lowercased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The bytes after the head as sent: a chunked body keeps its framing, an encoded one its
    /// coding (see [`decode`]).
    pub body: Vec<u8>,
}

impl Response {
    /// Splits raw response bytes into head and body.
    ///
    /// # Panics
    ///
    /// When `raw` holds no complete head, or the head is not an HTTP/1.1 status line and
    /// header lines in UTF-8.
    #[must_use]
    #[track_caller]
    pub fn parse(raw: &[u8]) -> Self {
        let end = head_end(raw)
            .unwrap_or_else(|| panic!("no complete response head in {:?}", lossy(raw)));
        let head = std::str::from_utf8(&raw[..end - 4])
            .unwrap_or_else(|_| panic!("a response head that is not UTF-8: {:?}", lossy(raw)));
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not a status line: {status_line:?}"));
        let headers = lines
            .map(|line| {
                let (name, value) = line
                    .split_once(':')
                    .unwrap_or_else(|| panic!("not a header line: {line:?}"));
                (name.to_ascii_lowercase(), value.trim().to_owned())
            })
            .collect();
        Self {
            head: head.to_owned(),
            status,
            headers,
            body: raw[end..].to_vec(),
        }
    }

    /// The status line, such as `HTTP/1.1 200 OK`.
    #[must_use]
    pub fn status_line(&self) -> &str {
        self.head.lines().next().unwrap_or_default()
    }

    /// The value of the first header called `name` (lowercase).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text, with any invalid UTF-8 replaced.
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The `name` of every entry of the Agent Skills index in the body, in its order.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_testkit::Response;
    ///
    /// let index = Response::parse(b"HTTP/1.1 200 OK\r\n\r\n{\"skills\":[{\"name\":\"pdf\"}]}");
    /// assert_eq!(index.skill_names(), ["pdf"]);
    /// ```
    ///
    /// # Panics
    ///
    /// When the body is not an index whose entries each have a `name`.
    #[must_use]
    #[track_caller]
    pub fn skill_names(&self) -> Vec<String> {
        let index: serde_json::Value = serde_json::from_slice(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.text()));
        let entries = index["skills"]
            .as_array()
            .unwrap_or_else(|| panic!("no `skills` array: {index}"));
        entries
            .iter()
            .map(|entry| match entry["name"].as_str() {
                Some(name) => name.to_owned(),
                None => panic!("an entry without a name: {entry}"),
            })
            .collect()
    }
}

/// Sends one request on a fresh connection (`Connection: close`) and reads the whole answer.
///
/// The head holds the request line, `Host: <addr>` (unless `headers` has a `Host`),
/// `Connection: close` and `headers` in their order; nothing else, so a request without a
/// body needs no `Content-Length` unless the test wants one.
///
/// # Example
///
/// ```
/// use axum::{Router, routing::get};
/// use skillpub_testkit::{request, serve};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let addr = serve(Router::new().route("/", get(|| async { "hello" }))).await;
/// let response = request(addr, "POST", "/", &[("content-length", "0")]).await;
/// assert_eq!(response.status, 405);
/// assert_eq!(response.header("allow"), Some("GET,HEAD"));
/// # });
/// ```
///
/// # Panics
///
/// When the connection fails, or the answer is incomplete or takes longer than
/// [`ANSWER_WITHIN`].
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Response {
    request_with_body(addr, method, path, headers, &[]).await
}

/// [`request`] with a body, sent after the head with its `Content-Length`.
///
/// # Example
///
/// ```
/// use axum::{Router, routing::post};
/// use skillpub_testkit::{request_with_body, serve};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let echo = Router::new().route("/", post(|body: String| async move { body }));
/// let addr = serve(echo).await;
/// let response = request_with_body(addr, "POST", "/", &[], b"ping").await;
/// assert_eq!(response.body, b"ping");
/// # });
/// ```
///
/// # Panics
///
/// As [`request`].
pub async fn request_with_body(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let answer = async {
        let mut stream = TcpStream::connect(addr)
            .await
            .unwrap_or_else(|error| panic!("cannot connect to {addr}: {error}"));
        let mut sent = request_head(addr, method, path, headers, body.len()).into_bytes();
        sent.extend_from_slice(body);
        stream.write_all(&sent).await.expect("send the request");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.expect("read the answer");
        raw
    };
    let raw = timeout(ANSWER_WITHIN, answer)
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no whole answer within {ANSWER_WITHIN:?}"));
    Response::parse(&raw)
}

/// [`request`] for a test without a tokio runtime (or one that runs on threads).
///
/// # Example
///
/// ```
/// use skillpub_testkit::{request_blocking, serve_raw};
///
/// let addr = serve_raw(|mut stream| {
///     use std::io::Write;
///     let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nX-Seen: yes\r\n\r\n");
/// });
/// let response = request_blocking(addr, "OPTIONS", "/", &[("origin", "https://a.example")]);
/// assert_eq!(response.status, 204);
/// assert_eq!(response.header("x-seen"), Some("yes"));
/// ```
///
/// # Panics
///
/// As [`request`].
pub fn request_blocking(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Response {
    let mut stream = std::net::TcpStream::connect(addr)
        .unwrap_or_else(|error| panic!("cannot connect to {addr}: {error}"));
    stream
        .set_read_timeout(Some(ANSWER_WITHIN))
        .expect("a read timeout");
    stream
        .write_all(request_head(addr, method, path, headers, 0).as_bytes())
        .expect("send the request");
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .unwrap_or_else(|error| panic!("{method} {path}: no whole answer: {error}"));
    Response::parse(&raw)
}

/// Sends `GET` and `HEAD` for `path` with `headers` and checks that they agree on the wire:
/// the same status and the same headers in the same order (`Date` aside, which may tick
/// between the two), and no body for `HEAD`. Returns the `GET` response.
///
/// # Example
///
/// ```
/// use axum::{Router, routing::get};
/// use skillpub_testkit::{get_and_head, serve};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let addr = serve(Router::new().route("/", get(|| async { "hello" }))).await;
/// let get = get_and_head(addr, "/", &[]).await;
/// assert_eq!(get.header("content-length"), Some("5"));
/// # });
/// ```
///
/// # Panics
///
/// When the two answers differ, `HEAD` has a body, or as [`request`].
pub async fn get_and_head(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Response {
    let get = request(addr, "GET", path, headers).await;
    let head = request(addr, "HEAD", path, headers).await;
    let dated = |response: &Response| -> Vec<(String, String)> {
        response
            .headers
            .iter()
            .filter(|(name, _)| name != "date")
            .cloned()
            .collect()
    };
    assert_eq!(get.status, head.status, "{path}");
    assert_eq!(dated(&get), dated(&head), "{path}");
    assert!(head.body.is_empty(), "{path}: HEAD sent a body");
    get
}

/// Sends a keep-alive `GET path` on an open connection, without waiting for the answer.
///
/// # Panics
///
/// When the connection is closed.
pub async fn send_get(stream: &mut TcpStream, path: &str) {
    let host = stream.peer_addr().expect("a connected stream");
    let head = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n");
    stream
        .write_all(head.as_bytes())
        .await
        .expect("send the request");
}

/// Reads one response off a keep-alive connection: its head, and a body delimited by its
/// `Content-Length` or by the last chunk, leaving the connection ready for the next request.
///
/// # Example
///
/// ```
/// use axum::{Router, routing::get};
/// use skillpub_testkit::{read_response, send_get, serve};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let addr = serve(Router::new().route("/", get(|| async { "hello" }))).await;
/// let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
/// for _ in 0..2 {
///     send_get(&mut stream, "/").await;
///     assert_eq!(read_response(&mut stream).await.body, b"hello");
/// }
/// # });
/// ```
///
/// # Panics
///
/// When the connection closes before the whole response.
pub async fn read_response(stream: &mut TcpStream) -> Response {
    finish_response(stream, Vec::new()).await
}

/// [`read_response`] for a response of which the test has read the first bytes, `raw`.
///
/// # Panics
///
/// As [`read_response`].
pub async fn finish_response(stream: &mut TcpStream, mut raw: Vec<u8>) -> Response {
    let mut chunk = vec![0; 64 * 1024];
    let end = loop {
        if let Some(end) = head_end(&raw) {
            break end;
        }
        let n = stream.read(&mut chunk).await.expect("read the response");
        assert!(n > 0, "closed before a response head: {:?}", lossy(&raw));
        raw.extend_from_slice(&chunk[..n]);
    };
    let head = Response::parse(&raw[..end]);
    // A 204 or 304 never has a body, whatever its headers say (RFC 9112, section 6.3).
    let length = if matches!(head.status, 204 | 304) {
        Some(0)
    } else {
        head.header("content-length")
            .map(|value| value.parse::<usize>().expect("a numeric Content-Length"))
    };
    loop {
        let body = &raw[end..];
        let done = match length {
            Some(length) => body.len() >= length,
            None => body.ends_with(b"0\r\n\r\n"),
        };
        if done {
            return Response::parse(&raw);
        }
        let n = stream.read(&mut chunk).await.expect("read the response");
        assert!(
            n > 0,
            "closed in the middle of a response: {:?}",
            lossy(&raw[..end])
        );
        raw.extend_from_slice(&chunk[..n]);
    }
}

/// Waits until the server closes `stream` (end of file or reset); returns how long that took.
///
/// # Panics
///
/// When the server sends data instead, or keeps the connection open past `limit`.
pub async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Duration {
    let started = Instant::now();
    let mut byte = [0; 1];
    match timeout(limit, stream.read(&mut byte)).await {
        Ok(Ok(0) | Err(_)) => started.elapsed(),
        Ok(Ok(_)) => panic!("the server sent data instead of closing"),
        Err(_) => panic!("still open after {limit:?}"),
    }
}

/// Whether the server still holds `stream` open, without sending a byte, after `wait`.
pub async fn still_open(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut byte = [0; 1];
    timeout(wait, stream.read(&mut byte)).await.is_err()
}

/// The bytes a client gets once it removes the coding a `Content-Encoding` names (`gzip`,
/// `br`, or none or `identity`).
///
/// # Example
///
/// ```
/// use std::io::Write;
/// use skillpub_testkit::decode;
///
/// let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
/// gzip.write_all(b"plain").unwrap();
/// assert_eq!(decode(Some("gzip"), &gzip.finish().unwrap()), b"plain");
/// assert_eq!(decode(None, b"plain"), b"plain");
/// ```
///
/// # Panics
///
/// On another coding, or a body that does not decode.
#[must_use]
#[track_caller]
pub fn decode(content_encoding: Option<&str>, body: &[u8]) -> Vec<u8> {
    let mut plain = Vec::new();
    let decoded = match content_encoding {
        None | Some("identity") => {
            plain.extend_from_slice(body);
            Ok(body.len())
        }
        Some("gzip") => flate2::read::GzDecoder::new(body).read_to_end(&mut plain),
        Some("br") => brotli::Decompressor::new(body, 4096).read_to_end(&mut plain),
        Some(other) => panic!("unexpected Content-Encoding {other}"),
    };
    decoded
        .unwrap_or_else(|error| panic!("the {content_encoding:?} body does not decode: {error}"));
    plain
}

/// The head of a request: request line, `Host` unless given, `Connection: close`, the headers,
/// and the body's `Content-Length` when there is a body.
fn request_head(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body_length: usize,
) -> String {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    head.push_str("Connection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if body_length > 0 {
        head.push_str(&format!("Content-Length: {body_length}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// Where the body starts: just past the blank line that ends the head.
fn head_end(raw: &[u8]) -> Option<usize> {
    raw.windows(4)
        .position(|window| window == b"\r\n\r\n")
        .map(|at| at + 4)
}

fn lossy(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).into_owned()
}
