//! What the report shows: a line per rule of the authoring advice, and server text that can
//! neither drive a terminal nor display reversed or hidden.

use skillpub_check::Status;
use skillpub_core::{Catalog, Skill, index::SCHEMA_URI};

use crate::site::{
    INDEX, Lines, SKILL, SKILL_MD, Site, WELL_WRITTEN, check_app, check_site, entry, fail_line,
    good_site, index, ok,
};

#[tokio::test(flavor = "multi_thread")]
async fn the_authoring_advice_is_a_line_per_rule_with_its_code() {
    static SCRIPT: [skillpub_core::SkillFile; 1] = [skillpub_core::SkillFile::from_static(
        "scripts/extract.py",
        b"print()\n",
        false,
    )];
    let skill = Skill::from_static_parts(
        "skills/tables",
        b"---\nname: tables\ndescription: Extracts the text and the tables of PDF files as CSV.\n---\n# Tables\n\nSee [the options](references/options.md) and run `python scripts/extract.py`.\n",
        &SCRIPT,
    );
    let app = skillpub_axum::router(Catalog::new([skill]).unwrap());
    let report = check_app(app, "/").await;
    assert!(report.passed(), "advice never fails a check: {report}");
    let json = report.to_json();
    let advice: Vec<(&str, &str, &str)> = json["checks"]
        .as_array()
        .expect("a list of checks")
        .iter()
        .filter(|c| c["code"] == "skill.advice")
        .map(|c| {
            let rule = c["rule"].as_str().unwrap_or("");
            let message = c["message"].as_str().unwrap();
            assert!(message.ends_with(&format!(" [{rule}]")), "{c}");
            (
                c["status"].as_str().unwrap(),
                c["subject"].as_str().unwrap(),
                rule,
            )
        })
        .collect();
    assert_eq!(
        advice,
        [
            ("warn", "tables", "description.no-trigger"),
            ("warn", "tables", "link.missing-file"),
            ("ok", "tables", "scripts.present"),
        ]
    );
    assert_eq!(
        report.message(Status::Warn, "tables", "skill.advice"),
        "the description says what the skill does but not when to use it; add a \"Use when ...\" sentence naming the user's situations (the description is all an agent sees before it picks a skill) [description.no-trigger]"
    );

    let text = report.to_string();
    assert!(
        text.lines().any(|line| line.starts_with("warn  skill.advice ")
            && line.ends_with(" tables: SKILL.md refers to \"references/options.md\", which the skill does not contain [link.missing-file]")),
        "{text}"
    );

    let app = skillpub_axum::router(Catalog::new([Skill::from_static(WELL_WRITTEN)]).unwrap());
    let report = check_app(app, "/").await;
    assert_eq!(
        report.message(Status::Ok, "greeting", "skill.advice"),
        "SKILL.md has no authoring warnings"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn control_characters_from_the_server_are_escaped() {
    let invented = index("").replace(SCHEMA_URI, "evil\\u001b[2J");
    let site = Site::new(vec![(INDEX, ok("application/json", invented))]);
    let report = check_site(site).await;
    assert!(!report.passed());
    let text = report.to_string();
    assert!(!text.contains('\u{1b}'), "{text:?}");
    fail_line(&text, "evil\\u{1b}[2J");
}

#[tokio::test(flavor = "multi_thread")]
async fn bidi_and_invisible_characters_from_the_server_are_escaped() {
    let evil = "\u{202e}exe.\u{200b}tab\u{2066}";
    let entries = format!(
        r#"{},{{"name":"{evil}","type":"skill-md","description":"d","url":"x","digest":"sha256:00"}}"#,
        entry(
            "greeting",
            "skill-md",
            "Greets the user by name.",
            SKILL,
            SKILL_MD.as_bytes()
        ),
    );
    let mut site = good_site();
    site.routes[0].1 = ok("application/json", index(&entries));
    let report = check_site(site).await;
    assert!(!report.passed());
    let text = report.to_string();
    for hidden in ['\u{202e}', '\u{200b}', '\u{2066}'] {
        assert!(!text.contains(hidden), "{hidden:?} in {text:?}");
    }
    fail_line(&text, "\\u{202e}exe.\\u{200b}tab\\u{2066}: `name`");
}
