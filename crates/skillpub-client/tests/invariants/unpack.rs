//! What holds for every archive the client unpacks.

use std::collections::HashSet;

pub(crate) use skillpub_client::Limits;
use skillpub_client::unpack::{UnpackError, Unpacked};
use skillpub_core::index::ArchiveFormat;

/// Unpacks within the archive limits of `limits`, with no deadline.
pub(crate) fn unpack(
    format: ArchiveFormat,
    bytes: &[u8],
    limits: &Limits,
) -> Result<Unpacked, UnpackError> {
    skillpub_client::unpack::unpack(format, bytes, limits, None)
}

/// At most `max_files` files and `max_unpacked` bytes, a `SKILL.md` at the root, and every
/// path at most `MAX_PATH_LENGTH` bytes, relative, `/`-separated, without empty, `.` or `..` segments, backslashes, NUL or a
/// drive letter, and unique: a path that cannot leave the folder it is written under.
pub(crate) fn assert_unpacked_is_sound(unpacked: &Unpacked, limits: &Limits) {
    assert!(
        unpacked.files.len() <= limits.max_files,
        "{} files",
        unpacked.files.len()
    );
    let total: u64 = unpacked
        .files
        .iter()
        .map(|file| file.bytes.len() as u64)
        .sum();
    assert!(total <= limits.max_unpacked, "{total} bytes");
    assert!(unpacked.files.iter().any(|file| file.path == "SKILL.md"));
    assert!(unpacked.notes.len() <= 21, "{} notes", unpacked.notes.len());
    let mut seen = HashSet::new();
    for file in &unpacked.files {
        let path = &file.path;
        assert!(seen.insert(path.as_str()), "`{path}` twice");
        assert!(
            path.len() <= skillpub_client::unpack::MAX_PATH_LENGTH,
            "`{path}` is longer than the limit"
        );
        assert!(
            !path.starts_with('/')
                && !path.contains(['\\', '\0'])
                && path.as_bytes().get(1) != Some(&b':'),
            "`{path}` is not relative"
        );
        assert!(
            path.split('/')
                .all(|segment| !matches!(segment, "" | "." | "..")),
            "`{path}` has an empty, `.` or `..` segment"
        );
    }
}
