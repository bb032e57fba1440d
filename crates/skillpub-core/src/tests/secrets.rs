//! Credentials refused by the catalog: every file of a skill is reviewed when the catalog is
//! built, unless `skillpub-build` reviewed the very same bytes; a skill suppresses a finding
//! by its `metadata` or by a comment.

use crate::{Catalog, CatalogBuilder, ErrorKind, Skill, SkillFile, security::Credential};

/// A Stripe live key, made at run time so that no scanner finds one in this file.
fn live_key() -> String {
    format!("sk_live_{}", "51Hq8ZkLq2Wd9RtYvB3nX7cPfM0aJ4eU")
}

fn skill_md(metadata: &str) -> String {
    format!(
        "---\nname: pay\ndescription: Takes payments. Use when a user pays.\n{metadata}---\n# Pay\n"
    )
}

fn paying_skill(metadata: &str, reference: String) -> Skill {
    Skill::new(Some("skills/pay".into()), skill_md(metadata)).with_files(vec![
        SkillFile::new("references/api.md", reference, false),
        SkillFile::new(
            "scripts/pay.sh",
            "#!/bin/sh\ncurl -u \"$STRIPE_KEY:\" https://api.stripe.com/v1/charges\n",
            true,
        ),
    ])
}

fn reference() -> String {
    format!("# API\n\nCall it with:\n\n    STRIPE_KEY={}\n", live_key())
}

#[test]
fn a_credential_in_a_supporting_file_is_refused_with_its_file_and_line() {
    let errors = Catalog::new([paying_skill("", reference())]).unwrap_err();
    assert_eq!(errors.len(), 1);
    let error = &errors.as_slice()[0];
    assert_eq!(error.code(), "security.secret");
    assert_eq!(
        (error.skill(), error.file()),
        ("pay", "skills/pay/references/api.md")
    );
    assert_eq!(error.line(), Some(5));
    assert!(matches!(
        error.kind(),
        ErrorKind::Secret {
            credential: Credential::StripeLiveKey,
            ..
        }
    ));
    let message = error.to_string();
    assert!(
        message.starts_with("skills/pay/references/api.md: skill `pay`: line 5 holds a Stripe live secret key (`sk_live_…J4eU`)"),
        "{message}"
    );
    assert!(
        message.contains("roll it at https://dashboard.stripe.com/apikeys"),
        "{message}"
    );
    assert!(
        message.contains("skillpub-allow security.secret: <reason>"),
        "{message}"
    );
    assert!(
        !message.contains(&live_key()[8..]),
        "the key itself is never printed: {message}"
    );
}

#[test]
fn a_credential_in_the_skill_md_is_refused_too() {
    let text = format!("{}Pay with {}\n", skill_md(""), live_key());
    let errors = Catalog::new([Skill::new(Some("skills/pay".into()), text)]).unwrap_err();
    let error = &errors.as_slice()[0];
    assert_eq!(
        (error.file(), error.line()),
        ("skills/pay/SKILL.md", Some(6))
    );
    let unnamed = Skill::new(None, format!("{}{}\n", skill_md(""), live_key()));
    let errors = Catalog::new([unnamed]).unwrap_err();
    assert_eq!(
        errors.as_slice()[0].file(),
        "SKILL.md of skill #1 (no folder given)"
    );
}

#[test]
fn the_metadata_of_the_skill_allows_the_code() {
    let allowed = paying_skill(
        "metadata:\n  skillpub-allow: security.secret\n",
        reference(),
    );
    assert!(Catalog::new([allowed]).is_ok());
    let other = paying_skill(
        "metadata:\n  skillpub-allow: security.script\n",
        reference(),
    );
    assert!(Catalog::new([other]).is_err());
}

#[test]
fn a_comment_with_a_reason_allows_its_line() {
    let commented = format!(
        "# API\n\n<!-- skillpub-allow security.secret: Stripe revoked this key in 2024 -->\nSTRIPE_KEY={}\n",
        live_key()
    );
    assert!(Catalog::new([paying_skill("", commented)]).is_ok());
}

#[test]
fn a_skill_with_other_problems_is_reviewed_once_its_skill_md_passes() {
    let text = format!("---\nname: Pay\ndescription: d\n---\n{}\n", live_key());
    let errors = Catalog::new([Skill::new(Some("skills/pay".into()), text)]).unwrap_err();
    let codes: Vec<&str> = errors.as_slice().iter().map(|e| e.code()).collect();
    assert_eq!(codes, ["name.uppercase", "name.folder-mismatch"]);
}

#[test]
fn a_skill_reviewed_at_build_time_is_not_reviewed_again_for_the_same_bytes() {
    // Marked with the key of its own files, as skillpub-build marks a skill whose review
    // passed (here the review would not have passed: that shows it is not run again).
    let skill = paying_skill("", reference());
    let key = *skill.review_key().as_bytes();
    let marked = skill.clone().with_reviewed_secrets(key);
    assert!(Catalog::new([&marked]).is_ok(), "the review is skipped");
    let mut builder = CatalogBuilder::new();
    builder.skill(&marked);
    assert!(builder.check().is_ok(), "check skips it too");

    // Another key, or other bytes under the same key: reviewed, and refused.
    let other_key = skill.clone().with_reviewed_secrets([0; 32]);
    assert_eq!(
        Catalog::new([&other_key]).unwrap_err().as_slice()[0].code(),
        "security.secret"
    );
    let mut builder = CatalogBuilder::new();
    builder.skill(&other_key);
    assert_eq!(
        builder.check().unwrap_err().as_slice()[0].code(),
        "security.secret"
    );
    let edited = paying_skill("", format!("{}\n", reference())).with_reviewed_secrets(key);
    assert!(Catalog::new([edited]).is_err());
}

#[test]
fn every_credential_of_every_skill_is_reported() {
    let two = format!("{}\n{}\n", reference(), live_key());
    let errors = Catalog::new([paying_skill("", two)]).unwrap_err();
    let lines: Vec<Option<u64>> = errors.as_slice().iter().map(|e| e.line()).collect();
    assert_eq!(lines, [Some(5), Some(7)]);
}
