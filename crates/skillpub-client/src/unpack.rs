//! Unpacking a verified archive, refusing everything the discovery draft tells clients to
//! refuse and everything that could harm the machine that unpacks it.
//!
//! Nothing is written to disk: files come back in memory, so a caller decides where they go.
//! Every check is linear in the size of the archive: paths and link targets are at most
//! [`MAX_PATH_LENGTH`] bytes, and each is compared with the archive's links in one pass over
//! its segments.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{Cursor, Read};
use std::time::Instant;

use skillpub_core::{
    index::ArchiveFormat,
    media::{GZIP, ZIP},
    paths::{SKILL_MD, TAR_GZ_SUFFIX, ZIP_SUFFIX},
};

use crate::fetch::{Limited, Limits, read_limited};
use crate::source::SourceError;

/// Longest entry path or link target accepted, in bytes (Linux's `PATH_MAX`). Longer ones are
/// refused before their segments are looked at.
pub const MAX_PATH_LENGTH: usize = 4096;

/// One unpacked file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnpackedFile {
    /// Its `/`-separated path inside the skill folder.
    pub path: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Whether the archive marks it executable.
    pub executable: bool,
}

/// Why an archive was refused. Each names the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnpackError {
    /// The bytes are not an archive of the format.
    #[error("the archive cannot be read: {0}")]
    Corrupt(#[source] SourceError),
    /// An entry path climbs out of the folder or is absolute.
    #[error("entry `{0}` leaves the skill folder (absolute path, drive letter, backslash or `..`)")]
    Traversal(String),
    /// A link that points outside the skill folder.
    #[error("entry `{path}` is a link to `{target}`, outside the skill folder")]
    LinkOutside {
        /// The entry.
        path: String,
        /// Where it points.
        target: String,
    },
    /// An entry whose path goes through a link of the archive.
    #[error("entry `{0}` goes through a link of the archive, which an extractor would follow")]
    ThroughLink(String),
    /// A device, FIFO or other special entry.
    #[error("entry `{0}` is a device, pipe or other special file")]
    SpecialFile(String),
    /// An encrypted zip entry.
    #[error("entry `{0}` is encrypted")]
    Encrypted(String),
    /// Two entries with one path.
    #[error("entry `{0}` appears twice")]
    Duplicate(String),
    /// More bytes than allowed once unpacked.
    #[error(
        "the archive unpacks to more than {0} bytes (a decompression bomb, or a limit to raise)"
    )]
    TooLarge(u64),
    /// More files than allowed.
    #[error("the archive has more than {0} files")]
    TooManyFiles(usize),
    /// No `SKILL.md` at the root.
    #[error("the archive has no SKILL.md at its root (files must not sit in a wrapper folder)")]
    NoSkillMd,
    /// An entry path longer than [`MAX_PATH_LENGTH`].
    #[error(
        "entry `{start}...` has a path of {length} bytes, more than the {MAX_PATH_LENGTH} allowed"
    )]
    PathTooLong {
        /// The first characters of the path.
        start: String,
        /// Its length in bytes.
        length: usize,
    },
    /// A link target longer than [`MAX_PATH_LENGTH`].
    #[error(
        "entry `{path}` is a link whose target has {length} bytes, more than the {MAX_PATH_LENGTH} allowed"
    )]
    LinkTooLong {
        /// The link.
        path: String,
        /// The length of its target in bytes.
        length: usize,
    },
    /// Unpacking did not finish before the deadline.
    #[error("unpacking did not finish before the deadline; allow more time")]
    Deadline,
}

impl UnpackError {
    /// A [`UnpackError::PathTooLong`] for the raw path bytes.
    fn path_too_long(raw: &[u8]) -> Self {
        let start: String = String::from_utf8_lossy(&raw[..raw.len().min(60)])
            .chars()
            .take(40)
            .collect();
        Self::PathTooLong {
            start,
            length: raw.len(),
        }
    }
}

/// Something unpacking tolerated: the archive is used, but a client may trip over it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnpackNote {
    /// Entry paths start with `./` (as `tar -C folder -czf a.tar.gz .` makes them).
    DotPrefix,
    /// A link that stays inside the folder; it is not unpacked.
    LinkSkipped {
        /// The link.
        path: String,
        /// Where it points.
        target: String,
    },
    /// More links were skipped than notes are kept; this many more.
    MoreLinksSkipped(usize),
}

impl fmt::Display for UnpackNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DotPrefix => f.write_str(
                "entries start with `./`; some clients (skills 1.7.4) refuse such archives",
            ),
            Self::LinkSkipped { path, target } => {
                write!(f, "link `{path}` -> `{target}` was not unpacked")
            }
            Self::MoreLinksSkipped(count) => {
                write!(f, "... and {count} more links were not unpacked")
            }
        }
    }
}

/// What unpacking produced: the files, and notes about things that were tolerated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unpacked {
    /// Every regular file, in archive order.
    pub files: Vec<UnpackedFile>,
    /// Tolerated oddities: links inside the folder (not unpacked), `./` prefixes.
    pub notes: Vec<UnpackNote>,
}

/// Picks the archive format from the media type, then the URL's extension, then the magic
/// bytes; `None` when none of them names a `.tar.gz` or a `.zip`.
#[must_use]
pub fn detect(media_type: Option<&str>, url_path: &str, bytes: &[u8]) -> Option<ArchiveFormat> {
    match media_type {
        Some(GZIP | "application/x-gzip" | "application/x-tar+gzip") => {
            return Some(ArchiveFormat::TarGz);
        }
        Some(ZIP | "application/x-zip-compressed") => return Some(ArchiveFormat::Zip),
        _ => {}
    }
    let path = url_path.to_ascii_lowercase();
    if path.ends_with(TAR_GZ_SUFFIX) || path.ends_with(".tgz") {
        return Some(ArchiveFormat::TarGz);
    }
    if path.ends_with(ZIP_SUFFIX) {
        return Some(ArchiveFormat::Zip);
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Some(ArchiveFormat::TarGz);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return Some(ArchiveFormat::Zip);
    }
    None
}

/// Unpacks an archive within the limits and before the deadline, if there is one.
///
/// [`Limits::max_files`] counts every entry (files, folders, links);
/// [`Limits::max_unpacked`] bounds the file contents, and the decompressed stream as a whole
/// is bounded too, so metadata (long names, pax headers) cannot be a bomb either. Paths and
/// link targets are at most [`MAX_PATH_LENGTH`] bytes.
///
/// # Example
///
/// ```
/// use skillpub_client::Limits;
/// use skillpub_client::unpack::{UnpackError, unpack};
/// use skillpub_core::index::ArchiveFormat;
///
/// let not_an_archive = unpack(ArchiveFormat::Zip, b"PK", &Limits::default(), None);
/// assert!(matches!(not_an_archive, Err(UnpackError::Corrupt(_))));
/// ```
///
/// # Errors
///
/// See [`UnpackError`].
pub fn unpack(
    format: ArchiveFormat,
    bytes: &[u8],
    limits: &Limits,
    deadline: Option<Instant>,
) -> Result<Unpacked, UnpackError> {
    let mut sink = Sink {
        unpacked: Unpacked::default(),
        remaining: limits.max_unpacked,
        max_unpacked: limits.max_unpacked,
        max_files: limits.max_files,
        deadline,
        entries: 0,
        paths: HashSet::new(),
        links: Links::default(),
        omitted_notes: 0,
        dot_noted: false,
    };
    match format {
        ArchiveFormat::TarGz => unpack_tar(bytes, &mut sink)?,
        ArchiveFormat::Zip => unpack_zip(bytes, &mut sink)?,
    }
    if sink.omitted_notes > 0 {
        let omitted = sink.omitted_notes;
        sink.unpacked
            .notes
            .push(UnpackNote::MoreLinksSkipped(omitted));
    }
    if !sink.unpacked.files.iter().any(|file| file.path == SKILL_MD) {
        return Err(UnpackError::NoSkillMd);
    }
    Ok(sink.unpacked)
}

/// Most notes kept; the rest are counted.
const MAX_NOTES: usize = 20;

struct Sink {
    unpacked: Unpacked,
    remaining: u64,
    max_unpacked: u64,
    max_files: usize,
    deadline: Option<Instant>,
    entries: usize,
    paths: HashSet<String>,
    links: Links,
    omitted_notes: usize,
    dot_noted: bool,
}

impl Sink {
    /// Counts an entry of any kind against `max_files`, and stops at the deadline.
    fn count(&mut self) -> Result<(), UnpackError> {
        self.entries += 1;
        if self.entries > self.max_files {
            return Err(UnpackError::TooManyFiles(self.max_files));
        }
        if self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Err(UnpackError::Deadline);
        }
        Ok(())
    }

    /// Checks an entry path (see [`clean_path`]) and notes a `./` prefix once.
    fn clean(&mut self, raw: &[u8]) -> Result<String, UnpackError> {
        if raw.len() > MAX_PATH_LENGTH {
            return Err(UnpackError::path_too_long(raw));
        }
        let raw = String::from_utf8_lossy(raw);
        let path = clean_path(&raw)?;
        if raw.starts_with("./") && !self.dot_noted {
            self.dot_noted = true;
            self.unpacked.notes.push(UnpackNote::DotPrefix);
        }
        Ok(path)
    }

    fn note(&mut self, note: UnpackNote) {
        if self.unpacked.notes.len() < MAX_NOTES {
            self.unpacked.notes.push(note);
        } else {
            self.omitted_notes += 1;
        }
    }

    /// Refuses a path that goes through a link of the archive: an extractor would follow it.
    fn through_link(&self, path: &str) -> Result<(), UnpackError> {
        if self.links.through(path) {
            return Err(UnpackError::ThroughLink(path.to_owned()));
        }
        Ok(())
    }

    /// Records a link after checking that its target stays inside, lexically and without
    /// passing through another link.
    fn link(
        &mut self,
        path: String,
        target: &[u8],
        relative_to_root: bool,
    ) -> Result<(), UnpackError> {
        if target.len() > MAX_PATH_LENGTH {
            return Err(UnpackError::LinkTooLong {
                path,
                length: target.len(),
            });
        }
        let target = String::from_utf8_lossy(target).into_owned();
        self.through_link(&path)?;
        let from = if relative_to_root { "" } else { path.as_str() };
        if resolve(from, &target, !relative_to_root, &self.links).is_none() {
            return Err(UnpackError::LinkOutside { path, target });
        }
        self.links.insert(&path);
        self.note(UnpackNote::LinkSkipped { path, target });
        Ok(())
    }

    fn file(
        &mut self,
        path: String,
        reader: impl Read,
        executable: bool,
    ) -> Result<(), UnpackError> {
        self.through_link(&path)?;
        if !self.paths.insert(path.clone()) {
            return Err(UnpackError::Duplicate(path));
        }
        let bytes = read_limited(reader, self.remaining).map_err(|error| match error {
            Limited::Over => UnpackError::TooLarge(self.max_unpacked),
            Limited::Io(error) => read_failed(error, self.max_unpacked),
        })?;
        self.remaining -= bytes.len() as u64;
        self.unpacked.files.push(UnpackedFile {
            path,
            bytes,
            executable,
        });
        Ok(())
    }
}

/// What a failed read of the archive stream means: the [`Capped`] limit, the deadline, or a
/// corrupt archive.
fn read_failed(error: std::io::Error, max_unpacked: u64) -> UnpackError {
    match error.kind() {
        std::io::ErrorKind::FileTooLarge => UnpackError::TooLarge(max_unpacked),
        std::io::ErrorKind::TimedOut => UnpackError::Deadline,
        _ => UnpackError::Corrupt(SourceError::new(error)),
    }
}

/// Checks an entry path and returns it without `.` segments (possibly empty, for `./`).
/// Refuses absolute paths, drive letters, backslashes, NUL and any `..` segment.
fn clean_path(raw: &str) -> Result<String, UnpackError> {
    let traversal = || UnpackError::Traversal(raw.to_owned());
    if raw.starts_with('/')
        || raw.contains('\\')
        || raw.as_bytes().get(1) == Some(&b':')
        || raw.contains('\0')
    {
        return Err(traversal());
    }
    let mut segments = Vec::new();
    for segment in raw.split('/') {
        match segment {
            ".." => return Err(traversal()),
            "" | "." => {}
            other => segments.push(other),
        }
    }
    // A drive letter hidden behind `./` (`./C:/x`) is one all the same.
    if segments.first().and_then(|first| first.as_bytes().get(1)) == Some(&b':') {
        return Err(traversal());
    }
    Ok(segments.join("/"))
}

/// The links of an archive as a tree of path segments, so that a path or a link target is
/// compared with every link in one pass over its own segments: linear, however many
/// segments or links there are.
#[derive(Debug, Default)]
struct Links {
    /// `nodes[0]` is the root of the skill folder.
    nodes: Vec<Node>,
}

#[derive(Debug, Default)]
struct Node {
    children: HashMap<String, usize>,
    link: bool,
}

impl Links {
    fn child(&self, node: usize, segment: &str) -> Option<usize> {
        self.nodes.get(node)?.children.get(segment).copied()
    }

    fn is_link(&self, node: usize) -> bool {
        self.nodes.get(node).is_some_and(|node| node.link)
    }

    /// Records the link at `path` (cleaned, not empty).
    fn insert(&mut self, path: &str) {
        if self.nodes.is_empty() {
            self.nodes.push(Node::default());
        }
        let mut node = 0;
        for segment in path.split('/') {
            node = match self.child(node, segment) {
                Some(child) => child,
                None => {
                    self.nodes.push(Node::default());
                    let child = self.nodes.len() - 1;
                    self.nodes[node].children.insert(segment.to_owned(), child);
                    child
                }
            };
        }
        self.nodes[node].link = true;
    }

    /// Whether a folder on the way to `path` (cleaned) is a link.
    fn through(&self, path: &str) -> bool {
        let mut node = 0;
        let mut segments = path.split('/').peekable();
        while let Some(segment) = segments.next() {
            if segments.peek().is_none() {
                return false;
            }
            match self.child(node, segment) {
                Some(child) if self.is_link(child) => return true,
                Some(child) => node = child,
                None => return false,
            }
        }
        false
    }
}

/// Resolves a link target lexically: from the link's folder (`from_folder_of` is the link's
/// path) or from the root. `None` when it climbs out, is absolute, or passes through one of
/// `links` (whose own target would change where it leads). One pass over the segments.
fn resolve(from: &str, target: &str, from_folder_of: bool, links: &Links) -> Option<String> {
    if target.starts_with('/') || target.contains('\\') || target.as_bytes().get(1) == Some(&b':') {
        return None;
    }
    /// Steps into `segment`; false when it is a link.
    fn push<'a>(
        parts: &mut Vec<(&'a str, Option<usize>)>,
        segment: &'a str,
        links: &Links,
    ) -> bool {
        let parent = parts.last().map_or(Some(0), |&(_, node)| node);
        let node = parent.and_then(|parent| links.child(parent, segment));
        parts.push((segment, node));
        !node.is_some_and(|node| links.is_link(node))
    }
    // Each folder on the way, with its node among the links when a link lies below it.
    let mut parts: Vec<(&str, Option<usize>)> = Vec::new();
    let mut folder: Vec<&str> = if from.is_empty() {
        Vec::new()
    } else {
        from.split('/').collect()
    };
    if from_folder_of {
        folder.pop();
    }
    for segment in folder {
        push(&mut parts, segment, links);
    }
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => {
                if !push(&mut parts, other, links) {
                    return None;
                }
            }
        }
    }
    let resolved: Vec<&str> = parts.into_iter().map(|(segment, _)| segment).collect();
    Some(resolved.join("/"))
}

/// A reader that fails once more than `limit` bytes have been read, or after the deadline.
struct Capped<R> {
    inner: R,
    left: u64,
    deadline: Option<Instant>,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "unpacking did not finish before the deadline",
            ));
        }
        let read = self.inner.read(buffer)?;
        self.left = self.left.checked_sub(read as u64).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                "the decompressed archive is over the limit",
            )
        })?;
        Ok(read)
    }
}

fn unpack_tar(bytes: &[u8], sink: &mut Sink) -> Result<(), UnpackError> {
    let max_unpacked = sink.max_unpacked;
    let failed = move |error| read_failed(error, max_unpacked);
    // Headers, padding and long names cost at most a few blocks per entry on top of the data.
    let overhead = (sink.max_files as u64 + 16) * 3 * 512 + (1 << 20);
    let stream = Capped {
        inner: flate2::read::MultiGzDecoder::new(bytes),
        left: sink.max_unpacked.saturating_add(overhead),
        deadline: sink.deadline,
    };
    let mut archive = tar::Archive::new(stream);
    for entry in archive.entries().map_err(failed)? {
        let entry = entry.map_err(failed)?;
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions()
            || kind.is_pax_local_extensions()
            || kind.is_gnu_longname()
            || kind.is_gnu_longlink()
        {
            continue;
        }
        sink.count()?;
        let raw = entry.path_bytes();
        let path = sink.clean(&raw)?;
        if kind.is_dir() {
            continue;
        }
        if path.is_empty() {
            return Err(UnpackError::Traversal(
                String::from_utf8_lossy(&raw).into_owned(),
            ));
        }
        if kind.is_symlink() || kind.is_hard_link() {
            let target = entry.link_name_bytes().unwrap_or_default();
            // Hard link targets are relative to the archive root, symlink targets to the entry.
            sink.link(path, &target, kind.is_hard_link())?;
            continue;
        }
        if !(kind.is_file() || kind == tar::EntryType::Continuous) {
            return Err(UnpackError::SpecialFile(path));
        }
        let executable = entry.header().mode().is_ok_and(|mode| mode & 0o111 != 0);
        sink.file(path, entry, executable)?;
    }
    Ok(())
}

fn unpack_zip(bytes: &[u8], sink: &mut Sink) -> Result<(), UnpackError> {
    const TYPE_MASK: u32 = 0o170_000;
    const REGULAR: u32 = 0o100_000;
    const FOLDER: u32 = 0o040_000;
    const LINK: u32 = 0o120_000;
    let corrupt = |error: zip::result::ZipError| UnpackError::Corrupt(SourceError::new(error));
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(corrupt)?;
    if archive.len() > sink.max_files {
        return Err(UnpackError::TooManyFiles(sink.max_files));
    }
    for at in 0..archive.len() {
        sink.count()?;
        let file = archive.by_index_raw(at).map_err(corrupt)?;
        let raw = file.name_raw();
        let path = sink.clean(raw)?;
        if file.enclosed_name().is_none() {
            return Err(UnpackError::Traversal(
                String::from_utf8_lossy(raw).into_owned(),
            ));
        }
        if file.encrypted() {
            return Err(UnpackError::Encrypted(path));
        }
        let mode = file.unix_mode().unwrap_or(0);
        let kind = mode & TYPE_MASK;
        if file.is_dir() || kind == FOLDER {
            continue;
        }
        if path.is_empty() {
            return Err(UnpackError::Traversal(
                String::from_utf8_lossy(raw).into_owned(),
            ));
        }
        if kind != 0 && kind != REGULAR && kind != LINK {
            return Err(UnpackError::SpecialFile(path));
        }
        let is_symlink = file.is_symlink();
        let executable = mode & 0o111 != 0;
        let size = file.size();
        drop(file);
        if is_symlink && size > MAX_PATH_LENGTH as u64 {
            return Err(UnpackError::LinkTooLong {
                path,
                length: usize::try_from(size).unwrap_or(usize::MAX),
            });
        }
        let file = archive.by_index(at).map_err(corrupt)?;
        let file = Capped {
            inner: file,
            left: u64::MAX,
            deadline: sink.deadline,
        };
        if is_symlink {
            let target =
                read_limited(file, MAX_PATH_LENGTH as u64).map_err(|error| match error {
                    Limited::Io(error) => read_failed(error, sink.max_unpacked),
                    Limited::Over => UnpackError::Corrupt(SourceError::new(format!(
                        "link `{path}` holds more bytes than the archive says"
                    ))),
                })?;
            sink.link(path, &target, false)?;
            continue;
        }
        sink.file(path, file, executable)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_cleaned_or_refused() {
        assert_eq!(clean_path("SKILL.md"), Ok("SKILL.md".to_owned()));
        assert_eq!(clean_path("./a/./b.md"), Ok("a/b.md".to_owned()));
        assert_eq!(clean_path("./"), Ok(String::new()));
        for bad in [
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a/..",
            "C:/x",
            "c:x",
            "a\\b",
            "\\\\server\\x",
            // Found by the property `hostile_archives_never_yield_a_path_outside_the_folder`.
            "./C:",
            "./c:x",
            ".//./C:/x",
        ] {
            assert!(clean_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn links_are_judged_from_their_folder() {
        let none = Links::default();
        let resolved = |from, target, folder| resolve(from, target, folder, &none);
        assert_eq!(
            resolved("references/a.md", "b.md", true).as_deref(),
            Some("references/b.md")
        );
        assert_eq!(
            resolved("references/a.md", "../SKILL.md", true).as_deref(),
            Some("SKILL.md")
        );
        assert_eq!(resolved("references/a.md", "../../etc/passwd", true), None);
        assert_eq!(resolved("a.md", "../x", true), None);
        assert_eq!(resolved("a.md", "/etc/passwd", true), None);
        assert_eq!(
            resolved("", "references/a.md", false).as_deref(),
            Some("references/a.md")
        );
        let mut links = Links::default();
        links.insert("p/q");
        assert_eq!(
            resolve("r", "p/q/..", true, &links),
            None,
            "through another link"
        );
        assert_eq!(
            resolve("r", "p/x/../q", true, &links),
            None,
            "to another link"
        );
        assert_eq!(
            resolve("r", "p/x/../y", true, &links).as_deref(),
            Some("p/y")
        );
        assert!(links.through("p/q/a.md"));
        assert!(!links.through("p/q"));
        assert!(!links.through("p/qq/a.md"));
    }

    #[test]
    fn the_format_comes_from_the_type_then_the_extension_then_the_bytes() {
        assert_eq!(
            detect(Some("application/zip"), "/x.tar.gz", b""),
            Some(ArchiveFormat::Zip)
        );
        assert_eq!(
            detect(Some("application/octet-stream"), "/x.tgz", b""),
            Some(ArchiveFormat::TarGz)
        );
        assert_eq!(
            detect(None, "/download", b"PK\x03\x04rest"),
            Some(ArchiveFormat::Zip)
        );
        assert_eq!(
            detect(None, "/download", b"\x1f\x8brest"),
            Some(ArchiveFormat::TarGz)
        );
        assert_eq!(detect(Some("text/html"), "/download", b"<html>"), None);
    }

    const SKILL_MD: &[u8] = b"---\nname: a\ndescription: d\n---\n";

    fn limits(max_unpacked: u64, max_files: usize) -> Limits {
        Limits {
            max_unpacked,
            max_files,
            ..Limits::default()
        }
    }

    fn tar_gz(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
        let mut tar = tar::Builder::new(Vec::new());
        build(&mut tar);
        let data = tar.into_inner().unwrap();
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gzip, &data).unwrap();
        gzip.finish().unwrap()
    }

    fn file(tar: &mut tar::Builder<Vec<u8>>, path: &str, bytes: &[u8]) {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, bytes).unwrap();
    }

    fn link(tar: &mut tar::Builder<Vec<u8>>, path: &str, target: &str) {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        tar.append_link(&mut header, path, target).unwrap();
    }

    #[test]
    fn a_tar_made_with_dot_unpacks_with_a_note() {
        let bytes = tar_gz(|tar| {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(tar::EntryType::Directory);
            header.set_size(0);
            header.set_mode(0o755);
            header.set_cksum();
            tar.append_data(&mut header, "./", &[][..]).unwrap();
            file(tar, "./SKILL.md", SKILL_MD);
        });
        let unpacked = unpack(ArchiveFormat::TarGz, &bytes, &limits(1 << 20, 10), None).unwrap();
        assert_eq!(unpacked.files[0].path, "SKILL.md");
        assert_eq!(unpacked.notes, [UnpackNote::DotPrefix]);
    }

    #[test]
    fn a_long_name_bomb_stops_at_the_limit() {
        let long = format!("{}/x.md", "d".repeat(3_000_000));
        let bytes = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            file(tar, &long, b"x");
        });
        assert!(bytes.len() < 100_000);
        assert_eq!(
            unpack(ArchiveFormat::TarGz, &bytes, &limits(1000, 10), None),
            Err(UnpackError::TooLarge(1000))
        );
    }

    #[test]
    fn paths_and_link_targets_longer_than_the_limit_are_refused() {
        let long = "a/".repeat(MAX_PATH_LENGTH / 2) + "x.md";
        let big = limits(1 << 20, 10);
        let path = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            file(tar, &long, b"x");
        });
        assert!(matches!(
            unpack(ArchiveFormat::TarGz, &path, &big, None),
            Err(UnpackError::PathTooLong { length, .. }) if length == long.len()
        ));
        let target = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            link(tar, "l", &long);
        });
        assert_eq!(
            unpack(ArchiveFormat::TarGz, &target, &big, None),
            Err(UnpackError::LinkTooLong {
                path: "l".into(),
                length: long.len()
            })
        );
        let zip_path = zip_with("SKILL.md", SKILL_MD, &long, b"x", 0o100_644);
        assert!(matches!(
            unpack(ArchiveFormat::Zip, &zip_path, &big, None),
            Err(UnpackError::PathTooLong { length, .. }) if length == long.len()
        ));
        let zip_link = zip_with("SKILL.md", SKILL_MD, "l", long.as_bytes(), 0o120_777);
        assert_eq!(
            unpack(ArchiveFormat::Zip, &zip_link, &big, None),
            Err(UnpackError::LinkTooLong {
                path: "l".into(),
                length: long.len()
            })
        );
    }

    #[test]
    fn a_link_target_of_many_segments_within_the_limit_is_judged() {
        let inside = format!("{}SKILL.md", "a/../".repeat(800));
        let outside = format!("{}..", "a/".repeat(1000).replace("a/", "./"));
        let bytes = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            link(tar, "p", "references");
            link(tar, "in", &inside);
        });
        assert!(unpack(ArchiveFormat::TarGz, &bytes, &limits(1 << 20, 10), None).is_ok());
        let bytes = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            link(tar, "out", &outside);
        });
        assert!(matches!(
            unpack(ArchiveFormat::TarGz, &bytes, &limits(1 << 20, 10), None),
            Err(UnpackError::LinkOutside { .. })
        ));
    }

    #[test]
    fn unpacking_stops_at_the_deadline() {
        let bytes = tar_gz(|tar| file(tar, "SKILL.md", SKILL_MD));
        let past = Some(Instant::now());
        assert_eq!(
            unpack(ArchiveFormat::TarGz, &bytes, &limits(1 << 20, 10), past),
            Err(UnpackError::Deadline)
        );
        let zip = zip_with("SKILL.md", SKILL_MD, "a.md", b"x", 0o100_644);
        assert_eq!(
            unpack(ArchiveFormat::Zip, &zip, &limits(1 << 20, 10), past),
            Err(UnpackError::Deadline)
        );
    }

    /// A zip of `SKILL.md` and one more entry with this Unix mode.
    fn zip_with(first: &str, first_bytes: &[u8], name: &str, bytes: &[u8], mode: u32) -> Vec<u8> {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        zip.start_file(first, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(first_bytes).unwrap();
        zip.start_file(
            name,
            zip::write::SimpleFileOptions::default().external_attributes(mode << 16),
        )
        .unwrap();
        zip.write_all(bytes).unwrap();
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn a_chain_of_links_that_escapes_is_refused() {
        let bytes = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            link(tar, "p/q", "..");
            link(tar, "r", "p/q/..");
        });
        let result = unpack(ArchiveFormat::TarGz, &bytes, &limits(1 << 20, 10), None);
        assert!(
            matches!(result, Err(UnpackError::LinkOutside { .. })),
            "{result:?}"
        );
        let through = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            link(tar, "p", "references");
            file(tar, "p/x.md", b"x");
        });
        assert_eq!(
            unpack(ArchiveFormat::TarGz, &through, &limits(1 << 20, 10), None),
            Err(UnpackError::ThroughLink("p/x.md".into()))
        );
    }

    #[test]
    fn every_entry_counts_against_the_file_limit() {
        let bytes = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            for at in 0..20 {
                link(tar, &format!("l{at}"), "SKILL.md");
            }
        });
        assert_eq!(
            unpack(ArchiveFormat::TarGz, &bytes, &limits(1 << 20, 10), None),
            Err(UnpackError::TooManyFiles(10))
        );
    }

    #[test]
    fn every_gzip_member_is_read() {
        let first = tar_gz(|tar| file(tar, "SKILL.md", SKILL_MD));
        // A second member appended after the first one's tar end-of-archive blocks is ignored by
        // tar; what matters is that a multi-member stream of one tar is read whole.
        let mut tar = tar::Builder::new(Vec::new());
        file(&mut tar, "SKILL.md", SKILL_MD);
        file(&mut tar, "references/a.md", b"# A");
        let data = tar.into_inner().unwrap();
        let (head, tail) = data.split_at(512 * 3);
        let mut two = Vec::new();
        for part in [head, tail] {
            let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut gzip, part).unwrap();
            two.extend(gzip.finish().unwrap());
        }
        assert_eq!(
            unpack(ArchiveFormat::TarGz, &first, &limits(1 << 20, 10), None)
                .unwrap()
                .files
                .len(),
            1
        );
        let unpacked = unpack(ArchiveFormat::TarGz, &two, &limits(1 << 20, 10), None).unwrap();
        let paths: Vec<&str> = unpacked.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "references/a.md"]);
    }

    #[test]
    fn zip_devices_and_traversal_are_refused() {
        use std::io::Write;
        let build = |name: &str, mode: u32| {
            let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
            zip.start_file("SKILL.md", zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(SKILL_MD).unwrap();
            zip.start_file(
                name,
                zip::write::SimpleFileOptions::default().external_attributes(mode << 16),
            )
            .unwrap();
            zip.write_all(b"x").unwrap();
            zip.finish().unwrap().into_inner()
        };
        let fifo = build("pipe", 0o010_644);
        assert_eq!(
            unpack(ArchiveFormat::Zip, &fifo, &limits(1 << 20, 10), None),
            Err(UnpackError::SpecialFile("pipe".into()))
        );
        let slip = build("../evil", 0o644);
        assert!(matches!(
            unpack(ArchiveFormat::Zip, &slip, &limits(1 << 20, 10), None),
            Err(UnpackError::Traversal(_))
        ));
        let fine = build("references/a.md", 0o644);
        assert_eq!(
            unpack(ArchiveFormat::Zip, &fine, &limits(1 << 20, 10), None)
                .unwrap()
                .files
                .len(),
            2
        );
    }
}
