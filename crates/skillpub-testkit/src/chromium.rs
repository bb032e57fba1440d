//! Headless Chromium: a page loaded as a browser loads it, its DOM once its scripts are done.

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Scratch;

/// How long a page may take, scripts included, before the test fails.
const PAGE_TIMEOUT: Duration = Duration::from_secs(120);

/// Chromium, in a process group of its own, killed with every process it started when
/// dropped (it starts a few: a renderer, a GPU process, a zygote).
struct Browser(Child);

impl Drop for Browser {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.wait();
    }
}

/// The DOM of `url` as headless `chromium` renders it once its scripts are done (a virtual
/// time budget of 20 s), with a fresh profile; every process it started is stopped.
///
/// # Panics
///
/// When Chromium cannot be started or still runs after 120 s.
#[must_use]
pub fn headless_dom(chromium: &Path, url: &str) -> String {
    let profile = Scratch::new("chromium-profile");
    let child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--virtual-time-budget=20000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.arg()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {}: {error}", chromium.display()));
    let mut browser = Browser(child);
    let stdout = browser.0.stdout.take().expect("a piped stdout");
    let reading = std::thread::spawn(move || {
        let mut dom = String::new();
        std::io::Read::read_to_string(&mut { stdout }, &mut dom).map(|_| dom)
    });
    let started = Instant::now();
    while browser.0.try_wait().expect("Chromium's status").is_none() {
        assert!(started.elapsed() < PAGE_TIMEOUT, "Chromium still runs");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(browser);
    reading
        .join()
        .expect("the reader does not panic")
        .expect("Chromium's output is text")
}
