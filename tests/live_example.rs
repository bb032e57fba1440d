//! The live example, a real shipped binary: an admin adds, replaces and removes skills over
//! HTTP and the index follows without a restart; every refusal (no token, a wrong one, an
//! invalid skill, a name that disagrees, a body too large, an absent skill) changes nothing;
//! concurrent edits all land; and without `SKILLPUB_ADMIN_TOKEN` there is no admin route.

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use skillpub::model::paths::{INDEX_PATH, WELL_KNOWN_PATH};
use skillpub_testkit::{Response, Running, built_binary, request, request_with_body};

const TOKEN: &str = "correct horse battery staple";
const BEARER: &str = "Bearer correct horse battery staple";

/// Starts the example on a free port, with this admin token (none when `None`).
fn start(token: Option<&str>) -> (Running, SocketAddr) {
    let mut command = Command::new(built_binary("examples/live"));
    match token {
        Some(token) => command.env("SKILLPUB_ADMIN_TOKEN", token),
        None => command.env_remove("SKILLPUB_ADMIN_TOKEN"),
    };
    let (running, announced) = Running::demo(&mut command);
    (running, announced.addr)
}

fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\nThe steps.\n")
}

async fn put(addr: SocketAddr, name: &str, authorization: Option<&str>, body: &str) -> Response {
    let headers: Vec<(&str, &str)> = authorization
        .map(|a| ("Authorization", a))
        .into_iter()
        .collect();
    let path = format!("/admin/skills/{name}");
    request_with_body(addr, "PUT", &path, &headers, body.as_bytes()).await
}

async fn delete(addr: SocketAddr, name: &str, authorization: Option<&str>) -> Response {
    let headers: Vec<(&str, &str)> = authorization
        .map(|a| ("Authorization", a))
        .into_iter()
        .collect();
    request(addr, "DELETE", &format!("/admin/skills/{name}"), &headers).await
}

/// The index, as served now.
async fn get_index(addr: SocketAddr) -> Response {
    let answer = request(addr, "GET", INDEX_PATH, &[]).await;
    assert_eq!(answer.status, 200);
    answer
}

async fn index(addr: SocketAddr) -> Vec<u8> {
    get_index(addr).await.body
}

/// The names of the skills in the index.
async fn names(addr: SocketAddr) -> Vec<String> {
    get_index(addr).await.skill_names()
}

/// The problems of a `400`.
fn problems(answer: &Response) -> Vec<serde_json::Value> {
    assert_eq!(answer.status, 400, "{}", answer.text());
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
    body["errors"].as_array().unwrap().clone()
}

const EXAMPLE_SKILLS: [&str; 2] = ["verify-skill-digests", "write-skill-md"];

#[tokio::test]
async fn an_admin_adds_replaces_and_removes_skills_and_the_index_follows_without_a_restart() {
    let (_example, addr) = start(Some(TOKEN));
    assert_eq!(names(addr).await, EXAMPLE_SKILLS);
    let notes = format!("{WELL_KNOWN_PATH}notes/SKILL.md");

    let first = skill_md("notes", "Takes notes.");
    let added = put(addr, "notes", Some(BEARER), &first).await;
    assert_eq!(added.status, 201, "{}", added.text());
    assert_eq!(
        names(addr).await,
        ["notes", EXAMPLE_SKILLS[0], EXAMPLE_SKILLS[1]]
    );
    assert_eq!(
        request(addr, "GET", &notes, &[]).await.body,
        first.as_bytes()
    );

    let second = skill_md("notes", "Takes and files notes.");
    let replaced = put(addr, "notes", Some(BEARER), &second).await;
    assert_eq!(replaced.status, 200, "{}", replaced.text());
    assert_eq!(
        request(addr, "GET", &notes, &[]).await.body,
        second.as_bytes()
    );

    let lower_case_scheme = format!("bearer {TOKEN}");
    let removed = delete(addr, "notes", Some(&lower_case_scheme)).await;
    assert_eq!(removed.status, 204);
    assert!(removed.body.is_empty());
    assert_eq!(names(addr).await, EXAMPLE_SKILLS);
    assert_eq!(request(addr, "GET", &notes, &[]).await.status, 404);
}

#[tokio::test]
async fn every_refused_edit_leaves_the_catalog_unchanged() {
    let (_example, addr) = start(Some(TOKEN));
    let before = index(addr).await;
    let valid = skill_md("notes", "Takes notes.");

    // No token, a wrong one, another scheme: 401 before anything is read.
    for authorization in [
        None,
        Some("Bearer wrong"),
        Some("Basic Y29ycmVjdA=="),
        Some(TOKEN),
    ] {
        let answer = put(addr, "notes", authorization, &valid).await;
        assert_eq!(answer.status, 401, "{authorization:?}");
        assert_eq!(answer.header("www-authenticate"), Some("Bearer"));
        let answer = delete(addr, EXAMPLE_SKILLS[0], authorization).await;
        assert_eq!(answer.status, 401, "{authorization:?}");
    }

    // An invalid SKILL.md: every problem, each naming its skill, file and field (the name
    // has uppercase letters and a trailing underscore, and the description is missing).
    let invalid = "---\nname: Notes_\n---\n";
    let problems_of_invalid = problems(&put(addr, "notes", Some(BEARER), invalid).await);
    assert!(problems_of_invalid.len() >= 2, "{problems_of_invalid:?}");
    for problem in &problems_of_invalid {
        assert!(problem["skill"].is_string(), "{problem}");
        assert_eq!(problem["file"], "notes/SKILL.md", "{problem}");
        assert!(
            problem["code"].is_string() && problem["message"].is_string(),
            "{problem}"
        );
    }
    let fields: Vec<&str> = problems_of_invalid
        .iter()
        .filter_map(|p| p["field"].as_str())
        .collect();
    assert!(
        fields.contains(&"name") && fields.contains(&"description"),
        "{fields:?}"
    );

    // The name in the path and the name in the frontmatter disagree.
    let other = problems(&put(addr, "notes", Some(BEARER), &skill_md("memos", "Memos.")).await);
    assert!(
        other
            .iter()
            .any(|p| p["message"].as_str().unwrap().contains("memos")),
        "{other:?}"
    );

    // A path that is not a skill name.
    let bad_name = problems(&put(addr, "Notes", Some(BEARER), &valid).await);
    assert!(!bad_name.is_empty());

    // A body over the bound.
    let large = format!("{valid}{}", "x".repeat(300 * 1024));
    assert_eq!(put(addr, "notes", Some(BEARER), &large).await.status, 413);

    // Removing a skill that is not there.
    let absent = delete(addr, "notes", Some(BEARER)).await;
    assert_eq!(absent.status, 404);
    assert!(absent.text().contains("notes"), "{}", absent.text());

    assert_eq!(index(addr).await, before, "the catalog is unchanged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_edits_all_land() {
    let (_example, addr) = start(Some(TOKEN));
    let edits: Vec<_> = (0..16)
        .map(|i| {
            tokio::spawn(async move {
                let name = format!("skill-{i:02}");
                let answer = put(
                    addr,
                    &name,
                    Some(BEARER),
                    &skill_md(&name, "Does one thing."),
                )
                .await;
                assert_eq!(answer.status, 201, "{name}: {}", answer.text());
            })
        })
        .collect();
    for edit in edits {
        edit.await.unwrap();
    }
    let names = names(addr).await;
    for i in 0..16 {
        assert!(
            names.contains(&format!("skill-{i:02}")),
            "skill-{i:02} lost: {names:?}"
        );
    }
    assert_eq!(names.len(), 16 + EXAMPLE_SKILLS.len());
}

#[tokio::test]
async fn without_the_token_variable_there_is_no_admin_route() {
    let (_example, addr) = start(None);
    let valid = skill_md("notes", "Takes notes.");
    assert_eq!(put(addr, "notes", Some(BEARER), &valid).await.status, 404);
    assert_eq!(
        delete(addr, EXAMPLE_SKILLS[0], Some(BEARER)).await.status,
        404
    );
    assert_eq!(names(addr).await, EXAMPLE_SKILLS);
}

#[test]
fn an_empty_token_is_refused_at_start() {
    let mut example = Running::spawn(
        Command::new(built_binary("examples/live"))
            .env("SKILLPUB_ADDR", "127.0.0.1:0")
            .env("SKILLPUB_ADMIN_TOKEN", "")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    );
    let status = example
        .wait_within(Duration::from_secs(30))
        .expect("it exits at once");
    assert!(!status.success());
}
