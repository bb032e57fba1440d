//! Content-addressed paths: an artifact's canonical path with the segment `sha256-<hex>/` of
//! its digest inserted right after `/.well-known/agent-skills/`, so that the bytes at such a
//! path can never change. The rule is written here once: [`addressed_path`] formats it,
//! [`AddressedPath::parse`] reads it back.

use crate::digest::Digest;
use crate::media;
use crate::paths::{SKILL_MD, TAR_GZ_SUFFIX, WELL_KNOWN_PATH, ZIP_SUFFIX};

/// What starts the segment that names a digest in an addressed path: `sha256-`, then the 64
/// lowercase hex digits of the digest, then `/`.
pub const ADDRESS_PREFIX: &str = "sha256-";

/// How long the segment is, without its `/`: `sha256-` and 64 hex digits.
const SEGMENT_LENGTH: usize = ADDRESS_PREFIX.len() + 64;

// The segment is longer than any skill name, so no skill folder can be taken for it.
const _: () = assert!(SEGMENT_LENGTH > crate::spec::limits::MAX_NAME_LENGTH);

/// The addressed path of the artifact at the canonical `path` whose bytes have `digest`:
/// `sha256-<hex>/` inserted after `/.well-known/agent-skills/`. `None` for a path outside
/// that folder, or one that is addressed already.
///
/// # Example
///
/// ```
/// use skillpub_core::{Digest, paths::addressed_path};
///
/// let digest = Digest::of(b"abc");
/// assert_eq!(
///     addressed_path("/.well-known/agent-skills/pdf/SKILL.md", digest).unwrap(),
///     format!("/.well-known/agent-skills/sha256-{}/pdf/SKILL.md", digest.hex()),
/// );
/// assert_eq!(addressed_path("/.well-known/skills/pdf/SKILL.md", digest), None);
/// ```
#[must_use]
pub fn addressed_path(path: &str, digest: Digest) -> Option<String> {
    let relative = path.strip_prefix(WELL_KNOWN_PATH)?;
    if relative.is_empty() || AddressedPath::parse(path).is_some() {
        return None;
    }
    Some(format!(
        "{WELL_KNOWN_PATH}{}/{relative}",
        address_segment(digest)
    ))
}

/// The segment that names `digest` in an addressed path, without its `/`:
/// `sha256-<64 hex>`; a [relative](crate::index::UrlStyle::Relative) index `url` starts with
/// it.
///
/// # Example
///
/// ```
/// use skillpub_core::{Digest, paths::address_segment};
///
/// let digest = Digest::of(b"");
/// assert_eq!(address_segment(digest), format!("sha256-{}", digest.hex()));
/// ```
#[must_use]
pub fn address_segment(digest: Digest) -> String {
    format!("{ADDRESS_PREFIX}{}", digest.hex())
}

/// An addressed path read back: the digest it names and the canonical path it addresses.
///
/// `/.well-known/agent-skills/pdf/SKILL.md` is addressed as
/// `/.well-known/agent-skills/sha256-<hex>/pdf/SKILL.md`, `pdf.tar.gz` as
/// `/.well-known/agent-skills/sha256-<hex>/pdf.tar.gz`. The digest goes in the path rather
/// than the query because many caches can be told to leave the query out of their key (a
/// CDN's "ignore query string", an nginx `proxy_cache_key $uri`), which under an `immutable`
/// answer would pair an old URL's bytes with a new digest for good, and because a static host
/// cannot serve two byte sequences at one path told apart by the query. The segment cannot
/// collide with a canonical path, now or after a rename: a skill name is at most 64
/// characters, `sha256-` and 64 hex digits are 71, and `index.json` is a file, not a folder.
/// The canonical tail (`pdf/SKILL.md`, `pdf.tar.gz`) stays at the end, so the URL stays
/// readable and keeps the suffix that clients read the archive format from.
///
/// # Example
///
/// ```
/// use skillpub_core::{Digest, paths::{AddressedPath, addressed_path}};
///
/// let digest = Digest::of(b"archive bytes");
/// let path = addressed_path("/.well-known/agent-skills/pdf.tar.gz", digest).unwrap();
/// let parsed = AddressedPath::parse(&path).unwrap();
/// assert_eq!(parsed.digest(), digest);
/// assert_eq!(parsed.hex(), digest.hex());
/// assert_eq!(parsed.relative(), "pdf.tar.gz");
/// assert_eq!(parsed.canonical_path(), "/.well-known/agent-skills/pdf.tar.gz");
/// assert!(AddressedPath::parse("/.well-known/agent-skills/pdf.tar.gz").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressedPath<'a> {
    /// Exactly 64 lowercase hex digits.
    hex: &'a str,
    relative: &'a str,
}

impl<'a> AddressedPath<'a> {
    /// Reads `path` as `/.well-known/agent-skills/sha256-<hex>/<rest>`, with exactly 64
    /// lowercase hex digits and a non-empty rest; `None` for any other path.
    #[must_use]
    pub fn parse(path: &'a str) -> Option<Self> {
        let after = path.strip_prefix(WELL_KNOWN_PATH)?;
        let segment = after.get(..SEGMENT_LENGTH)?;
        let relative = after[SEGMENT_LENGTH..].strip_prefix('/')?;
        if relative.is_empty() {
            return None;
        }
        let hex = segment.strip_prefix(ADDRESS_PREFIX)?;
        // Checked, not decoded: a server compares the digits with those of its artifact, and
        // decodes them only if asked.
        if !Digest::is_hex(hex) {
            return None;
        }
        Some(Self { hex, relative })
    }

    /// The digest the path names.
    #[must_use]
    pub fn digest(&self) -> Digest {
        Digest::from_checked_hex(self.hex)
    }

    /// The 64 lowercase hex digits of the digest, as the path writes them.
    #[must_use]
    pub fn hex(&self) -> &'a str {
        self.hex
    }

    /// What follows the digest's segment: the canonical path inside
    /// `/.well-known/agent-skills/`, such as `pdf/SKILL.md`.
    #[must_use]
    pub fn relative(&self) -> &'a str {
        self.relative
    }

    /// The canonical path it addresses, such as `/.well-known/agent-skills/pdf/SKILL.md`.
    #[must_use]
    pub fn canonical_path(&self) -> String {
        format!("{WELL_KNOWN_PATH}{}", self.relative)
    }

    /// The media type of what a catalog serves at this path, when it is one a catalog can
    /// address: a skill's `SKILL.md` (`<name>/SKILL.md`) or archive (`<name>.tar.gz`,
    /// `<name>.zip`) with a valid name; `None` for any other path. A server that holds no
    /// catalog entry for the path (a replica reading it from a shared store, a kept file of
    /// an earlier export) serves it with this type.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Digest, media, paths::{AddressedPath, addressed_path}};
    ///
    /// let path = |canonical| addressed_path(canonical, Digest::of(b"x")).unwrap();
    /// let of = |path: &str| AddressedPath::parse(path).unwrap().media_type();
    /// assert_eq!(of(&path("/.well-known/agent-skills/pdf/SKILL.md")), Some(media::MARKDOWN));
    /// assert_eq!(of(&path("/.well-known/agent-skills/pdf.tar.gz")), Some(media::GZIP));
    /// assert_eq!(of(&path("/.well-known/agent-skills/pdf.zip")), Some(media::ZIP));
    /// assert_eq!(of(&path("/.well-known/agent-skills/pdf/forms.md")), None);
    /// assert_eq!(of(&path("/.well-known/agent-skills/PDF/SKILL.md")), None);
    /// ```
    #[must_use]
    pub fn media_type(&self) -> Option<&'static str> {
        let rest = self.relative;
        let (name, media_type) = if let Some(name) = rest.strip_suffix(TAR_GZ_SUFFIX) {
            (name, media::GZIP)
        } else if let Some(name) = rest.strip_suffix(ZIP_SUFFIX) {
            (name, media::ZIP)
        } else {
            (
                rest.strip_suffix(SKILL_MD)?.strip_suffix('/')?,
                media::MARKDOWN,
            )
        };
        (!name.contains('/') && crate::spec::validate_name(name).is_empty()).then_some(media_type)
    }
}

/// Whether `path` is the addressed path of a `SKILL.md` or an archive, one a catalog can
/// serve ([`AddressedPath::media_type`] is known): what a replica may look for in a shared
/// store, and what an export keeps of earlier generations.
///
/// # Example
///
/// ```
/// use skillpub_core::{Digest, paths::{addressed_path, is_addressed_artifact}};
///
/// let path = addressed_path("/.well-known/agent-skills/pdf/SKILL.md", Digest::of(b"x")).unwrap();
/// assert!(is_addressed_artifact(&path));
/// assert!(!is_addressed_artifact("/.well-known/agent-skills/pdf/SKILL.md"));
/// ```
#[must_use]
pub fn is_addressed_artifact(path: &str) -> bool {
    AddressedPath::parse(path).is_some_and(|addressed| addressed.media_type().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex() -> String {
        Digest::of(b"x").hex()
    }

    macro_rules! parses {
        ($name:ident, $path:expr, $relative:expr) => {
            #[test]
            fn $name() {
                let path: String = $path;
                let parsed = AddressedPath::parse(&path).expect("an addressed path");
                assert_eq!(parsed.digest(), Digest::of(b"x"));
                assert_eq!(parsed.relative(), $relative);
            }
        };
    }

    macro_rules! refuses {
        ($name:ident, $path:expr) => {
            #[test]
            fn $name() {
                let path: String = $path;
                assert_eq!(AddressedPath::parse(&path), None, "{path}");
            }
        };
    }

    parses!(
        a_skill_md,
        format!("/.well-known/agent-skills/sha256-{}/pdf/SKILL.md", hex()),
        "pdf/SKILL.md"
    );
    parses!(
        an_archive,
        format!("/.well-known/agent-skills/sha256-{}/pdf.tar.gz", hex()),
        "pdf.tar.gz"
    );
    parses!(
        a_zip,
        format!("/.well-known/agent-skills/sha256-{}/pdf.zip", hex()),
        "pdf.zip"
    );

    refuses!(
        canonical,
        "/.well-known/agent-skills/pdf/SKILL.md".to_owned()
    );
    refuses!(
        another_folder,
        format!("/.well-known/skills/sha256-{}/pdf/SKILL.md", hex())
    );
    refuses!(
        nothing_after_the_segment,
        format!("/.well-known/agent-skills/sha256-{}/", hex())
    );
    refuses!(
        no_slash_after_the_segment,
        format!("/.well-known/agent-skills/sha256-{}", hex())
    );
    refuses!(
        uppercase_hex,
        format!(
            "/.well-known/agent-skills/sha256-{}/pdf/SKILL.md",
            hex().to_uppercase()
        )
    );
    refuses!(
        short_hex,
        format!(
            "/.well-known/agent-skills/sha256-{}/pdf/SKILL.md",
            &hex()[1..]
        )
    );
    refuses!(
        long_hex,
        format!("/.well-known/agent-skills/sha256-{}0/pdf/SKILL.md", hex())
    );
    refuses!(
        colon_form,
        format!("/.well-known/agent-skills/sha256:{}/pdf/SKILL.md", hex())
    );
    refuses!(
        other_algorithm,
        format!("/.well-known/agent-skills/sha512-{}/pdf/SKILL.md", hex())
    );
    refuses!(
        multibyte_in_the_segment,
        format!(
            "/.well-known/agent-skills/sha256-{}é/pdf/SKILL.md",
            &hex()[2..]
        )
    );

    #[test]
    fn formatting_and_parsing_round_trip() {
        let digest = Digest::of(b"x");
        for canonical in [
            "/.well-known/agent-skills/pdf/SKILL.md",
            "/.well-known/agent-skills/pdf.tar.gz",
            "/.well-known/agent-skills/a-b/references/x.md",
        ] {
            let addressed = addressed_path(canonical, digest).unwrap();
            let parsed = AddressedPath::parse(&addressed).unwrap();
            assert_eq!(parsed.digest(), digest);
            assert_eq!(parsed.canonical_path(), canonical);
        }
    }

    #[test]
    fn only_canonical_paths_under_the_folder_are_addressed() {
        let digest = Digest::of(b"x");
        assert_eq!(addressed_path("/.well-known/api-catalog", digest), None);
        assert_eq!(addressed_path("/.well-known/agent-skills/", digest), None);
        let once = addressed_path("/.well-known/agent-skills/pdf.zip", digest).unwrap();
        assert_eq!(addressed_path(&once, digest), None, "never twice");
    }
}
