//! `skillpub check` against `examples/private` (the facade's example, which `cargo test
//! --workspace` builds), as an operator runs it: the real binaries over real TCP on 127.0.0.1.
//! The example's other proofs (both views, nginx `proxy_cache`, Chromium) are the facade's
//! `tests/private_example.rs`.
#![cfg(unix)]

use std::net::SocketAddr;
use std::process::{Command, Stdio};

use serde_json::Value;
use skillpub_testkit::{Running, built_binary};

/// The skill only callers with the token see.
const INTERNAL: &str = "release-checklist";

/// Starts the example on a free port with `token` as its bearer token.
fn start(token: &str) -> (Running, SocketAddr) {
    let mut command = Command::new(built_binary("examples/private"));
    command.env("SKILLPUB_PRIVATE_TOKEN", token);
    command.env("SKILLPUB_ALLOWED_ORIGINS", "");
    let (running, announced) = Running::demo(&mut command);
    (running, announced.addr)
}

/// `skillpub check` against the example, as an operator runs it: with the token from
/// `--bearer-env` every check of the credentialed view passes, the private policy's among
/// them; with a wrong token the `401` is its own result, with the challenge shown; without one
/// the public view passes; and the token is never printed.
#[test]
fn skillpub_check_with_the_token_passes_the_credentialed_view_and_reports_a_401_as_its_own() {
    // A bearer token of RFC 6750's alphabet: `check` refuses to send any other.
    let staff_token = "staff.Token-0123456789~";
    let (_example, addr) = start(staff_token);
    let site = format!("http://{addr}");
    let check = |token: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_skillpub"));
        command.args(["check", &site, "--json"]);
        if let Some(token) = token {
            command
                .args(["--bearer-env", "SKILLPUB_CHECK_TOKEN"])
                .env("SKILLPUB_CHECK_TOKEN", token);
        }
        let output = command.stdin(Stdio::null()).output().unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        for secret in [staff_token, "wrong-token"] {
            assert!(
                !stdout.contains(secret) && !stderr.contains(secret),
                "{stdout}{stderr}"
            );
        }
        let report: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
        let codes = |status: &str| -> Vec<String> {
            report["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|check| check["status"] == status)
                .map(|check| check["code"].as_str().unwrap().to_owned())
                .collect()
        };
        (output.status.success(), codes("ok"), codes("fail"), report)
    };

    let (passed, ok, failed, report) = check(Some(staff_token));
    assert!(passed && failed.is_empty(), "{report:#}");
    for code in [
        "private.public",
        "private.cache-control",
        "private.vary",
        "private.cors",
    ] {
        assert!(ok.iter().any(|ok| ok == code), "{code}: {report:#}");
    }
    let skills = report.to_string();
    assert!(skills.contains(INTERNAL), "{report:#}");

    let (passed, _, failed, report) = check(Some("wrong-token"));
    assert!(!passed, "{report:#}");
    assert!(
        failed.iter().any(|code| code == "auth.required"),
        "{report:#}"
    );
    assert!(
        report
            .to_string()
            .contains("Bearer realm=\\\"agent-skills\\\""),
        "the challenge is shown: {report:#}"
    );

    let (passed, _, failed, report) = check(None);
    assert!(passed && failed.is_empty(), "{report:#}");
    assert!(!report.to_string().contains(INTERNAL), "{report:#}");
}
