//! Scratch folders: a fresh folder per test, removed when the test is done with it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Tells apart the scratch folders of one test process made within the clock's resolution.
static MADE: AtomicU64 = AtomicU64::new(0);

/// A fresh, empty folder under the system's temporary folder, removed with everything in it
/// when dropped.
///
/// Its name holds the `name` given, the process id, a counter and the time, so that tests
/// running at once (in one process or in several) never share a folder, and a folder left by a
/// test that was killed says which test made it.
///
/// # Example
///
/// ```
/// use skillpub_testkit::Scratch;
///
/// let scratch = Scratch::new("doc-example");
/// let skill_md = scratch.write("greeting/SKILL.md", "---\nname: greeting\n---\n");
/// assert_eq!(skill_md, scratch.path().join("greeting/SKILL.md"));
/// assert!(std::fs::read_to_string(&skill_md).unwrap().contains("greeting"));
///
/// let folder = scratch.path().to_owned();
/// drop(scratch);
/// assert!(!folder.exists());
/// ```
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Makes the folder `skillpub-<name>-<pid>-<n>-<nanos>` in the temporary folder.
    ///
    /// # Panics
    ///
    /// When the folder cannot be made.
    #[track_caller]
    pub fn new(name: &str) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        let made = MADE.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "skillpub-{name}-{}-{made}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|error| panic!("cannot make {}: {error}", path.display()));
        Self { path }
    }

    /// The folder.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder as text, for a command line.
    ///
    /// # Panics
    ///
    /// When the temporary folder's path is not UTF-8.
    #[must_use]
    #[track_caller]
    pub fn arg(&self) -> &str {
        self.path
            .to_str()
            .unwrap_or_else(|| panic!("{} is not UTF-8", self.path.display()))
    }

    /// Writes `contents` to `relative` (a path inside the folder, such as
    /// `greeting/SKILL.md`), making the folders on the way; returns the file's path.
    ///
    /// # Panics
    ///
    /// When the file cannot be written.
    #[track_caller]
    pub fn write(&self, relative: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let file = self.path.join(relative);
        if let Some(parent) = file.parent() {
            make_folder(parent);
        }
        std::fs::write(&file, contents)
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", file.display()));
        file
    }

    /// Makes the folder `relative` inside the scratch folder, with the folders on the way;
    /// returns its path.
    ///
    /// # Panics
    ///
    /// When the folder cannot be made.
    #[track_caller]
    pub fn folder(&self, relative: impl AsRef<Path>) -> PathBuf {
        let folder = self.path.join(relative);
        make_folder(&folder);
        folder
    }
}

#[track_caller]
fn make_folder(folder: &Path) {
    std::fs::create_dir_all(folder)
        .unwrap_or_else(|error| panic!("cannot make {}: {error}", folder.display()));
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // A folder that cannot be removed (a file still open on Windows) is left for the
        // system's clean-up of its temporary folder; the test has its answer already.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
