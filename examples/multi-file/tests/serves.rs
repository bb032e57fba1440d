//! Starts the example binary and reads its index over TCP: the multi-file skill is listed as
//! an archive. (Having this test also makes `cargo test --workspace` build the binary that the
//! npm client test in the workspace's `tests/` runs.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_example_lists_the_multi_file_skill_as_an_archive() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillpub-example-multi-file"))
        .env("SKILLPUB_ADDR", "127.0.0.1:0")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _running = Running(child);
    let url = line.trim().rsplit(' ').next().unwrap();
    let (host, path) = url
        .strip_prefix("http://")
        .unwrap()
        .split_once('/')
        .unwrap();

    let mut stream = TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(
        answer.contains("\"url\": \"/.well-known/agent-skills/publish-agent-skills.tar.gz\""),
        "{answer}"
    );
    assert!(answer.contains("\"type\": \"archive\""), "{answer}");
    assert!(answer.contains("\"name\": \"write-skill-md\""), "{answer}");

    // The skills embedded by build.rs give the same index, byte for byte, as the same folder
    // read at run time.
    let from_disk =
        skillpub::Catalog::from_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../skills")).unwrap();
    let body = answer.split_once("\r\n\r\n").unwrap().1;
    assert_eq!(body.as_bytes(), from_disk.index().bytes().as_ref());
}
