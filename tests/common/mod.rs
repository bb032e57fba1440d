//! Shared helpers for the end-to-end tests: the demo's skills, a server on 127.0.0.1 and a
//! raw HTTP/1.1 client that shows exactly what goes over the wire.

#![allow(
    dead_code,
    reason = "each test binary uses a different part of this module"
)]

use std::net::SocketAddr;

use axum::Router;
use skillpub::{Catalog, Skill};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub(crate) static VERIFY_SKILL_DIGESTS: Skill =
    skillpub::skill!("examples/skills/verify-skill-digests");
pub(crate) static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

/// The catalog the basic demo serves.
pub(crate) fn example_catalog() -> Catalog {
    Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD]).expect("the example skills are valid")
}

/// Serves `app` on a free port of 127.0.0.1 until the test ends.
pub(crate) async fn serve(app: Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A response as read off the socket.
#[derive(Debug)]
pub(crate) struct Wire {
    pub(crate) status: u16,
    /// Header names lowercased, in the order received, `date` left out (it changes).
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Wire {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request on a fresh connection and reads the whole answer.
pub(crate) async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Wire {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    parse(&raw)
}

fn parse(raw: &[u8]) -> Wire {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = std::str::from_utf8(&raw[..end]).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.to_ascii_lowercase(), value.trim().to_owned())
        })
        .filter(|(name, _)| name != "date")
        .collect();
    Wire {
        status,
        headers,
        body: raw[end + 4..].to_vec(),
    }
}

/// A fresh folder under the system's temporary folder, removed at the end of the test.
pub(crate) struct Scratch(std::path::PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let path =
            std::env::temp_dir().join(format!("skillpub-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    pub(crate) fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
