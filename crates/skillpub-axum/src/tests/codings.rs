//! Content codings: the variant each `Accept-Encoding` gets, its validators, and that every
//! answer to a request with `Accept-Encoding` names its coding.

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
        let passes = get_and_head(GUIDE, &[("accept-encoding", accept), ("if-match", &etag)]).await;
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
    let answer = get_and_head(GUIDE, &[("accept-encoding", "br"), ("if-match", &identity)]).await;
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
