//! The skills extension over real Streamable HTTP on 127.0.0.1, with rmcp's own client: list
//! across pages, get, read and verify every resource, compare frontmatter, walk directories,
//! every error code and its data, the cache hints of every answer, and the Host and Origin
//! checks.

use std::net::SocketAddr;

use base64::Engine;
use rmcp::model::{
    CacheScope, GetSkillRequestParams, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceRequestParams, ResourceContents, SkillResources,
};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceError};
use skillpub_core::{Catalog, Digest, Skill};
use skillpub_mcp::{HttpOptions, McpSkills};

mod peers;
use peers::{
    INITIALIZE, http_get, legacy_client, modern_client, post_mcp, protocol_error, serve_mcp,
};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");
const ALLOWED_ORIGIN: &str = "https://app.example.com";

fn catalog() -> Catalog {
    Catalog::from_dir(EXAMPLES).unwrap()
}

/// The well-known routes and MCP at /mcp, one catalog, pages of two, one allowed origin.
async fn serve() -> SocketAddr {
    serve_with(HttpOptions::default().with_allowed_origins([ALLOWED_ORIGIN])).await
}

/// The well-known routes and MCP at /mcp, one catalog, pages of two.
async fn serve_with(options: HttpOptions) -> SocketAddr {
    let catalog = catalog();
    let skills = McpSkills::builder(catalog.clone())
        .page_size(2)
        .build()
        .unwrap();
    serve_mcp(skills, catalog, options).await
}

fn code(error: ServiceError) -> i32 {
    protocol_error(error).code.0
}

/// Asserts that a request for `uri` failed with `-32602` and `data: {"uri": uri}` (SEP-2164).
fn assert_not_served(error: ServiceError, uri: &str) {
    let error = protocol_error(error);
    assert_eq!(error.code.0, -32602, "{uri}");
    assert_eq!(error.data, Some(serde_json::json!({ "uri": uri })), "{uri}");
}

/// Posts an `initialize` with this `Host` and `Origin` (none when `None`) and returns the
/// status code.
async fn initialize_status(addr: SocketAddr, host: &str, origin: Option<&str>) -> u16 {
    let mut headers = vec![("Host", host)];
    headers.extend(origin.map(|origin| ("Origin", origin)));
    post_mcp(addr, &headers, INITIALIZE).await.status
}

#[tokio::test(flavor = "multi_thread")]
async fn capabilities_declare_resources_and_the_extension() {
    let addr = serve().await;
    for client in [legacy_client(addr).await, modern_client(addr).await] {
        let capabilities = client.peer_info().unwrap().capabilities.clone();
        assert!(capabilities.resources.is_some());
        let extensions = serde_json::to_value(capabilities.extensions.unwrap()).unwrap();
        assert_eq!(
            extensions["io.modelcontextprotocol/skills"],
            serde_json::json!({"directoryRead": true})
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn listing_pages_through_every_skill_and_every_resource_verifies() {
    let addr = serve().await;
    let client = legacy_client(addr).await;
    let mut skills = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let params = cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = client.list_skills(params).await.unwrap();
        assert!(page.skills.len() <= 2);
        pages += 1;
        skills.extend(page.skills);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 2, "three skills in pages of two");
    let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://publish-agent-skills/SKILL.md",
            "skill://verify-skill-digests/SKILL.md",
            "skill://write-skill-md/SKILL.md",
        ]
    );

    let catalog = catalog();
    for skill in &skills {
        let got = client
            .get_skill(GetSkillRequestParams::new(&skill.uri))
            .await
            .unwrap();
        assert_eq!(&got.skill, skill);
        let SkillResources::Files(files) = &skill.resources else {
            panic!("static skills list their files")
        };
        let published = catalog.get(skill.name()).unwrap();
        assert_eq!(
            files.len(),
            published.all_files().count(),
            "every file is in the manifest"
        );
        for file in files {
            let read = client
                .read_resource(ReadResourceRequestParams::new(&file.uri))
                .await
                .unwrap();
            let bytes = match &read.contents[0] {
                ResourceContents::TextResourceContents { text, .. } => text.as_bytes().to_vec(),
                ResourceContents::BlobResourceContents { blob, .. } => {
                    base64::prelude::BASE64_STANDARD.decode(blob).unwrap()
                }
                other => panic!("unexpected contents {other:?}"),
            };
            assert_eq!(bytes.len() as u64, file.size, "{}", file.uri);
            assert_eq!(Digest::of(&bytes).to_string(), file.digest, "{}", file.uri);
            // The same bytes as the well-known route serves.
            let path = file.uri.strip_prefix("skill://").unwrap();
            assert_eq!(
                http_get(addr, &format!("/.well-known/agent-skills/{path}")).await,
                bytes,
                "{}",
                file.uri
            );
        }

        // The frontmatter read back from SKILL.md equals the listed one, field by field.
        let read = client
            .read_resource(ReadResourceRequestParams::new(&skill.uri))
            .await
            .unwrap();
        let ResourceContents::TextResourceContents {
            text, mime_type, ..
        } = &read.contents[0]
        else {
            panic!("SKILL.md is text")
        };
        assert_eq!(mime_type.as_deref(), Some("text/markdown"));
        let parsed = Catalog::new([Skill::new(None, text.clone())]).unwrap();
        let parsed: Vec<(String, serde_json::Value)> = parsed.skills()[0]
            .frontmatter()
            .json()
            .clone()
            .into_iter()
            .collect();
        let listed: Vec<(String, serde_json::Value)> =
            match serde_json::to_value(&skill.frontmatter).unwrap() {
                serde_json::Value::Object(map) => map.into_iter().collect(),
                other => panic!("frontmatter is an object, not {other}"),
            };
        assert_eq!(
            parsed, listed,
            "{}: same fields, same values, same order",
            skill.uri
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn resources_list_every_file_with_skill_md_metadata() {
    let addr = serve().await;
    let client = modern_client(addr).await;
    let resources = client.list_all_resources().await.unwrap();
    let skill_md = resources
        .iter()
        .find(|r| r.uri == "skill://write-skill-md/SKILL.md")
        .unwrap();
    assert_eq!(skill_md.name, "write-skill-md");
    assert_eq!(skill_md.mime_type.as_deref(), Some("text/markdown"));
    assert!(
        skill_md
            .description
            .as_deref()
            .unwrap()
            .starts_with("Write or review a SKILL.md")
    );
    assert_eq!(
        resources.len(),
        6,
        "three SKILL.md, two references and one script"
    );
    let script = resources
        .iter()
        .find(|r| r.uri.ends_with("/scripts/check-index.sh"))
        .unwrap();
    assert_eq!(script.mime_type.as_deref(), Some("text/plain"));
}

#[tokio::test(flavor = "multi_thread")]
async fn directories_read_down_the_tree_one_page_at_a_time() {
    let addr = serve().await;
    let client = legacy_client(addr).await;
    let root = "skill://publish-agent-skills";
    let first = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(root))
        .await
        .unwrap();
    assert_eq!(first.resources.len(), 2);
    let cursor = first.next_cursor.clone().expect("a second page");
    let second = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(root).with_cursor(cursor))
        .await
        .unwrap();
    let children: Vec<(&str, Option<&str>)> = first
        .resources
        .iter()
        .chain(&second.resources)
        .map(|r| (r.uri.as_str(), r.mime_type.as_deref()))
        .collect();
    assert_eq!(
        children,
        [
            (
                "skill://publish-agent-skills/SKILL.md",
                Some("text/markdown")
            ),
            (
                "skill://publish-agent-skills/references",
                Some("inode/directory")
            ),
            (
                "skill://publish-agent-skills/scripts",
                Some("inode/directory")
            ),
        ]
    );
    let references = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://publish-agent-skills/references",
        ))
        .await
        .unwrap();
    let names: Vec<&str> = references
        .resources
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(names, ["http-checklist.md", "index-format.md"]);
    let lone = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://write-skill-md",
        ))
        .await
        .unwrap();
    assert_eq!(lone.resources.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn everything_not_served_is_invalid_params() {
    let addr = serve().await;
    let client = modern_client(addr).await;
    let unknown_skill = client
        .get_skill(GetSkillRequestParams::new("skill://nope/SKILL.md"))
        .await
        .unwrap_err();
    assert_eq!(code(unknown_skill), -32602);
    let not_skill_md = client
        .get_skill(GetSkillRequestParams::new(
            "skill://write-skill-md/other.md",
        ))
        .await
        .unwrap_err();
    assert_eq!(code(not_skill_md), -32602);
    let file_as_directory = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://write-skill-md/SKILL.md",
        ))
        .await
        .unwrap_err();
    assert_eq!(code(file_as_directory), -32602);
    let unknown_directory = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new("skill://nope"))
        .await
        .unwrap_err();
    assert_eq!(code(unknown_directory), -32602);
    let trailing_slash = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://write-skill-md/",
        ))
        .await
        .unwrap_err();
    assert_eq!(code(trailing_slash), -32602);
    let unknown_file = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://write-skill-md/nope.md",
        ))
        .await
        .unwrap_err();
    assert_eq!(code(unknown_file), -32602);
    let bad_cursor = client
        .list_skills(Some(
            PaginatedRequestParams::default().with_cursor(Some("999".into())),
        ))
        .await
        .unwrap_err();
    assert_eq!(code(bad_cursor), -32602);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_uri_is_named_in_the_error_data_in_both_eras() {
    let addr = serve().await;
    for client in [legacy_client(addr).await, modern_client(addr).await] {
        let uri = "skill://write-skill-md/nope.md";
        let error = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_err();
        assert_not_served(error, uri);
        let uri = "skill://nope/SKILL.md";
        let error = client
            .get_skill(GetSkillRequestParams::new(uri))
            .await
            .unwrap_err();
        assert_not_served(error, uri);
        for uri in ["skill://nope", "skill://write-skill-md/SKILL.md"] {
            let error = client
                .read_resource_directory(ReadResourceDirectoryRequestParams::new(uri))
                .await
                .unwrap_err();
            assert_not_served(error, uri);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_origin_is_refused_with_403() {
    let addr = serve().await;
    let host = addr.to_string();
    assert_eq!(
        initialize_status(addr, &host, Some("https://evil.example")).await,
        403
    );
    assert_eq!(
        initialize_status(addr, &host, Some(ALLOWED_ORIGIN)).await,
        200
    );
    assert_eq!(
        initialize_status(addr, &host, Some("http://localhost:5173")).await,
        403,
        "origins given replace the loopback default"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loopback_server_accepts_browser_origins_on_this_machine_by_default() {
    let addr = serve_with(HttpOptions::default()).await;
    let host = addr.to_string();
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1:6274",
        "http://[::1]:3000",
        "http://localhost",
    ] {
        assert_eq!(
            initialize_status(addr, &host, Some(origin)).await,
            200,
            "{origin}"
        );
    }
    for origin in ["https://evil.example", "http://localhost.evil.example:5173"] {
        assert_eq!(
            initialize_status(addr, &host, Some(origin)).await,
            403,
            "{origin}"
        );
    }
    assert_eq!(initialize_status(addr, &host, None).await, 200);
    assert_eq!(
        initialize_status(addr, "skills.example.com", None).await,
        403,
        "the default hosts are loopback only"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_public_host_drops_the_loopback_origins() {
    let addr = serve_with(HttpOptions::default().with_allowed_hosts(["skills.example.com"])).await;
    let host = "skills.example.com";
    assert_eq!(initialize_status(addr, host, None).await, 200);
    for origin in ["http://localhost:5173", "https://app.example.com"] {
        assert_eq!(
            initialize_status(addr, host, Some(origin)).await,
            403,
            "{origin}"
        );
    }

    let addr = serve_with(
        HttpOptions::default()
            .with_allowed_hosts(["skills.example.com"])
            .with_allowed_origins(["https://app.example.com"]),
    )
    .await;
    assert_eq!(
        initialize_status(addr, host, Some("https://app.example.com")).await,
        200
    );
    assert_eq!(
        initialize_status(addr, host, Some("http://localhost:5173")).await,
        403
    );
}

/// The cache hints of every kind of answer a client gets: `skills/list`, `skills/get`,
/// `resources/list`, `resources/read` and `resources/directory/read`.
async fn cache_hints(
    client: &RunningService<RoleClient, ()>,
) -> Vec<(&'static str, Option<u64>, Option<CacheScope>)> {
    let skill = "skill://publish-agent-skills/SKILL.md";
    let listed = client.list_skills(None).await.unwrap();
    let got = client
        .get_skill(GetSkillRequestParams::new(skill))
        .await
        .unwrap();
    let resources = client.list_resources(None).await.unwrap();
    let read = client
        .read_resource(ReadResourceRequestParams::new(skill))
        .await
        .unwrap();
    let directory = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://publish-agent-skills",
        ))
        .await
        .unwrap();
    vec![
        ("skills/list", listed.ttl_ms, listed.cache_scope),
        ("skills/get", got.ttl_ms, got.cache_scope),
        ("resources/list", resources.ttl_ms, resources.cache_scope),
        ("resources/read", read.ttl_ms, read.cache_scope),
        (
            "resources/directory/read",
            directory.ttl_ms,
            directory.cache_scope,
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn every_answer_carries_the_cache_hints_for_modern_peers_only() {
    let addr = serve().await;
    for (method, ttl_ms, scope) in cache_hints(&modern_client(addr).await).await {
        assert_eq!(
            (ttl_ms, scope),
            (Some(300_000), Some(CacheScope::Public)),
            "{method}"
        );
    }
    for (method, ttl_ms, scope) in cache_hints(&legacy_client(addr).await).await {
        assert_eq!((ttl_ms, scope), (None, None), "{method}");
    }
}

#[test]
fn the_configured_cache_hints_go_with_every_result() {
    let skills = McpSkills::builder(catalog())
        .ttl_ms(60_000)
        .cache_scope(CacheScope::Private)
        .build()
        .unwrap();
    let hints = (Some(60_000), Some(CacheScope::Private));
    let listed = skills.list_skills(None).unwrap();
    assert_eq!((listed.ttl_ms, listed.cache_scope), hints);
    let got = skills.get_skill(&listed.skills[0].uri).unwrap();
    assert_eq!((got.ttl_ms, got.cache_scope), hints);
    let resources = skills.list_resources(None).unwrap();
    assert_eq!((resources.ttl_ms, resources.cache_scope), hints);
    let read = skills.read_resource(&listed.skills[0].uri).unwrap();
    assert_eq!((read.ttl_ms, read.cache_scope), hints);
    let directory = skills
        .read_resource_directory("skill://publish-agent-skills", None)
        .unwrap();
    assert_eq!((directory.ttl_ms, directory.cache_scope), hints);
}

#[test]
fn frontmatter_keeps_the_authored_order() {
    let text = "---\ndescription: Does a.\nlicense: MIT\nname: a\ncompatibility: Any.\nmetadata:\n  z: \"1\"\n  a: \"2\"\n---\n";
    let skills = McpSkills::new(Catalog::new([Skill::from_static(text)]).unwrap());
    let listed = skills.list_skills(None).unwrap();
    let json = serde_json::to_value(&listed.skills[0].frontmatter).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    // rmcp's type puts name and description first; the other fields keep the authored order.
    assert_eq!(
        keys,
        [
            "name",
            "description",
            "license",
            "compatibility",
            "metadata"
        ]
    );
    let metadata: Vec<&str> = json["metadata"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(metadata, ["z", "a"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prefix_puts_every_uri_under_it() {
    let skills = McpSkills::builder(catalog())
        .prefix("acme/billing")
        .build()
        .unwrap();
    let uris: Vec<String> = skills
        .list_skills(None)
        .unwrap()
        .skills
        .into_iter()
        .map(|s| s.uri)
        .collect();
    assert!(
        uris.iter()
            .all(|uri| uri.starts_with("skill://acme/billing/")),
        "{uris:?}"
    );
    assert!(
        skills
            .read_resource("skill://acme/billing/publish-agent-skills/scripts/check-index.sh")
            .is_some()
    );
    assert!(
        skills
            .read_resource_directory("skill://acme/billing/publish-agent-skills/scripts", None)
            .is_ok()
    );
    assert!(McpSkills::builder(catalog()).prefix("a b").build().is_err());
    assert!(
        McpSkills::builder(catalog())
            .prefix("../x")
            .build()
            .is_err()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_announced_over_the_limit_is_413_before_it_is_sent() {
    use tokio::io::AsyncWriteExt;

    for stateful in [false, true] {
        let addr = serve_with(HttpOptions::default().with_stateful(stateful)).await;
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{{",
            4 * 1024 * 1024 + 1
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        // The rest never comes: the length alone says the body is too large.
        let answer = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            skillpub_testkit::read_response(&mut stream),
        )
        .await
        .expect("answered without the body");
        assert_eq!(answer.status, 413, "stateful: {stateful}");
        assert_eq!(
            answer.text(),
            "Payload Too Large: request body exceeds 4194304 bytes"
        );
    }
}
