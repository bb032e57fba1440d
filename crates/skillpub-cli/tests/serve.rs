//! `skillpub serve --watch`: serves a folder, picks up changes through file-system events once
//! the folder is quiet, never serves a file half-written, and keeps the last good catalog while
//! the folder is invalid.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use skillpub_testkit::{Cli, Running, Scratch, request_blocking};

const SKILL_MD: &str = "/.well-known/agent-skills/greeting/SKILL.md";
const INDEX: &str = "/.well-known/agent-skills/index.json";
/// Well under the 30 s between the walks that back events up, so that a change seen within it
/// was seen through an event.
const EVENT_BOUND: Duration = Duration::from_secs(10);

/// The binary under test.
const SKILLPUB: Cli = Cli::new(env!("CARGO_BIN_EXE_skillpub"));

/// A folder with `greeting/SKILL.md`; returns it and the path of that file.
fn with_greeting(name: &str, text: &str) -> (Scratch, PathBuf) {
    let dir = Scratch::new(name);
    let skill_md = dir.write("greeting/SKILL.md", text);
    (dir, skill_md)
}

/// `skillpub serve` on a free port: its address and what it prints on stderr, line by line.
struct Served {
    _running: Running,
    addr: SocketAddr,
    messages: mpsc::Receiver<String>,
}

impl Served {
    fn start(dir: &Scratch, extra: &[&str]) -> Self {
        let mut command = SKILLPUB.command(["serve", dir.arg(), "--addr", "127.0.0.1:0"]);
        command.args(extra).stderr(std::process::Stdio::piped());
        let (mut running, announced) = Running::announced(&mut command);
        let (sender, messages) = mpsc::channel();
        let stderr = running.child().stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        Self {
            _running: running,
            addr: announced.addr,
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
            let body = body(self.addr, path);
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

fn skill_md(description: &str) -> String {
    format!("---\nname: greeting\ndescription: {description}\n---\nSay hello.\n")
}

/// The body of a GET.
fn body(addr: SocketAddr, path: &str) -> String {
    request_blocking(addr, "GET", path, &[]).text()
}

#[test]
fn serve_watch_reloads_and_keeps_the_last_good_catalog() {
    let (dir, greeting) = with_greeting("serve-reload", &skill_md("First words."));
    let served = Served::start(&dir, &["--watch"]);

    served.wait_for(INDEX, "First words.");
    std::fs::write(&greeting, skill_md("Second words.")).unwrap();
    served.expect_message("reloaded");
    served.wait_for(INDEX, "Second words.");

    std::fs::write(&greeting, "---\nname: Greeting\n---\n").unwrap();
    served.expect_message("keeping the last good catalog");
    served.wait_for(INDEX, "Second words.");
    let skill = body(served.addr, SKILL_MD);
    assert!(skill.contains("description: Second words."), "{skill}");

    std::fs::write(&greeting, skill_md("Third words.")).unwrap();
    served.expect_message("reloaded");
    served.wait_for(INDEX, "Third words.");
}

#[test]
fn a_skill_md_saved_in_two_writes_is_never_served_half_written() {
    let first = skill_md("First words.");
    let (dir, greeting) = with_greeting("serve-two-writes", &first);
    let served = Served::start(&dir, &["--watch"]);
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
            let (addr, done) = (served.addr, Arc::clone(&done));
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while !done.load(Ordering::Relaxed) {
                    let text = body(addr, SKILL_MD);
                    if seen.last() != Some(&text) {
                        seen.push(text);
                    }
                }
                seen
            })
        };
        let mut file = std::fs::File::create(&greeting).unwrap();
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
    let (dir, _) = with_greeting("serve-skipped", &skill_md("First words."));
    dir.write("drafts/notes.md", "Ideas.\n");
    let served = Served::start(&dir, &[]);
    served.expect_message("skillpub serve: warning: skipped ");
    served.wait_for(INDEX, "First words.");
}

#[test]
fn unknown_frontmatter_fields_are_served_only_when_allowed() {
    let text = "---\nname: greeting\ndescription: Hello.\nx-owner: docs\n---\nSay hello.\n";
    let (dir, _) = with_greeting("serve-unknown-fields", text);

    let refused = SKILLPUB.run(&["serve", dir.arg(), "--addr", "127.0.0.1:0"]);
    assert!(!refused.success);
    let stderr = refused.stderr;
    assert!(
        stderr.contains("field `x-owner`: is not an Agent Skills field"),
        "{stderr}"
    );
    assert!(stderr.contains("pass --allow-unknown-fields"), "{stderr}");

    let served = Served::start(&dir, &["--allow-unknown-fields"]);
    assert_eq!(body(served.addr, SKILL_MD), text);
}

#[test]
fn serve_refuses_an_invalid_folder_without_watch() {
    let refused = SKILLPUB.run(&["serve", "/nonexistent/skills", "--addr", "127.0.0.1:0"]);
    assert!(!refused.success);
    assert!(refused.stderr.contains("cannot be read"));
}

/// The `url` and `digest` of the one entry of the index that `addr` serves.
fn entry(addr: SocketAddr) -> (String, String) {
    let index: serde_json::Value =
        serde_json::from_slice(&request_blocking(addr, "GET", INDEX, &[]).body).unwrap();
    let entry = &index["skills"][0];
    (
        entry["url"].as_str().unwrap().to_owned(),
        entry["digest"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn after_a_watched_edit_the_previous_index_urls_still_answer_their_own_bytes() {
    let (dir, greeting) = with_greeting("serve-retained", &skill_md("First words."));
    let served = Served::start(&dir, &["--watch"]);
    served.wait_for(INDEX, "First words.");
    let (first_url, first_digest) = entry(served.addr);
    std::fs::write(&greeting, skill_md("Second words.")).unwrap();
    served.expect_message("reloaded");
    served.wait_for(INDEX, "Second words.");
    let (second_url, second_digest) = entry(served.addr);
    assert_ne!(first_url, second_url, "the url names the digest");
    // A client that read the first index before the edit still gets what it lists.
    for (url, digest) in [(&first_url, &first_digest), (&second_url, &second_digest)] {
        let answer = request_blocking(served.addr, "GET", url, &[]);
        assert_eq!(answer.status, 200, "{url}: {}", answer.head);
        assert_eq!(
            &skillpub_core::Digest::of(&answer.body).to_string(),
            digest,
            "{url}"
        );
        assert_eq!(
            answer.header("cache-control"),
            Some(skillpub_axum::ADDRESSED_CACHE_CONTROL),
            "{url}"
        );
    }
    assert!(body(served.addr, SKILL_MD).contains("Second words."));
}
