//! An I/O error with the path it happened at, for the folder walk (feature `fs`).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An I/O error with the path it happened at (the shape of ripgrep's `ignore::Error::WithPath`):
/// the operating system's [`io::Error`] is kept whole, as [`source`](std::error::Error::source)
/// and [`io_error`](Self::io_error), and the path is a field, not part of a string.
///
/// It is `Clone + Eq`, as every [`ErrorKind`](crate::ErrorKind) is, so that errors can be compared in tests and
/// copied into reports; `io::Error` is neither, so it is shared behind an [`Arc`] and two
/// errors are equal when their paths and their [`io::ErrorKind`]s are. The operating system's
/// wording is left out of the comparison: it differs between systems for the same failure.
/// (A separate error type for the walk would have split one list of problems, which the
/// linter and the build script print together, into two.)
///
/// # Example
///
/// ```
/// use skillpub_core::{ErrorKind, folder::read_skills_folder};
///
/// let errors = read_skills_folder("no/such/folder").unwrap_err();
/// let ErrorKind::Io(error) = errors.as_slice()[0].kind() else { panic!("{errors}") };
/// assert_eq!(error.path(), std::path::Path::new("no/such/folder"));
/// assert_eq!(error.io_error().kind(), std::io::ErrorKind::NotFound);
/// assert!(std::error::Error::source(&errors.as_slice()[0]).is_some());
/// ```
#[derive(Debug, Clone)]
pub struct IoError {
    path: PathBuf,
    source: Arc<io::Error>,
}

impl IoError {
    /// The error `source` at `path`; `skillpub-build` reports the archives it cannot write to
    /// `OUT_DIR` with it.
    ///
    /// # Example
    ///
    /// ```
    /// let error = skillpub_core::folder::IoError::new("out/a.tar.gz".as_ref(), std::io::ErrorKind::StorageFull.into());
    /// assert_eq!(error.path(), std::path::Path::new("out/a.tar.gz"));
    /// ```
    #[must_use]
    pub fn new(path: &Path, source: io::Error) -> Self {
        Self {
            path: path.to_path_buf(),
            source: Arc::new(source),
        }
    }

    /// The file or folder that could not be read.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the operating system said.
    #[must_use]
    pub fn io_error(&self) -> &io::Error {
        &self.source
    }
}

/// Equal when the paths and the [`io::ErrorKind`]s are.
impl PartialEq for IoError {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.source.kind() == other.source.kind()
    }
}

impl Eq for IoError {}

/// `PATH: REASON`.
impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for IoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}
