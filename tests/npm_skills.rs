//! A real client against the real demos: the npm `skills` installer (1.7.4) lists every skill
//! and installs files byte-identical to the ones served, archives unpacked with their
//! `references/` and `scripts/`.
//!
//! Needs `npx` (Node.js and npm) and the npm registry; `npx -p node@22` brings the Node 22
//! that skills 1.7.4 requires. Without `npx` each test prints one line saying so and passes,
//! unless `SKILLPUB_REQUIRE_EXTERNAL=1` is set (as `.ci/run` does), which makes it fail instead.
//! `.ci/run` installs Node.js when missing and warms the npm cache.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use skillpub_testkit::{Running, Scratch, built_binary, npx_or_skip, request};

const SKILLS_CLI: &str = "skills@1.7.4";
const NODE: &str = "node@22";
const NPX_TIMEOUT: Duration = Duration::from_secs(600);
const EXAMPLE_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");

/// A demo running on a free port; stopped when dropped.
struct Demo {
    _running: Running,
    origin: String,
    addr: SocketAddr,
}

/// Starts a demo binary that `cargo test --workspace` builds before it runs any test:
/// `examples/basic` of this package, or the `skillpub-example-multi-file` package's binary
/// (built for that package's own integration test).
fn start_demo(relative: &str) -> Demo {
    let (running, announced) = Running::demo(&mut Command::new(built_binary(relative)));
    assert_eq!(
        announced.path,
        skillpub::model::paths::INDEX_PATH,
        "the printed URL is the index"
    );
    Demo {
        _running: running,
        origin: announced.origin(),
        addr: announced.addr,
    }
}

/// Runs `skills <arguments>` through `npx` in a scratch project, stdin closed, no telemetry.
async fn skills(npx: &Path, scratch: &Scratch, arguments: &str) -> String {
    let npm_cache = std::env::var_os("npm_config_cache")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".npm")
        });
    let command = tokio::process::Command::new(npx)
        .args([
            "--yes",
            "-p",
            NODE,
            "-p",
            SKILLS_CLI,
            "-c",
            &format!("skills {arguments}"),
        ])
        .current_dir(scratch.folder("project"))
        .env("HOME", scratch.folder("home"))
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
        .expect("npx runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "skills {arguments} failed:\n{text}"
    );
    text
}

/// Lists and installs every skill of a demo, then checks each installed file against the
/// bytes the demo serves for it.
async fn list_and_install(npx: &Path, demo: &Demo, names: &[&str], scratch: &Scratch) -> PathBuf {
    let listed = skills(npx, scratch, &format!("add {} --list", demo.origin)).await;
    for name in names {
        assert!(listed.contains(name), "`{name}` is not listed:\n{listed}");
    }
    let output = skills(
        npx,
        scratch,
        &format!("add {} --skill '*' -a claude-code -y", demo.origin),
    )
    .await;
    let installed = scratch.path().join("project/.claude/skills");
    for name in names {
        let skill_md = std::fs::read(installed.join(name).join("SKILL.md"))
            .unwrap_or_else(|e| panic!("{name}/SKILL.md was not installed ({e}):\n{output}"));
        let served = request(
            demo.addr,
            "GET",
            &skillpub::model::paths::skill_md_path(name),
            &[],
        )
        .await;
        assert!(
            skill_md == served.body,
            "the installed {name}/SKILL.md differs from the served bytes"
        );
    }
    installed
}

#[tokio::test(flavor = "multi_thread")]
async fn the_skills_cli_installs_every_skill_of_the_basic_demo_byte_for_byte() {
    let Some(npx) =
        npx_or_skip("the_skills_cli_installs_every_skill_of_the_basic_demo_byte_for_byte")
    else {
        return;
    };
    let demo = start_demo("examples/basic");
    let scratch = Scratch::new("npm-basic");
    let names = ["verify-skill-digests", "write-skill-md"];
    list_and_install(&npx, &demo, &names, &scratch).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_skills_cli_installs_the_multi_file_skill_with_its_references_and_scripts() {
    let Some(npx) =
        npx_or_skip("the_skills_cli_installs_the_multi_file_skill_with_its_references_and_scripts")
    else {
        return;
    };
    let demo = start_demo("skillpub-example-multi-file");
    let names = [
        "publish-agent-skills",
        "verify-skill-digests",
        "write-skill-md",
    ];
    let scratch = Scratch::new("npm-multi-file");
    let installed = list_and_install(&npx, &demo, &names, &scratch)
        .await
        .join("publish-agent-skills");
    let source = Path::new(EXAMPLE_SKILLS).join("publish-agent-skills");
    for file in [
        "SKILL.md",
        "references/index-format.md",
        "references/http-checklist.md",
        "scripts/check-index.sh",
    ] {
        let got = std::fs::read(installed.join(file))
            .unwrap_or_else(|e| panic!("{file} was not installed: {e}"));
        assert!(
            got == std::fs::read(source.join(file)).unwrap(),
            "{file} differs from the source"
        );
        let served = request(
            demo.addr,
            "GET",
            &format!("/.well-known/agent-skills/publish-agent-skills/{file}"),
            &[],
        )
        .await;
        assert!(got == served.body, "{file} differs from the served bytes");
    }
}
