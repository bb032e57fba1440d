//! The catalog: every skill validated, hashed, archived and indexed once, then shared read-only.

use std::num::NonZeroUsize;
use std::sync::Arc;

use bytes::Bytes;

use crate::api_catalog;
use crate::archive;
use crate::digest::Digest;
use crate::error::{Error, ErrorKind, Errors};
use crate::file::SKILL_MD_MODE;
#[cfg(feature = "fs")]
use crate::folder::skipped::Skipped;
use crate::frontmatter::Frontmatter;
use crate::index::{self, ArchiveFormat, ArtifactKind, UrlStyle};
use crate::legacy;
use crate::media;
use crate::parallel;
use crate::paths::base_path;
use crate::paths::{
    self, API_CATALOG_PATH, INDEX_PATH, LEGACY_INDEX_PATH, LEGACY_PATH, SKILL_MD, TAR_GZ_SUFFIX,
    WELL_KNOWN_PATH, ZIP_SUFFIX,
};
use crate::skill::{BuiltArchives, Skill};
use crate::skill_files;
use crate::skill_md::{Label, NO_FOLDER, SkillMd, SkillMdParser};

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
        Self::hashed(path, media_type, bytes, digest)
    }

    /// An artifact whose bytes were hashed already: `digest` is `Digest::of(&bytes)`.
    fn hashed(path: String, media_type: &'static str, bytes: Bytes, digest: Digest) -> Self {
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

    /// The index `type`: [`ArtifactKind::Archive`] for a skill with supporting files, else
    /// [`ArtifactKind::SkillMd`].
    #[must_use]
    pub fn kind(&self) -> ArtifactKind {
        if self.archives.is_some() {
            ArtifactKind::Archive
        } else {
            ArtifactKind::SkillMd
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
/// Building a catalog parses each `SKILL.md` and checks it against the Agent Skills
/// specification and the discovery draft (the pipeline of [`SkillMd::parse`]), checks every
/// supporting file, builds the archives
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
    /// use skillpub_core::{Catalog, index::UrlStyle};
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
    /// ([`Catalog::from_dir`], [`SkillsFolder::builder`](crate::folder::SkillsFolder::builder)):
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
/// use skillpub_core::{Catalog, Skill, index::{ArchiveFormat, UrlStyle}};
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
    parser: SkillMdParser,
    legacy_index: bool,
    api_catalog: bool,
    base_path: String,
    /// At most this many threads; `None` for every core.
    threads: Option<NonZeroUsize>,
    /// What the folder walk left out, when the skills came from
    /// [`SkillsFolder::builder`](crate::folder::SkillsFolder::builder).
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
    /// [`Frontmatter::json`]. See [`SkillMdParser::allow_unknown_fields`].
    pub fn allow_unknown_fields(&mut self, allow: bool) -> &mut Self {
        self.parser = self.parser.allow_unknown_fields(allow);
        self
    }

    /// At most this many threads check, hash and archive the skills (default: every core the
    /// process may run on, [`std::thread::available_parallelism`]).
    ///
    /// Different skills are worked on at once, each on one thread; a build with little to do
    /// (the estimate counts bytes to hash, frontmatters to parse and archives to compress)
    /// stays on the calling thread, since starting a thread costs more than hashing a few
    /// hundred kilobytes. The catalog is the same, byte for byte and error for error, whatever
    /// the number.
    ///
    /// # Example
    ///
    /// ```
    /// use std::num::NonZeroUsize;
    /// use skillpub_core::{Catalog, Skill};
    ///
    /// let skill = Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n");
    /// let one = Catalog::builder().skill(skill.clone()).threads(NonZeroUsize::MIN).build()?;
    /// let many = Catalog::builder().skill(skill).threads(NonZeroUsize::new(8).unwrap()).build()?;
    /// assert_eq!(one.index(), many.index());
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn threads(&mut self, threads: NonZeroUsize) -> &mut Self {
        self.threads = Some(threads);
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
        let skills = self.publish_all(self.checked()?)?;
        let index = self.index(&skills);
        let extra = self.extra(&skills);
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

    /// Runs every rule [`build`](Self::build) runs and builds nothing (no archive or index;
    /// the only digest is of a `SKILL.md` whose frontmatter `skillpub-build` parsed, to know
    /// it is the same file), for linters and build scripts that only need the verdict.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    ///
    /// let mut builder = Catalog::builder();
    /// builder.skill(Skill::from_static_in("skills/pdf", "---\nname: PDF\ndescription: d\n---\n"));
    /// let errors = builder.check().unwrap_err();
    /// assert_eq!(errors.as_slice()[0].field(), Some("name"));
    /// ```
    ///
    /// # Errors
    ///
    /// The same problems as [`build`](Self::build), in the same order.
    pub fn check(&self) -> Result<(), Errors> {
        self.checked().map(drop)
    }

    /// Every rule, in order: the options, each skill, then names across skills. The skills
    /// come back sorted by name.
    fn checked(&self) -> Result<Vec<Checked<'_>>, Errors> {
        let mut errors = self.option_problems();
        let mut skills = Vec::with_capacity(self.skills.len());
        let threads = self.threads_for(self.skills.iter().map(check_work).sum());
        let each = parallel::map(
            self.skills.iter().enumerate().collect(),
            threads,
            |(position, skill)| self.check_skill(skill, position),
        );
        for checked in each {
            match checked {
                Ok(checked) => skills.push(checked),
                Err(mut problems) => errors.append(&mut problems),
            }
        }
        skills.sort_by(|a, b| a.skill_md.name().cmp(b.skill_md.name()));
        errors.extend(duplicate_names(&skills));
        if errors.is_empty() {
            Ok(skills)
        } else {
            Err(Errors::new(errors))
        }
    }

    fn option_problems(&self) -> Vec<Error> {
        let problem = base_path::validate_base_path(&self.base_path).err();
        problem
            .into_iter()
            .map(|problem| {
                let base_path = self.base_path.clone();
                Error::option("base_path", ErrorKind::BasePath { base_path, problem })
            })
            .collect()
    }

    /// How many threads to use for this much work (in bytes to hash, see [`check_work`] and
    /// [`publish_work`]): one per [`WORK_PER_THREAD`], at most [`threads`](Self::threads).
    fn threads_for(&self, work: usize) -> NonZeroUsize {
        parallel::threads(work / WORK_PER_THREAD, self.threads)
    }

    /// One skill's own rules: its `SKILL.md` through the parser, then its supporting files.
    /// A frontmatter parsed at build time is read when the `SKILL.md` is the one it was parsed
    /// from; the digest that shows it is kept for the artifact.
    fn check_skill<'a>(
        &self,
        skill: &'a Skill,
        position: usize,
    ) -> Result<Checked<'a>, Vec<Error>> {
        let label = label(skill, position);
        let bytes = skill.skill_md().clone();
        let built = skill.built().frontmatter;
        let skill_md_digest = built.map(|_| Digest::of(&bytes));
        let skill_md = match (built, skill_md_digest) {
            (Some(parsed), Some(digest)) if *digest.as_bytes() == parsed.skill_md => self
                .parser
                .read_parsed(bytes, parsed.json, skill.folder_name()),
            _ => self.parser.read(bytes, skill.folder_name()),
        };
        let name = match &skill_md {
            Ok(skill_md) => skill_md.name(),
            Err(problems) => problems.name.as_deref().unwrap_or(&label.skill),
        };
        let file_problems: Vec<Error> = skill_files::check(skill.skill_md(), skill.files())
            .into_iter()
            .map(|(path, kind)| Error::new(name, &skill.file_label(&path), None, kind))
            .collect();
        match skill_md {
            Ok(skill_md) if file_problems.is_empty() => Ok(Checked {
                skill,
                skill_md,
                skill_md_digest,
                file: label.file,
            }),
            Ok(_) => Err(file_problems),
            Err(problems) => {
                let mut errors = problems.into_errors(&label);
                errors.extend(file_problems);
                Err(errors)
            }
        }
    }

    fn publish_all(&self, checked: Vec<Checked<'_>>) -> Result<Vec<PublishedSkill>, Errors> {
        let mut skills = Vec::with_capacity(checked.len());
        let mut errors = Vec::new();
        let threads = self.threads_for(checked.iter().map(|c| publish_work(c.skill)).sum());
        for published in parallel::map(checked, threads, |checked| self.publish(checked)) {
            match published {
                Ok(published) => skills.push(published),
                Err(problems) => errors.extend(problems),
            }
        }
        if errors.is_empty() {
            Ok(skills)
        } else {
            Err(Errors::new(errors))
        }
    }

    /// Makes a checked skill servable: its files as artifacts, its archives when it has
    /// supporting files, and the `url` the index gives.
    fn publish(&self, checked: Checked<'_>) -> Result<PublishedSkill, Errors> {
        let built = checked.skill.built().archives;
        let mut published = published_skill(checked);
        published.archives = archives(&published, built)?;
        published.url = self.url(&published);
        Ok(published)
    }

    /// The `url` the index gives a skill: its archive's, or its `SKILL.md`'s.
    fn url(&self, skill: &PublishedSkill) -> String {
        let name = skill.name();
        let relative = match skill.archives {
            Some(_) => format!("{name}{}", self.archive_format.suffix()),
            None => format!("{name}/{SKILL_MD}"),
        };
        self.url_style.url_under(&self.base_path, &relative)
    }

    /// The rendered `index.json`.
    fn index(&self, skills: &[PublishedSkill]) -> Artifact {
        let entries: Vec<index::Entry<'_>> = skills
            .iter()
            .map(|skill| index::Entry {
                name: skill.name(),
                kind: skill.kind().as_str(),
                description: skill.frontmatter.description(),
                url: &skill.url,
                digest: self.listed(skill).digest().to_string(),
            })
            .collect();
        Artifact::new(
            INDEX_PATH.to_owned(),
            media::JSON,
            Bytes::from(index::render(&entries)),
        )
    }

    /// The legacy 0.1.0 index and files, and the API catalog, when enabled.
    fn extra(&self, skills: &[PublishedSkill]) -> Vec<Artifact> {
        let mut extra = Vec::new();
        if self.legacy_index {
            extra.extend(legacy_artifacts(skills));
        }
        if self.api_catalog {
            let bytes = Bytes::from(api_catalog::render(&self.url_style, &self.base_path));
            extra.push(Artifact::new(
                API_CATALOG_PATH.to_owned(),
                media::LINKSET,
                bytes,
            ));
        }
        extra
    }

    /// The artifact the index lists for a skill.
    fn listed<'a>(&self, skill: &'a PublishedSkill) -> &'a Artifact {
        skill
            .archive(self.archive_format)
            .unwrap_or(&skill.skill_md.artifact)
    }
}

/// A skill that passed its own rules, with how errors name its `SKILL.md`.
struct Checked<'a> {
    skill: &'a Skill,
    skill_md: SkillMd,
    /// The digest of the `SKILL.md`, when checking it needed it.
    skill_md_digest: Option<Digest>,
    file: String,
}

/// How much work a thread should have before another is started, in bytes to hash (about half
/// a millisecond of SHA-256 on one core; starting a thread costs tens of microseconds).
const WORK_PER_THREAD: usize = 1 << 20;

/// Parsing a YAML frontmatter costs about as much as hashing this many bytes.
const PARSE_WORK: usize = 16 << 10;

/// Deflating a byte costs about as much as hashing this many.
const DEFLATE_WORK: usize = 32;

/// The work of checking a skill, for [`CatalogBuilder::threads_for`]: its frontmatter, parsed
/// from YAML or read from the JSON parsed at build time (which needs the `SKILL.md` hashed).
fn check_work(skill: &Skill) -> usize {
    match skill.built().frontmatter {
        Some(_) => skill.skill_md().len(),
        None => PARSE_WORK,
    }
}

/// The work of publishing a skill: hashing every file, and its archives, which are hashed when
/// they were built ahead of time and else deflated from every file.
fn publish_work(skill: &Skill) -> usize {
    let files: usize = skill.files().iter().map(|file| file.bytes().len()).sum();
    let all = files + skill.skill_md().len();
    let archives = match skill.built().archives {
        _ if skill.files().is_empty() => 0,
        Some(built) => built.tar_gz.len() + built.zip.len(),
        None => 2 * DEFLATE_WORK * all,
    };
    all + archives
}

/// How errors name a skill given in memory: by its folder, or by its position without one.
fn label(skill: &Skill, position: usize) -> Label {
    let unnamed = || format!("#{} {NO_FOLDER}", position + 1);
    let file = match skill.folder() {
        Some(_) => skill.file_label(SKILL_MD),
        None => format!("{SKILL_MD} of skill {}", unnamed()),
    };
    match skill.folder_name() {
        Some(name) => Label::new(file, name),
        None => Label::new(file, &unnamed()),
    }
}

/// One error for each skill whose name an earlier skill (by name order) has too.
fn duplicate_names(sorted: &[Checked<'_>]) -> Vec<Error> {
    sorted
        .windows(2)
        .filter(|pair| pair[0].skill_md.name() == pair[1].skill_md.name())
        .map(|pair| {
            let name = pair[1].skill_md.name();
            Error::new(
                name,
                &pair[1].file,
                Some("name"),
                ErrorKind::DuplicateName {
                    name: name.to_owned(),
                    other_file: pair[0].file.clone(),
                },
            )
        })
        .collect()
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

/// A checked skill's `SKILL.md` and supporting files (sorted) as artifacts; no archive or
/// `url` yet.
fn published_skill(checked: Checked<'_>) -> PublishedSkill {
    let Checked {
        skill,
        skill_md,
        skill_md_digest,
        file,
    } = checked;
    let name = skill_md.name();
    let bytes = skill_md.bytes().clone();
    // The parser has read it as UTF-8 (or its digest is that of a file read so at build time),
    // so it is Markdown text.
    let digest = skill_md_digest.unwrap_or_else(|| Digest::of(&bytes));
    let skill_md_file = PublishedFile {
        relative: SKILL_MD.to_owned(),
        mode: SKILL_MD_MODE,
        artifact: Artifact::hashed(paths::skill_md_path(name), media::MARKDOWN, bytes, digest),
    };
    let mut files: Vec<PublishedFile> = skill
        .files()
        .iter()
        .map(|f| published_file(name, f.path(), f.mode(), f.bytes().clone()))
        .collect();
    files.sort_by(|a, b| a.relative.cmp(&b.relative));
    PublishedSkill {
        frontmatter: skill_md.into_frontmatter(),
        skill_md: skill_md_file,
        files,
        archives: None,
        url: String::new(),
        file,
    }
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

/// The archives of a skill with supporting files; none for a skill that is only a `SKILL.md`.
/// Archives built ahead of time are served when they were built from these very files.
fn archives(
    skill: &PublishedSkill,
    built: Option<BuiltArchives>,
) -> Result<Option<[Artifact; 2]>, Errors> {
    if skill.files.is_empty() {
        return Ok(None);
    }
    if let Some(built) = built {
        let key = archive::key(
            skill
                .all_files()
                .map(|f| (f.relative.as_str(), f.mode, f.artifact.digest)),
        );
        if *key.as_bytes() == built.key {
            let bytes = [built.tar_gz, built.zip].map(Bytes::from_static);
            return Ok(Some(archive_artifacts(skill.name(), bytes)));
        }
    }
    build_archives(skill).map(Some).map_err(|message| {
        let kind = ErrorKind::Archive { message };
        Errors::new(vec![Error::new(skill.name(), &skill.file, None, kind)])
    })
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
    let tar_gz = archive::tar_gz(&entries).map_err(|e| e.to_string())?;
    let zip = archive::zip(&entries).map_err(|e| e.to_string())?;
    Ok(archive_artifacts(
        skill.name(),
        [Bytes::from(tar_gz), Bytes::from(zip)],
    ))
}

/// The `.tar.gz` and `.zip` of the skill `name`, as artifacts.
fn archive_artifacts(name: &str, [tar_gz, zip]: [Bytes; 2]) -> [Artifact; 2] {
    [
        Artifact::new(
            format!("{WELL_KNOWN_PATH}{name}{}", TAR_GZ_SUFFIX),
            media::GZIP,
            tar_gz,
        ),
        Artifact::new(
            format!("{WELL_KNOWN_PATH}{name}{}", ZIP_SUFFIX),
            media::ZIP,
            zip,
        ),
    ]
}
