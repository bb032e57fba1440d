//! A zip archive of any bytes, unpacked as the client does: no panic, and everything
//! unpacked is within the limits, with paths that cannot leave the skill's folder.

#![no_main]

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
    if let Ok(unpacked) = invariants::unpack(ArchiveFormat::Zip, data, &LIMITS) {
        invariants::assert_unpacked_is_sound(&unpacked, &LIMITS);
    }
});
