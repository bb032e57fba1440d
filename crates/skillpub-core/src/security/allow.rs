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
    let next_marker = |from: usize| {
        position(&line[from..], |at| line[from + at..].starts_with(marker)).map(|at| from + at)
    };
    let mut next = next_marker(0);
    while let Some(at) = next {
        let after = at + marker.len();
        next = next_marker(after);
        if names(&line[after..], next.unwrap_or(line.len()) - after, code) {
            return true;
        }
    }
    false
}

/// Whether `after` (the text after a marker) is white space, a list of codes holding `code`,
/// a colon and a reason. The colon is looked for only in the first `codes_end` bytes (up to
/// the next marker), so that a line of markers without a colon is read once, not once per
/// marker to its end.
fn names(after: &[u8], codes_end: usize, code: &str) -> bool {
    if !after.first().is_some_and(u8::is_ascii_whitespace) {
        return false;
    }
    let codes = &after[..codes_end];
    let Some(colon) = position(codes, |at| codes[at] == b':') else {
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
        && position(reason, |at| reason[at].is_ascii_alphabetic()).is_some()
}

#[cfg(test)]
thread_local! {
    /// How many bytes this thread's suppression comments looked at, for the test of linearity.
    pub(super) static BYTES_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The first offset of `bytes` at which `found` holds, each offset looked at once.
fn position(bytes: &[u8], found: impl Fn(usize) -> bool) -> Option<usize> {
    let at = (0..bytes.len()).find(|&at| found(at));
    #[cfg(test)]
    BYTES_READ.with(|read| read.set(read.get() + at.map_or(bytes.len(), |at| at + 1)));
    at
}
