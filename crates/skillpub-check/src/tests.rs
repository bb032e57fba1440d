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
use crate::{Grade, GradeStatus, Verdict};

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
        isitagentready: Some(Verdict {
            passed: false,
            reason: "Agent Skills index not found: \u{202e}".into(),
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
            "isitagentready agentSkills: fail (Agent Skills index not found: \\u{202e})",
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
    assert_eq!(
        json["isitagentready"],
        serde_json::json!({"status": "fail", "reason": "Agent Skills index not found: \u{202e}"})
    );
    let ungraded = Report {
        aisiteready: None,
        isitagentready: None,
        ..sample()
    };
    assert_eq!(ungraded.to_json()["aisiteready"], serde_json::Value::Null);
    assert_eq!(
        ungraded.to_json()["isitagentready"],
        serde_json::Value::Null
    );
    assert!(!ungraded.to_string().contains("aiSiteReady"));
    assert!(!ungraded.to_string().contains("isitagentready"));
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
    // The credentials are looked for first, whatever the deadline: one pass, and fast.
    assert_eq!(
        codes(lines(None)),
        [
            "skill.secret",
            "skill.advice",
            "skill.advice",
            "skill.advice"
        ]
    );
    assert_eq!(codes(lines(Some(later))), codes(lines(None)));
    let stopped = lines(Some(Instant::now()));
    assert_eq!(codes(stopped.clone()), ["skill.secret", "run.max-time"]);
    assert_eq!(stopped[1].status, Status::Fail);
    assert!(
        matches!(stopped[1].cause, Some(Cause::AdviceDeadline(_))),
        "{:?}",
        stopped[1]
    );
    assert_eq!(
        stopped[1].message,
        "the authoring advice was not complete at the deadline (it had passed before any rule ran); allow more time (skillpub check --max-time); SKILL.md got no advice"
    );
}

/// A fetched archive skill `pay` with these supporting files.
fn fetched(skill_md: &str, files: &[(&str, &str)]) -> FetchedSkill {
    let parsed = SkillMd::parse(skill_md.to_owned(), Some("pay")).unwrap();
    FetchedSkill {
        response: Fetched {
            url: Url::parse("https://example.com/.well-known/agent-skills/pay.tar.gz").unwrap(),
            status: StatusCode::OK,
            headers: HeaderMap::new(),
            body: Vec::new(),
            encoded_digest: None,
            credentialed: false,
        },
        frontmatter: parsed.into_frontmatter(),
        skill_md: skill_md.into(),
        files: files
            .iter()
            .map(|(path, text)| skillpub_client::unpack::UnpackedFile {
                path: (*path).to_owned(),
                bytes: text.as_bytes().to_vec(),
                executable: false,
            })
            .collect(),
        notes: Vec::new(),
    }
}

const PAY: &str = "---\nname: pay\ndescription: Takes payments with Acme. Use when a user asks to pay an invoice.\n---\n# Pay\n\nSee [the API](references/api.md) and `scripts/setup.sh`.\n";

#[test]
fn every_fetched_file_is_reviewed_for_credentials_and_by_the_security_rules() {
    let key = format!("sk_live_{}", "51Hq8ZkLq2Wd9RtYvB3nX7cPfM0aJ4eU");
    let skill = fetched(
        PAY,
        &[
            ("references/api.md", &format!("# API\n\nKEY={key}\n")),
            (
                "scripts/setup.sh",
                "#!/bin/sh\ncurl -fsSL https://get.acme.dev/i.sh | sh\n",
            ),
        ],
    );
    let mut out = Lines::default();
    advise(&mut out, "pay", &skill, None);
    let secret = out
        .0
        .iter()
        .find(|check| check.kind == CheckKind::SkillSecret)
        .unwrap();
    assert_eq!(secret.status, Status::Fail);
    assert_eq!(
        secret.message,
        "references/api.md line 3 publishes a Stripe live secret key (`sk_live_…J4eU`) to every agent that fetches the skill; revoke it and remove it"
    );
    let script = out
        .0
        .iter()
        .find(
            |check| matches!(&check.cause, Some(Cause::Advice(a)) if a.code() == "security.script"),
        )
        .unwrap();
    assert_eq!(script.status, Status::Warn);
    assert!(
        script
            .message
            .starts_with("scripts/setup.sh: line 2 pipes a download into a shell"),
        "{}",
        script.message
    );
}

#[test]
fn a_skill_that_allows_security_secret_in_its_metadata_gets_no_secret_line() {
    let allowed = PAY.replace(
        "---\n# Pay",
        "metadata:\n  skillpub-allow: security.secret\n---\n# Pay",
    );
    let key = format!("sk_live_{}", "51Hq8ZkLq2Wd9RtYvB3nX7cPfM0aJ4eU");
    let skill = fetched(&allowed, &[("references/api.md", &format!("KEY={key}\n"))]);
    let mut out = Lines::default();
    advise(&mut out, "pay", &skill, None);
    assert!(
        out.0
            .iter()
            .all(|check| check.kind != CheckKind::SkillSecret)
    );
}
