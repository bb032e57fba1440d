//! The discovery index (`/.well-known/agent-skills/index.json`, draft 0.2.0): its `$schema`,
//! how its entries write their `url` and which archive they list. A
//! [`CatalogBuilder`](crate::CatalogBuilder) takes the options and renders the index once.
//!
//! # Example
//!
//! ```
//! use skillpub_core::index::{ArchiveFormat, SCHEMA_URI, UrlStyle};
//! use skillpub_core::{Catalog, Skill, SkillFile};
//!
//! let skill = Skill::new(None, "---\nname: pdf\ndescription: Reads PDFs.\n---\n")
//!     .with_files(vec![SkillFile::new("references/forms.md", "# Forms\n", false)]);
//! let catalog = Catalog::builder()
//!     .skill(skill)
//!     .url_style(UrlStyle::Relative)
//!     .archive_format(ArchiveFormat::Zip)
//!     .build()?;
//! let index: serde_json::Value = serde_json::from_slice(catalog.index().bytes()).unwrap();
//! assert_eq!(index["$schema"], SCHEMA_URI);
//! let zip = catalog.get("pdf").unwrap().archive(ArchiveFormat::Zip).unwrap();
//! assert_eq!(index["skills"][0]["url"], format!("sha256-{}/pdf.zip", zip.digest().hex()));
//! # Ok::<(), skillpub_core::Errors>(())
//! ```

use std::fmt;

use serde::Serialize;

use crate::origin::Origin;
use crate::paths::{TAR_GZ_SUFFIX, WELL_KNOWN_PATH, ZIP_SUFFIX};

/// The `$schema` of a draft 0.2.0 index; clients match it byte for byte.
pub const SCHEMA_URI: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// How a skill is distributed: the `type` of its index entry.
///
/// A catalog lists a skill with supporting files as an archive and any other as its
/// `SKILL.md` ([`PublishedSkill::kind`](crate::catalog::PublishedSkill::kind)); a client reads
/// the `type` of a fetched entry back with [`from_type`](Self::from_type).
///
/// # Example
///
/// ```
/// use skillpub_core::index::ArtifactKind;
///
/// assert_eq!(ArtifactKind::SkillMd.as_str(), "skill-md");
/// assert_eq!(ArtifactKind::Archive.as_str(), "archive");
/// assert_eq!(ArtifactKind::from_type("archive"), Some(ArtifactKind::Archive));
/// assert_eq!(ArtifactKind::from_type("tarball"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArtifactKind {
    /// `skill-md`: a single `SKILL.md`.
    SkillMd,
    /// `archive`: a `.tar.gz` or `.zip` of the skill folder.
    Archive,
}

impl ArtifactKind {
    /// The entry's `type` for this kind: `skill-md` or `archive`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SkillMd => "skill-md",
            Self::Archive => "archive",
        }
    }

    /// The kind whose `type` is exactly `kind`, or `None` for a type the draft does not
    /// define (which clients skip).
    #[must_use]
    pub fn from_type(kind: &str) -> Option<Self> {
        [Self::SkillMd, Self::Archive]
            .into_iter()
            .find(|known| known.as_str() == kind)
    }
}

/// The `type`, as [`as_str`](Self::as_str) gives it.
impl fmt::Display for ArtifactKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the index writes each entry's `url`.
///
/// The `url` names the artifact's addressed path (`sha256-<hex>/pdf/SKILL.md` inside the
/// folder, see [`paths::addressed_path`](crate::paths::addressed_path)) unless
/// [`CatalogBuilder::addressed_urls`](crate::CatalogBuilder::addressed_urls) is off; the
/// methods here write whatever path inside the folder they are given.
///
/// Clients resolve it against the index URL (RFC 3986), so all three reach the same file when
/// the router is mounted at the site root. When it is nested under a prefix, tell the catalog
/// with [`CatalogBuilder::base_path`](crate::CatalogBuilder::base_path): path-absolute and
/// absolute URLs then carry the prefix (`/tenant/.well-known/agent-skills/...`), and relative
/// ones need none, since they resolve against the index, which is under the prefix too.
/// [`UrlStyle::Absolute`] is for an index that must name its origin.
///
/// # Example
///
/// ```
/// use skillpub_core::index::UrlStyle;
///
/// let absolute = UrlStyle::Absolute("https://skills.example.com".parse()?);
/// assert_eq!(absolute.skill_md_url("pdf"), "https://skills.example.com/.well-known/agent-skills/pdf/SKILL.md");
/// assert_eq!(UrlStyle::Relative.skill_md_url("pdf"), "pdf/SKILL.md");
/// assert_eq!(UrlStyle::default().skill_md_url("pdf"), "/.well-known/agent-skills/pdf/SKILL.md");
/// # Ok::<(), skillpub_core::origin::OriginError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlStyle {
    /// `/.well-known/agent-skills/sha256-<hex>/{name}/SKILL.md`, the form of the draft's
    /// examples (the default).
    #[default]
    PathAbsolute,
    /// `sha256-<hex>/{name}/SKILL.md`, relative to the index.
    Relative,
    /// `{origin}/.well-known/agent-skills/sha256-<hex>/{name}/SKILL.md`.
    Absolute(Origin),
}

impl UrlStyle {
    /// The `url` of a skill's `SKILL.md` at its canonical path in this style.
    #[must_use]
    pub fn skill_md_url(&self, name: &str) -> String {
        self.url(&format!("{name}/SKILL.md"))
    }

    /// The `url` of an artifact at `relative` inside `/.well-known/agent-skills/`.
    #[must_use]
    pub fn url(&self, relative: &str) -> String {
        self.url_under("", relative)
    }

    /// The `url` of an artifact at `relative` inside `/.well-known/agent-skills/`, for a
    /// router nested under `base_path` (checked, or empty). A relative `url` needs no prefix:
    /// it resolves against the index, which is under the prefix already.
    pub(crate) fn url_under(&self, base_path: &str, relative: &str) -> String {
        match self {
            Self::PathAbsolute => format!("{base_path}{WELL_KNOWN_PATH}{relative}"),
            Self::Relative => relative.to_owned(),
            Self::Absolute(origin) => format!("{origin}{base_path}{WELL_KNOWN_PATH}{relative}"),
        }
    }

    /// Where clients reach a path the router serves, such as the index, from any page of the
    /// site: path-absolute with the base path, after the origin for [`UrlStyle::Absolute`].
    /// A relative reference would resolve differently from every page, so
    /// [`UrlStyle::Relative`] gives the path-absolute form here.
    pub(crate) fn link_to(&self, base_path: &str, path: &str) -> String {
        match self {
            Self::PathAbsolute | Self::Relative => format!("{base_path}{path}"),
            Self::Absolute(origin) => format!("{origin}{base_path}{path}"),
        }
    }
}

/// Which archive the index lists for a skill with supporting files. Both are always served.
///
/// # Example
///
/// ```
/// use skillpub_core::index::ArchiveFormat;
///
/// assert_eq!(ArchiveFormat::default().suffix(), ".tar.gz");
/// assert_eq!(ArchiveFormat::Zip.suffix(), ".zip");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ArchiveFormat {
    /// `{name}.tar.gz`, `application/gzip` (the default).
    #[default]
    TarGz,
    /// `{name}.zip`, `application/zip`.
    Zip,
}

impl ArchiveFormat {
    /// The file name suffix.
    #[must_use]
    pub fn suffix(self) -> &'static str {
        match self {
            Self::TarGz => TAR_GZ_SUFFIX,
            Self::Zip => ZIP_SUFFIX,
        }
    }
}

/// One entry of the index, in the draft's field order.
#[derive(Serialize)]
pub(crate) struct Entry<'a> {
    pub(crate) name: &'a str,
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) description: &'a str,
    pub(crate) url: &'a str,
    pub(crate) digest: String,
}

#[derive(Serialize)]
struct Index<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    skills: &'a [Entry<'a>],
}

/// Renders the index as indented JSON with a final newline.
pub(crate) fn render(entries: &[Entry<'_>]) -> Vec<u8> {
    let index = Index {
        schema: SCHEMA_URI,
        skills: entries,
    };
    // Room for every entry and its indentation, so that the buffer is not copied as it grows.
    let capacity: usize = entries
        .iter()
        .map(|e| e.name.len() + e.description.len() + e.url.len() + e.digest.len() + 128)
        .sum();
    let mut json = Vec::with_capacity(capacity + 128);
    serde_json::to_writer_pretty(&mut json, &index)
        .expect("serializing strings into memory cannot fail");
    json.push(b'\n');
    json.shrink_to_fit();
    json
}
