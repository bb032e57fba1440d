//! The facade next to the crates an axum app imports: `use skillpub::*;` must bring no name
//! that is also a crate of the extern prelude (`axum`, `http`, `core`, `std`, `alloc`, `tower`,
//! `tokio`...), which would make the `use` lines below ambiguous (E0659) and this file fail to
//! compile, whatever features are on. The test then uses each part through its facade path.

extern crate alloc;

use alloc::vec::Vec;
use core::time::Duration;
use std::collections::BTreeSet;

use axum::Router;
use axum::body::Body;
use http::{Request, StatusCode};
use skillpub::*;
use tower::ServiceExt;

static WRITE_SKILL_MD: Skill = skill!("examples/skills/write-skill-md");
static NOTES: [SkillFile; 1] = [SkillFile::from_static("notes.md", b"Notes.\n", false)];
static WITH_FILE: Skill = Skill::from_static_parts(
    "skills/with-file",
    b"---\nname: with-file\ndescription: Has one supporting file.\n---\nRead notes.md.\n",
    &NOTES,
);

fn catalog() -> Catalog {
    let mut builder: CatalogBuilder = Catalog::builder();
    builder
        .url_style(model::index::UrlStyle::Relative)
        .skills([&WRITE_SKILL_MD, &WITH_FILE]);
    builder.build().expect("the skills are valid")
}

#[tokio::test]
async fn every_part_is_reachable_through_its_facade_path() {
    let app: Router = Router::new().merge(web::router(catalog()));
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        app.oneshot(
            Request::get(model::paths::INDEX_PATH)
                .body(Body::empty())
                .unwrap(),
        ),
    )
    .await
    .expect("the router answers")
    .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);

    let catalog = catalog();
    let names: Vec<&str> = catalog.skills().iter().map(|skill| skill.name()).collect();
    let files: BTreeSet<&str> = catalog
        .get("with-file")
        .unwrap()
        .all_files()
        .map(|file| file.relative_path())
        .collect();
    assert_eq!(names, ["with-file", "write-skill-md"]);
    assert_eq!(files, BTreeSet::from(["SKILL.md", "notes.md"]));

    let errors: Errors = Catalog::new([Skill::from_static("no frontmatter")]).unwrap_err();
    let first: &Error = &errors.as_slice()[0];
    assert!(matches!(first.kind(), ErrorKind::FrontmatterMissing));

    #[cfg(feature = "mcp")]
    assert_eq!(
        mcp::McpSkills::new(catalog.clone())
            .list_skills(None)
            .unwrap()
            .skills
            .len(),
        2
    );
    #[cfg(feature = "client")]
    {
        let index_url = url::Url::parse("https://example.com/.well-known/agent-skills/index.json");
        let body = catalog.index().bytes();
        assert_eq!(
            client::index::parse(&index_url.unwrap(), body)
                .unwrap()
                .entries()
                .len(),
            2
        );
    }
    #[cfg(feature = "check")]
    assert_eq!(check::CheckKind::EntryDigest.code(), "entry.digest");
    #[cfg(feature = "testing")]
    testing::assert_conforms(Router::new().merge(web::router(catalog))).await;
}
