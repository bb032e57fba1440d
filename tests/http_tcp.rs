//! The HTTP policy over real TCP on 127.0.0.1, as a client sees it on the wire.

mod common;

use axum::extract::State;
use axum::{Router, routing::get};
use common::{Wire, example_catalog, request, serve};
use skillpub::Catalog;
use skillpub::model::{Digest, INDEX_PATH};

const PATHS_THAT_DO_NOT: [&str; 11] = [
    "/.well-known/agent-skills/no-such-skill/SKILL.md",
    "/.well-known/agent-skills/write-skill-md/skill.md",
    "/.well-known/agent-skills/Write-Skill-MD/SKILL.md",
    "/.well-known/agent-skills/Index.json",
    "/.well-known/agent-skills/index.json/",
    "/.well-known/agent-skills/write-skill-md/",
    "/.well-known/agent-skills/",
    "/.well-known/agent-skills/write-skill-md/../write-skill-md/SKILL.md",
    "/.well-known/agent-skills/write-skill-md/%2e%2e/write-skill-md/SKILL.md",
    "/.well-known/agent-skills/%2e%2e/agent-skills/index.json",
    "/.well-known/agent-skills/write-skill-md%2fSKILL.md",
];

/// Every example skill, the multi-file one included, read from disk.
fn full_catalog() -> Catalog {
    Catalog::from_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills")).unwrap()
}

/// Every published path with its media type: the index, each `SKILL.md`, each supporting file
/// and both archives of the multi-file skill.
fn published() -> Vec<(String, &'static str)> {
    let paths: Vec<_> = full_catalog()
        .artifacts()
        .map(|a| (a.path().to_owned(), a.media_type()))
        .collect();
    assert!(paths.iter().any(|(p, _)| p.ends_with(".tar.gz")));
    assert!(
        paths
            .iter()
            .any(|(p, _)| p.ends_with("/scripts/check-index.sh"))
    );
    paths
}

async fn app_addr() -> std::net::SocketAddr {
    serve(Router::new().merge(skillpub::web::router(full_catalog()))).await
}

fn assert_common_headers(wire: &Wire) {
    assert_eq!(wire.header("access-control-allow-origin"), Some("*"));
    assert_eq!(wire.header("access-control-expose-headers"), Some("ETag"));
    assert_eq!(wire.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(
        wire.header("content-security-policy"),
        Some("default-src 'none'; sandbox")
    );
    assert!(wire.header("cache-control").is_some());
}

/// Sends GET and HEAD and checks that they agree on the wire.
async fn get_and_head(addr: std::net::SocketAddr, path: &str, headers: &[(&str, &str)]) -> Wire {
    let get = request(addr, "GET", path, headers).await;
    let head = request(addr, "HEAD", path, headers).await;
    assert_eq!(get.status, head.status, "{path}");
    assert_eq!(get.headers, head.headers, "{path}");
    assert!(head.body.is_empty(), "{path}: HEAD sent a body");
    assert!(get.header("transfer-encoding").is_none(), "{path}: chunked");
    get
}

#[tokio::test]
async fn every_published_path_answers_get_and_head_alike() {
    let addr = app_addr().await;
    for (path, media_type) in published() {
        let wire = get_and_head(addr, &path, &[]).await;
        assert_eq!(wire.status, 200, "{path}");
        assert_eq!(wire.header("content-type"), Some(media_type), "{path}");
        assert_eq!(
            wire.header("content-length"),
            Some(wire.body.len().to_string().as_str())
        );
        assert_eq!(wire.header("cache-control"), Some("public, max-age=300"));
        assert_eq!(
            wire.header("etag"),
            Some(format!("\"{}\"", Digest::of(&wire.body)).as_str())
        );
        assert_common_headers(&wire);
    }
}

#[tokio::test]
async fn every_unknown_path_is_a_json_404_for_get_and_head() {
    let addr = app_addr().await;
    for path in PATHS_THAT_DO_NOT {
        let wire = get_and_head(addr, path, &[]).await;
        assert_eq!(wire.status, 404, "{path}");
        assert_eq!(
            wire.header("content-type"),
            Some("application/json"),
            "{path}"
        );
        assert_eq!(
            wire.header("content-length"),
            Some(wire.body.len().to_string().as_str())
        );
        assert_eq!(wire.header("cache-control"), Some("public, max-age=10"));
        let body: serde_json::Value = serde_json::from_slice(&wire.body).unwrap();
        assert_eq!(body["error"], "not_found");
        assert_common_headers(&wire);
    }
}

#[tokio::test]
async fn other_methods_get_405_with_allow() {
    let addr = app_addr().await;
    for (path, _) in published() {
        let path = path.as_str();
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let wire = request(addr, method, path, &[("content-length", "0")]).await;
            assert_eq!(wire.status, 405, "{method} {path}");
            assert_eq!(wire.header("allow"), Some("GET, HEAD, OPTIONS"));
            assert_eq!(wire.header("content-type"), Some("application/json"));
            assert_common_headers(&wire);
        }
    }
}

#[tokio::test]
async fn preflight_gets_204_with_methods_and_max_age() {
    let addr = app_addr().await;
    for (path, _) in published() {
        let path = path.as_str();
        let wire = request(
            addr,
            "OPTIONS",
            path,
            &[
                ("origin", "https://agent.example"),
                ("access-control-request-method", "GET"),
            ],
        )
        .await;
        assert_eq!(wire.status, 204, "{path}");
        assert_eq!(
            wire.header("access-control-allow-methods"),
            Some("GET, HEAD, OPTIONS")
        );
        assert_eq!(wire.header("access-control-max-age"), Some("86400"));
        assert!(
            wire.header("content-length").is_none(),
            "204 must not carry Content-Length"
        );
        assert_common_headers(&wire);
    }
}

#[tokio::test]
async fn etag_revalidation_gives_304_with_caching_and_cors() {
    let addr = app_addr().await;
    for (path, _) in published() {
        let path = path.as_str();
        let etag = request(addr, "GET", path, &[])
            .await
            .header("etag")
            .unwrap()
            .to_owned();
        let wire = get_and_head(addr, path, &[("if-none-match", &etag)]).await;
        assert_eq!(wire.status, 304, "{path}");
        assert!(wire.body.is_empty());
        assert_eq!(wire.header("etag"), Some(etag.as_str()));
        assert_eq!(wire.header("cache-control"), Some("public, max-age=300"));
        assert_common_headers(&wire);
    }
}

#[tokio::test]
async fn index_digests_equal_the_sha256_of_the_bodies_served() {
    let addr = app_addr().await;
    let index: serde_json::Value =
        serde_json::from_slice(&request(addr, "GET", INDEX_PATH, &[]).await.body).unwrap();
    let skills = index["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 3);
    assert!(skills.iter().any(|entry| entry["type"] == "archive"));
    for entry in skills {
        let url = entry["url"].as_str().unwrap();
        let wire = request(addr, "GET", url, &[]).await;
        assert_eq!(wire.status, 200, "{url}");
        assert_eq!(entry["digest"], Digest::of(&wire.body).to_string(), "{url}");
    }
}

#[derive(Clone)]
struct AppState {
    greeting: &'static str,
}

#[tokio::test]
async fn the_router_merges_into_an_app_with_its_own_routes_and_state() {
    let app = Router::new()
        .route(
            "/hello",
            get(|State(state): State<AppState>| async move { state.greeting }),
        )
        .merge(skillpub::web::router::<AppState>(example_catalog()))
        .with_state(AppState {
            greeting: "hello from the app",
        });
    let addr = serve(app).await;
    let hello = request(addr, "GET", "/hello", &[]).await;
    assert_eq!(hello.body, b"hello from the app");
    let index = request(addr, "GET", INDEX_PATH, &[]).await;
    assert_eq!(index.status, 200);
    let elsewhere = request(addr, "GET", "/not-a-route", &[]).await;
    assert_eq!(elsewhere.status, 404);
    assert!(
        elsewhere.header("access-control-allow-origin").is_none(),
        "the app's own 404 is untouched"
    );
}
