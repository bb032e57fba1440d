//! `skillpub check` over real TCP on 127.0.0.1: the demo passes every check; each deliberately
//! broken server fails with the right code (the tests read `--json` and assert on codes, not
//! on the wording of messages).

use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode};
use skillpub_core::{Catalog, Digest, Skill, index::SCHEMA_URI};
use skillpub_testkit::{Cli, Outcome, serve, serve_raw};

mod common;
use common::Report;

const SKILL_MD: &str =
    "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n";

/// The binary under test.
const SKILLPUB: Cli = Cli::new(env!("CARGO_BIN_EXE_skillpub"));

/// Runs `skillpub` with the arguments; returns whether it exited 0, and stdout.
async fn skillpub(args: &[&str]) -> (bool, String) {
    let outcome = SKILLPUB.run_async(args).await;
    (outcome.success, outcome.stdout)
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

/// Runs `skillpub check --json` on a URL; returns whether it passed, and the report.
async fn check_url(url: &str, extra: &[&str]) -> (bool, Report) {
    let mut args = vec!["check", "--json", url];
    args.extend_from_slice(extra);
    let (passed, stdout) = skillpub(&args).await;
    (passed, Report::parse(&stdout))
}

/// Runs `skillpub check --json` against a server; returns whether it passed, and the report.
async fn check_json(addr: SocketAddr, extra: &[&str]) -> (bool, Report) {
    check_url(&format!("http://{addr}"), extra).await
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
    let [checks @ .., grade, summary] = lines.as_slice() else {
        panic!("{stdout}");
    };
    assert!(
        checks.iter().all(|line| line.starts_with("ok ")),
        "{stdout}"
    );
    assert!(checks.len() > 20, "{stdout}");
    assert!(summary.ends_with("ok, 0 warnings, 0 failed"), "{stdout}");
    // The scanner accepts entry urls on port 80 or 443 only, so a server on a development
    // port grades PARTIAL until it is deployed.
    let entries = format!(
        "aiSiteReady agent_skills: PARTIAL (none of the 3 entries is valid (skills[0]: `url` resolves to http://{addr}/.well-known/agent-skills/"
    );
    assert!(grade.starts_with(&entries), "{stdout}");
    assert!(
        grade.ends_with("the scanner accepts only a host name with a dot on port 80 or 443))"),
        "{stdout}"
    );
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
        .of("skill.advice")
        .into_iter()
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
        "SKILL.md has no authoring warnings"
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
    let addr = serve_raw(|stream| {
        std::thread::sleep(Duration::from_secs(120));
        drop(stream);
    });
    let started = std::time::Instant::now();
    let (passed, report) = check_json(addr, &["--timeout", "1"]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "fetch.timeout")]);
    assert!(started.elapsed() < Duration::from_secs(30));
    let (status, reason) = report.grade();
    assert_eq!(status, "UNKNOWN", "{reason}");
    assert!(
        reason.starts_with("the index could not be fetched: "),
        "{reason}"
    );
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
        .of("entry.fields")
        .into_iter()
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
        let run = SKILLPUB
            .run_async(&["check", &url, flags[0], flags[1]])
            .await;
        let stderr = run.stderr;
        assert!(run.success, "{flags:?}: {}{stderr}", run.stdout);
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
        let run = SKILLPUB.run_async(&["check", &url, &flag]).await;
        let stderr = run.stderr;
        assert!(!run.success);
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

/// `skillpub` run with `proxy` as its only proxy.
fn through_proxy(proxy: &str) -> Cli {
    [
        "ALL_PROXY",
        "all_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
    ]
    .into_iter()
    .fold(SKILLPUB, |cli, name| cli.env(name, None))
    .env("HTTP_PROXY", Some(proxy))
}

/// Runs `skillpub` with `args` and then `http://skills.example.com`, reached through a CONNECT
/// proxy on 127.0.0.1 that tunnels to `upstream`; the run, and what the proxy was asked for.
async fn run_public(upstream: SocketAddr, args: &[&str]) -> (Outcome, Asked) {
    let (proxy, asked) = connect_proxy(upstream).await;
    let proxy = format!("http://{proxy}");
    let mut args = args.to_vec();
    args.push("http://skills.example.com");
    (through_proxy(&proxy).run_async(&args).await, asked)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_proxy_on_loopback_reaches_a_public_name() {
    let catalog = Catalog::new([Skill::from_static(SKILL_MD)]).unwrap();
    let site = serve(skillpub_axum::router(catalog)).await;
    let (run, asked) = run_public(site, &["check", "--json"]).await;
    assert!(run.success, "{}{}", run.stdout, run.stderr);
    // The skill came through the proxy.
    Report::parse(&run.stdout).line("ok", "greeting", "entry.digest");
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
    let (run, asked) = run_public(serve(site.router()).await, &["check", "--json"]).await;
    assert!(!run.success);
    let report = Report::parse(&run.stdout);
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
        .url_style(skillpub_core::index::UrlStyle::Relative)
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
        let (passed, report) = check_url(&target, &[]).await;
        assert!(passed, "{target}\n{:#}", report.0);
        let hex = Digest::of(SKILL_MD.as_bytes()).hex();
        let url =
            format!("http://{addr}/tenant/.well-known/agent-skills/sha256-{hex}/greeting/SKILL.md");
        let entry = report.message("ok", "greeting", "entry.fields");
        assert!(entry.contains(&url), "{entry}");
        report.line("ok", "site", "site.not-found-probe");
    }
    let (passed, report) = check_json(addr, &[]).await;
    assert!(!passed, "the root has no index:\n{:#}", report.0);
    assert_eq!(report.failures(), [("index", "index.media-type")]);
}

/// An answer with any status.
fn answer(status: StatusCode, content_type: &'static str, body: impl Into<Vec<u8>>) -> Answer {
    Answer {
        status,
        ..ok(content_type, body)
    }
}

/// Serves a site behind a CONNECT proxy on 127.0.0.1 and checks it as
/// `http://skills.example.com`: a public name on port 80, as the aiSiteReady scanner sees a
/// deployed site (entry urls on a development port are invalid to it).
async fn check_public(site: Site) -> (bool, Report) {
    let (run, _) = run_public(serve(site.router()).await, &["check", "--json"]).await;
    assert!(run.stdout.starts_with('{'), "{}{}", run.stdout, run.stderr);
    (run.success, Report::parse(&run.stdout))
}

/// The one-skill site with its index replaced.
fn with_index(index: Answer) -> Site {
    let mut site = good_site();
    site.routes[0].1 = index;
    site
}

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
            "index.status",
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
        let (passed, report) = check_public(site).await;
        let (graded, why) = report.grade();
        assert_eq!(graded, status, "{defect}: {why}");
        assert!(why.starts_with(reason), "{defect}: {why}");
        assert_eq!(passed, passes, "{defect}:\n{:#}", report.0);
        let seen = report.of(code);
        if defect == "none" {
            assert!(report.failures().is_empty(), "{:#}", report.0);
        } else {
            let severity = if passes { "warn" } else { "fail" };
            assert!(
                seen.iter().any(|line| line["status"] == severity),
                "{defect}: no {severity} line {code}:\n{:#}",
                report.0
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_site_with_digest_drift_is_pass_for_the_scanner_and_fails_here() {
    let mut site = good_site();
    site.routes[1].1 = ok("text/markdown", format!("{SKILL_MD}\n"));
    let (passed, report) = check_public(site.clone()).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("greeting", "entry.digest")]);
    let pass = "`$schema` declared, served as application/json, 1 of 1 entries valid";
    assert_eq!(report.grade(), ("PASS", pass));

    // The text report: the grade is the line before the summary.
    let (run, _) = run_public(serve(site.router()).await, &["check"]).await;
    let stdout = run.stdout;
    assert!(!run.success);
    let lines: Vec<&str> = stdout.lines().collect();
    let [.., grade, summary] = lines.as_slice() else {
        panic!("{stdout}");
    };
    assert_eq!(*grade, format!("aiSiteReady agent_skills: PASS ({pass})"));
    assert!(summary.ends_with("1 failed"), "{stdout}");
    fail_line(&stdout, "greeting: digest drift");
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
    let (passed, report) = check_public(with_index(ok("application/json", invented))).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "index.schema")]);
    assert_eq!(report.grade().0, "PASS");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prefix_is_graded_with_a_note_that_the_scanner_reads_only_the_root() {
    let catalog = Catalog::builder()
        .url_style(skillpub_core::index::UrlStyle::Relative)
        .skill(Skill::from_static(SKILL_MD))
        .build()
        .unwrap();
    let addr = serve(Router::new().nest("/tenant", skillpub_axum::router(catalog))).await;
    let (passed, report) = check_url(&format!("http://{addr}/tenant"), &[]).await;
    assert!(passed, "{:#}", report.0);
    let (_, reason) = report.grade();
    let note = format!(
        "; graded at http://{addr}/tenant/.well-known/agent-skills/index.json, but the scanner reads only http://{addr}/.well-known/agent-skills/index.json"
    );
    assert!(reason.ends_with(&note), "{reason}");
}

/// An app with an HTML page at `/docs`, the one-skill router at the root (or under
/// `/tenant`, with the catalog's base path) and `layer` around everything.
fn linked_app(tenant: bool, layer: skillpub_axum::AgentSkillsLinkLayer) -> Router {
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
    let app = linked_app(false, skillpub_axum::AgentSkillsLinkLayer::html_only());
    let addr = serve(app).await;
    let (passed, report) = check_url(&format!("http://{addr}/docs"), &[]).await;
    assert!(passed, "{:#}", report.0);
    let index = format!("http://{addr}/.well-known/agent-skills/index.json");
    let link = report.message("ok", "page", "discovery.link");
    assert_eq!(link, format!("Link rel=\"agent-skills\" names {index}"));
    let same = report.message("ok", "page", "discovery.link-mismatch");
    assert!(same.ends_with(&index), "{same}");
    report.line("ok", "greeting", "entry.digest");
    assert_eq!(report.0["summary"]["warn"], 0, "{:#}", report.0);

    // An origin is checked as before: no page, no discovery lines.
    let (passed, report) = check_json(addr, &[]).await;
    assert!(passed, "{:#}", report.0);
    assert!(report.of("discovery.link").is_empty(), "{:#}", report.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_whose_link_names_an_index_under_a_prefix_gets_that_index_checked() {
    let layer = skillpub_axum::AgentSkillsLinkLayer::html_only()
        .base_path("/tenant")
        .unwrap();
    let addr = serve(linked_app(true, layer)).await;
    let (passed, report) = check_url(&format!("http://{addr}/docs"), &[]).await;
    assert!(passed, "warnings only:\n{:#}", report.0);
    let linked = format!("http://{addr}/tenant/.well-known/agent-skills/index.json");
    assert_eq!(
        report.message("ok", "page", "discovery.link"),
        format!("Link rel=\"agent-skills\" names {linked}")
    );
    let only = report.message("warn", "page", "discovery.link-mismatch");
    assert!(
        only.starts_with("only the Link leads to an index"),
        "{only}"
    );
    assert!(
        only.contains(&format!("give clients http://{addr}/tenant")),
        "{only}"
    );
    // The Link's index is the one checked, under its prefix.
    let entry = report.message("ok", "greeting", "entry.fields");
    assert!(entry.contains(&format!("http://{addr}/tenant/")), "{entry}");
    report.line("ok", "site", "site.not-found-probe");
    // The scanner reads the well-known path, where there is nothing.
    assert_eq!(report.grade().0, "FAIL");

    // The prefix itself is still a prefix: its answer is no page with a Link.
    let (passed, report) = check_url(&format!("http://{addr}/tenant"), &[]).await;
    assert!(passed, "{:#}", report.0);
    assert!(report.of("discovery.link").is_empty(), "{:#}", report.0);
    report.line("ok", "greeting", "entry.digest");
}

/// An app whose page links to `/other/index.json` and whose well-known index is the
/// one-skill router's; `other` is served there, if any.
fn app_linking_elsewhere(other: Option<String>) -> Router {
    let layer = skillpub_axum::AgentSkillsLinkLayer::html_only()
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
    let addr = serve(app_linking_elsewhere(Some(other))).await;
    let (passed, report) = check_url(&format!("http://{addr}/docs"), &[]).await;
    assert!(passed, "{:#}", report.0);
    let two = report.message("warn", "page", "discovery.link-mismatch");
    let (link, well_known) = (
        format!("http://{addr}/other/index.json"),
        format!("http://{addr}/.well-known/agent-skills/index.json"),
    );
    assert!(
        two.starts_with(&format!(
            "the Link names {link}, another index than the well-known {well_known}"
        )),
        "{two}"
    );
    report.line("ok", "greeting", "entry.digest");
    assert!(report.of("entry.fields").len() == 1, "{:#}", report.0);

    let addr = serve(app_linking_elsewhere(None)).await;
    let (passed, report) = check_url(&format!("http://{addr}/docs"), &[]).await;
    assert!(passed, "{:#}", report.0);
    let broken = report.message("warn", "page", "discovery.link-mismatch");
    assert!(
        broken.starts_with(&format!(
            "the Link names http://{addr}/other/index.json, which answers 404 Not Found"
        )),
        "{broken}"
    );
    report.line("ok", "greeting", "entry.digest");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_without_a_link_is_a_prefix_unless_page_is_given() {
    let addr = serve(linked_app(
        false,
        skillpub_axum::AgentSkillsLinkLayer::when(|_, _| false),
    ))
    .await;
    let page = format!("http://{addr}/docs");
    let (passed, report) = check_url(&page, &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "index.status")]);
    let hint = report.message("warn", "page", "discovery.link");
    assert!(
        hint.contains("so it was read as a path prefix whose index is"),
        "{hint}"
    );
    assert!(
        hint.contains(&format!("skillpub check --page {page}")),
        "{hint}"
    );

    let (passed, report) = check_url(&page, &["--page"]).await;
    assert!(passed, "{:#}", report.0);
    let none = report.message("warn", "page", "discovery.link");
    assert!(
        none.starts_with(&format!(
            "{page} answered 200 OK with no Link rel=\"agent-skills\""
        )),
        "{none}"
    );
    assert!(report.of("discovery.link-mismatch").is_empty());
    report.line("ok", "greeting", "entry.digest");
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
    let addr = serve(app_with_link_fields(&[
        r#"</.well-known/agent-skills/index.json; rel="agent-skills""#,
    ]))
    .await;
    let (passed, report) = check_url(&format!("http://{addr}/docs/guide"), &[]).await;
    assert!(passed, "{:#}", report.0);
    let malformed = report.message("warn", "page", "discovery.link");
    assert!(
        malformed.contains("does not parse (RFC 8288)"),
        "{malformed}"
    );
    assert!(report.of("discovery.link-mismatch").is_empty());
    report.line("ok", "greeting", "entry.digest");
}

#[tokio::test(flavor = "multi_thread")]
async fn links_in_several_fields_with_rel_lists_and_relative_targets_are_read() {
    let addr = serve(app_with_link_fields(&[
        r#"</style.css>; rel=preload; as=style, <../.well-known/agent-skills/index.json>; rel="describedby agent-skills"; type="application/json""#,
        "<https://fonts.example.net>; rel=preconnect",
    ]))
    .await;
    let (passed, report) = check_url(&format!("http://{addr}/docs/guide"), &[]).await;
    assert!(passed, "{:#}", report.0);
    let index = format!("http://{addr}/.well-known/agent-skills/index.json");
    assert_eq!(
        report.message("ok", "page", "discovery.link"),
        format!("Link rel=\"agent-skills\" names {index}")
    );
    report.line("ok", "page", "discovery.link-mismatch");
    assert_eq!(report.0["summary"]["warn"], 0, "{:#}", report.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_that_redirects_to_the_well_known_index_names_the_same_index() {
    let app = app_linking_elsewhere(None).route(
        "/other/index.json",
        axum::routing::get(|| async {
            axum::response::Redirect::permanent("/.well-known/agent-skills/index.json")
        }),
    );
    let addr = serve(app).await;
    let (passed, report) = check_url(&format!("http://{addr}/docs"), &[]).await;
    assert!(passed, "{:#}", report.0);
    let same = report.message("ok", "page", "discovery.link-mismatch");
    assert_eq!(
        same,
        format!(
            "the Link and the well-known path name the same index, http://{addr}/.well-known/agent-skills/index.json"
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_whose_link_and_well_known_path_both_lead_nowhere_fails_on_the_index() {
    let layer = skillpub_axum::AgentSkillsLinkLayer::all()
        .index_url("/other/index.json")
        .unwrap();
    let app = Router::new()
        .route(
            "/docs",
            axum::routing::get(|| async { axum::response::Html("<h1>Docs</h1>") }),
        )
        .layer(layer);
    let addr = serve(app).await;
    let (passed, report) = check_url(&format!("http://{addr}/docs"), &[]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "index.status")]);
    let neither = report.message("warn", "page", "discovery.link-mismatch");
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
        .layer(skillpub_axum::AgentSkillsLinkLayer::html_only());
    let addr = serve(app).await;
    let (passed, report) = check_url(&format!("http://{addr}/tenant"), &[]).await;
    assert!(passed, "{:#}", report.0);
    let index = format!("http://{addr}/tenant/.well-known/agent-skills/index.json");
    let prefix = report.message("warn", "page", "discovery.link");
    assert!(
        prefix.contains(&format!("the URL given has one under it, {index}")),
        "{prefix}"
    );
    let entry = report.message("ok", "greeting", "entry.fields");
    assert!(entry.contains(&format!("http://{addr}/tenant/")), "{entry}");
    let (_, reason) = report.grade();
    assert!(reason.contains(&format!("graded at {index}")), "{reason}");
}

/// `--max-time` bounds the authoring advice too: a server makes its `SKILL.md` as large and
/// as hostile as it likes, here one line of code spans, and holds it back until late in the
/// run, so that the advice starts with too little time left: 256,000 spans (4.6 MB, the case
/// of issue 18) held 3 s in a debug build, and 1,800,000 (32 MiB) held 3.5 s in a release
/// build, whose advice is about ten times faster. Before issue 18 the 4.6 MB took 122.6 s.
#[tokio::test(flavor = "multi_thread")]
async fn max_time_bounds_the_advice_on_a_huge_adversarial_skill_md() {
    const MAX_TIME: Duration = Duration::from_secs(5);
    // What may go past the deadline: one search of one pattern over the line, the report,
    // and the end of the process, in a debug build on a loaded machine.
    const MARGIN: Duration = Duration::from_millis(1500);
    let (spans, held) = if cfg!(debug_assertions) {
        (256_000, Duration::from_secs(3))
    } else {
        (1_800_000, Duration::from_millis(3500))
    };
    let head = "---\nname: huge\ndescription: Reads huge files. Use when a file is huge.\n---\n";
    let skill_md = format!("{head}{}\n", "`references/a.md` ".repeat(spans));
    let url = "/.well-known/agent-skills/huge/SKILL.md";
    let index = index(&entry(
        "huge",
        "skill-md",
        "Reads huge files. Use when a file is huge.",
        url,
        skill_md.as_bytes(),
    ));
    let started = std::time::Instant::now();
    let app = Router::new().fallback(move |request: Request<Body>| {
        let (index, skill_md) = (index.clone(), skill_md.clone());
        async move {
            let path = request.uri().path();
            let head = request.method() == Method::HEAD;
            let (content_type, body) = match path {
                INDEX => ("application/json", index),
                _ if path == url => {
                    if !head {
                        tokio::time::sleep_until((started + held).into()).await;
                    }
                    ("text/markdown; charset=utf-8", skill_md)
                }
                _ => {
                    let mut response = Response::new(Body::from("not found"));
                    *response.status_mut() = StatusCode::NOT_FOUND;
                    return response;
                }
            };
            let length = body.len();
            let mut response = Response::new(Body::from(if head { String::new() } else { body }));
            let headers = response.headers_mut();
            headers.insert("content-type", HeaderValue::from_static(content_type));
            headers.insert("content-length", HeaderValue::from(length));
            response
        }
    });
    let addr = serve(app).await;
    let (passed, report) = check_json(addr, &["--max-time", "5"]).await;
    let took = started.elapsed();
    assert!(!passed);
    assert!(took < MAX_TIME + MARGIN, "{took:?}\n{:#}", report.0);
    report.line("ok", "huge", "entry.digest");
    let stopped = report.message("fail", "huge", "run.max-time");
    assert!(
        stopped.starts_with("the authoring advice was not complete at the deadline"),
        "{stopped}"
    );
    assert!(report.of("skill.advice").is_empty(), "{:#}", report.0);
}
