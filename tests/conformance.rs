//! In-process conformance: the checks of `skillpub check`, run against a router with no
//! network, as users run them in their own tests.

mod common;

use axum::Router;
use axum::routing::get;
use common::example_catalog;
use skillpub_client::Status;
use skillpub_client::testing::{
    assert_conforms, assert_conforms_at, check_service, check_service_at,
};

#[tokio::test]
async fn the_router_passes_every_check_in_process() {
    let app = Router::new()
        .route("/", get(|| async { "home" }))
        .merge(skillpub::web::router(
            skillpub::Catalog::from_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills"))
                .unwrap(),
        ));
    assert_conforms(app).await;
}

#[tokio::test]
async fn the_report_has_no_warnings_for_the_demo() {
    let report = check_service(Router::new().merge(skillpub::web::router(example_catalog()))).await;
    assert!(report.passed(), "{report}");
    assert_eq!(report.count(Status::Warn), 0, "{report}");
    assert!(report.count(Status::Ok) > 10, "{report}");
}

/// A hand-made app that serves the right bytes but answers every unknown path with its page,
/// as single-page apps do.
fn single_page_app() -> Router {
    let catalog = example_catalog();
    let mut app = Router::new();
    for artifact in catalog.artifacts() {
        let (media_type, bytes) = (artifact.media_type(), artifact.bytes().clone());
        app = app.route(
            artifact.path(),
            get(move || async move { ([("content-type", media_type)], bytes) }),
        );
    }
    app.fallback(|| async { axum::response::Html("<html>app</html>") })
}

#[tokio::test]
async fn an_app_that_hides_missing_files_behind_a_page_fails() {
    let app = single_page_app();
    let report = check_service(app).await;
    assert!(!report.passed());
    let failure = report.failures().next().unwrap();
    assert_eq!(failure.subject, "site");
    assert!(
        failure
            .message
            .contains("does not exist answers 200 OK (text/html"),
        "{report}"
    );
}

#[tokio::test]
#[should_panic(expected = "the service does not conform")]
async fn assert_conforms_panics_with_the_whole_report() {
    assert_conforms(single_page_app()).await;
}

/// The skills behind an app-wide `CompressionLayer` as skillpub's router was before it served
/// its own encoded variants: it answers every request with the plain bytes and their strong
/// `ETag` (here because the `Accept-Encoding` is taken off before the router sees it), and the
/// layer compresses them under that `ETag` and gzips the archive a second time.
fn compressed_without_variants() -> Router {
    // The router of old: no variants of its own, and no `Content-Encoding: identity` label
    // that would make the layer leave its answers alone.
    let plain_router = skillpub::web::router(archive_catalog())
        .layer(tower::util::MapRequestLayer::new(
            |mut request: axum::extract::Request| {
                request.headers_mut().remove(http::header::ACCEPT_ENCODING);
                request
            },
        ))
        .layer(tower::util::MapResponseLayer::new(
            |mut response: axum::response::Response| {
                response
                    .headers_mut()
                    .remove(http::header::CONTENT_ENCODING);
                response
            },
        ));
    Router::new()
        .merge(plain_router)
        .layer(tower_http::compression::CompressionLayer::new())
}

/// The demo's skills, the multi-file one listed as its `.tar.gz`.
fn archive_catalog() -> skillpub::Catalog {
    skillpub::Catalog::from_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills")).unwrap()
}

#[tokio::test]
async fn a_compression_layer_that_shares_etags_and_encodes_archives_fails() {
    let report = check_service(compressed_without_variants()).await;
    assert!(!report.passed());
    let failures: Vec<String> = report
        .failures()
        .map(|check| format!("{}: {}", check.subject, check.message))
        .collect();
    assert!(
        failures.iter().any(|f| f.starts_with(
            "index: the br-encoded answer and the answer without Accept-Encoding carry the same strong ETag"
        )),
        "{report}"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.contains(": the archive arrives with Content-Encoding: br")),
        "{report}"
    );
    assert!(
        !report.to_string().contains("digest drift"),
        "the digests hold on the decoded bytes:\n{report}"
    );
}

/// The demo's skills with relative `url`s, nested under `/tenant` in an app whose other paths
/// all answer with its page.
fn tenant_app() -> Router {
    let mut builder = skillpub::Catalog::builder();
    builder
        .url_style(skillpub_core::UrlStyle::Relative)
        .skills([&common::VERIFY_SKILL_DIGESTS, &common::WRITE_SKILL_MD]);
    let skills = skillpub::web::router(builder.build().unwrap());
    Router::new()
        .nest("/tenant", skills)
        .fallback(|| async { axum::response::Html("<html>app</html>") })
}

#[tokio::test]
async fn a_router_nested_under_a_prefix_conforms_there() {
    assert_conforms_at(tenant_app(), "/tenant").await;
    let report = check_service_at(tenant_app(), "/tenant/").await;
    assert_eq!(report.count(Status::Warn), 0, "{report}");
    assert!(
        report
            .to_string()
            .contains("url resolves to http://skillpub.test/tenant/.well-known/agent-skills/"),
        "{report}"
    );
    let root = check_service(tenant_app()).await;
    assert!(!root.passed(), "the root has no index:\n{root}");
}
