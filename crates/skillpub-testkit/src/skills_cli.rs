//! The npm `skills` installer, a real client of other people's making, run through `npx`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::node::npx_or_skip;
use crate::process::Announced;
use crate::scratch::Scratch;
use crate::wire::request;

/// The installer's version the tests pin.
const SKILLS: &str = "skills@1.7.4";
/// The Node it needs (skills 1.7.4 refuses older ones), brought by `npx -p`.
const NODE: &str = "node@22";
/// A first run downloads both packages; `.ci/run` warms the npm cache beforehand.
const NPX_TIMEOUT: Duration = Duration::from_secs(600);

/// `npx -p node@22 -p skills@1.7.4`, found by [`SkillsCli::or_skip`].
#[derive(Debug)]
pub struct SkillsCli {
    npx: PathBuf,
}

impl SkillsCli {
    /// The installer, or `None` after [`npx_or_skip`] said why `test` is skipped.
    ///
    /// # Panics
    ///
    /// When `npx` is missing and `SKILLPUB_REQUIRE_EXTERNAL=1`.
    #[must_use]
    #[track_caller]
    pub fn or_skip(test: &str) -> Option<Self> {
        npx_or_skip(test).map(|npx| Self { npx })
    }

    /// Runs `skills <arguments>` in `scratch`'s `project/`, with `home/` as `HOME` (where
    /// nothing of the user's is read or written), stdin closed and no telemetry, and returns
    /// what it printed.
    ///
    /// # Panics
    ///
    /// When it fails or takes over ten minutes, with what it printed.
    pub async fn run(&self, scratch: &Scratch, arguments: &str) -> String {
        // HOME moves to the scratch folder; the npm cache stays where `.ci/run` warmed it.
        let npm_cache = std::env::var_os("npm_config_cache")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".npm")
            });
        let command = tokio::process::Command::new(&self.npx)
            .args([
                "--yes",
                "-p",
                NODE,
                "-p",
                SKILLS,
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

    /// Lists the skills of the site `server` announced (each of `names` must be listed),
    /// installs all of them for Claude Code in `scratch`, and compares every installed file
    /// with the bytes the site serves for it under `well_known` (`/.well-known/agent-skills/`).
    ///
    /// # Panics
    ///
    /// When a name is not listed or not installed, the installer fails, or an installed file
    /// differs from the bytes served.
    pub async fn install_every_skill_as_served(
        &self,
        server: &Announced,
        well_known: &str,
        names: &[&str],
        scratch: &Scratch,
    ) -> Installed {
        let folder = self
            .install_every_skill(&server.origin(), names, scratch)
            .await;
        let files = assert_installed_as_served(server.addr, well_known, &folder).await;
        Installed { folder, files }
    }

    /// Lists the skills of `origin` (each of `names` must be listed), installs all of them for
    /// Claude Code, and returns the folder they were installed in, one folder per skill.
    async fn install_every_skill(
        &self,
        origin: &str,
        names: &[&str],
        scratch: &Scratch,
    ) -> PathBuf {
        let listed = self.run(scratch, &format!("add {origin} --list")).await;
        for name in names {
            assert!(listed.contains(name), "`{name}` is not listed:\n{listed}");
        }
        let output = self
            .run(
                scratch,
                &format!("add {origin} --skill '*' -a claude-code -y"),
            )
            .await;
        let installed = scratch.path().join("project/.claude/skills");
        for name in names {
            assert!(
                installed.join(name).join("SKILL.md").is_file(),
                "{name}/SKILL.md was not installed:\n{output}"
            );
        }
        installed
    }
}

/// What [`SkillsCli::install_every_skill_as_served`] installed.
#[derive(Debug)]
pub struct Installed {
    /// The folder the skills were installed in, one folder per skill.
    pub folder: PathBuf,
    /// Every file installed, as `skill/relative/path`, sorted.
    pub files: Vec<String>,
}

/// Compares every file under `installed` with the bytes `addr` serves for it under
/// `well_known`, and returns the files compared, sorted.
async fn assert_installed_as_served(
    addr: SocketAddr,
    well_known: &str,
    installed: &Path,
) -> Vec<String> {
    let mut files = Vec::new();
    collect_files(installed, installed, &mut files);
    files.sort();
    for file in &files {
        let served = request(addr, "GET", &format!("{well_known}{file}"), &[]).await;
        assert_eq!(served.status, 200, "{well_known}{file} is not served");
        let got = std::fs::read(installed.join(file))
            .unwrap_or_else(|e| panic!("{file} cannot be read: {e}"));
        assert!(
            got == served.body,
            "the installed {file} differs from the served bytes"
        );
    }
    files
}

/// The regular files below `folder`, relative to `root` with `/` between the parts.
fn collect_files(root: &Path, folder: &Path, files: &mut Vec<String>) {
    let entries = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{} cannot be listed: {e}", folder.display()));
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            collect_files(root, &path, files);
        } else {
            let relative = path.strip_prefix(root).expect("below the root");
            let parts: Vec<_> = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
    }
}
