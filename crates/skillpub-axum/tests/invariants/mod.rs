//! What must hold for every answer of the router, whatever the request. Shared by the
//! property tests here and the `conditional_headers` fuzz target in `fuzz/`, which includes
//! this file by path.

use std::io::Read;
use std::sync::LazyLock;

use axum::Router;
use axum::body::Body;
use http::header::{
    ACCEPT_ENCODING, ACCESS_CONTROL_ALLOW_ORIGIN, ALLOW, CONTENT_ENCODING, CONTENT_LENGTH,
    IF_MATCH, IF_NONE_MATCH,
};
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode, Uri};
use http_body_util::BodyExt;
use skillpub_core::{
    Catalog, Digest,
    catalog::Artifact,
    paths::{LEGACY_PATH, WELL_KNOWN_PATH},
};
use tower::ServiceExt;

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
});

/// A response, collected.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Vec<u8>,
}

pub(crate) fn send(app: &Router, method: &Method, uri: &Uri, headers: &HeaderMap) -> Answer {
    let mut request = Request::new(Body::empty());
    *request.method_mut() = method.clone();
    *request.uri_mut() = uri.clone();
    *request.headers_mut() = headers.clone();
    RUNTIME.block_on(async {
        let response = app.clone().oneshot(request).await.expect("infallible");
        let status = response.status();
        let headers = response.headers().clone();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("a prepared body")
            .to_bytes()
            .to_vec();
        Answer {
            status,
            headers,
            body,
        }
    })
}

/// The body with every `Content-Encoding` removed, last applied first.
fn decoded(headers: &HeaderMap, body: &[u8]) -> Vec<u8> {
    let mut codings: Vec<String> = headers
        .get_all(CONTENT_ENCODING)
        .iter()
        .flat_map(|value| {
            value
                .to_str()
                .expect("a readable Content-Encoding")
                .split(',')
                .map(|coding| coding.trim().to_ascii_lowercase())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut bytes = body.to_vec();
    while let Some(coding) = codings.pop() {
        let mut plain = Vec::new();
        match coding.as_str() {
            "identity" | "" => continue,
            "gzip" | "x-gzip" => {
                flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut plain)
            }
            "deflate" => flate2::read::ZlibDecoder::new(&bytes[..]).read_to_end(&mut plain),
            "br" => brotli::Decompressor::new(&bytes[..], 4096).read_to_end(&mut plain),
            other => panic!("Content-Encoding `{other}`: teach this property to decode it"),
        }
        .unwrap_or_else(|error| panic!("the {coding} body does not decode: {error}"));
        bytes = plain;
    }
    bytes
}

pub(crate) fn artifact<'a>(catalog: &'a Catalog, path: &str) -> Option<&'a Artifact> {
    catalog.artifacts().find(|artifact| artifact.path() == path)
}

/// Whether the router answers for this path itself (rather than leaving it to the app).
fn under_the_router(catalog: &Catalog, path: &str) -> bool {
    let mut folders = vec![WELL_KNOWN_PATH];
    if catalog.has_legacy_index() {
        folders.push(LEGACY_PATH);
    }
    artifact(catalog, path).is_some()
        || folders
            .iter()
            .any(|folder| path.starts_with(folder) || path == folder.trim_end_matches('/'))
}

/// Checks one answer against the catalog it came from.
pub(crate) fn check(
    catalog: &Catalog,
    method: &Method,
    uri: &Uri,
    request: &HeaderMap,
    answer: &Answer,
) {
    let path = uri.path();
    let status = answer.status;
    assert!(
        !status.is_server_error(),
        "{method} {uri}: {status} with {request:?}"
    );
    if under_the_router(catalog, path) {
        assert_eq!(
            answer
                .headers
                .get(ACCESS_CONTROL_ALLOW_ORIGIN)
                .map(HeaderValue::as_bytes),
            Some(&b"*"[..]),
            "{method} {uri}: {status} without CORS"
        );
    }
    match status {
        StatusCode::OK => {
            let published = artifact(catalog, path)
                .unwrap_or_else(|| panic!("{method} {uri}: 200 for a path that is not published"));
            assert!(
                *method == Method::GET || *method == Method::HEAD,
                "{method} {uri}: 200"
            );
            let length = answer
                .headers
                .get(CONTENT_LENGTH)
                .map(HeaderValue::as_bytes);
            if *method == Method::GET {
                assert_eq!(length, Some(answer.body.len().to_string().as_bytes()));
                let bytes = decoded(&answer.headers, &answer.body);
                assert_eq!(
                    Digest::of(&bytes),
                    published.digest(),
                    "{uri} with {request:?}"
                );
                assert_eq!(&bytes[..], &published.bytes()[..]);
            }
        }
        StatusCode::NOT_MODIFIED => {
            assert!(request.contains_key(IF_NONE_MATCH), "{uri}: 304 unasked");
            assert!(
                artifact(catalog, path).is_some(),
                "{uri}: 304 for no artifact"
            );
            assert!(answer.body.is_empty());
        }
        StatusCode::PRECONDITION_FAILED => {
            assert!(request.contains_key(IF_MATCH), "{uri}: 412 unasked");
        }
        StatusCode::NOT_ACCEPTABLE => {
            assert!(request.contains_key(ACCEPT_ENCODING), "{uri}: 406 unasked");
        }
        StatusCode::METHOD_NOT_ALLOWED => {
            assert!(
                answer.headers.contains_key(ALLOW),
                "{uri}: 405 without Allow"
            );
        }
        _ => {}
    }
}

/// Sends `GET` and `HEAD` with the same target and headers, checks both answers, and checks
/// that they agree on the status and every header, `HEAD` without a body.
pub(crate) fn check_get_and_head(app: &Router, catalog: &Catalog, uri: &Uri, headers: &HeaderMap) {
    let get = send(app, &Method::GET, uri, headers);
    check(catalog, &Method::GET, uri, headers, &get);
    let head = send(app, &Method::HEAD, uri, headers);
    check(catalog, &Method::HEAD, uri, headers, &head);
    assert_eq!(get.status, head.status, "{uri} with {headers:?}");
    assert_eq!(get.headers, head.headers, "{uri} with {headers:?}");
    assert!(head.body.is_empty(), "{uri}: HEAD with a body");
}
