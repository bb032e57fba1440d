//! The published model: a [`Catalog`] and what it holds, every skill as [`PublishedSkill`]
//! with its files as [`PublishedFile`] and every served path as an [`Artifact`]. Immutable
//! once built; the builder in `builder.rs` and `publish.rs` makes it.

use std::sync::Arc;

use bytes::Bytes;

use crate::digest::Digest;
use crate::frontmatter::Frontmatter;
use crate::index::{ArchiveFormat, ArtifactKind};
use crate::paths::{
    self, AddressedPath, BasePath, LEGACY_INDEX_PATH, SKILL_MD, TAR_GZ_SUFFIX, ZIP_SUFFIX,
};
#[cfg(feature = "fs")]
use crate::skipped::Skipped;

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
    /// Boxed, so that it holds no room to grow: a catalog keeps one for every file.
    path: Box<str>,
    /// The path that names the digest, for an artifact an index entry can name.
    addressed: Option<Box<str>>,
    media_type: &'static str,
    bytes: Bytes,
    digest: Digest,
}

impl Artifact {
    pub(super) fn new(path: String, media_type: &'static str, bytes: Bytes) -> Self {
        let digest = Digest::of(&bytes);
        Self::hashed(path, media_type, bytes, digest)
    }

    /// An artifact whose bytes were hashed already: `digest` is `Digest::of(&bytes)`.
    pub(super) fn hashed(
        path: String,
        media_type: &'static str,
        bytes: Bytes,
        digest: Digest,
    ) -> Self {
        Self {
            path: path.into_boxed_str(),
            addressed: None,
            media_type,
            bytes,
            digest,
        }
    }

    /// The same artifact, also served at its [addressed path](Self::addressed_path).
    pub(super) fn addressed(mut self) -> Self {
        self.addressed = paths::addressed_path(&self.path, self.digest).map(String::into_boxed_str);
        self
    }

    /// The same bytes, type and digest at another path (no second hash), which is not
    /// addressed.
    pub(super) fn published_at(&self, path: String) -> Self {
        Self {
            path: path.into_boxed_str(),
            addressed: None,
            ..self.clone()
        }
    }

    /// The path the router serves it at, such as `/.well-known/agent-skills/pdf/SKILL.md`;
    /// the same under a [base path](crate::CatalogBuilder::base_path), which `nest` strips.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The path that names its digest, such as
    /// `/.well-known/agent-skills/sha256-<hex>/pdf/SKILL.md` (see
    /// [`paths::addressed_path`]): the bytes served there never change, so answers there may
    /// be cached for good. Every `SKILL.md` and archive has one, since an index entry can name
    /// them; the index, the supporting files, the legacy layout and the API catalog have
    /// none. Like [`path`](Self::path), it is the path the router serves, without the
    /// [base path](crate::CatalogBuilder::base_path).
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    ///
    /// let catalog = Catalog::new([Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n")])?;
    /// let skill_md = catalog.get("pdf").unwrap().skill_md();
    /// let hex = skill_md.digest().hex();
    /// assert_eq!(
    ///     skill_md.addressed_path().unwrap(),
    ///     format!("/.well-known/agent-skills/sha256-{hex}/pdf/SKILL.md"),
    /// );
    /// assert_eq!(catalog.index().addressed_path(), None);
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[must_use]
    pub fn addressed_path(&self) -> Option<&str> {
        self.addressed.as_deref()
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
    pub(super) relative: String,
    pub(super) mode: u32,
    pub(super) artifact: Artifact,
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
    pub(super) frontmatter: Frontmatter,
    pub(super) skill_md: PublishedFile,
    pub(super) files: Vec<PublishedFile>,
    pub(super) archives: Option<[Artifact; 2]>,
    pub(super) url: Box<str>,
    /// How errors refer to the `SKILL.md` this came from.
    pub(super) file: String,
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

    /// The `url` the index gives for this skill, with the
    /// [base path](crate::CatalogBuilder::base_path): the
    /// [addressed path](Artifact::addressed_path) of its listed artifact (unless
    /// [`CatalogBuilder::addressed_urls`](crate::CatalogBuilder::addressed_urls) is off), in
    /// the catalog's [`UrlStyle`](crate::index::UrlStyle).
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The path the router serves the `SKILL.md` at: `/.well-known/agent-skills/{name}/SKILL.md`
    /// (behind a [base path](crate::CatalogBuilder::base_path), clients reach it under that
    /// prefix).
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
/// specification and the discovery draft (the pipeline of
/// [`SkillMd::parse`](crate::SkillMd::parse)), checks every supporting file, builds the
/// archives of skills that have supporting files, and reports every problem of every skill at
/// once.
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
/// let digest = catalog.get("greeting").unwrap().skill_md().digest();
/// assert_eq!(
///     index["skills"][0]["url"],
///     format!("/.well-known/agent-skills/sha256-{}/greeting/SKILL.md", digest.hex()),
/// );
/// assert_eq!(index["skills"][0]["digest"], digest.to_string());
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone)]
pub struct Catalog(pub(super) Arc<Inner>);

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) skills: Vec<PublishedSkill>,
    pub(super) index: Artifact,
    /// The 0.1.0 index and files, and the API catalog, when enabled.
    pub(super) extra: Vec<Artifact>,
    /// What the folder walk left out, for a catalog read from disk.
    #[cfg(feature = "fs")]
    pub(super) skipped: Vec<Skipped>,
    pub(super) base_path: BasePath,
    pub(super) index_url: String,
}

impl Catalog {
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

    /// The artifact served at the [addressed path](Artifact::addressed_path) `path`: `None`
    /// for a path that is not addressed, or that names a digest this catalog does not serve
    /// there (an old `SKILL.md` after an edit, say), never an artifact with other bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Digest, Skill, paths::addressed_path};
    ///
    /// let catalog = Catalog::new([Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n")])?;
    /// let skill_md = catalog.get("pdf").unwrap().skill_md();
    /// let path = skill_md.addressed_path().unwrap();
    /// assert_eq!(catalog.addressed(path), Some(skill_md));
    /// let stale = addressed_path(skill_md.path(), Digest::of(b"older bytes")).unwrap();
    /// assert_eq!(catalog.addressed(&stale), None);
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[must_use]
    pub fn addressed(&self, path: &str) -> Option<&Artifact> {
        let addressed = AddressedPath::parse(path)?;
        let relative = addressed.relative();
        let artifact = if let Some(name) = relative.strip_suffix(TAR_GZ_SUFFIX) {
            self.get(name)?.archive(ArchiveFormat::TarGz)?
        } else if let Some(name) = relative.strip_suffix(ZIP_SUFFIX) {
            self.get(name)?.archive(ArchiveFormat::Zip)?
        } else {
            let name = relative.strip_suffix(SKILL_MD)?.strip_suffix('/')?;
            self.get(name)?.skill_md()
        };
        (artifact.addressed_path() == Some(path)).then_some(artifact)
    }

    /// Every path served and its artifact: each artifact of [`artifacts`](Self::artifacts)
    /// at its path, then at its [addressed path](Artifact::addressed_path) when it has one.
    /// What a server or a static export must answer, path by path.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    ///
    /// let catalog = Catalog::new([Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n")])?;
    /// let hex = catalog.get("pdf").unwrap().skill_md().digest().hex();
    /// let paths: Vec<&str> = catalog.served().map(|(path, _)| path).collect();
    /// assert_eq!(paths, [
    ///     "/.well-known/agent-skills/index.json".to_owned(),
    ///     "/.well-known/agent-skills/pdf/SKILL.md".to_owned(),
    ///     format!("/.well-known/agent-skills/sha256-{hex}/pdf/SKILL.md"),
    /// ]);
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn served(&self) -> impl Iterator<Item = (&str, &Artifact)> {
        self.artifacts().flat_map(|artifact| {
            std::iter::once(artifact.path())
                .chain(artifact.addressed_path())
                .map(move |path| (path, artifact))
        })
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
    /// [`CatalogBuilder::base_path`](crate::CatalogBuilder::base_path) and checked when the
    /// catalog was built; empty for the site root. Give it to skillpub-axum's `Link` layer as
    /// it is (`AgentSkillsLinkLayer::base_path`).
    #[must_use]
    pub fn base_path(&self) -> &BasePath {
        &self.0.base_path
    }

    /// Where clients find the index from any page of the site, for a `Link` header: the
    /// base path and `/.well-known/agent-skills/index.json`, after the origin with
    /// [`UrlStyle::Absolute`](crate::index::UrlStyle::Absolute) (path-absolute for the other
    /// styles, since a relative reference would resolve differently from every page).
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
