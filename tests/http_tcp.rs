//! The HTTP policy over real TCP on 127.0.0.1, as a client sees it on the wire.

mod common;

use std::collections::{HashMap, HashSet};

use axum::extract::State;
use axum::{Router, routing::get};
use common::example_catalog;
use skillpub::Catalog;
use skillpub::model::{
    Digest,
    index::UrlStyle,
    paths::{BasePath, INDEX_PATH},
};
use skillpub::web::AgentSkillsLinkLayer;
use skillpub_testkit::{Response, decode, request, serve};

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

fn assert_common_headers(wire: &Response) {
    assert_eq!(wire.header("access-control-allow-origin"), Some("*"));
    assert_eq!(wire.header("access-control-expose-headers"), Some("ETag"));
    assert_eq!(wire.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(
        wire.header("content-security-policy"),
        Some("default-src 'none'; sandbox")
    );
    assert!(wire.header("cache-control").is_some());
}

/// Sends GET and HEAD, checks that they agree on the wire, and that the body is not chunked.
async fn get_and_head(
    addr: std::net::SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> Response {
    let get = skillpub_testkit::get_and_head(addr, path, headers).await;
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
        assert_eq!(
            wire.header("cache-control"),
            Some("public, no-cache, no-transform")
        );
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
        assert_eq!(
            wire.header("cache-control"),
            Some("public, no-cache, no-transform")
        );
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

/// The bytes a client gets after removing the `Content-Encoding` the wire names.
fn decoded(wire: &Response) -> Vec<u8> {
    decode(wire.header("content-encoding"), &wire.body)
}

/// A page of the host app, long enough for the compression layer to compress it.
const PAGE: &str =
    "<!doctype html><title>Home</title><p>Welcome to the app, which also publishes its skills.</p>";

/// A host app as most axum apps are built: its own page, the skills (merged, or nested and
/// linked from the page), and tower-http's `CompressionLayer` (gzip and brotli) around
/// everything.
fn compressed_app(skills: impl FnOnce(Router) -> Router) -> Router {
    let page = Router::new().route("/", get(|| async { axum::response::Html(PAGE.repeat(4)) }));
    skills(page).layer(tower_http::compression::CompressionLayer::new())
}

/// What clients send: nothing (curl), Node's fetch, a browser, one coding, identity only,
/// a coding nobody here makes, anything.
const ACCEPT_ENCODINGS: [Option<&str>; 8] = [
    None,
    Some("gzip, deflate, br"),
    Some("gzip, deflate, br, zstd"),
    Some("gzip"),
    Some("br"),
    Some("identity"),
    Some("zstd"),
    Some("*"),
];

#[tokio::test]
async fn under_an_app_wide_compression_layer_every_artifact_verifies_and_etags_stay_distinct() {
    let catalog = full_catalog();
    let addr = serve(compressed_app(|app| {
        app.merge(skillpub::web::router(catalog.clone()))
    }))
    .await;

    // The layer is active: the app's own page arrives compressed (and chunked).
    let page = request(addr, "GET", "/", &[("accept-encoding", "gzip")]).await;
    assert_eq!(page.header("content-encoding"), Some("gzip"));
    assert_eq!(page.header("transfer-encoding"), Some("chunked"));

    let mut sent: HashMap<String, Vec<u8>> = HashMap::new();
    let mut codings_seen = HashSet::new();
    for artifact in catalog.artifacts() {
        let path = artifact.path();
        let archive = matches!(
            artifact.media_type(),
            "application/gzip" | "application/zip"
        );
        for accept in ACCEPT_ENCODINGS {
            let headers: Vec<(&str, &str)> =
                accept.map(|a| ("accept-encoding", a)).into_iter().collect();
            let wire = get_and_head(addr, path, &headers).await;
            assert_eq!(wire.status, 200, "{path} {accept:?}");
            assert_eq!(
                wire.header("content-length"),
                Some(wire.body.len().to_string().as_str()),
                "{path} {accept:?}"
            );
            let coding = wire.header("content-encoding");
            let named = coding.expect("every answer names its coding, so no layer recodes it");
            if archive {
                assert_eq!(named, "identity", "{path} {accept:?}");
            }
            codings_seen.insert(named.to_owned());
            assert_eq!(
                Digest::of(&decoded(&wire)),
                artifact.digest(),
                "{path} {accept:?}"
            );

            // One strong ETag, one byte sequence, across every coding and request.
            let etag = wire.header("etag").unwrap().to_owned();
            let first = sent
                .entry(etag.clone())
                .or_insert_with(|| wire.body.clone());
            assert_eq!(
                *first, wire.body,
                "{path}: {etag} was sent with two byte sequences"
            );

            // The variant revalidates with its own tag, and keeps its coding on the 304.
            let mut conditional = headers.clone();
            conditional.push(("if-none-match", &etag));
            let revalidated = get_and_head(addr, path, &conditional).await;
            assert_eq!(revalidated.status, 304, "{path} {accept:?}");
            assert_eq!(revalidated.header("etag"), Some(etag.as_str()));
            assert_eq!(
                revalidated.header("content-encoding"),
                coding,
                "{path} {accept:?}"
            );
        }
    }
    assert_eq!(
        codings_seen,
        HashSet::from(["identity", "gzip", "br"].map(String::from))
    );

    // The index's digests are those of the decoded bytes of each entry.
    let index = request(addr, "GET", INDEX_PATH, &[("accept-encoding", "br")]).await;
    assert_eq!(index.header("content-encoding"), Some("br"));
    let index: serde_json::Value = serde_json::from_slice(&decoded(&index)).unwrap();
    for entry in index["skills"].as_array().unwrap() {
        let url = entry["url"].as_str().unwrap();
        let wire = request(
            addr,
            "GET",
            url,
            &[("accept-encoding", "gzip, deflate, br")],
        )
        .await;
        assert_eq!(
            entry["digest"],
            Digest::of(&decoded(&wire)).to_string(),
            "{url}"
        );
    }
}

#[tokio::test]
async fn under_an_app_wide_compression_layer_errors_and_preflights_stay_alike_for_get_and_head() {
    let addr = serve(compressed_app(|app| {
        app.merge(skillpub::web::router(full_catalog()))
    }))
    .await;
    let accept = [("accept-encoding", "gzip, deflate, br")];
    for path in PATHS_THAT_DO_NOT {
        let wire = get_and_head(addr, path, &accept).await;
        assert_eq!(wire.status, 404, "{path}");
        assert_eq!(wire.header("content-encoding"), Some("identity"), "{path}");
        let body: serde_json::Value = serde_json::from_slice(&wire.body).unwrap();
        assert_eq!(body["error"], "not_found");
    }
    let failed = get_and_head(addr, INDEX_PATH, &[accept[0], ("if-match", "\"x\"")]).await;
    assert_eq!(failed.status, 412);
    assert_eq!(failed.header("content-encoding"), Some("identity"));
    let refused = request(
        addr,
        "POST",
        INDEX_PATH,
        &[accept[0], ("content-length", "0")],
    )
    .await;
    assert_eq!(refused.status, 405);
    assert_eq!(refused.header("content-encoding"), Some("identity"));
    for path in [
        INDEX_PATH,
        "/.well-known/agent-skills/publish-agent-skills.tar.gz",
    ] {
        let refused = get_and_head(addr, path, &[("accept-encoding", "*;q=0")]).await;
        assert_eq!(refused.status, 406, "{path}");
        assert_eq!(refused.header("content-encoding"), Some("identity"));
        assert_eq!(refused.header("vary"), Some("Accept-Encoding"));
        assert!(refused.header("etag").is_none());
    }
    let preflight = request(addr, "OPTIONS", INDEX_PATH, &accept).await;
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.header("content-encoding"), Some("identity"));
    assert!(preflight.body.is_empty());
}

/// The example skills with relative `url`s, which resolve under any prefix.
/// The example skills, for a router nested under `/tenant`: with relative `url`s, or with
/// path-absolute ones that carry the base path.
fn nested_catalog(style: UrlStyle, base_path: &str) -> Catalog {
    let folder = skillpub::model::folder::read_skills_folder(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/skills"
    ))
    .unwrap();
    let mut builder = Catalog::builder();
    builder
        .skills(folder.skills().iter().map(|source| source.skill().clone()))
        .url_style(style)
        .base_path(base_path);
    builder.build().unwrap()
}

#[tokio::test]
async fn a_nested_router_with_relative_urls_is_found_through_the_link_and_every_entry_verifies() {
    nested_router_verifies(nested_catalog(UrlStyle::Relative, "")).await;
}

#[tokio::test]
async fn a_nested_router_with_a_base_path_is_found_through_the_link_and_every_entry_verifies() {
    nested_router_verifies(nested_catalog(UrlStyle::PathAbsolute, "/tenant")).await;
}

async fn nested_router_verifies(catalog: Catalog) {
    let app = compressed_app(|app| {
        let tenant = BasePath::new("/tenant").expect("a base path");
        app.nest("/tenant", skillpub::web::router(catalog))
            .layer(AgentSkillsLinkLayer::html_only().base_path(&tenant))
    });
    let addr = serve(app).await;
    let origin = url::Url::parse(&format!("http://{addr}/")).unwrap();

    let page = request(addr, "GET", "/", &[]).await;
    let link = page.header("link").expect("the page links the index");
    let target = link
        .strip_prefix('<')
        .and_then(|l| l.split_once('>'))
        .unwrap()
        .0;
    assert_eq!(target, "/tenant/.well-known/agent-skills/index.json");

    let index_url = origin.join(target).unwrap();
    let index = request(
        addr,
        "GET",
        index_url.path(),
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(index.status, 200);
    let index: serde_json::Value = serde_json::from_slice(&decoded(&index)).unwrap();
    let entries = index["skills"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    for entry in entries {
        let url = index_url.join(entry["url"].as_str().unwrap()).unwrap();
        assert!(
            url.path().starts_with("/tenant/.well-known/agent-skills/"),
            "{url}"
        );
        let wire = request(
            addr,
            "GET",
            url.path(),
            &[("accept-encoding", "gzip, deflate, br")],
        )
        .await;
        assert_eq!(wire.status, 200, "{url}");
        assert_eq!(
            entry["digest"],
            Digest::of(&decoded(&wire)).to_string(),
            "{url}"
        );
    }
    let outside = request(addr, "GET", INDEX_PATH, &[]).await;
    assert_eq!(outside.status, 404);
}
