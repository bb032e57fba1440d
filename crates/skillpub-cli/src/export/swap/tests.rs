use std::fs;
use std::path::{Path, PathBuf};

use skillpub_testkit::Scratch;

use super::{ASIDE_SUFFIX, Part, Placed, STAGING_PREFIX, place, place_aside, put_back, recover};

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// A staging folder and a target folder `agent-skills`, each with an `index.json` of its own.
fn folders(scratch: &Scratch) -> (PathBuf, Part) {
    let staging = scratch.path().join(format!("{STAGING_PREFIX}1"));
    scratch.write(format!("{STAGING_PREFIX}1/agent-skills/index.json"), "new");
    let part = Part::new("agent-skills", scratch.path().join("agent-skills"), true);
    scratch.write("agent-skills/index.json", "old");
    (staging, part)
}

#[test]
fn a_folder_is_exchanged_and_put_back_where_the_platform_can() {
    let scratch = Scratch::new("exchange");
    let (staging, part) = folders(&scratch);
    let staged = staging.join("agent-skills");
    let how = place(&staged, &part).unwrap();
    if cfg!(any(target_os = "linux", target_os = "android")) {
        assert!(matches!(how, Placed::Exchanged), "{how:?}");
    }
    assert_eq!(read(&part.target.join("index.json")), "new");
    put_back(&staged, &part, &how).unwrap();
    assert_eq!(read(&part.target.join("index.json")), "old");
}

#[test]
fn without_an_exchange_a_folder_moves_aside_and_comes_back() {
    let scratch = Scratch::new("aside-folder");
    let (staging, part) = folders(&scratch);
    let staged = staging.join("agent-skills");
    let how = place_aside(&staged, &part).unwrap();
    assert_eq!(read(&part.target.join("index.json")), "new");
    assert_eq!(
        read(&staging.join(format!("agent-skills{ASIDE_SUFFIX}/index.json"))),
        "old"
    );
    put_back(&staged, &part, &how).unwrap();
    assert_eq!(read(&part.target.join("index.json")), "old");
    assert_eq!(read(&staged.join("index.json")), "new");
}

#[test]
fn without_an_exchange_a_file_is_replaced_in_one_rename_and_comes_back() {
    let scratch = Scratch::new("aside-file");
    let staging = scratch.path().join(format!("{STAGING_PREFIX}1"));
    scratch.write(format!("{STAGING_PREFIX}1/_headers"), "new");
    let part = Part::new("_headers", scratch.path().join("_headers"), false);
    scratch.write("_headers", "old");
    let how = place_aside(&staging.join("_headers"), &part).unwrap();
    let Placed::Aside(aside) = &how else {
        panic!("{how:?}")
    };
    assert_eq!(read(&part.target), "new");
    assert_eq!(read(aside), "old");
    put_back(&staging.join("_headers"), &part, &how).unwrap();
    assert_eq!(read(&part.target), "old");
}

#[test]
fn a_folder_never_replaces_a_file_nor_a_file_a_folder() {
    let scratch = Scratch::new("kinds");
    let staging = scratch.path().join(format!("{STAGING_PREFIX}1"));
    scratch.write(
        format!("{STAGING_PREFIX}1/api-catalog/index.json"),
        "a folder",
    );
    let file_target = Part::new("api-catalog", scratch.path().join("api-catalog"), true);
    scratch.write("api-catalog", "a file");
    let problem = place(&staging.join("api-catalog"), &file_target).unwrap_err();
    assert!(
        problem.ends_with("is a file, but the export writes a folder there; move it away"),
        "{problem}"
    );
    assert_eq!(read(&file_target.target), "a file");

    scratch.write(format!("{STAGING_PREFIX}1/_headers"), "a file");
    let folder_target = Part::new("_headers", scratch.path().join("_headers"), false);
    scratch.write("_headers/mine", "kept");
    let problem = place(&staging.join("_headers"), &folder_target).unwrap_err();
    assert!(
        problem.ends_with("is a folder, but the export writes a file there; move it away"),
        "{problem}"
    );
    assert_eq!(read(&folder_target.target.join("mine")), "kept");
}

#[test]
fn a_crashed_export_is_cleared_and_a_folder_it_moved_aside_is_put_back() {
    let scratch = Scratch::new("recover");
    let staging = scratch.path().join(format!("{STAGING_PREFIX}424242"));
    // The crash came between the two renames: the previous tree is aside, its place empty.
    scratch.write(
        format!("{STAGING_PREFIX}424242/agent-skills{ASIDE_SUFFIX}/index.json"),
        "old",
    );
    scratch.write(
        format!("{STAGING_PREFIX}424242/agent-skills/index.json"),
        "new",
    );
    // A previous `_headers` aside whose place is taken again is not put back.
    scratch.write(
        format!("{STAGING_PREFIX}424242/_headers{ASIDE_SUFFIX}"),
        "older",
    );
    let parts = [
        Part::new("agent-skills", scratch.path().join("agent-skills"), true),
        Part::new("_headers", scratch.path().join("_headers"), false),
    ];
    scratch.write("_headers", "current");
    scratch.write("security.txt", "not ours");

    recover(scratch.path(), &parts);

    assert_eq!(read(&parts[0].target.join("index.json")), "old");
    assert_eq!(read(&parts[1].target), "current");
    assert!(!staging.exists());
    assert_eq!(read(&scratch.path().join("security.txt")), "not ours");
}
