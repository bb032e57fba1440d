//! What a folder's entry is: as its listing says and as a look at it says (hints, which may be
//! stale by the time the entry is opened), and as the opened entry itself says (what counts).

use std::fs::{File, Metadata};
use std::path::PathBuf;

/// What a folder's listing says an entry is, without following links; by the time the entry
/// is opened it may be something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listed {
    Folder,
    File,
    Link,
    /// A FIFO, a socket or a device: refused without being opened.
    Special,
    /// The file system does not say: the entry is opened to find out.
    Unknown,
}

/// An entry as a look at it says, without opening or following it: enough to walk the folder
/// and judge the limits before anything is read, never what a read is judged on.
#[derive(Debug)]
pub(super) enum Seen {
    Folder,
    File {
        len: u64,
    },
    /// A symbolic link, with its target as written.
    Link(PathBuf),
    Special,
}

/// An entry as found when opened without following links: judged on the open file, never on
/// its name.
#[derive(Debug)]
pub(super) enum Node<D> {
    Folder(D),
    /// A regular file, open, with what the open file says about itself (size, mode).
    File(File, Metadata),
    /// A symbolic link, with its target as written; not followed.
    Link(PathBuf),
    /// A FIFO, a socket or a device (opened without waiting, never read).
    Special,
}
