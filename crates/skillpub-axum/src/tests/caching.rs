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

/// A miss at an addressed path is never stored, whatever the error knob says: during a
/// rolling deploy it lasts only until this replica has the bytes. A canonical miss keeps the
/// knob, and so does every other error at an addressed path that is served.
#[tokio::test]
async fn a_miss_at_an_addressed_path_is_never_stored() {
    let catalog = catalog();
    let skill_md = catalog.get("greeting").unwrap().skill_md().clone();
    let app: Router = RouterBuilder::new(catalog)
        .error_cache_control(HeaderValue::from_static("public, max-age=600"))
        .build();
    let unknown = skillpub_core::paths::addressed_path(
        skill_md.path(),
        skillpub_core::Digest::of(b"bytes no replica has yet"),
    )
    .unwrap();
    for method in [Method::GET, Method::HEAD, Method::DELETE] {
        let missing = send(app.clone(), method.clone(), &unknown, &[]).await;
        assert_eq!(missing.status, StatusCode::NOT_FOUND, "{method}");
        assert_eq!(header(&missing, CACHE_CONTROL), "no-store", "{method}");
    }
    let canonical = send(app.clone(), Method::GET, "/.well-known/agent-skills/x", &[]).await;
    assert_eq!(header(&canonical, CACHE_CONTROL), "public, max-age=600");
    let served = skill_md.addressed_path().unwrap();
    let not_allowed = send(app.clone(), Method::DELETE, served, &[]).await;
    assert_eq!(not_allowed.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(&not_allowed, CACHE_CONTROL), "public, max-age=600");
    let preflight = send(app, Method::OPTIONS, &unknown, &[]).await;
    assert_eq!(preflight.status, StatusCode::NO_CONTENT);
}
