//! Opening a folder's entries on Unix: through the descriptor of the folder (`openat`), never
//! following a symbolic link (`O_NOFOLLOW`), never waiting for a writer (`O_NONBLOCK`), and
//! judged on the descriptor opened (`fstat`). A walk that holds a folder by its descriptor
//! reads beneath that folder, whatever is renamed on the way to it meanwhile.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags};

use super::entry::{Listed, Node};

/// Every entry is opened read-only, without following a link, without waiting (a FIFO opens
/// at once instead of waiting for a writer), without becoming the controlling terminal, and
/// closed on `exec`.
const ENTRY: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// An open folder.
#[derive(Debug)]
pub(super) struct Dir(OwnedFd);

impl Dir {
    /// The folder at `path`, the one the caller named: links on the way to it are followed,
    /// since the caller chose them. Something else than a folder is an error of the kind
    /// [`io::ErrorKind::NotADirectory`].
    pub(super) fn open(path: &Path) -> io::Result<Self> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        Ok(Self(rustix::fs::open(path, flags, Mode::empty())?))
    }

    /// The entries, as the listing describes them, without `.` and `..`.
    pub(super) fn list(&self) -> io::Result<Vec<(OsString, Listed)>> {
        let mut listing = rustix::fs::Dir::read_from(&self.0)?;
        let mut entries = Vec::new();
        while let Some(entry) = listing.read() {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                let listed = match entry.file_type() {
                    FileType::Directory => Listed::Folder,
                    FileType::RegularFile => Listed::File,
                    FileType::Symlink => Listed::Link,
                    FileType::Unknown => Listed::Unknown,
                    FileType::Fifo
                    | FileType::Socket
                    | FileType::CharacterDevice
                    | FileType::BlockDevice => Listed::Special,
                };
                entries.push((OsString::from_vec(name.to_vec()), listed));
            }
        }
        Ok(entries)
    }

    /// Opens the entry `name` of this folder, never following it; a link is read, not
    /// followed.
    pub(super) fn open_entry(&self, name: &OsStr) -> io::Result<Node<Self>> {
        let fd = match rustix::fs::openat(&self.0, name, ENTRY, Mode::empty()) {
            Ok(fd) => fd,
            // `O_NOFOLLOW` fails on a link (ELOOP on Linux, EMLINK on FreeBSD, EFTYPE on
            // NetBSD): whether it was one, `readlinkat` tells alike everywhere.
            Err(error) => {
                return match rustix::fs::readlinkat(&self.0, name, Vec::new()) {
                    Ok(target) => Ok(Node::Link(PathBuf::from(OsString::from_vec(
                        target.into_bytes(),
                    )))),
                    Err(_) => Err(error.into()),
                };
            }
        };
        let file = File::from(fd);
        let meta = file.metadata()?;
        Ok(if meta.is_file() {
            Node::File(file, meta)
        } else if meta.is_dir() {
            Node::Folder(Self(file.into()))
        } else {
            Node::Special
        })
    }
}
