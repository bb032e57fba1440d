//! The optional artifacts: the legacy 0.1.0 layout and the RFC 9727 API catalog.

use crate::{Catalog, CatalogBuilder, Skill, SkillFile, index::UrlStyle};

const SKILL_MD: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n";

fn builder() -> CatalogBuilder {
    let mut builder = CatalogBuilder::new();
    builder.skill(Skill::new(None, SKILL_MD).with_files(vec![SkillFile::new(
        "references/forms.md",
        "# Forms\n",
        false,
    )]));
    builder
}

fn paths(catalog: &Catalog) -> Vec<&str> {
    catalog.artifacts().map(|a| a.path()).collect()
}

#[test]
fn neither_is_published_by_default() {
    let catalog = builder().build().unwrap();
    assert!(!catalog.has_legacy_index());
    assert!(
        paths(&catalog)
            .iter()
            .all(|p| p.starts_with("/.well-known/agent-skills/"))
    );
}

#[test]
fn the_legacy_index_lists_files_with_skill_md_first_and_serves_them_beside_it() {
    let catalog = builder().legacy_index(true).build().unwrap();
    assert!(catalog.has_legacy_index());
    let legacy = catalog
        .artifacts()
        .find(|a| a.path() == "/.well-known/skills/index.json")
        .unwrap();
    assert_eq!(legacy.media_type(), "application/json");
    let index: serde_json::Value = serde_json::from_slice(legacy.bytes()).unwrap();
    assert_eq!(
        index,
        serde_json::json!({"skills": [{"name": "pdf", "description": "Reads PDF files.", "files": ["SKILL.md", "references/forms.md"]}]})
    );
    let served = |path: &str| {
        catalog
            .artifacts()
            .find(|a| a.path() == path)
            .unwrap()
            .bytes()
            .clone()
    };
    assert_eq!(
        served("/.well-known/skills/pdf/SKILL.md"),
        served("/.well-known/agent-skills/pdf/SKILL.md")
    );
    assert_eq!(
        served("/.well-known/skills/pdf/references/forms.md").as_ref(),
        b"# Forms\n"
    );
}

#[test]
fn the_api_catalog_links_the_index() {
    let catalog = builder().api_catalog(true).build().unwrap();
    let linkset = catalog
        .artifacts()
        .find(|a| a.path() == "/.well-known/api-catalog")
        .unwrap();
    assert_eq!(
        linkset.media_type(),
        "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\""
    );
    let json: serde_json::Value = serde_json::from_slice(linkset.bytes()).unwrap();
    assert_eq!(json["linkset"][0]["anchor"], "/.well-known/api-catalog");
    assert_eq!(
        json["linkset"][0]["item"][0]["href"],
        "/.well-known/agent-skills/index.json"
    );
    assert_eq!(json["linkset"][0]["item"][0]["type"], "application/json");

    let absolute = builder()
        .api_catalog(true)
        .url_style(UrlStyle::Absolute("https://example.com".parse().unwrap()))
        .build()
        .unwrap();
    let linkset = absolute
        .artifacts()
        .find(|a| a.path() == "/.well-known/api-catalog")
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(linkset.bytes()).unwrap();
    assert_eq!(
        json["linkset"][0]["anchor"],
        "https://example.com/.well-known/api-catalog"
    );
    assert_eq!(
        json["linkset"][0]["item"][0]["href"],
        "https://example.com/.well-known/agent-skills/index.json"
    );
}
