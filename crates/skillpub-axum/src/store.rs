//! A store of artifacts that several replicas share ([`ArtifactStore`]): where a router looks
//! for an addressed path (`sha256-<hex>/...`) that its catalog does not hold, so that every
//! replica serves every artifact an index of any replica names.
//!
//! A router built with [`RouterBuilder::store`](crate::RouterBuilder::store) answers such a
//! path from the store: it reads at most a bounded number of bytes, checks their SHA-256
//! against the digest the path names before it sends a byte, and serves them as the
//! addressed artifact they are (its type from the path, `immutable`, the `ETag` of the
//! digest, the content codings of text). Bytes with another digest, too many bytes, or a
//! store that fails are never served: the answer is the `404` no cache keeps, and the store
//! is told ([`ArtifactStore::refused`]). What it read is kept in memory, within
//! [`STORED_MEMORY`] bytes, so a replica asks the store once per artifact while it is asked
//! for it.
//!
//! The crate `skillpub-store` implements it on a shared folder and on S3-compatible object
//! storage, and puts every artifact of a catalog in the store before a replica serves its
//! index.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use skillpub_core::Digest;

/// The most bytes a router reads from the store for one artifact: twice the most a skill
/// folder may hold (`MAX_BYTES_PER_SKILL` of skillpub-core, 16 MiB),
/// room for any archive of one.
pub const STORED_ARTIFACT_LIMIT: usize = 2 * 16 * 1024 * 1024;

/// The most bytes of artifacts read from the store that a router keeps in memory; the oldest
/// go first.
pub const STORED_MEMORY: usize = 64 * 1024 * 1024;

/// What a store's read gives: the bytes stored at the path, `None` when it holds nothing there.
pub type StoreFetch = Pin<Box<dyn Future<Output = Result<Option<Bytes>, StoreError>> + Send>>;

/// Why a store could not be read.
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// A store of the addressed artifacts of every catalog the replicas of a site serve, keyed by
/// their addressed paths (which name their digests).
///
/// # Example
///
/// A store in memory, for a test: the router serves what it holds at an addressed path it does
/// not serve itself, once the digest agrees.
///
/// ```
/// use std::collections::HashMap;
///
/// use bytes::Bytes;
/// use skillpub_axum::{ArtifactStore, RouterBuilder, StoreFetch};
/// use skillpub_core::{Catalog, Skill};
/// use tower::ServiceExt;
///
/// #[derive(Debug)]
/// struct Memory(HashMap<String, Bytes>);
///
/// impl ArtifactStore for Memory {
///     fn fetch(&self, path: &str, _limit: usize) -> StoreFetch {
///         let found = self.0.get(path).cloned();
///         Box::pin(async move { Ok(found) })
///     }
/// }
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let skill = |body: &str| Skill::new(None, format!("---\nname: pdf\ndescription: Reads PDFs.\n---\n{body}\n"));
/// // Another replica already serves the next revision, and put it in the store.
/// let next = Catalog::new([skill("v2")])?;
/// let skill_md = next.get("pdf").unwrap().skill_md();
/// let path = skill_md.addressed_path().unwrap().to_owned();
/// let store = Memory(HashMap::from([(path.clone(), skill_md.bytes().clone())]));
///
/// let app: axum::Router = RouterBuilder::new(Catalog::new([skill("v1")])?).store(store).build();
/// let request = http::Request::get(&path).body(axum::body::Body::empty())?;
/// let response = app.oneshot(request).await?;
/// assert_eq!(response.status(), 200);
/// assert_eq!(response.headers()["cache-control"], skillpub_axum::ADDRESSED_CACHE_CONTROL);
/// # Ok(())
/// # }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(run()).unwrap();
/// ```
pub trait ArtifactStore: fmt::Debug + Send + Sync + 'static {
    /// Reads what the store holds at the addressed `path`
    /// (`/.well-known/agent-skills/sha256-<hex>/...`, without a base path): `Ok(None)` when
    /// it holds nothing there. It should stop reading after `limit + 1` bytes (the router
    /// refuses more than `limit`), and give up within a bounded time.
    fn fetch(&self, path: &str, limit: usize) -> StoreFetch;

    /// Told when the router refused what [`fetch`](Self::fetch) gave for `path`; it answered
    /// the `404` that no cache keeps. By default, nothing is done.
    fn refused(&self, path: &str, refusal: &StoreRefusal<'_>) {
        let _ = (path, refusal);
    }
}

/// Why a router did not serve what a store gave.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreRefusal<'a> {
    /// The bytes have another digest than the path names: the store is corrupt, or was
    /// written by something other than a replica.
    OtherBytes {
        /// The digest of the bytes it gave.
        found: Digest,
    },
    /// More bytes than the limit.
    TooLarge {
        /// The limit, [`STORED_ARTIFACT_LIMIT`].
        limit: usize,
    },
    /// The store could not be read.
    Failed(&'a StoreError),
}

impl fmt::Display for StoreRefusal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OtherBytes { found } => write!(
                f,
                "the store holds other bytes there ({found}); they were not served. Remove the object: only bytes whose digest the path names belong there"
            ),
            Self::TooLarge { limit } => {
                write!(
                    f,
                    "the store holds more than {limit} bytes there; they were not served"
                )
            }
            Self::Failed(error) => write!(f, "the store could not be read: {error}"),
        }
    }
}
