//! The fixtures of the end-to-end tests: the demo's skills. The helpers (servers on 127.0.0.1,
//! the raw HTTP/1.1 client, scratch folders) are in the `skillpub-testkit` crate.

#![allow(
    dead_code,
    reason = "each test binary uses a different part of this module"
)]

use skillpub::{Catalog, Skill};

pub(crate) static VERIFY_SKILL_DIGESTS: Skill =
    skillpub::skill!("examples/skills/verify-skill-digests");
pub(crate) static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

/// The catalog the basic demo serves.
pub(crate) fn example_catalog() -> Catalog {
    Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD]).expect("the example skills are valid")
}
