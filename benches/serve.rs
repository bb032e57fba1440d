//! What start-up and a request cost: building the catalog of the demo's skills (and of every
//! example skill, with the archives of the multi-file one), and answering through the router
//! (a route match and a copy of prepared headers, no hashing or formatting).
//!
//! ```sh
//! cargo bench --bench serve
//! ```

use std::hint::black_box;

use axum::Router;
use axum::body::Body;
use criterion::{Criterion, criterion_group, criterion_main};
use http::Request;
use skillpub::{Catalog, Skill};
use tower::ServiceExt;

static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

fn catalog() -> Catalog {
    Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD]).unwrap()
}

fn start_up(c: &mut Criterion) {
    c.bench_function("catalog/build_two_skills", |b| {
        b.iter(|| black_box(catalog()))
    });
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");
    let folder = skillpub::model::read_skills_folder(examples).unwrap();
    c.bench_function("catalog/build_examples_with_archives", |b| {
        b.iter(|| black_box(folder.catalog().unwrap()))
    });
    c.bench_function("router/build_two_skills", |b| {
        b.iter(|| black_box(skillpub::web::router::<()>(catalog())))
    });
}

fn requests(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let app: Router = skillpub::web::router(catalog());
    let skill_md = "/.well-known/agent-skills/write-skill-md/SKILL.md";
    let etag = format!(
        "\"{}\"",
        catalog().get("write-skill-md").unwrap().skill_md().digest()
    );
    let cases: [(&str, &str, Option<&str>); 4] = [
        ("router/get_index", skillpub::model::INDEX_PATH, None),
        ("router/get_skill_md", skill_md, None),
        ("router/not_modified", skill_md, Some(&etag)),
        (
            "router/not_found",
            "/.well-known/agent-skills/nope/SKILL.md",
            None,
        ),
    ];
    for (name, path, if_none_match) in cases {
        c.bench_function(name, |b| {
            b.iter(|| {
                let mut request = Request::get(path);
                if let Some(etag) = if_none_match {
                    request = request.header("if-none-match", etag);
                }
                let request = request.body(Body::empty()).unwrap();
                let response = runtime.block_on(app.clone().oneshot(request)).unwrap();
                black_box(response)
            })
        });
    }
}

criterion_group!(benches, start_up, requests);
criterion_main!(benches);
