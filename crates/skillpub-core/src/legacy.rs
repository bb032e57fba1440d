//! The legacy 0.1.0 index at `/.well-known/skills/index.json`, for clients that have not moved
//! to 0.2.0 (OpenCode, `skills` 1.5.6 and older). Off by default.
//!
//! A 0.1.0 entry lists its files; each is served beside the index at
//! `/.well-known/skills/{name}/{path}`, with no digests (0.1.0 has none).

use serde::Serialize;

/// One 0.1.0 entry: `SKILL.md` first, as the draft recommends, then the other files.
#[derive(Serialize)]
pub(crate) struct Entry<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) files: Vec<&'a str>,
}

#[derive(Serialize)]
struct Index<'a> {
    skills: &'a [Entry<'a>],
}

/// Renders the 0.1.0 index as indented JSON with a final newline.
pub(crate) fn render(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut json = serde_json::to_vec_pretty(&Index { skills: entries })
        .expect("serializing strings into memory cannot fail");
    json.push(b'\n');
    json
}
