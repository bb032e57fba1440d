//! For `build.rs`: embed a folder of Agent Skills in the crate and validate it at build time.
//!
//! [`embed`] walks a skills folder, checks every skill with the rules of
//! [`skillpub_core::Catalog`] and writes Rust code that embeds every file with
//! `include_bytes!`. An invalid skill fails `cargo build` with the same messages the catalog
//! gives at run time, each naming the file and field. The crate then pulls the skills in with
//! one line, [`skillpub_core::include_skills!`].
//!
//! The slow part of start-up is done here, once, at build time: the `.tar.gz` and `.zip` of
//! every skill with supporting files are built by the core's own archive code and embedded,
//! every frontmatter is parsed from YAML and embedded as JSON, and every file is reviewed for
//! credentials (a live key fails the build, as an invalid `SKILL.md` does) and by the rest of
//! the security review (hidden text, injected instructions, exfiltration, risky scripts: a
//! `cargo:warning` each, with its file and line). Start-up still
//! hashes every byte it serves and checks every field rule; see [Start-up](#start-up).
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
//! What is embedded is the bytes the walk read and checked, never the folder as the compiler
//! finds it later: each file is copied as read to `OUT_DIR/skillpub-files-SKILLS/` (named by
//! its SHA-256, written only when no copy of those bytes is there yet, and deleted once no
//! file names it), and `include_bytes!` names the copy. The compiler reads what
//! `include_bytes!` names after the build script has run, by path, so naming the files in the
//! folder would embed whatever is there by then: a file swapped for a link to a secret outside
//! the skill would be embedded without any check.
//!
//! # Rebuilds
//!
//! It prints `cargo:rerun-if-changed` for the folder, every folder in it and every file, so
//! adding, editing or removing a file rebuilds the crate.
//!
//! Archives are written to `OUT_DIR/skillpub-archives-SKILLS/` (one folder per static name),
//! each named by its skill's archive key (`Skill::archive_key`, a hook the core keeps for this
//! crate): the SHA-256 of the archive settings and of every file's path, mode and digest. A
//! rebuild hashes every file (a few milliseconds for megabytes) and compresses only the skills
//! whose key has no archive yet, so editing one skill recompresses that skill alone; archives
//! that no skill names any more are deleted. Each archive is written to a temporary file and
//! renamed into place, so an interrupted build never leaves half an archive under a key.
//!
//! # Start-up
//!
//! The catalog built from the embedded skills (`Catalog::new(&SKILLS)`) still computes every
//! digest from the bytes it serves, at start-up, and uses what was worked out here only for
//! the bytes it was worked out from:
//!
//! - the archives, when the archive key of the files it serves (computed from their digests,
//!   which it computes anyway) is the key they were built for: the same files and the same
//!   archive code, settings and level, so the same bytes as it would build itself. It hashes
//!   them like every artifact. Otherwise it builds them.
//! - the frontmatter, parsed here from YAML by the core's parser and embedded as JSON, when the
//!   `SKILL.md` it serves has the SHA-256 of the file parsed here. Every field rule (name,
//!   folder, lengths, control characters, unknown fields) runs again at start-up on what was
//!   parsed; only the YAML syntax, which these exact bytes passed here, is not read again.
//!   Otherwise it parses the YAML.
//! - the review for credentials (`security.secret`, see `skillpub_core::security`), which a
//!   skill with a live key fails here, failing the build: each skill carries its review key
//!   (the SHA-256 of the rules' revision and of every file's path and digest), and the
//!   catalog, which has every digest anyway, reads the files again only when the key of what
//!   it serves is another.
//!
//! The embedded bytes are the copies of what this script read (see [What is
//! embedded](#what-is-embedded)), so every part is used; bytes that differ anyway (a copy in
//! `OUT_DIR` changed by hand) are judged and archived at start-up like a file read from disk,
//! never served with another file's archive or frontmatter. With every part used, start-up
//! costs about what hashing every served byte once costs: the YAML parser took about five
//! times as long as hashing its `SKILL.md`, and compressing the archives about forty times as
//! long as hashing them.
//!
//! Build scripts and their dependencies are compiled without optimisation by default, and
//! compression is several times slower unoptimised; for many megabytes of skills, optimise
//! them in your `Cargo.toml`:
//!
//! ```toml
//! [profile.dev.build-override]
//! opt-level = 3
//! [profile.release.build-override]
//! opt-level = 3
//! ```

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use skillpub_core::{
    CatalogBuilder, Digest, Errors, Skill, SkillMdParser,
    folder::{IoError, SkillsFolder, read_skills_folder},
    index::ArchiveFormat,
};

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
    /// The warnings of the security review (skillpub-advice's `security.` rules other than
    /// credentials, which fail the build), each `file:line: message [code]`.
    pub warnings: Vec<String>,
    /// How many skills were embedded.
    pub skills: usize,
    /// How many skills' archives were built by this run.
    pub archives_built: usize,
    /// How many skills' archives an earlier run had built for the same files, and were kept.
    pub archives_kept: usize,
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
    /// An archive or the copy of a skill's file cannot be written to `OUT_DIR`.
    #[error(
        "cannot write {0}; check that the build's target folder is writable and its disk has room"
    )]
    Write(IoError),
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

    /// Reads and validates the folder, builds the archives that `out_dir` does not hold yet
    /// (see [Rebuilds](crate#rebuilds)) and returns the code, without writing it.
    ///
    /// `root` is the folder that relative paths start from (the crate root in a build
    /// script); the generated folder labels are relative to it. `out_dir` is where the
    /// archives are kept (`OUT_DIR` in a build script).
    ///
    /// # Errors
    ///
    /// Every problem of the folder and of every skill, as the catalog reports them; a path
    /// that is not UTF-8; a static name or crate path that is not Rust; an archive that
    /// cannot be written.
    pub fn generate(&self, root: &Path, out_dir: &Path) -> Result<Generated, EmbedError> {
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
        let store = Store(out_dir.join(format!("skillpub-archives-{}", self.static_name)));
        let skills: Vec<&Skill> = folder.skills().iter().map(|s| s.skill()).collect();
        let (keys, archives_built) = self.archives(&skills, &store)?;
        let copies = Store(out_dir.join(format!("skillpub-files-{}", self.static_name)))
            .hold_copies(&skills)?;
        let frontmatters = self.frontmatters(&skills)?;
        let archives_kept = keys.iter().flatten().count() - archives_built;
        Ok(Generated {
            code: self.code(&folder, root, &frontmatters, &keys, &store, &copies)?,
            watched: watched(&folder),
            skipped: folder.skipped().iter().map(ToString::to_string).collect(),
            warnings: self.security_warnings(&skills)?,
            skills: folder.skills().len(),
            archives_built,
            archives_kept,
        })
    }

    /// The archive key of every skill (`None` for a `SKILL.md` alone), after building into
    /// the store the archives it does not hold yet, in parallel, with the catalog's own code;
    /// then the archives no skill names any more are deleted. Returns the keys and how many
    /// skills had their archives built.
    fn archives(
        &self,
        skills: &[&Skill],
        store: &Store,
    ) -> Result<(Vec<Option<Digest>>, usize), EmbedError> {
        let keys: Vec<Option<Digest>> = skills.iter().map(|skill| skill.archive_key()).collect();
        let missing: Vec<(&Skill, Digest)> = skills
            .iter()
            .zip(&keys)
            .filter_map(|(skill, key)| Some((*skill, (*key)?)))
            .filter(|(_, key)| !store.holds_archives(key))
            .collect();
        if !missing.is_empty() {
            let mut builder = CatalogBuilder::new();
            builder
                .skills(missing.iter().map(|(skill, _)| *skill))
                .allow_unknown_fields(self.allow_unknown_fields);
            let catalog = builder.build()?;
            for (skill, key) in &missing {
                // A skill read from a folder is named after it (the catalog has checked it).
                let published = skill.folder_name().and_then(|name| catalog.get(name));
                for format in [ArchiveFormat::TarGz, ArchiveFormat::Zip] {
                    if let Some(archive) = published.and_then(|p| p.archive(format)) {
                        store.write(&archive_name(key, format), archive.bytes())?;
                    }
                }
            }
        }
        store.keep_only(
            keys.iter()
                .flatten()
                .flat_map(|key| ARCHIVES.map(|format| archive_name(key, format))),
        );
        Ok((keys, missing.len()))
    }

    /// Every skill's frontmatter as JSON, parsed from its YAML by the catalog's parser, with
    /// the SHA-256 of the `SKILL.md` it was parsed from.
    fn frontmatters(&self, skills: &[&Skill]) -> Result<Vec<(Digest, String)>, EmbedError> {
        let parser = SkillMdParser::new().allow_unknown_fields(self.allow_unknown_fields);
        skills
            .iter()
            .map(|skill| {
                let bytes = skill.skill_md();
                let parsed = parser.parse(bytes.clone(), skill.folder())?;
                let json = serde_json::Value::Object(parsed.frontmatter().json().clone());
                Ok((Digest::of(bytes), json.to_string()))
            })
            .collect()
    }

    /// The warnings of the security review on every skill: hidden text, injected
    /// instructions, exfiltration and risky scripts, in the `SKILL.md` and every supporting
    /// file. They warn; credentials, which the folder's check refuses, fail the build.
    fn security_warnings(&self, skills: &[&Skill]) -> Result<Vec<String>, EmbedError> {
        let parser = SkillMdParser::new().allow_unknown_fields(self.allow_unknown_fields);
        let mut warnings = Vec::new();
        for skill in skills {
            let skill_md = parser.parse(skill.skill_md().clone(), skill.folder())?;
            let folder = Path::new(skill.folder().unwrap_or_default());
            for advice in skillpub_advice::advise(&skill_md, skill.files()) {
                if advice.code().starts_with("security.") {
                    let file = folder.join(advice.file());
                    let line = advice
                        .line()
                        .map_or_else(String::new, |line| format!(":{line}"));
                    warnings.push(format!(
                        "{}{line}: {advice} [{}]",
                        file.display(),
                        advice.code()
                    ));
                }
            }
        }
        Ok(warnings)
    }

    /// Runs in a build script: generates the code into `OUT_DIR`, prints what to watch, what
    /// was skipped and the warnings of the security review, and on invalid skills prints
    /// every problem and exits with status 1.
    pub fn run(self) {
        let root = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from);
        let Some(out_dir) = std::env::var_os("OUT_DIR") else {
            eprintln!("skillpub-build: OUT_DIR is not set; call it from a build script (build.rs)");
            std::process::exit(1);
        };
        println!("cargo:rerun-if-changed={}", root.join(&self.dir).display());
        let generated = match self.generate(&root, Path::new(&out_dir)) {
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
        for message in generated.skipped.iter().chain(&generated.warnings) {
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

    fn code(
        &self,
        folder: &SkillsFolder,
        root: &Path,
        frontmatters: &[(Digest, String)],
        keys: &[Option<Digest>],
        store: &Store,
        copies: &[Vec<PathBuf>],
    ) -> Result<String, EmbedError> {
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
            // The copies of a skill are its SKILL.md's, then its files' in order.
            for (file, copy) in files.iter().zip(&copies[at][1..]) {
                let _ = writeln!(
                    code,
                    "    {krate}::SkillFile::from_static({:?}, ::core::include_bytes!({:?}), {}),",
                    file.path(),
                    utf8(copy)?,
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
                "    {krate}::Skill::from_static_parts({label:?}, ::core::include_bytes!({:?}), &__{name}_FILES_{at})",
                utf8(&copies[at][0])?,
            );
            let (digest, json) = &frontmatters[at];
            let _ = writeln!(
                code,
                "        .with_parsed_frontmatter({}, {json:?})",
                array(digest)
            );
            // The folder's `check` above reviewed these files for credentials.
            let _ = writeln!(
                code,
                "        .with_reviewed_secrets({})",
                array(&source.skill().review_key())
            );
            if let Some(key) = &keys[at] {
                let _ = writeln!(
                    code,
                    "        .with_built_archives({}, ::core::include_bytes!({:?}), ::core::include_bytes!({:?}))",
                    array(key),
                    utf8(&store.path(&archive_name(key, ArchiveFormat::TarGz)))?,
                    utf8(&store.path(&archive_name(key, ArchiveFormat::Zip)))?,
                );
            }
            code.push_str("    ,\n");
        }
        code.push_str("];\n");
        Ok(code)
    }
}

/// Both archive formats, built for every skill with supporting files.
const ARCHIVES: [ArchiveFormat; 2] = [ArchiveFormat::TarGz, ArchiveFormat::Zip];

/// The name of a skill's archive in the store: its archive key and the format's suffix.
fn archive_name(key: &Digest, format: ArchiveFormat) -> String {
    format!("{}{}", key.hex(), format.suffix())
}

/// A folder in `OUT_DIR` of files named by what they hold: the archives built ahead of time
/// (named by their archive keys), or the copies of the skills' files (named by their
/// SHA-256).
struct Store(PathBuf);

impl Store {
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Whether both archives for `key` are there.
    fn holds_archives(&self, key: &Digest) -> bool {
        ARCHIVES
            .iter()
            .all(|format| self.path(&archive_name(key, *format)).is_file())
    }

    /// Writes a copy of every file the walk read, as read, that the store does not hold yet
    /// (named by its SHA-256), and deletes the copies no file names any more; returns the
    /// copies of each skill, its `SKILL.md` first, then its files in order.
    ///
    /// The code embeds these copies rather than the files in the skills folder: the compiler
    /// reads what `include_bytes!` names after this script, by path, so a file swapped in the
    /// folder meanwhile (for a link to a secret, say) would be embedded unchecked.
    fn hold_copies(&self, skills: &[&Skill]) -> Result<Vec<Vec<PathBuf>>, EmbedError> {
        let mut names = HashSet::new();
        let mut copies = Vec::with_capacity(skills.len());
        for skill in skills {
            let files = skill.files().iter().map(|file| file.bytes());
            let mut paths = Vec::with_capacity(skill.files().len() + 1);
            for bytes in std::iter::once(skill.skill_md()).chain(files) {
                let name = Digest::of(bytes).hex();
                let path = self.path(&name);
                if !path.is_file() {
                    self.write(&name, bytes)?;
                }
                names.insert(name);
                paths.push(path);
            }
            copies.push(paths);
        }
        self.keep_only(names.into_iter());
        Ok(copies)
    }

    /// Writes a file under `name`: to a temporary file first, then renamed into place.
    fn write(&self, name: &str, bytes: &[u8]) -> Result<(), EmbedError> {
        let target = self.path(name);
        let partial = target.with_extension("partial");
        let fail = |path: &Path, error| EmbedError::Write(IoError::new(path, error));
        std::fs::create_dir_all(&self.0).map_err(|error| fail(&self.0, error))?;
        std::fs::write(&partial, bytes).map_err(|error| fail(&partial, error))?;
        std::fs::rename(&partial, &target).map_err(|error| fail(&target, error))
    }

    /// Deletes every file but those named. What cannot be deleted stays; it is never
    /// embedded, since the code names every file it embeds.
    fn keep_only(&self, names: impl Iterator<Item = String>) {
        let wanted: HashSet<PathBuf> = names.map(|name| self.path(&name)).collect();
        let Ok(entries) = std::fs::read_dir(&self.0) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !wanted.contains(&path) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// A digest as a Rust array literal of its 32 bytes.
fn array(digest: &Digest) -> String {
    let bytes: Vec<String> = digest
        .as_bytes()
        .iter()
        .map(|b| format!("0x{b:02x}"))
        .collect();
    format!("[{}]", bytes.join(", "))
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
