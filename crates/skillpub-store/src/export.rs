//! A catalog exported to object storage as the static tree the router serves: every artifact
//! first, the index last, so that a reader never gets an index whose files are not there.

use std::collections::BTreeMap;

use futures_util::StreamExt;
use object_store::{ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};
use skillpub_core::Catalog;
use skillpub_core::paths::{API_CATALOG_PATH, INDEX_PATH, LEGACY_INDEX_PATH};

use crate::error::StoreError;
use crate::layout::Generation;
use crate::location::Store;
use crate::prune::{Pruned, Retention};

/// How many uploads an export keeps in flight: object storage answers each in a round trip,
/// so one at a time would spend an export waiting.
const UPLOADS_IN_FLIGHT: usize = 16;

/// The record of the last export: every path it wrote whose bytes change (not the addressed
/// ones, whose key names their digest), with the digest written there.
const MANIFEST: &str = "/.skillpub/export.json";

#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    /// Path to digest (`sha256:<hex>`).
    objects: BTreeMap<String, String>,
}

/// What [`Store::export`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Exported {
    /// The paths the catalog serves.
    pub files: usize,
    /// Of those, the ones uploaded now (the others were there with the same bytes).
    pub uploaded: usize,
    /// The bytes uploaded.
    pub bytes: u64,
    /// The paths of the previous export that this one does not serve (a skill removed),
    /// removed once the new index was in place.
    pub removed: usize,
    /// What the retention removed of earlier generations.
    pub pruned: Pruned,
}

/// Whether `path` is one a client reads first: an index, or the API catalog.
fn is_index(path: &str) -> bool {
    [INDEX_PATH, LEGACY_INDEX_PATH, API_CATALOG_PATH].contains(&path)
}

impl Store {
    /// Writes `catalog` as the static tree the router serves (what the directory export
    /// writes, below the prefix): each object with the `Content-Type`, `Cache-Control`
    /// and `Content-Encoding: identity` of the HTTP policy. The addressed artifacts go first
    /// (create-only, never replaced), then the canonical paths and supporting files, then the
    /// generation's record, then the index, the legacy index and the API catalog, then the
    /// manifest; the canonical paths of skills the catalog no longer has are removed last,
    /// and earlier generations are pruned as `retention` says, as the directory export
    /// does.
    ///
    /// A second run uploads nothing that is there: one listing and the manifest say what
    /// is. A run that stops part way leaves the previous index serving every file it names,
    /// and the next run resumes.
    ///
    /// # Errors
    ///
    /// A missing bucket, refused credentials, or a failed upload, as [`StoreError::Partial`]
    /// once something was uploaded.
    pub async fn export(
        &self,
        catalog: &Catalog,
        retention: Retention,
    ) -> Result<Exported, StoreError> {
        let previous = self.manifest().await?;
        let present = self.listed("/.well-known/").await?;
        let mut manifest = Manifest::default();
        let mut later = Vec::new();
        let mut todo = Vec::new();
        let mut exported = Exported::default();
        for (path, artifact) in catalog.served() {
            exported.files += 1;
            let digest = artifact.digest().to_string();
            let addressed = artifact.addressed_path() == Some(path);
            if !addressed {
                manifest.objects.insert(path.to_owned(), digest.clone());
            }
            let there = present.contains(path)
                && (addressed || previous.objects.get(path) == Some(&digest));
            if there {
                continue;
            }
            if is_index(path) {
                later.push((path, artifact));
            } else {
                // Addressed first: what an old or a new index names is there before any
                // canonical path changes.
                todo.push((!addressed, path, artifact));
            }
        }
        todo.sort_by_key(|(canonical, path, _)| (*canonical, *path));
        let total = todo.len() + later.len();
        let partial = |uploaded: usize, error: StoreError| match error {
            error @ (StoreError::NoBucket { .. } | StoreError::Credentials { .. })
                if uploaded == 0 =>
            {
                error
            }
            error => StoreError::Partial {
                location: self.location.to_string(),
                uploaded,
                total,
                source: Box::new(error),
            },
        };
        // The addressed files, then the canonical ones, each phase UPLOADS_IN_FLIGHT at a
        // time: the canonical ones start once every addressed one is there.
        for phase in [false, true] {
            let uploads = todo.iter().filter(|(canonical, _, _)| *canonical == phase);
            let mut running = futures_util::stream::iter(uploads)
                .map(|(canonical, path, artifact)| async move {
                    let put = if *canonical {
                        self.put(path, artifact).await
                    } else {
                        self.put_new(path, artifact).await.map(drop)
                    };
                    put.map(|()| artifact.bytes().len() as u64)
                })
                .buffer_unordered(UPLOADS_IN_FLIGHT);
            while let Some(put) = running.next().await {
                let bytes = put.map_err(|error| partial(exported.uploaded, error))?;
                exported.uploaded += 1;
                exported.bytes += bytes;
            }
        }
        self.record(&Generation::of(catalog))
            .await
            .map_err(|error| partial(exported.uploaded, error))?;
        for (path, artifact) in later {
            self.put(path, artifact)
                .await
                .map_err(|error| partial(exported.uploaded, error))?;
            exported.uploaded += 1;
            exported.bytes += artifact.bytes().len() as u64;
        }
        self.write_manifest(&manifest).await?;
        for path in previous.objects.keys() {
            if !manifest.objects.contains_key(path) {
                self.remove(path).await?;
                exported.removed += 1;
            }
        }
        exported.pruned = self.prune(retention).await?;
        Ok(exported)
    }

    /// The last export's manifest: none if there was none (everything is then uploaded
    /// again but the addressed artifacts there).
    async fn manifest(&self) -> Result<Manifest, StoreError> {
        let key = self.key(MANIFEST);
        let bytes = match self.objects.get(&key).await {
            Ok(result) => result
                .bytes()
                .await
                .map_err(|error| self.error(&key, &error))?,
            Err(object_store::Error::NotFound { .. }) => return Ok(Manifest::default()),
            Err(error) => return Err(self.error(&key, &error)),
        };
        Ok(serde_json::from_slice(&bytes).unwrap_or_default())
    }

    async fn write_manifest(&self, manifest: &Manifest) -> Result<(), StoreError> {
        let key = self.key(MANIFEST);
        let json = serde_json::to_vec(manifest).unwrap_or_default();
        self.objects
            .put(&key, PutPayload::from(json))
            .await
            .map(drop)
            .map_err(|error| self.error(&key, &error))
    }
}

/// The settings a bucket and the CDN in front of it need so that the export is served as the
/// router serves it, for `bucket_prefix` (`s3://bucket/prefix`): printed after an export.
#[must_use]
pub fn cdn_settings(location: &str) -> String {
    let common: Vec<String> = skillpub_axum::COMMON_HEADERS
        .iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect();
    format!(
        "The bucket and the CDN in front of {location} need:\n\
         - the CDN's origin is the prefix: /.well-known/agent-skills/... at the site maps to <prefix>/.well-known/agent-skills/...;\n\
         - the CDN honours the origin's Cache-Control (each object carries the HTTP policy's: immutable at sha256-<hex>/ paths, `{default}` on the index and the canonical paths), and does not compress (`no-transform`);\n\
         - errors are not cached: an error-caching TTL of 0 for 403 and 404 (CloudFront's default is 10 s), since a file another deploy is uploading is missing only for a moment;\n\
         - the bucket's listing is private (a missing key is then 403 on S3): map 403 to 404 at the CDN if it can;\n\
         - a response-headers policy that adds, on every answer: {common};\n\
         - object storage cannot set Content-Location or Link on an object: the index names the addressed URLs, so no client needs them.",
        default = skillpub_axum::DEFAULT_CACHE_CONTROL,
        common = common.join(", "),
    )
}
