//! Deterministic `.tar.gz` and `.zip` archives of a skill folder.
//!
//! The same files give the same bytes on every build and every machine: entries sorted by
//! path at the archive root (no wrapper folder, no `./`), regular files only, timestamps fixed
//! (the Unix epoch in tar and gzip, 1980-01-01 in zip), owner 0, mode 0644 or 0755.
//!
//! Compression is miniz_oxide's deflate, called directly, with the gzip and zip framing written
//! here. Going through flate2 or the zip crate would let any other crate in an application's
//! dependency graph switch the deflate backend by feature unification (zip's default features
//! turn flate2 to zlib-rs), and a different backend gives different bytes, so every digest
//! would change. A test pins the digests of a fixture, so a miniz_oxide update that changes
//! its output is noticed before a release.
//!
//! Archives are deflated at level 6 and the HTTP `gzip` variants ([`gzip`]) at level 9. On
//! this repository's own Markdown and Rust sources, level 9 makes archives 0.2 % smaller than
//! level 6 and takes 1.5 times as long (`cargo bench -p skillpub-cold-start --bench levels`);
//! archives are built for every skill of a folder at every start and by every clean build, so
//! they take the faster level. The HTTP variants keep level 9: each is made once, for one file,
//! and its `ETag` is derived from the digest of the plain bytes, so replicas of two versions
//! must make the same bytes for it, whereas a change of the archives' bytes changes their
//! digests and `ETag`s with them.

use std::io;

use sha2::{Digest as _, Sha256};

use crate::digest::Digest;

/// The deflate level of the archives.
const ARCHIVE_LEVEL: u8 = 6;

/// The deflate level of [`gzip`], for the HTTP variants: miniz_oxide's best.
const GZIP_LEVEL: u8 = 9;

/// What an archive's bytes depend on besides its files: the layout written here and the
/// compressor, whose level follows. It starts every [`key`], so a change of either changes
/// every key, and archives built before the change are never taken for archives built after it.
const SETTINGS: &str = concat!(
    "skillpub-core ",
    env!("CARGO_PKG_VERSION"),
    " archives: sorted ustar entries in gzip, and zip; miniz_oxide 0.9 deflate level ",
);

/// The archive key of a skill: the SHA-256 of [`SETTINGS`], the level, and every entry's path,
/// mode and digest, in archive order (sorted by path here, whatever order they come in). Two
/// skills with the same key get the same archives, byte for byte, so the key names archives
/// built ahead of time (by `skillpub-build`, in `OUT_DIR`), and the catalog only serves such
/// archives when the key of the files it serves is theirs.
pub(crate) fn key<'a>(entries: impl IntoIterator<Item = (&'a str, u32, Digest)>) -> Digest {
    let mut entries: Vec<(&str, u32, Digest)> = entries.into_iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut hasher = Sha256::new();
    hasher.update(SETTINGS.as_bytes());
    hasher.update([ARCHIVE_LEVEL]);
    for (path, mode, digest) in entries {
        // A path holds no NUL (see `validate_file_path`), so the fields cannot run together.
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update(mode.to_le_bytes());
        hasher.update(digest.as_bytes());
    }
    Digest::from_raw(hasher.finalize().into())
}

/// One archive entry: path inside the skill, bytes and Unix mode.
pub(crate) struct Entry<'a> {
    pub(crate) path: &'a str,
    pub(crate) bytes: &'a [u8],
    pub(crate) mode: u32,
}

/// Builds the `.tar.gz` (ustar entries inside gzip) of entries already sorted by path.
pub(crate) fn tar_gz(entries: &[Entry<'_>]) -> io::Result<Vec<u8>> {
    let mut tar = tar::Builder::new(Vec::new());
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
    Ok(gzip_at(&tar.into_inner()?, ARCHIVE_LEVEL))
}

/// Wraps `data` in a gzip member (RFC 1952): no name, mtime 0, "best compression", OS unknown,
/// deflated by the archives' pinned compressor at level 9, so the same bytes give the same
/// output on every build and machine. `skillpub-axum` makes its `Content-Encoding: gzip`
/// variants of text files with it; the `.tar.gz` archives use the same framing at level 6,
/// which is 0.2 % larger on real text and a third faster, since every start or clean build
/// makes them.
///
/// # Example
///
/// ```
/// let text = b"# Forms\n\nFill in every field.\n".repeat(20);
/// let gzipped = skillpub_core::archive::gzip(&text);
/// assert_eq!(gzipped[..3], [0x1f, 0x8b, 8]); // the gzip magic and deflate
/// assert!(gzipped.len() < text.len());
/// assert_eq!(gzipped, skillpub_core::archive::gzip(&text)); // deterministic
///
/// let mut decoded = Vec::new();
/// std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gzipped[..]), &mut decoded)?;
/// assert_eq!(decoded, text);
/// # Ok::<(), std::io::Error>(())
/// ```
#[must_use]
pub fn gzip(data: &[u8]) -> Vec<u8> {
    gzip_at(data, GZIP_LEVEL)
}

/// A gzip member of `data` deflated at `level`. Its header's "extra flags" say "best
/// compression" at level 9 and nothing otherwise.
fn gzip_at(data: &[u8], level: u8) -> Vec<u8> {
    let best = if level >= GZIP_LEVEL { 2 } else { 0 };
    let header: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, best, 0xff];
    let deflated = miniz_oxide::deflate::compress_to_vec(data, level);
    let mut out = Vec::with_capacity(header.len() + deflated.len() + 8);
    out.extend_from_slice(&header);
    out.extend_from_slice(&deflated);
    out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    // ISIZE is the length modulo 2^32 by definition.
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// Builds the `.zip` (deflated entries, Unix attributes, 1980-01-01 00:00 timestamps) of
/// entries already sorted by path. A skill is at most 512 files and 16 MiB, so zip64 is never
/// needed.
pub(crate) fn zip(entries: &[Entry<'_>]) -> io::Result<Vec<u8>> {
    const VERSION: u16 = 20;
    const MADE_BY_UNIX: u16 = (3 << 8) | VERSION;
    const DEFLATED: u16 = 8;
    const TIME: u16 = 0;
    const DATE_1980_01_01: u16 = (1 << 5) | 1;
    const REGULAR_FILE: u32 = 0o100_000;

    let too_large = || io::Error::other("the skill is too large for a zip without zip64");
    let small = |n: usize| u32::try_from(n).map_err(|_| too_large());
    let deflated: Vec<Vec<u8>> = entries
        .iter()
        .map(|entry| miniz_oxide::deflate::compress_to_vec(entry.bytes, ARCHIVE_LEVEL))
        .collect();
    // The exact size, so that the archive holds no spare capacity for as long as it is served.
    let names: usize = entries.iter().map(|entry| entry.path.len()).sum();
    let size = deflated.iter().map(Vec::len).sum::<usize>() + 2 * names + 76 * entries.len() + 22;
    let mut out = Vec::with_capacity(size);
    let mut central = Vec::with_capacity(46 * entries.len() + names);
    for (entry, deflated) in entries.iter().zip(deflated) {
        let name = entry.path.as_bytes();
        let name_length = u16::try_from(name.len()).map_err(|_| too_large())?;
        let offset = small(out.len())?;
        let crc = crc32fast::hash(entry.bytes);
        let (compressed, size) = (small(deflated.len())?, small(entry.bytes.len())?);

        // The fields shared by the local and the central header, from "version needed" on.
        let mut common = Vec::with_capacity(26);
        for half in [VERSION, 0, DEFLATED, TIME, DATE_1980_01_01] {
            common.extend_from_slice(&half.to_le_bytes());
        }
        for word in [crc, compressed, size] {
            common.extend_from_slice(&word.to_le_bytes());
        }
        common.extend_from_slice(&name_length.to_le_bytes());
        common.extend_from_slice(&0_u16.to_le_bytes());

        out.extend_from_slice(&0x0403_4b50_u32.to_le_bytes());
        out.extend_from_slice(&common);
        out.extend_from_slice(name);
        out.extend_from_slice(&deflated);

        central.extend_from_slice(&0x0201_4b50_u32.to_le_bytes());
        central.extend_from_slice(&MADE_BY_UNIX.to_le_bytes());
        central.extend_from_slice(&common);
        for half in [0_u16, 0, 0] {
            // comment length, disk number, internal attributes
            central.extend_from_slice(&half.to_le_bytes());
        }
        central.extend_from_slice(&((REGULAR_FILE | entry.mode) << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
    }
    let count = u16::try_from(entries.len()).map_err(|_| too_large())?;
    let central_offset = small(out.len())?;
    let central_size = small(central.len())?;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50_u32.to_le_bytes());
    for half in [0_u16, 0, count, count] {
        out.extend_from_slice(&half.to_le_bytes());
    }
    out.extend_from_slice(&central_size.to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    out.extend_from_slice(&0_u16.to_le_bytes());
    debug_assert_eq!(out.len(), size, "the zip's size is computed exactly");
    Ok(out)
}
