//! A store of Agent Skills artifacts that several replicas share, and the export of a catalog
//! to object storage: what keeps every skill installable across replicas and rolling deploys.
//!
//! A [`Store`] is a folder (a shared volume) or an S3 bucket and prefix (`s3://bucket/prefix`,
//! AWS S3 or any S3-compatible service: R2, MinIO, Ceph, GCS's XML API). It holds the
//! addressed artifacts (`/.well-known/agent-skills/sha256-<hex>/...`) of every catalog a
//! replica published, at keys that are their paths, so the key names the digest and a
//! create-only write (`If-None-Match: *`) can never replace other bytes:
//!
//! - before a replica serves an index, [`Store::publish`] puts every artifact it names in the
//!   store ([`Store::replace`] does it before [`LiveCatalog::replace`]);
//! - a replica asked for an addressed path it does not hold reads it from the store, checks
//!   its SHA-256 against the path's digest, and serves it ([`Store`] is the
//!   [`ArtifactStore`] of [`RouterBuilder::store`](skillpub_axum::RouterBuilder::store));
//! - replaced generations stay until [`Store::prune`] is asked to remove them by age.
//!
//! [`Store::export`] writes a whole catalog as the static tree the router serves, each object
//! with the `Content-Type` and `Cache-Control` of the HTTP policy: every artifact first, the
//! index last, idempotent and resumable.
//!
//! # Example
//!
//! ```no_run
//! use skillpub_core::{Catalog, LiveCatalog};
//! use skillpub_store::Store;
//!
//! # async fn run(catalog: Catalog, next: Catalog) -> Result<(), Box<dyn std::error::Error>> {
//! // Endpoint, region and keys from the standard AWS_* variables.
//! let store = Store::open("s3://skills-artifacts/production")?;
//! store.publish(&catalog).await?;
//! let live = LiveCatalog::new(catalog);
//! let app: axum::Router = skillpub_axum::RouterBuilder::live(live.clone())
//!     .store(store.clone())
//!     .build();
//! // A deploy: the store first, then the swap.
//! store.replace(&live, next).await?;
//! # drop(app);
//! # Ok(())
//! # }
//! ```
//!
//! [`LiveCatalog::replace`]: skillpub_core::LiveCatalog::replace

mod error;
mod export;
mod fetch;
mod layout;
mod location;
mod prune;
mod publish;

pub use error::StoreError;
pub use export::{Exported, cdn_settings};
pub use location::Store;
pub use prune::{Pruned, Retention};
pub use publish::Published;

pub use skillpub_axum::ArtifactStore;
