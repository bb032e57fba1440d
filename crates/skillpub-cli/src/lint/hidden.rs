//! The hidden files of a skill folder (`.env`, `.npmrc`, `.secrets`), which the walk leaves
//! out of what is published: lint reviews them all the same, since they sit beside the
//! skill in its repository, and an agent or a packager that copies the folder copies them.
//! Each is read only if it is a regular file of at most [`MAX_HIDDEN_BYTES`], opened and
//! then checked on the open descriptor to be the file that was listed, never a link.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use skillpub_core::folder::Skipped;

/// The largest hidden file read: a configuration, not a data set.
pub(super) const MAX_HIDDEN_BYTES: u64 = 1 << 20;

/// The hidden files that the walk skipped inside the skill folder `folder`, each with its
/// path in the folder (`/`-separated) and its bytes; what cannot be read is left out.
pub(super) fn hidden_files(folder: &Path, skipped: &[Skipped]) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = skipped
        .iter()
        .filter_map(|skipped| {
            let inside = skipped.path.strip_prefix(folder).ok()?;
            let relative: Vec<&str> = inside
                .iter()
                .map(|part| part.to_str())
                .collect::<Option<_>>()?;
            // A hidden file at any depth, but not what is inside a hidden folder (`.git`).
            if relative
                .iter()
                .rev()
                .skip(1)
                .any(|part| part.starts_with('.'))
            {
                return None;
            }
            let bytes = read_regular(&skipped.path)?;
            Some((relative.join("/"), bytes))
        })
        .collect();
    files.sort();
    files
}

/// The bytes of the regular file at `path`, if it is one (not a link, a folder or a device)
/// of at most [`MAX_HIDDEN_BYTES`], and is still the file that was listed once it is open.
fn read_regular(path: &Path) -> Option<Vec<u8>> {
    let listed = std::fs::symlink_metadata(path).ok()?;
    if !listed.file_type().is_file() || listed.len() > MAX_HIDDEN_BYTES {
        return None;
    }
    let file = open_without_waiting(path)?;
    let opened = file.metadata().ok()?;
    if !opened.file_type().is_file() || !same_file(&listed, &opened) {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_HIDDEN_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The file at `path` opened for reading without following a link and without waiting: a
/// FIFO swapped in after the look opens at once (and is then refused as no regular file)
/// instead of blocking until a writer comes.
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn open_without_waiting(path: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
        .ok()
}

/// Elsewhere, a hidden file is not read: without a way to open it without waiting, a FIFO
/// swapped in could hold lint.
#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn open_without_waiting(_path: &Path) -> Option<File> {
    None
}

/// Whether two looks at a path saw the same file.
#[cfg(unix)]
fn same_file(listed: &std::fs::Metadata, opened: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (listed.dev(), listed.ino()) == (opened.dev(), opened.ino())
}

/// Whether two looks at a path saw the same file: the size and the time it was changed, where
/// the platform gives no file identity to compare.
#[cfg(not(unix))]
fn same_file(listed: &std::fs::Metadata, opened: &std::fs::Metadata) -> bool {
    listed.len() == opened.len() && listed.modified().ok() == opened.modified().ok()
}
