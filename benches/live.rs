//! What a live catalog costs: a request through a live router next to the same request
//! through the static router (same run, same catalog), and a swap of a 1,000-skill catalog
//! next to building it.
//!
//! ```sh
//! cargo bench --bench live --features mcp
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use criterion::Criterion;
use http::Request;
use skillpub::model::LiveCatalog;
use skillpub::{Catalog, Skill};
use tower::ServiceExt;

static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

fn catalog() -> Catalog {
    Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD]).unwrap()
}

const CASES: [(&str, &str); 4] = [
    ("get_index", skillpub::model::INDEX_PATH),
    (
        "get_skill_md",
        "/.well-known/agent-skills/write-skill-md/SKILL.md",
    ),
    ("not_found", "/.well-known/agent-skills/nope/SKILL.md"),
    (
        "get_added_skill_md",
        "/.well-known/agent-skills/verify-skill-digests/SKILL.md",
    ),
];

fn request(runtime: &tokio::runtime::Runtime, app: &Router, path: &str) {
    let request = Request::get(path).body(Body::empty()).unwrap();
    black_box(runtime.block_on(app.clone().oneshot(request)).unwrap());
}

fn batch(runtime: &tokio::runtime::Runtime, app: &Router, path: &str, n: u64) -> Duration {
    let started = Instant::now();
    for _ in 0..n {
        request(runtime, app, path);
    }
    started.elapsed()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let fixed: Router = skillpub::web::router(catalog());
    let handle = LiveCatalog::new(Catalog::new([&WRITE_SKILL_MD]).unwrap());
    let live: Router = skillpub::web::live_router(handle.clone());
    handle.replace(catalog());
    for (name, path) in CASES {
        let mut ratios: Vec<f64> = (0..2001)
            .map(|round| {
                let (a, b) = if round % 2 == 0 {
                    let a = batch(&runtime, &fixed, path, 200);
                    (a, batch(&runtime, &live, path, 200))
                } else {
                    let b = batch(&runtime, &live, path, 200);
                    (batch(&runtime, &fixed, path, 200), b)
                };
                b.as_secs_f64() / a.as_secs_f64()
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        println!(
            "{name}: live/static median {:.4} (quartiles {:.4} {:.4})",
            ratios[1000], ratios[500], ratios[1500]
        );
    }
    let _ = Criterion::default;
}
