//! Real text for benchmarks: the repository's own Rust and Markdown sources.

use std::path::{Path, PathBuf};

/// Every `.rs` and `.md` file under `folder`, at any depth, sorted by path: real Rust and
/// Markdown, which compresses as a skill's text does.
///
/// # Example
///
/// ```
/// let crates = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// let files = skillpub_testkit::rust_and_markdown_files(crates.as_ref());
/// assert!(files.iter().any(|path| path.ends_with("skillpub-testkit/src/sources.rs")));
/// assert!(files.is_sorted());
/// ```
///
/// # Panics
///
/// When a folder under `folder` cannot be read.
#[must_use]
#[track_caller]
pub fn rust_and_markdown_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", folder.display()));
        for entry in entries {
            let path = entry
                .unwrap_or_else(|error| panic!("cannot read {}: {error}", folder.display()))
                .path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
