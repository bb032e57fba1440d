//! For `build.rs`: embed a folder of Agent Skills in the crate and validate it at build time.
//!
//! [`embed`] walks a skills folder, checks every skill with the rules of
//! [`skillpub_core::Catalog`] and writes Rust code that embeds every file with
//! `include_bytes!`. An invalid skill fails `cargo build` with the same messages the catalog
//! gives at run time, each naming the file and field. The crate then pulls the skills in with
//! one line, [`skillpub_core::include_skills!`].
//!
//! Crate features: none.
//!
//! # Example
//!
//! `build.rs`:
//!
//! ```ignore
//! fn main() {
//!     skillpub_build::embed("skills");
//! }
//! ```
//!
//! `src/main.rs`:
//!
//! ```ignore
//! skillpub::include_skills!(); // defines `static SKILLS: [skillpub::Skill; N]`
//!
//! let catalog = skillpub::Catalog::new(&SKILLS)?;
//! ```
//!
//! # What is embedded
//!
//! The folder is read by the core's folder walk, the code behind `Catalog::from_dir` at run
//! time, so a folder is judged the same at build time: every file of every skill is embedded
//! with its `/`-separated path, sorted, and its executable bit. What the walk skips (with a
//! `cargo:warning`) and refuses (failing the build) is listed once, in
//! [the core's docs](skillpub_core#reading-a-folder).
//!
//! # Rebuilds
//!
//! It prints `cargo:rerun-if-changed` for the folder, every folder in it and every file, so
//! adding, editing or removing a file rebuilds the crate.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use skillpub_core::{Errors, SkillsFolder, read_skills_folder};

/// The file written to `OUT_DIR` for a static named `name`, which
/// [`skillpub_core::include_skills!`] includes: `skillpub_SKILLS.rs` by default.
#[must_use]
pub fn generated_file(static_name: &str) -> String {
    // The name is defined once, by the macro that `include_skills!` expands; given `{}`, it
    // spells the pattern.
    skillpub_core::__generated_file!({}).replacen("{}", static_name, 1)
}

/// Embeds the skills in `dir` (relative to the crate root) with the default options: a
/// `static SKILLS` of `::skillpub::Skill`.
///
/// On invalid skills it prints every problem and exits, which fails the build.
pub fn embed(dir: impl AsRef<Path>) {
    Embed::new(dir).run();
}

/// Options for embedding a skills folder.
///
/// # Example
///
/// ```no_run
/// // build.rs of a crate that depends on skillpub-core rather than skillpub, and embeds a
/// // second folder next to the default one (pulled in with `include_skills!(AGENT_SKILLS)`):
/// skillpub_build::Embed::new("agent-skills")
///     .crate_path("::skillpub_core")
///     .static_name("AGENT_SKILLS")
///     .run();
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Embed {
    dir: PathBuf,
    crate_path: String,
    static_name: String,
    allow_unknown_fields: bool,
}

/// What [`Embed::generate`] produced.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The Rust source that defines the static.
    pub code: String,
    /// Every folder and file to watch for changes.
    pub watched: Vec<PathBuf>,
    /// What was left out, with why: hidden files, folders without `SKILL.md`.
    pub skipped: Vec<String>,
    /// How many skills were embedded.
    pub skills: usize,
}

/// Why a folder cannot be embedded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// The skills are invalid.
    #[error(transparent)]
    Skills(#[from] Errors),
    /// A path that `include_bytes!` cannot be given exactly.
    #[error("`{}` is not valid UTF-8; move the crate or the skills to a path that is", .0.display())]
    NotUtf8(PathBuf),
    /// A name or path given to the builder is not Rust.
    #[error("`{0}` is not a valid Rust {1}")]
    NotRust(String, &'static str),
}

impl Embed {
    /// Embeds `dir`, relative to the crate root (`CARGO_MANIFEST_DIR`) unless absolute.
    pub fn new(dir: impl AsRef<Path>) -> Self {
        Self {
            dir: dir.as_ref().to_path_buf(),
            crate_path: "::skillpub".to_owned(),
            static_name: "SKILLS".to_owned(),
            allow_unknown_fields: false,
        }
    }

    /// The path of the crate that provides `Skill` and `SkillFile` (default `::skillpub`).
    pub fn crate_path(mut self, path: impl Into<String>) -> Self {
        self.crate_path = path.into();
        self
    }

    /// The name of the generated static (default `SKILLS`); each name gets its own generated
    /// file, so several folders can be embedded.
    pub fn static_name(mut self, name: impl Into<String>) -> Self {
        self.static_name = name.into();
        self
    }

    /// Accepts frontmatter fields the specification does not define, as
    /// `CatalogBuilder::allow_unknown_fields` does at run time (default `false`).
    pub fn allow_unknown_fields(mut self, allow: bool) -> Self {
        self.allow_unknown_fields = allow;
        self
    }

    /// Reads and validates the folder and returns the code, without writing anything.
    ///
    /// `root` is the folder that relative paths start from (the crate root in a build
    /// script); the generated folder labels are relative to it.
    ///
    /// # Errors
    ///
    /// Every problem of the folder and of every skill, as the catalog reports them; a path
    /// that is not UTF-8; a static name or crate path that is not Rust.
    pub fn generate(&self, root: &Path) -> Result<Generated, EmbedError> {
        let is_identifier = |text: &str| {
            text.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !is_identifier(&self.static_name) {
            return Err(EmbedError::NotRust(self.static_name.clone(), "identifier"));
        }
        let path = self.crate_path.trim_start_matches("::");
        if !path.split("::").all(is_identifier) {
            return Err(EmbedError::NotRust(self.crate_path.clone(), "path"));
        }
        let dir = root.join(&self.dir);
        let folder = read_skills_folder(&dir)?;
        folder
            .builder()
            .allow_unknown_fields(self.allow_unknown_fields)
            .check()?;
        Ok(Generated {
            code: self.code(&folder, root)?,
            watched: watched(&folder),
            skipped: folder
                .skipped()
                .iter()
                .map(|s| format!("skipped {} ({})", s.path.display(), s.reason))
                .collect(),
            skills: folder.skills().len(),
        })
    }

    /// Runs in a build script: generates the code into `OUT_DIR`, prints what to watch and
    /// what was skipped, and on invalid skills prints every problem and exits with status 1.
    pub fn run(self) {
        let root = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from);
        let Some(out_dir) = std::env::var_os("OUT_DIR") else {
            eprintln!("skillpub-build: OUT_DIR is not set; call it from a build script (build.rs)");
            std::process::exit(1);
        };
        println!("cargo:rerun-if-changed={}", root.join(&self.dir).display());
        let generated = match self.generate(&root) {
            Ok(generated) => generated,
            Err(error) => {
                eprintln!(
                    "skillpub-build: the skills in `{}` cannot be embedded.\n{error}",
                    self.dir.display()
                );
                std::process::exit(1);
            }
        };
        for path in &generated.watched {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        for message in &generated.skipped {
            println!("cargo:warning=skillpub: {message}");
        }
        if generated.skills == 0 {
            println!(
                "cargo:warning=skillpub: `{}` holds no skill; the index will be empty",
                self.dir.display()
            );
        }
        let target = Path::new(&out_dir).join(generated_file(&self.static_name));
        if let Err(error) = std::fs::write(&target, generated.code) {
            eprintln!("skillpub-build: cannot write {}: {error}", target.display());
            std::process::exit(1);
        }
    }

    fn code(&self, folder: &SkillsFolder, root: &Path) -> Result<String, EmbedError> {
        let krate = &self.crate_path;
        let name = &self.static_name;
        let mut code = format!(
            "// Generated by skillpub-build from {:?}; do not edit.\n",
            self.dir.display().to_string()
        );
        // Each file list is a static of its own: a borrowed temporary of a type with a
        // destructor cannot live in a static.
        for (at, source) in folder.skills().iter().enumerate() {
            let files = source.skill().files();
            let _ = writeln!(
                code,
                "#[doc(hidden)]\nstatic __{name}_FILES_{at}: [{krate}::SkillFile; {}] = [",
                files.len()
            );
            for (file, path) in files.iter().zip(source.file_sources()) {
                let _ = writeln!(
                    code,
                    "    {krate}::SkillFile::from_static({:?}, ::core::include_bytes!({:?}), {}),",
                    file.path(),
                    utf8(path)?,
                    file.is_executable(),
                );
            }
            code.push_str("];\n");
        }
        let _ = writeln!(
            code,
            "/// The skills embedded at build time from {:?}.\npub static {name}: [{krate}::Skill; {}] = [",
            self.dir.display().to_string(),
            folder.skills().len(),
        );
        for (at, source) in folder.skills().iter().enumerate() {
            let label = source
                .skill()
                .folder()
                .map_or_else(String::new, |folder| relative_label(folder, root));
            let _ = writeln!(
                code,
                "    {krate}::Skill::from_static_parts({label:?}, ::core::include_bytes!({:?}), &__{name}_FILES_{at}),",
                utf8(source.skill_md_source())?,
            );
        }
        code.push_str("];\n");
        Ok(code)
    }
}

/// Every folder walked and every file read.
fn watched(folder: &SkillsFolder) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = folder.folders().to_vec();
    for source in folder.skills() {
        paths.push(source.skill_md_source().to_path_buf());
        paths.extend(source.file_sources().iter().cloned());
    }
    paths
}

/// A folder label relative to the crate root, `/`-separated, as `skill!` labels are.
fn relative_label(folder: &str, root: &Path) -> String {
    let path = Path::new(folder);
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A path as text for `include_bytes!`, which needs it exactly.
fn utf8(path: &Path) -> Result<&str, EmbedError> {
    path.to_str()
        .ok_or_else(|| EmbedError::NotUtf8(path.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let path = std::env::temp_dir().join(format!(
                "skillpub-build-{name}-{}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        fn write(&self, relative: &str, text: &str) {
            let path = self.0.join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const SKILL_MD: &str = "---\nname: pdf\ndescription: Reads PDFs.\n---\n";

    #[test]
    fn generates_one_static_per_file_list_and_labels_relative_to_the_root() {
        let root = Scratch::new("generate");
        root.write("skills/pdf/SKILL.md", SKILL_MD);
        root.write("skills/pdf/scripts/run.sh", "#!/bin/sh\n");
        root.write("skills/pdf/.DS_Store", "junk");
        let generated = Embed::new("skills").generate(&root.0).unwrap();
        let code = &generated.code;
        assert!(
            code.contains("static __SKILLS_FILES_0: [::skillpub::SkillFile; 1]"),
            "{code}"
        );
        assert!(
            code.contains("::skillpub::SkillFile::from_static(\"scripts/run.sh\""),
            "{code}"
        );
        assert!(
            code.contains("pub static SKILLS: [::skillpub::Skill; 1]"),
            "{code}"
        );
        assert!(code.contains("from_static_parts(\"skills/pdf\""), "{code}");
        assert!(!code.contains("DS_Store"), "{code}");
        assert_eq!(generated.skipped.len(), 1);
        for watched in [
            "skills",
            "skills/pdf",
            "skills/pdf/scripts",
            "skills/pdf/SKILL.md",
            "skills/pdf/scripts/run.sh",
        ] {
            assert!(
                generated.watched.contains(&root.0.join(watched)),
                "{watched} is watched"
            );
        }
    }

    #[test]
    fn crate_path_and_static_name_are_used() {
        let root = Scratch::new("names");
        root.write("skills/pdf/SKILL.md", SKILL_MD);
        let generated = Embed::new("skills")
            .crate_path("::skillpub_core")
            .static_name("AGENT_SKILLS")
            .generate(&root.0)
            .unwrap();
        assert!(
            generated
                .code
                .contains("pub static AGENT_SKILLS: [::skillpub_core::Skill; 1]")
        );
    }

    #[test]
    fn invalid_skills_are_reported_with_every_catalog_problem() {
        let root = Scratch::new("invalid");
        root.write(
            "skills/pdf/SKILL.md",
            "---\nname: PDF\ndescription: d\n---\n",
        );
        root.write("skills/pdf/my notes.md", "x");
        let Err(EmbedError::Skills(errors)) = Embed::new("skills").generate(&root.0) else {
            panic!("the skills are invalid");
        };
        let found: Vec<(&str, &str)> = errors
            .as_slice()
            .iter()
            .map(|error| (error.file(), error.code()))
            .collect();
        let skill_md = root.0.join("skills/pdf/SKILL.md");
        let notes = root.0.join("skills/pdf/my notes.md");
        assert_eq!(
            found,
            [
                (skill_md.to_str().unwrap(), "name.uppercase"),
                (skill_md.to_str().unwrap(), "name.folder-mismatch"),
                (notes.to_str().unwrap(), "file.path"),
            ]
        );
    }

    #[test]
    fn unknown_fields_can_be_allowed_as_at_run_time() {
        let root = Scratch::new("unknown-fields");
        root.write(
            "skills/pdf/SKILL.md",
            "---\nname: pdf\ndescription: d\nowner: me\n---\n",
        );
        assert!(Embed::new("skills").generate(&root.0).is_err());
        assert!(
            Embed::new("skills")
                .allow_unknown_fields(true)
                .generate(&root.0)
                .is_ok()
        );
    }

    #[test]
    fn names_that_are_not_rust_are_refused() {
        let root = Scratch::new("not-rust");
        root.write("skills/pdf/SKILL.md", SKILL_MD);
        let bad_static = Embed::new("skills")
            .static_name("MY SKILLS")
            .generate(&root.0);
        assert!(matches!(
            bad_static,
            Err(EmbedError::NotRust(_, "identifier"))
        ));
        let bad_path = Embed::new("skills")
            .crate_path("::sk-illpub")
            .generate(&root.0);
        assert!(matches!(bad_path, Err(EmbedError::NotRust(_, "path"))));
    }

    #[test]
    fn each_static_has_its_own_file() {
        assert_eq!(generated_file("SKILLS"), "skillpub_SKILLS.rs");
        assert_eq!(generated_file("AGENT_SKILLS"), "skillpub_AGENT_SKILLS.rs");
    }

    #[test]
    fn the_folder_in_comments_is_quoted() {
        let root = Scratch::new("quoted");
        root.write("skills/pdf/SKILL.md", SKILL_MD);
        let code = Embed::new("skills").generate(&root.0).unwrap().code;
        assert!(
            code.starts_with("// Generated by skillpub-build from \"skills\"; do not edit.\n"),
            "{code}"
        );
    }
}
