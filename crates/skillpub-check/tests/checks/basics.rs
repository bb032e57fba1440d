//! One skill on a hand-made site, with one defect at a time: the code that sees it.

use axum::http::StatusCode;
use skillpub_check::Status;
use skillpub_core::{Digest, index::SCHEMA_URI};

use crate::site::{
    INDEX, Lines, SKILL, SKILL_MD, Site, check_site, entry, good_site, index, ok, one_skill_site,
};

#[tokio::test(flavor = "multi_thread")]
async fn a_hand_made_site_without_caching_headers_passes_with_warnings() {
    let report = check_site(good_site()).await;
    assert!(report.passed(), "{report}");
    for code in ["site.cache-control", "site.cors", "site.etag"] {
        report.line(Status::Warn, "site", code);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn digest_drift_fails() {
    let mut site = good_site();
    site.routes[1].1 = ok("text/markdown", format!("{SKILL_MD}\n"));
    let report = check_site(site).await;
    assert!(!report.passed());
    let line = report.message(Status::Fail, "greeting", "entry.digest");
    assert!(
        line.contains(&Digest::of(SKILL_MD.as_bytes()).to_string()),
        "{line}"
    );
    assert!(
        line.contains(&Digest::of(format!("{SKILL_MD}\n").as_bytes()).to_string()),
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn skill_md_served_as_octet_stream_fails() {
    let mut site = good_site();
    site.routes[1].1.content_type = "application/octet-stream";
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "entry.media-type")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn head_answered_404_or_405_fails() {
    for status in [StatusCode::NOT_FOUND, StatusCode::METHOD_NOT_ALLOWED] {
        let mut site = good_site();
        site.head_status = Some(status);
        let report = check_site(site).await;
        assert!(!report.passed());
        report.line(Status::Fail, "index", "index.head-parity");
        report.line(Status::Fail, "greeting", "entry.head-parity");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_200_page_for_a_missing_skill_fails() {
    let mut site = good_site();
    site.fallback = ok("text/html", "<html>app</html>");
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("site", "site.not-found-probe")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_and_invented_schemas_fail() {
    let legacy = r#"{"skills":[{"name":"greeting","description":"Greets the user by name.","files":["SKILL.md"]}]}"#;
    let site = Site::new(vec![
        (INDEX, ok("application/json", legacy)),
        (SKILL, ok("text/markdown", SKILL_MD)),
    ]);
    let report = check_site(site).await;
    assert!(!report.passed());
    report.line(Status::Fail, "index", "index.schema");

    let invented = index("").replace(
        SCHEMA_URI,
        "https://agentskills.io/schemas/v0.2.0/index.json",
    );
    let site = Site::new(vec![(INDEX, ok("application/json", invented))]);
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("index", "index.schema")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_localhost_url_fails() {
    let url = "http://localhost:5173/.well-known/agent-skills/greeting/SKILL.md";
    let site = Site::new(vec![(
        INDEX,
        ok(
            "application/json",
            index(&entry(
                "greeting",
                "skill-md",
                "Greets the user by name.",
                url,
                SKILL_MD.as_bytes(),
            )),
        ),
    )]);
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "entry.local-url")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_description_that_differs_from_the_frontmatter_warns() {
    let site = one_skill_site("Says hi.", SKILL_MD);
    let report = check_site(site).await;
    assert!(report.passed(), "a SHOULD is a warning:\n{report}");
    report.line(Status::Warn, "greeting", "skill.description");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_frontmatter_name_that_differs_from_the_index_fails() {
    let other = SKILL_MD.replace("name: greeting", "name: hello");
    let site = one_skill_site("Greets the user by name.", &other);
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "skill.name")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_loop_fails() {
    let mut redirect = ok("text/plain", "");
    redirect.status = StatusCode::FOUND;
    redirect.location = Some(INDEX.to_owned());
    let site = Site::new(vec![(INDEX, redirect)]);
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("index", "fetch.redirect")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_whose_entries_are_all_unusable_fails() {
    let entries = format!(
        "{},{}",
        entry("greeting", "bundle", "d", SKILL, SKILL_MD.as_bytes()),
        r#"{"name":"x"}"#
    );
    let site = Site::new(vec![(INDEX, ok("application/json", index(&entries)))]);
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(
        report.failed(),
        [("index", "index.skills"), ("x", "entry.fields")]
    );
    report.line(Status::Warn, "greeting", "entry.type");
}
