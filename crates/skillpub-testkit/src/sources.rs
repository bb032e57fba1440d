//! Real text for benchmarks and for tests that need a lot of it: the repository's own Rust
//! and Markdown sources.

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

/// `len` bytes (or a few fewer, to end on a character) of varied text that compresses as a
/// skill's Markdown does: the repository's README and crate sources, then the same with
/// letters shifted (a new alphabet each round), so that no round repeats the one before and
/// a compressor cannot just refer back to it.
///
/// # Example
///
/// ```
/// let text = skillpub_testkit::varied_markdown(1 << 20);
/// assert!(text.len() <= 1 << 20 && text.len() > (1 << 20) - 4);
/// assert_ne!(text[..1000], text[text.len() - 1000..]);
/// ```
///
/// # Panics
///
/// When the repository's sources cannot be read.
#[must_use]
#[track_caller]
pub fn varied_markdown(len: usize) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = rust_and_markdown_files(&root.join("crates"));
    files.push(root.join("README.md"));
    files.sort();
    let source: String = files
        .iter()
        .map(|path| {
            std::fs::read_to_string(path)
                .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
        })
        .collect();
    let mut text = String::with_capacity(len + source.len());
    for round in 0_u8.. {
        if text.len() >= len {
            break;
        }
        text.extend(source.chars().map(|c| match c {
            'a'..='z' => char::from(b'a' + (c as u8 - b'a' + round % 26) % 26),
            'A'..='Z' => char::from(b'A' + (c as u8 - b'A' + round % 26) % 26),
            other => other,
        }));
    }
    let mut end = len.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}
