//! A real S3-compatible server on 127.0.0.1 for the tests of the shared store and of the
//! export to object storage: moto's `moto_server` (Python), which honours `If-None-Match: *`
//! on `PUT`, found on `PATH`, started on a free port and stopped with the test.

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::external::{find_program, skip_or_fail};
use crate::nginx::free_port;
use crate::process::Running;
use crate::wire::request_blocking;

/// How long `moto_server` may take to answer once started.
const READY_WITHIN: Duration = Duration::from_secs(30);

/// `moto_server` on `PATH`. Without it, `test` is skipped or fails as [`skip_or_fail`] says,
/// and this returns `None`.
///
/// # Panics
///
/// When it is missing and `SKILLPUB_REQUIRE_EXTERNAL=1`.
#[must_use]
#[track_caller]
pub fn s3_server_or_skip(test: &str) -> Option<PathBuf> {
    let found = find_program("moto_server", &[]);
    if found.is_none() {
        skip_or_fail(
            test,
            "moto_server (an S3-compatible server) is not on PATH; install it (`pip install 'moto[server]==5.2.1'`)",
        );
    }
    found
}

/// An S3-compatible server on a free port of 127.0.0.1, killed when dropped. Its access keys
/// are any (moto checks none); [`env`](Self::env) gives the variables a client reads.
///
/// # Example
///
/// ```no_run
/// use skillpub_testkit::{S3Server, s3_server_or_skip};
///
/// if let Some(binary) = s3_server_or_skip("doc_example") {
///     let server = S3Server::start(&binary);
///     server.create_bucket("skills");
///     assert!(server.env().iter().any(|(name, _)| *name == "AWS_ENDPOINT_URL"));
/// }
/// ```
#[derive(Debug)]
pub struct S3Server {
    _running: Running,
    addr: SocketAddr,
}

impl S3Server {
    /// Starts `moto_server` and waits until it answers.
    ///
    /// # Panics
    ///
    /// When it does not answer within 30 s.
    #[track_caller]
    pub fn start(binary: &std::path::Path) -> Self {
        let port = free_port();
        let mut command = Command::new(binary);
        command
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let running = Running::spawn(&mut command);
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(
                started.elapsed() < READY_WITHIN,
                "moto_server did not listen on {addr} within {READY_WITHIN:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            _running: running,
            addr,
        }
    }

    /// Where it listens.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Creates the bucket `name`, whose objects anyone may read (a bucket policy allowing
    /// `s3:GetObject` to `*`, as a bucket behind a CDN without origin credentials has): so
    /// that a test, and nginx in front of it, read objects with plain `GET`s.
    ///
    /// # Panics
    ///
    /// When the server refuses.
    #[track_caller]
    pub fn create_bucket(&self, name: &str) {
        let response = request_blocking(self.addr, "PUT", &format!("/{name}"), &[]);
        assert_eq!(
            response.status, 200,
            "create bucket {name}: {}",
            response.head
        );
        let policy = format!(
            r#"{{"Version":"2012-10-17","Statement":[{{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::{name}/*"}}]}}"#
        );
        let mut stream = std::net::TcpStream::connect(self.addr).expect("connect to moto_server");
        let head = format!(
            "PUT /{name}?policy HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.addr,
            policy.len()
        );
        stream
            .write_all(format!("{head}{policy}").as_bytes())
            .expect("send the bucket policy");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "bucket policy of {name}: {answer}"
        );
    }

    /// The variables every S3 tool reads, for this server: its endpoint, a region, and keys.
    #[must_use]
    pub fn env(&self) -> [(&'static str, String); 4] {
        [
            ("AWS_ENDPOINT_URL", format!("http://{}", self.addr)),
            ("AWS_REGION", "us-east-1".to_owned()),
            ("AWS_ACCESS_KEY_ID", "skillpub-test".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "skillpub-test-secret".to_owned()),
        ]
    }
}
