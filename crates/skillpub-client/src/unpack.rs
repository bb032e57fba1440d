//! Unpacking a verified archive, refusing everything the discovery draft tells clients to
//! refuse and everything that could harm the machine that unpacks it.
//!
//! Nothing is written to disk: files come back in memory, so a caller decides where they go.

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

/// Unpacks an archive within the limits.
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
    };
    match format {
        Format::TarGz => unpack_tar(bytes, &mut sink)?,
        Format::Zip => unpack_zip(bytes, &mut sink)?,
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

struct Sink {
    unpacked: Unpacked,
    remaining: u64,
    max_unpacked: u64,
    max_files: usize,
}

impl Sink {
    fn file(
        &mut self,
        path: String,
        reader: impl Read,
        executable: bool,
    ) -> Result<(), UnpackError> {
        if self.unpacked.files.len() >= self.max_files {
            return Err(UnpackError::TooManyFiles(self.max_files));
        }
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

/// Checks an entry path and returns it without `.` segments. Refuses absolute paths, drive
/// letters, backslashes and any `..` segment, wherever it is.
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
    if raw.starts_with("./") && !notes.iter().any(|n| n.contains("./")) {
        notes.push(
            "entries start with `./`; some clients (skills 1.7.4) refuse such archives".to_owned(),
        );
    }
    if segments.is_empty() {
        return Err(traversal());
    }
    Ok(segments.join("/"))
}

/// Whether a link at `path` pointing to `target` stays inside the folder.
fn link_stays_inside(path: &str, target: &str) -> bool {
    if target.starts_with('/') || target.contains('\\') || target.as_bytes().get(1) == Some(&b':') {
        return false;
    }
    let mut depth: Vec<&str> = path.split('/').collect();
    depth.pop();
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if depth.pop().is_none() {
                    return false;
                }
            }
            other => depth.push(other),
        }
    }
    true
}

fn unpack_tar(bytes: &[u8], sink: &mut Sink) -> Result<(), UnpackError> {
    let corrupt = |error: std::io::Error| UnpackError::Corrupt(error.to_string());
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    for entry in archive.entries().map_err(corrupt)? {
        let entry = entry.map_err(corrupt)?;
        let raw_path = entry.path_bytes();
        let raw = String::from_utf8_lossy(&raw_path).into_owned();
        let path = clean_path(&raw, &mut sink.unpacked.notes)?;
        let header = entry.header();
        let kind = header.entry_type();
        if kind.is_dir() {
            continue;
        }
        if kind.is_symlink() || kind.is_hard_link() {
            let target = entry
                .link_name_bytes()
                .map(|t| String::from_utf8_lossy(&t).into_owned())
                .unwrap_or_default();
            // Hard link targets are relative to the archive root, symlink targets to the entry.
            let inside = if kind.is_hard_link() {
                clean_path(&target, &mut Vec::new()).is_ok()
            } else {
                link_stays_inside(&path, &target)
            };
            if !inside {
                return Err(UnpackError::LinkOutside { path, target });
            }
            sink.unpacked
                .notes
                .push(format!("link `{path}` -> `{target}` was not unpacked"));
            continue;
        }
        if !(kind.is_file() || kind == tar::EntryType::Continuous) {
            if kind.is_pax_global_extensions()
                || kind.is_pax_local_extensions()
                || kind.is_gnu_longname()
            {
                continue;
            }
            return Err(UnpackError::SpecialFile(path));
        }
        let executable = header.mode().is_ok_and(|mode| mode & 0o111 != 0);
        sink.file(path, entry, executable)?;
    }
    Ok(())
}

fn unpack_zip(bytes: &[u8], sink: &mut Sink) -> Result<(), UnpackError> {
    let corrupt = |error: zip::result::ZipError| UnpackError::Corrupt(error.to_string());
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(corrupt)?;
    for at in 0..archive.len() {
        let file = archive.by_index_raw(at).map_err(corrupt)?;
        let raw = String::from_utf8_lossy(file.name_raw()).into_owned();
        let path = clean_path(&raw, &mut sink.unpacked.notes)?;
        if file.enclosed_name().is_none() {
            return Err(UnpackError::Traversal(raw));
        }
        if file.encrypted() {
            return Err(UnpackError::Encrypted(path));
        }
        if file.is_dir() {
            continue;
        }
        let is_symlink = file.is_symlink();
        let executable = file.unix_mode().is_some_and(|mode| mode & 0o111 != 0);
        drop(file);
        let file = archive.by_index(at).map_err(corrupt)?;
        if is_symlink {
            let target = read_limited(file, 4096)
                .map(|t| String::from_utf8_lossy(&t).into_owned())
                .map_err(|_| UnpackError::Corrupt(format!("link `{path}` is unreadable")))?;
            if !link_stays_inside(&path, &target) {
                return Err(UnpackError::LinkOutside { path, target });
            }
            sink.unpacked
                .notes
                .push(format!("link `{path}` -> `{target}` was not unpacked"));
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
            ".",
            "",
        ] {
            assert!(clean_path(bad, &mut notes).is_err(), "{bad}");
        }
    }

    #[test]
    fn links_are_judged_from_their_folder() {
        assert!(link_stays_inside("references/a.md", "b.md"));
        assert!(link_stays_inside("references/a.md", "../SKILL.md"));
        assert!(!link_stays_inside("references/a.md", "../../etc/passwd"));
        assert!(!link_stays_inside("a.md", "../x"));
        assert!(!link_stays_inside("a.md", "/etc/passwd"));
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
}
