//! isitagentready.com's `agentSkills` verdict beside the checks: the well-known index, the
//! legacy one after a `404`, and what fails, as one line of the text report and in the JSON.

use axum::http::StatusCode;

use crate::site::{Site, answer, check_public, good_site, ok};

/// The verdict of a report as its text line gives it.
fn verdict_line(text: &str) -> &str {
    text.lines()
        .find(|line| line.starts_with("isitagentready agentSkills: "))
        .unwrap_or_else(|| panic!("no isitagentready line:\n{text}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_site_that_passes_the_checks_passes_the_verdict() {
    let report = check_public(good_site()).await;
    assert_eq!(
        verdict_line(&report.to_string()),
        "isitagentready agentSkills: pass (Agent Skills index exists with valid JSON: 1 skill, spec version 0.2.0, at /.well-known/agent-skills/index.json)"
    );
    assert_eq!(report.to_json()["isitagentready"]["status"], "pass");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_legacy_index_passes_after_a_404_where_the_checks_fail() {
    let legacy = r#"{"skills":[{"name":"greeting","description":"Greets.","files":["SKILL.md"]}]}"#;
    let site = Site::new(vec![(
        "/.well-known/skills/index.json",
        ok("application/json", legacy),
    )]);
    let report = check_public(site).await;
    assert!(
        !report.passed(),
        "the checks read the well-known index only"
    );
    assert_eq!(
        verdict_line(&report.to_string()),
        "isitagentready agentSkills: pass (Agent Skills index exists with valid JSON: 1 skill, spec version 0.1.0, at /.well-known/skills/index.json)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_index_at_either_path_fails_with_both_answers() {
    let report = check_public(Site::new(Vec::new())).await;
    assert_eq!(
        verdict_line(&report.to_string()),
        "isitagentready agentSkills: fail (Agent Skills index not found: /.well-known/agent-skills/index.json answered 404 Not Found, and /.well-known/skills/index.json answered 404 Not Found)"
    );
    let json = report.to_json();
    assert_eq!(json["isitagentready"]["status"], "fail");
    assert!(
        json["isitagentready"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("Agent Skills index not found: ")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_served_as_html_or_without_skills_fails() {
    let html = Site::new(vec![(
        "/.well-known/agent-skills/index.json",
        ok("text/html", "<!doctype html><div id=app></div>"),
    )]);
    let report = check_public(html).await;
    assert_eq!(
        verdict_line(&report.to_string()),
        "isitagentready agentSkills: fail (Agent Skills index not found: /.well-known/agent-skills/index.json is served with text/html, not a JSON type)"
    );
    let empty = Site::new(vec![(
        "/.well-known/agent-skills/index.json",
        ok("application/json", r#"{"skills":[]}"#),
    )]);
    let report = check_public(empty).await;
    assert!(verdict_line(&report.to_string()).ends_with("has an empty `skills` list)"));
    let broken = Site::new(vec![(
        "/.well-known/agent-skills/index.json",
        answer(StatusCode::INTERNAL_SERVER_ERROR, "text/plain", "oops"),
    )]);
    let report = check_public(broken).await;
    assert_eq!(
        verdict_line(&report.to_string()),
        "isitagentready agentSkills: fail (Agent Skills index not found: /.well-known/agent-skills/index.json answered 500 Internal Server Error)",
        "only a 404 sends the scanner to the legacy index"
    );
}
