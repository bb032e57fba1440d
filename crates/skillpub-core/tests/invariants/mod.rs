//! What must hold for every `SKILL.md` the catalog is given, whatever its bytes. Shared by the
//! property tests here and the `frontmatter` fuzz target in `fuzz/`, which includes this file
//! by path.

use sha2::{Digest as _, Sha256};
use skillpub_core::{Catalog, Errors, Skill};

/// Builds a catalog of one skill read from `skills/{folder}/SKILL.md`.
pub(crate) fn build(
    folder: &str,
    bytes: Vec<u8>,
    allow_unknown_fields: bool,
) -> Result<Catalog, Errors> {
    Catalog::builder()
        .skill(Skill::new(Some(format!("skills/{folder}")), bytes))
        .allow_unknown_fields(allow_unknown_fields)
        .build()
}

/// Every error names the file and the skill, and its message starts with both.
pub(crate) fn assert_errors_are_named(errors: &Errors, folder: &str) {
    assert!(!errors.is_empty(), "an Err with no error");
    let file = format!("skills/{folder}/SKILL.md");
    for error in errors.as_slice() {
        assert_eq!(error.file(), file, "{error}");
        assert!(!error.skill().is_empty(), "no skill named: {error}");
        let message = error.to_string();
        let start = format!("{file}: skill `{}`: ", error.skill());
        assert!(message.starts_with(&start), "{message}");
        assert!(message.len() > start.len(), "no message: {message}");
    }
}

/// A catalog of one skill serves its `SKILL.md` as given, under the SHA-256 of those bytes.
pub(crate) fn assert_served_as_given(catalog: &Catalog, bytes: &[u8]) {
    let skill = &catalog.skills()[0];
    let artifact = skill.skill_md();
    assert_eq!(&artifact.bytes()[..], bytes);
    let expected = format!("sha256:{}", hex::encode(Sha256::digest(bytes)));
    assert_eq!(artifact.digest().to_string(), expected);
}

/// Checks whatever came out of a build: named errors, or the bytes served as given.
pub(crate) fn assert_outcome(outcome: &Result<Catalog, Errors>, folder: &str, bytes: &[u8]) {
    match outcome {
        Ok(catalog) => assert_served_as_given(catalog, bytes),
        Err(errors) => assert_errors_are_named(errors, folder),
    }
}
