//! The private example, a real shipped binary, over real TCP: anonymous callers and callers
//! with the bearer token see their own indexes and artifacts (over HTTP and MCP), a wrong
//! token gets `401` with the challenge, no answer of the credentialed view says `public`;
//! nginx `proxy_cache` in front, honouring the headers, never serves the internal skill to an
//! anonymous caller across 1,000 mixed requests; and in headless Chromium a page of an allowed
//! origin reads both views and checks every digest with WebCrypto, while a page of another
//! origin is refused the credentialed view.
//!
//! The nginx and Chromium tests skip with one line where the tool is missing, and fail under
//! `SKILLPUB_REQUIRE_EXTERNAL=1`.
#![cfg(unix)]

use std::net::SocketAddr;
use std::process::Command;

use axum::Router;
use axum::routing::get;
use serde_json::Value;
use skillpub::model::Digest;
use skillpub::model::paths::INDEX_PATH;
use skillpub_testkit::{
    Edge, Freshness, Response, Running, built_binary, find_program, headless_dom, nginx_or_skip,
    request, request_blocking, request_with_body, skip_or_fail,
};

const TOKEN: &str = "correct horse battery staple";
const BEARER: &str = "Bearer correct horse battery staple";
/// The skill only callers with the token see.
const INTERNAL: &str = "release-checklist";
const EVERYONE: [&str; 2] = ["verify-skill-digests", "write-skill-md"];

/// Starts the example on a free port, with the token (none when `None`) and the allowed
/// origins.
fn start(token: Option<&str>, origins: &str) -> (Running, SocketAddr) {
    let mut command = Command::new(built_binary("examples/private"));
    match token {
        Some(token) => command.env("SKILLPUB_PRIVATE_TOKEN", token),
        None => command.env_remove("SKILLPUB_PRIVATE_TOKEN"),
    };
    command.env("SKILLPUB_ALLOWED_ORIGINS", origins);
    let (running, announced) = Running::demo(&mut command);
    (running, announced.addr)
}

/// The index entries (name, url, digest) of an index answer.
fn entries(index: &Response) -> Vec<(String, String, String)> {
    let index: Value = serde_json::from_slice(&index.body).unwrap();
    index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let field = |name: &str| entry[name].as_str().unwrap().to_owned();
            (field("name"), field("url"), field("digest"))
        })
        .collect()
}

/// Asserts that a credentialed answer is private: never `public` or `s-maxage`, and varies
/// on the credential headers.
#[track_caller]
fn assert_private(answer: &Response, what: &str) {
    let cache = answer.header("cache-control").unwrap_or_default();
    assert!(
        (cache.contains("private") || cache.contains("no-store"))
            && !cache.contains("public")
            && !cache.contains("s-maxage"),
        "{what}: Cache-Control {cache}"
    );
    let vary = answer.header("vary").unwrap_or_default();
    assert!(vary.contains("Authorization"), "{what}: Vary {vary}");
}

#[tokio::test]
async fn each_caller_sees_its_own_index_and_artifacts_and_a_wrong_token_is_told_to_log_in() {
    let (_example, addr) = start(Some(TOKEN), "");
    let anonymous = request(addr, "GET", INDEX_PATH, &[]).await;
    assert_eq!(anonymous.skill_names(), EVERYONE);
    let staff = request(addr, "GET", INDEX_PATH, &[("authorization", BEARER)]).await;
    assert_eq!(staff.skill_names(), [INTERNAL, EVERYONE[0], EVERYONE[1]]);
    assert_private(&staff, "the staff index");

    for (name, url, digest) in entries(&staff) {
        let canonical = format!("/.well-known/agent-skills/{name}/SKILL.md");
        for path in [url.as_str(), canonical.as_str()] {
            let theirs = request(addr, "GET", path, &[("authorization", BEARER)]).await;
            assert_eq!(theirs.status, 200, "{path}");
            assert_eq!(Digest::of(&theirs.body).to_string(), digest, "{path}");
            assert_private(&theirs, path);
            let conditional = [("authorization", BEARER), ("if-none-match", "*")];
            let not_modified = request(addr, "GET", path, &conditional).await;
            assert_eq!(not_modified.status, 304);
            assert_private(&not_modified, path);
            let anonymous = request(addr, "GET", path, &[]).await;
            if name == INTERNAL {
                assert_eq!(anonymous.status, 404, "{path}: {}", anonymous.text());
            } else {
                assert_eq!(anonymous.body, theirs.body, "{path}");
                let cache = anonymous.header("cache-control").unwrap();
                assert!(cache.starts_with("public"), "{path}: {cache}");
            }
        }
    }
    let missing = request(
        addr,
        "GET",
        "/.well-known/agent-skills/nothing/SKILL.md",
        &[("authorization", BEARER)],
    )
    .await;
    assert_eq!(missing.status, 404);
    assert_private(&missing, "a 404 of the staff view");

    for wrong in ["Bearer wrong", "Basic c3RhZmY6c3RhZmY=", "Bearer"] {
        let refused = request(addr, "GET", INDEX_PATH, &[("authorization", wrong)]).await;
        assert_eq!(refused.status, 401, "{wrong}");
        assert_eq!(
            refused.header("www-authenticate"),
            Some("Bearer realm=\"agent-skills\"")
        );
        assert_eq!(refused.header("cache-control"), Some("private, no-store"));
        assert!(refused.text().starts_with("Log in"), "{}", refused.text());
    }
}

/// The JSON-RPC answer of `body` posted to the example's `/mcp` with `headers`.
async fn mcp(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> (Response, Value) {
    let mut all = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    all.extend_from_slice(headers);
    let answer = request_with_body(addr, "POST", "/mcp", &all, body.as_bytes()).await;
    let json = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    (answer, json)
}

#[tokio::test]
async fn over_mcp_only_the_token_reads_the_internal_skill() {
    let (_example, addr) = start(Some(TOKEN), "");
    let read = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"skill://{INTERNAL}/SKILL.md"}}}}"#
    );
    let (answer, staff) = mcp(addr, &[("authorization", BEARER)], &read).await;
    assert_eq!(answer.header("cache-control"), Some("private, no-store"));
    let text = staff["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("# Release checklist"), "{staff}");
    let (answer, anonymous) = mcp(addr, &[], &read).await;
    assert_eq!(answer.header("cache-control"), Some("private, no-store"));
    assert_eq!(anonymous["error"]["code"], -32602, "{anonymous}");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}"#;
    let (_, listed) = mcp(addr, &[], list).await;
    assert!(!listed.to_string().contains(INTERNAL), "{listed}");
    let (_, listed) = mcp(addr, &[("authorization", BEARER)], list).await;
    assert!(listed.to_string().contains(INTERNAL), "{listed}");
    let (refused, _) = mcp(addr, &[("authorization", "Bearer wrong")], list).await;
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.header("www-authenticate"),
        Some("Bearer realm=\"agent-skills\"")
    );
}

#[tokio::test]
async fn without_the_token_variable_there_is_no_credentialed_view() {
    let (_example, addr) = start(None, "");
    for headers in [&[][..], &[("authorization", BEARER)]] {
        let index = request(addr, "GET", INDEX_PATH, headers).await;
        assert_eq!(index.status, 200);
        assert_eq!(index.skill_names(), EVERYONE);
        assert_eq!(index.header("vary"), Some("Accept-Encoding"));
    }
    let internal = format!("/.well-known/agent-skills/{INTERNAL}/SKILL.md");
    let answer = request(addr, "GET", &internal, &[("authorization", BEARER)]).await;
    assert_eq!(answer.status, 404);
}

/// A small deterministic generator, so that a failing mix can be replayed.
struct Mix(u64);

impl Mix {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap() % below
    }
}

/// How many mixed requests go through the cache.
const MIXED: usize = 1_000;

#[test]
fn a_shared_cache_in_front_never_serves_the_internal_skill_to_an_anonymous_caller() {
    const TEST: &str =
        "a_shared_cache_in_front_never_serves_the_internal_skill_to_an_anonymous_caller";
    let Some(nginx) = nginx_or_skip(TEST) else {
        return;
    };
    let (_example, origin) = start(Some(TOKEN), "");
    let edge = Edge::start(&nginx, origin, Freshness::Honoured { speedup: 1 });
    let staff = request_blocking(origin, "GET", INDEX_PATH, &[("authorization", BEARER)]);
    let internal = entries(&staff)
        .into_iter()
        .find(|(name, ..)| name == INTERNAL)
        .unwrap();
    let public = entries(&staff)
        .into_iter()
        .find(|(name, ..)| name == EVERYONE[0])
        .unwrap();
    let canonical = format!("/.well-known/agent-skills/{INTERNAL}/SKILL.md");
    let paths = [
        INDEX_PATH,
        internal.1.as_str(),
        canonical.as_str(),
        public.1.as_str(),
    ];

    let mut mix = Mix(0x5eed);
    let (mut anonymous, mut credentialed, mut hits) = (0, 0, 0);
    // Anonymous answers with the internal skill in them; answers to the token without it.
    let (mut leaked, mut lost) = (Vec::new(), Vec::new());
    for n in 0..MIXED {
        // The caller with the token asks for every path first: the order in which a cache
        // that ignores the policy would hand the internal skill on.
        let (path, with_token) = match paths.get(n) {
            Some(path) => (*path, true),
            None => (paths[mix.next(paths.len())], mix.next(2) == 0),
        };
        let headers: &[(&str, &str)] = if with_token {
            &[("authorization", BEARER)]
        } else {
            &[]
        };
        let answer = request_blocking(edge.addr(), "GET", path, headers);
        hits += usize::from(answer.header("x-cache") == Some("HIT"));
        let sees_internal =
            answer.text().contains(INTERNAL) || Digest::of(&answer.body).to_string() == internal.2;
        let seen = format!("{path} {} {:?}", answer.status, answer.header("x-cache"));
        if with_token {
            credentialed += 1;
            let wants_internal = path == INDEX_PATH || path == internal.1 || path == canonical;
            if answer.status != 200 || (wants_internal && !sees_internal) {
                lost.push(seen);
            }
        } else {
            anonymous += 1;
            let refused = path != internal.1 && path != canonical || answer.status == 404;
            if sees_internal || !refused {
                leaked.push(seen);
            }
        }
    }
    let origin_requests = edge.origin_requests().len();
    println!(
        "{MIXED} mixed requests through nginx proxy_cache: {anonymous} anonymous ({} got the internal skill), {credentialed} with the token ({} without it), {hits} cache hits, {origin_requests} requests to the origin",
        leaked.len(),
        lost.len()
    );
    assert!(leaked.is_empty(), "served to anonymous callers: {leaked:?}");
    assert!(
        lost.is_empty(),
        "the token's caller lost the internal skill: {lost:?}"
    );
    assert!(
        hits > 0,
        "the cache served nothing: the test would prove nothing"
    );
}

/// The page each origin loads: the index and every `SKILL.md` it names, fetched from the
/// example anonymously and with the token (with and without `credentials: "include"`), each
/// digest computed with WebCrypto and compared with the index's; the outcome in its title.
const PAGE: &str = r#"<!doctype html><title>running</title><script>
const base = "EXAMPLE";
async function digestOf(bytes) {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return "sha256:" + Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}
async function view(headers, credentials) {
  try {
    const answer = await fetch(base + "/.well-known/agent-skills/index.json", { headers, credentials });
    if (!answer.ok) return `status ${answer.status}`;
    const index = await answer.json();
    const checked = [];
    for (const skill of index.skills) {
      const file = await fetch(new URL(skill.url, base), { headers, credentials });
      const digest = await digestOf(await file.arrayBuffer());
      checked.push(`${skill.name}=${digest === skill.digest ? "ok" : "mismatch"}`);
    }
    return checked.join(",");
  } catch (error) {
    return "refused";
  }
}
(async () => {
  const bearer = { Authorization: "Bearer TOKEN" };
  const anonymous = await view({}, "omit");
  const omitted = await view(bearer, "omit");
  const included = await view(bearer, "include");
  document.title = `anonymous ${anonymous}; token ${omitted}; token with credentials ${included}`;
})();
</script>"#;

/// The title of `url` once its script is done, as headless Chromium renders it.
fn title_of(chromium: &std::path::Path, url: &str) -> String {
    let dom = headless_dom(chromium, url);
    let title = dom
        .split_once("<title>")
        .and_then(|(_, rest)| rest.split_once("</title>"))
        .map(|(title, _)| title.to_owned());
    title.unwrap_or_else(|| panic!("no title in {dom}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_page_of_an_allowed_origin_reads_both_views_and_another_origin_is_refused() {
    const TEST: &str =
        "a_browser_page_of_an_allowed_origin_reads_both_views_and_another_origin_is_refused";
    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find_map(|name| find_program(name, &[]))
    else {
        skip_or_fail(
            TEST,
            "Chromium is not on PATH (Debian: `apt-get install chromium`)",
        );
        return;
    };
    // The pages are served before the example starts, so that it can be told their origin;
    // each page learns the example's address from a route asked for after.
    let example_addr = std::sync::Arc::new(std::sync::OnceLock::<SocketAddr>::new());
    let page = {
        let example_addr = std::sync::Arc::clone(&example_addr);
        move || {
            let addr = example_addr.get().copied();
            async move {
                let example = format!("http://{}", addr.expect("the example has started"));
                axum::response::Html(PAGE.replace("EXAMPLE", &example).replace("TOKEN", TOKEN))
            }
        }
    };
    let allowed = skillpub_testkit::serve(Router::new().route("/", get(page.clone()))).await;
    let other = skillpub_testkit::serve(Router::new().route("/", get(page))).await;
    let (_example, addr) = start(Some(TOKEN), &format!("http://{allowed}"));
    example_addr.set(addr).unwrap();

    let everyone: Vec<String> = EVERYONE.iter().map(|name| format!("{name}=ok")).collect();
    let everyone = everyone.join(",");
    let staff = format!("{INTERNAL}=ok,{everyone}");
    let titles = tokio::task::spawn_blocking(move || {
        [allowed, other].map(|page| title_of(&chromium, &format!("http://{page}/")))
    })
    .await
    .unwrap();
    assert_eq!(
        titles[0],
        format!("anonymous {everyone}; token {staff}; token with credentials {staff}"),
        "the page of the allowed origin"
    );
    assert_eq!(
        titles[1],
        format!("anonymous {everyone}; token refused; token with credentials refused"),
        "the page of another origin"
    );
}
