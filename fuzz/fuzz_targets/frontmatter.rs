//! One `SKILL.md` of any bytes, parsed and validated as the catalog does: no panic, every
//! error names the file and the skill, and a valid one is served as given under its SHA-256.

#![no_main]

#[path = "../../crates/skillpub-core/tests/invariants/mod.rs"]
mod invariants;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let outcome = invariants::build("fuzz", data.to_vec(), false);
    invariants::assert_outcome(&outcome, "fuzz", data);
});
