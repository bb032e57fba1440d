//! The HTTP policy, request by request, through `oneshot` (no network).

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::header::{
    ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS,
    ACCESS_CONTROL_MAX_AGE, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, ETAG,
    IF_NONE_MATCH, X_CONTENT_TYPE_OPTIONS,
};
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode};
use http_body_util::BodyExt;
use skillpub_core::{Catalog, Digest, Skill, SkillFile, index::ArchiveFormat};
use tower::ServiceExt;

use crate::{RouterBuilder, router};

const GREETING: &str =
    "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n";
const FAREWELL: &str = "---\nname: farewell\ndescription: Says goodbye.\n---\nSay goodbye.\n";
const INDEX: &str = "/.well-known/agent-skills/index.json";
const SKILL: &str = "/.well-known/agent-skills/greeting/SKILL.md";

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\nSee references/forms.md.\n";

/// A text file long enough for every coding to save bytes.
const GUIDE: &str = "/.well-known/agent-skills/pdf/references/guide.md";

fn guide() -> String {
    (1..=40)
        .map(|step| format!("{step}. Fill in field {step} of the form, then check it.\n"))
        .collect()
}

fn catalog() -> Catalog {
    let pdf = Skill::new(None, PDF).with_files(vec![
        SkillFile::new("references/forms.md", "# Forms\n", false),
        SkillFile::new("references/guide.md", guide(), false),
        SkillFile::new("scripts/fill.py", "print('fill')\n", false),
        SkillFile::new("assets/logo.png", &b"\x89PNG\r\n"[..], false),
    ]);
    Catalog::new([
        Skill::from_static(GREETING),
        Skill::from_static(FAREWELL),
        pdf,
    ])
    .unwrap()
}

fn app() -> Router {
    router(catalog())
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

async fn send(app: Router, method: Method, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = app
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

async fn get(path: &str) -> Answer {
    send(app(), Method::GET, path, &[]).await
}

/// GET and HEAD must agree on status and every header; HEAD has no body.
async fn get_and_head(path: &str, headers: &[(&str, &str)]) -> Answer {
    let get = send(app(), Method::GET, path, headers).await;
    let head = send(app(), Method::HEAD, path, headers).await;
    assert_eq!(get.status, head.status, "{path}");
    assert_eq!(get.headers, head.headers, "{path}");
    assert!(head.body.is_empty(), "{path}");
    get
}

fn header(answer: &Answer, name: http::header::HeaderName) -> &str {
    answer
        .headers
        .get(&name)
        .unwrap_or_else(|| panic!("no {name}"))
        .to_str()
        .unwrap()
}

fn assert_common_headers(answer: &Answer) {
    assert_eq!(header(answer, ACCESS_CONTROL_ALLOW_ORIGIN), "*");
    assert_eq!(header(answer, ACCESS_CONTROL_EXPOSE_HEADERS), "ETag");
    assert_eq!(header(answer, X_CONTENT_TYPE_OPTIONS), "nosniff");
    assert_eq!(
        header(answer, http::header::CONTENT_SECURITY_POLICY),
        "default-src 'none'; sandbox"
    );
    assert!(answer.headers.contains_key(CACHE_CONTROL));
}

#[tokio::test]
async fn index_is_json_with_validators() {
    let answer = get_and_head(INDEX, &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(header(&answer, CONTENT_TYPE), "application/json");
    assert_eq!(
        header(&answer, CACHE_CONTROL),
        "public, no-cache, no-transform"
    );
    assert_eq!(
        header(&answer, CONTENT_LENGTH),
        answer.body.len().to_string()
    );
    assert_eq!(
        header(&answer, ETAG),
        format!("\"{}\"", Digest::of(&answer.body))
    );
    assert_common_headers(&answer);
}

#[tokio::test]
async fn skill_md_is_markdown_and_matches_its_digest_in_the_index() {
    let answer = get_and_head(SKILL, &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        header(&answer, CONTENT_TYPE),
        "text/markdown; charset=utf-8"
    );
    assert_eq!(answer.body, GREETING.as_bytes());
    assert_common_headers(&answer);

    let index: serde_json::Value = serde_json::from_slice(&get(INDEX).await.body).unwrap();
    let entry = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "greeting")
        .unwrap();
    assert_eq!(entry["digest"], Digest::of(&answer.body).to_string());
    let addressed = skillpub_core::paths::addressed_path(SKILL, Digest::of(&answer.body));
    assert_eq!(entry["url"], addressed.unwrap());
    assert_eq!(get(entry["url"].as_str().unwrap()).await.body, answer.body);
}

macro_rules! not_found {
    ($($name:ident: $path:expr,)+) => {$(
        #[tokio::test]
        async fn $name() {
            let answer = get_and_head($path, &[]).await;
            assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", $path);
            assert_eq!(header(&answer, CONTENT_TYPE), "application/json");
            assert_eq!(header(&answer, CACHE_CONTROL), "public, max-age=10");
            assert_eq!(header(&answer, CONTENT_LENGTH), answer.body.len().to_string());
            let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
            assert_eq!(body["error"], "not_found");
            assert!(!answer.headers.contains_key(ETAG));
            assert_common_headers(&answer);
        }
    )+};
}

not_found! {
    unknown_skill_is_404: "/.well-known/agent-skills/nope/SKILL.md",
    wrong_case_file_is_404: "/.well-known/agent-skills/greeting/skill.md",
    wrong_case_skill_is_404: "/.well-known/agent-skills/Greeting/SKILL.md",
    wrong_case_index_is_404: "/.well-known/agent-skills/INDEX.json",
    trailing_slash_is_404: "/.well-known/agent-skills/greeting/SKILL.md/",
    skill_folder_is_404: "/.well-known/agent-skills/greeting/",
    skill_folder_without_slash_is_404: "/.well-known/agent-skills/greeting",
    well_known_folder_is_404: "/.well-known/agent-skills/",
    well_known_folder_without_slash_is_404: "/.well-known/agent-skills",
    dot_dot_is_404: "/.well-known/agent-skills/farewell/../greeting/SKILL.md",
    encoded_dot_dot_is_404: "/.well-known/agent-skills/farewell/%2e%2e/greeting/SKILL.md",
    encoded_slash_is_404: "/.well-known/agent-skills/greeting%2FSKILL.md",
    encoded_letter_is_404: "/.well-known/agent-skills/greeting/SKILL%2Emd",
    double_slash_is_404: "/.well-known/agent-skills//greeting/SKILL.md",
    dot_segment_is_404: "/.well-known/agent-skills/./index.json",
    legacy_index_is_404: "/.well-known/agent-skills/skills/index.json",
}

#[tokio::test]
async fn other_methods_get_405_with_allow_on_every_route() {
    for path in [INDEX, SKILL] {
        for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
            let answer = send(app(), method.clone(), path, &[]).await;
            assert_eq!(
                answer.status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}"
            );
            assert_eq!(header(&answer, ALLOW), "GET, HEAD, OPTIONS");
            assert_eq!(header(&answer, CACHE_CONTROL), "public, max-age=10");
            let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
            assert_eq!(body["error"], "method_not_allowed");
            assert_common_headers(&answer);
        }
    }
}

#[tokio::test]
async fn preflight_is_answered_with_204() {
    for path in [INDEX, SKILL] {
        let answer = send(
            app(),
            Method::OPTIONS,
            path,
            &[
                ("origin", "https://agent.example"),
                ("access-control-request-method", "GET"),
            ],
        )
        .await;
        assert_eq!(answer.status, StatusCode::NO_CONTENT);
        assert_eq!(
            header(&answer, ACCESS_CONTROL_ALLOW_METHODS),
            "GET, HEAD, OPTIONS"
        );
        assert_eq!(header(&answer, ACCESS_CONTROL_MAX_AGE), "86400");
        assert_eq!(header(&answer, ALLOW), "GET, HEAD, OPTIONS");
        assert!(answer.body.is_empty());
        assert_common_headers(&answer);
    }
}

#[tokio::test]
async fn matching_if_none_match_gives_304_with_the_same_caching_and_cors() {
    let etag = header(&get(SKILL).await, ETAG).to_owned();
    let weak = format!("W/{etag}");
    let listed = format!("\"other\", {etag}");
    for value in [etag.as_str(), weak.as_str(), listed.as_str(), "*"] {
        let answer = get_and_head(SKILL, &[("if-none-match", value)]).await;
        assert_eq!(answer.status, StatusCode::NOT_MODIFIED, "{value}");
        assert_eq!(header(&answer, ETAG), etag);
        assert_eq!(
            header(&answer, CACHE_CONTROL),
            "public, no-cache, no-transform"
        );
        assert!(answer.body.is_empty());
        assert_common_headers(&answer);
    }
}

#[tokio::test]
async fn if_none_match_in_separate_header_lines_is_combined() {
    let etag = header(&get(INDEX).await, ETAG).to_owned();
    let answer = get_and_head(
        INDEX,
        &[
            (IF_NONE_MATCH.as_str(), "\"a\""),
            (IF_NONE_MATCH.as_str(), &etag),
        ],
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn a_different_etag_gives_the_full_answer() {
    let other = format!("\"{}\"", Digest::of(b"other"));
    for value in [other.as_str(), "\"sha256\"", "", "garbage"] {
        let answer = get_and_head(SKILL, &[("if-none-match", value)]).await;
        assert_eq!(answer.status, StatusCode::OK, "{value}");
        assert_eq!(answer.body, GREETING.as_bytes());
    }
}

#[tokio::test]
async fn the_etag_of_one_skill_does_not_match_another() {
    let etag = header(&get(SKILL).await, ETAG).to_owned();
    let answer = get_and_head(
        "/.well-known/agent-skills/farewell/SKILL.md",
        &[("if-none-match", &etag)],
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn cache_control_and_max_age_are_configurable() {
    let app: Router = RouterBuilder::new(catalog())
        .cache_control(HeaderValue::from_static("public, max-age=5"))
        .addressed_cache_control(HeaderValue::from_static("private, max-age=60"))
        .error_cache_control(HeaderValue::from_static("no-store"))
        .cors_max_age(Duration::from_secs(60))
        .build();
    let ok = send(app.clone(), Method::GET, SKILL, &[]).await;
    assert_eq!(header(&ok, CACHE_CONTROL), "public, max-age=5");
    let etag = header(&ok, ETAG).to_owned();
    let not_modified = send(app.clone(), Method::GET, SKILL, &[("if-none-match", &etag)]).await;
    assert_eq!(header(&not_modified, CACHE_CONTROL), "public, max-age=5");
    let addressed = header(&ok, http::header::CONTENT_LOCATION).to_owned();
    let at_address = send(app.clone(), Method::GET, &addressed, &[]).await;
    assert_eq!(header(&at_address, CACHE_CONTROL), "private, max-age=60");
    let revalidated = send(
        app.clone(),
        Method::GET,
        &addressed,
        &[("if-none-match", &etag)],
    )
    .await;
    assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED);
    assert_eq!(header(&revalidated, CACHE_CONTROL), "private, max-age=60");
    let missing = send(app.clone(), Method::GET, "/.well-known/agent-skills/x", &[]).await;
    assert_eq!(header(&missing, CACHE_CONTROL), "no-store");
    let preflight = send(app, Method::OPTIONS, SKILL, &[]).await;
    assert_eq!(header(&preflight, ACCESS_CONTROL_MAX_AGE), "60");
}

#[tokio::test]
async fn the_cors_max_age_is_sent_in_whole_seconds_with_the_fraction_dropped() {
    for (max_age, header_value) in [
        (Duration::from_millis(1_999), "1"),
        (Duration::from_millis(999), "0"),
        (Duration::ZERO, "0"),
        (crate::DEFAULT_CORS_MAX_AGE, "86400"),
        (Duration::MAX, "18446744073709551615"),
    ] {
        let app: Router = RouterBuilder::new(catalog()).cors_max_age(max_age).build();
        let preflight = send(app, Method::OPTIONS, SKILL, &[]).await;
        assert_eq!(
            header(&preflight, ACCESS_CONTROL_MAX_AGE),
            header_value,
            "{max_age:?}"
        );
    }
}

#[tokio::test]
async fn paths_outside_the_folder_are_left_to_the_app() {
    let app: Router = Router::new()
        .route("/", axum::routing::get(|| async { "home" }))
        .merge(router(catalog()));
    let home = send(app.clone(), Method::GET, "/", &[]).await;
    assert_eq!(home.body, b"home");
    let elsewhere = send(app, Method::GET, "/.well-known/other", &[]).await;
    assert_eq!(elsewhere.status, StatusCode::NOT_FOUND);
    assert!(!elsewhere.headers.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN));
}

#[tokio::test]
async fn supporting_files_and_archives_are_served_with_their_types() {
    let catalog = catalog();
    let pdf = catalog.get("pdf").unwrap();
    let cases = [
        (
            "/.well-known/agent-skills/pdf/SKILL.md",
            "text/markdown; charset=utf-8",
            pdf.skill_md().bytes().clone(),
        ),
        (
            "/.well-known/agent-skills/pdf/references/forms.md",
            "text/markdown; charset=utf-8",
            "# Forms\n".into(),
        ),
        (
            "/.well-known/agent-skills/pdf/scripts/fill.py",
            "text/plain; charset=utf-8",
            "print('fill')\n".into(),
        ),
        (
            "/.well-known/agent-skills/pdf/assets/logo.png",
            "image/png",
            b"\x89PNG\r\n"[..].into(),
        ),
        (
            "/.well-known/agent-skills/pdf.tar.gz",
            "application/gzip",
            pdf.archive(ArchiveFormat::TarGz).unwrap().bytes().clone(),
        ),
        (
            "/.well-known/agent-skills/pdf.zip",
            "application/zip",
            pdf.archive(ArchiveFormat::Zip).unwrap().bytes().clone(),
        ),
    ];
    for (path, content_type, bytes) in cases {
        let answer = get_and_head(path, &[]).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(header(&answer, CONTENT_TYPE), content_type, "{path}");
        assert_eq!(answer.body, bytes.as_ref(), "{path}");
        assert_eq!(header(&answer, ETAG), format!("\"{}\"", Digest::of(&bytes)));
        assert_eq!(
            header(&answer, http::header::CONTENT_ENCODING),
            "identity",
            "{path}"
        );
        assert_common_headers(&answer);

        let etag = header(&answer, ETAG).to_owned();
        let revalidated = get_and_head(path, &[("if-none-match", &etag)]).await;
        assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED, "{path}");
        let post = send(app(), Method::POST, path, &[]).await;
        assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
    }
}

not_found! {
    folder_of_files_is_404: "/.well-known/agent-skills/pdf/references",
    folder_of_files_with_slash_is_404: "/.well-known/agent-skills/pdf/references/",
    wrong_case_file_in_folder_is_404: "/.well-known/agent-skills/pdf/References/forms.md",
    archive_with_slash_is_404: "/.well-known/agent-skills/pdf.tar.gz/",
    archive_wrong_case_is_404: "/.well-known/agent-skills/pdf.TAR.GZ",
    archive_of_a_single_file_skill_is_404: "/.well-known/agent-skills/greeting.tar.gz",
    archive_other_suffix_is_404: "/.well-known/agent-skills/pdf.tgz",
    file_under_archive_name_is_404: "/.well-known/agent-skills/pdf.zip/SKILL.md",
    encoded_file_path_is_404: "/.well-known/agent-skills/pdf/references%2Fforms.md",
    traversal_into_another_skill_is_404: "/.well-known/agent-skills/pdf/../greeting/SKILL.md",
}

#[tokio::test]
async fn preflight_allows_the_conditional_headers() {
    let answer = send(app(), Method::OPTIONS, SKILL, &[]).await;
    let allowed = header(&answer, http::header::ACCESS_CONTROL_ALLOW_HEADERS);
    assert_eq!(allowed, "If-None-Match, If-Match");
}

#[tokio::test]
async fn preflight_to_an_unpublished_path_is_answered_so_the_404_can_be_read() {
    let answer = send(
        app(),
        Method::OPTIONS,
        "/.well-known/agent-skills/nope/SKILL.md",
        &[],
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(
        header(&answer, ACCESS_CONTROL_ALLOW_METHODS),
        "GET, HEAD, OPTIONS"
    );
    assert_common_headers(&answer);
}

#[tokio::test]
async fn other_methods_on_an_unpublished_path_are_404() {
    let answer = send(
        app(),
        Method::POST,
        "/.well-known/agent-skills/nope/SKILL.md",
        &[],
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_common_headers(&answer);
}

#[tokio::test]
async fn a_304_has_no_content_length_or_type() {
    let etag = header(&get(SKILL).await, ETAG).to_owned();
    let answer = get_and_head(SKILL, &[("if-none-match", &etag)]).await;
    assert_eq!(answer.status, StatusCode::NOT_MODIFIED);
    assert!(!answer.headers.contains_key(CONTENT_LENGTH));
    assert!(!answer.headers.contains_key(CONTENT_TYPE));
}

#[tokio::test]
async fn if_none_match_does_not_turn_errors_into_304() {
    let missing = get_and_head(
        "/.well-known/agent-skills/nope/SKILL.md",
        &[("if-none-match", "*")],
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    let post = send(app(), Method::POST, SKILL, &[("if-none-match", "*")]).await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn a_comma_or_star_inside_a_quoted_tag_is_part_of_the_tag() {
    for value in ["\"a,*,b\"", "\"*\"", "\"x\", \"*\""] {
        let answer = get_and_head(SKILL, &[("if-none-match", value)]).await;
        assert_eq!(answer.status, StatusCode::OK, "{value}");
    }
}

#[tokio::test]
async fn if_match_is_evaluated_with_strong_comparison() {
    let etag = header(&get(SKILL).await, ETAG).to_owned();
    let weak = format!("W/{etag}");
    let listed = format!("\"other\", {etag}");
    for (value, status) in [
        (etag.as_str(), StatusCode::OK),
        (listed.as_str(), StatusCode::OK),
        ("*", StatusCode::OK),
        (weak.as_str(), StatusCode::PRECONDITION_FAILED),
        ("\"other\"", StatusCode::PRECONDITION_FAILED),
        ("garbage", StatusCode::PRECONDITION_FAILED),
    ] {
        let answer = get_and_head(SKILL, &[("if-match", value)]).await;
        assert_eq!(answer.status, status, "If-Match: {value}");
        assert_common_headers(&answer);
        if status == StatusCode::PRECONDITION_FAILED {
            assert_eq!(header(&answer, CACHE_CONTROL), "public, max-age=10");
            let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
            assert_eq!(body["error"], "precondition_failed");
        }
    }
}

#[tokio::test]
async fn a_malformed_list_never_gives_304_and_always_gives_412() {
    let etag = header(&get(SKILL).await, ETAG).to_owned();
    for value in [
        format!("{etag} garbage"),
        format!("garbage, {etag}"),
        format!("*, {etag}"),
    ] {
        let answer = get_and_head(SKILL, &[("if-none-match", &value)]).await;
        assert_eq!(answer.status, StatusCode::OK, "If-None-Match: {value}");
        let answer = get_and_head(SKILL, &[("if-match", &value)]).await;
        assert_eq!(
            answer.status,
            StatusCode::PRECONDITION_FAILED,
            "If-Match: {value}"
        );
    }
}

#[tokio::test]
async fn if_match_is_checked_before_if_none_match() {
    let etag = header(&get(SKILL).await, ETAG).to_owned();
    let answer = get_and_head(
        SKILL,
        &[("if-match", "\"other\""), ("if-none-match", &etag)],
    )
    .await;
    assert_eq!(answer.status, StatusCode::PRECONDITION_FAILED);
    let answer = get_and_head(SKILL, &[("if-match", &etag), ("if-none-match", &etag)]).await;
    assert_eq!(answer.status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn configured_cache_control_reaches_every_kind_of_answer() {
    let app: Router = RouterBuilder::new(catalog())
        .cache_control(HeaderValue::from_static("no-cache"))
        .error_cache_control(HeaderValue::from_static("no-store"))
        .build();
    let preflight = send(app.clone(), Method::OPTIONS, SKILL, &[]).await;
    assert_eq!(header(&preflight, CACHE_CONTROL), "no-cache");
    let not_allowed = send(app.clone(), Method::DELETE, SKILL, &[]).await;
    assert_eq!(header(&not_allowed, CACHE_CONTROL), "no-store");
    let failed = send(app, Method::GET, SKILL, &[("if-match", "\"x\"")]).await;
    assert_eq!(header(&failed, CACHE_CONTROL), "no-store");
}

mod link {
    use super::*;
    use crate::AgentSkillsLinkLayer;
    use axum::routing::get;

    const LINK: &str =
        "</.well-known/agent-skills/index.json>; rel=\"agent-skills\"; type=\"application/json\"";

    fn app(layer: AgentSkillsLinkLayer) -> Router {
        Router::new()
            .route("/", get(|| async { axum::response::Html("<h1>Home</h1>") }))
            .route(
                "/api",
                get(|| async { ([("content-type", "application/json")], "{\"ok\":true}") }),
            )
            .merge(router(catalog()))
            .layer(layer)
    }

    fn links(answer: &Answer) -> Vec<&str> {
        answer
            .headers
            .get_all(http::header::LINK)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect()
    }

    #[tokio::test]
    async fn every_response_gets_the_link_by_default() {
        for path in ["/", "/api", INDEX] {
            let answer = send(app(AgentSkillsLinkLayer::all()), Method::GET, path, &[]).await;
            assert_eq!(links(&answer), [LINK], "{path}");
        }
    }

    #[tokio::test]
    async fn html_only_skips_everything_but_pages() {
        let layer = AgentSkillsLinkLayer::html_only();
        assert_eq!(
            links(&send(app(layer.clone()), Method::GET, "/", &[]).await),
            [LINK]
        );
        assert!(links(&send(app(layer.clone()), Method::GET, "/api", &[]).await).is_empty());
        assert!(links(&send(app(layer), Method::GET, INDEX, &[]).await).is_empty());
    }

    #[tokio::test]
    async fn a_predicate_and_another_index_url_can_be_given() {
        let layer = AgentSkillsLinkLayer::when(|status, _| status.is_success())
            .index_url("/docs/.well-known/agent-skills/index.json")
            .unwrap();
        let answer = send(app(layer.clone()), Method::GET, "/", &[]).await;
        assert_eq!(
            links(&answer),
            [
                "</docs/.well-known/agent-skills/index.json>; rel=\"agent-skills\"; type=\"application/json\""
            ]
        );
        let missing = send(app(layer), Method::GET, "/nope", &[]).await;
        assert!(links(&missing).is_empty());
        assert!(AgentSkillsLinkLayer::all().index_url("/a>b").is_err());
        assert!(AgentSkillsLinkLayer::all().index_url("/a b").is_err());
        assert!(AgentSkillsLinkLayer::all().index_url("/a\"b").is_err());
        assert!(
            AgentSkillsLinkLayer::all()
                .index_url("https://example.com/a%20b/index.json")
                .is_ok()
        );
    }

    #[tokio::test]
    async fn an_existing_identical_link_is_not_repeated() {
        let twice = Router::new()
            .route("/", get(|| async { "x" }))
            .layer(AgentSkillsLinkLayer::all())
            .layer(AgentSkillsLinkLayer::all());
        let answer = send(twice, Method::GET, "/", &[]).await;
        assert_eq!(links(&answer), [LINK]);
    }
}

#[tokio::test]
async fn the_legacy_layout_is_served_when_enabled() {
    let mut builder = Catalog::builder();
    builder
        .skill(Skill::from_static(GREETING))
        .legacy_index(true)
        .api_catalog(true);
    let app: Router = router(builder.build().unwrap());
    let index = send(
        app.clone(),
        Method::GET,
        "/.well-known/skills/index.json",
        &[],
    )
    .await;
    assert_eq!(index.status, StatusCode::OK);
    assert_eq!(header(&index, CONTENT_TYPE), "application/json");
    let skill = send(
        app.clone(),
        Method::GET,
        "/.well-known/skills/greeting/SKILL.md",
        &[],
    )
    .await;
    assert_eq!(skill.body, GREETING.as_bytes());
    let missing = send(
        app.clone(),
        Method::GET,
        "/.well-known/skills/nope/SKILL.md",
        &[],
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_common_headers(&missing);
    let catalog = send(app, Method::GET, "/.well-known/api-catalog", &[]).await;
    assert_eq!(catalog.status, StatusCode::OK);
    assert!(header(&catalog, CONTENT_TYPE).starts_with("application/linkset+json"));
}

#[tokio::test]
async fn the_legacy_folder_is_left_to_the_app_when_disabled() {
    let answer = send(app(), Method::GET, "/.well-known/skills/index.json", &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(
        !answer.headers.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN),
        "axum's own 404"
    );
}

/// Content codings: the variant each `Accept-Encoding` gets, its validators, and that every
/// answer to a request with `Accept-Encoding` names its coding.
mod codings {
    use http::header::{CONTENT_ENCODING, VARY};

    use super::*;

    /// The bytes a client gets after removing the `Content-Encoding`.
    fn decoded(answer: &Answer) -> Vec<u8> {
        skillpub_testkit::decode(coding(answer), &answer.body)
    }

    fn coding(answer: &Answer) -> Option<&str> {
        answer
            .headers
            .get(CONTENT_ENCODING)
            .map(|v| v.to_str().unwrap())
    }

    fn digest(path: &str) -> Digest {
        catalog()
            .artifacts()
            .find(|a| a.path() == path)
            .unwrap()
            .digest()
    }

    /// One line per case: the `Accept-Encoding` fields of a `GET` of a long Markdown file,
    /// then the `Content-Encoding` of the answer (`None`: no such header).
    macro_rules! negotiates {
        ($($name:ident: [$($field:expr),*] => $coding:expr,)+) => {$(
            #[tokio::test]
            async fn $name() {
                let fields: Vec<(&str, &str)> = vec![$(("accept-encoding", $field)),*];
                let answer = get_and_head(GUIDE, &fields).await;
                assert_eq!(answer.status, StatusCode::OK);
                assert_eq!(coding(&answer), $coding, "{fields:?}");
                assert_eq!(header(&answer, CONTENT_LENGTH), answer.body.len().to_string());
                assert_eq!(header(&answer, VARY), "Accept-Encoding");
                assert_eq!(header(&answer, CONTENT_TYPE), "text/markdown; charset=utf-8");
                assert_eq!(decoded(&answer), guide().as_bytes(), "{fields:?}");
                assert_common_headers(&answer);
            }
        )+};
    }

    negotiates! {
        no_accept_encoding_gets_identity: [] => Some("identity"),
        node_fetch_gets_brotli: ["gzip, deflate, br"] => Some("br"),
        a_browser_gets_brotli: ["gzip, deflate, br, zstd"] => Some("br"),
        gzip_alone_gets_gzip: ["gzip"] => Some("gzip"),
        x_gzip_gets_gzip: ["x-gzip"] => Some("gzip"),
        brotli_refused_gets_gzip: ["br;q=0, gzip"] => Some("gzip"),
        gzip_preferred_by_weight_gets_gzip: ["br;q=0.5, gzip;q=0.9"] => Some("gzip"),
        star_gets_brotli: ["*"] => Some("br"),
        identity_preferred_gets_identity: ["identity, gzip;q=0.5"] => Some("identity"),
        an_empty_field_gets_identity: [""] => Some("identity"),
        unknown_codings_get_identity: ["deflate, zstd"] => Some("identity"),
        malformed_weights_get_identity: ["gzip;q=2, br;q=x"] => Some("identity"),
        several_fields_are_one_list: ["br;q=0.1", "gzip;q=0.2"] => Some("gzip"),
    }

    #[tokio::test]
    async fn each_variant_has_its_own_strong_etag_derived_from_the_digest() {
        let digest = digest(GUIDE);
        let mut seen = Vec::new();
        for (accept, etag) in [
            (None, format!("\"{digest}\"")),
            (Some("identity"), format!("\"{digest}\"")),
            (Some("gzip"), format!("\"{digest}-gzip\"")),
            (Some("br"), format!("\"{digest}-br\"")),
        ] {
            let fields: Vec<(&str, &str)> =
                accept.map(|a| ("accept-encoding", a)).into_iter().collect();
            let answer = get_and_head(GUIDE, &fields).await;
            assert_eq!(header(&answer, ETAG), etag, "{accept:?}");
            seen.push((etag, answer.body));
        }
        // One entity tag, one byte sequence: never two.
        for (etag, body) in &seen {
            for (other_etag, other_body) in &seen {
                assert_eq!(
                    etag == other_etag,
                    body == other_body,
                    "{etag} {other_etag}"
                );
            }
        }
    }

    #[tokio::test]
    async fn every_variant_revalidates_with_its_own_etag() {
        for accept in ["identity", "gzip", "br"] {
            let fields = [("accept-encoding", accept)];
            let ok = get_and_head(GUIDE, &fields).await;
            let etag = header(&ok, ETAG).to_owned();
            let weak = format!("W/{etag}");
            for validator in [etag.as_str(), weak.as_str(), "*"] {
                let answer = get_and_head(
                    GUIDE,
                    &[("accept-encoding", accept), ("if-none-match", validator)],
                )
                .await;
                assert_eq!(
                    answer.status,
                    StatusCode::NOT_MODIFIED,
                    "{accept} {validator}"
                );
                assert_eq!(header(&answer, ETAG), etag);
                assert_eq!(coding(&answer), Some(accept));
                assert_eq!(header(&answer, VARY), "Accept-Encoding");
                assert!(!answer.headers.contains_key(CONTENT_LENGTH));
                assert!(answer.body.is_empty());
                assert_common_headers(&answer);
            }
            let passes =
                get_and_head(GUIDE, &[("accept-encoding", accept), ("if-match", &etag)]).await;
            assert_eq!(passes.status, StatusCode::OK, "{accept}");
        }
    }

    #[tokio::test]
    async fn conditions_compare_with_the_selected_variant_only() {
        let identity = header(&get(GUIDE).await, ETAG).to_owned();
        let brotli = format!("\"{}-br\"", digest(GUIDE));
        // The plain bytes' tag does not revalidate the brotli variant, nor the reverse.
        let answer = get_and_head(
            GUIDE,
            &[("accept-encoding", "br"), ("if-none-match", &identity)],
        )
        .await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(coding(&answer), Some("br"));
        let answer = get_and_head(GUIDE, &[("if-none-match", &brotli)]).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(coding(&answer), Some("identity"));
        // If-Match names the plain bytes, but brotli would be sent: 412.
        let answer =
            get_and_head(GUIDE, &[("accept-encoding", "br"), ("if-match", &identity)]).await;
        assert_eq!(answer.status, StatusCode::PRECONDITION_FAILED);
        assert_eq!(coding(&answer), Some("identity"));
    }

    #[tokio::test]
    async fn archives_and_binaries_are_never_encoded_and_do_not_vary() {
        let catalog = catalog();
        for path in [
            "/.well-known/agent-skills/pdf.tar.gz",
            "/.well-known/agent-skills/pdf.zip",
            "/.well-known/agent-skills/pdf/assets/logo.png",
        ] {
            let artifact = catalog.artifacts().find(|a| a.path() == path).unwrap();
            for accept in [None, Some("gzip, deflate, br"), Some("*")] {
                let fields: Vec<(&str, &str)> =
                    accept.map(|a| ("accept-encoding", a)).into_iter().collect();
                let answer = get_and_head(path, &fields).await;
                assert_eq!(answer.status, StatusCode::OK, "{path}");
                assert_eq!(coding(&answer), Some("identity"), "{path} {accept:?}");
                assert_eq!(answer.body, artifact.bytes().as_ref(), "{path}");
                assert_eq!(header(&answer, ETAG), format!("\"{}\"", artifact.digest()));
                assert!(!answer.headers.contains_key(VARY), "{path}");
            }
        }
    }

    #[tokio::test]
    async fn a_coding_that_saves_nothing_is_not_sent() {
        // The greeting's SKILL.md is 69 bytes: gzip's 18 bytes of framing make it larger.
        let answer = get_and_head(SKILL, &[("accept-encoding", "gzip")]).await;
        assert_eq!(coding(&answer), Some("identity"));
        assert_eq!(answer.body, GREETING.as_bytes());
        assert_eq!(header(&answer, VARY), "Accept-Encoding");
    }

    #[tokio::test]
    async fn refusing_identity_takes_a_coding_even_when_it_saves_nothing() {
        let answer = get_and_head(SKILL, &[("accept-encoding", "identity;q=0, gzip")]).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(coding(&answer), Some("gzip"));
        assert!(answer.body.len() > GREETING.len());
        assert_eq!(decoded(&answer), GREETING.as_bytes());
    }

    #[tokio::test]
    async fn a_request_that_refuses_every_coding_gets_406_before_any_condition() {
        for (path, accept) in [
            (GUIDE, "*;q=0"),
            (GUIDE, "identity;q=0"),
            (GUIDE, "deflate, identity;q=0"),
            (
                "/.well-known/agent-skills/pdf.tar.gz",
                "gzip, br, identity;q=0",
            ),
            ("/.well-known/agent-skills/pdf/assets/logo.png", "*;q=0"),
        ] {
            let answer =
                get_and_head(path, &[("accept-encoding", accept), ("if-none-match", "*")]).await;
            assert_eq!(answer.status, StatusCode::NOT_ACCEPTABLE, "{path} {accept}");
            assert_eq!(coding(&answer), Some("identity"));
            assert_eq!(header(&answer, VARY), "Accept-Encoding");
            assert_eq!(header(&answer, CACHE_CONTROL), "public, max-age=10");
            assert!(!answer.headers.contains_key(ETAG));
            let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
            assert_eq!(body["error"], "not_acceptable");
            assert_common_headers(&answer);
        }
    }

    #[tokio::test]
    async fn the_index_digests_stay_those_of_the_plain_bytes() {
        let catalog = catalog();
        let index = get_and_head(INDEX, &[("accept-encoding", "br")]).await;
        let index: serde_json::Value = serde_json::from_slice(&decoded(&index)).unwrap();
        for entry in index["skills"].as_array().unwrap() {
            let url = entry["url"].as_str().unwrap();
            let answer = get_and_head(url, &[("accept-encoding", "gzip, br")]).await;
            assert_eq!(
                entry["digest"],
                Digest::of(&decoded(&answer)).to_string(),
                "{url}"
            );
            let artifact = catalog.addressed(url).unwrap();
            assert_eq!(decoded(&answer), artifact.bytes().as_ref(), "{url}");
        }
    }

    /// An answer without a `Content-Encoding` is one that a compression layer outside the
    /// router would recode: every answer names its coding, with or without `Accept-Encoding`.
    #[tokio::test]
    async fn every_answer_names_its_coding() {
        let missing = "/.well-known/agent-skills/nope/SKILL.md";
        for fields in [&[][..], &[("accept-encoding", "gzip, br")]] {
            let answer = get_and_head(missing, fields).await;
            assert_eq!(answer.status, StatusCode::NOT_FOUND);
            assert_eq!(coding(&answer), Some("identity"), "{fields:?}");
            let conditional = [fields, &[("if-match", "\"x\"")]].concat();
            let answer = get_and_head(GUIDE, &conditional).await;
            assert_eq!(answer.status, StatusCode::PRECONDITION_FAILED);
            assert_eq!(coding(&answer), Some("identity"), "{fields:?}");
            for method in [Method::OPTIONS, Method::DELETE] {
                let answer = send(app(), method.clone(), GUIDE, fields).await;
                assert_eq!(coding(&answer), Some("identity"), "{method} {fields:?}");
            }
        }
    }

    #[tokio::test]
    async fn paths_with_the_same_bytes_share_their_variants() {
        let mut builder = Catalog::builder();
        builder
            .skill(Skill::new(
                None,
                format!(
                    "---\nname: guide\ndescription: Fills forms.\n---\n{}",
                    guide()
                ),
            ))
            .legacy_index(true);
        let app: Router = router(builder.build().unwrap());
        let modern = send(
            app.clone(),
            Method::GET,
            "/.well-known/agent-skills/guide/SKILL.md",
            &[("accept-encoding", "br")],
        )
        .await;
        let legacy = send(
            app,
            Method::GET,
            "/.well-known/skills/guide/SKILL.md",
            &[("accept-encoding", "br")],
        )
        .await;
        assert_eq!(coding(&modern), Some("br"));
        // The canonical path names its addressed one; the legacy copy has no address.
        let mut headers = modern.headers.clone();
        let location = headers.remove(http::header::CONTENT_LOCATION).unwrap();
        assert!(location.to_str().unwrap().ends_with("/guide/SKILL.md"));
        assert_eq!(headers, legacy.headers);
        assert_eq!(modern.body, legacy.body);
    }

    /// A client that gives up while its variant is made (a timeout, a closed connection)
    /// neither cancels the making nor leaves the variant stuck: the next request gets it, in
    /// the same bytes and under the same `ETag` as a request that waited.
    #[tokio::test]
    async fn a_request_given_up_while_its_variant_is_made_leaves_it_to_the_next() {
        let text = skillpub_testkit::varied_markdown(1 << 20);
        let skill = Skill::new(None, PDF).with_files(vec![
            SkillFile::new("references/forms.md", "# Forms\n", false),
            SkillFile::new("references/guide.md", text.clone(), false),
        ]);
        let app: Router = router(Catalog::new([skill]).unwrap());
        let br = [("accept-encoding", "br")];
        let given_up = tokio::time::timeout(
            Duration::from_millis(1),
            send(app.clone(), Method::GET, GUIDE, &br),
        )
        .await;
        assert!(
            given_up.is_err(),
            "a MiB of brotli takes more than a millisecond"
        );
        let waited = send(app.clone(), Method::GET, GUIDE, &br).await;
        let later = send(app, Method::GET, GUIDE, &br).await;
        assert_eq!(coding(&waited), Some("br"));
        assert_eq!(decoded(&waited), text.as_bytes());
        assert_eq!(waited.headers, later.headers);
        assert_eq!(waited.body, later.body);
    }
}

/// A router nested under a path, and the `Link` to its index.
mod nesting {
    use super::*;
    use skillpub_core::paths::{BasePath, BasePathProblem, InvalidBasePath};

    use crate::AgentSkillsLinkLayer;

    #[tokio::test]
    async fn the_link_points_at_the_nested_index() {
        let mut builder = Catalog::builder();
        builder
            .skill(Skill::from_static(GREETING))
            .url_style(skillpub_core::index::UrlStyle::Relative)
            .base_path("/tenant");
        let catalog = builder.build().unwrap();
        let app: Router = Router::new()
            .route(
                "/",
                axum::routing::get(|| async { axum::response::Html("<h1>Home</h1>") }),
            )
            .nest("/tenant", router(catalog.clone()))
            .layer(AgentSkillsLinkLayer::html_only().base_path(catalog.base_path()));
        let home = send(app.clone(), Method::GET, "/", &[]).await;
        assert_eq!(
            header(&home, http::header::LINK),
            "</tenant/.well-known/agent-skills/index.json>; rel=\"agent-skills\"; type=\"application/json\""
        );
        let index = send(
            app.clone(),
            Method::GET,
            "/tenant/.well-known/agent-skills/index.json",
            &[],
        )
        .await;
        assert_eq!(index.status, StatusCode::OK);
        let index: serde_json::Value = serde_json::from_slice(&index.body).unwrap();
        let url = index["skills"][0]["url"].as_str().unwrap();
        let skill = send(
            app.clone(),
            Method::GET,
            &format!("/tenant/.well-known/agent-skills/{url}"),
            &[],
        )
        .await;
        assert_eq!(skill.body, GREETING.as_bytes());
        let outside = send(app, Method::GET, SKILL, &[]).await;
        assert_eq!(outside.status, StatusCode::NOT_FOUND);
    }

    /// The `Link` a layer adds to a page.
    async fn link(layer: AgentSkillsLinkLayer) -> String {
        let app = Router::new()
            .route("/", axum::routing::get(|| async { "home" }))
            .layer(layer);
        header(&send(app, Method::GET, "/", &[]).await, http::header::LINK).to_owned()
    }

    /// One line per case: the base path, then the index URL the link names, or the problem.
    /// A path is checked once, where it is given (here `BasePath::new`, for a catalog its
    /// build, which applies the same rule with the same message), and the layer takes it.
    macro_rules! base_paths {
        ($($path:expr => $expected:expr,)+) => {
            #[tokio::test]
            async fn base_paths_are_checked() {
                $(
                    let expected: Result<&str, BasePathProblem> = $expected;
                    match (BasePath::new($path), expected) {
                        (Ok(base_path), Ok(url)) => {
                            let link = link(AgentSkillsLinkLayer::all().base_path(&base_path)).await;
                            assert!(link.starts_with(&format!("<{url}>;")), "{}: {link}", $path);
                        }
                        (Err(error), Err(problem)) => {
                            let error: InvalidBasePath = error;
                            assert_eq!(error.path(), $path);
                            assert_eq!(error.problem(), &problem, "{}", $path);
                            let message = error.to_string();
                            assert!(message.contains(&problem.to_string()), "{message}");
                            assert!(message.contains(&format!("`{}`", $path)), "{message}");
                        }
                        (result, _) => panic!("{}: {result:?}", $path),
                    }
                )+
            }
        };
    }

    // The rule itself is core's (`validate_base_path`, tested there); these show that the
    // layer links what it was given, and that a path it cannot be given names the problem.
    base_paths! {
        "" => Ok("/.well-known/agent-skills/index.json"),
        "/tenant" => Ok("/tenant/.well-known/agent-skills/index.json"),
        "/a/b-c_d.e~f" => Ok("/a/b-c_d.e~f/.well-known/agent-skills/index.json"),
        "tenant" => Err(BasePathProblem::Relative),
        "/tenant/" => Err(BasePathProblem::TrailingSlash),
        "/a//b" => Err(BasePathProblem::EmptySegment),
        "/a/.." => Err(BasePathProblem::DotSegment),
        "/caf%C3%A9" => Err(BasePathProblem::PercentEncoded),
    }
}
