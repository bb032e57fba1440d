//! In-process conformance: the checks of `skillpub check`, run against a router with no
//! network, as users run them in their own tests.

mod common;

use axum::Router;
use axum::routing::get;
use common::example_catalog;
use skillpub_check::testing::{
    BearerToken, TestOptions, assert_conforms, assert_conforms_at, assert_conforms_with,
    check_service, check_service_at, check_service_with,
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

const TOKEN: &str = "t0ken-for-tests";

/// The demo's skills for callers with the bearer token only (a hand-made auth layer that
/// answers 401 with a challenge), every answer, the 401 included, with the private policy when
/// `private`, else with the router's public one.
fn private_app(private: bool) -> Router {
    use axum::http::{HeaderValue, StatusCode, header};
    use axum::response::IntoResponse;
    let guard = axum::middleware::from_fn(
        |request: axum::extract::Request, next: axum::middleware::Next| async move {
            let expected = HeaderValue::from_static("Bearer t0ken-for-tests");
            if request.headers().get(header::AUTHORIZATION) == Some(&expected) {
                return next.run(request).await;
            }
            let challenge = [(header::WWW_AUTHENTICATE, r#"Bearer realm="agent-skills""#)];
            (StatusCode::UNAUTHORIZED, challenge, "log in").into_response()
        },
    );
    let skills = skillpub::web::router(example_catalog()).layer(guard);
    if !private {
        return skills;
    }
    skills.layer(axum::middleware::map_response(
        |mut response: axum::response::Response| async move {
            let headers = response.headers_mut();
            let policy = HeaderValue::from_static("private, no-cache, no-transform");
            headers.insert(header::CACHE_CONTROL, policy);
            headers.append(header::VARY, HeaderValue::from_static("Authorization"));
            headers.remove(header::ACCESS_CONTROL_ALLOW_ORIGIN);
            response
        },
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_catalog_conforms_with_its_token_and_asks_others_to_log_in() {
    let token = BearerToken::new(TOKEN).unwrap();
    let options = TestOptions::new().bearer(&token).private();
    assert_conforms_with(private_app(true), &options).await;
    let report = check_service_with(private_app(true), &TestOptions::new()).await;
    let failures: Vec<&str> = report.failures().map(|check| check.code()).collect();
    assert_eq!(failures, ["auth.required"], "{report}");
    // The private switch alone: the 401 itself must be private.
    let report = check_service_with(private_app(true), &TestOptions::new().private()).await;
    assert_eq!(
        report.of(CheckKind::PrivatePublic).next().unwrap().status,
        Status::Ok
    );
}

#[tokio::test(flavor = "multi_thread")]
#[should_panic(expected = "FAIL  private.public")]
async fn a_private_catalog_served_public_does_not_conform() {
    let token = BearerToken::new(TOKEN).unwrap();
    assert_conforms_with(private_app(false), &TestOptions::new().bearer(&token)).await;
}
