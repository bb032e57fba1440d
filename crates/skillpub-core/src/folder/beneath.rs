//! Opening a file beneath a skill folder, held open: each component is opened from the one
//! before without following links, and a link is resolved here, by the walk's rules, rather
//! than by the operating system. A link may lead anywhere inside the skill folder except to a
//! hidden file or to a folder; what it leads to is opened the same way, component by
//! component, so nothing renamed meanwhile can take the read outside the folder.
//!
//! Where a link's target is absolute or climbs out of the folder with `..`, where it lands is
//! asked of the operating system ([`fs::canonicalize`], which reads no file); when that is
//! inside the skill folder, the rest is opened beneath the folder held open as before, so a
//! swap under that question can change which file inside is read, never read one outside.
//!
//! Linux's `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` would open a path beneath a
//! folder in one call, but it refuses every link, where the walk follows those that stay
//! inside, and it exists on Linux 5.6 and later only; opening one component at a time with
//! `O_NOFOLLOW` gives the same guarantee on every Unix, with no fallback to keep.

use std::cell::OnceCell;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Metadata};
use std::io;
use std::path::{Component, Path, PathBuf};

use super::entry::Node;
use super::open::Dir;

/// How many links one path may go through, as Linux's own limit (`MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// A skill folder, held open, and its path.
#[derive(Debug)]
pub(super) struct Beneath {
    root: Dir,
    path: PathBuf,
    /// The folder's path with every link resolved, asked once when a link needs it.
    canonical: OnceCell<Option<PathBuf>>,
    /// The folder a file was last read from, by its path beneath the skill folder: the files
    /// are read sorted by path, so the files of one folder come one after another.
    last: Option<(Vec<OsString>, Dir)>,
}

/// A regular file opened beneath the folder.
#[derive(Debug)]
pub(super) struct Opened {
    /// Its path inside the folder, every link resolved.
    pub(super) components: Vec<OsString>,
    pub(super) file: File,
    /// What the open file says about itself.
    pub(super) meta: Metadata,
}

/// Why a path beneath the folder was not opened.
#[derive(Debug)]
pub(super) enum Refusal {
    /// A link leads outside the folder, to this place.
    Outside(String),
    /// A link, as written, leads nowhere (or through more than [`MAX_LINKS`] links).
    Broken(PathBuf),
    /// A link, as written, leads to a hidden file.
    Hidden(PathBuf),
    /// A link leads to a folder.
    LinkedFolder,
    /// A FIFO, a socket, a device, or a folder where a file was.
    NotAFile,
    /// The file or a folder on its way could not be opened.
    Io(io::Error),
}

/// One step of a path.
enum Part {
    Here,
    Up,
    Name(OsString),
}

impl Part {
    fn text(&self) -> &OsStr {
        match self {
            Self::Here => ".".as_ref(),
            Self::Up => "..".as_ref(),
            Self::Name(name) => name,
        }
    }
}

/// The steps of a path without a root (a link's target relative to its folder).
fn parts(path: &Path) -> impl DoubleEndedIterator<Item = Part> + '_ {
    path.components().filter_map(|component| match component {
        Component::CurDir => Some(Part::Here),
        Component::ParentDir => Some(Part::Up),
        Component::Normal(name) => Some(Part::Name(name.to_owned())),
        Component::RootDir | Component::Prefix(_) => None,
    })
}

fn names(components: &[OsString]) -> VecDeque<Part> {
    components.iter().cloned().map(Part::Name).collect()
}

impl Beneath {
    pub(super) fn new(root: Dir, path: &Path) -> Self {
        Self {
            root,
            path: path.to_path_buf(),
            canonical: OnceCell::new(),
            last: None,
        }
    }

    /// The folder itself.
    pub(super) fn root(&self) -> &Dir {
        &self.root
    }

    /// The path of `components` beneath the folder.
    pub(super) fn path_of(&self, components: &[OsString]) -> PathBuf {
        let mut path = self.path.clone();
        path.extend(components);
        path
    }

    /// The folder at `components`, every one of them a folder (a link to a folder is never
    /// followed).
    pub(super) fn folder(&self, components: &[OsString]) -> Result<Dir, Refusal> {
        let mut at: Option<Dir> = None;
        for name in components {
            let dir = at.as_ref().unwrap_or(&self.root);
            at = Some(match dir.open_folder(name).map_err(Refusal::Io)? {
                Node::Folder(dir) => dir,
                Node::Link(_) => return Err(Refusal::LinkedFolder),
                Node::File(..) | Node::Special => {
                    return Err(Refusal::Io(io::ErrorKind::NotADirectory.into()));
                }
            });
        }
        at.ok_or(Refusal::NotAFile)
    }

    /// The regular file at `components`, following the links on the way that stay inside.
    pub(super) fn file(&mut self, components: &[OsString]) -> Result<Opened, Refusal> {
        if let Some((name, folder)) = components.split_last()
            && let Some(opened) = self.in_folder(folder, name)
        {
            return Ok(opened);
        }
        self.resolve(names(components), None)
    }

    /// The regular file `name` in the folder at `folder`, through the folder a file was last
    /// read from when it is that one; `None` for anything but a regular file reached without
    /// a link, which [`resolve`](Self::resolve) then judges.
    fn in_folder(&mut self, folder: &[OsString], name: &OsStr) -> Option<Opened> {
        let dir = if folder.is_empty() {
            &self.root
        } else {
            if self.last.as_ref().is_none_or(|(at, _)| at != folder) {
                self.last = Some((folder.to_vec(), self.folder(folder).ok()?));
            }
            &self.last.as_ref()?.1
        };
        match dir.open_entry(name).ok()? {
            Node::File(file, meta) => Some(Opened {
                components: folder.iter().cloned().chain([name.to_owned()]).collect(),
                file,
                meta,
            }),
            Node::Folder(_) | Node::Link(_) | Node::Special => None,
        }
    }

    /// The regular file that a link in the folder at `folder` leads to, written `target`.
    pub(super) fn link(&self, folder: &[OsString], target: &Path) -> Result<Opened, Refusal> {
        let start = if target.has_root() {
            self.relocate(target, target)?
        } else {
            let mut start = names(folder);
            start.extend(parts(target));
            start
        };
        self.resolve(start, Some(target.to_path_buf()))
    }

    /// Where `path` lands, as steps beneath the folder, or why it does not land inside.
    fn relocate(&self, path: &Path, written: &Path) -> Result<VecDeque<Part>, Refusal> {
        let broken = || Refusal::Broken(written.to_path_buf());
        let root = self
            .canonical
            .get_or_init(|| fs::canonicalize(&self.path).ok())
            .as_ref()
            .ok_or_else(broken)?;
        let target = fs::canonicalize(path).map_err(|_| broken())?;
        let inside = target
            .strip_prefix(root)
            .map_err(|_| Refusal::Outside(target.display().to_string()))?;
        Ok(parts(inside).collect())
    }

    /// Opens the path of `queue`, step by step from the folder. `written` is the first link
    /// met, as written, for the messages.
    fn resolve(
        &self,
        mut queue: VecDeque<Part>,
        mut written: Option<PathBuf>,
    ) -> Result<Opened, Refusal> {
        let mut stack: Vec<(OsString, Dir)> = Vec::new();
        let mut links = 0;
        while let Some(part) = queue.pop_front() {
            let name = match part {
                Part::Here => continue,
                Part::Up => {
                    if stack.pop().is_none() {
                        // Out of the folder: ask where the rest lands.
                        let mut path = self.path.join("..");
                        path.extend(queue.iter().map(Part::text));
                        let written = written.clone().unwrap_or_else(|| path.clone());
                        queue = self.relocate(&path, &written)?;
                    }
                    continue;
                }
                Part::Name(name) => name,
            };
            let dir = stack.last().map_or(&self.root, |(_, dir)| dir);
            let opened = if queue.is_empty() {
                dir.open_entry(&name)
            } else {
                dir.open_folder(&name)
            };
            let node = opened.map_err(|error| match &written {
                Some(written) if error.kind() == io::ErrorKind::NotFound => {
                    Refusal::Broken(written.clone())
                }
                _ => Refusal::Io(error),
            })?;
            match node {
                Node::Link(target) => {
                    links += 1;
                    let first = written.get_or_insert_with(|| target.clone()).clone();
                    if links > MAX_LINKS {
                        return Err(Refusal::Broken(first));
                    }
                    if target.has_root() {
                        stack.clear();
                        let mut inside = self.relocate(&target, &first)?;
                        inside.extend(queue.drain(..));
                        queue = inside;
                    } else {
                        for part in parts(&target).rev() {
                            queue.push_front(part);
                        }
                    }
                }
                Node::Folder(dir) => stack.push((name, dir)),
                Node::File(file, meta) if queue.is_empty() => {
                    let components: Vec<OsString> = stack
                        .into_iter()
                        .map(|(name, _)| name)
                        .chain([name])
                        .collect();
                    let hidden = components
                        .iter()
                        .any(|name| name.as_encoded_bytes().starts_with(b"."));
                    if let Some(written) = written
                        && hidden
                    {
                        return Err(Refusal::Hidden(written));
                    }
                    return Ok(Opened {
                        components,
                        file,
                        meta,
                    });
                }
                Node::File(..) | Node::Special if !queue.is_empty() => {
                    return Err(match written {
                        Some(written) => Refusal::Broken(written),
                        None => Refusal::Io(io::ErrorKind::NotADirectory.into()),
                    });
                }
                Node::File(..) | Node::Special => return Err(Refusal::NotAFile),
            }
        }
        // The path ends at a folder.
        Err(if written.is_some() {
            Refusal::LinkedFolder
        } else {
            Refusal::NotAFile
        })
    }
}
