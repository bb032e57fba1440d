//! The surfaces for MCP hosts that do not speak the skills extension, over real Streamable
//! HTTP on 127.0.0.1 with rmcp's own client: every skill as a prompt, the skill tools, the
//! catalog summary in the instructions; the same bytes and digests as the catalog and the
//! well-known routes; every error; and nothing new when the surfaces are off.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResult, ContentBlock, GetPromptRequestParams,
    ReadResourceRequestParams, ResourceContents, SkillResources,
};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceError};
use serde_json::{Value, json};
use skillpub_core::{Catalog, Digest, Skill, SkillFile, folder::read_skills_folder};
use skillpub_mcp::{
    HttpOptions, INSTRUCTIONS_LIMIT, LIST_SKILLS_TOOL, LOAD_SKILL_TOOL, McpSkills,
    McpSkillsBuilder, READ_SKILL_FILE_TOOL,
};

#[expect(
    dead_code,
    reason = "these tests speak through rmcp's client only, never a raw POST"
)]
mod peers;
use peers::{http_get, legacy_client, modern_client, protocol_error, serve_mcp};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");

/// A PNG signature and a NUL: a file that can only go out as a blob.
const LOGO: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

/// The example skills, and one more with a binary file, a text file that is not UTF-8, and a
/// nested folder.
fn catalog() -> Catalog {
    let folder = read_skills_folder(EXAMPLES).unwrap();
    let mut skills: Vec<Skill> = folder.skills().iter().map(|s| s.skill().clone()).collect();
    skills.push(
        Skill::new(
            None,
            "---\nname: brand-assets\ndescription: Use the brand's logo and letter templates. Use when writing to customers.\n---\nSee assets/logo.png and templates/en/letter.md.\n",
        )
        .with_files(vec![
            SkillFile::new("assets/logo.png", LOGO, false),
            SkillFile::new("notes/latin1.txt", b"caf\xe9\n".as_slice(), false),
            SkillFile::new("templates/en/letter.md", "Dear {name},\n", false),
        ]),
    );
    Catalog::new(skills).unwrap()
}

/// Every surface on, pages of two.
fn every_surface(catalog: Catalog) -> McpSkillsBuilder {
    McpSkills::builder(catalog)
        .page_size(2)
        .prompts(true)
        .tools(true)
        .instructions(true)
}

async fn serve_every_surface() -> SocketAddr {
    let catalog = catalog();
    let skills = every_surface(catalog.clone()).build().unwrap();
    serve_mcp(skills, catalog, HttpOptions::default()).await
}

async fn both_clients(addr: SocketAddr) -> [RunningService<RoleClient, ()>; 2] {
    [legacy_client(addr).await, modern_client(addr).await]
}

/// The bytes of a text block or of an embedded resource (text or base64 blob).
fn bytes_of(block: &ContentBlock) -> Vec<u8> {
    if let Some(text) = block.as_text() {
        return text.text.as_bytes().to_vec();
    }
    match &block.as_resource().expect("text or a resource").resource {
        ResourceContents::TextResourceContents { text, .. } => text.as_bytes().to_vec(),
        ResourceContents::BlobResourceContents { blob, .. } => {
            BASE64_STANDARD.decode(blob).unwrap()
        }
        other => panic!("unexpected contents {other:?}"),
    }
}

fn call(tool: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(tool).with_arguments(arguments)
}

/// Asserts that a tool call succeeded, and that its last text block is its structured
/// content as JSON; returns the structured content.
fn structured(result: &CallToolResult) -> &Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let value = result.structured_content.as_ref().unwrap();
    let last = result.content.last().unwrap().as_text().unwrap();
    assert_eq!(&serde_json::from_str::<Value>(&last.text).unwrap(), value);
    value
}

/// The text of a tool error.
fn tool_error(result: &CallToolResult) -> &str {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(result.structured_content.is_none());
    &result.content[0].as_text().unwrap().text
}

/// Every file of every skill of the catalog: skill name, path, bytes, digest.
fn catalog_files(catalog: &Catalog) -> Vec<(String, String, Vec<u8>, String)> {
    catalog
        .skills()
        .iter()
        .flat_map(|skill| {
            skill.all_files().map(|file| {
                let artifact = file.artifact();
                (
                    skill.name().to_owned(),
                    file.relative_path().to_owned(),
                    artifact.bytes().to_vec(),
                    artifact.digest().to_string(),
                )
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn capabilities_declare_prompts_and_tools_next_to_the_extension() {
    let addr = serve_every_surface().await;
    for client in both_clients(addr).await {
        let capabilities = client.peer_info().unwrap().capabilities.clone();
        assert!(capabilities.prompts.is_some());
        assert!(capabilities.tools.is_some());
        assert!(capabilities.resources.is_some());
        let extensions = serde_json::to_value(capabilities.extensions.unwrap()).unwrap();
        assert_eq!(
            extensions["io.modelcontextprotocol/skills"],
            json!({"directoryRead": true})
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_skill_is_a_prompt_named_and_described_by_its_frontmatter() {
    let catalog = catalog();
    let addr = serve_every_surface().await;
    for client in both_clients(addr).await {
        // Pages of two: four skills take two pages, and the client follows the cursor.
        let first = client.list_prompts(None).await.unwrap();
        assert_eq!(first.prompts.len(), 2);
        assert!(first.next_cursor.is_some());
        let prompts = client.list_all_prompts().await.unwrap();
        let listed: Vec<(&str, Option<&str>)> = prompts
            .iter()
            .map(|p| (p.name.as_str(), p.description.as_deref()))
            .collect();
        let expected: Vec<(&str, Option<&str>)> = catalog
            .skills()
            .iter()
            .map(|s| (s.name(), Some(s.frontmatter().description())))
            .collect();
        assert_eq!(listed, expected);
        assert!(prompts.iter().all(|p| p.arguments.is_none()));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_prompt_is_the_exact_skill_md_then_links_to_served_files_with_catalog_digests() {
    let catalog = catalog();
    let addr = serve_every_surface().await;
    for client in both_clients(addr).await {
        let manifests: BTreeMap<String, BTreeMap<String, (String, u64)>> = client
            .list_all_skills()
            .await
            .unwrap()
            .into_iter()
            .map(|skill| {
                let SkillResources::Files(files) = skill.resources else {
                    panic!("static skills list their files")
                };
                let files = files
                    .into_iter()
                    .map(|f| (f.uri, (f.digest, f.size)))
                    .collect();
                (skill.frontmatter.name, files)
            })
            .collect();
        for skill in catalog.skills() {
            let prompt = client
                .get_prompt(GetPromptRequestParams::new(skill.name()))
                .await
                .unwrap();
            assert_eq!(
                prompt.description.as_deref(),
                Some(skill.frontmatter().description())
            );
            let first = prompt.messages[0].content.as_text().unwrap();
            assert_eq!(
                first.text.as_bytes(),
                skill.skill_md().bytes(),
                "{}",
                skill.name()
            );
            let links: Vec<_> = prompt.messages[1..]
                .iter()
                .map(|m| m.content.as_resource_link().expect("a resource link"))
                .collect();
            assert_eq!(links.len(), skill.files().len(), "{}", skill.name());
            let manifest = &manifests[skill.name()];
            for (link, file) in links.iter().zip(skill.files()) {
                let artifact = file.artifact();
                assert_eq!(
                    link.uri,
                    format!("skill://{}/{}", skill.name(), file.relative_path())
                );
                assert_eq!(link.size, Some(artifact.len() as u64));
                // The link points at a served resource whose bytes have the catalog's digest,
                // the one skills/list gives.
                let read = client
                    .read_resource(ReadResourceRequestParams::new(&link.uri))
                    .await
                    .unwrap();
                let contents = &read.contents[0];
                let bytes = bytes_of(&ContentBlock::resource(contents.clone()));
                assert_eq!(bytes, artifact.bytes().as_ref(), "{}", link.uri);
                let digest = Digest::of(&bytes).to_string();
                assert_eq!(digest, artifact.digest().to_string(), "{}", link.uri);
                assert_eq!(manifest[&link.uri], (digest, bytes.len() as u64));
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_prompt_is_invalid_params_that_names_it() {
    let addr = serve_every_surface().await;
    for client in both_clients(addr).await {
        for name in ["nope", "WRITE-SKILL-MD", "../write-skill-md", ""] {
            let error = client
                .get_prompt(GetPromptRequestParams::new(name))
                .await
                .unwrap_err();
            let error = protocol_error(error);
            assert_eq!(error.code.0, -32602, "{name}");
            assert!(error.message.contains(&format!("`{name}`")), "{error:?}");
            assert!(error.message.contains("prompts/list"), "{error:?}");
            assert_eq!(error.data, Some(json!({ "name": name })));
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_list_the_three_skill_tools_with_their_schemas() {
    let addr = serve_every_surface().await;
    for client in both_clients(addr).await {
        let tools = client.list_all_tools().await.unwrap();
        let schemas: Vec<(&str, Value, Value)> = tools
            .iter()
            .map(|tool| {
                let annotations = tool.annotations.as_ref().unwrap();
                assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
                assert_eq!(annotations.destructive_hint, Some(false), "{}", tool.name);
                assert_eq!(annotations.open_world_hint, Some(false), "{}", tool.name);
                assert!(tool.description.as_deref().unwrap().len() > 50);
                let input = Value::Object((*tool.input_schema).clone());
                assert_eq!(input["type"], "object");
                assert_eq!(input["additionalProperties"], false, "{}", tool.name);
                let output = Value::Object((**tool.output_schema.as_ref().unwrap()).clone());
                assert_eq!(output["type"], "object");
                (
                    tool.name.as_ref(),
                    input["required"].clone(),
                    output["required"].clone(),
                )
            })
            .collect();
        assert_eq!(
            schemas,
            [
                (LIST_SKILLS_TOOL, Value::Null, json!(["skills"])),
                (
                    LOAD_SKILL_TOOL,
                    json!(["name"]),
                    json!(["name", "description", "uri", "files"])
                ),
                (
                    READ_SKILL_FILE_TOOL,
                    json!(["name", "path"]),
                    json!(["name", "path", "uri", "mimeType", "size", "digest"])
                ),
            ]
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn load_skill_returns_the_exact_skill_md_and_every_file_with_the_catalog_digest() {
    let catalog = catalog();
    let addr = serve_every_surface().await;
    for client in both_clients(addr).await {
        for skill in catalog.skills() {
            let result = client
                .call_tool(call(LOAD_SKILL_TOOL, json!({"name": skill.name()})))
                .await
                .unwrap();
            let value = structured(&result).clone();
            assert_eq!(result.content.len(), 2);
            assert_eq!(
                bytes_of(&result.content[0]),
                skill.skill_md().bytes().as_ref()
            );
            assert_eq!(value["name"], skill.name());
            assert_eq!(value["description"], skill.frontmatter().description());
            assert_eq!(value["uri"], format!("skill://{}/SKILL.md", skill.name()));
            let files: Vec<Value> = skill
                .all_files()
                .map(|file| {
                    let artifact = file.artifact();
                    let mime_type = if file.relative_path() == "SKILL.md" {
                        "text/markdown"
                    } else {
                        artifact.media_type().split(';').next().unwrap()
                    };
                    json!({
                        "path": file.relative_path(),
                        "uri": format!("skill://{}/{}", skill.name(), file.relative_path()),
                        "mimeType": mime_type,
                        "size": artifact.len(),
                        "digest": artifact.digest().to_string(),
                    })
                })
                .collect();
            assert_eq!(value["files"], Value::Array(files), "{}", skill.name());
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn read_skill_file_returns_every_file_byte_for_byte_as_the_well_known_route() {
    let catalog = catalog();
    let addr = serve_every_surface().await;
    let client = modern_client(addr).await;
    let files = catalog_files(&catalog);
    assert_eq!(
        files.len(),
        10,
        "six example files and four of brand-assets"
    );
    for (name, path, bytes, digest) in files {
        let result = client
            .call_tool(call(
                READ_SKILL_FILE_TOOL,
                json!({"name": name, "path": path}),
            ))
            .await
            .unwrap();
        let value = structured(&result).clone();
        assert_eq!(result.content.len(), 2);
        let got = bytes_of(&result.content[0]);
        assert_eq!(got, bytes, "{name}/{path}");
        assert_eq!(Digest::of(&got).to_string(), digest, "{name}/{path}");
        assert_eq!(value["digest"], digest);
        assert_eq!(value["size"], bytes.len());
        assert_eq!(value["uri"], format!("skill://{name}/{path}"));
        assert_eq!(
            (&value["name"], &value["path"]),
            (&json!(name), &json!(path))
        );
        let route = format!("/.well-known/agent-skills/{name}/{path}");
        assert_eq!(http_get(addr, &route).await, bytes, "{route}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn binary_files_are_blobs_and_text_files_are_text() {
    let addr = serve_every_surface().await;
    let client = legacy_client(addr).await;
    let read = |path: &'static str| {
        client.call_tool(call(
            READ_SKILL_FILE_TOOL,
            json!({"name": "brand-assets", "path": path}),
        ))
    };
    let logo = read("assets/logo.png").await.unwrap();
    let resource = logo.content[0].as_resource().expect("an embedded resource");
    let ResourceContents::BlobResourceContents { uri, mime_type, .. } = &resource.resource else {
        panic!("a blob: {resource:?}")
    };
    assert_eq!(uri, "skill://brand-assets/assets/logo.png");
    assert_eq!(mime_type.as_deref(), Some("image/png"));
    assert_eq!(structured(&logo)["mimeType"], "image/png");
    // Text by its name, but not UTF-8: a blob, so the bytes stay exact.
    let latin1 = read("notes/latin1.txt").await.unwrap();
    assert!(latin1.content[0].as_resource().is_some());
    assert_eq!(bytes_of(&latin1.content[0]), b"caf\xe9\n");
    let letter = read("templates/en/letter.md").await.unwrap();
    assert_eq!(letter.content[0].as_text().unwrap().text, "Dear {name},\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn list_skills_pages_through_every_skill() {
    let catalog = catalog();
    let addr = serve_every_surface().await;
    let client = modern_client(addr).await;
    let mut names = Vec::new();
    let mut arguments = json!({});
    let mut pages = 0;
    loop {
        let result = client
            .call_tool(call(LIST_SKILLS_TOOL, arguments))
            .await
            .unwrap();
        let value = structured(&result).clone();
        assert_eq!(result.content.len(), 1, "the JSON text only");
        pages += 1;
        for skill in value["skills"].as_array().unwrap() {
            let name = skill["name"].as_str().unwrap().to_owned();
            let published = catalog.get(&name).unwrap();
            assert_eq!(skill["description"], published.frontmatter().description());
            assert_eq!(skill["uri"], format!("skill://{name}/SKILL.md"));
            names.push(name);
        }
        match value.get("nextCursor") {
            Some(cursor) => arguments = json!({ "cursor": cursor }),
            None => break,
        }
    }
    assert_eq!(pages, 2, "four skills in pages of two");
    let mut expected: Vec<String> = catalog
        .skills()
        .iter()
        .map(|s| s.name().to_owned())
        .collect();
    expected.sort_by_key(|name| format!("skill://{name}/SKILL.md"));
    assert_eq!(names, expected);
}

/// A tool call that must fail with a tool error whose text contains every fragment.
macro_rules! refused {
    ($client:expr, $tool:expr, $arguments:tt, [$($fragment:expr),+ $(,)?]) => {{
        let arguments = json!($arguments);
        let result = $client
            .call_tool(call($tool, arguments.clone()))
            .await
            .unwrap_or_else(|error| panic!("{} {arguments}: a protocol error: {error}", $tool));
        let message = tool_error(&result);
        $(assert!(message.contains($fragment), "{} {arguments}: {message}", $tool);)+
        assert!(message.len() < 2048, "{} {arguments}: {} bytes", $tool, message.len());
    }};
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_skills_and_files_are_tool_errors_that_say_how_to_list() {
    let addr = serve_every_surface().await;
    for client in both_clients(addr).await {
        refused!(client, LOAD_SKILL_TOOL, {"name": "nope"},
            ["No skill named `nope`", "`list_skills`"]);
        refused!(client, READ_SKILL_FILE_TOOL, {"name": "nope", "path": "SKILL.md"},
            ["No skill named `nope`", "`list_skills`"]);
        refused!(client, READ_SKILL_FILE_TOOL, {"name": "write-skill-md", "path": "nope.md"},
            ["The skill `write-skill-md` has no file `nope.md`", "`load_skill`"]);
        // Another skill's file, named as if it were this skill's.
        refused!(client, READ_SKILL_FILE_TOOL,
            {"name": "write-skill-md", "path": "references/index-format.md"},
            ["has no file `references/index-format.md`"]);
        refused!(client, READ_SKILL_FILE_TOOL,
            {"name": "write-skill-md", "path": "publish-agent-skills/SKILL.md"},
            ["has no file `publish-agent-skills/SKILL.md`"]);
        refused!(client, LIST_SKILLS_TOOL, {"cursor": "999"},
            ["The cursor `999` was not handed out", "without a cursor"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn names_and_paths_are_checked_so_no_call_reads_outside_the_catalog() {
    let addr = serve_every_surface().await;
    let client = modern_client(addr).await;
    let skill = "publish-agent-skills";
    // Names, by the core's name rule.
    for (name, fragment) in [
        ("Write-Skill-MD", "has uppercase letters"),
        ("../write-skill-md", "contains '.', '/'"),
        ("write-skill-md/../x", "contains '/', '.'"),
        ("write_skill_md", "contains '_'"),
        ("-write", "starts or ends with a hyphen"),
        ("write--skill", "consecutive hyphens"),
        ("", "must not be empty"),
        ("%2e%2e", "contains '%'"),
    ] {
        refused!(client, LOAD_SKILL_TOOL, {"name": name},
            [&format!("The skill name `{name}` is not valid"), fragment, "`list_skills`"]);
        refused!(client, READ_SKILL_FILE_TOOL, {"name": name, "path": "SKILL.md"},
            [&format!("The skill name `{name}` is not valid"), fragment]);
    }
    // A huge name is reported by its length, not repeated.
    let huge = "a".repeat(100_000);
    refused!(client, LOAD_SKILL_TOOL, {"name": huge},
        ["is 100000 characters long, over the limit of 64"]);
    // Paths, by the core's path rules.
    for (path, fragment) in [
        ("../write-skill-md/SKILL.md", "is not a plain relative path"),
        (
            "references/../../write-skill-md/SKILL.md",
            "is not a plain relative path",
        ),
        ("/etc/passwd", "is not a plain relative path"),
        ("./SKILL.md", "is not a plain relative path"),
        ("references/", "is not a plain relative path"),
        (
            "references//index-format.md",
            "is not a plain relative path",
        ),
        ("", "is not a plain relative path"),
        ("%2e%2e/write-skill-md/SKILL.md", "contains '%'"),
        ("..\\write-skill-md\\SKILL.md", "contains '\\\\'"),
        ("C:\\Windows\\win.ini", "contains ':', '\\\\'"),
        ("references/index format.md", "contains ' '"),
        (".env", "is hidden"),
        ("references/.secret", "is hidden"),
    ] {
        refused!(client, READ_SKILL_FILE_TOOL, {"name": skill, "path": path},
            [&format!("The path `{path}` "), fragment, "`load_skill`"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_mistyped_and_unknown_arguments_are_tool_errors() {
    let addr = serve_every_surface().await;
    let client = legacy_client(addr).await;
    refused!(
        client,
        LOAD_SKILL_TOOL,
        {},
        ["`load_skill` needs the argument `name`", "`list_skills`"]
    );
    refused!(client, READ_SKILL_FILE_TOOL, {"name": "write-skill-md"},
        ["`read_skill_file` needs the argument `path`", "as `load_skill` lists it"]);
    refused!(client, LOAD_SKILL_TOOL, {"name": 7},
        ["The argument `name` of `load_skill` must be a string, not a number"]);
    refused!(client, READ_SKILL_FILE_TOOL, {"name": "write-skill-md", "path": ["SKILL.md"]},
        ["The argument `path` of `read_skill_file` must be a string, not an array"]);
    refused!(client, LOAD_SKILL_TOOL, {"skill": "write-skill-md"},
        ["`load_skill` has no argument `skill`; it takes `name`"]);
    refused!(client, READ_SKILL_FILE_TOOL, {"name": "write-skill-md", "path": "SKILL.md", "uri": "x"},
        ["has no argument `uri`; it takes `name` and `path`"]);
    refused!(client, LIST_SKILLS_TOOL, {"cursor": null},
        ["The argument `cursor` of `list_skills` must be a string, not null"]);
    // No arguments at all is the same as an empty object.
    let bare = client
        .call_tool(CallToolRequestParams::new(LOAD_SKILL_TOOL))
        .await
        .unwrap();
    assert!(tool_error(&bare).contains("needs the argument `name`"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_tool_is_invalid_params() {
    let addr = serve_every_surface().await;
    for client in both_clients(addr).await {
        let error = client
            .call_tool(call("read_resource", json!({})))
            .await
            .unwrap_err();
        let error = protocol_error(error);
        assert_eq!(error.code.0, -32602);
        assert!(error.message.contains("`read_resource`"), "{error:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_instructions_summarize_every_skill_in_both_eras() {
    let catalog = catalog();
    let skills = every_surface(catalog.clone()).build().unwrap();
    let expected = skills.instructions().to_owned();
    let addr = serve_mcp(skills, catalog.clone(), HttpOptions::default()).await;
    for client in both_clients(addr).await {
        let info = client.peer_info().unwrap();
        let instructions = info.instructions.as_deref().unwrap();
        assert_eq!(instructions, expected);
        assert!(instructions.len() <= INSTRUCTIONS_LIMIT);
        assert!(instructions.contains("`load_skill`"));
        assert!(instructions.contains("`read_skill_file`"));
        assert!(instructions.contains("prompt of the same name"));
        assert!(!instructions.contains("not listed here"));
        let lines: Vec<&str> = instructions
            .lines()
            .filter(|line| line.starts_with("- "))
            .collect();
        let expected: Vec<String> = catalog
            .skills()
            .iter()
            .map(|s| {
                let description: Vec<&str> =
                    s.frontmatter().description().split_whitespace().collect();
                format!("- {}: {}", s.name(), description.join(" "))
            })
            .collect();
        assert_eq!(lines, expected);
    }
}

/// `count` skills with descriptions of about 300 bytes.
fn many_skills(count: usize) -> Catalog {
    Catalog::new((0..count).map(|at| {
        Skill::new(
            None,
            format!(
                "---\nname: skill-{at:04}\ndescription: Does task number {at} of a long list. {}\n---\nSteps.\n",
                "Use when the task at hand matches it closely. ".repeat(6)
            ),
        )
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_instructions_stop_at_the_limit_and_say_how_many_are_left_out() {
    let catalog = many_skills(300);
    let skills = every_surface(catalog.clone()).build().unwrap();
    let addr = serve_mcp(skills, catalog.clone(), HttpOptions::default()).await;
    let client = legacy_client(addr).await;
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(
        instructions.len() <= INSTRUCTIONS_LIMIT,
        "{}",
        instructions.len()
    );
    let listed: Vec<&str> = instructions
        .lines()
        .filter_map(|line| line.strip_prefix("- "))
        .map(|line| line.split(':').next().unwrap())
        .collect();
    // The first skills in order, whole lines only, then the count of the rest.
    let expected: Vec<String> = (0..listed.len())
        .map(|at| format!("skill-{at:04}"))
        .collect();
    assert_eq!(listed, expected);
    assert!(listed.len() > 20 && listed.len() < 300, "{}", listed.len());
    assert!(
        instructions.ends_with(&format!(
            "\n({} more skills are not listed here, to keep this summary within 16384 bytes; call the tool `list_skills` to list every skill.)\n",
            300 - listed.len()
        )),
        "{}",
        &instructions[instructions.len() - 200..]
    );
    // The same catalog, built again, gives the same text.
    let again = every_surface(catalog).build().unwrap();
    assert_eq!(again.instructions(), instructions);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_the_surfaces_off_nothing_new_is_declared_or_listed() {
    let catalog = catalog();
    let addr = serve_mcp(
        McpSkills::new(catalog.clone()),
        catalog,
        HttpOptions::default(),
    )
    .await;
    for client in both_clients(addr).await {
        let info = client.peer_info().unwrap();
        assert!(info.capabilities.prompts.is_none());
        assert!(info.capabilities.tools.is_none());
        assert_eq!(
            info.instructions.as_deref(),
            Some("Agent Skills: call skills/list, then resources/read on a skill's SKILL.md.")
        );
        let code = |error: ServiceError| protocol_error(error).code.0;
        assert_eq!(code(client.list_prompts(None).await.unwrap_err()), -32601);
        let get = client.get_prompt(GetPromptRequestParams::new("write-skill-md"));
        assert_eq!(code(get.await.unwrap_err()), -32601);
        assert_eq!(code(client.list_tools(None).await.unwrap_err()), -32601);
        let load = client.call_tool(call(LOAD_SKILL_TOOL, json!({"name": "write-skill-md"})));
        assert_eq!(code(load.await.unwrap_err()), -32601);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn each_surface_is_declared_only_when_on() {
    let catalog = catalog();
    let prompts = McpSkills::builder(catalog.clone())
        .prompts(true)
        .build()
        .unwrap();
    let capabilities = prompts.capabilities();
    assert!(capabilities.prompts.is_some() && capabilities.tools.is_none());
    assert!(prompts.list_tools(None).unwrap().tools.is_empty());
    assert!(
        prompts
            .call_tool(&call(LOAD_SKILL_TOOL, json!({"name": "write-skill-md"})))
            .is_none()
    );
    assert!(!prompts.instructions().contains("load_skill"));
    assert!(!prompts.instructions().contains("\n- write-skill-md: "));

    let tools = McpSkills::builder(catalog.clone())
        .tools(true)
        .build()
        .unwrap();
    let capabilities = tools.capabilities();
    assert!(capabilities.tools.is_some() && capabilities.prompts.is_none());
    assert!(tools.list_prompts(None).unwrap().prompts.is_empty());
    assert!(tools.get_prompt("write-skill-md").is_none());

    let summary = McpSkills::builder(catalog)
        .instructions(true)
        .build()
        .unwrap();
    let capabilities = summary.capabilities();
    assert!(capabilities.tools.is_none() && capabilities.prompts.is_none());
    assert!(summary.instructions().contains("\n- write-skill-md: "));
    assert!(!summary.instructions().contains("load_skill"));
}

#[tokio::test(flavor = "multi_thread")]
async fn prompt_and_tool_listings_carry_the_cache_hints_for_modern_peers_only() {
    let addr = serve_every_surface().await;
    let modern = modern_client(addr).await;
    let prompts = modern.list_prompts(None).await.unwrap();
    let tools = modern.list_tools(None).await.unwrap();
    let hints = (Some(300_000), Some(CacheScope::Public));
    assert_eq!((prompts.ttl_ms, prompts.cache_scope), hints);
    assert_eq!((tools.ttl_ms, tools.cache_scope), hints);
    let legacy = legacy_client(addr).await;
    let prompts = legacy.list_prompts(None).await.unwrap();
    let tools = legacy.list_tools(None).await.unwrap();
    assert_eq!((prompts.ttl_ms, prompts.cache_scope), (None, None));
    assert_eq!((tools.ttl_ms, tools.cache_scope), (None, None));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prefix_goes_into_every_uri_but_not_into_prompt_or_tool_names() {
    let catalog = catalog();
    let skills = every_surface(catalog.clone())
        .prefix("acme/billing")
        .build()
        .unwrap();
    let addr = serve_mcp(skills, catalog, HttpOptions::default()).await;
    let client = legacy_client(addr).await;
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("publish-agent-skills"))
        .await
        .unwrap();
    let link = prompt.messages[1].content.as_resource_link().unwrap();
    assert_eq!(
        link.uri,
        "skill://acme/billing/publish-agent-skills/references/http-checklist.md"
    );
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new(&link.uri))
            .await
            .is_ok()
    );
    let loaded = client
        .call_tool(call(
            LOAD_SKILL_TOOL,
            json!({"name": "publish-agent-skills"}),
        ))
        .await
        .unwrap();
    assert_eq!(
        structured(&loaded)["uri"],
        "skill://acme/billing/publish-agent-skills/SKILL.md"
    );
    let read = client
        .call_tool(call(
            READ_SKILL_FILE_TOOL,
            json!({"name": "publish-agent-skills", "path": "scripts/check-index.sh"}),
        ))
        .await
        .unwrap();
    assert_eq!(
        structured(&read)["uri"],
        "skill://acme/billing/publish-agent-skills/scripts/check-index.sh"
    );
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(instructions.contains("skill://acme/billing/<name>/SKILL.md"));
}

#[test]
fn paginated_prompt_and_tool_listings_refuse_a_cursor_they_did_not_hand_out() {
    let skills = every_surface(catalog()).build().unwrap();
    assert_eq!(skills.list_prompts(Some("x")).unwrap_err().code.0, -32602);
    assert_eq!(skills.list_tools(Some("99")).unwrap_err().code.0, -32602);
    let second = skills.list_prompts(Some("2")).unwrap();
    assert_eq!(second.prompts.len(), 2);
    assert_eq!(second.next_cursor, None);
}
