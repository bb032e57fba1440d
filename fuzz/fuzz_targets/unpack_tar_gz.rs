//! A tar.gz archive of any bytes, unpacked as the client does: no panic, and everything
//! unpacked is within the limits, with paths that cannot leave the skill's folder.
//!
//! An input that does not start with the gzip magic bytes is a tar: it is compressed first, so
//! that the fuzzer also works on the tar headers directly instead of mostly breaking the gzip
//! stream.

#![no_main]

use std::io::Write;

use skillpub_client::Limits;
use skillpub_core::index::ArchiveFormat;

#[path = "../../crates/skillpub-client/tests/invariants/unpack.rs"]
mod invariants;

/// Small limits, so that each run stays fast and the limits themselves are reached.
const LIMITS: Limits = Limits {
    max_body: 1 << 20,
    max_unpacked: 1 << 20,
    max_files: 64,
};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let compressed;
    let archive = if data.starts_with(&[0x1f, 0x8b]) {
        data
    } else {
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(data).expect("in memory");
        compressed = gzip.finish().expect("in memory");
        &compressed
    };
    if let Ok(unpacked) = invariants::unpack(ArchiveFormat::TarGz, archive, &LIMITS) {
        invariants::assert_unpacked_is_sound(&unpacked, &LIMITS);
    }
});
