//! A site that negotiates content codings: one strong `ETag` per set of bytes, digests over
//! the decoded bytes, and archives sent as they are.

use std::io::Write;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode};
use skillpub_check::Status;
use skillpub_core::Digest;

use crate::site::{INDEX, Lines, SKILL, SKILL_MD, check_app, entry, index, tar_gz};

/// One artifact of a site that negotiates content codings.
#[derive(Clone)]
struct Negotiated {
    path: String,
    content_type: &'static str,
    bytes: Vec<u8>,
    /// The `Content-Encoding` sent to a request whose `Accept-Encoding` lists it (`identity`
    /// is sent as it is, with the header).
    coding: Option<&'static str>,
    /// Whether the coded answer keeps the plain answer's strong `ETag` (the defect).
    shared_etag: bool,
}

fn encode(coding: &str, bytes: &[u8]) -> Vec<u8> {
    match coding {
        "gzip" => {
            let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gzip.write_all(bytes).unwrap();
            gzip.finish().unwrap()
        }
        "br" => {
            let mut encoded = Vec::new();
            let mut br = brotli::CompressorWriter::new(&mut encoded, 4096, 9, 22);
            br.write_all(bytes).unwrap();
            drop(br);
            encoded
        }
        _ => bytes.to_vec(),
    }
}

/// Serves the artifacts with strong ETags, 304 for a matching If-None-Match, HEAD like GET,
/// and the coding of each artifact for requests that accept it; anything else is a 404.
fn negotiating_site(artifacts: Vec<Negotiated>) -> Router {
    Router::new().fallback(move |request: Request<Body>| {
        let artifacts = artifacts.clone();
        async move {
            let accepts = |coding: &str| {
                request
                    .headers()
                    .get("accept-encoding")
                    .and_then(|value| value.to_str().ok())
                    .is_some_and(|value| value.split(',').any(|c| c.trim() == coding))
            };
            let Some(artifact) = artifacts.iter().find(|a| a.path == request.uri().path()) else {
                let mut response = Response::new(Body::from("not found"));
                *response.status_mut() = StatusCode::NOT_FOUND;
                return response;
            };
            let plain_etag = format!("\"{}\"", Digest::of(&artifact.bytes));
            let coding = artifact.coding.filter(|c| *c == "identity" || accepts(c));
            let (bytes, etag) = match coding {
                Some(coding) if !artifact.shared_etag && coding != "identity" => (
                    encode(coding, &artifact.bytes),
                    plain_etag.replace("\"sha256:", &format!("\"{coding}-sha256:")),
                ),
                Some(coding) => (encode(coding, &artifact.bytes), plain_etag),
                None => (artifact.bytes.clone(), plain_etag),
            };
            let not_modified = request
                .headers()
                .get("if-none-match")
                .is_some_and(|value| value.as_bytes() == etag.as_bytes());
            let head = request.method() == Method::HEAD;
            let length = bytes.len();
            let mut response = Response::new(Body::from(if head || not_modified {
                Vec::new()
            } else {
                bytes
            }));
            let headers = response.headers_mut();
            headers.insert("etag", HeaderValue::from_str(&etag).unwrap());
            headers.insert("vary", HeaderValue::from_static("accept-encoding"));
            if not_modified {
                *response.status_mut() = StatusCode::NOT_MODIFIED;
                return response;
            }
            headers.insert(
                "content-type",
                HeaderValue::from_static(artifact.content_type),
            );
            headers.insert("content-length", HeaderValue::from(length));
            if let Some(coding) = coding {
                headers.insert("content-encoding", HeaderValue::from_static(coding));
            }
            response
        }
    })
}

/// The index and the `SKILL.md` of the one-skill site, each with its coding.
fn negotiated_skill(
    index_coding: Option<&'static str>,
    skill_coding: Option<&'static str>,
    shared_etag: bool,
) -> Vec<Negotiated> {
    let entry = entry(
        "greeting",
        "skill-md",
        "Greets the user by name.",
        SKILL,
        SKILL_MD.as_bytes(),
    );
    vec![
        Negotiated {
            path: INDEX.to_owned(),
            content_type: "application/json",
            bytes: index(&entry).into_bytes(),
            coding: index_coding,
            shared_etag,
        },
        Negotiated {
            path: SKILL.to_owned(),
            content_type: "text/markdown; charset=utf-8",
            bytes: SKILL_MD.as_bytes().to_vec(),
            coding: skill_coding,
            shared_etag,
        },
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn one_strong_etag_on_gzip_and_plain_bytes_fails() {
    let app = negotiating_site(negotiated_skill(Some("gzip"), None, true));
    let report = check_app(app, "/").await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("index", "encoding.etag-reused")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn codings_with_their_own_etags_pass_and_digests_cover_the_decoded_bytes() {
    let app = negotiating_site(negotiated_skill(Some("gzip"), Some("br"), false));
    let report = check_app(app, "/").await;
    assert!(report.passed(), "{report}");
    for (subject, code, etag) in [
        ("index", "encoding.etag-reused", "\"gzip-sha256:"),
        ("greeting", "encoding.etag-reused", "\"br-sha256:"),
        ("site", "site.not-modified", "\"gzip-sha256:"),
    ] {
        let message = report.message(Status::Ok, subject, code);
        assert!(message.contains(etag), "{subject} {code}: {message}");
    }
    report.line(Status::Ok, "greeting", "entry.digest");
}

/// A site whose one skill is this archive, served with this coding when accepted.
fn negotiated_archive(archive: Vec<u8>, coding: &'static str) -> Vec<Negotiated> {
    let url = "/.well-known/agent-skills/greeting.tar.gz";
    let entry = entry(
        "greeting",
        "archive",
        "Greets the user by name.",
        url,
        &archive,
    );
    vec![
        Negotiated {
            path: INDEX.to_owned(),
            content_type: "application/json",
            bytes: index(&entry).into_bytes(),
            coding: None,
            shared_etag: false,
        },
        Negotiated {
            path: url.to_owned(),
            content_type: "application/gzip",
            bytes: archive,
            coding: Some(coding),
            shared_etag: false,
        },
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn an_archive_sent_content_encoded_fails_and_identity_is_no_encoding() {
    let archive = tar_gz(&[("SKILL.md", SKILL_MD.as_bytes())], None);
    let app = negotiating_site(negotiated_archive(archive.clone(), "gzip"));
    let report = check_app(app, "/").await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "encoding.archive-encoded")]);
    // The digest is checked on the decoded bytes.
    report.line(Status::Ok, "greeting", "entry.digest");

    let app = negotiating_site(negotiated_archive(archive, "identity"));
    let report = check_app(app, "/").await;
    assert!(report.passed(), "{report}");
}
