//! Opening a folder's entries with the standard library alone, where the walk has no
//! descriptor-relative calls (every platform but Unix). A link is never followed when it is
//! seen, and what is read is judged on the open file (a regular file, its size), never on
//! its name. On Windows a file is opened as the reparse point it may have become since it was
//! looked at (`FILE_FLAG_OPEN_REPARSE_POINT`), so a link swapped in is read as a link, not
//! followed; elsewhere it is opened by path, and such a link is followed. Everywhere a folder
//! is held by its path, so a link swapped in for a folder on the way is followed. The crate
//! docs say so (see [Reading a folder](crate#reading-a-folder)).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use super::entry::{Listed, Node, Seen};

/// `FILE_FLAG_OPEN_REPARSE_POINT` of `CreateFileW`: a reparse point (a symbolic link, a
/// junction, a file kept by a filter such as OneDrive's) is opened itself, not followed.
#[cfg(windows)]
const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;

/// `FILE_ATTRIBUTE_REPARSE_POINT`: the file opened is a reparse point.
#[cfg(windows)]
const FILE_ATTRIBUTE_REPARSE_POINT: u32 = 0x0400;

/// Opens the file at `path` to read it, as the reparse point it may be, never what one
/// leads to.
#[cfg(windows)]
fn open_file(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)
}

/// Opens the file at `path` to read it; a link in its place is followed.
#[cfg(not(windows))]
fn open_file(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Whether the file opened is a reparse point: a link or a junction swapped in after the
/// look, or a file whose bytes a filter provides (OneDrive's files on demand, Data
/// Deduplication), which a read without the filter would get wrong.
#[cfg(windows)]
fn is_reparse_point(meta: &Metadata) -> bool {
    use std::os::windows::fs::MetadataExt;
    meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0
}

/// No file is a reparse point outside Windows.
#[cfg(not(windows))]
fn is_reparse_point(_: &Metadata) -> bool {
    false
}

/// A folder, by its path.
#[derive(Debug)]
pub(super) struct Dir(PathBuf);

impl Dir {
    /// The folder at `path`, links on the way followed; something else than a folder is an
    /// error of the kind [`io::ErrorKind::NotADirectory`].
    pub(super) fn open(path: &Path) -> io::Result<Self> {
        if fs::metadata(path)?.is_dir() {
            Ok(Self(path.to_path_buf()))
        } else {
            Err(io::ErrorKind::NotADirectory.into())
        }
    }

    /// The entries, as the listing describes them, read as they are taken.
    pub(super) fn entries(
        &mut self,
    ) -> io::Result<impl Iterator<Item = io::Result<(OsString, Listed)>> + '_> {
        Ok(fs::read_dir(&self.0)?.map(|entry| {
            let entry = entry?;
            let listed = match entry.file_type() {
                Ok(kind) if kind.is_dir() => Listed::Folder,
                Ok(kind) if kind.is_file() => Listed::File,
                Ok(kind) if kind.is_symlink() => Listed::Link,
                Ok(_) => Listed::Special,
                Err(_) => Listed::Unknown,
            };
            Ok((entry.file_name(), listed))
        }))
    }

    /// What the entry `name` is, without following it or opening it.
    pub(super) fn look(&self, name: &OsStr) -> io::Result<Seen> {
        let path = self.0.join(name);
        let meta = fs::symlink_metadata(&path)?;
        let kind = meta.file_type();
        Ok(if kind.is_symlink() {
            Seen::Link(fs::read_link(&path)?)
        } else if kind.is_dir() {
            Seen::Folder
        } else if kind.is_file() {
            Seen::File { len: meta.len() }
        } else {
            Seen::Special
        })
    }

    /// Opens the entry `name` as a folder on the way to a file; the same as
    /// [`open_entry`](Self::open_entry) here.
    pub(super) fn open_folder(&self, name: &OsStr) -> io::Result<Node<Self>> {
        self.open_entry(name)
    }

    /// Looks at the entry `name` without following it, then opens a regular file and judges
    /// it again on the open file.
    pub(super) fn open_entry(&self, name: &OsStr) -> io::Result<Node<Self>> {
        let path = self.0.join(name);
        let kind = fs::symlink_metadata(&path)?.file_type();
        if kind.is_symlink() {
            return Ok(Node::Link(fs::read_link(&path)?));
        }
        if kind.is_dir() {
            return Ok(Node::Folder(Self(path)));
        }
        if !kind.is_file() {
            return Ok(Node::Special);
        }
        opened(&path, open_file(&path)?)
    }
}

/// What the file opened at `path` is, judged on the open file: a regular file; a link or a
/// junction opened as itself (swapped in after the look), read as a link, as one seen by
/// the look is; anything else, other reparse points included, special.
fn opened(path: &Path, file: File) -> io::Result<Node<Dir>> {
    let meta = file.metadata()?;
    if meta.file_type().is_symlink() {
        return Ok(Node::Link(fs::read_link(path)?));
    }
    Ok(if meta.is_file() && !is_reparse_point(&meta) {
        Node::File(file, meta)
    } else {
        Node::Special
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("skillpub-portable-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("folder")).unwrap();
        dir
    }

    #[test]
    fn links_are_read_not_followed_and_files_are_judged_when_open() {
        let dir = scratch("kinds");
        fs::write(dir.join("file.md"), "x").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.join("link.md")).unwrap();
        let mut open = Dir::open(&dir).unwrap();
        let mut listed: Vec<(OsString, Listed)> =
            open.entries().unwrap().map(Result::unwrap).collect();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<(&str, Listed)> = listed
            .iter()
            .map(|(name, listed)| (name.to_str().unwrap(), *listed))
            .collect();
        assert_eq!(
            names,
            [
                ("file.md", Listed::File),
                ("folder", Listed::Folder),
                ("link.md", Listed::Link)
            ]
        );
        assert!(
            matches!(open.open_entry("file.md".as_ref()), Ok(Node::File(_, meta)) if meta.len() == 1)
        );
        assert!(matches!(
            open.open_entry("folder".as_ref()),
            Ok(Node::Folder(_))
        ));
        assert!(
            matches!(open.open_entry("link.md".as_ref()), Ok(Node::Link(target)) if target == Path::new("/etc/passwd"))
        );
        assert!(matches!(
            open.open_folder("folder".as_ref()),
            Ok(Node::Folder(_))
        ));
        assert!(matches!(
            open.look("file.md".as_ref()),
            Ok(Seen::File { len: 1 })
        ));
        assert!(matches!(open.look("folder".as_ref()), Ok(Seen::Folder)));
        assert!(
            matches!(open.look("link.md".as_ref()), Ok(Seen::Link(target)) if target == Path::new("/etc/passwd"))
        );
        assert_eq!(
            Dir::open(&dir.join("file.md")).unwrap_err().kind(),
            io::ErrorKind::NotADirectory
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_is_read_is_judged_on_the_file_opened() {
        let dir = scratch("opened");
        fs::write(dir.join("file.md"), "x").unwrap();
        let file = dir.join("file.md");
        assert!(
            matches!(opened(&file, open_file(&file).unwrap()), Ok(Node::File(_, meta)) if meta.len() == 1)
        );
        let folder = dir.join("folder");
        assert!(matches!(
            opened(&folder, File::open(&folder).unwrap()),
            Ok(Node::Special)
        ));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_is_special_and_never_opened() {
        let dir = scratch("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(dir.join("pipe"))
            .status()
            .unwrap();
        assert!(status.success());
        let open = Dir::open(&dir).unwrap();
        assert!(matches!(
            open.open_entry("pipe".as_ref()),
            Ok(Node::Special)
        ));
        fs::remove_dir_all(&dir).unwrap();
    }
}

#[cfg(all(test, windows))]
mod windows_tests {
    use super::*;

    #[test]
    fn a_link_swapped_in_after_the_look_is_opened_as_a_link_not_followed() {
        let dir =
            std::env::temp_dir().join(format!("skillpub-portable-swap-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let (file, secret) = (dir.join("file.md"), dir.join("secret.md"));
        fs::write(&secret, "SECRET").unwrap();
        fs::write(&file, "x").unwrap();
        let open = Dir::open(&dir).unwrap();
        assert!(matches!(
            open.look("file.md".as_ref()),
            Ok(Seen::File { len: 1 })
        ));
        // The swap, between the look and the open.
        fs::remove_file(&file).unwrap();
        if let Err(error) = std::os::windows::fs::symlink_file(&secret, &file) {
            // Making a symbolic link takes developer mode or an administrator.
            let missing = format!("no symbolic link can be made here ({error})");
            skillpub_testkit::skip_or_fail(
                "a_link_swapped_in_after_the_look_is_opened_as_a_link_not_followed",
                &missing,
            );
            fs::remove_dir_all(&dir).unwrap();
            return;
        }
        let node = opened(&file, open_file(&file).unwrap()).unwrap();
        assert!(
            matches!(&node, Node::Link(target) if *target == secret),
            "{node:?}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
