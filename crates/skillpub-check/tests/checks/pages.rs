//! Which index a URL leads to: a path prefix the skills are nested under, or a page whose
//! `Link` with `rel="agent-skills"` names an index, compared with the well-known one.

use axum::Router;
use axum::http::HeaderValue;
use skillpub_axum::AgentSkillsLinkLayer;
use skillpub_check::Status;
use skillpub_core::{Catalog, Digest, Skill, paths::BasePath};

use crate::site::{Lines, ORIGIN, Run, SKILL_MD, WELL_WRITTEN, check_app, entry, index};

#[tokio::test(flavor = "multi_thread")]
async fn a_site_under_a_prefix_is_checked_under_it() {
    let catalog = Catalog::builder()
        .url_style(skillpub_core::index::UrlStyle::Relative)
        .skill(Skill::from_static(SKILL_MD))
        .build()
        .unwrap();
    // Outside the prefix, the app answers every path with its page: a probe that left the
    // prefix would see a 200 for a missing skill.
    let app = Router::new()
        .nest("/tenant", skillpub_axum::router(catalog))
        .fallback(|| async { axum::response::Html("<html>app</html>") });
    for target in ["/tenant", "/tenant/"] {
        let report = check_app(app.clone(), target).await;
        assert!(report.passed(), "{target}\n{report}");
        let hex = Digest::of(SKILL_MD.as_bytes()).hex();
        let url =
            format!("{ORIGIN}/tenant/.well-known/agent-skills/sha256-{hex}/greeting/SKILL.md");
        let entry = report.message(Status::Ok, "greeting", "entry.fields");
        assert!(entry.contains(&url), "{entry}");
        report.line(Status::Ok, "site", "site.not-found-probe");
    }
    let report = check_app(app, "/").await;
    assert!(!report.passed(), "the root has no index:\n{report}");
    assert_eq!(report.failed(), [("index", "index.media-type")]);
}

/// An app with an HTML page at `/docs`, the one-skill router at the root (or under
/// `/tenant`, with the catalog's base path) and `layer` around everything.
fn linked_app(tenant: bool, layer: AgentSkillsLinkLayer) -> Router {
    let mut catalog = Catalog::builder();
    catalog.skill(Skill::from_static(WELL_WRITTEN));
    if tenant {
        catalog.base_path("/tenant");
    }
    let skills = skillpub_axum::router(catalog.build().unwrap());
    let app = Router::new().route(
        "/docs",
        axum::routing::get(|| async { axum::response::Html("<h1>Docs</h1>") }),
    );
    let app = if tenant {
        app.nest("/tenant", skills)
    } else {
        app.merge(skills)
    };
    app.layer(layer)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_whose_link_names_the_well_known_index_agrees() {
    let app = linked_app(false, AgentSkillsLinkLayer::html_only());
    let report = check_app(app.clone(), "/docs").await;
    assert!(report.passed(), "{report}");
    let index = format!("{ORIGIN}/.well-known/agent-skills/index.json");
    let link = report.message(Status::Ok, "page", "discovery.link");
    assert_eq!(link, format!("Link rel=\"agent-skills\" names {index}"));
    let same = report.message(Status::Ok, "page", "discovery.link-mismatch");
    assert!(same.ends_with(&index), "{same}");
    report.line(Status::Ok, "greeting", "entry.digest");
    assert_eq!(report.count(Status::Warn), 0, "{report}");

    // An origin is checked as before: no page, no discovery lines.
    let report = check_app(app, "/").await;
    assert!(report.passed(), "{report}");
    assert!(report.lines("discovery.link").is_empty(), "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_whose_link_names_an_index_under_a_prefix_gets_that_index_checked() {
    let tenant = BasePath::new("/tenant").unwrap();
    let app = linked_app(true, AgentSkillsLinkLayer::html_only().base_path(&tenant));
    let report = check_app(app.clone(), "/docs").await;
    assert!(report.passed(), "warnings only:\n{report}");
    let linked = format!("{ORIGIN}/tenant/.well-known/agent-skills/index.json");
    assert_eq!(
        report.message(Status::Ok, "page", "discovery.link"),
        format!("Link rel=\"agent-skills\" names {linked}")
    );
    let only = report.message(Status::Warn, "page", "discovery.link-mismatch");
    assert!(
        only.starts_with("only the Link leads to an index"),
        "{only}"
    );
    assert!(
        only.contains(&format!("give clients {ORIGIN}/tenant")),
        "{only}"
    );
    // The Link's index is the one checked, under its prefix.
    let entry = report.message(Status::Ok, "greeting", "entry.fields");
    assert!(entry.contains(&format!("{ORIGIN}/tenant/")), "{entry}");
    report.line(Status::Ok, "site", "site.not-found-probe");
    // The scanner reads the well-known path, where there is nothing.
    assert_eq!(report.grade().0, "FAIL");

    // The prefix itself is still a prefix: its answer is no page with a Link.
    let report = check_app(app, "/tenant").await;
    assert!(report.passed(), "{report}");
    assert!(report.lines("discovery.link").is_empty(), "{report}");
    report.line(Status::Ok, "greeting", "entry.digest");
}

/// An app whose page links to `/other/index.json` and whose well-known index is the
/// one-skill router's; `other` is served there, if any.
fn app_linking_elsewhere(other: Option<String>) -> Router {
    let layer = AgentSkillsLinkLayer::html_only()
        .index_url("/other/index.json")
        .unwrap();
    let mut app = Router::new()
        .route(
            "/docs",
            axum::routing::get(|| async { axum::response::Html("<h1>Docs</h1>") }),
        )
        .merge(skillpub_axum::router(
            Catalog::new([Skill::from_static(SKILL_MD)]).unwrap(),
        ));
    if let Some(other) = other {
        app = app.route(
            "/other/index.json",
            axum::routing::get(
                move || async move { ([("content-type", "application/json")], other) },
            ),
        );
    }
    app.layer(layer)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_whose_link_names_another_index_warns_and_the_well_known_one_is_checked() {
    let other = index(&entry(
        "hello",
        "skill-md",
        "Says hello.",
        "/other/hello/SKILL.md",
        b"x",
    ));
    let report = check_app(app_linking_elsewhere(Some(other)), "/docs").await;
    assert!(report.passed(), "{report}");
    let two = report.message(Status::Warn, "page", "discovery.link-mismatch");
    let (link, well_known) = (
        format!("{ORIGIN}/other/index.json"),
        format!("{ORIGIN}/.well-known/agent-skills/index.json"),
    );
    assert!(
        two.starts_with(&format!(
            "the Link names {link}, another index than the well-known {well_known}"
        )),
        "{two}"
    );
    report.line(Status::Ok, "greeting", "entry.digest");
    assert!(report.lines("entry.fields").len() == 1, "{report}");

    let report = check_app(app_linking_elsewhere(None), "/docs").await;
    assert!(report.passed(), "{report}");
    let broken = report.message(Status::Warn, "page", "discovery.link-mismatch");
    assert!(
        broken.starts_with(&format!(
            "the Link names {ORIGIN}/other/index.json, which answers 404 Not Found"
        )),
        "{broken}"
    );
    report.line(Status::Ok, "greeting", "entry.digest");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_without_a_link_is_a_prefix_unless_page_is_given() {
    let app = linked_app(false, AgentSkillsLinkLayer::when(|_, _| false));
    // A development port, which the aiSiteReady scanner does not accept in entry urls.
    let page = "http://skillpub.test:3000/docs";
    let report = Run::default().check(app.clone(), page).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("index", "index.status")]);
    let hint = report.message(Status::Warn, "page", "discovery.link");
    assert!(
        hint.contains("so it was read as a path prefix whose index is"),
        "{hint}"
    );
    assert!(
        hint.contains(&format!("skillpub check --page {page}")),
        "{hint}"
    );

    let run = Run {
        page: true,
        ..Run::default()
    };
    let report = run.check(app, page).await;
    assert!(report.passed(), "{report}");
    let none = report.message(Status::Warn, "page", "discovery.link");
    assert!(
        none.starts_with(&format!(
            "{page} answered 200 OK with no Link rel=\"agent-skills\""
        )),
        "{none}"
    );
    assert!(report.lines("discovery.link-mismatch").is_empty());
    report.line(Status::Ok, "greeting", "entry.digest");
    assert_eq!(report.grade().0, "PARTIAL", "a development port");
}

/// An app whose page at `/docs/guide` sends these `Link` fields, with the one-skill router.
fn app_with_link_fields(fields: &'static [&'static str]) -> Router {
    Router::new()
        .route(
            "/docs/guide",
            axum::routing::get(move || async move {
                let mut response =
                    axum::response::IntoResponse::into_response(axum::response::Html("<p>Guide"));
                for field in fields {
                    response
                        .headers_mut()
                        .append("link", HeaderValue::from_static(field));
                }
                response
            }),
        )
        .merge(skillpub_axum::router(
            Catalog::new([Skill::from_static(WELL_WRITTEN)]).unwrap(),
        ))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_link_is_reported_and_the_well_known_index_checked() {
    let app =
        app_with_link_fields(&[r#"</.well-known/agent-skills/index.json; rel="agent-skills""#]);
    let report = check_app(app, "/docs/guide").await;
    assert!(report.passed(), "{report}");
    let malformed = report.message(Status::Warn, "page", "discovery.link");
    assert!(
        malformed.contains("does not parse (RFC 8288)"),
        "{malformed}"
    );
    assert!(report.lines("discovery.link-mismatch").is_empty());
    report.line(Status::Ok, "greeting", "entry.digest");
}

#[tokio::test(flavor = "multi_thread")]
async fn links_in_several_fields_with_rel_lists_and_relative_targets_are_read() {
    let app = app_with_link_fields(&[
        r#"</style.css>; rel=preload; as=style, <../.well-known/agent-skills/index.json>; rel="describedby agent-skills"; type="application/json""#,
        "<https://fonts.example.net>; rel=preconnect",
    ]);
    let report = check_app(app, "/docs/guide").await;
    assert!(report.passed(), "{report}");
    let index = format!("{ORIGIN}/.well-known/agent-skills/index.json");
    assert_eq!(
        report.message(Status::Ok, "page", "discovery.link"),
        format!("Link rel=\"agent-skills\" names {index}")
    );
    report.line(Status::Ok, "page", "discovery.link-mismatch");
    assert_eq!(report.count(Status::Warn), 0, "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_that_redirects_to_the_well_known_index_names_the_same_index() {
    let app = app_linking_elsewhere(None).route(
        "/other/index.json",
        axum::routing::get(|| async {
            axum::response::Redirect::permanent("/.well-known/agent-skills/index.json")
        }),
    );
    let report = check_app(app, "/docs").await;
    assert!(report.passed(), "{report}");
    let same = report.message(Status::Ok, "page", "discovery.link-mismatch");
    assert_eq!(
        same,
        format!(
            "the Link and the well-known path name the same index, {ORIGIN}/.well-known/agent-skills/index.json"
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_whose_link_and_well_known_path_both_lead_nowhere_fails_on_the_index() {
    let layer = AgentSkillsLinkLayer::all()
        .index_url("/other/index.json")
        .unwrap();
    let app = Router::new()
        .route(
            "/docs",
            axum::routing::get(|| async { axum::response::Html("<h1>Docs</h1>") }),
        )
        .layer(layer);
    let report = check_app(app, "/docs").await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("index", "index.status")]);
    let neither = report.message(Status::Warn, "page", "discovery.link-mismatch");
    assert!(neither.starts_with("neither the Link's"), "{neither}");
    assert_eq!(report.grade().0, "FAIL");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prefix_whose_page_links_to_the_root_by_mistake_is_still_checked_under_the_prefix() {
    let mut catalog = Catalog::builder();
    catalog
        .skill(Skill::from_static(SKILL_MD))
        .base_path("/tenant");
    // Every path outside the prefix is the app's page, whose Link names the root's index:
    // the layer was not given the prefix.
    let app = Router::new()
        .nest("/tenant", skillpub_axum::router(catalog.build().unwrap()))
        .fallback(|| async { axum::response::Html("<html>app</html>") })
        .layer(AgentSkillsLinkLayer::html_only());
    let report = check_app(app, "/tenant").await;
    assert!(report.passed(), "{report}");
    let index = format!("{ORIGIN}/tenant/.well-known/agent-skills/index.json");
    let prefix = report.message(Status::Warn, "page", "discovery.link");
    assert!(
        prefix.contains(&format!("the URL given has one under it, {index}")),
        "{prefix}"
    );
    let entry = report.message(Status::Ok, "greeting", "entry.fields");
    assert!(entry.contains(&format!("{ORIGIN}/tenant/")), "{entry}");
    let (_, reason) = report.grade();
    assert!(reason.contains(&format!("graded at {index}")), "{reason}");
}
