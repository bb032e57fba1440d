//! In-process conformance: the checks of `skillpub check`, run against a router with no
//! network, as users run them in their own tests.

mod common;

use axum::Router;
use axum::routing::get;
use common::example_catalog;
use skillpub_check::testing::{
    assert_conforms, assert_conforms_at, check_service, check_service_at,
};
use skillpub_check::{CheckKind, Status};

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
    for (path, artifact) in catalog.served() {
        let (media_type, bytes) = (artifact.media_type(), artifact.bytes().clone());
        app = app.route(
            path,
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
    let failures: Vec<(&str, CheckKind)> = report
        .failures()
        .map(|check| (check.subject.as_str(), check.kind))
        .collect();
    assert_eq!(
        failures,
        [("site", CheckKind::SiteNotFoundProbe)],
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
    let failed = |subject: &str, kind| {
        report
            .failures()
            .any(|check| check.subject == subject && check.kind == kind)
    };
    assert!(failed("index", CheckKind::EncodingEtagReused), "{report}");
    let archive = report
        .failures()
        .find(|check| check.kind == CheckKind::EncodingArchiveEncoded)
        .unwrap_or_else(|| panic!("an encoded archive:\n{report}"));
    assert!(archive.message.contains("Content-Encoding: br"), "{report}");
    assert!(
        report
            .of(CheckKind::EntryDigest)
            .all(|check| check.status == Status::Ok),
        "the digests hold on the decoded bytes:\n{report}"
    );
}

/// The demo's skills with relative `url`s, nested under `/tenant` in an app whose other paths
/// all answer with its page.
fn tenant_app() -> Router {
    let mut builder = skillpub::Catalog::builder();
    builder
        .url_style(skillpub_core::index::UrlStyle::Relative)
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
    let resolved: Vec<&str> = report
        .of(CheckKind::EntryFields)
        .map(|check| check.message.as_str())
        .collect();
    assert_eq!(resolved.len(), 2, "{report}");
    for message in resolved {
        assert!(
            message.contains("http://skillpub.test/tenant/.well-known/agent-skills/"),
            "{report}"
        );
    }
    let root = check_service(tenant_app()).await;
    assert!(!root.passed(), "the root has no index:\n{root}");
}
