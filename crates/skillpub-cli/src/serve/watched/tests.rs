use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use skillpub_testkit::Scratch;

use super::{DEBOUNCE, Folder};

/// A scratch folder holding `skill/SKILL.md` with `text`, and the path of that file.
fn with_skill(name: &str, text: &str) -> (Scratch, PathBuf) {
    let scratch = Scratch::new(name);
    let file = scratch.write("skill/SKILL.md", text);
    (scratch, file)
}

fn read_skill(dir: &Path) -> String {
    fs::read_to_string(dir.join("skill/SKILL.md")).unwrap_or_default()
}

#[test]
fn a_file_written_in_two_parts_is_read_only_once_complete() {
    let (scratch, file) = with_skill("two-parts", "first version\n");
    let mut folder = Folder::with_events(scratch.path().to_path_buf(), read_skill);
    assert!(
        folder.events.is_some(),
        "this platform has file-system events"
    );
    assert_eq!(folder.read(), "first version\n");

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
    let (scratch, file) = with_skill("during", "before\n");
    let mut calls = 0;
    let mut folder = Folder::with_events(scratch.path().to_path_buf(), |dir: &Path| {
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
    let (scratch, file) = with_skill("polled", "before\n");
    let mut folder = Folder::new(scratch.path().to_path_buf(), read_skill);
    assert_eq!(folder.read(), "before\n");
    let writer = std::thread::spawn(move || {
        std::thread::sleep(DEBOUNCE);
        fs::write(file, "after, a longer text\n").unwrap();
    });
    assert_eq!(folder.next(), "after, a longer text\n");
    writer.join().unwrap();
}
