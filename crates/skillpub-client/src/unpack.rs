//! Unpacking a verified archive, refusing everything the discovery draft tells clients to
//! refuse and everything that could harm the machine that unpacks it.
//!
//! Nothing is written to disk: files come back in memory, so a caller decides where they go.

use std::collections::HashSet;
use std::io::{Cursor, Read};

use crate::fetch::{Limited, read_limited};

/// Archive formats a client must support.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// gzip-compressed tar.
    TarGz,
    /// zip.
    Zip,
}

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
    Corrupt(String),
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
}

/// What unpacking produced: the files, and notes about things that were tolerated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unpacked {
    /// Every regular file, in archive order.
    pub files: Vec<UnpackedFile>,
    /// Tolerated oddities: links inside the folder (not unpacked), `./` prefixes.
    pub notes: Vec<String>,
}

/// Picks the format from the media type, then the URL's extension, then the magic bytes.
#[must_use]
pub fn detect(media_type: Option<&str>, url_path: &str, bytes: &[u8]) -> Option<Format> {
    match media_type {
        Some("application/gzip" | "application/x-gzip" | "application/x-tar+gzip") => {
            return Some(Format::TarGz);
        }
        Some("application/zip" | "application/x-zip-compressed") => return Some(Format::Zip),
        _ => {}
    }
    let path = url_path.to_ascii_lowercase();
    if path.ends_with(".tar.gz") || path.ends_with(".tgz") {
        return Some(Format::TarGz);
    }
    if path.ends_with(".zip") {
        return Some(Format::Zip);
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Some(Format::TarGz);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return Some(Format::Zip);
    }
    None
}

/// Unpacks an archive within the limits. `max_files` counts every entry (files, folders,
/// links); `max_unpacked` bounds the file contents, and the decompressed stream as a whole is
/// bounded too, so metadata (long names, pax headers) cannot be a bomb either.
///
/// # Errors
///
/// See [`UnpackError`].
pub fn unpack(
    format: Format,
    bytes: &[u8],
    max_unpacked: u64,
    max_files: usize,
) -> Result<Unpacked, UnpackError> {
    let mut sink = Sink {
        unpacked: Unpacked::default(),
        remaining: max_unpacked,
        max_unpacked,
        max_files,
        entries: 0,
        links: HashSet::new(),
        omitted_notes: 0,
    };
    match format {
        Format::TarGz => unpack_tar(bytes, &mut sink)?,
        Format::Zip => unpack_zip(bytes, &mut sink)?,
    }
    if sink.omitted_notes > 0 {
        let omitted = sink.omitted_notes;
        sink.unpacked
            .notes
            .push(format!("... and {omitted} more notes"));
    }
    if !sink
        .unpacked
        .files
        .iter()
        .any(|file| file.path == skillpub_core::SKILL_MD)
    {
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
    entries: usize,
    links: HashSet<String>,
    omitted_notes: usize,
}

impl Sink {
    /// Counts an entry of any kind against `max_files`.
    fn count(&mut self) -> Result<(), UnpackError> {
        self.entries += 1;
        if self.entries > self.max_files {
            return Err(UnpackError::TooManyFiles(self.max_files));
        }
        Ok(())
    }

    fn note(&mut self, note: String) {
        if self.unpacked.notes.len() < MAX_NOTES {
            self.unpacked.notes.push(note);
        } else {
            self.omitted_notes += 1;
        }
    }

    /// Refuses a path that goes through a link of the archive: an extractor would follow it.
    fn through_link(&self, path: &str) -> Result<(), UnpackError> {
        let through = path
            .match_indices('/')
            .any(|(at, _)| self.links.contains(&path[..at]));
        if through {
            return Err(UnpackError::ThroughLink(path.to_owned()));
        }
        Ok(())
    }

    /// Records a link after checking that its target stays inside, lexically and without
    /// passing through another link.
    fn link(
        &mut self,
        path: String,
        target: String,
        relative_to_root: bool,
    ) -> Result<(), UnpackError> {
        self.through_link(&path)?;
        let from = if relative_to_root { "" } else { path.as_str() };
        if resolve(from, &target, !relative_to_root, &self.links).is_none() {
            return Err(UnpackError::LinkOutside { path, target });
        }
        self.note(format!("link `{path}` -> `{target}` was not unpacked"));
        self.links.insert(path);
        Ok(())
    }

    fn file(
        &mut self,
        path: String,
        reader: impl Read,
        executable: bool,
    ) -> Result<(), UnpackError> {
        self.through_link(&path)?;
        if self.unpacked.files.iter().any(|file| file.path == path) {
            return Err(UnpackError::Duplicate(path));
        }
        let bytes = read_limited(reader, self.remaining).map_err(|error| match error {
            Limited::Over => UnpackError::TooLarge(self.max_unpacked),
            Limited::Io(message) => UnpackError::Corrupt(message),
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

/// Checks an entry path and returns it without `.` segments (possibly empty, for `./`).
/// Refuses absolute paths, drive letters, backslashes, NUL and any `..` segment.
fn clean_path(raw: &str, notes: &mut Vec<String>) -> Result<String, UnpackError> {
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
    if raw.starts_with("./") && !notes.iter().any(|n| n.contains("./")) {
        notes.push(
            "entries start with `./`; some clients (skills 1.7.4) refuse such archives".to_owned(),
        );
    }
    Ok(segments.join("/"))
}

/// Resolves a link target lexically: from the link's folder (`from_folder_of` is the link's
/// path) or from the root. `None` when it climbs out, is absolute, or passes through one of
/// `links` (whose own target would change where it leads).
fn resolve(
    from: &str,
    target: &str,
    from_folder_of: bool,
    links: &HashSet<String>,
) -> Option<String> {
    if target.starts_with('/') || target.contains('\\') || target.as_bytes().get(1) == Some(&b':') {
        return None;
    }
    let mut parts: Vec<&str> = if from.is_empty() {
        Vec::new()
    } else {
        from.split('/').collect()
    };
    if from_folder_of {
        parts.pop();
    }
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => {
                parts.push(other);
                if links.contains(&parts.join("/")) {
                    return None;
                }
            }
        }
    }
    Some(parts.join("/"))
}

/// A reader that fails once more than `limit` bytes have been read.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
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
    let too_large = sink.max_unpacked;
    let corrupt = move |error: std::io::Error| {
        if error.kind() == std::io::ErrorKind::FileTooLarge {
            UnpackError::TooLarge(too_large)
        } else {
            UnpackError::Corrupt(error.to_string())
        }
    };
    // Headers, padding and long names cost at most a few blocks per entry on top of the data.
    let overhead = (sink.max_files as u64 + 16) * 3 * 512 + (1 << 20);
    let stream = Capped {
        inner: flate2::read::MultiGzDecoder::new(bytes),
        left: sink.max_unpacked.saturating_add(overhead),
    };
    let mut archive = tar::Archive::new(stream);
    for entry in archive.entries().map_err(corrupt)? {
        let entry = entry.map_err(corrupt)?;
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions()
            || kind.is_pax_local_extensions()
            || kind.is_gnu_longname()
            || kind.is_gnu_longlink()
        {
            continue;
        }
        sink.count()?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let path = clean_path(&raw, &mut sink.unpacked.notes)?;
        if kind.is_dir() {
            continue;
        }
        if path.is_empty() {
            return Err(UnpackError::Traversal(raw));
        }
        if kind.is_symlink() || kind.is_hard_link() {
            let target = entry
                .link_name_bytes()
                .map(|t| String::from_utf8_lossy(&t).into_owned())
                .unwrap_or_default();
            // Hard link targets are relative to the archive root, symlink targets to the entry.
            sink.link(path, target, kind.is_hard_link())?;
            continue;
        }
        if !(kind.is_file() || kind == tar::EntryType::Continuous) {
            return Err(UnpackError::SpecialFile(path));
        }
        let executable = entry.header().mode().is_ok_and(|mode| mode & 0o111 != 0);
        sink.file(path, entry, executable)
            .map_err(|error| match error {
                UnpackError::Corrupt(message) if message.contains("over the limit") => {
                    UnpackError::TooLarge(too_large)
                }
                other => other,
            })?;
    }
    Ok(())
}

fn unpack_zip(bytes: &[u8], sink: &mut Sink) -> Result<(), UnpackError> {
    const TYPE_MASK: u32 = 0o170_000;
    const REGULAR: u32 = 0o100_000;
    const FOLDER: u32 = 0o040_000;
    const LINK: u32 = 0o120_000;
    let corrupt = |error: zip::result::ZipError| UnpackError::Corrupt(error.to_string());
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(corrupt)?;
    if archive.len() > sink.max_files {
        return Err(UnpackError::TooManyFiles(sink.max_files));
    }
    for at in 0..archive.len() {
        sink.count()?;
        let file = archive.by_index_raw(at).map_err(corrupt)?;
        let raw = String::from_utf8_lossy(file.name_raw()).into_owned();
        let path = clean_path(&raw, &mut sink.unpacked.notes)?;
        if file.enclosed_name().is_none() {
            return Err(UnpackError::Traversal(raw));
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
            return Err(UnpackError::Traversal(raw));
        }
        if kind != 0 && kind != REGULAR && kind != LINK {
            return Err(UnpackError::SpecialFile(path));
        }
        let is_symlink = file.is_symlink();
        let executable = mode & 0o111 != 0;
        drop(file);
        let file = archive.by_index(at).map_err(corrupt)?;
        if is_symlink {
            let target = read_limited(file, 4096)
                .map(|t| String::from_utf8_lossy(&t).into_owned())
                .map_err(|_| UnpackError::Corrupt(format!("link `{path}` is unreadable")))?;
            sink.link(path, target, false)?;
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
        let mut notes = Vec::new();
        assert_eq!(
            clean_path("SKILL.md", &mut notes),
            Ok("SKILL.md".to_owned())
        );
        assert_eq!(
            clean_path("./a/./b.md", &mut notes),
            Ok("a/b.md".to_owned())
        );
        assert_eq!(clean_path("./", &mut notes), Ok(String::new()));
        assert_eq!(notes.len(), 1);
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
            assert!(clean_path(bad, &mut notes).is_err(), "{bad}");
        }
    }

    #[test]
    fn links_are_judged_from_their_folder() {
        let none = HashSet::new();
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
        let links = HashSet::from(["p/q".to_owned()]);
        assert_eq!(
            resolve("r", "p/q/..", true, &links),
            None,
            "through another link"
        );
    }

    #[test]
    fn the_format_comes_from_the_type_then_the_extension_then_the_bytes() {
        assert_eq!(
            detect(Some("application/zip"), "/x.tar.gz", b""),
            Some(Format::Zip)
        );
        assert_eq!(
            detect(Some("application/octet-stream"), "/x.tgz", b""),
            Some(Format::TarGz)
        );
        assert_eq!(
            detect(None, "/download", b"PK\x03\x04rest"),
            Some(Format::Zip)
        );
        assert_eq!(
            detect(None, "/download", b"\x1f\x8brest"),
            Some(Format::TarGz)
        );
        assert_eq!(detect(Some("text/html"), "/download", b"<html>"), None);
    }

    const SKILL_MD: &[u8] = b"---\nname: a\ndescription: d\n---\n";

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
        let unpacked = unpack(Format::TarGz, &bytes, 1 << 20, 10).unwrap();
        assert_eq!(unpacked.files[0].path, "SKILL.md");
        assert!(unpacked.notes[0].contains("./"));
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
            unpack(Format::TarGz, &bytes, 1000, 10),
            Err(UnpackError::TooLarge(1000))
        );
    }

    #[test]
    fn a_chain_of_links_that_escapes_is_refused() {
        let bytes = tar_gz(|tar| {
            file(tar, "SKILL.md", SKILL_MD);
            link(tar, "p/q", "..");
            link(tar, "r", "p/q/..");
        });
        let result = unpack(Format::TarGz, &bytes, 1 << 20, 10);
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
            unpack(Format::TarGz, &through, 1 << 20, 10),
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
            unpack(Format::TarGz, &bytes, 1 << 20, 10),
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
            unpack(Format::TarGz, &first, 1 << 20, 10)
                .unwrap()
                .files
                .len(),
            1
        );
        let unpacked = unpack(Format::TarGz, &two, 1 << 20, 10).unwrap();
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
            unpack(Format::Zip, &fifo, 1 << 20, 10),
            Err(UnpackError::SpecialFile("pipe".into()))
        );
        let slip = build("../evil", 0o644);
        assert!(matches!(
            unpack(Format::Zip, &slip, 1 << 20, 10),
            Err(UnpackError::Traversal(_))
        ));
        let fine = build("references/a.md", 0o644);
        assert_eq!(
            unpack(Format::Zip, &fine, 1 << 20, 10).unwrap().files.len(),
            2
        );
    }
}
