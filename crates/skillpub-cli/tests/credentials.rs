//! `skillpub check` with credentials, end to end: the real binary over real TCP on 127.0.0.1
//! against a catalog behind tower-http's bearer validation. The token is read from the
//! environment (`--bearer-env`) and never printed; headers (`--header`) are sent to the URL's
//! origin only; a `401` is its own result; a private catalog served `public` fails. Every
//! check itself is tested in process in `skillpub-check`'s `tests/checks/private.rs`.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Response, header};
use skillpub_core::{Catalog, Digest, Skill, index::SCHEMA_URI};
use skillpub_testkit::{Cli, Outcome, serve, serve_recording};

#[expect(
    dead_code,
    reason = "these tests read lines, messages and failures of a report, not its grade; check.rs reads the rest"
)]
mod common;
use common::Report;

const TOKEN: &str = "t0p-s3cr3t-4-ci";
const VARIABLE: &str = "SKILLPUB_TEST_TOKEN";
const SKILL_MD: &str = "---\nname: greeting\ndescription: Greets the user by name. Use when a conversation starts.\n---\nSay hello.\n";

/// The binary under test.
const SKILLPUB: Cli = Cli::new(env!("CARGO_BIN_EXE_skillpub"));

/// skillpub's router behind tower-http's bearer validation, with the private policy put on
/// every answer (the 401 included) when `private`, else as the router serves it (`public`).
fn behind_bearer(private: bool) -> Router {
    let catalog = Catalog::new([Skill::from_static(SKILL_MD)]).unwrap();
    #[expect(
        deprecated,
        reason = "tower-http's bearer validation is what the issue shows auth with; it is deprecated as too basic for real applications, not broken"
    )]
    let bearer = tower_http::validate_request::ValidateRequestHeaderLayer::bearer(TOKEN);
    let app: Router = skillpub_axum::router(catalog).layer(bearer);
    if !private {
        return app;
    }
    app.layer(axum::middleware::map_response(
        |mut response: Response<Body>| async move {
            let headers = response.headers_mut();
            let private = HeaderValue::from_static("private, no-cache, no-transform");
            headers.insert(header::CACHE_CONTROL, private);
            headers.append(header::VARY, HeaderValue::from_static("Authorization"));
            headers.remove(header::ACCESS_CONTROL_ALLOW_ORIGIN);
            response
        },
    ))
}

/// Runs `skillpub check --json URL args...` with the token in the environment or not.
async fn check(addr: SocketAddr, args: &[&str], token: Option<&str>) -> (Outcome, Report) {
    let url = format!("http://{addr}");
    let mut all = vec!["check", "--json", url.as_str()];
    all.extend_from_slice(args);
    let outcome = SKILLPUB.env(VARIABLE, token).run_async(&all).await;
    let report = Report::parse(&outcome.stdout);
    (outcome, report)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_from_the_environment_passes_a_private_catalog_and_is_never_printed() {
    let addr = serve(behind_bearer(true)).await;
    let (outcome, report) = check(addr, &["--bearer-env", VARIABLE], Some(TOKEN)).await;
    assert!(outcome.success, "{}{}", outcome.stdout, outcome.stderr);
    for code in [
        "private.public",
        "private.cache-control",
        "private.vary",
        "private.cors",
    ] {
        report.line("ok", "site", code);
    }
    report.line("ok", "greeting", "entry.digest");
    assert!(!outcome.stdout.contains(TOKEN), "{}", outcome.stdout);
    assert!(!outcome.stderr.contains(TOKEN), "{}", outcome.stderr);
    let text = SKILLPUB
        .env(VARIABLE, Some(TOKEN))
        .run_async(&["check", &format!("http://{addr}"), "--bearer-env", VARIABLE])
        .await;
    assert!(text.success, "{}", text.stdout);
    assert!(!text.stdout.contains(TOKEN) && !text.stderr.contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_credentials_the_401_is_its_own_result_and_tower_http_sends_no_challenge() {
    let addr = serve(behind_bearer(true)).await;
    let (outcome, report) = check(addr, &[], None).await;
    assert_eq!(outcome.code, Some(1), "{}", outcome.stderr);
    assert_eq!(
        report.failures(),
        [("index", "auth.required"), ("index", "auth.challenge")]
    );
    report.line("warn", "site", "run.not-run");
    assert_eq!(report.checks().len(), 3, "{:#}", report.0);
    let message = report.message("fail", "index", "auth.required");
    assert!(
        message.contains("answered 401 Unauthorized (log in) and no credentials were sent"),
        "{message}"
    );
    // A wrong token: refused too, the refusal judged as an answer of the private view.
    let (outcome, report) = check(addr, &["--bearer-env", VARIABLE], Some("wrong")).await;
    assert!(!outcome.success);
    let message = report.message("fail", "index", "auth.required");
    assert!(
        message.contains("(log in) to the credentials sent"),
        "{message}"
    );
    report.line("ok", "site", "private.public");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_private_flag_judges_the_answers_without_credentials() {
    // The 401 of the private catalog is private itself; the public router's answers are not.
    let addr = serve(behind_bearer(true)).await;
    let (_, report) = check(addr, &["--private"], None).await;
    report.line("ok", "site", "private.public");
    let addr = serve(skillpub_axum::router(
        Catalog::new([Skill::from_static(SKILL_MD)]).unwrap(),
    ))
    .await;
    let (outcome, report) = check(addr, &["--private"], None).await;
    assert!(!outcome.success);
    report.line("fail", "site", "private.public");
    let (outcome, report) = check(addr, &[], None).await;
    assert!(outcome.success, "{:#}", report.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_catalog_served_public_fails_private_public() {
    let addr = serve(behind_bearer(false)).await;
    let (outcome, report) = check(addr, &["--bearer-env", VARIABLE], Some(TOKEN)).await;
    assert_eq!(outcome.code, Some(1));
    let failures = report.failures();
    assert!(
        failures.contains(&("site", "private.public")),
        "{failures:?}"
    );
    let message = report.message("fail", "site", "private.public");
    assert!(message.contains("(Cache-Control: public, "), "{message}");
    assert!(!outcome.stdout.contains(TOKEN));
}

/// The site: an index whose one entry redirects to the other server (an entry `url` on
/// another local origin is `entry.local-url`, not fetched at all).
fn site(path: &str, other: SocketAddr) -> Response<Body> {
    match path {
        "/.well-known/agent-skills/index.json" => {}
        "/greeting/SKILL.md" => {
            let location = format!("http://{other}/greeting/SKILL.md");
            return Response::builder()
                .status(302)
                .header(header::LOCATION, location)
                .body(Body::empty())
                .unwrap();
        }
        _ => return Response::builder().status(404).body(Body::empty()).unwrap(),
    }
    let digest = Digest::of(SKILL_MD.as_bytes());
    let url = "/greeting/SKILL.md";
    let entry = format!(
        r#"{{"name":"greeting","type":"skill-md","description":"Greets the user by name. Use when a conversation starts.","url":"{url}","digest":"{digest}"}}"#
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(format!(
            r#"{{"$schema":"{SCHEMA_URI}","skills":[{entry}]}}"#
        )))
        .unwrap()
}

/// The other origin: the skill.
fn elsewhere(_: &str, _: SocketAddr) -> Response<Body> {
    Response::builder()
        .header(header::CONTENT_TYPE, "text/markdown; charset=utf-8")
        .body(Body::from(SKILL_MD))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn headers_and_token_reach_the_site_and_never_a_redirect_to_another_origin() {
    let (site_addr, elsewhere_addr) = (Arc::new(OnceLock::new()), Arc::new(OnceLock::new()));
    let (a, at_site) =
        serve_recording(elsewhere_addr.clone(), ["authorization", "x-api-key"], site).await;
    let (b, at_elsewhere) =
        serve_recording(site_addr.clone(), ["authorization", "x-api-key"], elsewhere).await;
    site_addr.set(a).unwrap();
    elsewhere_addr.set(b).unwrap();
    let args = [
        "--header",
        "X-Api-Key: k-123",
        "--header",
        "Authorization: Basic overridden",
        "--bearer-env",
        VARIABLE,
    ];
    let (outcome, report) = check(a, &args, Some(TOKEN)).await;
    report.line("ok", "greeting", "entry.digest");
    assert!(!outcome.stdout.contains(TOKEN));
    let at_site = at_site.lock().unwrap().clone();
    assert!(!at_site.is_empty());
    for (path, authorization, key) in &at_site {
        assert_eq!(
            authorization.as_deref(),
            Some(&*format!("Bearer {TOKEN}")),
            "{path}"
        );
        assert_eq!(key.as_deref(), Some("k-123"), "{path}");
    }
    let at_elsewhere = at_elsewhere.lock().unwrap().clone();
    assert!(
        at_elsewhere.len() >= 2,
        "GET and HEAD of the skill: {at_elsewhere:?}"
    );
    for (path, authorization, key) in &at_elsewhere {
        assert_eq!((authorization, key), (&None, &None), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_header_or_token_variable_is_a_usage_error_that_shows_no_value() {
    let url = "http://127.0.0.1:9";
    for (args, token, message) in [
        (
            vec!["--header", "Authorization Bearer t0p-s3cr3t-4-ci"],
            None,
            "invalid value for '--header <NAME: VALUE>': a header is `Name: value`, with a colon after the name",
        ),
        (
            vec!["--header", "X-Key: t0p-s3cr3t-4-ci\u{7}"],
            None,
            "the value of header `x-key` holds a control character",
        ),
        (
            vec!["--bearer-env", VARIABLE],
            None,
            "--bearer-env SKILLPUB_TEST_TOKEN: the environment variable SKILLPUB_TEST_TOKEN is not set",
        ),
        (
            vec!["--bearer-env", VARIABLE],
            Some(""),
            "--bearer-env SKILLPUB_TEST_TOKEN: the environment variable SKILLPUB_TEST_TOKEN is empty",
        ),
        (
            vec!["--bearer-env", VARIABLE],
            Some("t0p-s3cr3t-4-ci\n"),
            "--bearer-env SKILLPUB_TEST_TOKEN: the token in SKILLPUB_TEST_TOKEN: the bearer token is not a b64token",
        ),
    ] {
        let mut all = vec!["check", url];
        all.extend_from_slice(&args);
        let outcome = SKILLPUB.env(VARIABLE, token).run_async(&all).await;
        assert_eq!(outcome.code, Some(2), "{args:?}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains(message),
            "{args:?}: {}",
            outcome.stderr
        );
        assert!(
            !outcome.stderr.contains(TOKEN),
            "{args:?}: {}",
            outcome.stderr
        );
        assert!(outcome.stdout.is_empty(), "{args:?}: {}", outcome.stdout);
    }
}

/// A password in the URL's userinfo would be printed in every line of the report and sent by
/// the HTTP stack outside the origin rule of `--header`: it is a usage error that names the
/// flags to use instead and never shows the password.
#[test]
fn a_url_with_a_password_is_refused_and_never_printed() {
    let outcome = SKILLPUB.run(&["check", "http://app:pw-s3cret@127.0.0.1:9/"]);
    assert_eq!(outcome.code, Some(2), "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("holds a password"),
        "{}",
        outcome.stderr
    );
    assert!(
        outcome.stderr.contains("--bearer-env"),
        "{}",
        outcome.stderr
    );
    for printed in [&outcome.stdout, &outcome.stderr] {
        assert!(!printed.contains("pw-s3cret"), "{printed}");
    }
    // A user name alone is no secret, and is checked as before.
    let outcome = SKILLPUB.run(&["check", "--max-time", "5", "http://app@127.0.0.1:9/"]);
    assert_eq!(outcome.code, Some(1), "{}", outcome.stderr);
}
