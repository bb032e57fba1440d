//! The answers of addressed artifacts read from a shared store (see `crate::store`): each
//! read once, checked against the digest its path names, and kept within a bound of memory,
//! oldest first out.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http::HeaderValue;
use skillpub_core::Digest;
use skillpub_core::paths::AddressedPath;

use super::address;
use super::resource::{self, Resource};
use super::settings::Policy;
use crate::store::{ArtifactStore, STORED_ARTIFACT_LIMIT, STORED_MEMORY, StoreFetch, StoreRefusal};

/// A router's store, and what it has read from it.
#[derive(Debug)]
pub(crate) struct Fetcher {
    store: Arc<dyn ArtifactStore>,
    /// The catalog's base path, for the `Link` to the canonical path.
    base_path: Box<str>,
    policy: Policy,
    kept: Mutex<Kept>,
}

/// The answers of an artifact read from the store.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    pub(super) resource: Arc<Resource>,
    pub(super) link: HeaderValue,
}

impl Stored {
    /// Its answers, at its addressed path.
    pub(super) fn hit(&self) -> super::table::Hit<'_> {
        super::table::Hit {
            resource: &self.resource,
            address: super::address::Address::Addressed(&self.link),
        }
    }
}

/// What was read, by path, and in which order, within [`STORED_MEMORY`] bytes.
#[derive(Debug, Default)]
struct Kept {
    by_path: HashMap<Box<str>, Stored>,
    order: VecDeque<Box<str>>,
    bytes: usize,
}

impl Fetcher {
    pub(crate) fn new(store: Arc<dyn ArtifactStore>, base_path: &str, policy: Policy) -> Self {
        Self {
            store,
            base_path: base_path.into(),
            policy,
            kept: Mutex::default(),
        }
    }

    /// The answers read before for `path`.
    pub(super) fn kept(&self, path: &str) -> Option<Stored> {
        self.lock().by_path.get(path).cloned()
    }

    /// Starts reading `path` from the store.
    pub(super) fn fetch(&self, path: &str) -> StoreFetch {
        self.store.fetch(path, STORED_ARTIFACT_LIMIT)
    }

    /// The answers of what the store gave for `path`, once they are the bytes its digest
    /// names; `None` (and the store told why) for anything else.
    pub(super) fn accept(
        &self,
        path: &str,
        fetched: Result<Option<Bytes>, crate::store::StoreError>,
    ) -> Option<Stored> {
        let addressed = AddressedPath::parse(path)?;
        let media_type = addressed.media_type()?;
        let bytes = match fetched {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return None,
            Err(error) => {
                self.store.refused(path, &StoreRefusal::Failed(&error));
                return None;
            }
        };
        if bytes.len() > STORED_ARTIFACT_LIMIT {
            let refusal = StoreRefusal::TooLarge {
                limit: STORED_ARTIFACT_LIMIT,
            };
            self.store.refused(path, &refusal);
            return None;
        }
        let found = Digest::of(&bytes);
        if found != addressed.digest() {
            self.store
                .refused(path, &StoreRefusal::OtherBytes { found });
            return None;
        }
        let link = address::exact(format!(
            "<{}{}>; rel=\"canonical\"",
            self.base_path,
            addressed.canonical_path()
        ))?;
        let etag = resource::entity_tag(found);
        let resource = self
            .policy
            .resource(HeaderValue::from_static(media_type), bytes, etag);
        let stored = Stored {
            resource: Arc::new(resource),
            link,
        };
        self.keep(path, &stored);
        Some(stored)
    }

    /// Keeps `stored` for the next requests, dropping the oldest beyond [`STORED_MEMORY`].
    fn keep(&self, path: &str, stored: &Stored) {
        let mut kept = self.lock();
        if kept.by_path.contains_key(path) {
            return;
        }
        kept.by_path.insert(path.into(), stored.clone());
        kept.order.push_back(path.into());
        kept.bytes += stored.resource.identity.body.len();
        while kept.bytes > STORED_MEMORY
            && let Some(oldest) = kept.order.pop_front()
        {
            if let Some(dropped) = kept.by_path.remove(&oldest) {
                kept.bytes -= dropped.resource.identity.body.len();
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
