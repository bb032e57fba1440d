//! What each path answers: the index, a `SKILL.md`, supporting files and archives, `405`,
//! and the paths left to the app.

use super::*;

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
