//! Deterministic `.tar.gz` and `.zip` archives of a skill folder.
//!
//! The same files give the same bytes on every build and every machine: entries sorted by
//! path at the archive root (no wrapper folder, no `./`), regular files only, timestamps fixed
//! (the Unix epoch in tar and gzip, 1980-01-01 in zip), owner 0, mode 0644 or 0755, and one
//! pinned compressor (flate2's pure-Rust miniz_oxide backend at level 9). A change of
//! compressor would change the bytes and every digest, so a test pins a recorded digest.

use std::io::{self, Cursor, Write};

use flate2::{Compression, GzBuilder};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// The file name suffix of the tar archive of a skill.
pub const TAR_GZ_SUFFIX: &str = ".tar.gz";
/// The file name suffix of the zip archive of a skill.
pub const ZIP_SUFFIX: &str = ".zip";

const LEVEL: u32 = 9;

/// One archive entry: path inside the skill, bytes and Unix mode.
pub(crate) struct Entry<'a> {
    pub(crate) path: &'a str,
    pub(crate) bytes: &'a [u8],
    pub(crate) mode: u32,
}

/// Builds the `.tar.gz` (ustar entries inside gzip) of entries already sorted by path.
pub(crate) fn tar_gz(entries: &[Entry<'_>]) -> io::Result<Vec<u8>> {
    let gzip = GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), Compression::new(LEVEL));
    let mut tar = tar::Builder::new(gzip);
    for entry in entries {
        let mut header = tar::Header::new_ustar();
        header.set_path(entry.path)?;
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(entry.bytes.len() as u64);
        header.set_mode(entry.mode);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_cksum();
        tar.append(&header, entry.bytes)?;
    }
    tar.into_inner()?.finish()
}

/// Builds the `.zip` of entries already sorted by path.
pub(crate) fn zip(entries: &[Entry<'_>]) -> io::Result<Vec<u8>> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    for entry in entries {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .compression_level(Some(i64::from(LEVEL)))
            .system(zip::System::Unix)
            .last_modified_time(DateTime::default())
            .unix_permissions(entry.mode)
            .large_file(false);
        zip.start_file(entry.path, options)
            .map_err(io::Error::other)?;
        zip.write_all(entry.bytes)?;
    }
    Ok(zip.finish().map_err(io::Error::other)?.into_inner())
}
