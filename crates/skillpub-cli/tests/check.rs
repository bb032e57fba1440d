//! `skillpub check` over real TCP on 127.0.0.1: the demo passes every check; each deliberately
//! broken server fails with the right code (the tests read `--json` and assert on codes, not
//! on the wording of messages).

use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode};
use skillpub_core::{Catalog, Digest, SCHEMA_URI, Skill};

const SKILL_MD: &str =
    "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n";

/// Serves `app` on a free port of 127.0.0.1 until the test ends.
async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// Runs `skillpub` with the arguments; returns whether it exited 0, and stdout.
async fn skillpub(args: &[&str]) -> (bool, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args(args)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.success(), stdout)
}

async fn check(addr: SocketAddr, extra: &[&str]) -> (bool, String) {
    let url = format!("http://{addr}");
    let mut args = vec!["check", url.as_str()];
    args.extend_from_slice(extra);
    skillpub(&args).await
}

/// One prepared answer for GET (and HEAD, unless the site says otherwise).
#[derive(Clone)]
struct Answer {
    status: StatusCode,
    content_type: &'static str,
    body: Vec<u8>,
    location: Option<String>,
}

fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Answer {
    Answer {
        status: StatusCode::OK,
        content_type,
        body: body.into(),
        location: None,
    }
}

/// A hand-made site: exact paths to answers, a fallback, and how HEAD is treated.
#[derive(Clone)]
struct Site {
    routes: Vec<(String, Answer)>,
    fallback: Answer,
    head_status: Option<StatusCode>,
}

impl Site {
    fn new(routes: Vec<(&str, Answer)>) -> Self {
        Self {
            routes: routes.into_iter().map(|(p, a)| (p.to_owned(), a)).collect(),
            fallback: Answer {
                status: StatusCode::NOT_FOUND,
                content_type: "text/plain",
                body: b"not found".to_vec(),
                location: None,
            },
            head_status: None,
        }
    }

    fn router(self) -> Router {
        Router::new().fallback(move |request: Request<Body>| {
            let site = self.clone();
            async move {
                let path = request.uri().path();
                let answer = site
                    .routes
                    .iter()
                    .find(|(p, _)| p == path)
                    .map_or(&site.fallback, |(_, a)| a)
                    .clone();
                let head = request.method() == Method::HEAD;
                let status = match site.head_status {
                    Some(status) if head => status,
                    _ => answer.status,
                };
                let mut response = Response::new(Body::from(if head {
                    Vec::new()
                } else {
                    answer.body.clone()
                }));
                *response.status_mut() = status;
                let headers = response.headers_mut();
                headers.insert(
                    "content-type",
                    HeaderValue::from_static(answer.content_type),
                );
                headers.insert("content-length", HeaderValue::from(answer.body.len()));
                if let Some(location) = answer.location {
                    headers.insert("location", HeaderValue::from_str(&location).unwrap());
                }
                response
            }
        })
    }
}

fn index(entries: &str) -> String {
    format!(r#"{{"$schema":"{SCHEMA_URI}","skills":[{entries}]}}"#)
}

fn entry(name: &str, kind: &str, description: &str, url: &str, bytes: &[u8]) -> String {
    format!(
        r#"{{"name":"{name}","type":"{kind}","description":"{description}","url":"{url}","digest":"{}"}}"#,
        Digest::of(bytes)
    )
}

const INDEX: &str = "/.well-known/agent-skills/index.json";
const SKILL: &str = "/.well-known/agent-skills/greeting/SKILL.md";

/// A correct hand-made site with one skill.
fn good_site() -> Site {
    one_skill_site("Greets the user by name.", SKILL_MD)
}

/// A site with one `skill-md` entry whose digest matches `skill_md`, served as Markdown.
fn one_skill_site(description: &str, skill_md: &str) -> Site {
    let entry = entry(
        "greeting",
        "skill-md",
        description,
        SKILL,
        skill_md.as_bytes(),
    );
    Site::new(vec![
        (INDEX, ok("application/json", index(&entry))),
        (
            SKILL,
            ok("text/markdown; charset=utf-8", skill_md.to_owned()),
        ),
    ])
}

/// Serves a hand-made site and checks it.
async fn check_site(site: Site, extra: &[&str]) -> (bool, String) {
    check(serve(site.router()).await, extra).await
}

fn fail_line<'a>(stdout: &'a str, needle: &str) -> &'a str {
    stdout
        .lines()
        .find(|line| line.starts_with("FAIL") && line.contains(needle))
        .unwrap_or_else(|| panic!("no FAIL line with `{needle}`:\n{stdout}"))
}

/// The lines of a `--json` report.
struct Report(serde_json::Value);

impl Report {
    fn parse(stdout: &str) -> Self {
        Self(serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}")))
    }

    fn checks(&self) -> &[serde_json::Value] {
        self.0["checks"].as_array().expect("a list of checks")
    }

    /// The line with this status, subject and code; panics with the report without one.
    fn line(&self, status: &str, subject: &str, code: &str) -> &serde_json::Value {
        self.checks()
            .iter()
            .find(|c| c["status"] == status && c["subject"] == subject && c["code"] == code)
            .unwrap_or_else(|| panic!("no {status} line `{subject}` {code}:\n{:#}", self.0))
    }

    /// The message of the line with this status, subject and code.
    fn message(&self, status: &str, subject: &str, code: &str) -> &str {
        self.line(status, subject, code)["message"]
            .as_str()
            .expect("a message")
    }

    /// `(subject, code)` of every failed line.
    fn failures(&self) -> Vec<(&str, &str)> {
        self.checks()
            .iter()
            .filter(|c| c["status"] == "fail")
            .map(|c| (c["subject"].as_str().unwrap(), c["code"].as_str().unwrap()))
            .collect()
    }
}

/// Runs `skillpub check --json` against a server; returns whether it passed, and the report.
async fn check_json(addr: SocketAddr, extra: &[&str]) -> (bool, Report) {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    let (passed, stdout) = check(addr, &args).await;
    (passed, Report::parse(&stdout))
}

/// Serves a hand-made site and checks it with `--json`.
async fn check_site_json(site: Site, extra: &[&str]) -> (bool, Report) {
    check_json(serve(site.router()).await, extra).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_passes_every_check() {
    let catalog = Catalog::from_dir(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/skills"
    ))
    .unwrap();
    let addr = serve(skillpub_axum::router(catalog)).await;
    let (passed, stdout) = check(addr, &[]).await;
    assert!(passed, "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let (summary, checks) = lines.split_last().unwrap();
    assert!(
        checks.iter().all(|line| line.starts_with("ok ")),
        "{stdout}"
    );
    assert!(checks.len() > 20, "{stdout}");
    assert!(summary.ends_with("ok, 0 warnings, 0 failed"), "{stdout}");
}

/// A skill that draws no authoring advice either.
const WELL_WRITTEN: &str = "---\nname: greeting\ndescription: Greets the user by name. Use when a conversation starts.\n---\nSay hello.\n";

#[tokio::test(flavor = "multi_thread")]
async fn json_output_is_one_report() {
    let addr = serve(skillpub_axum::router(
        Catalog::new([Skill::from_static(WELL_WRITTEN)]).unwrap(),
    ))
    .await;
    let (passed, report) = check_json(addr, &[]).await;
    assert!(passed);
    assert_eq!(report.0["passed"], true);
    assert_eq!(report.0["summary"]["fail"], 0);
    for check in report.checks() {
        assert_eq!(check["status"], "ok", "{check}");
        let code = check["code"].as_str().expect("every line has a code");
        assert!(
            code.parse::<skillpub_client::CheckKind>().is_ok(),
            "{check}"
        );
    }
    for code in [
        "index.status",
        "entry.digest",
        "skill.frontmatter",
        "site.not-modified",
    ] {
        assert!(report.checks().iter().any(|c| c["code"] == code), "{code}");
    }
}

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
    let addr = serve(skillpub_axum::router(Catalog::new([skill]).unwrap())).await;
    let (passed, report) = check_json(addr, &[]).await;
    assert!(passed, "advice never fails a check: {:#}", report.0);
    let advice: Vec<(&str, &str, &str)> = report
        .checks()
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
        report.message("warn", "tables", "skill.advice"),
        "the description says what the skill does but not when to use it; add a \"Use when ...\" sentence naming the user's situations (the description is all an agent sees before it picks a skill) [description.no-trigger]"
    );

    let (_, stdout) = check(addr, &[]).await;
    assert!(
        stdout.lines().any(|line| line.starts_with("warn  skill.advice ")
            && line.ends_with(" tables: SKILL.md refers to \"references/options.md\", which the skill does not contain [link.missing-file]")),
        "{stdout}"
    );

    let (_, report) = check_json(
        serve(skillpub_axum::router(
            Catalog::new([Skill::from_static(WELL_WRITTEN)]).unwrap(),
        ))
        .await,
        &[],
    )
    .await;
    assert_eq!(
        report.message("ok", "greeting", "skill.advice"),
        "SKILL.md follows the authoring advice"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hand_made_site_without_caching_headers_passes_with_warnings() {
    let (passed, report) = check_site_json(good_site(), &[]).await;
    assert!(passed, "{:#}", report.0);
    for code in ["site.cache-control", "site.cors", "site.etag"] {
        report.line("warn", "site", code);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn digest_drift_fails() {
    let mut site = good_site();
    site.routes[1].1 = ok("text/markdown", format!("{SKILL_MD}\n"));
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    let line = report.message("fail", "greeting", "entry.digest");
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
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("greeting", "entry.media-type")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn head_answered_404_or_405_fails() {
    for status in [StatusCode::NOT_FOUND, StatusCode::METHOD_NOT_ALLOWED] {
        let mut site = good_site();
        site.head_status = Some(status);
        let (passed, report) = check_site_json(site, &[]).await;
        assert!(!passed);
        report.line("fail", "index", "index.head-parity");
        report.line("fail", "greeting", "entry.head-parity");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_200_page_for_a_missing_skill_fails() {
    let mut site = good_site();
    site.fallback = ok("text/html", "<html>app</html>");
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("site", "site.not-found-probe")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_and_invented_schemas_fail() {
    let legacy = r#"{"skills":[{"name":"greeting","description":"Greets the user by name.","files":["SKILL.md"]}]}"#;
    let site = Site::new(vec![
        (INDEX, ok("application/json", legacy)),
        (SKILL, ok("text/markdown", SKILL_MD)),
    ]);
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    report.line("fail", "index", "index.schema");

    let invented = index("").replace(
        SCHEMA_URI,
        "https://agentskills.io/schemas/v0.2.0/index.json",
    );
    let site = Site::new(vec![(INDEX, ok("application/json", invented))]);
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "index.schema")]);
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
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("greeting", "entry.local-url")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_description_that_differs_from_the_frontmatter_warns() {
    let site = one_skill_site("Says hi.", SKILL_MD);
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(passed, "a SHOULD is a warning:\n{:#}", report.0);
    report.line("warn", "greeting", "skill.description");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_frontmatter_name_that_differs_from_the_index_fails() {
    let other = SKILL_MD.replace("name: greeting", "name: hello");
    let site = one_skill_site("Greets the user by name.", &other);
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("greeting", "skill.name")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_loop_fails() {
    let mut redirect = ok("text/plain", "");
    redirect.status = StatusCode::FOUND;
    redirect.location = Some(INDEX.to_owned());
    let site = Site::new(vec![(INDEX, redirect)]);
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "fetch.redirect")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_never_answers_times_out() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming().flatten() {
            open.push(stream);
        }
    });
    let started = std::time::Instant::now();
    let (passed, report) = check_json(addr, &["--timeout", "1"]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "fetch.timeout")]);
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_larger_than_the_cap_fails() {
    let padding = " ".repeat(5000);
    let site = Site::new(vec![(
        INDEX,
        ok("application/json", format!("{}{padding}", index(""))),
    )]);
    let (passed, report) = check_site_json(site, &["--max-size", "1000"]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "fetch.too-large")]);
}

/// A site serving one archive skill with these bytes.
fn archive_site(archive: Vec<u8>, content_type: &'static str, suffix: &str) -> Site {
    let url = format!("/.well-known/agent-skills/greeting{suffix}");
    let index = index(&entry(
        "greeting",
        "archive",
        "Greets the user by name.",
        &url,
        &archive,
    ));
    let mut site = Site::new(vec![(INDEX, ok("application/json", index))]);
    site.routes.push((url, ok(content_type, archive)));
    site
}

fn tar_gz(entries: &[(&str, &[u8])], link: Option<(&str, &str)>) -> Vec<u8> {
    let gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gzip);
    for (path, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, *bytes).unwrap();
    }
    if let Some((path, target)) = link {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        tar.append_link(&mut header, path, target).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_gzip_bomb_fails() {
    let zeros = vec![0_u8; 8 * 1024 * 1024];
    let bomb = tar_gz(
        &[
            ("SKILL.md", SKILL_MD.as_bytes()),
            ("assets/zeros.bin", &zeros),
        ],
        None,
    );
    assert!(bomb.len() < 100_000, "{}", bomb.len());
    let site = archive_site(bomb, "application/gzip", ".tar.gz");
    let (passed, report) = check_site_json(site, &["--max-size", "1048576"]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("greeting", "archive.too-large")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_zip_slip_archive_fails() {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("SKILL.md", options).unwrap();
    zip.write_all(SKILL_MD.as_bytes()).unwrap();
    zip.start_file("../../evil.sh", options).unwrap();
    zip.write_all(b"rm -rf ~").unwrap();
    let archive = zip.finish().unwrap().into_inner();
    let site = archive_site(archive, "application/zip", ".zip");
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("greeting", "archive.traversal")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_that_escapes_fails() {
    let archive = tar_gz(
        &[("SKILL.md", SKILL_MD.as_bytes())],
        Some(("references/passwd", "../../../etc/passwd")),
    );
    let site = archive_site(archive, "application/gzip", ".tar.gz");
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("greeting", "archive.link")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_good_archive_served_as_octet_stream_fails_on_the_type_only() {
    let archive = tar_gz(
        &[
            ("SKILL.md", SKILL_MD.as_bytes()),
            ("references/a.md", b"# A\n"),
        ],
        None,
    );
    let site = archive_site(archive, "application/octet-stream", ".tar.gz");
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("greeting", "entry.media-type")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_whose_entries_are_all_unusable_fails() {
    let entries = format!(
        "{},{}",
        entry("greeting", "bundle", "d", SKILL, SKILL_MD.as_bytes()),
        r#"{"name":"x"}"#
    );
    let site = Site::new(vec![(INDEX, ok("application/json", index(&entries)))]);
    let (passed, report) = check_site_json(site, &[]).await;
    assert!(!passed);
    assert_eq!(
        report.failures(),
        [("index", "index.skills"), ("x", "entry.fields")]
    );
    report.line("warn", "greeting", "entry.type");
}

#[tokio::test(flavor = "multi_thread")]
async fn control_characters_from_the_server_are_escaped() {
    let invented = index("").replace(SCHEMA_URI, "evil\\u001b[2J");
    let site = Site::new(vec![(INDEX, ok("application/json", invented))]);
    let (passed, stdout) = check_site(site, &[]).await;
    assert!(!passed);
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    fail_line(&stdout, "evil\\u{1b}[2J");
}

/// Runs `skillpub` with the arguments and environment changes; returns whether it exited 0,
/// stdout and stderr.
async fn skillpub_with(args: &[&str], env: &[(&str, Option<&str>)]) -> (bool, String, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_skillpub"));
    command.args(args).kill_on_drop(true);
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let output = command.output().await.unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Serves a site whose only entry is this archive and checks it within `--max-time 60`;
/// returns the report, once it has checked that the run took well under a minute.
async fn check_hostile(archive: Vec<u8>, content_type: &'static str, suffix: &str) -> Report {
    let site = archive_site(archive, content_type, suffix);
    let started = std::time::Instant::now();
    let (passed, report) = check_site_json(site, &["--max-time", "60"]).await;
    assert!(!passed, "{:#}", report.0);
    // Checked in one pass, the archive is refused at once; the quadratic checks took minutes.
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:#}",
        report.0
    );
    report
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_target_of_a_million_segments_is_refused_at_once() {
    let gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gzip);
    let mut header = tar::Header::new_gnu();
    header.set_size(SKILL_MD.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "SKILL.md", SKILL_MD.as_bytes())
        .unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Symlink);
    header.set_size(0);
    tar.append_link(&mut header, "references/l", "a/".repeat(1_000_000))
        .unwrap();
    let archive = tar.into_inner().unwrap().finish().unwrap();
    assert!(archive.len() < 10_000, "{}", archive.len());
    let report = check_hostile(archive, "application/gzip", ".tar.gz").await;
    assert_eq!(report.failures(), [("greeting", "archive.path-length")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_path_of_a_million_segments_behind_a_link_is_refused_at_once() {
    let gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gzip);
    let file = |tar: &mut tar::Builder<_>, path: &str, bytes: &[u8]| {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, bytes).unwrap();
    };
    file(&mut tar, "SKILL.md", SKILL_MD.as_bytes());
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Symlink);
    header.set_size(0);
    tar.append_link(&mut header, "x", "SKILL.md").unwrap();
    file(&mut tar, &format!("{}f.md", "a/".repeat(1_000_000)), b"x");
    let archive = tar.into_inner().unwrap().finish().unwrap();
    assert!(archive.len() < 10_000, "{}", archive.len());
    let report = check_hostile(archive, "application/gzip", ".tar.gz").await;
    assert_eq!(report.failures(), [("greeting", "archive.path-length")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_zip_of_deep_paths_behind_a_link_is_refused_at_once() {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("SKILL.md", options).unwrap();
    zip.write_all(SKILL_MD.as_bytes()).unwrap();
    zip.add_symlink("x", "SKILL.md", options).unwrap();
    for at in 0..20 {
        zip.start_file(format!("{}f{at}.md", "a/".repeat(32_000)), options)
            .unwrap();
        zip.write_all(b"x").unwrap();
    }
    let archive = zip.finish().unwrap().into_inner();
    let report = check_hostile(archive, "application/zip", ".zip").await;
    assert_eq!(report.failures(), [("greeting", "archive.path-length")]);
}

/// A site whose index lists `count` `skill-md` entries `s0`, `s1`, ...; each GET or HEAD of
/// a skill waits `delay(position)` before answering (forever when `None`). Returns the
/// address and the most requests for skills that were in flight at once.
async fn slow_site(
    count: usize,
    delay: impl Fn(usize) -> Option<Duration> + Send + Sync + 'static,
) -> (SocketAddr, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let skill_md = |at: usize| SKILL_MD.replace("greeting", &format!("s{at}"));
    let entries: Vec<String> = (0..count)
        .map(|at| {
            entry(
                &format!("s{at}"),
                "skill-md",
                "Greets the user by name.",
                &format!("/.well-known/agent-skills/s{at}/SKILL.md"),
                skill_md(at).as_bytes(),
            )
        })
        .collect();
    let index = index(&entries.join(","));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let delay = Arc::new(delay);
    let (flying, highest) = (in_flight.clone(), most.clone());
    let app = Router::new().fallback(move |request: Request<Body>| {
        let (index, delay, flying, highest) = (
            index.clone(),
            delay.clone(),
            flying.clone(),
            highest.clone(),
        );
        async move {
            let path = request.uri().path().to_owned();
            let head = request.method() == Method::HEAD;
            let answer = |content_type: &'static str, body: String| {
                let length = body.len();
                let mut response =
                    Response::new(Body::from(if head { String::new() } else { body }));
                let headers = response.headers_mut();
                headers.insert("content-type", HeaderValue::from_static(content_type));
                headers.insert("content-length", HeaderValue::from(length));
                response
            };
            if path == INDEX {
                return answer("application/json", index);
            }
            let skill = path
                .strip_prefix("/.well-known/agent-skills/s")
                .and_then(|rest| rest.strip_suffix("/SKILL.md"))
                .and_then(|at| at.parse::<usize>().ok());
            let Some(at) = skill else {
                let mut response = answer("text/plain", "not found".into());
                *response.status_mut() = StatusCode::NOT_FOUND;
                return response;
            };
            let now = flying.fetch_add(1, Ordering::SeqCst) + 1;
            highest.fetch_max(now, Ordering::SeqCst);
            match delay(at) {
                Some(delay) => tokio::time::sleep(delay).await,
                None => std::future::pending::<()>().await,
            }
            flying.fetch_sub(1, Ordering::SeqCst);
            answer(
                "text/markdown; charset=utf-8",
                SKILL_MD.replace("greeting", &format!("s{at}")),
            )
        }
    });
    (serve(app).await, most)
}

#[tokio::test(flavor = "multi_thread")]
async fn max_time_bounds_a_run_of_stalled_entries() {
    let (addr, _) = slow_site(20, |_| None).await;
    let started = std::time::Instant::now();
    let (passed, report) = check_json(addr, &["--timeout", "2", "--max-time", "4"]).await;
    let took = started.elapsed();
    assert!(!passed);
    // Twenty stalled entries took 20 x --timeout (40 s) one after the other.
    assert!(took < Duration::from_secs(15), "{took:?}\n{:#}", report.0);
    // The first entries run out of --timeout, later ones of --max-time.
    let s0 = report
        .failures()
        .into_iter()
        .find(|(subject, _)| *subject == "s0");
    assert!(
        matches!(s0, Some((_, "fetch.timeout" | "run.max-time"))),
        "{s0:?}"
    );
    report.line("fail", "site", "run.max-time");
}

#[tokio::test(flavor = "multi_thread")]
async fn entries_are_fetched_a_few_at_a_time_and_reported_in_index_order() {
    // The first entries answer last.
    let count = 12;
    let (addr, most) = slow_site(count, move |at| {
        Some(Duration::from_millis(50 * (count - at) as u64))
    })
    .await;
    let (passed, report) = check_json(addr, &[]).await;
    assert!(passed, "{:#}", report.0);
    let most = most.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        (2..=skillpub_client::CONCURRENT_FETCHES).contains(&most),
        "{most} requests at once"
    );
    let subjects: Vec<&str> = report
        .checks()
        .iter()
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    let order: Vec<&str> = report
        .checks()
        .iter()
        .filter(|c| c["code"] == "entry.fields")
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (0..count).map(|at| format!("s{at}")).collect();
    assert_eq!(order, expected);
    let first_of_s1 = subjects.iter().position(|s| *s == "s1").unwrap();
    let last_of_s0 = subjects.iter().rposition(|s| *s == "s0").unwrap();
    assert!(
        last_of_s0 < first_of_s1,
        "the lines of one entry stay together: {subjects:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_numeric_flag_value_panics() {
    let addr = serve(skillpub_axum::router(
        Catalog::new([Skill::from_static(SKILL_MD)]).unwrap(),
    ))
    .await;
    let url = format!("http://{addr}");
    for flags in [
        ["--timeout", "18446744073709551615"],
        ["--max-time", "18446744073709551615"],
        ["--timeout", "99999999999999999999999999"],
        ["--max-size", "99999999999999999999999999"],
    ] {
        let (passed, stdout, stderr) =
            skillpub_with(&["check", &url, flags[0], flags[1]], &[]).await;
        assert!(passed, "{flags:?}: {stdout}{stderr}");
        assert!(!stderr.contains("panicked"), "{flags:?}: {stderr}");
    }
    for (flags, message) in [
        (
            ["--timeout", "0"],
            "0 seconds would stop every request at once",
        ),
        (
            ["--max-time", "0"],
            "0 seconds would stop every request at once",
        ),
        (["--timeout", "-1"], "`-1` is not a whole number"),
        (["--max-size", "1e9"], "`1e9` is not a whole number"),
    ] {
        let flag = format!("{}={}", flags[0], flags[1]);
        let (passed, _, stderr) = skillpub_with(&["check", &url, &flag], &[]).await;
        assert!(!passed);
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
        assert!(stderr.contains(flags[0]), "{flags:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{flags:?}: {stderr}");
    }
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
    let (passed, stdout) = check_site(site, &[]).await;
    assert!(!passed);
    for hidden in ['\u{202e}', '\u{200b}', '\u{2066}'] {
        assert!(!stdout.contains(hidden), "{hidden:?} in {stdout:?}");
    }
    fail_line(&stdout, "\\u{202e}exe.\\u{200b}tab\\u{2066}: `name`");
}

/// What the proxy was asked to tunnel to.
type Asked = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// A tiny HTTP CONNECT proxy on 127.0.0.1 (what ureq uses for `HTTP_PROXY`) that tunnels
/// every connection to `upstream`, whatever host it is asked for, and records the targets.
async fn connect_proxy(upstream: SocketAddr) -> (SocketAddr, Asked) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let asked = Asked::default();
    let log = asked.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0_u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if client.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head);
                let target = head
                    .strip_prefix("CONNECT ")
                    .and_then(|rest| rest.split(' ').next())
                    .unwrap_or_default();
                log.lock().unwrap().push(target.to_owned());
                let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                let established = b"HTTP/1.1 200 Connection established\r\n\r\n";
                if client.write_all(established).await.is_ok() {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
    (addr, asked)
}

/// The environment of a `skillpub` run whose only proxy is `proxy`.
fn proxy_env(proxy: &str) -> Vec<(&'static str, Option<&str>)> {
    let mut env: Vec<(&str, Option<&str>)> = [
        "ALL_PROXY",
        "all_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
    ]
    .into_iter()
    .map(|name| (name, None))
    .collect();
    env.push(("HTTP_PROXY", Some(proxy)));
    env
}

#[tokio::test(flavor = "multi_thread")]
async fn a_proxy_on_loopback_reaches_a_public_name() {
    let catalog = Catalog::new([Skill::from_static(SKILL_MD)]).unwrap();
    let site = serve(skillpub_axum::router(catalog)).await;
    let (proxy, asked) = connect_proxy(site).await;
    let proxy = format!("http://{proxy}");
    let (passed, stdout, stderr) = skillpub_with(
        &["check", "--json", "http://skills.example.com"],
        &proxy_env(&proxy),
    )
    .await;
    assert!(passed, "{stdout}{stderr}");
    // The skill came through the proxy.
    Report::parse(&stdout).line("ok", "greeting", "entry.digest");
    let asked = asked.lock().unwrap();
    assert!(!asked.is_empty());
    assert!(
        asked.iter().all(|target| target == "skills.example.com:80"),
        "{asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn through_a_proxy_a_private_target_is_still_refused_by_name() {
    let mut redirect = ok("text/plain", "");
    redirect.status = StatusCode::FOUND;
    redirect.location = Some("http://127.0.0.1:9/SKILL.md".to_owned());
    let mut site = good_site();
    site.routes[1].1 = redirect;
    let (proxy, asked) = connect_proxy(serve(site.router()).await).await;
    let proxy = format!("http://{proxy}");
    let (passed, stdout, _) = skillpub_with(
        &["check", "--json", "http://skills.example.com"],
        &proxy_env(&proxy),
    )
    .await;
    assert!(!passed);
    let report = Report::parse(&stdout);
    assert_eq!(report.failures(), [("greeting", "fetch.private-host")]);
    let message = report.message("fail", "greeting", "fetch.private-host");
    assert!(message.contains("http://127.0.0.1:9/SKILL.md"), "{message}");
    let asked = asked.lock().unwrap();
    assert!(
        asked.iter().all(|target| target == "skills.example.com:80"),
        "the proxy was never asked for the private target: {asked:?}"
    );
}

/// One artifact of a site that negotiates content codings.
#[derive(Clone)]
struct Negotiated {
    path: String,
    content_type: &'static str,
    bytes: Vec<u8>,
    /// The `Content-Encoding` sent to a request whose `Accept-Encoding` lists it (`identity`
    /// is sent as it is, with the header).
    coding: Option<&'static str>,
    /// Whether the coded answer keeps the plain answer's strong `ETag` (the defect).
    shared_etag: bool,
}

fn encode(coding: &str, bytes: &[u8]) -> Vec<u8> {
    match coding {
        "gzip" => {
            let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gzip.write_all(bytes).unwrap();
            gzip.finish().unwrap()
        }
        "br" => {
            let mut encoded = Vec::new();
            let mut br = brotli::CompressorWriter::new(&mut encoded, 4096, 9, 22);
            br.write_all(bytes).unwrap();
            drop(br);
            encoded
        }
        _ => bytes.to_vec(),
    }
}

/// Serves the artifacts with strong ETags, 304 for a matching If-None-Match, HEAD like GET,
/// and the coding of each artifact for requests that accept it; anything else is a 404.
async fn negotiating_site(artifacts: Vec<Negotiated>) -> SocketAddr {
    let app = Router::new().fallback(move |request: Request<Body>| {
        let artifacts = artifacts.clone();
        async move {
            let accepts = |coding: &str| {
                request
                    .headers()
                    .get("accept-encoding")
                    .and_then(|value| value.to_str().ok())
                    .is_some_and(|value| value.split(',').any(|c| c.trim() == coding))
            };
            let Some(artifact) = artifacts.iter().find(|a| a.path == request.uri().path()) else {
                let mut response = Response::new(Body::from("not found"));
                *response.status_mut() = StatusCode::NOT_FOUND;
                return response;
            };
            let plain_etag = format!("\"{}\"", Digest::of(&artifact.bytes));
            let coding = artifact.coding.filter(|c| *c == "identity" || accepts(c));
            let (bytes, etag) = match coding {
                Some(coding) if !artifact.shared_etag && coding != "identity" => (
                    encode(coding, &artifact.bytes),
                    plain_etag.replace("\"sha256:", &format!("\"{coding}-sha256:")),
                ),
                Some(coding) => (encode(coding, &artifact.bytes), plain_etag),
                None => (artifact.bytes.clone(), plain_etag),
            };
            let not_modified = request
                .headers()
                .get("if-none-match")
                .is_some_and(|value| value.as_bytes() == etag.as_bytes());
            let head = request.method() == Method::HEAD;
            let length = bytes.len();
            let mut response = Response::new(Body::from(if head || not_modified {
                Vec::new()
            } else {
                bytes
            }));
            let headers = response.headers_mut();
            headers.insert("etag", HeaderValue::from_str(&etag).unwrap());
            headers.insert("vary", HeaderValue::from_static("accept-encoding"));
            if not_modified {
                *response.status_mut() = StatusCode::NOT_MODIFIED;
                return response;
            }
            headers.insert(
                "content-type",
                HeaderValue::from_static(artifact.content_type),
            );
            headers.insert("content-length", HeaderValue::from(length));
            if let Some(coding) = coding {
                headers.insert("content-encoding", HeaderValue::from_static(coding));
            }
            response
        }
    });
    serve(app).await
}

/// The index and the `SKILL.md` of the one-skill site, each with its coding.
fn negotiated_skill(
    index_coding: Option<&'static str>,
    skill_coding: Option<&'static str>,
    shared_etag: bool,
) -> Vec<Negotiated> {
    let entry = entry(
        "greeting",
        "skill-md",
        "Greets the user by name.",
        SKILL,
        SKILL_MD.as_bytes(),
    );
    vec![
        Negotiated {
            path: INDEX.to_owned(),
            content_type: "application/json",
            bytes: index(&entry).into_bytes(),
            coding: index_coding,
            shared_etag,
        },
        Negotiated {
            path: SKILL.to_owned(),
            content_type: "text/markdown; charset=utf-8",
            bytes: SKILL_MD.as_bytes().to_vec(),
            coding: skill_coding,
            shared_etag,
        },
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn one_strong_etag_on_gzip_and_plain_bytes_fails() {
    let addr = negotiating_site(negotiated_skill(Some("gzip"), None, true)).await;
    let (passed, report) = check_json(addr, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "encoding.etag-reused")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn codings_with_their_own_etags_pass_and_digests_cover_the_decoded_bytes() {
    let addr = negotiating_site(negotiated_skill(Some("gzip"), Some("br"), false)).await;
    let (passed, report) = check_json(addr, &[]).await;
    assert!(passed, "{:#}", report.0);
    for (subject, code, etag) in [
        ("index", "encoding.etag-reused", "\"gzip-sha256:"),
        ("greeting", "encoding.etag-reused", "\"br-sha256:"),
        ("site", "site.not-modified", "\"gzip-sha256:"),
    ] {
        let message = report.message("ok", subject, code);
        assert!(message.contains(etag), "{subject} {code}: {message}");
    }
    report.line("ok", "greeting", "entry.digest");
}

/// A site whose one skill is this archive, served with this coding when accepted.
fn negotiated_archive(archive: Vec<u8>, coding: &'static str) -> Vec<Negotiated> {
    let url = "/.well-known/agent-skills/greeting.tar.gz";
    let entry = entry(
        "greeting",
        "archive",
        "Greets the user by name.",
        url,
        &archive,
    );
    vec![
        Negotiated {
            path: INDEX.to_owned(),
            content_type: "application/json",
            bytes: index(&entry).into_bytes(),
            coding: None,
            shared_etag: false,
        },
        Negotiated {
            path: url.to_owned(),
            content_type: "application/gzip",
            bytes: archive,
            coding: Some(coding),
            shared_etag: false,
        },
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn an_archive_sent_content_encoded_fails_and_identity_is_no_encoding() {
    let archive = tar_gz(&[("SKILL.md", SKILL_MD.as_bytes())], None);
    let addr = negotiating_site(negotiated_archive(archive.clone(), "gzip")).await;
    let (passed, report) = check_json(addr, &[]).await;
    assert!(!passed);
    assert_eq!(
        report.failures(),
        [("greeting", "encoding.archive-encoded")]
    );
    // The digest is checked on the decoded bytes.
    report.line("ok", "greeting", "entry.digest");

    let addr = negotiating_site(negotiated_archive(archive, "identity")).await;
    let (passed, report) = check_json(addr, &[]).await;
    assert!(passed, "{:#}", report.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_site_under_a_prefix_is_checked_under_it() {
    let catalog = Catalog::builder()
        .url_style(skillpub_core::UrlStyle::Relative)
        .skill(Skill::from_static(SKILL_MD))
        .build()
        .unwrap();
    // Outside the prefix, the app answers every path with its page: a probe that left the
    // prefix would see a 200 for a missing skill.
    let app = Router::new()
        .nest("/tenant", skillpub_axum::router(catalog))
        .fallback(|| async { axum::response::Html("<html>app</html>") });
    let addr = serve(app).await;
    for target in [
        format!("http://{addr}/tenant"),
        format!("http://{addr}/tenant/"),
    ] {
        let (passed, stdout) = skillpub(&["check", "--json", &target]).await;
        assert!(passed, "{target}\n{stdout}");
        let report = Report::parse(&stdout);
        let url = format!("http://{addr}/tenant/.well-known/agent-skills/greeting/SKILL.md");
        let entry = report.message("ok", "greeting", "entry.fields");
        assert!(entry.contains(&url), "{entry}");
        report.line("ok", "site", "site.not-found-probe");
    }
    let (passed, report) = check_json(addr, &[]).await;
    assert!(!passed, "the root has no index:\n{:#}", report.0);
    assert_eq!(report.failures(), [("index", "index.media-type")]);
}
