//! The paths of a skill's files, and the folders they make, for the rules that look a path
//! up.

use std::collections::BTreeSet;

/// The paths of a skill's files (`SKILL.md` included), and through them the folders that
/// hold them, read in time linear in the paths: a folder is a path's prefix before a `/`,
/// and no folder is copied (1,000 paths of 4 KiB, 2,000 folders deep each, would be 4 GB
/// of them).
#[derive(Debug, Default)]
pub(crate) struct Files {
    /// Sorted, without duplicates.
    paths: Vec<String>,
    /// Each path in lowercase with its index in `paths`, sorted.
    lowercase: Vec<(String, usize)>,
    /// `least[level][at]`: the smallest index in `paths` of the `2^level` entries of
    /// `lowercase` from `at`, so that the first path of any run of them is found at once.
    least: Vec<Vec<usize>>,
}

impl Files {
    pub(crate) fn new(paths: impl IntoIterator<Item = String>) -> Self {
        let paths: Vec<String> = paths
            .into_iter()
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect();
        let mut lowercase: Vec<(String, usize)> = paths
            .iter()
            .enumerate()
            .map(|(index, path)| (path.to_lowercase(), index))
            .collect();
        lowercase.sort_unstable();
        let mut least = vec![
            lowercase
                .iter()
                .map(|&(_, index)| index)
                .collect::<Vec<_>>(),
        ];
        while 1 << least.len() <= lowercase.len() {
            let width = 1 << (least.len() - 1);
            let below = &least[least.len() - 1];
            let level = (0..below.len() - width)
                .map(|at| below[at].min(below[at + width]))
                .collect();
            least.push(level);
        }
        Self {
            paths,
            lowercase,
            least,
        }
    }

    /// How many files are under `folder/`.
    pub(crate) fn count_under(&self, folder: &str) -> usize {
        self.under(folder).len()
    }

    /// The paths under `folder/`, which sort together.
    pub(crate) fn under(&self, folder: &str) -> &[String] {
        let prefix = format!("{folder}/");
        let first = self
            .paths
            .partition_point(|path| path.as_str() < prefix.as_str());
        let after = &self.paths[first..];
        &after[..after.partition_point(|path| path.starts_with(&prefix))]
    }

    pub(crate) fn contains(&self, path: &str) -> bool {
        self.paths
            .binary_search_by(|p| p.as_str().cmp(path))
            .is_ok()
            || self.has_folder(path)
    }

    pub(crate) fn has_folder(&self, folder: &str) -> bool {
        !self.under(folder).is_empty()
    }

    /// A file or folder whose path differs from `path` only in letter case: the first file
    /// in sorted order, else the first folder.
    pub(crate) fn ignoring_case(&self, path: &str) -> Option<&str> {
        let lowercase = path.to_lowercase();
        let file = self.first_of(|entry| entry.cmp(&lowercase));
        if let Some(index) = file {
            return Some(&self.paths[index]);
        }
        // Lowercase keeps every `/`, so a folder's path in lowercase is its files' paths in
        // lowercase up to the same `/`; two folders equal in lowercase are no prefix of each
        // other, so the first folder holds the first of those files.
        let prefix = format!("{lowercase}/");
        let index = self.first_of(|entry| {
            if entry.starts_with(&prefix) {
                std::cmp::Ordering::Equal
            } else {
                entry.cmp(&prefix)
            }
        })?;
        let file = &self.paths[index];
        let depth = lowercase.matches('/').count();
        let end = file.match_indices('/').nth(depth).map(|(at, _)| at)?;
        Some(&file[..end])
    }

    /// The first path in sorted order whose lowercase `order` finds equal, where the
    /// lowercase paths it finds equal sort together.
    pub(crate) fn first_of(&self, order: impl Fn(&str) -> std::cmp::Ordering) -> Option<usize> {
        let start = self
            .lowercase
            .partition_point(|(entry, _)| order(entry).is_lt());
        let end = self
            .lowercase
            .partition_point(|(entry, _)| order(entry).is_le());
        let length = end.checked_sub(start).filter(|&length| length > 0)?;
        let level = length.ilog2() as usize;
        let width = 1 << level;
        Some(self.least[level][start].min(self.least[level][end - width]))
    }
}
