//! What the folder walk left out, and why (feature `fs`): not an error, but worth a warning.

use std::fmt;
use std::path::PathBuf;

/// A file or folder that was left out, and why. It is not an error, but worth a warning:
/// its `Display` is one line for that, `skipped PATH (REASON)`.
///
/// # Example
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("skillpub-skipped-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(dir.join("pdf")).unwrap();
/// # std::fs::create_dir_all(dir.join("shared")).unwrap();
/// # std::fs::write(dir.join("pdf/SKILL.md"), "---\nname: pdf\ndescription: Reads PDFs.\n---\n").unwrap();
/// let catalog = skillpub_core::Catalog::from_dir(&dir)?;
/// let warnings: Vec<String> = catalog.skipped().iter().map(ToString::to_string).collect();
/// assert_eq!(warnings, [format!(
///     "skipped {} (the folder has no SKILL.md, so it is not a skill)",
///     dir.join("shared").display(),
/// )]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The path left out.
    pub path: PathBuf,
    /// Why.
    pub reason: &'static str,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skipped {} ({})", self.path.display(), self.reason)
    }
}
