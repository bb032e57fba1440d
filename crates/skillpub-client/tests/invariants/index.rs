//! What holds for every index the client parses.

use serde_json::Value;
use skillpub_client::Index;
use skillpub_client::index::Version;
use skillpub_core::spec::{MAX_DESCRIPTION_LENGTH, validate_name};

/// Every entry kept is valid, every URL is http or https, every 0.1.0 file stays inside its
/// skill's folder, and each member of `skills` is either kept or reported, once.
pub(crate) fn assert_index_is_sound(index: &Index, body: &[u8]) {
    let json: Value = serde_json::from_slice(body).expect("a parsed index is JSON");
    let skills = json["skills"]
        .as_array()
        .expect("a parsed index has `skills`");
    let kept = match index.version {
        Version::V0_2 => {
            assert!(index.legacy_entries().is_empty());
            index.entries().len()
        }
        Version::V0_1 => {
            assert!(index.entries().is_empty());
            index.legacy_entries().len()
        }
    };
    assert_eq!(kept + index.problems().len(), skills.len());
    assert_eq!(index.empty, skills.is_empty());
    let mut positions: Vec<usize> = index.problems().iter().map(|p| p.position).collect();
    positions.dedup();
    assert_eq!(
        positions.len(),
        index.problems().len(),
        "a member reported twice"
    );
    assert!(positions.iter().all(|at| *at < skills.len()));

    for entry in index.entries() {
        assert_text_fields_are_valid(&entry.name, &entry.description);
        assert!(
            matches!(entry.url.scheme(), "http" | "https"),
            "{}: `{}`",
            entry.name,
            entry.url
        );
        assert_eq!(
            index.url.join(&entry.raw_url).ok().as_ref(),
            Some(&entry.url)
        );
        let digest = entry.digest.to_string();
        assert!(
            skills
                .iter()
                .any(|skill| skill["name"] == entry.name.as_str()
                    && skill["digest"] == digest.as_str()),
            "{}: digest {digest} is not the one listed",
            entry.name
        );
    }
    for entry in index.legacy_entries() {
        assert_text_fields_are_valid(&entry.name, &entry.description);
        let folder = index
            .url
            .join(&format!("{}/", entry.name))
            .expect("a valid name is a path segment");
        assert!(entry.files.iter().any(|(path, _)| path == "SKILL.md"));
        for (path, url) in &entry.files {
            assert!(
                !path.starts_with('/') && !path.split('/').any(|segment| segment == ".."),
                "{}: file `{path}`",
                entry.name
            );
            assert!(
                url.as_str().starts_with(folder.as_str()),
                "{}: file `{path}` resolves to {url}, outside {folder}",
                entry.name
            );
        }
    }
}

fn assert_text_fields_are_valid(name: &str, description: &str) {
    assert_eq!(validate_name(name), [], "name `{name}`");
    let length = description.chars().count();
    assert!(
        (1..=MAX_DESCRIPTION_LENGTH).contains(&length) && !description.trim().is_empty(),
        "{name}: description of {length} characters"
    );
}
