//! A hostile writer swapping entries of a skills folder while the command reads it: a file or
//! a folder swapped for a symbolic link to a secret outside the folder is never published by
//! `export` nor read by `lint`, and a FIFO swapped in never hangs `export`, `lint` or
//! `serve --watch` (the watch goes on publishing later edits).
//!
//! The swaps are `rename(2)`s in a thread of the test, as an attacker's `os.replace` would be;
//! the folder holds enough files that the walk takes a while, so that a swap lands between
//! the moment an entry is looked at and the moment it is read. Every test runs the real
//! binary many times; on the code before the folder was read through descriptors, each of
//! them failed within its runs.

#![cfg(unix)]

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use skillpub_testkit::{Cli, Running, Scratch, request_blocking};

/// The binary under test.
const SKILLPUB: Cli = Cli::new(env!("CARGO_BIN_EXE_skillpub"));

/// What the files outside the skills folder hold; no byte of it may ever be published.
const SECRET: &str = "SECRET-3f9c1a-never-publish";
/// The name of the `SKILL.md` outside the folder, which `lint` would print if it read it.
const LEAKED_NAME: &str = "leaked-secret-name";
/// Files that make the walk long enough for a swap to land in it.
const FILLER: usize = 40;
/// For `serve --watch`, whose reads start when the folder has been quiet for a while: files
/// enough that a swap after that while lands in the read.
const WATCH_FILLER: usize = 400;
/// Longer than any run of a folder this size takes, even on a loaded machine: a run still
/// going after it is hung.
const HUNG: Duration = Duration::from_secs(10);

fn skill_md(description: &str) -> String {
    format!("---\nname: pdf\ndescription: {description}\n---\nRead `references/key.md`.\n")
}

/// `skills/pdf` with `references/key.md` and `filler` files under `assets/` (read after
/// `references/` is looked at and before it is read), and beside `skills/` the secrets a swap
/// points to: `outside/key.md`, `outside/references/key.md`, and `outside/SKILL.md` named
/// [`LEAKED_NAME`].
fn hostile(name: &str, filler: usize) -> Scratch {
    let dir = Scratch::new(name);
    dir.write("skills/pdf/SKILL.md", skill_md("Reads PDFs."));
    dir.write("skills/pdf/references/key.md", "public notes\n");
    for at in 0..filler {
        dir.write(format!("skills/pdf/assets/{at:03}.txt"), "filler\n");
    }
    dir.write("outside/key.md", SECRET);
    dir.write("outside/references/key.md", SECRET);
    dir.write("outside/references/leaked secret.md", SECRET);
    dir.write(
        "outside/SKILL.md",
        format!("---\nname: {LEAKED_NAME}\ndescription: {SECRET}\n---\n"),
    );
    dir
}

/// Puts `what` at the hidden name `.swap-<name of at>` beside `at`, for a [`Swapper`].
fn beside(at: &Path, what: impl FnOnce(&Path)) -> PathBuf {
    let name = at.file_name().unwrap().to_str().unwrap();
    let other = at.with_file_name(format!(".swap-{name}"));
    what(&other);
    other
}

fn fifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// When a [`Swapper`] swaps.
enum Rhythm {
    /// As fast as it can.
    Continuous,
    /// For [`BURST`], then a pause, with the pauses given in turn.
    Bursts(Vec<Duration>),
}

/// How long a burst of swaps lasts.
const BURST: Duration = Duration::from_millis(50);

/// Swaps pairs of entries again and again with `rename(2)` through a third (hidden) name,
/// every pair once a round, until stopped; then puts each original back in its place.
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<u64>>,
}

impl Swapper {
    fn start(pairs: Vec<(PathBuf, PathBuf)>, rhythm: Rhythm) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let round = || {
                for (at, other) in &pairs {
                    let name = at.file_name().unwrap().to_str().unwrap();
                    let aside = at.with_file_name(format!(".swap-aside-{name}"));
                    std::fs::rename(at, &aside).unwrap();
                    std::fs::rename(other, at).unwrap();
                    std::fs::rename(&aside, other).unwrap();
                }
            };
            let mut rounds = 0_u64;
            let mut pauses = 0;
            while !flag.load(Ordering::Relaxed) {
                match &rhythm {
                    Rhythm::Continuous => {
                        round();
                        rounds += 1;
                    }
                    Rhythm::Bursts(pause) => {
                        let started = Instant::now();
                        while started.elapsed() < BURST {
                            round();
                            rounds += 1;
                        }
                        std::thread::sleep(pause[pauses % pause.len()]);
                        pauses += 1;
                    }
                }
            }
            if rounds % 2 == 1 {
                round();
            }
            rounds
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops, with every original back in place; how many rounds of swaps were made.
    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How a run of the binary ended.
struct Run {
    /// Exited with status 0.
    success: bool,
    /// Still running after [`HUNG`] (then killed).
    hung: bool,
    output: String,
}

/// Runs the binary with `args`, killed when it hangs.
fn run(args: &[&str]) -> Run {
    let mut command = SKILLPUB.command(args);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut running = Running::spawn(&mut command);
    let readers = [
        drain(running.child().stdout.take().unwrap()),
        drain(running.child().stderr.take().unwrap()),
    ];
    let status = running.wait_within(HUNG);
    drop(running);
    let output = readers.into_iter().map(|r| r.join().unwrap()).collect();
    Run {
        success: status.is_some_and(|status| status.success()),
        hung: status.is_none(),
        output,
    }
}

/// Reads a pipe to its end on a thread of its own, so that neither pipe fills up.
fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

/// Every byte of every file under `root`, with the members of the `.tar.gz` archives.
fn exported_bytes(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            if path.to_string_lossy().ends_with(".tar.gz") {
                let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
                for member in archive.entries().unwrap() {
                    let mut member = member.unwrap();
                    let name = path.join(member.path().unwrap());
                    let mut content = Vec::new();
                    member.read_to_end(&mut content).unwrap();
                    found.push((name, content));
                }
            }
            found.push((path, bytes));
        }
    }
    found
}

/// The counts of a series of runs under a swap.
#[derive(Debug, Default)]
struct Tally {
    runs: usize,
    published: usize,
    leaks: usize,
    hangs: usize,
}

/// Runs `export` `runs` times into fresh folders while `swapper` swaps, and counts the
/// exports that published a byte of the secret (in a file, an archive or the output).
fn export_under(dir: &Scratch, runs: usize, swapper: Swapper) -> Tally {
    let mut tally = Tally::default();
    let skills = dir.path().join("skills");
    for at in 0..runs {
        let out = dir.path().join(format!("out-{at}"));
        let run = run(&["export", skills.to_str().unwrap(), out.to_str().unwrap()]);
        tally.runs += 1;
        tally.hangs += usize::from(run.hung);
        let mut leaked = run.output.contains(SECRET);
        if run.success {
            tally.published += 1;
            leaked |= exported_bytes(&out)
                .iter()
                .any(|(_, bytes)| contains(bytes, SECRET.as_bytes()));
        }
        tally.leaks += usize::from(leaked);
        let _ = std::fs::remove_dir_all(&out);
    }
    let swaps = swapper.finish();
    eprintln!("{tally:?} with {swaps} swaps");
    tally
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

#[test]
fn export_never_publishes_a_file_swapped_for_a_link_to_a_secret() {
    let dir = hostile("race-export-file", FILLER);
    let key = dir.path().join("skills/pdf/references/key.md");
    let link = beside(&key, |at| {
        symlink(dir.path().join("outside/key.md"), at).unwrap()
    });
    let tally = export_under(
        &dir,
        300,
        Swapper::start(vec![(key, link)], Rhythm::Continuous),
    );
    assert_eq!(tally.leaks, 0, "{tally:?}");
    assert_eq!(tally.hangs, 0, "{tally:?}");
    assert!(tally.published > 0, "no export ran to the end: {tally:?}");
}

#[test]
fn export_never_publishes_a_folder_swapped_for_a_link_to_a_secret() {
    let dir = hostile("race-export-folder", FILLER);
    let references = dir.path().join("skills/pdf/references");
    let link = beside(&references, |at| {
        symlink(dir.path().join("outside/references"), at).unwrap();
    });
    let tally = export_under(
        &dir,
        200,
        Swapper::start(vec![(references, link)], Rhythm::Continuous),
    );
    assert_eq!(tally.leaks, 0, "{tally:?}");
    assert_eq!(tally.hangs, 0, "{tally:?}");
    assert!(tally.published > 0, "no export ran to the end: {tally:?}");
}

#[test]
fn lint_never_reads_a_skill_md_or_a_folder_swapped_for_a_link() {
    let dir = hostile("race-lint", FILLER);
    let skills = dir.path().join("skills");
    let skill_md = skills.join("pdf/SKILL.md");
    let link = beside(&skill_md, |at| {
        symlink(dir.path().join("outside/SKILL.md"), at).unwrap();
    });
    let references = skills.join("pdf/references");
    let folder_link = beside(&references, |at| {
        symlink(dir.path().join("outside/references"), at).unwrap();
    });
    let swapper = Swapper::start(
        vec![(skill_md, link), (references, folder_link)],
        Rhythm::Continuous,
    );
    let (mut leaks, mut hangs, mut passed) = (0, 0, 0);
    for _ in 0..300 {
        let run = run(&["lint", skills.to_str().unwrap()]);
        leaks += usize::from(run.output.contains(LEAKED_NAME) || run.output.contains("leaked"));
        hangs += usize::from(run.hung);
        passed += usize::from(run.success);
    }
    let rounds = swapper.finish();
    eprintln!("lint: {leaks} read a secret, {hangs} hung, {passed} passed of 300, {rounds} rounds");
    assert_eq!((leaks, hangs), (0, 0));
}

/// Files `references/fifo-N.md` of the skill, each with a FIFO beside it to swap in: several,
/// so that one of them is likely to be swapped between the look and the read.
fn fifos(dir: &Scratch) -> Vec<(PathBuf, PathBuf)> {
    (0..FIFOS)
        .map(|at| {
            let file = dir.write(format!("skills/pdf/references/fifo-{at}.md"), "notes\n");
            let pipe = beside(&file, fifo);
            (file, pipe)
        })
        .collect()
}

/// How many files a FIFO is swapped for.
const FIFOS: usize = 8;

#[test]
fn a_fifo_swapped_in_never_hangs_export_or_lint() {
    let dir = hostile("race-fifo", FILLER);
    let skills = dir.path().join("skills");
    let swapper = Swapper::start(fifos(&dir), Rhythm::Continuous);
    let (mut hangs, mut named) = (0, 0);
    for at in 0..60 {
        let out = dir.path().join(format!("out-{at}"));
        for args in [
            vec!["export", skills.to_str().unwrap(), out.to_str().unwrap()],
            vec!["lint", skills.to_str().unwrap()],
        ] {
            let run = run(&args);
            hangs += usize::from(run.hung);
            named += usize::from(run.output.contains(".md: is not a regular file"));
        }
        let _ = std::fs::remove_dir_all(&out);
    }
    let rounds = swapper.finish();
    eprintln!("fifo: {hangs} of 120 runs hung, {named} named a FIFO, {rounds} rounds");
    assert_eq!(hangs, 0);
}

/// The pauses of a writer who swaps again about when `serve --watch`'s debounce ends, at a
/// different moment each time, so that swaps land while the folder is read.
fn around_the_debounce() -> Vec<Duration> {
    (0..30)
        .map(|step| Duration::from_millis(300 + step))
        .collect()
}

#[test]
fn a_fifo_swapped_in_never_stops_serve_watch_from_publishing() {
    let dir = hostile("race-watch", WATCH_FILLER);
    let skills = dir.path().join("skills");
    let pairs = fifos(&dir);
    let mut command = SKILLPUB.command([
        "serve",
        skills.to_str().unwrap(),
        "--addr",
        "127.0.0.1:0",
        "--watch",
    ]);
    command.stderr(Stdio::piped());
    let (mut running, announced) = Running::announced(&mut command);
    let (sender, messages) = mpsc::channel();
    let stderr = running.child().stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });

    let swapper = Swapper::start(pairs, Rhythm::Bursts(around_the_debounce()));
    std::thread::sleep(Duration::from_secs(8));
    let rounds = swapper.finish();
    let said: Vec<String> = messages.try_iter().collect();
    let refused = said
        .iter()
        .filter(|line| line.contains("is not a regular file"))
        .count();
    eprintln!("watch: {rounds} rounds, {refused} reloads refused a FIFO");

    std::fs::write(skills.join("pdf/SKILL.md"), skill_md("Published after.")).unwrap();
    let started = Instant::now();
    loop {
        let index = request_blocking(
            announced.addr,
            "GET",
            "/.well-known/agent-skills/index.json",
            &[],
        )
        .text();
        if index.contains("Published after.") {
            break;
        }
        assert!(
            started.elapsed() < HUNG,
            "the edit made after the swaps was never published: the reload hung"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
