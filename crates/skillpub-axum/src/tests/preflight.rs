//! The CORS preflight.

use super::*;

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
