//! Putting a staged export in place as a whole. Every path an export owns (the tree's folders,
//! the API catalog, the nginx snippet, `_headers`) is first written into one staging folder in
//! `.well-known/`, then moved in part by part, each with an atomic exchange where the platform
//! has one (Linux's `renameat2(RENAME_EXCHANGE)`, macOS's `renameatx_np(RENAME_SWAP)`); a
//! failure puts back every part already moved. A lock file serialises exports to one folder.
//!
//! Without an exchange (other platforms, or a file system that refuses it), a file is replaced
//! by one rename after the previous one is hard-linked aside, so it is never missing; a folder
//! is moved aside and the new one moved in, two renames during which it is missing.

use std::fmt;
use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// The lock file in the output folder, held for the whole export. It stays, empty, between
/// exports: removing it would let two exports lock two different files.
pub(crate) const LOCK_FILE: &str = ".skillpub-export.lock";
/// How staging folders in `.well-known/` start. Only an export holding the lock creates one,
/// so one found by the lock's holder was left by an export that crashed.
const STAGING_PREFIX: &str = ".skillpub-staging-";
/// The suffix, inside the staging folder, of a previous version moved aside where no exchange
/// is available.
const ASIDE_SUFFIX: &str = ".previous";

/// A path that an export owns and replaces as a whole.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    /// Its name in the staging folder.
    name: &'static str,
    /// Where it goes.
    target: PathBuf,
    /// Whether it is a folder (else a file).
    folder: bool,
}

impl Part {
    /// A part staged as `name` and put at `target`.
    pub(crate) fn new(name: &'static str, target: PathBuf, folder: bool) -> Self {
        Self {
            name,
            target,
            folder,
        }
    }
}

/// Why an export stopped, and what it left in the output folder.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Nothing in the output folder was changed.
    Unchanged(String),
    /// Some parts were already in place; all were put back, so the previous export is whole.
    RolledBack {
        /// What went wrong.
        problem: String,
        /// The parts that were put back.
        restored: Vec<PathBuf>,
    },
    /// Putting a part back failed too: those parts are from this export, the rest from the
    /// previous one.
    Mixed {
        /// What went wrong first.
        problem: String,
        /// The parts left from this export, with why each could not be put back.
        stuck: Vec<(PathBuf, io::Error)>,
        /// The staging folder, which holds the previous versions of the stuck parts.
        staging: PathBuf,
    },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unchanged(problem) => write!(
                f,
                "{problem}. Nothing was changed: the previous export, if any, is intact"
            ),
            Self::RolledBack { problem, restored } => write!(
                f,
                "{problem}. The parts already in place ({}) were put back: the previous export is intact",
                list(restored.iter().map(PathBuf::as_path))
            ),
            Self::Mixed {
                problem,
                stuck,
                staging,
            } => {
                write!(
                    f,
                    "{problem}. Putting back the previous export failed too ("
                )?;
                for (index, (path, error)) in stuck.iter().enumerate() {
                    let separator = if index == 0 { "" } else { "; " };
                    write!(f, "{separator}`{}`: {error}", path.display())?;
                }
                write!(
                    f,
                    "), so {} {} from this export and the rest from the previous one, whose copies are in `{}`; export again to make it whole",
                    list(stuck.iter().map(|(path, _)| path.as_path())),
                    if stuck.len() == 1 { "is" } else { "are" },
                    staging.display()
                )
            }
        }
    }
}

/// `a`, `b`, `c` as text.
fn list<'a>(paths: impl Iterator<Item = &'a Path>) -> String {
    paths
        .map(|path| format!("`{}`", path.display()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An export being staged while holding the output folder's lock; dropping it removes the
/// staging folder and releases the lock.
#[derive(Debug)]
pub(crate) struct Staging {
    path: PathBuf,
    parts: Vec<Part>,
    /// Set when the staging folder holds the only copy of a previous version.
    keep: bool,
    _lock: File,
}

impl Staging {
    /// Takes the lock of `out_dir` (waiting while another export holds it), clears what a
    /// crashed export left, and creates an empty staging folder.
    pub(crate) fn begin(out_dir: &Path, parts: Vec<Part>) -> Result<Self, Failure> {
        let well_known = out_dir.join(".well-known");
        fs::create_dir_all(&well_known).map_err(|error| {
            Failure::Unchanged(format!("cannot create `{}`: {error}", well_known.display()))
        })?;
        let lock = lock(&out_dir.join(LOCK_FILE), out_dir)?;
        recover(&well_known, &parts);
        let path = well_known.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        fs::create_dir(&path).map_err(|error| {
            Failure::Unchanged(format!("cannot create `{}`: {error}", path.display()))
        })?;
        Ok(Self {
            path,
            parts,
            keep: false,
            _lock: lock,
        })
    }

    /// Writes a file at `relative` (`/`-separated, below `.well-known/` for the tree, a part's
    /// name for a configuration file) in the staging folder.
    pub(crate) fn write(&self, relative: &str, bytes: &[u8]) -> Result<(), Failure> {
        let path = self.path.join(relative);
        path.parent()
            .map_or(Ok(()), fs::create_dir_all)
            .and_then(|()| fs::write(&path, bytes))
            .map_err(|error| {
                Failure::Unchanged(format!("cannot write `{}`: {error}", path.display()))
            })
    }

    /// Puts every staged part in place, or none: after a failure, the parts already in place
    /// are put back. Then removes the staging folder, which holds the previous versions.
    pub(crate) fn commit(mut self) -> Result<(), Failure> {
        let mut placed: Vec<(&Part, Placed)> = Vec::new();
        for part in &self.parts {
            let staged = self.path.join(part.name);
            if fs::symlink_metadata(&staged).is_err() {
                continue;
            }
            match place(&staged, part) {
                Ok(how) => placed.push((part, how)),
                Err(problem) => {
                    let failure = roll_back(&self.path, placed, problem);
                    self.keep = matches!(failure, Failure::Mixed { .. });
                    return Err(failure);
                }
            }
        }
        self.keep = true;
        if let Err(error) = fs::remove_dir_all(&self.path) {
            eprintln!(
                "skillpub export: the export is in place, but `{}` could not be removed: {error}; the next export removes it",
                self.path.display()
            );
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// Opens and locks `path`, waiting (and saying so) while another export holds it. The lock
/// goes with the process, so a crashed export never leaves it taken.
fn lock(path: &Path, out_dir: &Path) -> Result<File, Failure> {
    let cannot =
        |error: io::Error| Failure::Unchanged(format!("cannot lock `{}`: {error}", path.display()));
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(cannot)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            eprintln!(
                "skillpub export: another export to `{}` is running; waiting for it to finish",
                out_dir.display()
            );
            file.lock().map_err(cannot)?;
        }
        Err(TryLockError::Error(error)) => return Err(cannot(error)),
    }
    Ok(file)
}

/// Clears the staging folders of exports that crashed (called with the lock held). A previous
/// version moved aside whose place is empty (a crash between the two renames of a folder,
/// where no exchange exists) is put back first.
fn recover(well_known: &Path, parts: &[Part]) {
    let Ok(entries) = fs::read_dir(well_known) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .starts_with(STAGING_PREFIX)
        {
            continue;
        }
        let staging = entry.path();
        for part in parts {
            let aside = staging.join(format!("{}{ASIDE_SUFFIX}", part.name));
            if fs::symlink_metadata(&aside).is_ok()
                && fs::symlink_metadata(&part.target).is_err()
                && let Err(error) = fs::rename(&aside, &part.target)
            {
                eprintln!(
                    "skillpub export: cannot put back `{}` from a crashed export: {error}",
                    part.target.display()
                );
            }
        }
        if let Err(error) = fs::remove_dir_all(&staging) {
            eprintln!(
                "skillpub export: cannot remove `{}`, left by a crashed export: {error}",
                staging.display()
            );
        }
    }
}

/// How a part was put in place, which says how to put the previous one back.
#[derive(Debug)]
enum Placed {
    /// There was nothing at the target.
    New,
    /// The staged part and the previous one were exchanged; the previous one is where the
    /// staged part was.
    Exchanged,
    /// The previous one was moved (or hard-linked) aside, to this path.
    Aside(PathBuf),
}

/// Puts `staged` at `part.target`, keeping the previous version for a rollback. A folder
/// replaces a folder and a file a file; the other way round is refused before anything moves.
fn place(staged: &Path, part: &Part) -> Result<Placed, String> {
    let target = &part.target;
    let moving = |error: io::Error| {
        format!(
            "cannot move `{}` to `{}`: {error}",
            staged.display(),
            target.display()
        )
    };
    match fs::symlink_metadata(target) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return fs::rename(staged, target)
                .map(|()| Placed::New)
                .map_err(moving);
        }
        Err(error) => return Err(format!("cannot read `{}`: {error}", target.display())),
        Ok(meta) if part.folder && meta.is_file() => {
            return Err(format!(
                "`{}` is a file, but the export writes a folder there; move it away",
                target.display()
            ));
        }
        Ok(meta) if !part.folder && meta.is_dir() => {
            return Err(format!(
                "`{}` is a folder, but the export writes a file there; move it away",
                target.display()
            ));
        }
        Ok(_) => {}
    }
    if exchange(staged, target).map_err(moving)? {
        return Ok(Placed::Exchanged);
    }
    place_aside(staged, part).map_err(moving)
}

/// Puts `staged` at `part.target` where no exchange is available, the previous version moved
/// aside in the staging folder. A file stays in place while a hard link keeps the previous
/// version, and one rename then replaces it; a folder (or a file on a file system without hard
/// links) is moved aside first, and is missing until the second rename.
fn place_aside(staged: &Path, part: &Part) -> io::Result<Placed> {
    let target = &part.target;
    let aside = staged.with_file_name(format!("{}{ASIDE_SUFFIX}", part.name));
    let linked = !part.folder && fs::hard_link(target, &aside).is_ok();
    if !linked {
        fs::rename(target, &aside)?;
    }
    if let Err(error) = fs::rename(staged, target) {
        let _ = if linked {
            fs::remove_file(&aside)
        } else {
            fs::rename(&aside, target)
        };
        return Err(error);
    }
    Ok(Placed::Aside(aside))
}

/// Undoes a [`place`].
fn put_back(staged: &Path, part: &Part, how: &Placed) -> io::Result<()> {
    match how {
        Placed::New => fs::rename(&part.target, staged),
        Placed::Exchanged => exchange(staged, &part.target).and_then(|exchanged| {
            if exchanged {
                Ok(())
            } else {
                Err(io::Error::other(
                    "the exchange that put it in place now fails",
                ))
            }
        }),
        Placed::Aside(aside) => {
            if part.folder {
                fs::rename(&part.target, staged)?;
            }
            fs::rename(aside, &part.target)
        }
    }
}

/// Puts back every part placed, the last first, and says what the folder now holds.
fn roll_back(staging: &Path, placed: Vec<(&Part, Placed)>, problem: String) -> Failure {
    if placed.is_empty() {
        return Failure::Unchanged(problem);
    }
    let mut restored = Vec::new();
    let mut stuck = Vec::new();
    for (part, how) in placed.into_iter().rev() {
        match put_back(&staging.join(part.name), part, &how) {
            Ok(()) => restored.push(part.target.clone()),
            Err(error) => stuck.push((part.target.clone(), error)),
        }
    }
    if stuck.is_empty() {
        restored.reverse();
        Failure::RolledBack { problem, restored }
    } else {
        Failure::Mixed {
            problem,
            stuck,
            staging: staging.to_path_buf(),
        }
    }
}

/// Exchanges `a` and `b` (both exist) in one step; `Ok(false)` when the platform or the file
/// system cannot.
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        // Linux before 3.15, or a file system without the exchange (some network and FUSE
        // ones, HFS+).
        Err(errno)
            if [Errno::INVAL, Errno::NOSYS, Errno::NOTSUP, Errno::OPNOTSUPP].contains(&errno) =>
        {
            Ok(false)
        }
        Err(errno) => Err(errno.into()),
    }
}

/// Exchanges `a` and `b` in one step; `Ok(false)` when the platform or the file system cannot.
#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<bool> {
    Ok(false)
}

#[cfg(test)]
mod tests;
