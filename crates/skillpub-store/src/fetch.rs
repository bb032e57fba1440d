//! A replica's reads of the artifacts it does not hold: [`Store`] as the router's
//! [`ArtifactStore`].

use std::io::Write as _;

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use skillpub_axum::store::{StoreError as FetchError, StoreFetch, StoreRefusal};

use crate::ArtifactStore;
use crate::location::Store;

impl ArtifactStore for Store {
    /// Reads the object at `path`, at most `limit + 1` bytes of it (the router refuses more
    /// than `limit`); `None` when there is none.
    fn fetch(&self, path: &str, limit: usize) -> StoreFetch {
        let key = self.key(path);
        let objects = self.objects.clone();
        Box::pin(async move {
            let result = match objects
                .get_opts(&key, object_store::GetOptions::default())
                .await
            {
                Ok(result) => result,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(error) => return Err(FetchError::from(error)),
            };
            let mut stream = result.into_stream();
            let mut bytes = BytesMut::new();
            while let Some(chunk) = stream.next().await {
                let chunk: Bytes = chunk?;
                let room = (limit + 1).saturating_sub(bytes.len());
                bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if bytes.len() > limit {
                    break;
                }
            }
            Ok(Some(bytes.freeze()))
        })
    }

    /// Says on stderr, in one line, what the router refused and where.
    fn refused(&self, path: &str, refusal: &StoreRefusal<'_>) {
        let _ = writeln!(
            std::io::stderr(),
            "skillpub-store: {path} in {}: {refusal}",
            self.location
        );
    }
}
