//! What the topics share: a hand-made site (exact paths to prepared answers), the JSON of an
//! index and its entries, the checks run in process against an app, and the lines of their
//! report looked up by status, subject and code.

use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode};
use skillpub_check::{Check, CheckKind, CheckOptions, Report, Status, check};
use skillpub_client::{Client, Limits, ServiceTransport};
use skillpub_core::{Digest, index::SCHEMA_URI};

pub(crate) const SKILL_MD: &str =
    "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n";

/// A skill that draws no authoring advice either.
pub(crate) const WELL_WRITTEN: &str = "---\nname: greeting\ndescription: Greets the user by name. Use when a conversation starts.\n---\nSay hello.\n";

pub(crate) const INDEX: &str = "/.well-known/agent-skills/index.json";
pub(crate) const SKILL: &str = "/.well-known/agent-skills/greeting/SKILL.md";

/// The origin the apps are checked at, as `skillpub_check::testing` checks them.
pub(crate) const ORIGIN: &str = "http://skillpub.test";

/// A public name on port 80, as the aiSiteReady scanner sees a deployed site (entry urls on a
/// development port are invalid to it).
pub(crate) const PUBLIC: &str = "http://skills.example.com";

/// One prepared answer for GET (and HEAD, unless the site says otherwise).
#[derive(Clone)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) content_type: &'static str,
    pub(crate) body: Vec<u8>,
    pub(crate) location: Option<String>,
    /// More headers, such as `Cache-Control`.
    pub(crate) headers: Vec<(&'static str, String)>,
}

impl Answer {
    /// The same answer with the header `name: value` too.
    pub(crate) fn with(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }
}

pub(crate) fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Answer {
    Answer {
        status: StatusCode::OK,
        content_type,
        body: body.into(),
        location: None,
        headers: Vec::new(),
    }
}

/// An answer with any status.
pub(crate) fn answer(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Vec<u8>>,
) -> Answer {
    Answer {
        status,
        ..ok(content_type, body)
    }
}

/// A hand-made site: exact paths to answers, a fallback, and how HEAD is treated.
#[derive(Clone)]
pub(crate) struct Site {
    pub(crate) routes: Vec<(String, Answer)>,
    pub(crate) fallback: Answer,
    pub(crate) head_status: Option<StatusCode>,
}

impl Site {
    pub(crate) fn new(routes: Vec<(&str, Answer)>) -> Self {
        Self {
            routes: routes.into_iter().map(|(p, a)| (p.to_owned(), a)).collect(),
            fallback: Answer {
                status: StatusCode::NOT_FOUND,
                content_type: "text/plain",
                body: b"not found".to_vec(),
                location: None,
                headers: Vec::new(),
            },
            head_status: None,
        }
    }

    pub(crate) fn router(self) -> Router {
        Router::new().fallback(move |request: Request<Body>| {
            let site = self.clone();
            async move {
                let path = request.uri().path();
                let answer = site
                    .routes
                    .iter()
                    .find(|(p, _)| p == path)
                    .map_or(&site.fallback, |(_, a)| a)
                    .clone();
                let head = request.method() == Method::HEAD;
                let status = match site.head_status {
                    Some(status) if head => status,
                    _ => answer.status,
                };
                let mut response = Response::new(Body::from(if head {
                    Vec::new()
                } else {
                    answer.body.clone()
                }));
                *response.status_mut() = status;
                let headers = response.headers_mut();
                headers.insert(
                    "content-type",
                    HeaderValue::from_static(answer.content_type),
                );
                headers.insert("content-length", HeaderValue::from(answer.body.len()));
                if let Some(location) = answer.location {
                    headers.insert("location", HeaderValue::from_str(&location).unwrap());
                }
                for (name, value) in answer.headers {
                    headers.append(name, HeaderValue::from_str(&value).unwrap());
                }
                response
            }
        })
    }
}

pub(crate) fn index(entries: &str) -> String {
    format!(r#"{{"$schema":"{SCHEMA_URI}","skills":[{entries}]}}"#)
}

pub(crate) fn entry(name: &str, kind: &str, description: &str, url: &str, bytes: &[u8]) -> String {
    format!(
        r#"{{"name":"{name}","type":"{kind}","description":"{description}","url":"{url}","digest":"{}"}}"#,
        Digest::of(bytes)
    )
}

/// A `.tar.gz` of these files, and of a symbolic link `(path, target)` when there is one.
pub(crate) fn tar_gz(entries: &[(&str, &[u8])], link: Option<(&str, &str)>) -> Vec<u8> {
    let gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gzip);
    for (path, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, *bytes).unwrap();
    }
    if let Some((path, target)) = link {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        tar.append_link(&mut header, path, target).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

/// A correct hand-made site with one skill.
pub(crate) fn good_site() -> Site {
    one_skill_site("Greets the user by name.", SKILL_MD)
}

/// A site with one `skill-md` entry whose digest matches `skill_md`, served as Markdown.
pub(crate) fn one_skill_site(description: &str, skill_md: &str) -> Site {
    let entry = entry(
        "greeting",
        "skill-md",
        description,
        SKILL,
        skill_md.as_bytes(),
    );
    Site::new(vec![
        (INDEX, ok("application/json", index(&entry))),
        (
            SKILL,
            ok("text/markdown; charset=utf-8", skill_md.to_owned()),
        ),
    ])
}

/// The one-skill site with its index replaced.
pub(crate) fn with_index(index: Answer) -> Site {
    let mut site = good_site();
    site.routes[0].1 = index;
    site
}

/// How a run is set up, as `skillpub check`'s flags set it up.
#[derive(Clone, Copy, Default)]
pub(crate) struct Run {
    /// `--max-size`: the largest body and unpacked archive.
    pub(crate) max_size: Option<u64>,
    /// `--max-time`: the deadline of the whole run.
    pub(crate) max_time: Option<Duration>,
    /// `--page`.
    pub(crate) page: bool,
}

impl Run {
    /// Checks `app` in process as if it were served at `target`, a URL whose path is what the
    /// app sees.
    pub(crate) async fn check(self, app: Router, target: &str) -> Report {
        let runtime = tokio::runtime::Handle::current();
        let target = target.to_owned();
        tokio::task::spawn_blocking(move || {
            let mut client = Client::new(ServiceTransport::new(app, runtime));
            if let Some(max) = self.max_size {
                client = client.with_limits(Limits {
                    max_body: max,
                    max_unpacked: max,
                    ..Limits::default()
                });
            }
            if let Some(max_time) = self.max_time {
                client = client.with_deadline(Instant::now() + max_time);
            }
            let options = CheckOptions {
                page: self.page,
                ..CheckOptions::default()
            };
            check(&client, &target, &options)
        })
        .await
        .expect("the checks do not panic")
    }
}

/// Checks `app` at the test origin, the URL path given (`/`, `/tenant`, `/docs`...).
pub(crate) async fn check_app(app: Router, path: &str) -> Report {
    Run::default().check(app, &at(path)).await
}

/// Checks a hand-made site at the test origin.
pub(crate) async fn check_site(site: Site) -> Report {
    check_app(site.router(), "/").await
}

/// Checks a hand-made site as `http://skills.example.com`.
pub(crate) async fn check_public(site: Site) -> Report {
    Run::default().check(site.router(), PUBLIC).await
}

/// The URL of `path` at the test origin.
pub(crate) fn at(path: &str) -> String {
    format!("{ORIGIN}/{}", path.trim_start_matches('/'))
}

/// The line of the text report that starts with `FAIL` and contains `needle`.
pub(crate) fn fail_line<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|line| line.starts_with("FAIL") && line.contains(needle))
        .unwrap_or_else(|| panic!("no FAIL line with `{needle}`:\n{text}"))
}

/// The lines of a report looked up as a reader of `skillpub check` would: by status, subject
/// and code.
pub(crate) trait Lines {
    /// The line with this status, subject and code; panics with the report without one.
    fn line(&self, status: Status, subject: &str, code: &str) -> &Check;
    /// The message of that line.
    fn message(&self, status: Status, subject: &str, code: &str) -> &str;
    /// The lines of one code.
    fn lines(&self, code: &str) -> Vec<&Check>;
    /// `(subject, code)` of every failed line.
    fn failed(&self) -> Vec<(&str, &str)>;
    /// The aiSiteReady grade: its status and its reason.
    fn grade(&self) -> (&str, &str);
}

/// The kind of a code; panics on a code that names no check.
fn kind(code: &str) -> CheckKind {
    code.parse()
        .unwrap_or_else(|error| panic!("{error}: a test names a code that does not exist"))
}

impl Lines for Report {
    fn line(&self, status: Status, subject: &str, code: &str) -> &Check {
        let kind = kind(code);
        self.checks
            .iter()
            .find(|c| c.status == status && c.subject == subject && c.kind == kind)
            .unwrap_or_else(|| panic!("no {} line `{subject}` {code}:\n{self}", status.label()))
    }

    fn message(&self, status: Status, subject: &str, code: &str) -> &str {
        &self.line(status, subject, code).message
    }

    fn lines(&self, code: &str) -> Vec<&Check> {
        self.of(kind(code)).collect()
    }

    fn failed(&self) -> Vec<(&str, &str)> {
        self.failures()
            .map(|c| (c.subject.as_str(), c.code()))
            .collect()
    }

    fn grade(&self) -> (&str, &str) {
        let grade = self
            .aisiteready
            .as_ref()
            .unwrap_or_else(|| panic!("no aisiteready grade:\n{self}"));
        (grade.status.label(), &grade.reason)
    }
}
