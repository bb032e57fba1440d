//! A real client against the real demo: the npm `skills` installer (1.7.4) lists every example
//! skill and installs files byte-identical to the ones served.
//!
//! Needs `npx` (Node.js and npm) and the npm registry; `npx -p node@22` brings the Node 22
//! that skills 1.7.4 requires. `.ci/run` warms the npm cache first.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::{example_catalog, request};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const SKILLS_CLI: &str = "skills@1.7.4";
const NODE: &str = "node@22";
const NPX_TIMEOUT: Duration = Duration::from_secs(600);

/// The demo binary that `cargo test` builds next to this test.
fn demo_binary() -> PathBuf {
    let test = std::env::current_exe().unwrap();
    let profile_dir = test.parent().and_then(Path::parent).unwrap();
    let binary = profile_dir.join("examples").join("basic");
    assert!(
        binary.exists(),
        "{} is missing; run the tests with `cargo test`, which builds the examples",
        binary.display()
    );
    binary
}

/// Starts the demo on a free port and returns it with its origin.
async fn start_demo() -> (Child, String) {
    let mut child = Command::new(demo_binary())
        .env("SKILLPUB_ADDR", "127.0.0.1:0")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the demo");
    let stdout = child.stdout.take().unwrap();
    let line = BufReader::new(stdout)
        .lines()
        .next_line()
        .await
        .unwrap()
        .expect("the demo prints its URL");
    let url = line.rsplit(' ').next().unwrap();
    let origin = url
        .strip_suffix(skillpub::INDEX_PATH)
        .expect("the printed URL is the index")
        .to_owned();
    (child, origin)
}

/// A scratch folder with a home and a project, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let root =
            std::env::temp_dir().join(format!("skillpub-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(root.join("home")).unwrap();
        std::fs::create_dir_all(root.join("project")).unwrap();
        Self(root)
    }

    fn project(&self) -> PathBuf {
        self.0.join("project")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `skills <arguments>` through npx in the scratch project, stdin closed, no telemetry.
async fn skills(scratch: &Scratch, arguments: &str) -> (bool, String) {
    let npm_cache = std::env::var_os("npm_config_cache")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".npm")
        });
    let command = Command::new("npx")
        .args([
            "--yes",
            "-p",
            NODE,
            "-p",
            SKILLS_CLI,
            "-c",
            &format!("skills {arguments}"),
        ])
        .current_dir(scratch.project())
        .env("HOME", scratch.0.join("home"))
        .env("npm_config_cache", npm_cache)
        .env("DISABLE_TELEMETRY", "1")
        .env("DO_NOT_TRACK", "1")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(NPX_TIMEOUT, command)
        .await
        .expect("npx finished in time")
        .expect("npx runs; install Node.js and npm to run this test");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_skills_cli_lists_and_installs_every_demo_skill_byte_for_byte() {
    let (_demo, origin) = start_demo().await;
    let addr = origin.strip_prefix("http://").unwrap().parse().unwrap();
    let names: Vec<String> = example_catalog()
        .skills()
        .iter()
        .map(|s| s.name().to_owned())
        .collect();
    assert!(names.len() >= 2);

    let scratch = Scratch::new("npm-skills");
    let (ok, output) = skills(&scratch, &format!("add {origin} --list")).await;
    assert!(ok, "skills add --list failed:\n{output}");
    for name in &names {
        assert!(
            output.contains(name.as_str()),
            "`{name}` is not listed:\n{output}"
        );
    }

    let (ok, output) = skills(
        &scratch,
        &format!("add {origin} --skill '*' -a claude-code -y"),
    )
    .await;
    assert!(ok, "skills add failed:\n{output}");
    for name in &names {
        let installed = scratch
            .project()
            .join(".claude/skills")
            .join(name)
            .join("SKILL.md");
        let installed = std::fs::read(&installed).unwrap_or_else(|e| {
            panic!("{} was not installed ({e}):\n{output}", installed.display())
        });
        let served = request(addr, "GET", &skillpub::skill_md_path(name), &[]).await;
        assert_eq!(served.status, 200);
        assert!(
            installed == served.body,
            "the installed {name}/SKILL.md differs from the served bytes"
        );
    }
}
