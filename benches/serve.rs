//! What start-up and a request cost: building the catalog of the demo's skills (and of every
//! example skill, with the archives of the multi-file one), and answering through the router
//! (a route match and a copy of prepared headers, no hashing or formatting). The brotli and
//! gzip variants are made on the first request that asks for them: `first_request/*` is that
//! request (router built, variant not yet made), `router/get_skill_md_br` a later one.
//!
//! ```sh
//! cargo bench --bench serve
//! ```

use std::hint::black_box;

use axum::Router;
use axum::body::Body;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use http::Request;
use skillpub::{Catalog, Skill, SkillFile};
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
    let folder = skillpub::model::folder::read_skills_folder(examples).unwrap();
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
    let cases: [(&str, &str, Headers<'_>); 5] = [
        ("router/get_index", skillpub::model::paths::INDEX_PATH, &[]),
        ("router/get_skill_md", skill_md, &[]),
        ("router/get_skill_md_br", skill_md, &[BROWSER]),
        ("router/not_modified", skill_md, &[("if-none-match", &etag)]),
        (
            "router/not_found",
            "/.well-known/agent-skills/nope/SKILL.md",
            &[],
        ),
    ];
    for (name, path, headers) in cases {
        c.bench_function(name, |b| {
            b.iter(|| black_box(runtime.block_on(get(&app, path, headers))))
        });
    }
}

/// Request headers, name and value.
type Headers<'a> = &'a [(&'a str, &'a str)];

/// What a browser sends; the router answers it with brotli.
const BROWSER: (&str, &str) = ("accept-encoding", "gzip, deflate, br, zstd");

async fn get(app: &Router, path: &str, headers: Headers<'_>) -> http::Response<Body> {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(Body::empty()).unwrap();
    app.clone().oneshot(request).await.unwrap()
}

/// The first request for an encoded variant: it makes the variant. The router is built
/// fresh for each (not timed), so that every request timed is a first one.
fn first_requests(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let large = Skill::new(
        None,
        "---\nname: large\ndescription: One large reference.\n---\nSee references/large.md.\n",
    )
    .with_files(vec![SkillFile::new(
        "references/large.md",
        skillpub_testkit::varied_markdown(1 << 20),
        false,
    )]);
    let large = Catalog::new([large]).unwrap();
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");
    let examples = skillpub::model::folder::read_skills_folder(examples)
        .unwrap()
        .catalog()
        .unwrap();
    // The largest text artifact of the example skills (the archives are never encoded).
    let largest_example = examples
        .artifacts()
        .filter(|a| a.media_type().starts_with("text/"))
        .max_by_key(|a| a.len())
        .unwrap()
        .path()
        .to_owned();
    let cases = [
        (
            "first_request/br_1_mib_markdown",
            &large,
            "/.well-known/agent-skills/large/references/large.md",
            "br",
        ),
        (
            "first_request/gzip_1_mib_markdown",
            &large,
            "/.well-known/agent-skills/large/references/large.md",
            "gzip",
        ),
        (
            "first_request/br_largest_example",
            &examples,
            largest_example.as_str(),
            "br",
        ),
        (
            "first_request/gzip_largest_example",
            &examples,
            largest_example.as_str(),
            "gzip",
        ),
    ];
    let mut group = c.benchmark_group("first_request");
    group.sample_size(10);
    for (name, catalog, path, coding) in cases {
        group.bench_function(name.trim_start_matches("first_request/"), |b| {
            b.iter_batched(
                || skillpub::web::router::<()>(catalog.clone()),
                |app| {
                    let response =
                        runtime.block_on(get(&app, path, &[("accept-encoding", coding)]));
                    assert_eq!(response.headers()["content-encoding"], coding);
                    black_box(response)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, start_up, requests, first_requests);
criterion_main!(benches);
