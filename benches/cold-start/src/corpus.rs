//! What the corpora are called, shared by `build.rs`, which writes them, and the library,
//! which finds them.

/// How many skills each corpus holds.
pub const COUNTS: [usize; 3] = [10, 100, 1_000];

/// The folder of one corpus inside `OUT_DIR/corpus/`: `skill-md-100`, `archive-1000`, ...
#[must_use]
pub fn folder_name(with_files: bool, count: usize) -> String {
    let kind = if with_files { "archive" } else { "skill-md" };
    format!("{kind}-{count}")
}
