//! `skillpub new NAME`: a valid skill to fill in, which `skillpub lint` flags only for its
//! placeholder description; invalid names and existing files are refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `skillpub ARGS` in `dir`.
fn skillpub(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A scratch folder, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let path = std::env::temp_dir().join(format!(
            "skillpub-new-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The codes of the advice `skillpub lint --format json` gives on `folder`, checking that it
/// found no error.
fn advice_codes(dir: &Path, folder: &str) -> Vec<String> {
    let output = skillpub(dir, &["lint", "--format", "json", folder]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["problems"], serde_json::json!([]), "{report}");
    report["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|advice| advice["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_new_skill_passes_lint_but_for_its_placeholder_description() {
    let dir = Scratch::new("lint");
    let output = skillpub(dir.path(), &["new", "order-status"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "created order-status/SKILL.md\nnext: replace the description and fill in the sections, then run `skillpub lint order-status`\n"
    );
    let text = std::fs::read_to_string(dir.path().join("order-status/SKILL.md")).unwrap();
    assert!(
        text.starts_with("---\nname: order-status\ndescription: 'TODO: "),
        "{text}"
    );
    for heading in [
        "# Order status",
        "## When to use",
        "## How to invoke",
        "## Output",
        "## Errors and limits",
        "## Scope and safety",
    ] {
        assert!(
            text.contains(&format!("\n{heading}\n\n")),
            "{heading} in {text}"
        );
    }

    assert_eq!(
        advice_codes(dir.path(), "order-status"),
        ["description.vague"]
    );
    let denied = skillpub(dir.path(), &["lint", "--deny-warnings", "order-status"]);
    assert!(
        !denied.status.success(),
        "the placeholder fails a strict run"
    );

    let written = text.replace(
        "'TODO: say what this skill does and when to use it (\"Use when ...\").'",
        "Looks up the status of an order by its number. Use when a user asks where an order is or when it will arrive.",
    );
    std::fs::write(dir.path().join("order-status/SKILL.md"), written).unwrap();
    assert_eq!(advice_codes(dir.path(), "order-status"), [""; 0]);
    let strict = skillpub(dir.path(), &["lint", "--deny-warnings", "order-status"]);
    assert!(strict.status.success(), "{}", stdout(&strict));
}

#[test]
fn dir_chooses_the_parent_folder_and_is_created_when_missing() {
    let dir = Scratch::new("dir");
    let output = skillpub(dir.path(), &["new", "order-status", "--dir", "skills/site"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        dir.path()
            .join("skills/site/order-status/SKILL.md")
            .is_file()
    );
    assert!(
        stdout(&output).contains("run `skillpub lint skills/site/order-status`"),
        "{}",
        stdout(&output)
    );
    assert_eq!(
        advice_codes(dir.path(), "skills/site"),
        ["description.vague"]
    );
}

#[test]
fn an_invalid_name_is_refused_with_the_name_rule_s_message() {
    let dir = Scratch::new("invalid");
    let output = skillpub(dir.path(), &["new", "Order_Status"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "skillpub new: name `Order_Status`: `Order_Status` has uppercase letters; names are lowercase, such as `order-status`\nskillpub new: name `Order_Status`: `Order_Status` contains '_'; names use only ASCII `a-z`, `0-9` and `-` (the discovery draft refuses non-ASCII letters), such as `order-status`\n"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing is created"
    );

    let output = skillpub(dir.path(), &["new", "--", "-order"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "skillpub new: name `-order`: `-order` starts or ends with a hyphen; remove it\n"
    );
}

#[test]
fn nothing_that_exists_is_overwritten() {
    let dir = Scratch::new("exists");
    std::fs::create_dir_all(dir.path().join("order-status")).unwrap();
    std::fs::write(dir.path().join("order-status/notes.md"), "mine").unwrap();
    let output = skillpub(dir.path(), &["new", "order-status"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "skillpub new: order-status already exists and is not empty; choose another name or --dir, or remove it\n"
    );
    assert!(!dir.path().join("order-status/SKILL.md").exists());

    std::fs::write(dir.path().join("refunds"), "a file").unwrap();
    let output = skillpub(dir.path(), &["new", "refunds"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("skillpub new: refunds already exists and is not a folder ("),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("refunds")).unwrap(),
        "a file"
    );

    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let output = skillpub(dir.path(), &["new", "empty"]);
    assert!(
        output.status.success(),
        "an empty folder is filled in: {}",
        stderr(&output)
    );
    let again = skillpub(dir.path(), &["new", "empty"]);
    assert_eq!(again.status.code(), Some(1), "a second run refuses");
}
