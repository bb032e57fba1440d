//! `skillpub serve --watch`: serves a folder, picks up changes, and keeps the last good
//! catalog while the folder is invalid.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn skill_md(description: &str) -> String {
    format!("---\nname: greeting\ndescription: {description}\n---\nSay hello.\n")
}

fn get(host: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

/// Waits until the index contains `needle`.
fn wait_for(host: &str, needle: &str) -> String {
    let started = Instant::now();
    loop {
        let index = get(host, "/.well-known/agent-skills/index.json");
        if index.contains(needle) {
            return index;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never saw `{needle}`:\n{index}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn serve_watch_reloads_and_keeps_the_last_good_catalog() {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = Scratch(
        std::env::temp_dir().join(format!("skillpub-serve-{}-{nanos}", std::process::id())),
    );
    std::fs::create_dir_all(dir.0.join("greeting")).unwrap();
    std::fs::write(dir.0.join("greeting/SKILL.md"), skill_md("First words.")).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args([
            "serve",
            dir.0.to_str().unwrap(),
            "--addr",
            "127.0.0.1:0",
            "--watch",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let (messages_tx, messages) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = messages_tx.send(line);
        }
    });
    let _running = Running(child);
    let host = line
        .trim()
        .strip_prefix("Agent Skills index: http://")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();

    wait_for(&host, "First words.");
    std::fs::write(dir.0.join("greeting/SKILL.md"), skill_md("Second words.")).unwrap();
    wait_for(&host, "Second words.");

    std::fs::write(
        dir.0.join("greeting/SKILL.md"),
        "---\nname: Greeting\n---\n",
    )
    .unwrap();
    let started = Instant::now();
    loop {
        let message = messages
            .recv_timeout(Duration::from_secs(20))
            .expect("serve reports the problem");
        if message.contains("keeping the last good catalog") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20));
    }
    wait_for(&host, "Second words.");
    let skill = get(&host, "/.well-known/agent-skills/greeting/SKILL.md");
    assert!(skill.contains("description: Second words."), "{skill}");

    std::fs::write(dir.0.join("greeting/SKILL.md"), skill_md("Third words.")).unwrap();
    wait_for(&host, "Third words.");
}

#[test]
fn serve_refuses_an_invalid_folder_without_watch() {
    let output = Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args(["serve", "/nonexistent/skills", "--addr", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot be read"));
}
