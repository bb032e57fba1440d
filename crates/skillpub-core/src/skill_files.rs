//! The rules that the files of one skill follow together: each path, no path twice, no file
//! inside another, and the SEP-2640 limits. Written once, for skills from memory, from
//! `build.rs` and from a folder.

use std::collections::{HashMap, HashSet};

use bytes::Bytes;

use crate::error::ErrorKind;
use crate::file::SkillFile;
use crate::paths::SKILL_MD;
use crate::spec::limits::{MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL};
use crate::spec::path::validate_file_path;

/// How many files the size limit's message names.
const LARGEST_NAMED: usize = 3;

/// Every rule a skill's supporting files follow: each path (see [`validate_file_path`]), no
/// path twice or twice in different case, no file inside another, and the limits. Returns
/// each problem with the path it is about (`SKILL.md` for the limits).
pub(crate) fn check(skill_md: &Bytes, files: &[SkillFile]) -> Vec<(String, ErrorKind)> {
    if files.is_empty() {
        // Most skills are a `SKILL.md` alone: only the limits apply, and no set is needed.
        let sizes = [(SKILL_MD, skill_md.len() as u64)];
        let problems = over_limits(&sizes).into_iter();
        return problems.map(|kind| (SKILL_MD.to_owned(), kind)).collect();
    }
    let mut problems = Vec::new();
    let mut report = |path: &str, kind| problems.push((path.to_owned(), kind));
    let mut seen: HashMap<String, &str> = HashMap::new();
    seen.insert(SKILL_MD.to_ascii_lowercase(), SKILL_MD);
    for file in files {
        let path = file.path();
        if let Err(problem) = validate_file_path(path) {
            report(path, ErrorKind::FilePath { problem });
            continue;
        }
        match seen.insert(path.to_ascii_lowercase(), path) {
            Some(other) if other == path => report(path, ErrorKind::DuplicateFile),
            Some(other) => report(
                path,
                ErrorKind::CaseCollision {
                    other: other.to_owned(),
                },
            ),
            None => {}
        }
    }
    let paths: HashSet<&str> = files.iter().map(SkillFile::path).collect();
    for path in files.iter().map(SkillFile::path) {
        let blocking = path
            .match_indices('/')
            .map(|(at, _)| &path[..at])
            .find(|folder| paths.contains(folder));
        if let Some(folder) = blocking {
            let file = folder.to_owned();
            report(path, ErrorKind::FileUsedAsFolder { file });
        }
    }
    let sizes: Vec<(&str, u64)> = std::iter::once((SKILL_MD, skill_md.len() as u64))
        .chain(files.iter().map(|f| (f.path(), f.bytes().len() as u64)))
        .collect();
    for kind in over_limits(&sizes) {
        report(SKILL_MD, kind);
    }
    problems
}

/// The SEP-2640 limits of one skill ([`MAX_FILES_PER_SKILL`], [`MAX_BYTES_PER_SKILL`]),
/// judged on the path and size of every file, `SKILL.md` included. The catalog judges the
/// bytes it holds; the folder walk judges the sizes the file system reports, before it reads
/// a byte, so that a skill of a gigabyte is refused without reading it.
pub(crate) fn over_limits(sizes: &[(&str, u64)]) -> Vec<ErrorKind> {
    let mut problems = Vec::new();
    let count = sizes.len();
    if count > MAX_FILES_PER_SKILL {
        let limit = MAX_FILES_PER_SKILL;
        problems.push(ErrorKind::TooManyFiles { count, limit });
    }
    let bytes = sizes.iter().map(|(_, len)| len).sum();
    if bytes > MAX_BYTES_PER_SKILL {
        problems.push(ErrorKind::TooLarge {
            bytes,
            limit: MAX_BYTES_PER_SKILL,
            largest: largest_files(sizes),
        });
    }
    problems
}

/// The largest files of a skill, largest first (then by path), for the size limit's message.
fn largest_files(sizes: &[(&str, u64)]) -> Vec<(String, u64)> {
    let mut sizes = sizes.to_vec();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    sizes
        .into_iter()
        .take(LARGEST_NAMED)
        .map(|(path, bytes)| (path.to_owned(), bytes))
        .collect()
}
