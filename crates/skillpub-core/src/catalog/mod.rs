//! The catalog: every skill validated, hashed, archived and indexed once, then shared read-only.

mod builder;
mod model;
mod publish;

pub use builder::CatalogBuilder;
pub use model::{Artifact, Catalog, PublishedFile, PublishedSkill};
