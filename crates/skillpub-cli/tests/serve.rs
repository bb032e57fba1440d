//! `skillpub serve --watch`: serves a folder, picks up changes through file-system events once
//! the folder is quiet, never serves a file half-written, and keeps the last good catalog while
//! the folder is invalid.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

const SKILL_MD: &str = "/.well-known/agent-skills/greeting/SKILL.md";
const INDEX: &str = "/.well-known/agent-skills/index.json";
/// Well under the 30 s between the walks that back events up, so that a change seen within it
/// was seen through an event.
const EVENT_BOUND: Duration = Duration::from_secs(10);

struct Scratch(PathBuf);

impl Scratch {
    /// A folder with `greeting/SKILL.md`.
    fn with_greeting(name: &str, text: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = Self(std::env::temp_dir().join(format!(
            "skillpub-serve-{name}-{}-{nanos}",
            std::process::id()
        )));
        std::fs::create_dir_all(dir.0.join("greeting")).unwrap();
        std::fs::write(dir.skill_md(), text).unwrap();
        dir
    }

    fn skill_md(&self) -> PathBuf {
        self.0.join("greeting/SKILL.md")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `skillpub serve` on a free port: its address and what it prints on stderr, line by line.
struct Served {
    child: Child,
    host: String,
    messages: mpsc::Receiver<String>,
}

impl Served {
    fn start(dir: &Path, extra: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skillpub"))
            .args(["serve", dir.to_str().unwrap(), "--addr", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let (sender, messages) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        let host = line
            .trim()
            .strip_prefix("Agent Skills index: http://")
            .unwrap_or_else(|| panic!("serve did not start: {line}"))
            .split('/')
            .next()
            .unwrap()
            .to_owned();
        Self {
            child,
            host,
            messages,
        }
    }

    /// Waits for a line of stderr that contains `needle`; fails on one that says events are
    /// unavailable.
    fn expect_message(&self, needle: &str) {
        let started = Instant::now();
        loop {
            let left = EVENT_BOUND.saturating_sub(started.elapsed());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("serve never said `{needle}`"));
            assert!(!message.contains("events are unavailable"), "{message}");
            if message.contains(needle) {
                return;
            }
        }
    }

    /// Waits until the body at `path` contains `needle`.
    fn wait_for(&self, path: &str, needle: &str) -> String {
        let started = Instant::now();
        loop {
            let body = body(&self.host, path);
            if body.contains(needle) {
                return body;
            }
            assert!(
                started.elapsed() < EVENT_BOUND,
                "never saw `{needle}`:\n{body}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn skill_md(description: &str) -> String {
    format!("---\nname: greeting\ndescription: {description}\n---\nSay hello.\n")
}

/// The body of a GET.
fn body(host: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or(answer)
}

#[test]
fn serve_watch_reloads_and_keeps_the_last_good_catalog() {
    let dir = Scratch::with_greeting("reload", &skill_md("First words."));
    let served = Served::start(&dir.0, &["--watch"]);

    served.wait_for(INDEX, "First words.");
    std::fs::write(dir.skill_md(), skill_md("Second words.")).unwrap();
    served.expect_message("reloaded");
    served.wait_for(INDEX, "Second words.");

    std::fs::write(dir.skill_md(), "---\nname: Greeting\n---\n").unwrap();
    served.expect_message("keeping the last good catalog");
    served.wait_for(INDEX, "Second words.");
    let skill = body(&served.host, SKILL_MD);
    assert!(skill.contains("description: Second words."), "{skill}");

    std::fs::write(dir.skill_md(), skill_md("Third words.")).unwrap();
    served.expect_message("reloaded");
    served.wait_for(INDEX, "Third words.");
}

#[test]
fn a_skill_md_saved_in_two_writes_is_never_served_half_written() {
    let first = skill_md("First words.");
    let dir = Scratch::with_greeting("two-writes", &first);
    let served = Served::start(&dir.0, &["--watch"]);
    served.wait_for(SKILL_MD, "First words.");

    let mut complete = vec![first];
    for round in 0..3 {
        // The first part is a valid SKILL.md on its own, so serving it would go unnoticed by
        // clients: its digest would match.
        let head = format!("---\nname: greeting\ndescription: Round {round}.\n---\nSay hello");
        let tail = ", then goodbye.\n";
        complete.push(format!("{head}{tail}"));

        let done = Arc::new(AtomicBool::new(false));
        let poller = {
            let (host, done) = (served.host.clone(), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while !done.load(Ordering::Relaxed) {
                    let text = body(&host, SKILL_MD);
                    if seen.last() != Some(&text) {
                        seen.push(text);
                    }
                }
                seen
            })
        };
        let mut file = std::fs::File::create(dir.skill_md()).unwrap();
        file.write_all(head.as_bytes()).unwrap();
        // Shorter than the 300 ms debounce.
        std::thread::sleep(Duration::from_millis(60));
        file.write_all(tail.as_bytes()).unwrap();
        drop(file);
        served.wait_for(SKILL_MD, &format!("Round {round}."));
        done.store(true, Ordering::Relaxed);
        for text in poller.join().unwrap() {
            assert!(complete.contains(&text), "served half-written:\n{text}");
        }
    }
}

#[test]
fn a_subfolder_without_skill_md_is_skipped_with_a_warning() {
    let dir = Scratch::with_greeting("skipped", &skill_md("First words."));
    std::fs::create_dir_all(dir.0.join("drafts")).unwrap();
    std::fs::write(dir.0.join("drafts/notes.md"), "Ideas.\n").unwrap();
    let served = Served::start(&dir.0, &[]);
    served.expect_message("skillpub serve: warning: skipped ");
    served.wait_for(INDEX, "First words.");
}

#[test]
fn unknown_frontmatter_fields_are_served_only_when_allowed() {
    let text = "---\nname: greeting\ndescription: Hello.\nx-owner: docs\n---\nSay hello.\n";
    let dir = Scratch::with_greeting("unknown-fields", text);

    let refused = Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args(["serve", dir.0.to_str().unwrap(), "--addr", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("field `x-owner`: is not an Agent Skills field"),
        "{stderr}"
    );
    assert!(stderr.contains("pass --allow-unknown-fields"), "{stderr}");

    let served = Served::start(&dir.0, &["--allow-unknown-fields"]);
    assert_eq!(body(&served.host, SKILL_MD), text);
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
