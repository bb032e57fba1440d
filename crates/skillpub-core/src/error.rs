//! What can be wrong with a skill, said so that the author knows where and how to fix it.

use std::fmt;

/// One problem found in one skill.
///
/// It names the skill, the file and, where there is one, the frontmatter field. Its `Display`
/// reads `file: skill `name`: field `field`: message`, and the message says how to fix it.
/// Its `Debug` is the same text, so that `.expect(..)` and `?` out of `main` print it as is;
/// compare [`kind`](Self::kind)s or their stable [`code`](Self::code)s to tell problems apart.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, ErrorKind, Skill};
///
/// let skill = Skill::from_static_in("skills/pdf", "---\nname: PDF\ndescription: Reads PDFs.\n---\n");
/// let errors = Catalog::new([skill]).unwrap_err();
/// let first = &errors.as_slice()[0];
/// assert_eq!(first.skill(), "PDF");
/// assert_eq!(first.file(), "skills/pdf/SKILL.md");
/// assert_eq!(first.field(), Some("name"));
/// assert!(matches!(first.kind(), ErrorKind::NameUppercase { .. }));
/// assert_eq!(first.code(), "name.uppercase");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    skill: String,
    file: String,
    field: Option<String>,
    kind: ErrorKind,
}

impl Error {
    pub(crate) fn new(skill: &str, file: &str, field: Option<&str>, kind: ErrorKind) -> Self {
        Self {
            skill: skill.to_owned(),
            file: file.to_owned(),
            field: field.map(str::to_owned),
            kind,
        }
    }

    /// A problem with an option of the catalog (`option` is the `CatalogBuilder` method),
    /// not with a skill.
    pub(crate) fn option(option: &str, kind: ErrorKind) -> Self {
        Self {
            skill: String::new(),
            file: String::new(),
            field: Some(option.to_owned()),
            kind,
        }
    }

    /// The skill's name as written in its frontmatter, or its folder name when the name is
    /// missing or unreadable; empty for a problem with an option of the catalog, such as
    /// [`ErrorKind::BasePath`].
    #[must_use]
    pub fn skill(&self) -> &str {
        &self.skill
    }

    /// The file the problem is in, such as `skills/pdf/SKILL.md`; empty for a problem with an
    /// option of the catalog.
    #[must_use]
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The frontmatter field, such as `name` or `metadata.version`, when the problem has one;
    /// for a problem with an option of the catalog, the `CatalogBuilder` method, such as
    /// `base_path`.
    #[must_use]
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// The line of [`file`](Self::file) the problem is on (1-based), for the kinds that name
    /// one: a credential ([`ErrorKind::Secret`]), a YAML error, a stray document marker.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::SkillMd;
    ///
    /// let errors = SkillMd::parse("---\nname: pdf\ndescription: [\n---\n", None).unwrap_err();
    /// assert_eq!(errors.as_slice()[0].line(), Some(3));
    /// ```
    #[must_use]
    pub fn line(&self) -> Option<u64> {
        match &self.kind {
            ErrorKind::Secret { line, .. }
            | ErrorKind::Yaml { line, .. }
            | ErrorKind::FrontmatterFence { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// What is wrong.
    #[must_use]
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The stable code of what is wrong, such as `name.uppercase`; see [`ErrorKind::code`].
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (true, Some(option)) = (self.skill.is_empty(), &self.field) {
            return write!(f, "`CatalogBuilder::{option}`: {}", self.kind);
        }
        write!(f, "{}: skill `{}`: ", self.file, self.skill)?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

/// The readable message, as [`Display`](fmt::Display) gives it.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The kind's source: the operating system's error for an I/O problem (`ErrorKind::Io`).
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}

/// The kinds of problem a skill can have. Each message ends with how to fix it, and each kind
/// has a stable [`code`](Self::code), listed in the [table of codes](crate#problem-codes).
///
/// The kinds only a folder on disk can have (`Io`, `NotAFolder`, `MissingSkillMd`,
/// `SkillMdCase`, `NameNotUtf8`, `SymlinkOutside`, `BrokenSymlink`, `LinkToHidden`,
/// `SymlinkedFolder`, `NotARegularFile`) exist with the feature `fs`. Every kind is
/// `Clone + Eq`, so tests compare errors whole; `Io` keeps the operating system's error in an
/// [`Arc`](std::sync::Arc) for that (see `IoError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The `SKILL.md` bytes are not UTF-8.
    #[error(
        "SKILL.md is not valid UTF-8 (the first bad byte is at offset {valid_up_to}); save it as UTF-8"
    )]
    NotUtf8 {
        /// How many leading bytes are valid.
        valid_up_to: usize,
    },
    /// The file does not open with a `---` line.
    #[error(
        "SKILL.md must start with a line `---` that opens the YAML frontmatter; add `---`, the `name` and `description` fields, and a closing `---` before the instructions"
    )]
    FrontmatterMissing,
    /// No line `---` closes the frontmatter.
    #[error(
        "the frontmatter opened by `---` on the first line is never closed; add a line that is exactly `---` after the last field"
    )]
    FrontmatterUnclosed,
    /// A line inside the frontmatter looks like the closing `---` but is not exactly `---`
    /// (`--- ` with a trailing space, `--- text`) or is `...`: YAML reads it as a document
    /// marker, so the block would hold a second document.
    #[error(
        "line {line} ({text:?}) is a YAML document marker, not the closing `---`, so YAML reads what follows as a second document; the frontmatter closes only at a line that is exactly `---`, so remove anything after `---` on that line (trailing spaces too), or remove a `...` line"
    )]
    FrontmatterFence {
        /// The line in the `SKILL.md` (1-based; the opening `---` is line 1).
        line: u64,
        /// The line as written.
        text: String,
    },
    /// The frontmatter is not YAML that skillpub accepts.
    #[error("the frontmatter is not accepted at line {line}, column {column}: {message}")]
    Yaml {
        /// The line in the `SKILL.md` (1-based; the opening `---` is line 1).
        line: u64,
        /// The column (1-based).
        column: u64,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The frontmatter is YAML, but not a mapping of fields.
    #[error("the frontmatter must be a YAML mapping such as `name: my-skill`, but it is {found}")]
    NotAMapping {
        /// What it is instead, such as `a list`.
        found: &'static str,
    },
    /// A required field is absent.
    #[error("required field is missing; add `{field}: ...` to the frontmatter")]
    MissingField {
        /// The missing field.
        field: &'static str,
    },
    /// A field holds a value of the wrong type.
    #[error("must be {expected}, but it is {found}; {hint}")]
    WrongType {
        /// What the field must hold.
        expected: &'static str,
        /// What it holds.
        found: &'static str,
        /// How to write it instead.
        hint: &'static str,
    },
    /// A field that is not in the Agent Skills specification.
    #[error(
        "is not an Agent Skills field (allowed: {}); move it under `metadata`, remove it, or accept unknown fields: `allow_unknown_fields(true)` on `CatalogBuilder` or `skillpub_build::Embed`, `--allow-unknown-fields` on the `skillpub` command",
        crate::spec::limits::ALLOWED_FIELDS.join(", ")
    )]
    UnknownField,
    /// The name is empty.
    #[error("must not be empty; use the skill's folder name, such as `pdf-processing`")]
    NameEmpty,
    /// The name is longer than 64 characters.
    #[error(
        "`{name}` is {length} characters long, over the limit of {}; shorten it",
        crate::spec::limits::MAX_NAME_LENGTH
    )]
    NameTooLong {
        /// The name.
        name: String,
        /// Its length in characters.
        length: usize,
    },
    /// The name has ASCII uppercase letters.
    #[error(
        "`{name}` has uppercase letters; names are lowercase{}",
        such_as(suggestion)
    )]
    NameUppercase {
        /// The name.
        name: String,
        /// A valid name close to it: lowercase, other characters turned into single hyphens.
        suggestion: Option<String>,
    },
    /// The name has characters other than `a-z`, `0-9` and `-`.
    #[error(
        "`{name}` contains {characters}; names use only ASCII `a-z`, `0-9` and `-` (the discovery draft refuses non-ASCII letters){}",
        such_as(suggestion)
    )]
    NameInvalidCharacters {
        /// The name.
        name: String,
        /// The offending characters, quoted and separated by commas.
        characters: String,
        /// A valid name close to it, when one is left (`技能` has none).
        suggestion: Option<String>,
    },
    /// The name starts or ends with `-`.
    #[error("`{name}` starts or ends with a hyphen; remove it")]
    NameHyphenAtEdge {
        /// The name.
        name: String,
    },
    /// The name contains `--`.
    #[error("`{name}` contains consecutive hyphens; use single hyphens between words")]
    NameConsecutiveHyphens {
        /// The name.
        name: String,
    },
    /// The name differs from the skill's folder.
    #[error("`{name}` must match the skill's folder name `{folder}`; rename one so they agree")]
    NameFolderMismatch {
        /// The name.
        name: String,
        /// The folder name.
        folder: String,
    },
    /// `description` is empty or only white space.
    #[error("must not be empty; write what the skill does and when to use it")]
    DescriptionEmpty,
    /// `description` is longer than 1024 characters.
    #[error(
        "is {length} characters long, over the limit of {}; shorten it",
        crate::spec::limits::MAX_DESCRIPTION_LENGTH
    )]
    DescriptionTooLong {
        /// Its length in Unicode scalar values.
        length: usize,
    },
    /// `compatibility` is present but empty or only white space.
    #[error("must not be empty; write the environment the skill needs, or remove the field")]
    CompatibilityEmpty,
    /// `compatibility` is longer than 500 characters.
    #[error(
        "is {length} characters long, over the limit of {}; shorten it",
        crate::spec::limits::MAX_COMPATIBILITY_LENGTH
    )]
    CompatibilityTooLong {
        /// Its length in Unicode scalar values.
        length: usize,
    },
    /// A text field holds a control character other than tab and line feed, such as a NUL
    /// written as `"\0"` in a quoted value.
    #[error(
        "contains the control character `{}` (U+{:04X}) at character {position}{}; remove it, text fields allow no control characters other than tab and line feed",
        character.escape_debug(),
        u32::from(*character),
        and_more(*more)
    )]
    ControlCharacter {
        /// The first one.
        character: char,
        /// Where it is, counted in Unicode scalar values from 1.
        position: usize,
        /// How many more follow it.
        more: usize,
    },
    /// A supporting file's path cannot be published.
    #[error("this path {problem}")]
    FilePath {
        /// What is wrong with it.
        problem: crate::spec::path::PathProblem,
    },
    /// The same path is given twice.
    #[error("this path is given twice; give each file once")]
    DuplicateFile,
    /// Two paths differ only in letter case.
    #[error(
        "this path differs from `{other}` only in letter case; such files overwrite each other on macOS and Windows, so rename one"
    )]
    CaseCollision {
        /// The other path.
        other: String,
    },
    /// A file's path uses another file's path as a folder (`a` and `a/b`).
    #[error(
        "this path puts a file inside `{file}`, which is a file too; no file system can hold both, so rename one"
    )]
    FileUsedAsFolder {
        /// The file that would have to be a folder.
        file: String,
    },
    /// More files than SEP-2640 allows in one skill.
    #[error(
        "the skill has at least {count} files, over the limit of {limit} (SEP-2640); move some out or split the skill"
    )]
    TooManyFiles {
        /// How many files were counted, `SKILL.md` included: all of them for a skill built in
        /// memory; a folder's walk stops counting at one past the limit.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// More bytes than SEP-2640 allows in one skill.
    #[error(
        "the skill has {bytes} bytes, over the limit of {limit} (16 MiB, SEP-2640){}; move large assets out or split the skill",
        largest_files(largest)
    )]
    TooLarge {
        /// How many bytes, `SKILL.md` included.
        bytes: u64,
        /// The limit.
        limit: u64,
        /// The largest files, largest first, at most three: their path inside the skill (or
        /// on disk, for a file that grew while it was read) and their size in bytes.
        largest: Vec<(String, u64)>,
    },
    /// An archive could not be written.
    #[error("the archive could not be built: {message}")]
    Archive {
        /// What the archive writer said.
        message: String,
    },
    /// A file or folder could not be read: the operating system's error with the path, kept as
    /// this kind's [`source`](std::error::Error::source).
    #[cfg(feature = "fs")]
    #[error(
        "cannot be read: {}; check that it exists and is readable",
        .0.io_error()
    )]
    Io(#[source] crate::io_error::IoError),
    /// The path given as a skills folder is not a folder.
    #[cfg(feature = "fs")]
    #[error("is not a folder; give a skill folder or a folder of skill folders")]
    NotAFolder,
    /// A skill folder has no `SKILL.md`.
    #[cfg(feature = "fs")]
    #[error("has no SKILL.md; add one, or move the folder out of the skills folder")]
    MissingSkillMd,
    /// A skill folder has `skill.md` or another spelling instead of `SKILL.md`.
    #[cfg(feature = "fs")]
    #[error("is named `{found}`; rename it to `SKILL.md` (the name is case-sensitive)")]
    SkillMdCase {
        /// The name found.
        found: String,
    },
    /// A file or folder name is not valid UTF-8.
    #[cfg(feature = "fs")]
    #[error(
        "has a name that is not valid UTF-8; rename it with ASCII letters, digits, `-`, `_` and `.`"
    )]
    NameNotUtf8,
    /// A symbolic link points outside the skill folder.
    #[cfg(feature = "fs")]
    #[error(
        "is a symbolic link to `{target}`, outside the skill folder; copy the file into the folder instead"
    )]
    SymlinkOutside {
        /// Where the link points.
        target: String,
    },
    /// A symbolic link points nowhere (or into a loop).
    #[cfg(feature = "fs")]
    #[error("is a symbolic link to `{target}`, which does not exist; fix or remove the link")]
    BrokenSymlink {
        /// Where the link points, as written.
        target: String,
    },
    /// A symbolic link points to a hidden file, which would publish it under another name.
    #[cfg(feature = "fs")]
    #[error("is a symbolic link to the hidden `{target}`, which is not published; remove the link")]
    LinkToHidden {
        /// Where the link points, as written.
        target: String,
    },
    /// A symbolic link points to a folder.
    #[cfg(feature = "fs")]
    #[error("is a symbolic link to a folder, which is not followed; copy the folder instead")]
    SymlinkedFolder,
    /// Not a regular file, folder or link (a socket, a device, a pipe).
    #[cfg(feature = "fs")]
    #[error("is not a regular file; remove it from the skill folder")]
    NotARegularFile,
    /// A file of the skill holds a credential by its published format (see
    /// [`security`](crate::security)), which every agent that loads the skill would get.
    #[error(
        "line {line} holds {credential} (`{shown}`), which every agent that loads the skill would get; {}, remove it, and have the skill read it from an environment variable the user sets; if it is not a live credential, say why in a comment `skillpub-allow security.secret: <reason>` on that line or the line before, or list `security.secret` under `metadata.skillpub-allow` in the frontmatter",
        credential.revoke()
    )]
    Secret {
        /// The line of the file (1-based).
        line: u64,
        /// What kind of credential it is.
        credential: crate::security::Credential,
        /// The credential with all but its prefix and last characters hidden.
        shown: String,
    },
    /// The base path given to [`CatalogBuilder::base_path`](crate::CatalogBuilder::base_path)
    /// is not a plain URL path.
    #[error("the base path `{base_path}` {problem}")]
    BasePath {
        /// The base path as given.
        base_path: String,
        /// What is wrong with it.
        problem: crate::paths::base_path::BasePathProblem,
    },
    /// Two skills in one catalog have the same name.
    #[error(
        "`{other_file}` is also named `{name}`; skill names must be unique, so rename one (and its folder)"
    )]
    DuplicateName {
        /// The shared name.
        name: String,
        /// The file of the other skill with that name.
        other_file: String,
    },
}

/// A credential found by the review, as the problem that refuses the skill.
impl From<crate::security::Secret> for ErrorKind {
    fn from(secret: crate::security::Secret) -> Self {
        Self::Secret {
            line: secret.line(),
            credential: secret.credential(),
            shown: secret.shown().to_owned(),
        }
    }
}

impl ErrorKind {
    /// The problem's stable code, `<subject>.<problem>`, such as `name.uppercase` or
    /// `skill.too-large`: what a script matches on, where the message is for people and may
    /// be reworded.
    ///
    /// Every code, with what it means and how to fix it, is in the [table of
    /// codes](crate#problem-codes). The codes are part of the public API: changing one is a
    /// breaking change, and a new kind gets a new code.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::SkillMd;
    ///
    /// let errors = SkillMd::parse("---\nname: PDF\ndescription: Reads PDFs.\n---\n", None)
    ///     .unwrap_err();
    /// assert_eq!(errors.as_slice()[0].kind().code(), "name.uppercase");
    /// ```
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotUtf8 { .. } => "skill-md.not-utf8",
            Self::FrontmatterMissing => "frontmatter.missing",
            Self::FrontmatterUnclosed => "frontmatter.unclosed",
            Self::FrontmatterFence { .. } => "frontmatter.fence",
            Self::Yaml { .. } => "yaml.syntax",
            Self::NotAMapping { .. } => "frontmatter.not-a-mapping",
            Self::MissingField { .. } => "field.missing",
            Self::WrongType { .. } => "field.wrong-type",
            Self::UnknownField => "field.unknown",
            Self::NameEmpty => "name.empty",
            Self::NameTooLong { .. } => "name.too-long",
            Self::NameUppercase { .. } => "name.uppercase",
            Self::NameInvalidCharacters { .. } => "name.invalid-characters",
            Self::NameHyphenAtEdge { .. } => "name.hyphen-at-edge",
            Self::NameConsecutiveHyphens { .. } => "name.consecutive-hyphens",
            Self::NameFolderMismatch { .. } => "name.folder-mismatch",
            Self::DescriptionEmpty => "description.empty",
            Self::DescriptionTooLong { .. } => "description.too-long",
            Self::CompatibilityEmpty => "compatibility.empty",
            Self::CompatibilityTooLong { .. } => "compatibility.too-long",
            Self::ControlCharacter { .. } => "text.control-character",
            Self::FilePath { .. } => "file.path",
            Self::DuplicateFile => "file.duplicate",
            Self::CaseCollision { .. } => "file.case-collision",
            Self::FileUsedAsFolder { .. } => "file.used-as-folder",
            Self::TooManyFiles { .. } => "skill.too-many-files",
            Self::TooLarge { .. } => "skill.too-large",
            Self::Archive { .. } => "archive.failed",
            #[cfg(feature = "fs")]
            Self::Io(_) => "path.unreadable",
            #[cfg(feature = "fs")]
            Self::NotAFolder => "path.not-a-folder",
            #[cfg(feature = "fs")]
            Self::MissingSkillMd => "skill-md.missing",
            #[cfg(feature = "fs")]
            Self::SkillMdCase { .. } => "skill-md.wrong-case",
            #[cfg(feature = "fs")]
            Self::NameNotUtf8 => "path.not-utf8",
            #[cfg(feature = "fs")]
            Self::SymlinkOutside { .. } => "link.outside",
            #[cfg(feature = "fs")]
            Self::BrokenSymlink { .. } => "link.broken",
            #[cfg(feature = "fs")]
            Self::LinkToHidden { .. } => "link.hidden-target",
            #[cfg(feature = "fs")]
            Self::SymlinkedFolder => "link.folder",
            #[cfg(feature = "fs")]
            Self::NotARegularFile => "path.special-file",
            Self::Secret { .. } => crate::security::SECRET_CODE,
            Self::BasePath { .. } => "base-path.invalid",
            Self::DuplicateName { .. } => "name.duplicate",
        }
    }
}

/// `, such as `name`` when there is a suggestion.
fn such_as(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map_or_else(String::new, |name| format!(", such as `{name}`"))
}

/// `; the largest files are `a` (2.0 MiB), `b` (10 bytes)`, for the size limit's message.
fn largest_files(largest: &[(String, u64)]) -> String {
    let list: Vec<String> = largest
        .iter()
        .map(|(path, bytes)| format!("`{path}` ({})", human_size(*bytes)))
        .collect();
    match list.len() {
        0 => String::new(),
        1 => format!("; the largest file is {}", list[0]),
        _ => format!("; the largest files are {}", list.join(", ")),
    }
}

/// A size as people read it: `512 bytes`, `3.5 KiB`, `16.0 MiB`.
fn human_size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    // Precision beyond one decimal is not needed, so the lossy conversion is fine.
    let scaled = |unit: u64| bytes as f64 / unit as f64;
    if bytes == 1 {
        "1 byte".to_owned()
    } else if bytes < KIB {
        format!("{bytes} bytes")
    } else if bytes < MIB {
        format!("{:.1} KiB", scaled(KIB))
    } else {
        format!("{:.1} MiB", scaled(MIB))
    }
}

/// ` (and 2 more)` after the first of several problems of a kind.
fn and_more(more: usize) -> String {
    match more {
        0 => String::new(),
        more => format!(" (and {more} more)"),
    }
}

/// Every problem found while building a catalog, in the order the skills were given.
///
/// `Display` and `Debug` both print a count and one line per problem, as anyhow-style error
/// types do, so `Catalog::new(..)?` in a `main` that returns `Result<(), Errors>` or
/// `Result<(), Box<dyn Error>>`, and `.expect(..)`, show the readable list rather than the
/// structs behind it.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, Skill};
///
/// let errors = Catalog::new([Skill::from_static_in("skills/notes", "no frontmatter here")])
///     .unwrap_err();
/// assert_eq!(errors.len(), 1);
/// assert!(format!("{errors:?}").starts_with(
///     "1 problem in the skills:\n  skills/notes/SKILL.md: skill `notes`: SKILL.md must start"
/// ));
/// assert_eq!(format!("{errors:?}"), errors.to_string());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Errors(Vec<Error>);

impl Errors {
    pub(crate) fn new(errors: Vec<Error>) -> Self {
        Self(errors)
    }

    /// The problems, in order.
    #[must_use]
    pub fn as_slice(&self) -> &[Error] {
        &self.0
    }

    /// How many problems there are (at least one).
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always `false`: a value of this type reports at least one problem.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.0.len();
        write!(
            f,
            "{count} problem{} in the skills:",
            if count == 1 { "" } else { "s" }
        )?;
        for error in &self.0 {
            write!(f, "\n  {error}")?;
        }
        Ok(())
    }
}

/// The readable list, as [`Display`](fmt::Display) gives it.
impl fmt::Debug for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Errors {}

impl IntoIterator for Errors {
    type Item = Error;
    type IntoIter = std::vec::IntoIter<Error>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Errors {
    type Item = &'a Error;
    type IntoIter = std::slice::Iter<'a, Error>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_problems() -> Errors {
        Errors::new(vec![
            Error::new(
                "PDF",
                "skills/pdf/SKILL.md",
                Some("name"),
                ErrorKind::NameFolderMismatch {
                    name: "PDF".into(),
                    folder: "pdf".into(),
                },
            ),
            Error::new(
                "notes",
                "skills/notes/SKILL.md",
                None,
                ErrorKind::FrontmatterMissing,
            ),
        ])
    }

    #[test]
    fn debug_prints_the_readable_list() {
        let errors = two_problems();
        let text = errors.to_string();
        assert!(text.starts_with("2 problems in the skills:\n  skills/pdf/SKILL.md: skill `PDF`: field `name`: `PDF` must match"), "{text}");
        assert_eq!(format!("{errors:?}"), text);
        assert_eq!(format!("{errors:#?}"), text);
        let first = &errors.as_slice()[0];
        assert_eq!(format!("{first:?}"), first.to_string());
        let boxed: Box<dyn std::error::Error> = Box::new(errors.clone());
        assert_eq!(format!("{boxed:?}"), text);
    }

    #[test]
    fn expect_panics_with_the_readable_list() {
        let build =
            || crate::Catalog::new([crate::Skill::from_static_in("skills/notes", "# Notes")]);
        let expected = format!("the skills are valid: {}", build().unwrap_err());
        let panic =
            std::panic::catch_unwind(|| build().expect("the skills are valid")).unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert_eq!(*message, expected);
        assert!(
            message.contains("skills/notes/SKILL.md: skill `notes`: SKILL.md must start"),
            "{message}"
        );
        assert!(!message.contains("kind:"), "{message}");
    }

    macro_rules! says {
        ($name:ident, $kind:expr, $message:expr) => {
            #[test]
            fn $name() {
                assert_eq!($kind.to_string(), $message);
            }
        };
    }

    says!(
        not_utf8,
        ErrorKind::NotUtf8 { valid_up_to: 7 },
        "SKILL.md is not valid UTF-8 (the first bad byte is at offset 7); save it as UTF-8"
    );
    says!(
        frontmatter_missing,
        ErrorKind::FrontmatterMissing,
        "SKILL.md must start with a line `---` that opens the YAML frontmatter; add `---`, the `name` and `description` fields, and a closing `---` before the instructions"
    );
    says!(
        frontmatter_unclosed,
        ErrorKind::FrontmatterUnclosed,
        "the frontmatter opened by `---` on the first line is never closed; add a line that is exactly `---` after the last field"
    );
    says!(
        yaml,
        ErrorKind::Yaml {
            line: 3,
            column: 7,
            message: "bad".into()
        },
        "the frontmatter is not accepted at line 3, column 7: bad"
    );
    says!(
        not_a_mapping,
        ErrorKind::NotAMapping { found: "a list" },
        "the frontmatter must be a YAML mapping such as `name: my-skill`, but it is a list"
    );
    says!(
        missing_field,
        ErrorKind::MissingField {
            field: "description"
        },
        "required field is missing; add `description: ...` to the frontmatter"
    );
    says!(
        wrong_type,
        ErrorKind::WrongType {
            expected: "a string",
            found: "a number",
            hint: "quote it"
        },
        "must be a string, but it is a number; quote it"
    );
    says!(
        unknown_field,
        ErrorKind::UnknownField,
        "is not an Agent Skills field (allowed: name, description, license, compatibility, metadata, allowed-tools); move it under `metadata`, remove it, or accept unknown fields: `allow_unknown_fields(true)` on `CatalogBuilder` or `skillpub_build::Embed`, `--allow-unknown-fields` on the `skillpub` command"
    );
    says!(
        name_empty,
        ErrorKind::NameEmpty,
        "must not be empty; use the skill's folder name, such as `pdf-processing`"
    );
    says!(
        name_too_long,
        ErrorKind::NameTooLong {
            name: "a".repeat(65),
            length: 65
        },
        format!(
            "`{}` is 65 characters long, over the limit of 64; shorten it",
            "a".repeat(65)
        )
    );
    says!(
        name_uppercase,
        ErrorKind::NameUppercase {
            name: "PDF".into(),
            suggestion: Some("pdf".into())
        },
        "`PDF` has uppercase letters; names are lowercase, such as `pdf`"
    );
    says!(
        name_uppercase_without_a_suggestion,
        ErrorKind::NameUppercase {
            name: "X".into(),
            suggestion: None
        },
        "`X` has uppercase letters; names are lowercase"
    );
    says!(
        name_invalid_characters,
        ErrorKind::NameInvalidCharacters {
            name: "my_skill".into(),
            characters: "'_'".into(),
            suggestion: None
        },
        "`my_skill` contains '_'; names use only ASCII `a-z`, `0-9` and `-` (the discovery draft refuses non-ASCII letters)"
    );
    says!(
        name_invalid_characters_with_a_suggestion,
        ErrorKind::NameInvalidCharacters {
            name: "my_skill".into(),
            characters: "'_'".into(),
            suggestion: Some("my-skill".into())
        },
        "`my_skill` contains '_'; names use only ASCII `a-z`, `0-9` and `-` (the discovery draft refuses non-ASCII letters), such as `my-skill`"
    );
    says!(
        name_hyphen_at_edge,
        ErrorKind::NameHyphenAtEdge {
            name: "-pdf".into()
        },
        "`-pdf` starts or ends with a hyphen; remove it"
    );
    says!(
        name_consecutive_hyphens,
        ErrorKind::NameConsecutiveHyphens {
            name: "pdf--x".into()
        },
        "`pdf--x` contains consecutive hyphens; use single hyphens between words"
    );
    says!(
        name_folder_mismatch,
        ErrorKind::NameFolderMismatch {
            name: "a".into(),
            folder: "b".into()
        },
        "`a` must match the skill's folder name `b`; rename one so they agree"
    );
    says!(
        description_empty,
        ErrorKind::DescriptionEmpty,
        "must not be empty; write what the skill does and when to use it"
    );
    says!(
        description_too_long,
        ErrorKind::DescriptionTooLong { length: 1025 },
        "is 1025 characters long, over the limit of 1024; shorten it"
    );
    says!(
        compatibility_empty,
        ErrorKind::CompatibilityEmpty,
        "must not be empty; write the environment the skill needs, or remove the field"
    );
    says!(
        compatibility_too_long,
        ErrorKind::CompatibilityTooLong { length: 501 },
        "is 501 characters long, over the limit of 500; shorten it"
    );
    says!(
        control_character,
        ErrorKind::ControlCharacter {
            character: '\0',
            position: 4,
            more: 0
        },
        "contains the control character `\\0` (U+0000) at character 4; remove it, text fields allow no control characters other than tab and line feed"
    );
    says!(
        several_control_characters,
        ErrorKind::ControlCharacter {
            character: '\u{1b}',
            position: 12,
            more: 2
        },
        "contains the control character `\\u{1b}` (U+001B) at character 12 (and 2 more); remove it, text fields allow no control characters other than tab and line feed"
    );
    says!(
        too_large,
        ErrorKind::TooLarge {
            bytes: 20_971_530,
            limit: 16_777_216,
            largest: vec![
                ("assets/video.mp4".into(), 15_728_640),
                ("assets/logo.png".into(), 5_242_880),
                ("SKILL.md".into(), 10),
            ]
        },
        "the skill has 20971530 bytes, over the limit of 16777216 (16 MiB, SEP-2640); the largest files are `assets/video.mp4` (15.0 MiB), `assets/logo.png` (5.0 MiB), `SKILL.md` (10 bytes); move large assets out or split the skill"
    );
    says!(
        too_large_one_file,
        ErrorKind::TooLarge {
            bytes: 16_777_217,
            limit: 16_777_216,
            largest: vec![("data.bin".into(), 16_777_217)]
        },
        "the skill has 16777217 bytes, over the limit of 16777216 (16 MiB, SEP-2640); the largest file is `data.bin` (16.0 MiB); move large assets out or split the skill"
    );

    #[test]
    fn sizes_read_as_people_say_them() {
        let sizes: Vec<String> = [0, 1, 1023, 1024, 3584, 1_048_575, 1_048_576, 16_777_217]
            .map(human_size)
            .into();
        assert_eq!(
            sizes,
            [
                "0 bytes",
                "1 byte",
                "1023 bytes",
                "1.0 KiB",
                "3.5 KiB",
                "1024.0 KiB",
                "1.0 MiB",
                "16.0 MiB"
            ]
        );
    }

    says!(
        base_path,
        ErrorKind::BasePath {
            base_path: "/tenant/".into(),
            problem: crate::paths::BasePathProblem::TrailingSlash
        },
        "the base path `/tenant/` ends with `/`; write it without the final slash, such as `/tenant` (for the site root, set no base path)"
    );

    #[test]
    fn an_option_error_names_the_option() {
        let error = Error::option(
            "base_path",
            ErrorKind::BasePath {
                base_path: "tenant".into(),
                problem: crate::paths::BasePathProblem::Relative,
            },
        );
        assert_eq!(
            error.to_string(),
            "`CatalogBuilder::base_path`: the base path `tenant` does not start with `/`; write the path the router is nested under, such as `/tenant`"
        );
        assert_eq!((error.skill(), error.file()), ("", ""));
    }

    says!(
        duplicate_name,
        ErrorKind::DuplicateName {
            name: "a".into(),
            other_file: "one/a/SKILL.md".into()
        },
        "`one/a/SKILL.md` is also named `a`; skill names must be unique, so rename one (and its folder)"
    );
}
