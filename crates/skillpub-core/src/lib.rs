//! Agent Skills as data: `SKILL.md` frontmatter, validation, digests and the discovery index.
//!
//! This crate knows no HTTP framework and does no I/O, except the folder walk behind the
//! feature `fs` (`Catalog::from_dir`, the module `folder`), which reads a skills folder from
//! disk.
//! It turns the bytes of each skill's `SKILL.md` into a [`Catalog`]: every frontmatter parsed
//! and checked against the [Agent Skills specification] and the [discovery draft 0.2.0], every
//! artifact hashed from the exact bytes that will be served, and the `index.json` rendered
//! once. Web crates such as `skillpub-axum` then answer requests from the catalog without
//! further work.
//!
//! # Example
//!
//! ```
//! use skillpub_core::{Catalog, Skill};
//!
//! static GREETING: Skill = Skill::from_static_in(
//!     "skills/greeting",
//!     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
//! );
//!
//! let catalog = Catalog::new([&GREETING])?;
//! let index = std::str::from_utf8(catalog.index().bytes()).unwrap();
//! assert!(index.contains(r#""$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json""#));
//! assert!(index.contains(&catalog.get("greeting").unwrap().skill_md().digest().to_string()));
//! # Ok::<(), skillpub_core::Errors>(())
//! ```
//!
//! Embedding a skill folder's `SKILL.md` from the calling crate is one line with [`skill!`]
//! (the path is relative to the crate root); a whole folder of skills with supporting files
//! is embedded by `skillpub-build` from `build.rs` and pulled in with [`include_skills!`]:
//!
//! ```
//! static GREETING: skillpub_core::Skill = skillpub_core::skill!("tests/fixtures/greeting");
//! # assert!(skillpub_core::Catalog::new([&GREETING]).is_ok());
//! ```
//!
//! # Layout
//!
//! The root holds what almost every user names: the [`Catalog`] and its [`CatalogBuilder`],
//! the [`Skill`]s and [`SkillFile`]s it is built from, one checked [`SkillMd`] (read with a
//! [`SkillMdParser`]) and its [`Frontmatter`], the [`Error`]s of a build (each of an
//! [`ErrorKind`], all of them in [`Errors`]), [`Digest`], [`LiveCatalog`] and the macros
//! [`skill!`] and [`include_skills!`]. The rest is in a module per concern:
//!
//! | Module | What |
//! |---|---|
//! | [`catalog`] | the published model: every skill, file and served path of a catalog |
//! | [`spec`] | the rules as values and checks: limits, allowed fields, names, file paths; the severity of a finding |
//! | [`paths`] | the well-known paths, file names and suffixes, and the base path rule |
//! | [`index`] | the discovery index: its `$schema`, entry types, URL styles, archive formats |
//! | [`media`] | the content types of served files |
//! | [`digest`] | the `sha256:` form of digests and its parse errors |
//! | [`archive`] | the deterministic gzip compressor, for HTTP variants |
//! | [`origin`] | public origins for absolute URLs |
//! | [`live`] | what servers register on a live catalog to prepare their answers, and what it retains of replaced catalogs |
//! | [`security`] | credentials in a skill's files (`security.secret`), and how a skill suppresses a finding of the review |
//! | [`folder`](folder/index.html) | reading a skills folder from disk (feature `fs`) |
//!
//! # Rules
//!
#![doc = include_str!("docs/validation.md")]
//!
//! # One `SKILL.md`
//!
//! [`SkillMd::parse`] reads and checks a single `SKILL.md` with the rules above, as a client
//! does with a file it fetched. The catalog runs every skill's `SKILL.md` through the same
//! pipeline (its options are a [`SkillMdParser`]), then the rules of the supporting files
//! (paths, see [`spec::validate_file_path`], and limits), which are written once and hold for
//! every skill, from memory, from `build.rs` or from a folder, then the rules across skills.
//! [`CatalogBuilder::check`] runs every rule and builds nothing.
//!
//! # Problem codes
//!
#![doc = include_str!("docs/codes.md")]
//!
//! # Addressed URLs
//!
//! Each `SKILL.md` and archive is published at two paths: its canonical one
//! (`/.well-known/agent-skills/pdf/SKILL.md`, the draft's convention, whose bytes change with
//! the skill) and its addressed one, with the segment `sha256-<hex>/` of its digest after the
//! folder (`/.well-known/agent-skills/sha256-<hex>/pdf/SKILL.md`), whose bytes never change.
//! The index names the addressed one by default ([`CatalogBuilder::addressed_urls`]), so that no
//! cache, however long it keeps an answer, can pair an index with other bytes than the digests
//! it lists. The rule is [`paths::addressed_path`] and [`paths::AddressedPath`];
//! [`Artifact::addressed_path`](catalog::Artifact::addressed_path) gives each artifact's,
//! [`Catalog::served`] every path to answer and [`Catalog::addressed`] the artifact at one.
//!
//! ```
//! let catalog = skillpub_core::Catalog::new([skillpub_core::Skill::from_static(
//!     "---\nname: pdf\ndescription: Reads PDFs.\n---\n",
//! )])?;
//! let skill_md = catalog.get("pdf").unwrap().skill_md();
//! let addressed = format!("/.well-known/agent-skills/sha256-{}/pdf/SKILL.md", skill_md.digest().hex());
//! assert_eq!(catalog.get("pdf").unwrap().url(), addressed);
//! assert_eq!(catalog.addressed(&addressed), Some(skill_md));
//! # Ok::<(), skillpub_core::Errors>(())
//! ```
//!
//! # Nesting under a prefix
//!
//! A router mounted under a path prefix (axum's `nest("/tenant", ..)`) serves the same paths,
//! since `nest` strips the prefix, but clients must be told the prefixed URLs.
//! [`CatalogBuilder::base_path`] puts the prefix into every URL the catalog writes: the index
//! `url`s (path-absolute and absolute ones; relative ones resolve against the index and need
//! none), the API catalog, and [`Catalog::index_url`] for a `Link` header.
//!
//! ```
//! let catalog = skillpub_core::Catalog::builder()
//!     .skill(skillpub_core::Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n"))
//!     .base_path("/tenant")
//!     .build()?;
//! let pdf = catalog.get("pdf").unwrap();
//! assert_eq!(pdf.url(), format!("/tenant{}", pdf.skill_md().addressed_path().unwrap()));
//! assert_eq!(pdf.skill_md_path(), "/.well-known/agent-skills/pdf/SKILL.md");
//! # Ok::<(), skillpub_core::Errors>(())
//! ```
//!
//! # Live catalogs
//!
//! A catalog is immutable; a service whose skills change (rows of a database, an admin's
//! upload, one catalog per customer) holds a [`LiveCatalog`] and publishes each new catalog
//! with [`LiveCatalog::replace`]. The servers built from the handle (skillpub-axum's live and
//! per-host routers, skillpub-mcp's live service) prepare their answers for a catalog before
//! it is swapped in, and answer every request from one [`Snapshot`](live::Snapshot); a
//! replaced snapshot is freed when the last request that loaded it ends. What a replaced
//! catalog published at addressed paths and the new one does not is
//! [retained](live::Retained) for a grace period within a count of catalogs
//! ([`Retention`](live::Retention), one hour and 16 by default, set with
//! [`LiveCatalog::with_retention`]), so that an index fetched just before a replacement still
//! leads to its own bytes; views that serve it register with
//! [`LiveCatalog::view_with_retained`]. The example on
//! [`LiveCatalog`] builds a catalog from bytes held at run time with [`Skill::new`] and
//! [`Skill::with_files`].
//!
//! # Reading a folder
//!
#![doc = include_str!("docs/folders.md")]
//!
//! # Archives
//!
//! A skill with supporting files is listed in the index as `type: "archive"` with its
//! `.tar.gz` (or its `.zip`, see [`CatalogBuilder::archive_format`]); both are built once, with
//! the files at the archive root in sorted order, fixed timestamps, owner 0, mode 0644 (0755
//! for executable files and everything under `scripts/`) and a pinned compressor, so the same
//! files give the same bytes and digests on every build and machine. Its `SKILL.md` and each
//! file are also served on their own.
//!
//! # Crate features
//!
//! | Name | Description | Default |
//! |---|---|---|
//! | `fs` | Reading skill folders from disk: `Catalog::from_dir`, the module `folder`, `Catalog::skipped`, and the problems only a folder can have (`ErrorKind::Io` and the other kinds marked `fs`); on Unix it adds the crate rustix, to open every file through the descriptor of its folder. Without it the crate has no file-system code at all, as ripgrep's `globset` has none: parsing, validation, the catalog, the index and the archives work on bytes in memory. | yes |
//!
//! [Agent Skills specification]: https://agentskills.io/specification
//! [discovery draft 0.2.0]: https://github.com/cloudflare/agent-skills-discovery-rfc

#![cfg_attr(docsrs, feature(doc_cfg))]

mod api_catalog;
pub mod archive;
pub mod catalog;
pub mod digest;
mod error;
mod fence;
mod file;
#[cfg(feature = "fs")]
#[cfg_attr(docsrs, doc(cfg(feature = "fs")))]
pub mod folder;
mod frontmatter;
pub mod index;
#[cfg(feature = "fs")]
mod io_error;
mod legacy;
pub mod live;
pub mod media;
pub mod origin;
mod parallel;
pub mod paths;
pub mod security;
mod skill;
mod skill_files;
mod skill_md;
#[cfg(feature = "fs")]
mod skipped;
pub mod spec;
mod validate;
mod yaml;

#[cfg(test)]
mod tests;

#[doc(inline)]
pub use catalog::{Catalog, CatalogBuilder};
#[doc(inline)]
pub use digest::Digest;
pub use error::{Error, ErrorKind, Errors};
pub use file::SkillFile;
pub use frontmatter::Frontmatter;
#[doc(inline)]
pub use live::LiveCatalog;
pub use skill::Skill;
pub use skill_md::{SkillMd, SkillMdParser};
