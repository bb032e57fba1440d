//! Starts the example binary and reads its index over TCP: the multi-file skill is listed as
//! an archive.

use std::process::Command;

use skillpub_testkit::{Running, request_blocking};

#[test]
fn the_example_lists_the_multi_file_skill_as_an_archive() {
    let (_running, announced) = Running::demo(&mut Command::new(env!(
        "CARGO_BIN_EXE_skillpub-example-multi-file"
    )));
    let answer = request_blocking(announced.addr, "GET", &announced.path, &[]);
    let body = answer.text();
    assert!(
        answer.head.starts_with("HTTP/1.1 200 OK"),
        "{}",
        answer.head
    );
    assert!(body.contains("/publish-agent-skills.tar.gz\""), "{body}");
    assert!(body.contains("\"type\": \"archive\""), "{body}");
    assert!(body.contains("\"name\": \"write-skill-md\""), "{body}");

    // The skills embedded by build.rs give the same index, byte for byte, as the same folder
    // read at run time.
    let from_disk =
        skillpub::Catalog::from_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../skills")).unwrap();
    assert_eq!(answer.body, from_disk.index().bytes().as_ref());
}
