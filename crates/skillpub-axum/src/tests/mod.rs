//! The HTTP policy, request by request, through `oneshot` (no network).

mod answers;
mod caching;
mod codings;
mod conditional;
mod legacy;
mod link;
mod nesting;
mod preflight;
mod store;

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
