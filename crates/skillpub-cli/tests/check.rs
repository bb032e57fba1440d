//! `skillpub check` end to end: the real binary over real TCP on 127.0.0.1, for what the binary
//! adds to the checks: exit codes, the text and `--json` outputs, the flags (`--timeout`,
//! `--max-time`, `--max-size`), the HTTP transport and proxies. Every check itself is tested in
//! process where it lives, in `skillpub-check`'s `tests/checks/`.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode};
use axum::routing::get;
use skillpub_core::{Catalog, Digest, Skill, index::SCHEMA_URI};
use skillpub_testkit::{Cli, Outcome, serve, serve_raw};

mod common;
use common::Report;

const SKILL_MD: &str =
    "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n";

/// A skill that draws no authoring advice either.
const WELL_WRITTEN: &str = "---\nname: greeting\ndescription: Greets the user by name. Use when a conversation starts.\n---\nSay hello.\n";

const INDEX: &str = "/.well-known/agent-skills/index.json";
const SKILL: &str = "/.well-known/agent-skills/greeting/SKILL.md";

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

/// Runs `skillpub check --json` against a server; returns whether it passed, and the report.
async fn check_json(addr: SocketAddr, extra: &[&str]) -> (bool, Report) {
    let url = format!("http://{addr}");
    let mut args = vec!["check", "--json", url.as_str()];
    args.extend_from_slice(extra);
    let (passed, stdout) = skillpub(&args).await;
    (passed, Report::parse(&stdout))
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

/// An app that serves `index` as the index, and nothing else.
fn index_only(index: String) -> Router {
    Router::new().route(
        INDEX,
        get(move || async move { ([("content-type", "application/json")], index) }),
    )
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
        assert!(code.parse::<skillpub_check::CheckKind>().is_ok(), "{check}");
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
    let app = index_only(format!("{}{padding}", index("")));
    let (passed, report) = check_json(serve(app).await, &["--max-size", "1000"]).await;
    assert!(!passed);
    assert_eq!(report.failures(), [("index", "fetch.too-large")]);
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
    let skill = entry(
        "greeting",
        "skill-md",
        "Greets the user by name.",
        SKILL,
        SKILL_MD.as_bytes(),
    );
    let app = index_only(index(&skill)).route(
        SKILL,
        get(|| async {
            (
                StatusCode::FOUND,
                [("location", "http://127.0.0.1:9/SKILL.md")],
            )
        }),
    );
    let (run, asked) = run_public(serve(app).await, &["check", "--json"]).await;
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

/// `--max-time` bounds the authoring advice too: a server makes its `SKILL.md` as large and
/// as hostile as it likes, here one line of code spans, and holds it back until late in the
/// run, so that the advice starts with little time left: 256,000 spans (4.6 MB, the case of
/// issue 18) held 3 s in a debug build, and 1,800,000 (32 MiB) held 3.5 s in a release build,
/// whose advice is about ten times faster. Before issue 18 the 4.6 MB took 122.6 s. Whether
/// the advice finishes in the time left depends on the machine, so the test asserts what holds
/// either way: the run ends within its margin of the deadline, and the advice is either given
/// whole or reported as stopped at the deadline, never given in part.
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
    assert!(took < MAX_TIME + MARGIN, "{took:?}\n{:#}", report.0);
    report.line("ok", "huge", "entry.digest");
    let advice = report.of("skill.advice");
    if report.of("run.max-time").is_empty() {
        eprintln!("the advice was complete before the deadline, in {took:?}");
        let rules: Vec<&str> = advice
            .iter()
            .filter_map(|line| line["rule"].as_str())
            .collect();
        assert_eq!(rules, ["body.token-budget"], "{:#}", report.0);
    } else {
        assert!(!passed);
        let stopped = report.message("fail", "huge", "run.max-time");
        assert!(
            stopped.starts_with("the authoring advice was not complete at the deadline"),
            "{stopped}"
        );
        assert!(advice.is_empty(), "{:#}", report.0);
    }
}
