//! Keeping the addressed files of earlier exports in the tree (`--keep-generations`,
//! `--keep-for`), so that a client or a cache that still holds an earlier `index.json` finds
//! every file it names, byte for byte. An index names only addressed files, whose bytes never
//! change, so keeping one is copying it into the next tree; the canonical paths always hold
//! the current bytes.
//!
//! An earlier generation is kept while it was replaced less than `--keep-for` ago, or while it
//! is one of the last `--keep-generations` replaced: the age is the guarantee (at least as long
//! as any cache may hold an index), the count keeps a few more on a site that deploys rarely.
//! Neither removes what the other keeps, so an export never removes a file that an index
//! replaced within `--keep-for` names; the generations exported within `--keep-for` are all
//! kept, since each of their indexes could still be held.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use skillpub_core::Digest;
use skillpub_core::paths::{ADDRESS_PREFIX, AddressedPath, SKILL_MD, WELL_KNOWN_PATH};

use super::manifest::{Generation, Manifest, is_addressed_file};

/// The default of `--keep-generations`.
pub(crate) const DEFAULT_KEEP_GENERATIONS: &str = "3";
/// The default of `--keep-for`.
pub(crate) const DEFAULT_KEEP_FOR: &str = "1d";

/// How long, and how many, earlier generations stay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Retention {
    /// How many of the last replaced generations stay, whatever their age.
    pub(crate) generations: usize,
    /// How long after it was replaced a generation stays, whatever the count.
    pub(crate) keep_for: Duration,
}

impl Retention {
    /// The same retention, for a store.
    pub(crate) fn for_store(self) -> skillpub_store::Retention {
        skillpub_store::Retention {
            generations: self.generations,
            keep_for: self.keep_for,
        }
    }

    /// The generations of `previous` (oldest first, each with its `replaced` time) that stay
    /// at `now`.
    pub(crate) fn select(&self, previous: Vec<Generation>, now: u64) -> Vec<Generation> {
        let count = previous.len();
        previous
            .into_iter()
            .enumerate()
            .filter(|(n, generation)| {
                let newer = count - 1 - n;
                let replaced = generation.replaced.unwrap_or(now);
                newer < self.generations || now.saturating_sub(replaced) < self.keep_for.as_secs()
            })
            .map(|(_, generation)| generation)
            .collect()
    }
}

/// Seconds since the Unix epoch, as the manifest records times (0 for a clock before it).
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// The earlier generations of the tree at `tree` (`.well-known/agent-skills/`), each marked
/// replaced at `now` if it was not yet: those `manifest` records, and the tree in place when
/// the manifest does not record it (there was none, or a crash came between the tree and the
/// manifest), with every addressed file in it.
pub(crate) fn earlier_generations(
    manifest: Option<Manifest>,
    tree: &Path,
    now: u64,
) -> Vec<Generation> {
    let mut generations = manifest.map(|m| m.generations).unwrap_or_default();
    for generation in &mut generations {
        generation.replaced.get_or_insert(now);
    }
    let Ok(index) = std::fs::read(tree.join("index.json")) else {
        return generations;
    };
    let index = Digest::of(&index).to_string();
    if generations.last().is_none_or(|last| last.index != index) {
        generations.push(Generation {
            exported: now,
            replaced: Some(now),
            index,
            files: addressed_files_in(tree),
        });
    }
    generations
}

/// Every addressed file under `tree`, sorted.
fn addressed_files_in(tree: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let entries = |folder: &Path| {
        std::fs::read_dir(folder)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .collect::<Vec<_>>()
    };
    for segment in entries(tree) {
        if !segment.starts_with(ADDRESS_PREFIX) {
            continue;
        }
        for name in entries(&tree.join(&segment)) {
            for file in [
                format!("{segment}/{name}"),
                format!("{segment}/{name}/{SKILL_MD}"),
            ] {
                if is_addressed_file(&file) && tree.join(&file).is_file() {
                    files.push(file);
                }
            }
        }
    }
    files.sort();
    files
}

/// The bytes of the addressed `file` in `tree`, once they are known to have the digest its
/// name says; what is wrong otherwise (missing, not a regular file, other bytes), for a
/// warning.
pub(crate) fn read_verified(tree: &Path, file: &str) -> Result<Vec<u8>, String> {
    let path = tree.join(file);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return Err(format!("`{}` is not a regular file", path.display())),
        Err(error) => return Err(format!("`{}`: {error}", path.display())),
    }
    let bytes = std::fs::read(&path).map_err(|error| format!("`{}`: {error}", path.display()))?;
    let named = AddressedPath::parse(&format!("{WELL_KNOWN_PATH}{file}")).map(|a| a.digest());
    if named == Some(Digest::of(&bytes)) {
        Ok(bytes)
    } else {
        Err(format!(
            "`{}` does not hold the bytes its name's digest says (changed since it was exported)",
            path.display()
        ))
    }
}

/// Reads `--keep-for`: a whole number with `s`, `m`, `h` or `d` (`90m`, `1d`), or `0`.
pub(crate) fn duration(text: &str) -> Result<Duration, String> {
    let refused = || {
        format!(
            "`{text}` is not a duration: give a whole number with s, m, h or d, such as 90m or 1d (0 keeps nothing by age)"
        )
    };
    let text = text.trim();
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let (digits, unit) = text.split_at(text.len().saturating_sub(1));
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(refused()),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(refused());
    }
    let count: u64 = digits.parse().map_err(|_| refused())?;
    count
        .checked_mul(seconds)
        .map(Duration::from_secs)
        .ok_or_else(refused)
}

#[cfg(test)]
mod tests;
