//! A real crate that embeds a skills folder from its build.rs, built with cargo: adding,
//! editing and removing files rebuilds it, and an invalid skill fails the build with the
//! catalog's message.
//!
//! The probe crate and its target folder live under the workspace's `target/`, so only the
//! first run compiles the dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

struct Probe {
    root: PathBuf,
    target: PathBuf,
}

impl Probe {
    fn new() -> Self {
        let workspace = workspace();
        let base = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| workspace.join("target"), PathBuf::from)
            .join("skillpub-build-probe");
        let root = base.join("crate");
        let _ = std::fs::remove_dir_all(root.join("skills"));
        std::fs::create_dir_all(root.join("src")).unwrap();
        let core = workspace.join("crates/skillpub-core");
        let build = workspace.join("crates/skillpub-build");
        let manifest = format!(
            "[package]\nname = \"embed-probe\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nskillpub-core = {{ path = {core:?} }}\n\n\
             [build-dependencies]\nskillpub-build = {{ path = {build:?} }}\n\n[workspace]\n"
        );
        std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
        std::fs::copy(workspace.join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
        std::fs::write(
            root.join("build.rs"),
            "fn main() {\n    skillpub_build::Embed::new(\"skills\").crate_path(\"::skillpub_core\").run();\n}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("src/main.rs"),
            "skillpub_core::include_skills!();\n\n\
             fn main() {\n    let catalog = skillpub_core::Catalog::new(&SKILLS).unwrap();\n    \
             for skill in catalog.skills() {\n        \
             let bytes: usize = skill.files().iter().map(|f| f.artifact().len()).sum();\n        \
             println!(\"{} files={} bytes={bytes}\", skill.name(), skill.files().len());\n    }\n}\n",
        )
        .unwrap();
        Self {
            root,
            target: base.join("target"),
        }
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.root.join("skills").join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        // File times have a coarse resolution on some file systems; let a change be seen.
        std::thread::sleep(Duration::from_millis(1100));
    }

    fn remove(&self, relative: &str) {
        std::fs::remove_file(self.root.join("skills").join(relative)).unwrap();
        std::thread::sleep(Duration::from_millis(1100));
    }

    /// Runs the probe; returns whether cargo succeeded, stdout and stderr.
    fn run(&self) -> (bool, String, String) {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args(["run", "--quiet", "--offline"])
            .current_dir(&self.root)
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    fn expect(&self, stdout: &str) {
        let (ok, out, err) = self.run();
        assert!(ok, "the probe failed:\n{err}");
        assert_eq!(out, stdout, "{err}");
    }
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name}.\n---\nSteps.\n")
}

#[test]
fn adding_editing_and_removing_files_rebuilds_and_invalid_skills_fail_the_build() {
    let probe = Probe::new();
    probe.write("alpha/SKILL.md", &skill_md("alpha"));
    probe.write("alpha/references/one.md", "1");
    probe.expect("alpha files=1 bytes=1\n");

    probe.write("alpha/references/deep/two.md", "22");
    probe.expect("alpha files=2 bytes=3\n");

    probe.write("alpha/references/deep/two.md", "2222");
    probe.expect("alpha files=2 bytes=5\n");

    probe.remove("alpha/references/one.md");
    probe.expect("alpha files=1 bytes=4\n");

    probe.write("beta/SKILL.md", &skill_md("beta"));
    probe.expect("alpha files=1 bytes=4\nbeta files=0 bytes=0\n");

    probe.write("beta/SKILL.md", &skill_md("Beta"));
    let (ok, _, stderr) = probe.run();
    assert!(!ok, "an invalid skill must fail the build");
    assert!(stderr.contains("skills/beta/SKILL.md"), "{stderr}");
    assert!(
        stderr.contains("field `name`: `Beta` has uppercase letters"),
        "{stderr}"
    );

    probe.write("beta/SKILL.md", &skill_md("beta"));
    probe.write("beta/.DS_Store", "junk");
    let (ok, out, stderr) = probe.run();
    assert!(ok, "{stderr}");
    assert_eq!(
        out, "alpha files=1 bytes=4\nbeta files=0 bytes=0\n",
        "hidden files are skipped"
    );
}
