//! A skill as it is handed to a catalog: the bytes of its `SKILL.md`, its supporting files and,
//! when known, its folder.

use std::borrow::Cow;
use std::fmt;

use bytes::Bytes;

use crate::archive;
use crate::digest::Digest;
use crate::file::{SKILL_MD_MODE, SkillFile};
use crate::paths::SKILL_MD;

/// One skill's `SKILL.md` and supporting files, as bytes that the catalog will serve unchanged.
///
/// Build it in `const` context from embedded text, usually through [`skill!`](crate::skill!)
/// or the code that `skillpub-build` generates, or at run time from owned bytes. The folder,
/// when given, is the path the skill came from; its last component must equal the skill's
/// `name`. The constructors that only the generated code calls (with supporting files, with
/// the frontmatter and archives worked out at build time) are public but hidden from these
/// docs.
///
/// # Example
///
/// ```
/// use skillpub_core::Skill;
///
/// static GREETING: Skill = Skill::from_static_in(
///     "skills/greeting",
///     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
/// );
/// assert_eq!(GREETING.folder_name(), Some("greeting"));
/// assert!(GREETING.skill_md().starts_with(b"---"));
/// ```
#[derive(Clone)]
pub struct Skill {
    folder: Option<Cow<'static, str>>,
    skill_md: Bytes,
    files: Cow<'static, [SkillFile]>,
    built: Built,
}

/// What `skillpub-build` worked out at compile time, each part keyed by a digest of the bytes
/// it came from; the catalog uses a part only when the bytes it serves have that digest.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Built {
    pub(crate) frontmatter: Option<BuiltFrontmatter>,
    pub(crate) archives: Option<BuiltArchives>,
    /// The [review key](Skill::review_key) of the files whose credentials were looked for.
    pub(crate) reviewed: Option<[u8; 32]>,
}

/// The frontmatter of a `SKILL.md` as JSON, parsed from its YAML at build time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BuiltFrontmatter {
    /// The SHA-256 of the `SKILL.md` it was parsed from.
    pub(crate) skill_md: [u8; 32],
    pub(crate) json: &'static str,
}

/// The two archives of a skill, built at build time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BuiltArchives {
    /// The [archive key](Skill::archive_key) of the files they were built from.
    pub(crate) key: [u8; 32],
    pub(crate) tar_gz: &'static [u8],
    pub(crate) zip: &'static [u8],
}

impl Skill {
    /// A skill from embedded text, with no folder to check the name against.
    #[must_use]
    pub const fn from_static(skill_md: &'static str) -> Self {
        Self {
            folder: None,
            skill_md: Bytes::from_static(skill_md.as_bytes()),
            files: Cow::Borrowed(&[]),
            built: Built::EMPTY,
        }
    }

    /// A skill from embedded text that came from `folder` (such as `"skills/greeting"`).
    #[must_use]
    pub const fn from_static_in(folder: &'static str, skill_md: &'static str) -> Self {
        Self::from_static_parts(folder, skill_md.as_bytes(), &[])
    }

    /// A skill with supporting files, from embedded bytes; `skillpub-build` generates these.
    /// A build-script hook, hidden from the docs with the others: the generated code names it,
    /// so it stays public.
    #[doc(hidden)]
    #[must_use]
    pub const fn from_static_parts(
        folder: &'static str,
        skill_md: &'static [u8],
        files: &'static [SkillFile],
    ) -> Self {
        Self {
            folder: Some(Cow::Borrowed(folder)),
            skill_md: Bytes::from_static(skill_md),
            files: Cow::Borrowed(files),
            built: Built::EMPTY,
        }
    }

    /// A skill from bytes read at run time. The bytes need not be UTF-8; the catalog reports
    /// it if they are not.
    #[must_use]
    pub fn new(folder: Option<String>, skill_md: impl Into<Bytes>) -> Self {
        Self {
            folder: folder.map(Cow::Owned),
            skill_md: skill_md.into(),
            files: Cow::Borrowed(&[]),
            built: Built::EMPTY,
        }
    }

    /// The same skill with these supporting files (in any order; the catalog sorts them).
    #[must_use]
    pub fn with_files(mut self, files: Vec<SkillFile>) -> Self {
        self.files = Cow::Owned(files);
        self
    }

    /// The same skill with the frontmatter that `skillpub-build` parsed from its `SKILL.md` at
    /// compile time, as JSON (the [`Frontmatter::json`](crate::Frontmatter::json) of that
    /// file), for the `SKILL.md` whose SHA-256 is `skill_md_sha256`. The code that
    /// `skillpub-build` generates calls it; there is no reason to call it by hand.
    ///
    /// A catalog hashes every `SKILL.md` it serves anyway; when the digest is this one, it
    /// reads the JSON instead of parsing the YAML again, then checks every field rule on it
    /// (name, folder, lengths, unknown fields) as it would on the YAML. When the digest
    /// differs, or the JSON is not an object, it parses the YAML as usual. So a skill is never
    /// judged on anything but its own bytes: the YAML of exactly these bytes was parsed by the
    /// same parser at build time, and rejected there if it was invalid.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Digest, Skill};
    ///
    /// const TEXT: &str = "---\nname: pdf\ndescription: Reads PDFs.\n---\n";
    /// let sha256 = *Digest::of(TEXT.as_bytes()).as_bytes();
    /// let parsed = Skill::from_static(TEXT).with_parsed_frontmatter(sha256, r#"{"name":"pdf","description":"Reads PDFs."}"#);
    /// let catalog = Catalog::new([parsed])?;
    /// assert_eq!(catalog.get("pdf").unwrap().frontmatter().description(), "Reads PDFs.");
    ///
    /// // Another file's JSON is ignored: the digest is not this file's.
    /// let other = Skill::from_static(TEXT).with_parsed_frontmatter([0; 32], r#"{"name":"x"}"#);
    /// assert!(Catalog::new([other])?.get("pdf").is_some());
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[doc(hidden)]
    #[must_use]
    pub const fn with_parsed_frontmatter(
        mut self,
        skill_md_sha256: [u8; 32],
        json: &'static str,
    ) -> Self {
        self.built.frontmatter = Some(BuiltFrontmatter {
            skill_md: skill_md_sha256,
            json,
        });
        self
    }

    /// The same skill with the `.tar.gz` and `.zip` that `skillpub-build` built at compile
    /// time, with the core's own archive code, from files whose [archive
    /// key](Self::archive_key) is `key`. The code that `skillpub-build` generates calls it;
    /// there is no reason to call it by hand.
    ///
    /// A catalog computes the archive key from the digests of the files it serves (which it
    /// computes anyway) and serves these archives, hashed at start-up like every other
    /// artifact, only when the key is this one: the same files and the same archive settings,
    /// so the same bytes as it would build. Otherwise it builds the archives itself.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill, SkillFile, index::ArchiveFormat};
    ///
    /// static FILES: [SkillFile; 1] = [SkillFile::from_static("references/a.md", b"# A\n", false)];
    /// let skill = Skill::from_static_parts("skills/pdf", b"---\nname: pdf\ndescription: d\n---\n", &FILES);
    /// let built = Catalog::new([&skill])?;
    /// let tar_gz = built.get("pdf").unwrap().archive(ArchiveFormat::TarGz).unwrap().bytes().to_vec();
    /// let zip = built.get("pdf").unwrap().archive(ArchiveFormat::Zip).unwrap().bytes().to_vec();
    ///
    /// let key = *skill.archive_key().unwrap().as_bytes();
    /// let (tar_gz, zip): (&'static [u8], &'static [u8]) = (tar_gz.leak(), zip.leak());
    /// let embedded = Catalog::new([skill.with_built_archives(key, tar_gz, zip)])?;
    /// let archive = embedded.get("pdf").unwrap().archive(ArchiveFormat::TarGz).unwrap();
    /// assert_eq!(archive.bytes().as_ptr(), tar_gz.as_ptr()); // served as given, not rebuilt
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[doc(hidden)]
    #[must_use]
    pub const fn with_built_archives(
        mut self,
        key: [u8; 32],
        tar_gz: &'static [u8],
        zip: &'static [u8],
    ) -> Self {
        self.built.archives = Some(BuiltArchives { key, tar_gz, zip });
        self
    }

    /// The key of the skill's archives, for a skill with supporting files: the SHA-256 of the
    /// archive settings (layout, compressor and level) and of every file's path, mode and
    /// digest, `SKILL.md` included, in archive order. The same key means the same archives,
    /// byte for byte; `skillpub-build` names the archives it builds ahead of time by it, so a
    /// rebuild recompresses only the skills whose files changed.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Skill, SkillFile};
    ///
    /// let skill = Skill::new(None, "---\nname: pdf\ndescription: d\n---\n");
    /// assert_eq!(skill.archive_key(), None);
    /// let one = skill.clone().with_files(vec![SkillFile::new("a.md", "# A\n", false)]);
    /// let edited = skill.with_files(vec![SkillFile::new("a.md", "# A!\n", false)]);
    /// assert_ne!(one.archive_key(), edited.archive_key());
    /// ```
    #[doc(hidden)]
    #[must_use]
    pub fn archive_key(&self) -> Option<Digest> {
        if self.files.is_empty() {
            return None;
        }
        let files = self.files.iter();
        let entries = files.map(|file| (file.path(), file.mode(), Digest::of(file.bytes())));
        let skill_md = (SKILL_MD, SKILL_MD_MODE, Digest::of(&self.skill_md));
        Some(archive::key(entries.chain([skill_md])))
    }

    /// The same skill, marked as reviewed for credentials (`security.secret`) by
    /// `skillpub-build` at compile time, when its files had the [review key](Self::review_key)
    /// `key`. The code that `skillpub-build` generates calls it; there is no reason to call it
    /// by hand.
    ///
    /// A catalog computes the key from the digests of the files it serves (which it computes
    /// anyway) and looks for credentials again only when the key is not this one: other
    /// bytes, or other rules. So start-up does not read every embedded byte a second time,
    /// and a skill is never spared the review for bytes that were not reviewed.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    ///
    /// let key = format!("sk_live_{}", "4eC39HqLyjWDarjtT1zdp7dcZ");
    /// let text = format!("---\nname: pay\ndescription: Takes payments.\n---\nKey: {key}\n");
    /// let skill = Skill::new(Some("skills/pay".into()), text);
    /// let errors = Catalog::new([skill.clone()]).unwrap_err();
    /// assert_eq!(errors.as_slice()[0].code(), "security.secret");
    ///
    /// // Marked as reviewed for other bytes: reviewed again, and refused.
    /// let other = skill.with_reviewed_secrets([0; 32]);
    /// assert!(Catalog::new([other]).is_err());
    /// ```
    #[doc(hidden)]
    #[must_use]
    pub const fn with_reviewed_secrets(mut self, key: [u8; 32]) -> Self {
        self.built.reviewed = Some(key);
        self
    }

    /// The key of the review of the skill's files for credentials: the SHA-256 of the rules'
    /// revision and of every file's path and digest, `SKILL.md` included. `skillpub-build`
    /// records it for the skills it reviewed.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Skill, SkillFile};
    ///
    /// let skill = Skill::new(None, "---\nname: pdf\ndescription: d\n---\n");
    /// let with_file = skill.clone().with_files(vec![SkillFile::new("a.md", "# A\n", false)]);
    /// assert_ne!(skill.review_key(), with_file.review_key());
    /// ```
    #[doc(hidden)]
    #[must_use]
    pub fn review_key(&self) -> Digest {
        let files = self
            .files
            .iter()
            .map(|file| (file.path(), Digest::of(file.bytes())));
        crate::security::review_key(files.chain([(SKILL_MD, Digest::of(&self.skill_md))]))
    }

    /// What `skillpub-build` worked out at compile time, if anything.
    pub(crate) fn built(&self) -> Built {
        self.built
    }

    /// The folder the skill came from, as given.
    #[must_use]
    pub fn folder(&self) -> Option<&str> {
        self.folder.as_deref()
    }

    /// The last component of the folder: what the skill's `name` must be. `None` when no
    /// folder, or an empty one, was given.
    #[must_use]
    pub fn folder_name(&self) -> Option<&str> {
        folder_name(self.folder()?)
    }

    /// The exact bytes of the `SKILL.md`.
    #[must_use]
    pub fn skill_md(&self) -> &Bytes {
        &self.skill_md
    }

    /// The supporting files, as given.
    #[must_use]
    pub fn files(&self) -> &[SkillFile] {
        &self.files
    }

    /// How errors refer to a file of this skill, such as `skills/pdf/SKILL.md`.
    pub(crate) fn file_label(&self, path: &str) -> String {
        file_label(self.folder(), path)
    }
}

impl Built {
    /// Nothing worked out ahead of time: everything is done by the catalog.
    const EMPTY: Self = Self {
        frontmatter: None,
        archives: None,
        reviewed: None,
    };
}

/// The last component of a folder, or `None` when there is none (`""`, `/`).
pub(crate) fn folder_name(folder: &str) -> Option<&str> {
    folder
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|name| !name.is_empty())
}

/// How errors refer to a file of a skill from `folder`, such as `skills/pdf/SKILL.md`.
pub(crate) fn file_label(folder: Option<&str>, path: &str) -> String {
    match folder {
        Some(folder) => format!("{}/{path}", folder.trim_end_matches(['/', '\\'])),
        None => path.to_owned(),
    }
}

impl From<&Skill> for Skill {
    fn from(skill: &Skill) -> Self {
        skill.clone()
    }
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("folder", &self.folder)
            .field("skill_md_len", &self.skill_md.len())
            .field("files", &self.files)
            .field("parsed_frontmatter", &self.built.frontmatter.is_some())
            .field("built_archives", &self.built.archives.is_some())
            .field("reviewed_secrets", &self.built.reviewed.is_some())
            .finish()
    }
}

/// Embeds `<dir>/SKILL.md` as a [`Skill`], with `dir` relative to the calling crate's root.
///
/// The folder's last component is remembered, so the catalog checks that the skill's `name`
/// equals it. The file is read by `include_str!`, so editing it rebuilds the crate.
///
/// # Example
///
/// ```
/// static GREETING: skillpub_core::Skill = skillpub_core::skill!("tests/fixtures/greeting");
///
/// assert_eq!(GREETING.folder_name(), Some("greeting"));
/// let catalog = skillpub_core::Catalog::new([&GREETING])?;
/// assert!(catalog.get("greeting").is_some());
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[macro_export]
macro_rules! skill {
    ($dir:literal) => {
        $crate::Skill::from_static_in(
            $dir,
            ::core::include_str!(::core::concat!(
                ::core::env!("CARGO_MANIFEST_DIR"),
                "/",
                $dir,
                "/SKILL.md"
            )),
        )
    };
}

/// Includes the skills that `skillpub-build` embedded from `build.rs`: a `static SKILLS`, or
/// the static named in `include_skills!(NAME)` (the name given to `Embed::static_name`), of
/// type `[Skill; N]`.
///
/// # Example
///
/// ```ignore
/// skillpub::include_skills!();
/// let catalog = skillpub::Catalog::new(&SKILLS)?;
/// ```
#[macro_export]
macro_rules! include_skills {
    () => {
        $crate::include_skills!(SKILLS);
    };
    ($name:ident) => {
        ::core::include!(::core::concat!(
            ::core::env!("OUT_DIR"),
            "/",
            $crate::__generated_file!($name)
        ));
    };
}

/// The name of the file that `skillpub-build` writes to `OUT_DIR` for the static `$name` and
/// [`include_skills!`] includes, such as `skillpub_SKILLS.rs`: its one definition.
/// `skillpub_build::generated_file` gives it `{}` and fills in the name at run time.
#[doc(hidden)]
#[macro_export]
macro_rules! __generated_file {
    ($name:tt) => {
        ::core::concat!("skillpub_", ::core::stringify!($name), ".rs")
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_name_is_the_last_component() {
        assert_eq!(
            Skill::from_static_in("a/b/pdf", "").folder_name(),
            Some("pdf")
        );
        assert_eq!(Skill::from_static_in("pdf/", "").folder_name(), Some("pdf"));
        assert_eq!(Skill::from_static_in("pdf", "").folder_name(), Some("pdf"));
        assert_eq!(Skill::from_static("").folder_name(), None);
        assert_eq!(Skill::from_static_in("/", "").folder_name(), None);
        assert_eq!(Skill::from_static_in("", "").folder_name(), None);
    }

    #[test]
    fn file_label_names_the_skill_md() {
        assert_eq!(
            Skill::from_static_in("skills/pdf/", "").file_label("SKILL.md"),
            "skills/pdf/SKILL.md"
        );
        assert_eq!(Skill::from_static("").file_label("SKILL.md"), "SKILL.md");
    }
}
