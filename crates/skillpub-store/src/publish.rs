//! Putting a catalog's addressed artifacts in the store before a replica serves its index.

use std::collections::HashSet;

use futures_util::TryStreamExt;
use object_store::{Attribute, Attributes, PutMode, PutOptions, PutPayload};
use skillpub_core::{Catalog, LiveCatalog, catalog::Artifact};

use crate::error::StoreError;
use skillpub_core::paths::WELL_KNOWN_PATH;

use crate::layout::Generation;
use crate::location::Store;

/// What [`Store::publish`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Published {
    /// The addressed artifacts the catalog names.
    pub artifacts: usize,
    /// Of those, the ones put in the store now (the others were there).
    pub uploaded: usize,
    /// The bytes put.
    pub bytes: u64,
    /// The requests made to the store.
    pub requests: usize,
}

impl Store {
    /// Puts every addressed artifact of `catalog` in the store, then the record of its
    /// generation: once it returns, every replica can serve every URL the catalog's index
    /// names. One listing says what is there already; each missing artifact is written
    /// create-only (`If-None-Match: *`), so an artifact another replica put meanwhile is kept
    /// as it is, and nothing is ever replaced.
    ///
    /// # Errors
    ///
    /// The store could not be listed or written: the catalog should not be served then.
    pub async fn publish(&self, catalog: &Catalog) -> Result<Published, StoreError> {
        let present = self.listed(WELL_KNOWN_PATH).await?;
        let mut published = Published {
            requests: 1,
            ..Published::default()
        };
        for artifact in catalog.artifacts() {
            let Some(path) = artifact.addressed_path() else {
                continue;
            };
            published.artifacts += 1;
            if present.contains(path) {
                continue;
            }
            published.requests += 1;
            if self.put_new(path, artifact).await? {
                published.uploaded += 1;
                published.bytes += artifact.bytes().len() as u64;
            }
        }
        self.record(&Generation::of(catalog)).await?;
        published.requests += 1;
        Ok(published)
    }

    /// Publishes `catalog` in the store ([`publish`](Self::publish)), then swaps it into
    /// `live`; returns the catalog replaced. A store that fails leaves `live` as it was.
    ///
    /// # Errors
    ///
    /// As [`publish`](Self::publish).
    pub async fn replace(
        &self,
        live: &LiveCatalog,
        catalog: Catalog,
    ) -> Result<Catalog, StoreError> {
        self.publish(&catalog).await?;
        Ok(live.replace(catalog))
    }

    /// Writes `artifact` at `path` unless something is there: `true` if it wrote it.
    pub(crate) async fn put_new(
        &self,
        path: &str,
        artifact: &Artifact,
    ) -> Result<bool, StoreError> {
        let key = self.key(path);
        let options = PutOptions {
            mode: PutMode::Create,
            attributes: self.attributes(path, artifact),
            ..PutOptions::default()
        };
        let payload = PutPayload::from(artifact.bytes().clone());
        match self.objects.put_opts(&key, payload, options).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(error) => Err(self.error(&key, &error)),
        }
    }

    /// Writes `artifact` at `path`, replacing what is there (a canonical path, a supporting
    /// file, an index: the paths whose bytes change).
    pub(crate) async fn put(&self, path: &str, artifact: &Artifact) -> Result<(), StoreError> {
        let key = self.key(path);
        let options = PutOptions {
            attributes: self.attributes(path, artifact),
            ..PutOptions::default()
        };
        let payload = PutPayload::from(artifact.bytes().clone());
        self.objects
            .put_opts(&key, payload, options)
            .await
            .map(drop)
            .map_err(|error| self.error(&key, &error))
    }

    /// Writes the record of `generation` (again, if it is there: its time is the last
    /// publication of that index).
    pub(crate) async fn record(&self, generation: &Generation) -> Result<(), StoreError> {
        let key = self.key(&generation.record_path());
        let json = serde_json::to_vec(generation).unwrap_or_default();
        self.objects
            .put_opts(&key, PutPayload::from(json), PutOptions::default())
            .await
            .map(drop)
            .map_err(|error| self.error(&key, &error))
    }

    /// The headers the HTTP policy gives `artifact` at `path`, for object storage to send:
    /// its type, its caching (immutable at an addressed path, revalidated elsewhere), and
    /// `identity` (never encoded again on the way).
    fn attributes(&self, path: &str, artifact: &Artifact) -> Attributes {
        let mut attributes = Attributes::new();
        if !self.headers {
            return attributes;
        }
        let cache_control = if artifact.addressed_path() == Some(path) {
            skillpub_axum::ADDRESSED_CACHE_CONTROL
        } else {
            skillpub_axum::DEFAULT_CACHE_CONTROL
        };
        attributes.insert(Attribute::ContentType, artifact.media_type().into());
        attributes.insert(Attribute::CacheControl, cache_control.into());
        attributes.insert(Attribute::ContentEncoding, "identity".into());
        attributes
    }

    /// The paths of every object under the folder `path`, with a leading `/`.
    pub(crate) async fn listed(&self, path: &str) -> Result<HashSet<String>, StoreError> {
        Ok(self
            .listing(path)
            .await?
            .into_iter()
            .map(|(path, _)| path)
            .collect())
    }

    /// Every object under the folder `path`: its path, with a leading `/`, and when it was
    /// last written (milliseconds since the Unix epoch).
    pub(crate) async fn listing(&self, path: &str) -> Result<Vec<(String, i64)>, StoreError> {
        let prefix = self.key(path);
        self.objects
            .list(Some(&prefix))
            .map_ok(|meta| {
                (
                    self.path_of(&meta.location),
                    meta.last_modified.timestamp_millis(),
                )
            })
            .try_collect()
            .await
            .or_else(|error| match error {
                // A folder store without the folder yet: nothing is there.
                object_store::Error::NotFound { .. } => Ok(Vec::new()),
                error => Err(self.error(&prefix, &error)),
            })
    }
}
