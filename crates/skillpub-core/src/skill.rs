//! A skill as it is handed to a catalog: the bytes of its `SKILL.md`, its supporting files and,
//! when known, its folder.

use std::borrow::Cow;
use std::fmt;

use bytes::Bytes;

use crate::file::SkillFile;

/// One skill's `SKILL.md` and supporting files, as bytes that the catalog will serve unchanged.
///
/// Build it in `const` context from embedded text, usually through [`skill!`](crate::skill!)
/// or the code that `skillpub-build` generates, or at run time from owned bytes. The folder,
/// when given, is the path the skill came from; its last component must equal the skill's
/// `name`.
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
}

impl Skill {
    /// A skill from embedded text, with no folder to check the name against.
    #[must_use]
    pub const fn from_static(skill_md: &'static str) -> Self {
        Self {
            folder: None,
            skill_md: Bytes::from_static(skill_md.as_bytes()),
            files: Cow::Borrowed(&[]),
        }
    }

    /// A skill from embedded text that came from `folder` (such as `"skills/greeting"`).
    #[must_use]
    pub const fn from_static_in(folder: &'static str, skill_md: &'static str) -> Self {
        Self::from_static_parts(folder, skill_md.as_bytes(), &[])
    }

    /// A skill with supporting files, from embedded bytes; `skillpub-build` generates these.
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
        }
    }

    /// The same skill with these supporting files (in any order; the catalog sorts them).
    #[must_use]
    pub fn with_files(mut self, files: Vec<SkillFile>) -> Self {
        self.files = Cow::Owned(files);
        self
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
