//! Where a catalog is published: the well-known paths of the discovery drafts and RFC 9727,
//! the names and suffixes of the files under them, and the base path a router is nested under.
//!
//! Every artifact an index entry can name (each `SKILL.md` and archive) is served at two paths:
//! its canonical one, which follows the draft's convention and serves the current bytes, and
//! its [addressed](addressed_path) one, which names its digest and never changes (see
//! [`AddressedPath`] for why the digest goes there).
//!
//! Every path here is the path the router serves, at the site root; a
//! [base path](crate::CatalogBuilder::base_path) is put in front of the URLs written for
//! clients, never into these paths, since axum's `nest` strips it before the router sees a
//! request.
//!
//! # Example
//!
//! ```
//! use skillpub_core::paths::{self, INDEX_PATH, WELL_KNOWN_PATH};
//!
//! assert_eq!(INDEX_PATH, format!("{WELL_KNOWN_PATH}index.json"));
//! assert_eq!(paths::skill_md_path("pdf"), "/.well-known/agent-skills/pdf/SKILL.md");
//! assert!(paths::validate_base_path("/tenant").is_ok());
//! let digest = skillpub_core::Digest::of(b"");
//! assert_eq!(
//!     paths::addressed_path("/.well-known/agent-skills/pdf.zip", digest).unwrap(),
//!     format!("/.well-known/agent-skills/sha256-{}/pdf.zip", digest.hex()),
//! );
//! ```

mod addressed;
pub(crate) mod base_path;

pub use addressed::{
    ADDRESS_PREFIX, AddressedPath, address_segment, addressed_path, is_addressed_artifact,
};
pub use base_path::{BasePath, BasePathProblem, InvalidBasePath, validate_base_path};

/// The folder every artifact is published under.
pub const WELL_KNOWN_PATH: &str = "/.well-known/agent-skills/";

/// Where the index is published.
pub const INDEX_PATH: &str = "/.well-known/agent-skills/index.json";

/// The file every skill has; it is given apart from the supporting files.
pub const SKILL_MD: &str = "SKILL.md";

/// The file name suffix of the tar archive of a skill.
pub const TAR_GZ_SUFFIX: &str = ".tar.gz";

/// The file name suffix of the zip archive of a skill.
pub const ZIP_SUFFIX: &str = ".zip";

/// The folder of the legacy 0.1.0 layout.
pub const LEGACY_PATH: &str = "/.well-known/skills/";

/// Where the legacy 0.1.0 index is published.
pub const LEGACY_INDEX_PATH: &str = "/.well-known/skills/index.json";

/// Where the RFC 9727 API catalog is published.
pub const API_CATALOG_PATH: &str = "/.well-known/api-catalog";

/// The path where a skill's `SKILL.md` is published.
///
/// # Example
///
/// ```
/// assert_eq!(
///     skillpub_core::paths::skill_md_path("pdf"),
///     "/.well-known/agent-skills/pdf/SKILL.md",
/// );
/// ```
#[must_use]
pub fn skill_md_path(name: &str) -> String {
    format!("{WELL_KNOWN_PATH}{name}/{SKILL_MD}")
}
