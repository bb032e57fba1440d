//! `Cache-Control`, configured and by default.

use super::*;

#[tokio::test]
async fn cache_control_and_max_age_are_configurable() {
    let app: Router = RouterBuilder::new(catalog())
        .cache_control(HeaderValue::from_static("public, max-age=5"))
        .addressed_cache_control(HeaderValue::from_static("private, max-age=60"))
        .error_cache_control(HeaderValue::from_static("no-store"))
        .cors_max_age(Duration::from_secs(60))
        .build();
    let ok = send(app.clone(), Method::GET, SKILL, &[]).await;
    assert_eq!(header(&ok, CACHE_CONTROL), "public, max-age=5");
    let etag = header(&ok, ETAG).to_owned();
    let not_modified = send(app.clone(), Method::GET, SKILL, &[("if-none-match", &etag)]).await;
    assert_eq!(header(&not_modified, CACHE_CONTROL), "public, max-age=5");
    let addressed = header(&ok, http::header::CONTENT_LOCATION).to_owned();
    let at_address = send(app.clone(), Method::GET, &addressed, &[]).await;
    assert_eq!(header(&at_address, CACHE_CONTROL), "private, max-age=60");
    let revalidated = send(
        app.clone(),
        Method::GET,
        &addressed,
        &[("if-none-match", &etag)],
    )
    .await;
    assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED);
    assert_eq!(header(&revalidated, CACHE_CONTROL), "private, max-age=60");
    let missing = send(app.clone(), Method::GET, "/.well-known/agent-skills/x", &[]).await;
    assert_eq!(header(&missing, CACHE_CONTROL), "no-store");
    let preflight = send(app, Method::OPTIONS, SKILL, &[]).await;
    assert_eq!(header(&preflight, ACCESS_CONTROL_MAX_AGE), "60");
}

#[tokio::test]
async fn configured_cache_control_reaches_every_kind_of_answer() {
    let app: Router = RouterBuilder::new(catalog())
        .cache_control(HeaderValue::from_static("no-cache"))
        .error_cache_control(HeaderValue::from_static("no-store"))
        .build();
    let preflight = send(app.clone(), Method::OPTIONS, SKILL, &[]).await;
    assert_eq!(header(&preflight, CACHE_CONTROL), "no-cache");
    let not_allowed = send(app.clone(), Method::DELETE, SKILL, &[]).await;
    assert_eq!(header(&not_allowed, CACHE_CONTROL), "no-store");
    let failed = send(app, Method::GET, SKILL, &[("if-match", "\"x\"")]).await;
    assert_eq!(header(&failed, CACHE_CONTROL), "no-store");
}
