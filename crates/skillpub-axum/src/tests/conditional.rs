//! `If-None-Match` and `If-Match`.

use super::*;

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
