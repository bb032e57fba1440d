//! A real crate that embeds a skills folder from its build.rs, built with cargo: adding,
//! editing and removing files rebuilds it, an invalid skill fails the build with the catalog's
//! message, the archives embedded are the ones the core builds from the same folder at run
//! time, and a rebuild after an edit compresses only the skill that changed.
//!
//! The probe crate and its target folder live under the workspace's `target/`, so only the
//! first run compiles the dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use skillpub_core::{Catalog, index::ArchiveFormat};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

struct Probe {
    package: &'static str,
    root: PathBuf,
    target: PathBuf,
}

impl Probe {
    /// A probe crate of its own for each test, all built in one target folder.
    fn new(package: &'static str) -> Self {
        let workspace = workspace();
        let base = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| workspace.join("target"), PathBuf::from)
            .join("skillpub-build-probe");
        let root = base.join(package);
        let _ = std::fs::remove_dir_all(root.join("skills"));
        std::fs::create_dir_all(root.join("src")).unwrap();
        let core = workspace.join("crates/skillpub-core");
        let build = workspace.join("crates/skillpub-build");
        let manifest = format!(
            "[package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
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
             let folder = skillpub_core::Catalog::from_dir(\"skills\").unwrap();\n    \
             for skill in catalog.skills() {\n        \
             let bytes: usize = skill.files().iter().map(|f| f.artifact().len()).sum();\n        \
             let archives = [skillpub_core::index::ArchiveFormat::TarGz, skillpub_core::index::ArchiveFormat::Zip]\n            \
             .map(|format| skill.archive(format));\n        \
             let from_folder = folder.get(skill.name()).unwrap();\n        \
             let same = archives == [skillpub_core::index::ArchiveFormat::TarGz, skillpub_core::index::ArchiveFormat::Zip]\n            \
             .map(|format| from_folder.archive(format));\n        \
             println!(\"{} files={} bytes={bytes} archives-as-from-folder={same}\", skill.name(), skill.files().len());\n    }\n}\n",
        )
        .unwrap();
        let target = base.join("target");
        // Outputs of this probe's build script from earlier runs (another skillpub-build gives
        // another folder) would be read as this run's archives: start without them.
        if let Ok(builds) = std::fs::read_dir(target.join("debug/build")) {
            let ours = format!("{package}-");
            for build in builds.flatten() {
                if build.file_name().to_string_lossy().starts_with(&ours) {
                    let _ = std::fs::remove_dir_all(build.path());
                }
            }
        }
        Self {
            package,
            root,
            target,
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

    /// The archives skillpub-build keeps in the probe's `OUT_DIR`, by file name, with their
    /// bytes and modification times.
    fn stored_archives(&self) -> Vec<(String, Vec<u8>, SystemTime)> {
        let build = self.target.join("debug/build");
        let mut stored = Vec::new();
        for entry in std::fs::read_dir(build).unwrap() {
            let entry = entry.unwrap();
            let ours = format!("{}-", self.package);
            if !entry.file_name().to_string_lossy().starts_with(&ours) {
                continue;
            }
            let store = entry.path().join("out/skillpub-archives-SKILLS");
            let Ok(files) = std::fs::read_dir(&store) else {
                continue;
            };
            for file in files {
                let path = file.unwrap().path();
                let name = path.file_name().unwrap().to_str().unwrap().to_owned();
                let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
                stored.push((name, std::fs::read(&path).unwrap(), modified));
            }
        }
        stored.sort();
        stored
    }

    /// Every archive the core builds at run time from the probe's skills folder.
    fn archives_from_folder(&self) -> Vec<Vec<u8>> {
        let catalog = Catalog::from_dir(self.root.join("skills")).unwrap();
        let mut archives = Vec::new();
        for skill in catalog.skills() {
            for format in [ArchiveFormat::TarGz, ArchiveFormat::Zip] {
                archives.extend(skill.archive(format).map(|a| a.bytes().to_vec()));
            }
        }
        archives
    }
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name}.\n---\nSteps.\n")
}

#[test]
fn adding_editing_and_removing_files_rebuilds_and_invalid_skills_fail_the_build() {
    let probe = Probe::new("embed-probe");
    probe.write("alpha/SKILL.md", &skill_md("alpha"));
    probe.write("alpha/references/one.md", "1");
    probe.expect("alpha files=1 bytes=1 archives-as-from-folder=true\n");

    probe.write("alpha/references/deep/two.md", "22");
    probe.expect("alpha files=2 bytes=3 archives-as-from-folder=true\n");

    probe.write("alpha/references/deep/two.md", "2222");
    probe.expect("alpha files=2 bytes=5 archives-as-from-folder=true\n");

    probe.remove("alpha/references/one.md");
    probe.expect("alpha files=1 bytes=4 archives-as-from-folder=true\n");

    probe.write("beta/SKILL.md", &skill_md("beta"));
    probe.expect("alpha files=1 bytes=4 archives-as-from-folder=true\nbeta files=0 bytes=0 archives-as-from-folder=true\n");

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
        out,
        "alpha files=1 bytes=4 archives-as-from-folder=true\nbeta files=0 bytes=0 archives-as-from-folder=true\n",
        "hidden files are skipped"
    );
}

#[test]
fn the_embedded_archives_are_the_core_s_and_an_edit_recompresses_only_its_skill() {
    let probe = Probe::new("archive-probe");
    probe.write("alpha/SKILL.md", &skill_md("alpha"));
    probe.write("alpha/references/one.md", "1");
    probe.write("beta/SKILL.md", &skill_md("beta"));
    probe.write("beta/scripts/run.sh", "#!/bin/sh\n");
    probe.expect(
        "alpha files=1 bytes=1 archives-as-from-folder=true\n\
         beta files=1 bytes=10 archives-as-from-folder=true\n",
    );
    let before = probe.stored_archives();
    let mut stored: Vec<&Vec<u8>> = before.iter().map(|(_, bytes, _)| bytes).collect();
    let mut from_folder = probe.archives_from_folder();
    stored.sort();
    from_folder.sort();
    assert_eq!(
        stored,
        from_folder.iter().collect::<Vec<_>>(),
        "byte for byte"
    );

    probe.write("alpha/references/one.md", "11");
    probe.expect(
        "alpha files=1 bytes=2 archives-as-from-folder=true\n\
         beta files=1 bytes=10 archives-as-from-folder=true\n",
    );
    let after = probe.stored_archives();
    assert_eq!(after.len(), 4, "alpha's old archives are deleted");
    let untouched = after.iter().filter(|file| before.contains(file)).count();
    assert_eq!(
        untouched, 2,
        "beta's archives are neither rebuilt nor rewritten"
    );
}
