//! The `Link` header layer.

use super::*;
use crate::AgentSkillsLinkLayer;
use axum::routing::get;

const LINK: &str =
    "</.well-known/agent-skills/index.json>; rel=\"agent-skills\"; type=\"application/json\"";

fn app(layer: AgentSkillsLinkLayer) -> Router {
    Router::new()
        .route("/", get(|| async { axum::response::Html("<h1>Home</h1>") }))
        .route(
            "/api",
            get(|| async { ([("content-type", "application/json")], "{\"ok\":true}") }),
        )
        .merge(router(catalog()))
        .layer(layer)
}

fn links(answer: &Answer) -> Vec<&str> {
    answer
        .headers
        .get_all(http::header::LINK)
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect()
}

#[tokio::test]
async fn every_response_gets_the_link_by_default() {
    for path in ["/", "/api", INDEX] {
        let answer = send(app(AgentSkillsLinkLayer::all()), Method::GET, path, &[]).await;
        assert_eq!(links(&answer), [LINK], "{path}");
    }
}

#[tokio::test]
async fn html_only_skips_everything_but_pages() {
    let layer = AgentSkillsLinkLayer::html_only();
    assert_eq!(
        links(&send(app(layer.clone()), Method::GET, "/", &[]).await),
        [LINK]
    );
    assert!(links(&send(app(layer.clone()), Method::GET, "/api", &[]).await).is_empty());
    assert!(links(&send(app(layer), Method::GET, INDEX, &[]).await).is_empty());
}

#[tokio::test]
async fn a_predicate_and_another_index_url_can_be_given() {
    let layer = AgentSkillsLinkLayer::when(|status, _| status.is_success())
        .index_url("/docs/.well-known/agent-skills/index.json")
        .unwrap();
    let answer = send(app(layer.clone()), Method::GET, "/", &[]).await;
    assert_eq!(
        links(&answer),
        [
            "</docs/.well-known/agent-skills/index.json>; rel=\"agent-skills\"; type=\"application/json\""
        ]
    );
    let missing = send(app(layer), Method::GET, "/nope", &[]).await;
    assert!(links(&missing).is_empty());
    assert!(AgentSkillsLinkLayer::all().index_url("/a>b").is_err());
    assert!(AgentSkillsLinkLayer::all().index_url("/a b").is_err());
    assert!(AgentSkillsLinkLayer::all().index_url("/a\"b").is_err());
    assert!(
        AgentSkillsLinkLayer::all()
            .index_url("https://example.com/a%20b/index.json")
            .is_ok()
    );
}

#[tokio::test]
async fn an_existing_identical_link_is_not_repeated() {
    let twice = Router::new()
        .route("/", get(|| async { "x" }))
        .layer(AgentSkillsLinkLayer::all())
        .layer(AgentSkillsLinkLayer::all());
    let answer = send(twice, Method::GET, "/", &[]).await;
    assert_eq!(links(&answer), [LINK]);
}
