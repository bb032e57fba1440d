//! How a skill says that a finding of the security review is not one: for the whole skill, a
//! code listed under `metadata.skillpub-allow` in the frontmatter; for one line, a comment on
//! that line or the line before that names the code and gives a reason:
//!
//! ```text
//! # skillpub-allow security.secret: Stripe's documentation key, which reaches no account
//! <!-- skillpub-allow security.injection, security.hidden-text: this page quotes an attack -->
//! ```
//!
//! The comment is any text on the line: the marker, white space, one or more codes separated
//! by commas or white space, a colon, and a reason with at least one letter in it. A comment
//! without a reason suppresses nothing, so that every suppression says why.

use crate::frontmatter::Frontmatter;

/// The key under the frontmatter's `metadata` (the specification's map of text to text) whose
/// value lists the codes of the security review that do not apply to the skill, separated by
/// commas or white space; also the marker of a suppression comment.
///
/// # Example
///
/// ```
/// use skillpub_core::{SkillMd, security::{ALLOW_KEY, allowed_by_metadata}};
///
/// let skill_md = SkillMd::parse(
///     "---\nname: pdf\ndescription: Reads PDFs.\nmetadata:\n  skillpub-allow: security.script, security.injection\n---\n",
///     None,
/// )?;
/// assert_eq!(ALLOW_KEY, "skillpub-allow");
/// assert!(allowed_by_metadata(skill_md.frontmatter(), "security.script"));
/// assert!(!allowed_by_metadata(skill_md.frontmatter(), "security.secret"));
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
pub const ALLOW_KEY: &str = "skillpub-allow";

/// Whether the frontmatter's `metadata.skillpub-allow` lists `code`.
#[must_use]
pub fn allowed_by_metadata(frontmatter: &Frontmatter, code: &str) -> bool {
    frontmatter
        .metadata()
        .filter(|(key, _)| *key == ALLOW_KEY)
        .any(|(_, codes)| listed(codes, code))
}

/// Whether a list of codes separated by commas or white space holds `code`.
fn listed(codes: &str, code: &str) -> bool {
    codes
        .split(|c: char| c == ',' || c.is_whitespace())
        .any(|listed| listed == code)
}

/// Whether `line` holds a suppression comment for `code` with a reason.
///
/// # Example
///
/// ```
/// use skillpub_core::security::comment_allows;
///
/// let line = b"KEY = 'sk_live_...'  # skillpub-allow security.secret: a revoked key from the docs";
/// assert!(comment_allows(line, "security.secret"));
/// assert!(!comment_allows(line, "security.script"));
/// assert!(!comment_allows(b"# skillpub-allow security.secret", "security.secret"), "no reason");
/// ```
#[must_use]
pub fn comment_allows(line: &[u8], code: &str) -> bool {
    let marker = ALLOW_KEY.as_bytes();
    let mut rest = line;
    while let Some(at) = rest
        .windows(marker.len())
        .position(|window| window == marker)
    {
        let after = &rest[at + marker.len()..];
        if names(after, code) {
            return true;
        }
        rest = after;
    }
    false
}

/// Whether `after` (the text after a marker) is white space, a list of codes holding `code`,
/// a colon and a reason.
fn names(after: &[u8], code: &str) -> bool {
    if !after.first().is_some_and(u8::is_ascii_whitespace) {
        return false;
    }
    let Some(colon) = after.iter().position(|&byte| byte == b':') else {
        return false;
    };
    let Ok(codes) = std::str::from_utf8(&after[..colon]) else {
        return false;
    };
    let reason = &after[colon + 1..];
    let code_like = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-';
    codes
        .chars()
        .all(|c| code_like(c) || c == ',' || c.is_whitespace())
        && listed(codes, code)
        && reason.iter().any(u8::is_ascii_alphabetic)
}
