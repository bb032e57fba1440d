//! The part of the security review that the core decides: credentials in a skill's files
//! (`security.secret`), which keep the skill from being built, exported or served, and how a
//! skill suppresses a finding of the review. The other families of the review (hidden text,
//! injected instructions, exfiltration, risky scripts) are warnings of skillpub-advice.
//!
#![doc = include_str!("../docs/secrets.md")]

mod allow;
mod context;
mod credential;
mod hit;
mod jwt;
mod pem;
mod placeholder;
pub mod reading;
mod scan;
mod tokens;
mod url;

#[cfg(test)]
mod tests;

use sha2::{Digest as _, Sha256};

pub use allow::{ALLOW_KEY, allowed_by_metadata, comment_allows};
pub use credential::Credential;

use crate::digest::Digest;
use crate::frontmatter::Frontmatter;

/// The code of a credential found in a skill, as
/// [`ErrorKind::code`](crate::ErrorKind::code) gives it.
pub const SECRET_CODE: &str = "security.secret";

/// A credential found in a file: its line, what it is, and how a report shows it.
///
/// # Example
///
/// ```
/// use skillpub_core::security::{Credential, find_secrets};
///
/// let text = format!("# Deploy\n\nexport STRIPE_KEY=sk_live_{}\n", "4eC39HqLyjWDarjtT1zdp7dcZ");
/// let found = find_secrets(text.as_bytes());
/// assert_eq!(found.len(), 1);
/// assert_eq!((found[0].line(), found[0].credential()), (3, Credential::StripeLiveKey));
/// assert_eq!(found[0].shown(), "sk_live_…7dcZ");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    line: u64,
    credential: Credential,
    shown: String,
}

impl Secret {
    /// The line it is on (1-based).
    #[must_use]
    pub fn line(&self) -> u64 {
        self.line
    }

    /// What kind of credential it is.
    #[must_use]
    pub fn credential(&self) -> Credential {
        self.credential
    }

    /// The credential with all but its prefix and its last characters hidden (for a private
    /// key, its first line; for a URL, its scheme, user and host): what a report may print.
    #[must_use]
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

/// Every credential in `text` by its published format, in order, but those that a comment on
/// their line or the line before suppresses ([`comment_allows`] with [`SECRET_CODE`]).
///
/// `text` is read as bytes, so a file that is not UTF-8 (a compiled script, a database) is
/// read too; a file that starts with a UTF-16 byte order mark (what Windows PowerShell 5's `>`
/// writes) is read as the text it holds, since none of its credentials is a run of ASCII bytes
/// there. The time is linear in its length.
#[must_use]
pub fn find_secrets(text: &[u8]) -> Vec<Secret> {
    match utf16(text) {
        Some(decoded) => secrets_in(decoded.as_bytes()),
        None => secrets_in(text),
    }
}

/// The text of a file that starts with a UTF-16 byte order mark, little- or big-endian; `None`
/// for any other file. A unit that is not UTF-16 becomes U+FFFD.
fn utf16(text: &[u8]) -> Option<String> {
    let (units, little_endian) = match text {
        [0xFF, 0xFE, units @ ..] => (units, true),
        [0xFE, 0xFF, units @ ..] => (units, false),
        _ => return None,
    };
    let units = units.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little_endian {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    Some(
        char::decode_utf16(units)
            .map(|unit| unit.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    )
}

/// Every credential in `text`, read as bytes, and in its [`reading`] (a key split into string
/// pieces, or stored in base64 or hex), but those a comment suppresses.
fn secrets_in(text: &[u8]) -> Vec<Secret> {
    let mut found = secrets_as_written(text);
    let text_read = match std::str::from_utf8(text) {
        Ok(valid) => std::borrow::Cow::Borrowed(valid),
        Err(_) => String::from_utf8_lossy(text),
    };
    if let Some(view) = reading::view(&text_read) {
        for secret in secrets_as_written(view.as_bytes()) {
            if !found.iter().any(|known| known.line == secret.line) {
                found.push(secret);
            }
        }
        found.sort_by_key(|secret| secret.line);
    }
    found
}

/// Every credential in `text` as its bytes are written, but those a comment suppresses.
fn secrets_as_written(text: &[u8]) -> Vec<Secret> {
    let mut lines = Lines::new(text);
    scan::scan(text)
        .into_iter()
        .filter_map(|hit| {
            let line = lines.number(hit.start);
            (!lines.allowed(line)).then_some(Secret {
                line,
                credential: hit.credential,
                shown: hit.shown,
            })
        })
        .collect()
}

/// `text` from byte `from` on, with every credential in it replaced by its redacted form
/// ([`Secret::shown`]), whether or not a comment suppresses it: what a report may quote of a
/// line. A credential that `from` falls inside is shown whole, redacted.
///
/// # Example
///
/// ```
/// use skillpub_core::security::redact;
///
/// let line = format!("curl -H 'Authorization: Bearer sk_live_{}' https://x.io", "4eC39HqLyjWDarjtT1zdp7dcZ");
/// assert_eq!(redact(&line, 5), "-H 'Authorization: Bearer sk_live_…7dcZ' https://x.io");
/// assert_eq!(redact(&line, 40), "sk_live_…7dcZ' https://x.io", "from inside the key");
/// ```
#[must_use]
pub fn redact(text: &str, from: usize) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(text.len().saturating_sub(from));
    let mut at = from.min(bytes.len());
    for hit in scan::scan(bytes) {
        if hit.end <= at {
            continue;
        }
        out.extend_from_slice(&bytes[at..hit.start.max(at)]);
        out.extend_from_slice(hit.shown.as_bytes());
        at = hit.end;
    }
    out.extend_from_slice(&bytes[at..]);
    // A credential ends at an ASCII byte, so the pieces are whole characters; a lossy
    // reading only guards against a format that would not.
    String::from_utf8_lossy(&out).into_owned()
}

/// Line numbers of offsets given in increasing order, and whether a comment on a line or the
/// line before allows a secret, each line read once whatever the number of findings on it.
struct Lines<'a> {
    text: &'a [u8],
    /// The offset counted to, and its line.
    offset: usize,
    line: u64,
    /// Where the line of `offset` starts, and where the line before it starts.
    line_start: usize,
    previous_start: Option<usize>,
    /// The last line asked about, and the answer.
    asked: Option<(u64, bool)>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a [u8]) -> Self {
        Self {
            text,
            offset: 0,
            line: 1,
            line_start: 0,
            previous_start: None,
            asked: None,
        }
    }

    /// The line of `offset`, which is at least the last offset asked about.
    fn number(&mut self, offset: usize) -> u64 {
        for at in self.offset..offset {
            if self.line_end(at) {
                self.line += 1;
                self.previous_start = Some(self.line_start);
                self.line_start = at + 1;
            }
        }
        self.offset = self.offset.max(offset);
        self.line
    }

    /// Whether `line` (the line of the last offset numbered) or the line before it allows a
    /// secret.
    fn allowed(&mut self, line: u64) -> bool {
        if let Some((asked, answer)) = self.asked
            && asked == line
        {
            return answer;
        }
        let this = self.line_at(self.line_start);
        let before = self.previous_start.map(|start| self.line_at(start));
        let answer = comment_allows(this, SECRET_CODE)
            || before.is_some_and(|line| comment_allows(line, SECRET_CODE));
        self.asked = Some((line, answer));
        answer
    }

    /// Whether the byte at `at` ends a line: `\n`, or a `\r` not followed by one (a file of
    /// old Mac line ends, which editors and the advice show as lines, so that a comment
    /// suppresses the line after it there too, not the rest of the file).
    fn line_end(&self, at: usize) -> bool {
        match self.text[at] {
            b'\n' => true,
            b'\r' => self.text.get(at + 1) != Some(&b'\n'),
            _ => false,
        }
    }

    /// The line that starts at `start`, without its line end.
    fn line_at(&self, start: usize) -> &'a [u8] {
        let rest = &self.text[start..];
        let end = rest
            .iter()
            .position(|&byte| byte == b'\n' || byte == b'\r')
            .unwrap_or(rest.len());
        &rest[..end]
    }
}

/// The security review's rules for credentials, in the key [`review_key`] computes: a new
/// revision of the rules (or of the crate) makes skills reviewed at build time be reviewed
/// again at start-up.
const RULES: &str = concat!(
    "skillpub security.secret review, rules 2, skillpub-core ",
    env!("CARGO_PKG_VERSION")
);

/// The review key of a skill's files: the SHA-256 of [`RULES`] and of every file's path and
/// digest, `SKILL.md` included, sorted by path. `skillpub-build` records it for skills it
/// reviewed at compile time; the catalog skips the review of a skill whose files have it.
pub(crate) fn review_key<'a>(files: impl IntoIterator<Item = (&'a str, Digest)>) -> Digest {
    let mut files: Vec<(&str, Digest)> = files.into_iter().collect();
    files.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut hasher = Sha256::new();
    hasher.update(RULES.as_bytes());
    for (path, digest) in files {
        // A path holds no NUL (see `validate_file_path`), so the fields cannot run together.
        hasher.update([0]);
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update(digest.as_bytes());
    }
    Digest::from_raw(hasher.finalize().into())
}

/// The credentials in a skill's files (each a path inside the skill and its bytes), unless
/// its frontmatter allows the code: one per credential, with its path.
pub(crate) fn review<'a>(
    frontmatter: &Frontmatter,
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Vec<(&'a str, Secret)> {
    if allowed_by_metadata(frontmatter, SECRET_CODE) {
        return Vec::new();
    }
    files
        .into_iter()
        .flat_map(|(path, bytes)| {
            find_secrets(bytes)
                .into_iter()
                .map(move |secret| (path, secret))
        })
        .collect()
}
