//! `Catalog::from_dir` (the walk, then the catalog) while another thread swaps entries of the
//! folder with `rename(2)`: a file or a folder swapped for a symbolic link to a secret
//! outside the skill is never read, and a FIFO swapped in never hangs the read. On the walk
//! that opened files by path, the link runs read the secret within their rounds and the FIFO
//! run hung.

#![cfg(all(feature = "fs", unix))]

use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use skillpub_core::{Catalog, folder::SkillsFolder, index::ArchiveFormat};
use skillpub_testkit::Scratch;

const SECRET: &str = "SECRET-8d41e7-never-read";
/// What the swapped files inside the skill hold.
const PUBLIC: &[u8] = b"public\n";
/// Files that make the walk long enough for a swap to land in it.
const FILLER: usize = 40;
/// How many entries are swapped at once, so that one of them is likely to be swapped between
/// the walk's look at it and its read.
const SWAPPED: usize = 8;

/// `skills/pdf` with [`SWAPPED`] files `references-N/key.md` and filler files read between
/// the look at those and their read; beside `skills/`, `outside/` holds the secret.
fn hostile(name: &str) -> Scratch {
    let dir = Scratch::new(name);
    dir.write(
        "skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Reads PDFs.\n---\nSee the references.\n",
    );
    for at in 0..SWAPPED {
        dir.write(format!("skills/pdf/references-{at}/key.md"), PUBLIC);
    }
    for at in 0..FILLER {
        dir.write(format!("skills/pdf/assets/{at:03}.txt"), "filler\n");
    }
    dir.write("outside/key.md", SECRET);
    dir.write("outside/references/key.md", SECRET);
    dir
}

/// The [`SWAPPED`] entries `references-N/<name>` (or `references-N` without a name), each
/// with `make` putting what to swap in at a hidden name beside it.
fn swapped(dir: &Scratch, name: Option<&str>, make: impl Fn(&Path)) -> Vec<(PathBuf, PathBuf)> {
    (0..SWAPPED)
        .map(|at| {
            let folder = dir.path().join(format!("skills/pdf/references-{at}"));
            let at = name.map_or_else(|| folder.clone(), |name| folder.join(name));
            let other = at.with_file_name(format!(".swap-{}", at.file_name().unwrap().display()));
            make(&other);
            (at, other)
        })
        .collect()
}

/// Swaps each pair with `rename(2)` through a third name, round after round, until dropped;
/// then puts the originals back.
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Swapper {
    fn start(pairs: Vec<(PathBuf, PathBuf)>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let round = || {
                for (at, other) in &pairs {
                    let aside = at.with_file_name(".swap-aside");
                    std::fs::rename(at, &aside).unwrap();
                    std::fs::rename(other, at).unwrap();
                    std::fs::rename(&aside, other).unwrap();
                }
            };
            let mut rounds = 0_u64;
            while !flag.load(Ordering::Relaxed) {
                round();
                rounds += 1;
            }
            if rounds % 2 == 1 {
                round();
            }
        });
        Self {
            stop,
            thread: Some(thread),
        }
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

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Whether any byte the catalog would serve, archives unpacked, holds the secret.
fn leaks(catalog: &Catalog) -> bool {
    let mut unpacked = catalog
        .skills()
        .iter()
        .filter_map(|skill| skill.archive(ArchiveFormat::TarGz))
        .map(|archive| {
            let mut bytes = Vec::new();
            flate2::read::GzDecoder::new(archive.bytes().as_ref())
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        });
    catalog
        .artifacts()
        .any(|artifact| contains(artifact.bytes(), SECRET.as_bytes()))
        || unpacked.any(|bytes| contains(&bytes, SECRET.as_bytes()))
}

/// What a series of reads under swaps gave.
#[derive(Debug, Default)]
struct Tally {
    /// Reads that held the secret, in a file read or in the catalog.
    leaked: usize,
    /// Swapped files read, with the bytes they hold inside the skill.
    swapped_read: usize,
    /// Catalogs built (the walk found no problem).
    built: usize,
}

/// Reads the folder `runs` times while `swapper` swaps, as `Catalog::from_dir` does (the walk,
/// then the catalog when the walk found no problem).
fn from_dir_under(dir: &Scratch, runs: usize, swapper: Swapper) -> Tally {
    let mut tally = Tally::default();
    for _ in 0..runs {
        let folder = SkillsFolder::read(dir.path().join("skills"));
        let files = || {
            folder
                .skills()
                .iter()
                .flat_map(|source| source.skill().files())
        };
        let mut leak = files().any(|file| contains(file.bytes(), SECRET.as_bytes()));
        tally.swapped_read += files().filter(|file| file.bytes() == PUBLIC).count();
        if folder.errors().is_empty()
            && let Ok(catalog) = folder.catalog()
        {
            tally.built += 1;
            leak |= leaks(&catalog);
        }
        tally.leaked += usize::from(leak);
    }
    drop(swapper);
    eprintln!("{tally:?} of {runs} reads");
    tally
}

#[test]
fn from_dir_never_reads_a_file_swapped_for_a_link_to_a_secret() {
    let dir = hostile("race-from-dir-file");
    let secret = dir.path().join("outside/key.md");
    let pairs = swapped(&dir, Some("key.md"), |at| symlink(&secret, at).unwrap());
    let tally = from_dir_under(&dir, 300, Swapper::start(pairs));
    assert_eq!(tally.leaked, 0, "{tally:?}");
    assert!(
        tally.swapped_read > 0,
        "nothing swapped was read: {tally:?}"
    );
}

#[test]
fn from_dir_never_reads_a_folder_swapped_for_a_link_to_a_secret() {
    let dir = hostile("race-from-dir-folder");
    let secret = dir.path().join("outside/references");
    let pairs = swapped(&dir, None, |at| symlink(&secret, at).unwrap());
    let tally = from_dir_under(&dir, 300, Swapper::start(pairs));
    assert_eq!(tally.leaked, 0, "{tally:?}");
    assert!(
        tally.swapped_read > 0,
        "nothing swapped was read: {tally:?}"
    );
}

#[test]
fn from_dir_never_hangs_on_a_fifo_swapped_in() {
    let dir = hostile("race-from-dir-fifo");
    let pairs = swapped(&dir, Some("key.md"), |at| {
        let status = std::process::Command::new("mkfifo")
            .arg(at)
            .status()
            .unwrap();
        assert!(status.success());
    });
    let _swapper = Swapper::start(pairs);
    let skills = dir.path().join("skills");
    let (done, finished) = mpsc::channel();
    // On a thread of its own, which a read stuck in `open` would never leave.
    std::thread::spawn(move || {
        for _ in 0..300 {
            let _ = Catalog::from_dir(&skills);
        }
        let _ = done.send(());
    });
    assert!(
        finished.recv_timeout(Duration::from_secs(60)).is_ok(),
        "a read of the folder hung on the FIFO"
    );
}
