//! The build pipeline's options and checks: a [`CatalogBuilder`] holds the skills and the
//! options, runs every rule on every skill (in parallel when there is enough work) and hands
//! the checked skills to `publish.rs`, which makes the catalog.

use std::num::NonZeroUsize;
use std::sync::Arc;

use super::model::{Catalog, Inner};
use crate::digest::Digest;
use crate::error::{Error, ErrorKind, Errors};
use crate::frontmatter::Frontmatter;
use crate::index::{ArchiveFormat, UrlStyle};
use crate::parallel;
use crate::paths::{BasePath, INDEX_PATH, SKILL_MD};
use crate::security;
use crate::skill::Skill;
use crate::skill_files;
use crate::skill_md::{Label, NO_FOLDER, SkillMd, SkillMdParser};
#[cfg(feature = "fs")]
use crate::skipped::Skipped;

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
/// let hex = catalog.get("a").unwrap().skill_md().digest().hex();
/// assert_eq!(catalog.get("a").unwrap().url(), format!("sha256-{hex}/a/SKILL.md"));
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone)]
pub struct CatalogBuilder {
    skills: Vec<Skill>,
    pub(super) url_style: UrlStyle,
    pub(super) archive_format: ArchiveFormat,
    /// Whether index `url`s name addressed paths; see [`CatalogBuilder::addressed_urls`].
    pub(super) addressed_urls: bool,
    parser: SkillMdParser,
    pub(super) legacy_index: bool,
    pub(super) api_catalog: bool,
    pub(super) base_path: String,
    /// At most this many threads; `None` for every core.
    threads: Option<NonZeroUsize>,
    /// What the folder walk left out, when the skills came from
    /// [`SkillsFolder::builder`](crate::folder::SkillsFolder::builder).
    #[cfg(feature = "fs")]
    pub(crate) skipped: Vec<Skipped>,
}

impl Default for CatalogBuilder {
    fn default() -> Self {
        Self {
            skills: Vec::new(),
            url_style: UrlStyle::default(),
            archive_format: ArchiveFormat::default(),
            addressed_urls: true,
            parser: SkillMdParser::default(),
            legacy_index: false,
            api_catalog: false,
            base_path: String::new(),
            threads: None,
            #[cfg(feature = "fs")]
            skipped: Vec::new(),
        }
    }
}

impl CatalogBuilder {
    /// An empty builder: path-absolute, addressed URLs at the site root, `.tar.gz` archives in
    /// the index, unknown frontmatter fields refused.
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

    /// Whether each index `url` names the [addressed path](crate::catalog::Artifact::addressed_path)
    /// of its artifact, `sha256-<hex>/pdf/SKILL.md` rather than `pdf/SKILL.md` (default:
    /// `true`).
    ///
    /// The bytes at an addressed path never change, so a cache can keep them for good and can
    /// never pair an index with other bytes than the ones its digest names: a client that
    /// fetched an index before a deploy either gets the bytes that index lists, or a `404` it
    /// can retry, never a digest mismatch. Both paths are served either way, and the canonical
    /// ones (`/.well-known/agent-skills/pdf/SKILL.md`, the draft's convention) keep serving the
    /// current bytes for clients that build URLs by hand; turn this off only for a client
    /// that cannot follow an index `url` as written.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    ///
    /// let skill = Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n");
    /// let catalog = Catalog::new([skill.clone()])?;
    /// let hex = catalog.get("pdf").unwrap().skill_md().digest().hex();
    /// assert_eq!(catalog.get("pdf").unwrap().url(), format!("/.well-known/agent-skills/sha256-{hex}/pdf/SKILL.md"));
    ///
    /// let canonical = Catalog::builder().skill(skill).addressed_urls(false).build()?;
    /// assert_eq!(canonical.get("pdf").unwrap().url(), "/.well-known/agent-skills/pdf/SKILL.md");
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn addressed_urls(&mut self, addressed: bool) -> &mut Self {
        self.addressed_urls = addressed;
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
    /// (`/tenant/.well-known/agent-skills/sha256-<hex>/pdf/SKILL.md`) and absolute
    /// (`https://example.com/tenant/...`) styles, the API catalog's links and
    /// [`Catalog::index_url`] for the `Link` header. A [`UrlStyle::Relative`] `url` stays
    /// relative: it resolves against the index, which is under the prefix already. The 0.1.0
    /// index has no URLs (its files are relative to it), so it does not change. The paths
    /// the router serves ([`Artifact::path`](crate::catalog::Artifact::path)) do not change
    /// either, because `nest` strips the prefix before the router sees a request.
    ///
    /// The prefix is checked once, by [`build`](Self::build), with the rule of
    /// [`BasePath`](crate::paths::BasePath): it starts with `/`, does not end with one, and its
    /// segments are not empty, `.` or `..` and hold only ASCII letters, digits, `-`, `.`, `_`
    /// and `~` (no `%`-encoding). The catalog's [`base_path`](Catalog::base_path) is then the
    /// checked value, for the `Link` layer.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, ErrorKind, Skill};
    ///
    /// let skill = Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n");
    /// let catalog = Catalog::builder().skill(skill.clone()).base_path("/tenant").build()?;
    /// let skill_md = catalog.get("pdf").unwrap().skill_md();
    /// assert_eq!(catalog.get("pdf").unwrap().url(), format!("/tenant{}", skill_md.addressed_path().unwrap()));
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
    /// [`Frontmatter::json`](crate::Frontmatter::json). See
    /// [`SkillMdParser::allow_unknown_fields`].
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
        let (base_path, checked) = self.checked()?;
        let skills = self.publish_all(checked)?;
        let index = self.index(&skills);
        let extra = self.extra(&skills);
        Ok(Catalog(Arc::new(Inner {
            skills,
            index,
            extra,
            #[cfg(feature = "fs")]
            skipped: self.skipped.clone(),
            index_url: self.url_style.link_to(base_path.as_str(), INDEX_PATH),
            base_path,
        })))
    }

    /// Runs every rule [`build`](Self::build) runs and builds nothing (no archive or index;
    /// the only digests are of a `SKILL.md` whose frontmatter `skillpub-build` parsed, to know
    /// it is the same file, and of the files of a skill it reviewed for credentials, to know
    /// they are the ones it reviewed), for linters and build scripts that only need the
    /// verdict.
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
        // A skill without a review key was reviewed by `checked`; one with a key is reviewed
        // only if its files are not the ones the key was made from, which hashing them tells.
        let checked = self.checked()?.1;
        let keyed: Vec<&Checked<'_>> = checked.iter().filter(|c| c.reviewed.is_some()).collect();
        let work = keyed.iter().map(|checked| hash_work(checked.skill)).sum();
        let each = parallel::map(keyed, self.threads_for(work), |checked| {
            let skill = checked.skill;
            let files = skill.files().iter();
            let digests = files.map(|file| (file.path(), Digest::of(file.bytes())));
            let skill_md = (SKILL_MD, Digest::of(skill.skill_md()));
            let frontmatter = checked.skill_md.frontmatter();
            let all = digests.chain([skill_md]);
            secrets_unless_reviewed(skill, checked.reviewed, frontmatter, &checked.file, all)
        });
        let errors: Vec<Error> = each.into_iter().flatten().collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Errors::new(errors))
        }
    }

    /// Every rule, in order: the options, each skill, then names across skills. The base
    /// path and the skills come back checked, the skills sorted by name.
    fn checked(&self) -> Result<(BasePath, Vec<Checked<'_>>), Errors> {
        let (base_path, mut errors) = match BasePath::new(self.base_path.as_str()) {
            Ok(base_path) => (base_path, Vec::new()),
            Err(invalid) => {
                let kind = ErrorKind::BasePath {
                    base_path: invalid.path().to_owned(),
                    problem: invalid.problem().clone(),
                };
                (BasePath::default(), vec![Error::option("base_path", kind)])
            }
        };
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
            Ok((base_path, skills))
        } else {
            Err(Errors::new(errors))
        }
    }

    /// How many threads to use for this much work (in bytes to hash, see [`check_work`] here
    /// and `publish_work` in `publish.rs`): one per [`WORK_PER_THREAD`], at most
    /// [`threads`](Self::threads).
    pub(super) fn threads_for(&self, work: usize) -> NonZeroUsize {
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
        let mut file_problems: Vec<Error> = skill_files::check(skill.skill_md(), skill.files())
            .into_iter()
            .map(|(path, kind)| Error::new(name, &skill.file_label(&path), None, kind))
            .collect();
        let reviewed = skill.built().reviewed;
        if let (Ok(skill_md), None) = (&skill_md, reviewed) {
            file_problems.extend(secrets(skill, skill_md.frontmatter(), &label.file));
        }
        match skill_md {
            Ok(skill_md) if file_problems.is_empty() => Ok(Checked {
                skill,
                skill_md,
                skill_md_digest,
                file: label.file,
                reviewed,
            }),
            Ok(_) => Err(file_problems),
            Err(problems) => {
                let mut errors = problems.into_errors(&label);
                errors.extend(file_problems);
                Err(errors)
            }
        }
    }
}

/// A skill that passed its own rules, with how errors name its `SKILL.md`.
pub(super) struct Checked<'a> {
    pub(super) skill: &'a Skill,
    pub(super) skill_md: SkillMd,
    /// The digest of the `SKILL.md`, when checking it needed it.
    pub(super) skill_md_digest: Option<Digest>,
    pub(super) file: String,
    /// The review key `skillpub-build` recorded for the files it reviewed for credentials:
    /// their review is left until their digests are known, and done only if the key differs.
    pub(super) reviewed: Option<[u8; 32]>,
}

/// The credentials in a skill's files, unless they are the files `skillpub-build` reviewed
/// (`reviewed` is the key it recorded): `digests` gives each file's path and digest,
/// `SKILL.md` included, and the review runs only when their key is not that one.
pub(super) fn secrets_unless_reviewed<'d>(
    skill: &Skill,
    reviewed: Option<[u8; 32]>,
    frontmatter: &Frontmatter,
    skill_md_file: &str,
    digests: impl IntoIterator<Item = (&'d str, Digest)>,
) -> Vec<Error> {
    match reviewed {
        Some(key) if *security::review_key(digests).as_bytes() == key => Vec::new(),
        _ => secrets(skill, frontmatter, skill_md_file),
    }
}

/// The credentials in a skill's files (its `SKILL.md`, named `skill_md_file` in errors, and
/// its supporting files), each an error.
fn secrets(skill: &Skill, frontmatter: &Frontmatter, skill_md_file: &str) -> Vec<Error> {
    let files = skill
        .files()
        .iter()
        .map(|file| (file.path(), &file.bytes()[..]));
    let all = std::iter::once((SKILL_MD, &skill.skill_md()[..])).chain(files);
    security::review(frontmatter, all)
        .into_iter()
        .map(|(path, secret)| {
            let file = match path {
                SKILL_MD => skill_md_file.to_owned(),
                path => skill.file_label(path),
            };
            Error::new(frontmatter.name(), &file, None, ErrorKind::from(secret))
        })
        .collect()
}

/// How much work a thread should have before another is started, in bytes to hash (about half
/// a millisecond of SHA-256 on one core; starting a thread costs tens of microseconds).
const WORK_PER_THREAD: usize = 1 << 20;

/// Parsing a YAML frontmatter costs about as much as hashing this many bytes.
const PARSE_WORK: usize = 16 << 10;

/// The work of checking a skill, for [`CatalogBuilder::threads_for`]: its frontmatter, parsed
/// from YAML or read from the JSON parsed at build time (which needs the `SKILL.md` hashed).
fn check_work(skill: &Skill) -> usize {
    match skill.built().frontmatter {
        Some(_) => skill.skill_md().len(),
        None => PARSE_WORK,
    }
}

/// The bytes of every file of a skill, which knowing its review key hashes.
fn hash_work(skill: &Skill) -> usize {
    let files: usize = skill.files().iter().map(|file| file.bytes().len()).sum();
    skill.skill_md().len() + files
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
