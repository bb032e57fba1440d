//! The table of checks: its codes, its rendering in `docs/checks.md`, and the report's text
//! and JSON.
//!
//! Set `SKILLPUB_BLESS=1` to rewrite the table in `docs/checks.md` after changing the kinds.

use std::collections::HashSet;
use std::fmt::Write;

use std::time::Instant;

use http::{HeaderMap, StatusCode};
use skillpub_client::index::EntryError;
use skillpub_client::{ClientError, Fetched, FetchedSkill};
use skillpub_core::{ErrorKind, SkillMd, spec::Severity};
use url::Url;

use crate::outcome::{Cause, Status};
use crate::report::{Check, Lines, Report};
use crate::run::{advise, invalid_skill_md};
use crate::table::{CheckKind, Finding, UnknownCode};
use crate::{Grade, GradeStatus};

const CHECKS_MD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/docs/checks.md");

/// The markdown table of every kind, as `docs/checks.md` must hold it.
fn table() -> String {
    let mut table =
        String::from("| Code | Severity | What it means | How to fix |\n|---|---|---|---|\n");
    for kind in CheckKind::ALL {
        let (code, severity) = (kind.code(), Status::from(kind.severity()).label());
        let (title, fix) = (kind.title(), kind.fix());
        writeln!(table, "| `{code}` | {severity} | {title} | {fix} |").expect("a String");
    }
    table
}

#[test]
fn the_docs_table_is_the_table_of_kinds() {
    let text = std::fs::read_to_string(CHECKS_MD).expect("src/docs/checks.md");
    let start = text
        .find("| Code |")
        .expect("docs/checks.md has a table that starts with `| Code |`");
    let (intro, documented) = text.split_at(start);
    if std::env::var_os("SKILLPUB_BLESS").is_some() {
        std::fs::write(CHECKS_MD, format!("{intro}{}", table())).expect("writable");
    } else {
        assert_eq!(
            documented,
            table(),
            "docs/checks.md differs from the table of kinds; run with SKILLPUB_BLESS=1 to rewrite it"
        );
    }
}

#[test]
fn codes_are_unique_lowercase_subject_dot_check() {
    const SUBJECTS: [&str; 13] = [
        "target",
        "discovery",
        "fetch",
        "auth",
        "index",
        "entry",
        "archive",
        "skill",
        "site",
        "private",
        "cache",
        "encoding",
        "run",
    ];
    let mut seen = HashSet::new();
    for kind in CheckKind::ALL {
        let code = kind.code();
        assert!(seen.insert(code), "{code} twice");
        let (subject, check) = code.split_once('.').expect("<subject>.<check>");
        assert!(SUBJECTS.contains(&subject), "{code}: unknown subject");
        let word = |part: &str| {
            !part.is_empty()
                && part
                    .split('-')
                    .all(|word| !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase()))
        };
        assert!(word(check), "{code}: lowercase words joined by `-`");
        assert_ne!(
            Status::from(kind.severity()),
            Status::Ok,
            "{code}: a problem is a warn or a FAIL"
        );
        for text in [kind.title(), kind.fix()] {
            assert!(!text.contains('|'), "{code}: `|` breaks the table");
        }
        assert_eq!(code.parse::<CheckKind>(), Ok(*kind));
        assert_eq!(kind.to_string(), code);
    }
    assert_eq!(
        "index.nope".parse::<CheckKind>(),
        Err(UnknownCode("index.nope".into()))
    );
}

#[test]
fn a_skipped_entry_has_the_severity_of_its_code() {
    let errors = [
        EntryError::NotAnObject,
        EntryError::MissingField("url"),
        EntryError::NotAString("name"),
        EntryError::UnknownType("bundle".into()),
        EntryError::Name(ErrorKind::NameEmpty),
        EntryError::DescriptionLength(0),
        EntryError::EmptyUrl,
        EntryError::UrlScheme("ftp://x".into()),
        EntryError::NoFiles,
        EntryError::NoSkillMd,
    ];
    for error in errors {
        let expected = match error.severity() {
            Severity::Warning => Status::Warn,
            Severity::Error => Status::Fail,
            Severity::Info => Status::Ok,
        };
        let finding = Finding::entry(error.clone());
        assert_eq!(finding.status, expected, "{error}");
        assert_eq!(Status::from(finding.kind.severity()), expected, "{error}");
        assert_eq!(finding.message, error.to_string());
        assert_eq!(finding.cause, Some(Cause::Entry(error)));
    }
}

/// A report of one passing line and one failing line, with a name that tries to hide, and a
/// grade whose reason tries to clear the screen.
fn sample() -> Report {
    let mut lines = Lines::default();
    lines.push(
        "index",
        Finding::answered(CheckKind::IndexStatus, StatusCode::OK),
    );
    let error = ClientError::BadTarget("x".into());
    lines.push("evil\u{202e}name", Finding::target(error.clone()));
    let report = Report {
        target: "https://example.com".into(),
        checks: lines.0,
        aisiteready: Some(Grade {
            status: GradeStatus::Partial,
            reason: "served as text/\u{1b}[2J, not as JSON".into(),
            url: "https://example.com/.well-known/agent-skills/index.json"
                .parse()
                .expect("a URL"),
        }),
    };
    assert_eq!(report.checks[1].cause, Some(Cause::Client(error)));
    report
}

#[test]
fn the_text_report_shows_status_code_subject_and_message() {
    let text = sample().to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "ok    index.status             index: GET 200 OK",
            "FAIL  target.url               evil\\u{202e}name: `x` is not a URL; give an origin such as https://example.com or an index URL",
            "aiSiteReady agent_skills: PARTIAL (served as text/\\u{1b}[2J, not as JSON)",
            "1 ok, 0 warnings, 1 failed",
        ]
    );
}

#[test]
fn every_json_line_has_its_code() {
    let json = sample().to_json();
    assert_eq!(json["passed"], false);
    let codes: Vec<&str> = json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|check| check["code"].as_str().expect("a code"))
        .collect();
    assert_eq!(codes, ["index.status", "target.url"]);
    assert_eq!(json["checks"][1]["status"], "fail");
    assert_eq!(json["checks"][1]["subject"], "evil\u{202e}name");
    assert_eq!(
        json["aisiteready"],
        serde_json::json!({"status": "PARTIAL", "reason": "served as text/\u{1b}[2J, not as JSON"})
    );
    let ungraded = Report {
        aisiteready: None,
        ..sample()
    };
    assert_eq!(ungraded.to_json()["aisiteready"], serde_json::Value::Null);
    assert!(!ungraded.to_string().contains("aiSiteReady"));
}

#[test]
fn a_core_validation_problem_is_carried_through() {
    let skill_md = "---\nname: hello\ndescription: \"\"\n---\n";
    let skill = skillpub_core::Skill::from_static_in("skills/greeting", skill_md);
    let errors = skillpub_core::Catalog::new([skill]).unwrap_err();
    let mut kinds = Vec::new();
    for error in errors {
        let finding = invalid_skill_md("greeting", error.clone());
        if finding.kind == CheckKind::SkillFrontmatter {
            assert_eq!(error.field(), Some("description"));
            let field = format!("SKILL.md: field `description`: {}", error.kind());
            assert_eq!(finding.message, field);
        }
        assert_eq!(finding.cause, Some(Cause::Skill(error)));
        kinds.push(finding.kind);
    }
    kinds.sort();
    assert_eq!(kinds, [CheckKind::SkillFrontmatter, CheckKind::SkillName]);
}

#[test]
fn advice_past_the_deadline_is_one_max_time_line_and_no_advice() {
    let text = "---\nname: greeting\ndescription: Greets.\n---\nSee [a](references/a.md).\n";
    let skill_md = SkillMd::parse(text, Some("greeting")).unwrap();
    let url = Url::parse("https://example.com/greeting/SKILL.md").unwrap();
    let skill = FetchedSkill {
        response: Fetched {
            url,
            status: StatusCode::OK,
            headers: HeaderMap::new(),
            body: text.into(),
            encoded_digest: None,
            credentialed: false,
        },
        frontmatter: skill_md.into_frontmatter(),
        skill_md: text.into(),
        files: Vec::new(),
        notes: Vec::new(),
    };
    let lines = |deadline| {
        let mut out = Lines::default();
        advise(&mut out, "greeting", &skill, deadline);
        out.0
    };
    let later = Instant::now() + std::time::Duration::from_secs(3600);
    let codes = |checks: Vec<Check>| -> Vec<&'static str> {
        checks.iter().map(|check| check.kind.code()).collect()
    };
    assert_eq!(codes(lines(None)), ["skill.advice"; 3]);
    assert_eq!(codes(lines(Some(later))), codes(lines(None)));
    let stopped = lines(Some(Instant::now()));
    assert_eq!(codes(stopped.clone()), ["run.max-time"]);
    assert_eq!(stopped[0].status, Status::Fail);
    assert!(
        matches!(stopped[0].cause, Some(Cause::AdviceDeadline(_))),
        "{:?}",
        stopped[0]
    );
    assert_eq!(
        stopped[0].message,
        "the authoring advice was not complete at the deadline (it had passed before any rule ran); allow more time (skillpub check --max-time); SKILL.md got no advice"
    );
}
