//! Every check of `skillpub check`: what a strict client needs from a site, one line each.

use std::fmt;

use http::{HeaderMap, Method, StatusCode};
use serde_json::json;
use skillpub_core::{DEV_PORTS, ErrorKind, SCHEMA_URI, WELL_KNOWN_PATH, is_local_host};
use url::Url;

use crate::client::{Client, ClientError};
use crate::fetch::{Fetched, Transport};
use crate::index::{self, ArtifactKind, Entry, IndexError, Severity, Version};

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Passed.
    Ok,
    /// Works, but breaks a SHOULD or a common client's expectation.
    Warn,
    /// Breaks a MUST: clients will not use what it is about.
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Warn => "warn",
            Self::Fail => "FAIL",
        }
    }
}

/// One check: its outcome, what it is about (`index`, a skill name, `site`) and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The outcome.
    pub status: Status,
    /// What it is about.
    pub subject: String,
    /// What was seen, and for a failure, what is wrong.
    pub message: String,
}

/// Every check run against one site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The target as given.
    pub target: String,
    /// The checks, in the order they ran.
    pub checks: Vec<Check>,
}

impl Report {
    /// Whether no check failed.
    #[must_use]
    pub fn passed(&self) -> bool {
        !self.checks.iter().any(|check| check.status == Status::Fail)
    }

    /// How many checks ended with `status`.
    #[must_use]
    pub fn count(&self, status: Status) -> usize {
        self.checks
            .iter()
            .filter(|check| check.status == status)
            .count()
    }

    /// The failed checks.
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks
            .iter()
            .filter(|check| check.status == Status::Fail)
    }

    /// The report as one JSON object.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        let checks: Vec<_> = self
            .checks
            .iter()
            .map(|c| json!({"status": c.status.label().to_ascii_lowercase(), "subject": c.subject, "message": c.message}))
            .collect();
        json!({
            "target": self.target,
            "passed": self.passed(),
            "summary": {"ok": self.count(Status::Ok), "warn": self.count(Status::Warn), "fail": self.count(Status::Fail)},
            "checks": checks,
        })
    }

    /// The summary line.
    #[must_use]
    pub fn summary(&self) -> String {
        format!(
            "{} ok, {} warnings, {} failed",
            self.count(Status::Ok),
            self.count(Status::Warn),
            self.count(Status::Fail)
        )
    }
}

impl fmt::Display for Report {
    /// One line per check. Control characters from the server are escaped, so a hostile
    /// `$schema` or name cannot drive the terminal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for check in &self.checks {
            let subject = printable(&check.subject);
            let message = printable(&check.message);
            writeln!(f, "{:<5} {subject}: {message}", check.status.label())?;
        }
        write!(f, "{}", self.summary())
    }
}

/// Escapes control characters.
fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// Called before each artifact download with (done, total, url).
pub type Progress<'a> = &'a dyn Fn(usize, usize, &str);

/// Options of a check run.
#[derive(Default)]
pub struct CheckOptions<'a> {
    /// Reports downloads as they start, for a progress indicator.
    pub progress: Option<Progress<'a>>,
}

impl fmt::Debug for CheckOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CheckOptions").finish_non_exhaustive()
    }
}

/// The representation headers that HEAD must repeat from GET; others (request ids, CDN
/// traces, cookies, dates) may differ between any two answers.
const REPRESENTATION: [&str; 7] = [
    "content-type",
    "content-length",
    "content-encoding",
    "etag",
    "last-modified",
    "cache-control",
    "access-control-allow-origin",
];

/// A path no site publishes, to see how it answers for a missing skill.
const MISSING_SKILL: &str = "skillpub-check-no-such-skill-7f3a/SKILL.md";

/// Runs every check against a target (an origin or an index URL).
pub fn check<T: Transport>(client: &Client<T>, target: &str, options: &CheckOptions<'_>) -> Report {
    let mut run = Run {
        client,
        options,
        report: Report {
            target: target.to_owned(),
            checks: Vec::new(),
        },
    };
    run.all(target);
    run.report
}

struct Run<'a, T> {
    client: &'a Client<T>,
    options: &'a CheckOptions<'a>,
    report: Report,
}

impl<T: Transport> Run<'_, T> {
    fn push(&mut self, status: Status, subject: &str, message: impl Into<String>) {
        self.report.checks.push(Check {
            status,
            subject: subject.to_owned(),
            message: message.into(),
        });
    }

    fn all(&mut self, target: &str) {
        let url = match Client::<T>::index_url(target) {
            Ok(url) => url,
            Err(error) => return self.push(Status::Fail, "target", error.to_string()),
        };
        let Some(index_response) = self.get("index", &url, &[]) else {
            return;
        };
        if !self.expect_ok("index", &index_response, &["application/json"]) {
            return;
        }
        self.head_parity("index", &index_response);
        let index = match index::parse(&index_response.url, &index_response.body) {
            Ok(index) => index,
            Err(IndexError::UnknownSchema(schema)) => {
                return self.push(
                    Status::Fail,
                    "index",
                    format!("`$schema` is `{schema}`, not `{SCHEMA_URI}`; clients ignore an index with an unknown $schema"),
                );
            }
            Err(error) => return self.push(Status::Fail, "index", error.to_string()),
        };
        match index.version {
            Version::V0_2 => self.push(Status::Ok, "index", "`$schema` is the 0.2.0 URI"),
            Version::V0_1 => self.push(
                Status::Fail,
                "index",
                format!("no `$schema`: clients read this as a legacy 0.1.0 index with no digests; publish `$schema: {SCHEMA_URI}` with `type`, `url` and `digest` entries"),
            ),
        }
        let count = index.entries().len() + index.legacy_entries().len();
        if index.empty {
            self.push(
                Status::Warn,
                "index",
                "`skills` is empty; most clients treat that as no index",
            );
        } else if count == 0 {
            self.push(
                Status::Fail,
                "index",
                "no entry of `skills` is usable, so clients see no skills (the lines below say why)",
            );
        } else {
            self.push(
                Status::Ok,
                "index",
                format!("`skills` has {count} usable entries"),
            );
        }
        for problem in index.problems() {
            let subject = problem
                .name
                .clone()
                .unwrap_or_else(|| format!("skills[{}]", problem.position));
            let status = match problem.severity {
                Severity::Warning => Status::Warn,
                Severity::Error => Status::Fail,
            };
            self.push(status, &subject, problem.message.clone());
        }
        for legacy in index.legacy_entries() {
            for (_, url) in &legacy.files {
                if let Some(response) = self.get(&legacy.name, url, &[]) {
                    self.expect_ok(&legacy.name, &response, &[]);
                }
            }
        }
        let total = index.entries().len();
        for (done, entry) in index.entries().iter().enumerate() {
            if let Some(progress) = self.options.progress {
                progress(done, total, entry.url.as_str());
            }
            self.entry(entry, &index.url);
        }
        self.site(&index.url, &index_response);
    }

    /// GETs a URL; a transport failure is a failed check.
    fn get(&mut self, subject: &str, url: &Url, headers: &[(&str, &str)]) -> Option<Fetched> {
        match self.client.request(&Method::GET, url, headers) {
            Ok(response) => Some(response),
            Err(error) => {
                self.push(Status::Fail, subject, format!("GET failed: {error}"));
                None
            }
        }
    }

    /// Checks status 200 and, when `types` is not empty, the media type.
    fn expect_ok(&mut self, subject: &str, response: &Fetched, types: &[&str]) -> bool {
        if response.status != StatusCode::OK {
            self.push(
                Status::Fail,
                subject,
                format!("GET {} answered {}, not 200", response.url, response.status),
            );
            return false;
        }
        let media_type = response.media_type().unwrap_or_default();
        if types.is_empty() || types.contains(&media_type.as_str()) {
            let shown = response.header("content-type").unwrap_or("no Content-Type");
            self.push(Status::Ok, subject, format!("GET 200, {shown}"));
            true
        } else {
            let shown = if media_type.is_empty() {
                "no Content-Type".to_owned()
            } else {
                media_type
            };
            self.push(
                Status::Fail,
                subject,
                format!(
                    "GET 200 but served as {shown}; it must be {}",
                    types.join(" or ")
                ),
            );
            false
        }
    }

    /// HEAD must answer like GET: same status and headers, no body.
    fn head_parity(&mut self, subject: &str, get: &Fetched) {
        let head = match self.client.request(&Method::HEAD, &get.url, &[]) {
            Ok(head) => head,
            Err(error) => return self.push(Status::Fail, subject, format!("HEAD failed: {error}")),
        };
        if head.status != get.status {
            return self.push(
                Status::Fail,
                subject,
                format!(
                    "HEAD answered {}, GET {}; servers must support HEAD with the same answer",
                    head.status, get.status
                ),
            );
        }
        let differences = differences(&get.headers, &head.headers);
        if differences.is_empty() {
            self.push(
                Status::Ok,
                subject,
                format!("HEAD {} with the same headers as GET", head.status.as_u16()),
            );
        } else {
            self.push(
                Status::Fail,
                subject,
                format!("HEAD headers differ from GET: {}", differences.join("; ")),
            );
        }
    }

    fn entry(&mut self, entry: &Entry, index_url: &Url) {
        let name = entry.name.as_str();
        let kind = match entry.kind {
            ArtifactKind::SkillMd => "skill-md",
            ArtifactKind::Archive => "archive",
        };
        self.push(
            Status::Ok,
            name,
            format!("entry is valid ({kind}, url resolves to {})", entry.url),
        );
        if is_misdirected(&entry.url, index_url) {
            self.push(
                Status::Fail,
                name,
                format!("url {} is on a local host or a development port other than the index's, which clients cannot reach; use a path-absolute url or the public origin", entry.url),
            );
            return;
        }
        let Some(response) = self.get(name, &entry.url, &[]) else {
            return;
        };
        let types: &[&str] = match entry.kind {
            ArtifactKind::SkillMd => &["text/markdown", "text/plain"],
            ArtifactKind::Archive => &["application/gzip", "application/zip"],
        };
        if !self.expect_ok(name, &response, types) {
            return;
        }
        self.head_parity(name, &response);
        match self.client.verify(entry, response) {
            Ok(skill) => {
                self.push(Status::Ok, name, format!("digest {} matches the served bytes", entry.digest));
                if entry.kind == ArtifactKind::Archive {
                    self.push(
                        Status::Ok,
                        name,
                        format!("archive unpacks safely: SKILL.md at the root and {} more files", skill.files.len()),
                    );
                }
                for note in &skill.notes {
                    self.push(Status::Warn, name, note.clone());
                }
                self.push(Status::Ok, name, "SKILL.md is valid and its frontmatter name matches the entry");
                if skill.frontmatter.description() == entry.description {
                    self.push(Status::Ok, name, "the index description equals the frontmatter description");
                } else {
                    self.push(
                        Status::Warn,
                        name,
                        "the index description differs from the SKILL.md frontmatter description; it SHOULD match (generate both from one source)",
                    );
                }
            }
            Err(ClientError::DigestMismatch { expected, actual, .. }) => self.push(
                Status::Fail,
                name,
                format!("digest drift: the index says {expected}, the served bytes are {actual}; clients drop this skill"),
            ),
            Err(ClientError::Invalid { errors, .. }) => {
                for error in &errors {
                    let message = match error.kind() {
                        ErrorKind::NameFolderMismatch { name: found, .. } => format!(
                            "the SKILL.md frontmatter name `{found}` differs from the index name `{name}`"
                        ),
                        _ => format!("SKILL.md: {}", strip_file(&error.to_string())),
                    };
                    self.push(Status::Fail, name, message);
                }
            }
            Err(error) => self.push(Status::Fail, name, error.to_string()),
        }
    }

    /// The site: 404 for a missing skill, caching, CORS, validators.
    fn site(&mut self, index_url: &Url, index: &Fetched) {
        let Ok(missing) = index_url.join(&format!("{WELL_KNOWN_PATH}{MISSING_SKILL}")) else {
            return;
        };
        if let Some(response) = self.get("site", &missing, &[]) {
            if response.status == StatusCode::NOT_FOUND {
                self.push(
                    Status::Ok,
                    "site",
                    "a skill that does not exist answers 404",
                );
            } else {
                let shown = response.header("content-type").unwrap_or("no Content-Type");
                self.push(
                    Status::Fail,
                    "site",
                    format!("a skill that does not exist answers {} ({shown}), not 404; a catch-all route is hiding missing files", response.status),
                );
            }
        }
        match index.header("cache-control") {
            Some(value) => self.push(Status::Ok, "site", format!("Cache-Control: {value}")),
            None => self.push(
                Status::Warn,
                "site",
                "the index has no Cache-Control; the draft says servers SHOULD set it",
            ),
        }
        match index.header("access-control-allow-origin") {
            Some(value) => self.push(
                Status::Ok,
                "site",
                format!("Access-Control-Allow-Origin: {value}"),
            ),
            None => self.push(
                Status::Warn,
                "site",
                "no Access-Control-Allow-Origin; browser-based agents cannot read the skills",
            ),
        }
        let Some(etag) = index.header("etag") else {
            return self.push(
                Status::Warn,
                "site",
                "the index has no ETag, so clients cannot revalidate it cheaply",
            );
        };
        if let Some(response) = self.get("site", &index.url, &[("if-none-match", etag)]) {
            if response.status == StatusCode::NOT_MODIFIED {
                self.push(
                    Status::Ok,
                    "site",
                    format!("ETag {etag} revalidates with 304"),
                );
            } else {
                self.push(
                    Status::Fail,
                    "site",
                    format!("the index sends ETag {etag} but answers {} to If-None-Match with it, not 304", response.status),
                );
            }
        }
    }
}

/// Whether an entry URL points to a local host or a development port on another origin than
/// the index: a leftover of the publisher's machine (`http://localhost:5173/...` in a public
/// index). The same origin as the index is fine, so a local server can be checked as it is.
fn is_misdirected(url: &Url, index_url: &Url) -> bool {
    let local = url.host_str().is_some_and(is_local_host);
    let dev_port = url.port().is_some_and(|port| DEV_PORTS.contains(&port));
    (local || dev_port) && url.origin() != index_url.origin()
}

/// The differences in representation headers between a GET and a HEAD answer. A HEAD without
/// `Content-Length` is allowed (RFC 9110, 9.3.2).
fn differences(get: &HeaderMap, head: &HeaderMap) -> Vec<String> {
    REPRESENTATION
        .into_iter()
        .filter(|name| *name != "content-length" || head.contains_key(*name))
        .filter_map(|name| {
            let show = |map: &HeaderMap| {
                let values: Vec<&str> = map
                    .get_all(name)
                    .iter()
                    .map(|v| v.to_str().unwrap_or("?"))
                    .collect();
                if values.is_empty() {
                    "absent".to_owned()
                } else {
                    values.join(", ")
                }
            };
            let (a, b) = (show(get), show(head));
            (a != b).then(|| format!("{name}: GET {a}, HEAD {b}"))
        })
        .collect()
}

/// Drops the `file: skill `name`: ` prefix of a core error, which the check line already says.
fn strip_file(message: &str) -> &str {
    match message.find("`: ") {
        Some(at) => &message[at + 3..],
        None => message,
    }
}
