//! What the store holds, and where: the addressed artifacts at their paths (the tree a static
//! export serves), and one record per generation that names them, for pruning by age.

use serde::{Deserialize, Serialize};
use skillpub_core::Catalog;
use skillpub_core::paths::WELL_KNOWN_PATH;

/// The folder of the generation records, beside the tree.
pub(crate) const GENERATIONS: &str = "/.skillpub/generations/";

/// A generation: an index, and the addressed files it names (below the tree's folder, as
/// the directory export's manifest writes them). Its record is written each time a replica
/// (or an export) publishes that index, so the record's modification time is the last time
/// it was published.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Generation {
    /// The digest of the index, `sha256:<hex>`.
    pub(crate) index: String,
    /// The addressed files, such as `sha256-<hex>/pdf/SKILL.md`.
    pub(crate) files: Vec<String>,
    /// When it was last published, in milliseconds since the Unix epoch by the clock of
    /// the replica that published it (the listing's times count whole seconds on S3).
    #[serde(default)]
    pub(crate) published: i64,
}

impl Generation {
    /// The generation of `catalog`.
    pub(crate) fn of(catalog: &Catalog) -> Self {
        let files = catalog
            .artifacts()
            .filter_map(|artifact| artifact.addressed_path())
            .map(|path| path.trim_start_matches(WELL_KNOWN_PATH).to_owned())
            .collect();
        Self {
            index: catalog.index().digest().to_string(),
            files,
            published: crate::prune::unix_now(),
        }
    }

    /// The path of its record: one per index.
    pub(crate) fn record_path(&self) -> String {
        let hex = self.index.trim_start_matches("sha256:");
        format!("{GENERATIONS}sha256-{hex}.json")
    }
}
