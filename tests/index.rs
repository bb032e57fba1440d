//! The demo's index, compared with a golden file and with the draft's shape.
//!
//! Set `SKILLPUB_BLESS=1` to rewrite `tests/fixtures/index.json` after an intended change.

mod common;

use common::example_catalog;
use skillpub::Catalog;
use skillpub::model::{
    Digest,
    index::{SCHEMA_URI, UrlStyle},
};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/index.json");

#[test]
fn index_matches_the_golden_file() {
    let index = example_catalog().index().bytes().clone();
    if std::env::var_os("SKILLPUB_BLESS").is_some() {
        std::fs::write(GOLDEN, &index).unwrap();
    }
    let golden = std::fs::read(GOLDEN)
        .expect("tests/fixtures/index.json; run with SKILLPUB_BLESS=1 to create it");
    assert_eq!(
        String::from_utf8_lossy(&index),
        String::from_utf8_lossy(&golden)
    );
}

#[test]
fn index_has_exactly_the_draft_shape() {
    let catalog = example_catalog();
    let index: serde_json::Value = serde_json::from_slice(catalog.index().bytes()).unwrap();
    let top: Vec<&str> = index
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(top, ["$schema", "skills"]);
    assert_eq!(index["$schema"], SCHEMA_URI);
    assert_eq!(
        SCHEMA_URI,
        "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
    );

    let entries = index["skills"].as_array().unwrap();
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "entries are sorted by name");

    for entry in entries {
        let keys: Vec<&str> = entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["name", "type", "description", "url", "digest"]);
        let name = entry["name"].as_str().unwrap();
        let skill = catalog.get(name).unwrap();
        assert_eq!(entry["type"], "skill-md");
        assert_eq!(entry["description"], skill.frontmatter().description());
        let digest = entry["digest"].as_str().unwrap();
        let hex = digest.strip_prefix("sha256:").unwrap();
        assert_eq!(
            entry["url"],
            format!("/.well-known/agent-skills/sha256-{hex}/{name}/SKILL.md")
        );
        assert_eq!(
            digest.parse::<Digest>().unwrap(),
            Digest::of(skill.skill_md().bytes())
        );
    }
}

#[test]
fn the_folded_description_is_published_exactly_as_parsed() {
    let catalog = example_catalog();
    let skill = catalog.get("verify-skill-digests").unwrap();
    let description = skill.frontmatter().description();
    assert!(description.starts_with("Check that a website's Agent Skills index at"));
    assert!(
        !description.contains("\n  "),
        "folded lines are joined with spaces"
    );
    assert_eq!(
        skill.frontmatter().metadata().collect::<Vec<_>>(),
        [("author", "skillpub"), ("version", "1.0")]
    );
}

#[test]
fn url_styles_change_only_the_url() {
    let skills = [&common::VERIFY_SKILL_DIGESTS, &common::WRITE_SKILL_MD];
    let relative = Catalog::builder()
        .skills(skills)
        .url_style(UrlStyle::Relative)
        .build()
        .unwrap();
    let absolute = Catalog::builder()
        .skills(skills)
        .url_style(UrlStyle::Absolute(
            "https://skills.example.com".parse().unwrap(),
        ))
        .build()
        .unwrap();
    let relative: serde_json::Value = serde_json::from_slice(relative.index().bytes()).unwrap();
    let absolute: serde_json::Value = serde_json::from_slice(absolute.index().bytes()).unwrap();
    let hex = Digest::of(common::WRITE_SKILL_MD.skill_md()).hex();
    assert_eq!(
        relative["skills"][1]["url"],
        format!("sha256-{hex}/write-skill-md/SKILL.md")
    );
    assert_eq!(
        absolute["skills"][1]["url"],
        format!(
            "https://skills.example.com/.well-known/agent-skills/sha256-{hex}/write-skill-md/SKILL.md"
        )
    );
    assert_eq!(
        relative["skills"][1]["digest"],
        absolute["skills"][1]["digest"]
    );
}

#[test]
fn building_twice_gives_identical_bytes() {
    assert_eq!(example_catalog().index(), example_catalog().index());
}
