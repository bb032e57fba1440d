//! The aiSiteReady grade of the well-known index beside the checks: every row of the
//! scanner's table from a site with that one defect, as a deployed site on a public name.

use axum::Router;
use axum::http::StatusCode;
use skillpub_check::Status;
use skillpub_core::{Catalog, Skill, index::SCHEMA_URI};

use crate::site::{
    Lines, ORIGIN, SKILL, SKILL_MD, Site, answer, check_app, check_public, entry, fail_line,
    good_site, index, ok, with_index,
};

#[tokio::test(flavor = "multi_thread")]
async fn every_row_of_the_aisiteready_table_is_graded_from_a_site_with_that_one_defect() {
    let skill = entry(
        "greeting",
        "skill-md",
        "Greets the user by name.",
        SKILL,
        SKILL_MD.as_bytes(),
    );
    let json = |body: String| ok("application/json", body);
    let invalid = [
        entry("Greeting", "skill-md", "d", SKILL, SKILL_MD.as_bytes()),
        entry("greeting", "skill-md", "d", SKILL, b"x").replace("sha256:", "sha256:AB"),
        r#"{"name":"greeting","type":"skill-md","description":"d","digest":"sha256:00"}"#
            .to_owned(),
    ]
    .join(",");
    let localhost = entry(
        "greeting",
        "skill-md",
        "Greets the user by name.",
        "http://localhost:5173/.well-known/agent-skills/greeting/SKILL.md",
        SKILL_MD.as_bytes(),
    );
    let shell = "<!doctype html><div id=app></div>";
    // (the defect, the site, the grade, the start of its reason, whether `check` passes,
    // the code of `check` that sees the defect)
    let rows: Vec<(&str, Site, &str, &str, bool, &str)> = vec![
        (
            "none",
            good_site(),
            "PASS",
            "`$schema` declared, served as application/json, 1 of 1 entries valid",
            true,
            "index.schema",
        ),
        (
            "no $schema",
            with_index(json(format!(r#"{{"skills":[{skill}]}}"#))),
            "PARTIAL",
            "no `$schema`",
            false,
            "index.schema",
        ),
        (
            "text/plain",
            with_index(ok("text/plain", index(&skill))),
            "PARTIAL",
            "served as text/plain, not as JSON",
            false,
            "index.media-type",
        ),
        (
            "invalid JSON",
            with_index(json(format!(r#"{{"$schema":"{SCHEMA_URI}","skills":["#))),
            "PARTIAL",
            "the body is not JSON (",
            false,
            "index.json",
        ),
        (
            "no skills",
            with_index(json(format!(r#"{{"$schema":"{SCHEMA_URI}"}}"#))),
            "PARTIAL",
            "`skills` is missing",
            false,
            "index.skills",
        ),
        (
            "an empty skills",
            with_index(json(index(""))),
            "PARTIAL",
            "`skills` is empty",
            true,
            "index.empty",
        ),
        (
            "entries that are all invalid",
            with_index(json(index(&invalid))),
            "PARTIAL",
            "none of the 3 entries is valid (skills[0]: `name` `Greeting` has uppercase letters",
            false,
            "index.skills",
        ),
        (
            "a localhost url",
            with_index(json(index(&localhost))),
            "PARTIAL",
            "none of the 1 entries is valid (skills[0]: `url` resolves to http://localhost:5173/",
            false,
            "entry.local-url",
        ),
        (
            "403",
            with_index(answer(StatusCode::FORBIDDEN, "text/plain", "no bots")),
            "UNKNOWN",
            "the index answered 403 Forbidden, which the scanner counts as a block",
            false,
            "auth.forbidden",
        ),
        (
            "429",
            with_index(answer(
                StatusCode::TOO_MANY_REQUESTS,
                "text/plain",
                "slow down",
            )),
            "UNKNOWN",
            "the index answered 429 Too Many Requests, which the scanner counts as a block",
            false,
            "index.status",
        ),
        (
            "404",
            Site::new(vec![(SKILL, ok("text/markdown", SKILL_MD))]),
            "FAIL",
            "the index answered 404 Not Found: no index",
            false,
            "index.status",
        ),
        (
            "500",
            with_index(answer(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                "oops",
            )),
            "FAIL",
            "the index answered 500 Internal Server Error: no index",
            false,
            "index.status",
        ),
        (
            "an HTML page",
            with_index(ok("text/html; charset=utf-8", shell)),
            "FAIL",
            "the index is served as text/html: an HTML page, not JSON",
            false,
            "index.media-type",
        ),
        (
            "JSON sent as text/html",
            with_index(ok("text/html", index(&skill))),
            "FAIL",
            "the index is served as text/html: an HTML page, not JSON",
            false,
            "index.media-type",
        ),
    ];
    for (defect, site, status, reason, passes, code) in rows {
        let report = check_public(site).await;
        let (graded, why) = report.grade();
        assert_eq!(graded, status, "{defect}: {why}");
        assert!(why.starts_with(reason), "{defect}: {why}");
        assert_eq!(report.passed(), passes, "{defect}:\n{report}");
        let seen = report.lines(code);
        if defect == "none" {
            assert!(report.failed().is_empty(), "{report}");
        } else {
            let severity = if passes { Status::Warn } else { Status::Fail };
            assert!(
                seen.iter().any(|line| line.status == severity),
                "{defect}: no {} line {code}:\n{report}",
                severity.label()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_site_with_digest_drift_is_pass_for_the_scanner_and_fails_here() {
    let mut site = good_site();
    site.routes[1].1 = ok("text/markdown", format!("{SKILL_MD}\n"));
    let report = check_public(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "entry.digest")]);
    let pass = "`$schema` declared, served as application/json, 1 of 1 entries valid";
    assert_eq!(report.grade(), ("PASS", pass));

    // The text report: the grade and isitagentready's verdict are the lines before the
    // summary; neither scanner fetches an artifact, so both pass.
    let text = report.to_string();
    let lines: Vec<&str> = text.lines().collect();
    let [.., grade, verdict, summary] = lines.as_slice() else {
        panic!("{text}");
    };
    assert_eq!(*grade, format!("aiSiteReady agent_skills: PASS ({pass})"));
    assert_eq!(
        *verdict,
        "isitagentready agentSkills: pass (Agent Skills index exists with valid JSON: 1 skill, spec version 0.2.0, at /.well-known/agent-skills/index.json)"
    );
    assert!(summary.ends_with("1 failed"), "{text}");
    fail_line(&text, "greeting: digest drift");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invented_schema_is_pass_for_the_scanner_and_fails_here() {
    let invented = index(&entry(
        "greeting",
        "skill-md",
        "Greets the user by name.",
        SKILL,
        SKILL_MD.as_bytes(),
    ))
    .replace(
        SCHEMA_URI,
        "https://agentskills.io/schemas/v0.2.0/index.json",
    );
    let report = check_public(with_index(ok("application/json", invented))).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("index", "index.schema")]);
    assert_eq!(report.grade().0, "PASS");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prefix_is_graded_with_a_note_that_the_scanner_reads_only_the_root() {
    let catalog = Catalog::builder()
        .url_style(skillpub_core::index::UrlStyle::Relative)
        .skill(Skill::from_static(SKILL_MD))
        .build()
        .unwrap();
    let app = Router::new().nest("/tenant", skillpub_axum::router(catalog));
    let report = check_app(app, "/tenant").await;
    assert!(report.passed(), "{report}");
    let (_, reason) = report.grade();
    let note = format!(
        "; graded at {ORIGIN}/tenant/.well-known/agent-skills/index.json, but the scanner reads only {ORIGIN}/.well-known/agent-skills/index.json"
    );
    assert!(reason.ends_with(&note), "{reason}");
}
