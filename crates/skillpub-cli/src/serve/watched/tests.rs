use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{DEBOUNCE, Folder};

/// A scratch folder holding `skill/SKILL.md`, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, text: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let path = std::env::temp_dir().join(format!(
            "skillpub-watch-{name}-{}-{nanos}",
            std::process::id()
        ));
        fs::create_dir_all(path.join("skill")).unwrap();
        let scratch = Self(path);
        fs::write(scratch.file(), text).unwrap();
        scratch
    }

    fn file(&self) -> PathBuf {
        self.0.join("skill/SKILL.md")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn read_skill(dir: &Path) -> String {
    fs::read_to_string(dir.join("skill/SKILL.md")).unwrap_or_default()
}

#[test]
fn a_file_written_in_two_parts_is_read_only_once_complete() {
    let scratch = Scratch::new("two-parts", "first version\n");
    let mut folder = Folder::with_events(scratch.0.clone(), read_skill);
    assert!(
        folder.events.is_some(),
        "this platform has file-system events"
    );
    assert_eq!(folder.read(), "first version\n");

    let file = scratch.file();
    let writer = std::thread::spawn(move || {
        let mut out = fs::File::create(file).unwrap();
        out.write_all(b"second version, ").unwrap();
        std::thread::sleep(DEBOUNCE / 6);
        out.write_all(b"written in two parts\n").unwrap();
    });
    assert_eq!(folder.next(), "second version, written in two parts\n");
    writer.join().unwrap();
}

#[test]
fn a_change_while_reading_is_read_again() {
    let scratch = Scratch::new("during", "before\n");
    let file = scratch.file();
    let mut calls = 0;
    let mut folder = Folder::with_events(scratch.0.clone(), |dir: &Path| {
        calls += 1;
        let text = read_skill(dir);
        if calls == 1 {
            fs::write(&file, "changed while it was read\n").unwrap();
        }
        text
    });
    assert_eq!(folder.read(), "changed while it was read\n");
    drop(folder);
    assert_eq!(calls, 2);
}

#[test]
fn without_events_a_walk_finds_the_change_and_waits_for_it_to_settle() {
    let scratch = Scratch::new("polled", "before\n");
    let mut folder = Folder::new(scratch.0.clone(), read_skill);
    assert_eq!(folder.read(), "before\n");
    let file = scratch.file();
    let writer = std::thread::spawn(move || {
        std::thread::sleep(DEBOUNCE);
        fs::write(file, "after, a longer text\n").unwrap();
    });
    assert_eq!(folder.next(), "after, a longer text\n");
    writer.join().unwrap();
}
