//! The catalog: every skill validated, hashed, archived and indexed once, then shared read-only.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;

use crate::api_catalog::{self, API_CATALOG_PATH};
use crate::archive;
use crate::base_path;
use crate::digest::Digest;
use crate::error::{Error, ErrorKind, Errors};
use crate::file::{
    MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL, SKILL_MD, largest_files, validate_file_path,
};
#[cfg(feature = "fs")]
use crate::folder::Skipped;
use crate::frontmatter::{self, Frontmatter};
use crate::index::{
    self, ArchiveFormat, INDEX_PATH, TYPE_ARCHIVE, TYPE_SKILL_MD, UrlStyle, WELL_KNOWN_PATH,
};
use crate::legacy::{self, LEGACY_INDEX_PATH, LEGACY_PATH};
use crate::media;
use crate::skill::Skill;
use crate::validate::{self, Rules};
use crate::yaml::{self, YamlError};

/// Bytes served at one path, with their media type and the digest of exactly those bytes.
///
/// # Example
///
/// ```
/// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
/// let index = catalog.index();
/// assert_eq!(index.path(), "/.well-known/agent-skills/index.json");
/// assert_eq!(index.media_type(), "application/json");
/// assert_eq!(index.digest(), skillpub_core::Digest::of(index.bytes()));
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    path: String,
    media_type: &'static str,
    bytes: Bytes,
    digest: Digest,
}

impl Artifact {
    fn new(path: String, media_type: &'static str, bytes: Bytes) -> Self {
        let digest = Digest::of(&bytes);
        Self {
            path,
            media_type,
            bytes,
            digest,
        }
    }

    /// The same bytes, type and digest at another path (no second hash).
    fn published_at(&self, path: String) -> Self {
        Self {
            path,
            ..self.clone()
        }
    }

    /// The path the router serves it at, such as `/.well-known/agent-skills/pdf/SKILL.md`;
    /// the same under a [base path](CatalogBuilder::base_path), which `nest` strips.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Its `Content-Type`.
    #[must_use]
    pub fn media_type(&self) -> &'static str {
        self.media_type
    }

    /// The bytes to serve.
    #[must_use]
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The SHA-256 of [`bytes`](Self::bytes).
    #[must_use]
    pub fn digest(&self) -> Digest {
        self.digest
    }

    /// The length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are no bytes.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// A file of a published skill: its path inside the skill, its mode, and how it is served.
#[derive(Debug, Clone)]
pub struct PublishedFile {
    relative: String,
    mode: u32,
    artifact: Artifact,
}

impl PublishedFile {
    /// The path inside the skill folder, such as `references/api.md` or `SKILL.md`.
    #[must_use]
    pub fn relative_path(&self) -> &str {
        &self.relative
    }

    /// The Unix mode it has in archives.
    #[must_use]
    pub fn mode(&self) -> u32 {
        self.mode
    }

    /// The served bytes.
    #[must_use]
    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }
}

/// A validated skill in a catalog.
#[derive(Debug, Clone)]
pub struct PublishedSkill {
    frontmatter: Frontmatter,
    skill_md: PublishedFile,
    files: Vec<PublishedFile>,
    archives: Option<[Artifact; 2]>,
    url: String,
    /// How errors refer to the `SKILL.md` this came from.
    file: String,
}

impl PublishedSkill {
    /// The skill's name.
    #[must_use]
    pub fn name(&self) -> &str {
        self.frontmatter.name()
    }

    /// The parsed frontmatter.
    #[must_use]
    pub fn frontmatter(&self) -> &Frontmatter {
        &self.frontmatter
    }

    /// The `SKILL.md` as served.
    #[must_use]
    pub fn skill_md(&self) -> &Artifact {
        &self.skill_md.artifact
    }

    /// The supporting files, sorted by path (without `SKILL.md`).
    #[must_use]
    pub fn files(&self) -> &[PublishedFile] {
        &self.files
    }

    /// Every file of the skill, `SKILL.md` included, sorted by path.
    pub fn all_files(&self) -> impl Iterator<Item = &PublishedFile> {
        let mut all: Vec<&PublishedFile> = self.files.iter().collect();
        let at = all.partition_point(|file| file.relative.as_str() < SKILL_MD);
        all.insert(at, &self.skill_md);
        all.into_iter()
    }

    /// The archive in `format`, for a skill with supporting files.
    #[must_use]
    pub fn archive(&self, format: ArchiveFormat) -> Option<&Artifact> {
        let [tar_gz, zip] = self.archives.as_ref()?;
        Some(match format {
            ArchiveFormat::TarGz => tar_gz,
            ArchiveFormat::Zip => zip,
        })
    }

    /// The index `type`: `archive` for a skill with supporting files, else `skill-md`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        if self.archives.is_some() {
            TYPE_ARCHIVE
        } else {
            TYPE_SKILL_MD
        }
    }

    /// The `url` the index gives for this skill, with the [base path](CatalogBuilder::base_path).
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The path the router serves the `SKILL.md` at: `/.well-known/agent-skills/{name}/SKILL.md`
    /// (behind a [base path](CatalogBuilder::base_path), clients reach it under that prefix).
    #[must_use]
    pub fn skill_md_path(&self) -> &str {
        self.skill_md.artifact.path()
    }

    /// Every artifact of the skill: `SKILL.md`, the supporting files, then the archives.
    pub fn artifacts(&self) -> impl Iterator<Item = &Artifact> {
        std::iter::once(&self.skill_md)
            .chain(&self.files)
            .map(PublishedFile::artifact)
            .chain(self.archives.iter().flatten())
    }
}

/// Every skill of a site, validated, hashed and indexed once at start-up.
///
/// Building a catalog parses each `SKILL.md`, checks it against the Agent Skills
/// specification and the discovery draft, checks every supporting file, builds the archives
/// of skills that have supporting files, and reports every problem of every skill at once.
/// A catalog that builds is immutable: it holds the bytes it serves, their digests and the
/// rendered index, and cloning it only bumps a reference count.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, Skill};
///
/// let catalog = Catalog::new([Skill::from_static_in(
///     "skills/greeting",
///     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
/// )])?;
/// let index: serde_json::Value = serde_json::from_slice(catalog.index().bytes()).unwrap();
/// assert_eq!(index["skills"][0]["url"], "/.well-known/agent-skills/greeting/SKILL.md");
/// assert_eq!(
///     index["skills"][0]["digest"],
///     catalog.get("greeting").unwrap().skill_md().digest().to_string(),
/// );
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone)]
pub struct Catalog(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    skills: Vec<PublishedSkill>,
    index: Artifact,
    /// The 0.1.0 index and files, and the API catalog, when enabled.
    extra: Vec<Artifact>,
    /// What the folder walk left out, for a catalog read from disk.
    #[cfg(feature = "fs")]
    skipped: Vec<Skipped>,
    base_path: String,
    index_url: String,
}

impl Catalog {
    /// Builds a catalog from skills with the default options.
    ///
    /// # Errors
    ///
    /// Every problem of every skill, and every name used twice.
    pub fn new<I>(skills: I) -> Result<Self, Errors>
    where
        I: IntoIterator,
        I::Item: Into<Skill>,
    {
        let mut builder = CatalogBuilder::new();
        builder.skills(skills);
        builder.build()
    }

    /// A builder for a catalog with options.
    #[must_use]
    pub fn builder() -> CatalogBuilder {
        CatalogBuilder::new()
    }

    /// The skills, sorted by name.
    #[must_use]
    pub fn skills(&self) -> &[PublishedSkill] {
        &self.0.skills
    }

    /// The skill with this exact name.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&PublishedSkill> {
        let skills = &self.0.skills;
        skills
            .binary_search_by(|skill| skill.name().cmp(name))
            .ok()
            .map(|at| &skills[at])
    }

    /// The rendered `index.json`.
    #[must_use]
    pub fn index(&self) -> &Artifact {
        &self.0.index
    }

    /// Everything to serve: the index, each skill's artifacts, then the legacy 0.1.0 index and
    /// files and the API catalog when they are enabled.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill, SkillFile};
    ///
    /// let skill = Skill::new(None, "---\nname: pdf\ndescription: Reads PDFs.\n---\n")
    ///     .with_files(vec![SkillFile::new("references/forms.md", "# Forms\n", false)]);
    /// let catalog = Catalog::new([skill])?;
    /// let paths: Vec<&str> = catalog.artifacts().map(|a| a.path()).collect();
    /// assert_eq!(paths, [
    ///     "/.well-known/agent-skills/index.json",
    ///     "/.well-known/agent-skills/pdf/SKILL.md",
    ///     "/.well-known/agent-skills/pdf/references/forms.md",
    ///     "/.well-known/agent-skills/pdf.tar.gz",
    ///     "/.well-known/agent-skills/pdf.zip",
    /// ]);
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn artifacts(&self) -> impl Iterator<Item = &Artifact> {
        std::iter::once(&self.0.index)
            .chain(self.0.skills.iter().flat_map(PublishedSkill::artifacts))
            .chain(&self.0.extra)
    }

    /// The public path prefix the router is mounted under, as given to
    /// [`CatalogBuilder::base_path`]; empty for the site root.
    #[must_use]
    pub fn base_path(&self) -> &str {
        &self.0.base_path
    }

    /// Where clients find the index from any page of the site, for a `Link` header: the
    /// base path and `/.well-known/agent-skills/index.json`, after the origin with
    /// [`UrlStyle::Absolute`] (path-absolute for the other styles, since a relative reference
    /// would resolve differently from every page).
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, UrlStyle};
    ///
    /// let root = Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// assert_eq!(root.index_url(), "/.well-known/agent-skills/index.json");
    /// let nested = Catalog::builder()
    ///     .url_style(UrlStyle::Absolute("https://example.com".parse().unwrap()))
    ///     .base_path("/acme")
    ///     .build()?;
    /// assert_eq!(nested.index_url(), "https://example.com/acme/.well-known/agent-skills/index.json");
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[must_use]
    pub fn index_url(&self) -> &str {
        &self.0.index_url
    }

    /// What the folder walk left out when this catalog was read from disk
    /// ([`Catalog::from_dir`], [`SkillsFolder::builder`](crate::SkillsFolder::builder)):
    /// hidden files and folders, and subfolders without a `SKILL.md`. Empty for skills given
    /// in memory. None of it is an error; show it as warnings (see [`Catalog::from_dir`]).
    #[cfg(feature = "fs")]
    #[cfg_attr(docsrs, doc(cfg(feature = "fs")))]
    #[must_use]
    pub fn skipped(&self) -> &[Skipped] {
        &self.0.skipped
    }

    /// Whether the legacy 0.1.0 layout under `/.well-known/skills/` is published.
    #[must_use]
    pub fn has_legacy_index(&self) -> bool {
        self.0.extra.iter().any(|a| a.path() == LEGACY_INDEX_PATH)
    }
}

/// Options for a [`Catalog`].
///
/// # Example
///
/// ```
/// use skillpub_core::{ArchiveFormat, Catalog, Skill, UrlStyle};
///
/// let catalog = Catalog::builder()
///     .skill(Skill::from_static("---\nname: a\ndescription: Does a.\nx-owner: me\n---\n"))
///     .url_style(UrlStyle::Relative)
///     .archive_format(ArchiveFormat::Zip)
///     .allow_unknown_fields(true)
///     .build()?;
/// assert_eq!(catalog.get("a").unwrap().url(), "a/SKILL.md");
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CatalogBuilder {
    skills: Vec<Skill>,
    url_style: UrlStyle,
    archive_format: ArchiveFormat,
    rules: Rules,
    legacy_index: bool,
    api_catalog: bool,
    base_path: String,
    /// What the folder walk left out, when the skills came from
    /// [`SkillsFolder::builder`](crate::SkillsFolder::builder).
    #[cfg(feature = "fs")]
    pub(crate) skipped: Vec<Skipped>,
}

impl CatalogBuilder {
    /// An empty builder: path-absolute URLs at the site root, `.tar.gz` archives in the index,
    /// unknown frontmatter fields refused.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one skill.
    pub fn skill(&mut self, skill: impl Into<Skill>) -> &mut Self {
        self.skills.push(skill.into());
        self
    }

    /// Adds skills.
    pub fn skills<I>(&mut self, skills: I) -> &mut Self
    where
        I: IntoIterator,
        I::Item: Into<Skill>,
    {
        self.skills.extend(skills.into_iter().map(Into::into));
        self
    }

    /// How the index writes `url` (default: [`UrlStyle::PathAbsolute`]).
    pub fn url_style(&mut self, style: UrlStyle) -> &mut Self {
        self.url_style = style;
        self
    }

    /// Which archive the index lists for skills with supporting files (default:
    /// [`ArchiveFormat::TarGz`]). Both archives are served either way.
    pub fn archive_format(&mut self, format: ArchiveFormat) -> &mut Self {
        self.archive_format = format;
        self
    }

    /// Also publishes the legacy 0.1.0 index at `/.well-known/skills/index.json`, with every
    /// file of every skill under `/.well-known/skills/{name}/`, for clients that only read
    /// 0.1.0 (default: `false`).
    pub fn legacy_index(&mut self, publish: bool) -> &mut Self {
        self.legacy_index = publish;
        self
    }

    /// Also publishes an RFC 9727 API catalog at `/.well-known/api-catalog` that links the
    /// index, for sites without one of their own (default: `false`).
    pub fn api_catalog(&mut self, publish: bool) -> &mut Self {
        self.api_catalog = publish;
        self
    }

    /// The public path prefix the router is mounted under, such as `/tenant` for
    /// `Router::new().nest("/tenant", router)` (default: empty, the site root).
    ///
    /// Every URL written for clients carries it: each index `url` in the path-absolute
    /// (`/tenant/.well-known/agent-skills/pdf/SKILL.md`) and absolute
    /// (`https://example.com/tenant/...`) styles, the API catalog's links and
    /// [`Catalog::index_url`] for the `Link` header. A [`UrlStyle::Relative`] `url` stays
    /// relative: it resolves against the index, which is under the prefix already. The 0.1.0
    /// index has no URLs (its files are relative to it), so it does not change. The paths
    /// the router serves ([`Artifact::path`]) do not change either, because `nest` strips the
    /// prefix before the router sees a request.
    ///
    /// The prefix is checked by [`build`](Self::build): it starts with `/`, does not end with
    /// one, and its segments are not empty, `.` or `..` and hold only ASCII letters, digits,
    /// `-`, `.`, `_` and `~` (no `%`-encoding).
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, ErrorKind, Skill};
    ///
    /// let skill = Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n");
    /// let catalog = Catalog::builder().skill(skill.clone()).base_path("/tenant").build()?;
    /// assert_eq!(catalog.get("pdf").unwrap().url(), "/tenant/.well-known/agent-skills/pdf/SKILL.md");
    /// assert_eq!(catalog.index_url(), "/tenant/.well-known/agent-skills/index.json");
    /// assert_eq!(catalog.index().path(), "/.well-known/agent-skills/index.json");
    ///
    /// let errors = Catalog::builder().skill(skill).base_path("/tenant/").build().unwrap_err();
    /// assert!(matches!(errors.as_slice()[0].kind(), ErrorKind::BasePath { .. }));
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn base_path(&mut self, prefix: impl Into<String>) -> &mut Self {
        self.base_path = prefix.into();
        self
    }

    /// Accepts top-level frontmatter fields that the Agent Skills specification does not
    /// define (default: `false`, they are errors, as skills-ref has them). They are kept in
    /// [`Frontmatter::json`].
    pub fn allow_unknown_fields(&mut self, allow: bool) -> &mut Self {
        self.rules.allow_unknown_fields = allow;
        self
    }

    /// Validates every skill, hashes every artifact, builds the archives and renders the
    /// index.
    ///
    /// # Errors
    ///
    /// Every problem of every skill, in the order the skills were added, then every name used
    /// twice.
    pub fn build(&self) -> Result<Catalog, Errors> {
        let mut errors = Vec::new();
        if let Err(problem) = base_path::check(&self.base_path) {
            let base_path = self.base_path.clone();
            let kind = ErrorKind::BasePath { base_path, problem };
            errors.push(Error::option("base_path", kind));
        }
        let mut skills = Vec::with_capacity(self.skills.len());
        for (position, skill) in self.skills.iter().enumerate() {
            match self.publish(skill, position) {
                Ok(published) => skills.push(published),
                Err(mut problems) => errors.append(&mut problems),
            }
        }
        skills.sort_by(|a, b| a.name().cmp(b.name()));
        for pair in skills.windows(2) {
            if pair[0].name() == pair[1].name() {
                let name = pair[1].name();
                errors.push(Error::new(
                    name,
                    &pair[1].file,
                    Some("name"),
                    ErrorKind::DuplicateName {
                        name: name.to_owned(),
                        other_file: pair[0].file.clone(),
                    },
                ));
            }
        }
        if !errors.is_empty() {
            return Err(Errors::new(errors));
        }
        let entries: Vec<index::Entry<'_>> = skills
            .iter()
            .map(|skill| index::Entry {
                name: skill.name(),
                kind: skill.kind(),
                description: skill.frontmatter.description(),
                url: &skill.url,
                digest: self.listed(skill).digest().to_string(),
            })
            .collect();
        let index = Artifact::new(
            INDEX_PATH.to_owned(),
            media::JSON,
            Bytes::from(index::render(&entries)),
        );
        let mut extra = Vec::new();
        if self.legacy_index {
            extra.extend(legacy_artifacts(&skills));
        }
        if self.api_catalog {
            let bytes = Bytes::from(api_catalog::render(&self.url_style, &self.base_path));
            extra.push(Artifact::new(
                API_CATALOG_PATH.to_owned(),
                api_catalog::LINKSET,
                bytes,
            ));
        }
        Ok(Catalog(Arc::new(Inner {
            skills,
            index,
            extra,
            #[cfg(feature = "fs")]
            skipped: self.skipped.clone(),
            base_path: self.base_path.clone(),
            index_url: self.url_style.link_to(&self.base_path, INDEX_PATH),
        })))
    }

    /// The artifact the index lists for a skill.
    fn listed<'a>(&self, skill: &'a PublishedSkill) -> &'a Artifact {
        skill
            .archive(self.archive_format)
            .unwrap_or(&skill.skill_md.artifact)
    }

    fn publish(&self, skill: &Skill, position: usize) -> Result<PublishedSkill, Vec<Error>> {
        let unnamed = format!("#{} (no folder given)", position + 1);
        let file = match skill.folder() {
            Some(_) => skill.file_label(SKILL_MD),
            None => format!("{SKILL_MD} of skill {unnamed}"),
        };
        let label = skill.folder_name().unwrap_or(&unnamed);
        let fail = |name: &str, problems: Vec<(Option<String>, ErrorKind)>| {
            problems
                .into_iter()
                .map(|(field, kind)| Error::new(name, &file, field.as_deref(), kind))
                .collect::<Vec<_>>()
        };
        let text = std::str::from_utf8(skill.skill_md()).map_err(|error| {
            let kind = ErrorKind::NotUtf8 {
                valid_up_to: error.valid_up_to(),
            };
            fail(label, vec![(None, kind)])
        })?;
        let block =
            frontmatter::yaml_block(text).map_err(|kind| fail(label, vec![(None, kind)]))?;
        let json = match yaml::to_json(block) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                let found = validate::describe(&other);
                return Err(fail(label, vec![(None, ErrorKind::NotAMapping { found })]));
            }
            Err(error) => {
                // The block starts on the line after the opening `---`.
                let kind = match error {
                    YamlError::Refused {
                        line,
                        column,
                        message,
                    } => ErrorKind::Yaml {
                        line: line + 1,
                        column,
                        message,
                    },
                    YamlError::DocumentMarker { line, text } => ErrorKind::FrontmatterFence {
                        line: line + 1,
                        text,
                    },
                };
                return Err(fail(label, vec![(None, kind)]));
            }
        };
        let name = match json.get("name") {
            Some(Value::String(name)) if !name.is_empty() => name.clone(),
            _ => label.to_owned(),
        };
        let frontmatter = validate::frontmatter(json, skill.folder_name(), self.rules);
        let file_problems = check_files(skill, &name);
        let frontmatter = match (frontmatter, file_problems.is_empty()) {
            (Ok(frontmatter), true) => frontmatter,
            (Ok(_), false) => return Err(file_problems),
            (Err(problems), _) => {
                let mut errors = fail(&name, problems);
                errors.extend(file_problems);
                return Err(errors);
            }
        };
        let name = frontmatter.name().to_owned();
        let skill_md = published_file(&name, SKILL_MD, 0o644, skill.skill_md().clone());
        let mut files: Vec<PublishedFile> = skill
            .files()
            .iter()
            .map(|f| published_file(&name, f.path(), f.mode(), f.bytes().clone()))
            .collect();
        files.sort_by(|a, b| a.relative.cmp(&b.relative));
        let mut published = PublishedSkill {
            frontmatter,
            skill_md,
            files,
            archives: None,
            url: String::new(),
            file,
        };
        if !published.files.is_empty() {
            let archives = build_archives(&published).map_err(|message| {
                vec![Error::new(
                    &name,
                    &published.file,
                    None,
                    ErrorKind::Archive { message },
                )]
            })?;
            published.archives = Some(archives);
        }
        let relative = match published.archives {
            Some(_) => format!("{name}{}", self.archive_format.suffix()),
            None => format!("{name}/{SKILL_MD}"),
        };
        published.url = self.url_style.url_under(&self.base_path, &relative);
        Ok(published)
    }
}

/// The 0.1.0 index and every file of every skill under `/.well-known/skills/`.
fn legacy_artifacts(skills: &[PublishedSkill]) -> Vec<Artifact> {
    let entries: Vec<legacy::Entry<'_>> = skills
        .iter()
        .map(|skill| {
            let mut files = vec![SKILL_MD];
            files.extend(skill.files.iter().map(|f| f.relative.as_str()));
            legacy::Entry {
                name: skill.name(),
                description: skill.frontmatter.description(),
                files,
            }
        })
        .collect();
    let index = Bytes::from(legacy::render(&entries));
    let mut artifacts = vec![Artifact::new(
        LEGACY_INDEX_PATH.to_owned(),
        media::JSON,
        index,
    )];
    for skill in skills {
        for file in skill.all_files() {
            let path = format!("{LEGACY_PATH}{}/{}", skill.name(), file.relative);
            artifacts.push(file.artifact.published_at(path));
        }
    }
    artifacts
}

fn published_file(name: &str, relative: &str, mode: u32, bytes: Bytes) -> PublishedFile {
    PublishedFile {
        relative: relative.to_owned(),
        mode,
        artifact: Artifact::new(
            format!("{WELL_KNOWN_PATH}{name}/{relative}"),
            media::media_type(relative, &bytes),
            bytes,
        ),
    }
}

/// Checks every supporting file's path, duplicates, case collisions and the skill's limits.
fn check_files(skill: &Skill, name: &str) -> Vec<Error> {
    let mut errors = Vec::new();
    let mut report =
        |path: &str, kind| errors.push(Error::new(name, &skill.file_label(path), None, kind));
    let mut seen: HashMap<String, &str> = HashMap::new();
    seen.insert(SKILL_MD.to_ascii_lowercase(), SKILL_MD);
    let mut bytes = skill.skill_md().len() as u64;
    for file in skill.files() {
        let path = file.path();
        bytes += file.bytes().len() as u64;
        if let Err(problem) = validate_file_path(path) {
            report(path, ErrorKind::FilePath { problem });
            continue;
        }
        match seen.insert(path.to_ascii_lowercase(), path) {
            Some(other) if other == path => report(path, ErrorKind::DuplicateFile),
            Some(other) => report(
                path,
                ErrorKind::CaseCollision {
                    other: other.to_owned(),
                },
            ),
            None => {}
        }
    }
    let paths: std::collections::HashSet<&str> = skill.files().iter().map(|f| f.path()).collect();
    for file in skill.files() {
        let path = file.path();
        let blocking = path
            .match_indices('/')
            .map(|(at, _)| &path[..at])
            .find(|folder| paths.contains(folder));
        if let Some(folder) = blocking {
            report(
                path,
                ErrorKind::FileUsedAsFolder {
                    file: folder.to_owned(),
                },
            );
        }
    }
    let count = skill.files().len() + 1;
    if count > MAX_FILES_PER_SKILL {
        report(
            SKILL_MD,
            ErrorKind::TooManyFiles {
                count,
                limit: MAX_FILES_PER_SKILL,
            },
        );
    }
    if bytes > MAX_BYTES_PER_SKILL {
        report(
            SKILL_MD,
            ErrorKind::TooLarge {
                bytes,
                limit: MAX_BYTES_PER_SKILL,
                largest: largest_files(
                    std::iter::once((SKILL_MD, skill.skill_md().len() as u64)).chain(
                        skill
                            .files()
                            .iter()
                            .map(|f| (f.path(), f.bytes().len() as u64)),
                    ),
                ),
            },
        );
    }
    errors
}

/// Builds the `.tar.gz` and `.zip` of a skill's files.
fn build_archives(skill: &PublishedSkill) -> Result<[Artifact; 2], String> {
    let entries: Vec<archive::Entry<'_>> = skill
        .all_files()
        .map(|file| archive::Entry {
            path: &file.relative,
            bytes: file.artifact.bytes(),
            mode: file.mode,
        })
        .collect();
    let name = skill.name();
    let tar_gz = archive::tar_gz(&entries).map_err(|e| e.to_string())?;
    let zip = archive::zip(&entries).map_err(|e| e.to_string())?;
    Ok([
        Artifact::new(
            format!("{WELL_KNOWN_PATH}{name}{}", archive::TAR_GZ_SUFFIX),
            media::GZIP,
            Bytes::from(tar_gz),
        ),
        Artifact::new(
            format!("{WELL_KNOWN_PATH}{name}{}", archive::ZIP_SUFFIX),
            media::ZIP,
            Bytes::from(zip),
        ),
    ])
}
