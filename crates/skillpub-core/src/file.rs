//! Supporting files of a skill (`references/`, `scripts/`, `assets/`, ...); the rules their
//! paths follow are in [`spec`](crate::spec).

use std::borrow::Cow;
use std::fmt;

use bytes::Bytes;

/// The Unix mode of `SKILL.md` in archives.
pub(crate) const SKILL_MD_MODE: u32 = 0o644;

/// One supporting file of a skill: its path inside the skill folder and its exact bytes.
///
/// # Example
///
/// ```
/// use skillpub_core::SkillFile;
///
/// static SCRIPT: SkillFile = SkillFile::from_static("scripts/run.sh", b"#!/bin/sh\n", true);
/// assert_eq!(SCRIPT.mode(), 0o755);
/// assert_eq!(SkillFile::new("references/api.md", "# API\n", false).mode(), 0o644);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SkillFile {
    path: Cow<'static, str>,
    bytes: Bytes,
    executable: bool,
}

impl SkillFile {
    /// A file from embedded bytes. `path` is relative to the skill folder, `/`-separated.
    #[must_use]
    pub const fn from_static(path: &'static str, bytes: &'static [u8], executable: bool) -> Self {
        Self {
            path: Cow::Borrowed(path),
            bytes: Bytes::from_static(bytes),
            executable,
        }
    }

    /// A file from bytes read at run time.
    #[must_use]
    pub fn new(path: impl Into<String>, bytes: impl Into<Bytes>, executable: bool) -> Self {
        Self {
            path: Cow::Owned(path.into()),
            bytes: bytes.into(),
            executable,
        }
    }

    /// The path inside the skill folder, such as `references/api.md`.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The exact bytes.
    #[must_use]
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// Whether the file was executable where it came from.
    #[must_use]
    pub fn is_executable(&self) -> bool {
        self.executable
    }

    /// The Unix mode in archives: `0o755` for executable files and everything under
    /// `scripts/`, `0o644` otherwise.
    #[must_use]
    pub fn mode(&self) -> u32 {
        if self.executable || self.path.starts_with("scripts/") {
            0o755
        } else {
            0o644
        }
    }
}

impl fmt::Debug for SkillFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillFile")
            .field("path", &self.path)
            .field("len", &self.bytes.len())
            .field("executable", &self.executable)
            .finish()
    }
}
