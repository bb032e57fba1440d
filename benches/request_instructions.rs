//! The instructions one request costs in the router, for callgrind: the load of a shared
//! machine moves wall-clock timings by tens of percent, instruction counts do not move.
//! Answers `COUNT` in-process requests of one `KIND` (through `oneshot`, as `benches/serve.rs`
//! does) after one warm-up request (which makes the `br` variant, for `br`); run it with
//! 0 and with N requests and divide the difference by N.
//!
//! ```sh
//! cargo bench --bench request_instructions --no-run
//! B=target/release/deps/request_instructions-<hash>
//! for kind in index index_not_modified skill_md addressed br not_modified not_found \
//!     index_with_credentials private_index callers_staff_index callers_public_index; do
//!   a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $B $kind 0 2>&1 | awk '/Collected/ {print $4}')
//!   b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $B $kind 2000 2>&1 | awk '/Collected/ {print $4}')
//!   echo "$kind $(( (b - a) / 2000 ))"
//! done
//! ```
//!
//! `index_with_credentials` is the index of the plain router asked with the request headers of
//! the private ones (`Origin`, `Authorization`), so that building them is counted alike;
//! `private_index` is the index of a router whose every view is private, asked from an
//! allowed origin (its answer names the origin back); `callers_staff_index` and
//! `callers_public_index` the index of a per-caller router (`Callers::by_extension`), for a
//! request whose extensions hold the staff key (the private view, from an allowed origin) and
//! for one without a key (the public view beside it).

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::Request;
use skillpub::web::{Callers, Private, RouterBuilder, Visibility};
use skillpub::{Catalog, Skill};
use tower::ServiceExt;

static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

/// The origin allowed to send credentials to the private views.
const APP: &str = "https://app.example.com";

/// The key of the staff view of the per-caller router.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Staff;

/// What a browser sends; the router answers it with brotli.
const BROWSER: &str = "gzip, deflate, br, zstd";

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_default();
    let count: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    if kind == "--bench" || kind.is_empty() {
        // Run by `cargo bench` with the bench harness's arguments: nothing to count.
        return;
    }
    let catalog = Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD]).unwrap();
    let skill_md = catalog.get("write-skill-md").unwrap().skill_md();
    let etag = format!("\"{}\"", skill_md.digest());
    let index_etag = format!("\"{}\"", catalog.index().digest());
    let canonical = skill_md.path().to_owned();
    let addressed = skillpub::model::paths::addressed_path(&canonical, skill_md.digest()).unwrap();
    let private = Private::new().allow_origins([APP]);
    let app: Router = match kind.as_str() {
        "private_index" => RouterBuilder::new(catalog)
            .private(private)
            .try_build()
            .unwrap(),
        "callers_staff_index" | "callers_public_index" => {
            let callers = Callers::by_extension::<Staff>()
                .catalog(Staff, Visibility::Private, catalog.clone())
                .default_catalog(Visibility::Public, catalog);
            RouterBuilder::callers(callers)
                .private(private)
                .try_build()
                .unwrap()
        }
        _ => skillpub::web::router(catalog),
    };
    let staff = kind == "callers_staff_index";
    let (path, headers): (String, Vec<(&str, String)>) = match kind.as_str() {
        "index" | "callers_public_index" => (skillpub::model::paths::INDEX_PATH.to_owned(), vec![]),
        "private_index" | "callers_staff_index" | "index_with_credentials" => (
            skillpub::model::paths::INDEX_PATH.to_owned(),
            vec![
                ("origin", APP.to_owned()),
                ("authorization", "Bearer staff".to_owned()),
            ],
        ),
        "skill_md" => (canonical, vec![]),
        "addressed" => (addressed, vec![]),
        "br" => (canonical, vec![("accept-encoding", BROWSER.to_owned())]),
        "not_modified" => (canonical, vec![("if-none-match", etag)]),
        "index_not_modified" => (
            skillpub::model::paths::INDEX_PATH.to_owned(),
            vec![("if-none-match", index_etag)],
        ),
        "not_found" => ("/.well-known/agent-skills/nope/SKILL.md".to_owned(), vec![]),
        other => {
            panic!(
                "unknown kind {other}: index, skill_md, addressed, br, not_modified, not_found, index_with_credentials, private_index, callers_staff_index, callers_public_index"
            )
        }
    };
    let request = || {
        let mut request = Request::get(path.as_str());
        for (name, value) in &headers {
            request = request.header(*name, value.as_str());
        }
        if staff {
            // What the app's auth middleware would have put in.
            request = request.extension(Staff);
        }
        request.body(Body::empty()).unwrap()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // The first request for `br` has its variant made on an encoder thread; the count starts
    // once it is.
    drop(runtime.block_on(app.clone().oneshot(request())).unwrap());
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..count {
        let response = runtime.block_on(app.clone().oneshot(request())).unwrap();
        std::hint::black_box(response);
    }
}
