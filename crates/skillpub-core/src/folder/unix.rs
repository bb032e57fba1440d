//! Opening a folder's entries on Unix: through the descriptor of the folder (`openat`), never
//! following a symbolic link (`O_NOFOLLOW`), never waiting for a writer (`O_NONBLOCK`), and
//! judged on the descriptor opened (`fstat`). A walk that holds a folder by its descriptor
//! reads beneath that folder, whatever is renamed on the way to it meanwhile.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use super::entry::{Listed, Node, Seen};

/// Every entry is opened read-only, without following a link, without waiting (a FIFO opens
/// at once instead of waiting for a writer), without becoming the controlling terminal, and
/// closed on `exec`.
const ENTRY: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// A folder on the way to a file is opened the same way, as a folder only; a link or a file in
/// its place fails the open, and [`Dir::open_entry`] then says which.
const FOLDER: OFlags = ENTRY.union(OFlags::DIRECTORY);

/// An open folder, whose descriptor also reads its listing (once: the walk lists a folder
/// once, and may stop before its end).
#[derive(Debug)]
pub(super) struct Dir(rustix::fs::Dir);

impl Dir {
    fn new(fd: OwnedFd) -> io::Result<Self> {
        Ok(Self(rustix::fs::Dir::new(fd)?))
    }

    fn fd(&self) -> io::Result<BorrowedFd<'_>> {
        Ok(self.0.fd()?)
    }

    /// The folder at `path`, the one the caller named: links on the way to it are followed,
    /// since the caller chose them. Something else than a folder is an error of the kind
    /// [`io::ErrorKind::NotADirectory`].
    pub(super) fn open(path: &Path) -> io::Result<Self> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        Self::new(rustix::fs::open(path, flags, Mode::empty())?)
    }

    /// The entries, as the listing describes them, without `.` and `..`, read from the
    /// descriptor as they are taken.
    pub(super) fn entries(
        &mut self,
    ) -> io::Result<impl Iterator<Item = io::Result<(OsString, Listed)>> + '_> {
        Ok(std::iter::from_fn(move || {
            loop {
                let entry = match self.0.read()? {
                    Ok(entry) => entry,
                    Err(error) => return Some(Err(error.into())),
                };
                let name = entry.file_name().to_bytes();
                if name == b"." || name == b".." {
                    continue;
                }
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
                return Some(Ok((OsString::from_vec(name.to_vec()), listed)));
            }
        }))
    }

    /// What the entry `name` of this folder is, by `fstatat` without following it: nothing is
    /// opened, so nothing waits.
    pub(super) fn look(&self, name: &OsStr) -> io::Result<Seen> {
        let stat = rustix::fs::statat(self.fd()?, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => Seen::Folder,
            FileType::RegularFile => Seen::File {
                len: u64::try_from(stat.st_size).unwrap_or(0),
            },
            FileType::Symlink => Seen::Link(self.read_link(name)?),
            _ => Seen::Special,
        })
    }

    fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
        let target = rustix::fs::readlinkat(self.fd()?, name, Vec::new())?;
        Ok(PathBuf::from(OsString::from_vec(target.into_bytes())))
    }

    /// Opens the entry `name` as a folder on the way to a file: one call when it is a folder,
    /// as [`open_entry`](Self::open_entry) says otherwise.
    pub(super) fn open_folder(&self, name: &OsStr) -> io::Result<Node<Self>> {
        match rustix::fs::openat(self.fd()?, name, FOLDER, Mode::empty()) {
            Ok(fd) => Ok(Node::Folder(Self::new(fd)?)),
            Err(_) => self.open_entry(name),
        }
    }

    /// Opens the entry `name` of this folder, never following it; a link is read, not
    /// followed.
    pub(super) fn open_entry(&self, name: &OsStr) -> io::Result<Node<Self>> {
        let fd = match rustix::fs::openat(self.fd()?, name, ENTRY, Mode::empty()) {
            Ok(fd) => fd,
            // `O_NOFOLLOW` fails on a link (ELOOP on Linux, EMLINK on FreeBSD, EFTYPE on
            // NetBSD): whether it was one, `readlinkat` tells alike everywhere.
            Err(error) => {
                return match self.read_link(name) {
                    Ok(target) => Ok(Node::Link(target)),
                    Err(_) => Err(error.into()),
                };
            }
        };
        let file = File::from(fd);
        let meta = file.metadata()?;
        Ok(if meta.is_file() {
            Node::File(file, meta)
        } else if meta.is_dir() {
            Node::Folder(Self::new(file.into())?)
        } else {
            Node::Special
        })
    }
}
