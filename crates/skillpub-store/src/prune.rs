//! Removing what replaced generations left in the store, by age, and only when asked.

use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use object_store::ObjectStoreExt;

use crate::error::StoreError;
use skillpub_core::paths::{WELL_KNOWN_PATH, is_addressed_artifact};

use crate::layout::{GENERATIONS, Generation};
use crate::location::Store;

/// How long, and how many, replaced generations keep their artifacts in the store, as the
/// directory export's `--keep-for` and `--keep-generations` say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// How many of the last replaced generations stay, whatever their age.
    pub generations: usize,
    /// How long after it was replaced a generation stays, whatever the count. An artifact
    /// written less than this long ago stays too, so that a replica publishing meanwhile
    /// never loses what it put before its record.
    pub keep_for: Duration,
}

/// What [`Store::prune`] removed and kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Pruned {
    /// The generations whose artifacts stay, the newest included.
    pub kept: usize,
    /// The generations whose records were removed.
    pub removed: usize,
    /// The artifacts removed.
    pub files: usize,
}

impl Store {
    /// Removes the addressed artifacts that no generation kept by `retention` names. The
    /// newest generation (the last published) always stays; a generation counts as replaced
    /// when the next one was published, and stays while that was less than
    /// [`keep_for`](Retention::keep_for) ago or while it is one of the last
    /// [`generations`](Retention::generations) replaced. Nothing else is removed: a start, a
    /// publication or a read never prune.
    ///
    /// # Errors
    ///
    /// The store could not be listed, read or written; what was removed before stays
    /// removed, and what the kept generations name is never removed.
    pub async fn prune(&self, retention: Retention) -> Result<Pruned, StoreError> {
        let now = unix_now();
        let keep_for = i64::try_from(retention.keep_for.as_millis()).unwrap_or(i64::MAX);
        let mut records = Vec::new();
        for (path, _) in self.listing(GENERATIONS).await? {
            let generation = self.generation(&path).await?;
            records.push((generation.published, path, generation.files));
        }
        records.sort();
        let count = records.len();
        let mut kept_files = HashSet::new();
        let mut pruned = Pruned::default();
        for (n, (published, path, files)) in records.iter().enumerate() {
            // Replaced by the first one published after it: records of the same millisecond
            // replace none of each other.
            let replaced = records[n + 1..]
                .iter()
                .map(|(later, _, _)| *later)
                .find(|later| later > published);
            let newer = count - 1 - n;
            let stays = replaced.is_none_or(|replaced| {
                newer <= retention.generations || now.saturating_sub(replaced) < keep_for
            });
            if stays {
                kept_files.extend(files.iter().map(|file| format!("{WELL_KNOWN_PATH}{file}")));
                pruned.kept += 1;
            } else {
                self.remove(path).await?;
                pruned.removed += 1;
            }
        }
        for (path, written) in self.listing(WELL_KNOWN_PATH).await? {
            if is_addressed_artifact(&path)
                && !kept_files.contains(&path)
                && now.saturating_sub(written) >= keep_for
            {
                self.remove(&path).await?;
                pruned.files += 1;
            }
        }
        Ok(pruned)
    }

    /// The generation recorded at `path`.
    async fn generation(&self, path: &str) -> Result<Generation, StoreError> {
        let key = self.key(path);
        let bytes = self
            .objects
            .get(&key)
            .await
            .map_err(|error| self.error(&key, &error))?
            .bytes()
            .await
            .map_err(|error| self.error(&key, &error))?;
        serde_json::from_slice(&bytes).map_err(|error| StoreError::Object {
            location: self.location.to_string(),
            key: key.to_string(),
            detail: format!(
                "not a generation record ({error}); remove it, and the next publication of that index writes it again"
            ),
        })
    }

    /// Removes the object at `path`.
    pub(crate) async fn remove(&self, path: &str) -> Result<(), StoreError> {
        let key = self.key(path);
        match self.objects.delete(&key).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(self.error(&key, &error)),
        }
    }
}

/// Milliseconds since the Unix epoch (0 for a clock before it).
pub(crate) fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}
