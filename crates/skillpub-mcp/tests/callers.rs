//! Skills per caller over real Streamable HTTP on 127.0.0.1: the app's auth (here a header
//! read into an extension by a middleware) picks the caller; every method answers from that
//! caller's skills alone, so no caller can read another's skill by URI, name or tool; and the
//! private switch of `HttpOptions` makes every answer `private, no-store`, varies it on the
//! credential headers (`Authorization` and `Cookie`, or the ones the app's auth reads),
//! allows credentials from the allowed origins only and says `cacheScope: private`.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response as AxumResponse;
use rmcp::model::CacheScope;
use serde_json::Value;
use skillpub_core::{Catalog, Skill};
use skillpub_mcp::{HttpOptions, McpCallers, McpSkills};
use skillpub_testkit::{Response, request, serve};

#[expect(
    dead_code,
    reason = "only the raw POST and the modern client are used here"
)]
mod peers;
use peers::{INITIALIZE, modern_client, post_mcp};

/// What the test's auth puts into the extensions: the caller's team.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Team(&'static str);

fn catalog(name: &str) -> Catalog {
    Catalog::new([Skill::new(
        None,
        format!("---\nname: {name}\ndescription: The skill of {name}.\n---\nOnly for {name}.\n"),
    )])
    .unwrap()
}

fn skills(name: &str) -> McpSkills {
    McpSkills::builder(catalog(name))
        .prompts(true)
        .tools(true)
        .instructions(true)
        .build()
        .unwrap()
}

/// The test's auth: `X-Team: red` or `X-Team: blue` is that team; nothing else is anyone.
async fn auth(mut request: Request, next: Next) -> AxumResponse {
    let team = match request.headers().get("x-team").map(|v| v.as_bytes()) {
        Some(b"red") => Some(Team("red")),
        Some(b"blue") => Some(Team("blue")),
        _ => None,
    };
    if let Some(team) = team {
        request.extensions_mut().insert(team);
    }
    next.run(request).await
}

/// Red's and blue's skills, and the public ones for everyone else, at `/mcp`.
async fn serve_teams(options: HttpOptions) -> SocketAddr {
    let mcp = McpCallers::by_extension::<Team>()
        .caller(Team("red"), skills("red-skill"))
        .caller(Team("blue"), skills("blue-skill"))
        .default_skills(skills("public-skill"))
        .streamable_http_service(options)
        .unwrap();
    serve(
        Router::new()
            .nest_service("/mcp", mcp)
            .layer(middleware::from_fn(auth)),
    )
    .await
}

/// The JSON-RPC answer of `method` with `params`, sent as `team` (anyone when `None`).
async fn call(addr: SocketAddr, team: Option<&str>, method: &str, params: &str) -> Value {
    let body = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{params}}}"#);
    let headers: Vec<(&str, &str)> = team.map(|t| ("X-Team", t)).into_iter().collect();
    let answer = post_mcp(addr, &headers, &body).await;
    assert_eq!(answer.status, 200, "{method}: {}", answer.text());
    serde_json::from_slice(&answer.body).unwrap()
}

fn listed(answer: &Value) -> Vec<String> {
    answer["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("not a skills/list result: {answer}"))
        .iter()
        .map(|skill| skill["frontmatter"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn each_caller_lists_and_reads_its_own_skills_only() {
    let addr = serve_teams(HttpOptions::default()).await;
    for (team, own) in [
        (Some("red"), "red-skill"),
        (Some("blue"), "blue-skill"),
        (None, "public-skill"),
    ] {
        assert_eq!(listed(&call(addr, team, "skills/list", "{}").await), [own]);
        let uri = format!("skill://{own}/SKILL.md");
        let read = call(
            addr,
            team,
            "resources/read",
            &format!(r#"{{"uri":"{uri}"}}"#),
        )
        .await;
        let text = read["result"]["contents"][0]["text"].as_str().unwrap();
        assert!(text.contains(&format!("Only for {own}")), "{read}");
        let tools = call(addr, team, "tools/list", "{}").await;
        assert!(tools["result"]["tools"].is_array(), "{tools}");
        let initialized = post_mcp(
            addr,
            &team.map(|t| ("X-Team", t)).into_iter().collect::<Vec<_>>(),
            INITIALIZE,
        )
        .await;
        let initialized: Value = serde_json::from_slice(&initialized.body).unwrap();
        let instructions = initialized["result"]["instructions"].as_str().unwrap();
        assert!(instructions.contains(own), "{instructions}");
        for other in ["red-skill", "blue-skill", "public-skill"] {
            if other != own {
                assert!(!instructions.contains(other), "{instructions}");
            }
        }
    }
}

#[tokio::test]
async fn no_caller_can_read_another_callers_skill_by_uri_name_or_tool() {
    let addr = serve_teams(HttpOptions::default()).await;
    let red_uri = r#"{"uri":"skill://red-skill/SKILL.md"}"#;
    for team in [Some("blue"), None, Some("green")] {
        for (method, params) in [
            ("resources/read", red_uri),
            ("skills/get", red_uri),
            (
                "resources/directory/read",
                r#"{"uri":"skill://red-skill/"}"#,
            ),
            ("prompts/get", r#"{"name":"red-skill"}"#),
        ] {
            let answer = call(addr, team, method, params).await;
            assert_eq!(
                answer["error"]["code"], -32602,
                "{method} as {team:?}: {answer}"
            );
        }
        let loaded = call(
            addr,
            team,
            "tools/call",
            r#"{"name":"load_skill","arguments":{"name":"red-skill"}}"#,
        )
        .await;
        assert_eq!(loaded["result"]["isError"], true, "{team:?}: {loaded}");
        let read = call(
            addr,
            team,
            "tools/call",
            r#"{"name":"read_skill_file","arguments":{"name":"red-skill","path":"SKILL.md"}}"#,
        )
        .await;
        assert_eq!(read["result"]["isError"], true, "{team:?}: {read}");
        let listed = call(addr, team, "resources/list", "{}").await;
        assert!(!listed.to_string().contains("red-skill"), "{listed}");
    }
}

/// A browser's preflight from `origin` for a `POST` with `headers`.
async fn preflight(addr: SocketAddr, origin: &str, headers: &str) -> Response {
    let ask = [
        ("Origin", origin),
        ("Access-Control-Request-Method", "POST"),
        ("Access-Control-Request-Headers", headers),
    ];
    request(addr, "OPTIONS", "/mcp", &ask).await
}

/// Asserts the headers of the private switch on `answer`.
#[track_caller]
fn assert_private(answer: &Response, origin: Option<&str>) {
    assert_eq!(answer.header("cache-control"), Some("private, no-store"));
    assert_eq!(answer.header("vary"), Some("Origin, Authorization, Cookie"));
    assert_eq!(answer.header("access-control-allow-origin"), origin);
    assert_eq!(
        answer.header("access-control-allow-credentials"),
        origin.map(|_| "true")
    );
}

#[tokio::test]
async fn the_private_switch_makes_every_answer_private_and_credentialed_for_allowed_origins() {
    const APP: &str = "http://127.0.0.1:5173";
    let options = HttpOptions::default()
        .with_private(true)
        .with_allowed_origins([APP]);
    let addr = serve_teams(options).await;
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}"#;
    let answer = post_mcp(addr, &[("X-Team", "red"), ("Origin", APP)], list).await;
    assert_eq!(answer.status, 200);
    assert_private(&answer, Some(APP));
    let answer = post_mcp(addr, &[("X-Team", "red")], list).await;
    assert_private(&answer, None);
    // Refused origins and the transport's own refusals are private too.
    let refused = post_mcp(addr, &[("Origin", "http://127.0.0.1:5174")], list).await;
    assert_eq!(refused.status, 403);
    assert_private(&refused, None);
    let get = request(addr, "GET", "/mcp", &[("Origin", APP)]).await;
    assert_private(&get, Some(APP));

    let preflight = preflight(addr, APP, "authorization, content-type").await;
    assert_eq!(preflight.status, 204);
    assert_private(&preflight, Some(APP));
    let allowed = preflight.header("access-control-allow-headers").unwrap();
    assert!(allowed.contains("Authorization") && allowed.contains("Content-Type"));
    assert!(
        !allowed.contains("Cookie"),
        "no script sends a Cookie: {allowed}"
    );

    // Without origins of its own, a private endpoint allows none, not the loopback ones
    // that a local endpoint allows by default: any local page could read the skills.
    let no_origins = serve_teams(HttpOptions::default().with_private(true)).await;
    let local_page = post_mcp(no_origins, &[("X-Team", "red"), ("Origin", APP)], list).await;
    assert_eq!(local_page.status, 403);
    assert_eq!(local_page.header("access-control-allow-origin"), None);

    // Without the switch, nothing of it.
    let public = serve_teams(HttpOptions::default().with_allowed_origins([APP])).await;
    let answer = post_mcp(public, &[("Origin", APP)], list).await;
    assert_eq!(answer.header("cache-control"), None);
    assert_eq!(answer.header("access-control-allow-origin"), None);
}

#[tokio::test]
async fn the_credential_headers_are_the_ones_the_apps_auth_reads() {
    const APP: &str = "http://127.0.0.1:5173";
    let options = HttpOptions::default()
        .with_private(true)
        .with_allowed_origins([APP])
        .with_credential_headers(["X-Team"]);
    let addr = serve_teams(options).await;
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}"#;
    let answer = post_mcp(addr, &[("X-Team", "red"), ("Origin", APP)], list).await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        listed(&serde_json::from_slice(&answer.body).unwrap()),
        ["red-skill"]
    );
    assert_eq!(answer.header("vary"), Some("Origin, X-Team"));
    let refused = post_mcp(addr, &[("Origin", "http://127.0.0.1:5174")], list).await;
    assert_eq!(refused.header("vary"), Some("Origin, X-Team"));

    // A page of the allowed origin may send the team's header, and only the transport's
    // others besides.
    let preflight = preflight(addr, APP, "content-type, x-team").await;
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.header("vary"), Some("Origin, X-Team"));
    assert_eq!(
        preflight.header("access-control-allow-headers"),
        Some("X-Team, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
    );

    // A list that names no header, or a name that is not one, is refused when the
    // endpoint is made.
    let made = |names: &[&str]| {
        McpSkills::new(catalog("public-skill"))
            .streamable_http_service(
                HttpOptions::default()
                    .with_private(true)
                    .with_credential_headers(names.iter().copied()),
            )
            .map(drop)
            .map_err(|error| error.to_string())
    };
    assert!(made(&[]).unwrap_err().contains("no credential header"));
    let error = made(&["X Team"]).unwrap_err();
    assert!(error.contains("`X Team` is not a header name"), "{error}");
    assert!(made(&["X-Api-Key", "Cookie"]).is_ok());
    // Without the private policy the list is not used.
    assert!(
        McpSkills::new(catalog("public-skill"))
            .streamable_http_service(HttpOptions::default().with_credential_headers(["X Team"]))
            .is_ok()
    );
}

#[tokio::test]
async fn the_private_switch_scopes_every_cache_hint_to_the_caller() {
    let catalog = catalog("public-skill");
    let scope = async |options: HttpOptions| {
        let mcp = McpSkills::new(catalog.clone())
            .streamable_http_service(options)
            .unwrap();
        let addr = serve(Router::new().nest_service("/mcp", mcp)).await;
        let client = modern_client(addr).await;
        let listed = client.list_skills(None).await.unwrap();
        client.cancel().await.unwrap();
        listed.cache_scope
    };
    assert_eq!(
        scope(HttpOptions::default()).await,
        Some(CacheScope::Public)
    );
    assert_eq!(
        scope(HttpOptions::default().with_private(true)).await,
        Some(CacheScope::Private)
    );
}

#[tokio::test]
async fn a_live_callers_skills_follow_its_catalog_and_no_one_elses() {
    let live = skillpub_core::LiveCatalog::new(catalog("red-skill"));
    let red = McpSkills::live(live.clone()).build().unwrap();
    let mcp = McpCallers::by_extension::<Team>()
        .live_caller(Team("red"), red)
        .default_skills(skills("public-skill"))
        .streamable_http_service(HttpOptions::default())
        .unwrap();
    let addr = serve(
        Router::new()
            .nest_service("/mcp", mcp)
            .layer(middleware::from_fn(auth)),
    )
    .await;
    assert_eq!(
        listed(&call(addr, Some("red"), "skills/list", "{}").await),
        ["red-skill"]
    );
    live.replace(catalog("red-skill-v2"));
    assert_eq!(
        listed(&call(addr, Some("red"), "skills/list", "{}").await),
        ["red-skill-v2"]
    );
    assert_eq!(
        listed(&call(addr, None, "skills/list", "{}").await),
        ["public-skill"]
    );
}
