//! The catalog: every skill validated, hashed, archived and indexed once, then shared
//! read-only.
//!
//! A [`CatalogBuilder`] takes the skills and the options and runs every rule; a [`Catalog`]
//! that builds holds each skill as a [`PublishedSkill`], its files as [`PublishedFile`]s and
//! every path it serves as an [`Artifact`]: the exact bytes, their media type and their digest.
//! Servers answer from these, with no work per request.
//!
//! # Example
//!
//! ```
//! use skillpub_core::catalog::{Artifact, PublishedSkill};
//! use skillpub_core::{Catalog, Skill, SkillFile};
//!
//! let skill = Skill::new(None, "---\nname: pdf\ndescription: Reads PDFs.\n---\n")
//!     .with_files(vec![SkillFile::new("references/forms.md", "# Forms\n", false)]);
//! let catalog = Catalog::new([skill])?;
//! let pdf: &PublishedSkill = catalog.get("pdf").unwrap();
//! let forms: &Artifact = pdf.files()[0].artifact();
//! assert_eq!(forms.path(), "/.well-known/agent-skills/pdf/references/forms.md");
//! assert_eq!(forms.bytes().as_ref(), b"# Forms\n");
//! # Ok::<(), skillpub_core::Errors>(())
//! ```

mod builder;
mod model;
mod publish;

pub use builder::CatalogBuilder;
pub use model::{Artifact, Catalog, PublishedFile, PublishedSkill};
