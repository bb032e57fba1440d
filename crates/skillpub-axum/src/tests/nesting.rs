//! A router nested under a path, and the `Link` to its index.

use super::*;
use skillpub_core::paths::{BasePath, BasePathProblem, InvalidBasePath};

use crate::AgentSkillsLinkLayer;

#[tokio::test]
async fn the_link_points_at_the_nested_index() {
    let mut builder = Catalog::builder();
    builder
        .skill(Skill::from_static(GREETING))
        .url_style(skillpub_core::index::UrlStyle::Relative)
        .base_path("/tenant");
    let catalog = builder.build().unwrap();
    let app: Router = Router::new()
        .route(
            "/",
            axum::routing::get(|| async { axum::response::Html("<h1>Home</h1>") }),
        )
        .nest("/tenant", router(catalog.clone()))
        .layer(AgentSkillsLinkLayer::html_only().base_path(catalog.base_path()));
    let home = send(app.clone(), Method::GET, "/", &[]).await;
    assert_eq!(
        header(&home, http::header::LINK),
        "</tenant/.well-known/agent-skills/index.json>; rel=\"agent-skills\"; type=\"application/json\""
    );
    let index = send(
        app.clone(),
        Method::GET,
        "/tenant/.well-known/agent-skills/index.json",
        &[],
    )
    .await;
    assert_eq!(index.status, StatusCode::OK);
    let index: serde_json::Value = serde_json::from_slice(&index.body).unwrap();
    let url = index["skills"][0]["url"].as_str().unwrap();
    let skill = send(
        app.clone(),
        Method::GET,
        &format!("/tenant/.well-known/agent-skills/{url}"),
        &[],
    )
    .await;
    assert_eq!(skill.body, GREETING.as_bytes());
    let outside = send(app, Method::GET, SKILL, &[]).await;
    assert_eq!(outside.status, StatusCode::NOT_FOUND);
}

/// The `Link` a layer adds to a page.
async fn link(layer: AgentSkillsLinkLayer) -> String {
    let app = Router::new()
        .route("/", axum::routing::get(|| async { "home" }))
        .layer(layer);
    header(&send(app, Method::GET, "/", &[]).await, http::header::LINK).to_owned()
}

/// One line per case: the base path, then the index URL the link names, or the problem.
/// A path is checked once, where it is given (here `BasePath::new`, for a catalog its
/// build, which applies the same rule with the same message), and the layer takes it.
macro_rules! base_paths {
    ($($path:expr => $expected:expr,)+) => {
        #[tokio::test]
        async fn base_paths_are_checked() {
            $(
                let expected: Result<&str, BasePathProblem> = $expected;
                match (BasePath::new($path), expected) {
                    (Ok(base_path), Ok(url)) => {
                        let link = link(AgentSkillsLinkLayer::all().base_path(&base_path)).await;
                        assert!(link.starts_with(&format!("<{url}>;")), "{}: {link}", $path);
                    }
                    (Err(error), Err(problem)) => {
                        let error: InvalidBasePath = error;
                        assert_eq!(error.path(), $path);
                        assert_eq!(error.problem(), &problem, "{}", $path);
                        let message = error.to_string();
                        assert!(message.contains(&problem.to_string()), "{message}");
                        assert!(message.contains(&format!("`{}`", $path)), "{message}");
                    }
                    (result, _) => panic!("{}: {result:?}", $path),
                }
            )+
        }
    };
}

// The rule itself is core's (`validate_base_path`, tested there); these show that the
// layer links what it was given, and that a path it cannot be given names the problem.
base_paths! {
    "" => Ok("/.well-known/agent-skills/index.json"),
    "/tenant" => Ok("/tenant/.well-known/agent-skills/index.json"),
    "/a/b-c_d.e~f" => Ok("/a/b-c_d.e~f/.well-known/agent-skills/index.json"),
    "tenant" => Err(BasePathProblem::Relative),
    "/tenant/" => Err(BasePathProblem::TrailingSlash),
    "/a//b" => Err(BasePathProblem::EmptySegment),
    "/a/.." => Err(BasePathProblem::DotSegment),
    "/caf%C3%A9" => Err(BasePathProblem::PercentEncoded),
}
