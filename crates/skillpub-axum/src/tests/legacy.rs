//! The legacy layout, `/.well-known/skills/`.

use super::*;

#[tokio::test]
async fn the_legacy_layout_is_served_when_enabled() {
    let mut builder = Catalog::builder();
    builder
        .skill(Skill::from_static(GREETING))
        .legacy_index(true)
        .api_catalog(true);
    let app: Router = router(builder.build().unwrap());
    let index = send(
        app.clone(),
        Method::GET,
        "/.well-known/skills/index.json",
        &[],
    )
    .await;
    assert_eq!(index.status, StatusCode::OK);
    assert_eq!(header(&index, CONTENT_TYPE), "application/json");
    let skill = send(
        app.clone(),
        Method::GET,
        "/.well-known/skills/greeting/SKILL.md",
        &[],
    )
    .await;
    assert_eq!(skill.body, GREETING.as_bytes());
    let missing = send(
        app.clone(),
        Method::GET,
        "/.well-known/skills/nope/SKILL.md",
        &[],
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_common_headers(&missing);
    let catalog = send(app, Method::GET, "/.well-known/api-catalog", &[]).await;
    assert_eq!(catalog.status, StatusCode::OK);
    assert!(header(&catalog, CONTENT_TYPE).starts_with("application/linkset+json"));
}

#[tokio::test]
async fn the_legacy_folder_is_left_to_the_app_when_disabled() {
    let answer = send(app(), Method::GET, "/.well-known/skills/index.json", &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(
        !answer.headers.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN),
        "axum's own 404"
    );
}
