//! `skillpub lint`: every problem as `path: field: message`, exit 1 on any error.

use std::path::{Path, PathBuf};
use std::process::Command;

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");

fn lint(args: &[&str]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .arg("lint")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// A scratch folder of skills, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let path = std::env::temp_dir().join(format!(
            "skillpub-lint-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn arg(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_example_skills_are_valid() {
    let (ok, stdout) = lint(&[EXAMPLES]);
    assert!(ok, "{stdout}");
    assert_eq!(stdout, "ok: 3 skills valid\n");
}

#[test]
fn a_skill_md_path_lints_its_folder() {
    let path = Path::new(EXAMPLES).join("write-skill-md/SKILL.md");
    let (ok, stdout) = lint(&[path.to_str().unwrap()]);
    assert!(ok, "{stdout}");
    assert_eq!(stdout, "ok: 1 skill valid\n");
}

#[test]
fn every_problem_of_every_skill_is_a_line_naming_path_and_field() {
    let dir = Scratch::new("problems");
    dir.write(
        "Bad_Skill/SKILL.md",
        "---\nname: Bad_Skill\ndescription: d\nauthor: me\n---\n",
    );
    dir.write(
        "fine/SKILL.md",
        "---\nname: fine\ndescription: Fine.\n---\n",
    );
    dir.write("fine/my notes.md", "x");
    let (ok, stdout) = lint(&[dir.arg()]);
    assert!(!ok);
    let root = dir.arg();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(
        lines[0].starts_with(&format!(
            "{root}/Bad_Skill/SKILL.md: author: is not an Agent Skills field"
        )),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "{root}/Bad_Skill/SKILL.md: name: `Bad_Skill` has uppercase letters"
        )),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with(&format!(
            "{root}/Bad_Skill/SKILL.md: name: `Bad_Skill` contains '_'"
        )),
        "{stdout}"
    );
    assert_eq!(
        lines[3],
        format!(
            "{root}/fine/my notes.md: this path contains ' '; use only ASCII letters, digits, `-`, `_`, `.` and `~` in file and folder names, so that the path works as a URL and in every archive"
        )
    );
    assert_eq!(lines[4], "4 problems");
}

#[test]
fn unknown_fields_are_accepted_with_allow_unknown_fields() {
    let dir = Scratch::new("unknown-fields");
    dir.write(
        "pdf/SKILL.md",
        "---\nname: pdf\ndescription: Reads PDFs.\nauthor: me\n---\n",
    );
    let (ok, stdout) = lint(&[dir.arg()]);
    assert!(!ok);
    assert!(
        stdout.contains("pdf/SKILL.md: author: is not an Agent Skills field"),
        "{stdout}"
    );
    assert!(stdout.contains("--allow-unknown-fields"), "{stdout}");

    let (ok, stdout) = lint(&["--allow-unknown-fields", dir.arg()]);
    assert!(ok, "{stdout}");
    assert_eq!(stdout, "ok: 1 skill valid\n");

    dir.write(
        "Bad/SKILL.md",
        "---\nname: Bad\ndescription: d\nauthor: me\n---\n",
    );
    let (ok, stdout) = lint(&["--allow-unknown-fields", dir.arg()]);
    assert!(!ok, "other rules still apply");
    assert!(
        stdout.contains("name: `Bad` has uppercase letters"),
        "{stdout}"
    );
    assert!(!stdout.contains("author:"), "{stdout}");
}

#[test]
fn json_lists_every_problem() {
    let dir = Scratch::new("json");
    dir.write("pdf/SKILL.md", "---\nname: pdf\n---\n");
    dir.write("pdf/.DS_Store", "junk");
    let output = Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args(["lint", "--format", "json", dir.arg()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["valid"], false);
    assert_eq!(report["problems"][0]["field"], "description");
    assert_eq!(report["problems"][0]["skill"], "pdf");
    assert!(
        report["skipped"][0]
            .as_str()
            .unwrap()
            .ends_with(".DS_Store")
    );
}

#[test]
fn a_missing_path_is_an_error() {
    let (ok, stdout) = lint(&["/nonexistent/skills"]);
    assert!(!ok);
    assert!(
        stdout.starts_with("/nonexistent/skills: cannot be read:"),
        "{stdout}"
    );
}

#[test]
fn a_folder_without_any_skill_is_an_error() {
    let dir = Scratch::new("empty");
    dir.write("notes/readme.txt", "not a skill");
    let (ok, stdout) = lint(&[dir.arg()]);
    assert!(!ok);
    assert!(stdout.contains("holds no skill"), "{stdout}");

    let lower = Scratch::new("lowercase");
    lower.write("skill.md", "---\nname: x\ndescription: d\n---\n");
    let (ok, stdout) = lint(&[lower.arg()]);
    assert!(!ok);
    assert!(stdout.contains("rename it to `SKILL.md`"), "{stdout}");
}
