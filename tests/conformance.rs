//! In-process conformance: the checks of `skillpub check`, run against a router with no
//! network, as users run them in their own tests.

mod common;

use axum::Router;
use axum::routing::get;
use common::example_catalog;
use skillpub_client::Status;
use skillpub_client::testing::{assert_conforms, check_service};

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
