//! Every check of `skillpub check`: what a strict client needs from a site, one line each.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use http::{HeaderMap, Method, StatusCode};
use serde_json::json;
use skillpub_core::{DEV_PORTS, ErrorKind, SCHEMA_URI, is_local_host};
use url::Url;

use crate::client::{Client, ClientError};
use crate::fetch::{ACCEPT_ENCODING, Fetched, Transport};
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
    /// One line per check. Control characters, bidirectional controls and invisible
    /// characters from the server are escaped (`\u{202e}`), so a hostile `$schema` or name
    /// can neither drive the terminal nor display reversed or hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for check in &self.checks {
            let subject = printable(&check.subject);
            let message = printable(&check.message);
            writeln!(f, "{:<5} {subject}: {message}", check.status.label())?;
        }
        write!(f, "{}", self.summary())
    }
}

/// Escapes what would let server text change how a line displays: control characters
/// (a terminal's escape sequences), bidirectional overrides, embeddings, isolates and marks
/// (a name shown reversed), and invisible characters (zero-width spaces and joiners, the
/// byte order mark, soft hyphens, tag characters).
fn printable(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if is_deceptive(c) {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Whether a character is a control character or an invisible or direction-changing format
/// character.
fn is_deceptive(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

/// Called as each artifact download starts, with (position, total, url); from several
/// threads at once, since downloads run concurrently.
pub type Progress<'a> = &'a (dyn Fn(usize, usize, &str) + Sync);

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

/// How many entries are checked at once: enough that a site of a hundred skills checks in a
/// few round trips, few enough not to load a small server.
pub const CONCURRENT_FETCHES: usize = 6;

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

/// A path no site publishes, beside the index, to see how it answers for a missing skill.
const MISSING_SKILL: &str = "skillpub-check-no-such-skill-7f3a/SKILL.md";

/// The headers of every GET and HEAD of the checks: what a real client sends.
const CODED: &[(&str, &str)] = &[("accept-encoding", ACCEPT_ENCODING)];

/// Runs every check against a target (an origin, an origin with a path prefix, or an index
/// URL), within the client's limits and deadline. Entries are checked
/// [`CONCURRENT_FETCHES`] at a time; the report lists them in index order.
///
/// Requests send `Accept-Encoding: gzip, deflate, br`, as Node's `fetch` does; digests are
/// compared with the decoded bodies. An artifact that arrives content-encoded is fetched again
/// without `Accept-Encoding`, and one strong `ETag` on both answers with different bytes
/// fails; an archive that arrives content-encoded fails.
///
/// # Example
///
/// ```no_run
/// use std::time::{Duration, Instant};
/// use skillpub_client::{CheckOptions, Client, HttpTransport, check};
///
/// let client = Client::new(HttpTransport::new(Duration::from_secs(15)))
///     .with_deadline(Instant::now() + Duration::from_secs(120));
/// let report = check(&client, "https://example.com/tenant", &CheckOptions::default());
/// println!("{report}");
/// assert!(report.passed());
/// ```
pub fn check<T: Transport + Sync>(
    client: &Client<T>,
    target: &str,
    options: &CheckOptions<'_>,
) -> Report {
    let mut checks = Lines::default();
    Run { client, options }.all(&mut checks, target);
    Report {
        target: target.to_owned(),
        checks: checks.0,
    }
}

/// The lines of a run, or of one entry, in order.
#[derive(Default)]
struct Lines(Vec<Check>);

impl Lines {
    fn push(&mut self, status: Status, subject: &str, message: impl Into<String>) {
        self.0.push(Check {
            status,
            subject: subject.to_owned(),
            message: message.into(),
        });
    }
}

struct Run<'a, T> {
    client: &'a Client<T>,
    options: &'a CheckOptions<'a>,
}

/// One download of the run that can go on beside the others.
enum Job<'a> {
    /// A file of a 0.1.0 entry.
    Legacy(&'a str, &'a Url),
    /// A 0.2.0 entry.
    Entry(&'a Entry),
}

impl<T: Transport + Sync> Run<'_, T> {
    fn all(&self, out: &mut Lines, target: &str) {
        let url = match Client::<T>::index_url(target) {
            Ok(url) => url,
            Err(error) => return out.push(Status::Fail, "target", error.to_string()),
        };
        let Some(index_response) = self.get(out, "index", &url, CODED) else {
            return;
        };
        if !expect_ok(out, "index", &index_response, &["application/json"]) {
            return;
        }
        self.head_parity(out, "index", &index_response, CODED);
        self.one_etag_one_body(out, "index", &index_response);
        let index = match index::parse(&index_response.url, &index_response.body) {
            Ok(index) => index,
            Err(IndexError::UnknownSchema(schema)) => {
                return out.push(
                    Status::Fail,
                    "index",
                    format!("`$schema` is `{schema}`, not `{SCHEMA_URI}`; clients ignore an index with an unknown $schema"),
                );
            }
            Err(error) => return out.push(Status::Fail, "index", error.to_string()),
        };
        match index.version {
            Version::V0_2 => out.push(Status::Ok, "index", "`$schema` is the 0.2.0 URI"),
            Version::V0_1 => out.push(
                Status::Fail,
                "index",
                format!("no `$schema`: clients read this as a legacy 0.1.0 index with no digests; publish `$schema: {SCHEMA_URI}` with `type`, `url` and `digest` entries"),
            ),
        }
        let count = index.entries().len() + index.legacy_entries().len();
        if index.empty {
            out.push(
                Status::Warn,
                "index",
                "`skills` is empty; most clients treat that as no index",
            );
        } else if count == 0 {
            out.push(
                Status::Fail,
                "index",
                "no entry of `skills` is usable, so clients see no skills (the lines below say why)",
            );
        } else {
            out.push(
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
            out.push(status, &subject, problem.message.clone());
        }
        let jobs: Vec<Job<'_>> = index
            .legacy_entries()
            .iter()
            .flat_map(|legacy| {
                legacy
                    .files
                    .iter()
                    .map(|(_, url)| Job::Legacy(&legacy.name, url))
            })
            .chain(index.entries().iter().map(Job::Entry))
            .collect();
        self.jobs(out, &jobs, &index.url);
        self.site(out, &index.url, &index_response);
    }

    /// Runs the downloads [`CONCURRENT_FETCHES`] at a time and appends their lines in job
    /// order. Once the deadline has passed no job starts; one line counts those left out.
    fn jobs(&self, out: &mut Lines, jobs: &[Job<'_>], index_url: &Url) {
        let entries = jobs
            .iter()
            .filter(|job| matches!(job, Job::Entry(_)))
            .count();
        let first_entry = jobs.len() - entries;
        let results = in_parallel(jobs, self.client.deadline(), |at, job| {
            let mut lines = Lines::default();
            match job {
                Job::Legacy(name, url) => {
                    if let Some(response) = self.get(&mut lines, name, url, CODED) {
                        expect_ok(&mut lines, name, &response, &[]);
                    }
                }
                Job::Entry(entry) => {
                    if let Some(progress) = self.options.progress {
                        progress(at - first_entry, entries, entry.url.as_str());
                    }
                    self.entry(&mut lines, entry, index_url);
                }
            }
            lines
        });
        let mut left_out = 0;
        for result in results {
            match result {
                Some(lines) => out.0.extend(lines.0),
                None => left_out += 1,
            }
        }
        if left_out > 0 {
            out.push(
                Status::Fail,
                "site",
                format!("the deadline passed before {left_out} of {} downloads started, so they were not checked; allow more time (skillpub check --max-time)", jobs.len()),
            );
        }
    }

    /// GETs a URL; a transport failure is a failed check.
    fn get(
        &self,
        out: &mut Lines,
        subject: &str,
        url: &Url,
        headers: &[(&str, &str)],
    ) -> Option<Fetched> {
        match self.client.request(&Method::GET, url, headers) {
            Ok(response) => Some(response),
            Err(error) => {
                out.push(Status::Fail, subject, format!("GET failed: {error}"));
                None
            }
        }
    }

    /// HEAD, with the headers the GET was sent with, must answer like GET: same status and
    /// representation headers, no body.
    fn head_parity(&self, out: &mut Lines, subject: &str, get: &Fetched, headers: &[(&str, &str)]) {
        let head = match self.client.request(&Method::HEAD, &get.url, headers) {
            Ok(head) => head,
            Err(error) => return out.push(Status::Fail, subject, format!("HEAD failed: {error}")),
        };
        if head.status != get.status {
            return out.push(
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
            out.push(
                Status::Ok,
                subject,
                format!("HEAD {} with the same headers as GET", head.status.as_u16()),
            );
        } else {
            out.push(
                Status::Fail,
                subject,
                format!("HEAD headers differ from GET: {}", differences.join("; ")),
            );
        }
    }

    /// When a text artifact arrived content-encoded under a strong `ETag`, fetches it again
    /// without `Accept-Encoding`: the same strong `ETag` on other bytes fails, since caches
    /// and `If-None-Match` then mix the two up.
    fn one_etag_one_body(&self, out: &mut Lines, subject: &str, coded: &Fetched) {
        let codings = coded.codings();
        if codings.is_empty() {
            return;
        }
        let coding = codings.join(", ");
        let Some(etag) = coded.header("etag").filter(|etag| !etag.starts_with("W/")) else {
            return out.push(
                Status::Ok,
                subject,
                format!("Content-Encoding {coding}, with no strong ETag to share"),
            );
        };
        let plain = match self.client.request(&Method::GET, &coded.url, &[]) {
            Ok(plain) => plain,
            Err(error) => {
                return out.push(
                    Status::Fail,
                    subject,
                    format!("GET without Accept-Encoding failed: {error}"),
                );
            }
        };
        if plain.header("etag") == Some(etag) && plain.wire_digest() != coded.wire_digest() {
            out.push(
                Status::Fail,
                subject,
                format!("the {coding}-encoded answer and the answer without Accept-Encoding carry the same strong ETag {etag} on different bytes; caches and If-None-Match then mix them up; give each encoding its own ETag (a compression layer that keeps the route's ETag causes this)"),
            );
        } else {
            out.push(
                Status::Ok,
                subject,
                format!("Content-Encoding {coding} with its own ETag {etag}"),
            );
        }
    }

    fn entry(&self, out: &mut Lines, entry: &Entry, index_url: &Url) {
        let name = entry.name.as_str();
        let kind = match entry.kind {
            ArtifactKind::SkillMd => "skill-md",
            ArtifactKind::Archive => "archive",
        };
        out.push(
            Status::Ok,
            name,
            format!("entry is valid ({kind}, url resolves to {})", entry.url),
        );
        if is_misdirected(&entry.url, index_url) {
            out.push(
                Status::Fail,
                name,
                format!("url {} is on a local host or a development port other than the index's, which clients cannot reach; use a path-absolute url or the public origin", entry.url),
            );
            return;
        }
        let Some(response) = self.get(out, name, &entry.url, CODED) else {
            return;
        };
        let types: &[&str] = match entry.kind {
            ArtifactKind::SkillMd => &["text/markdown", "text/plain"],
            ArtifactKind::Archive => &["application/gzip", "application/zip"],
        };
        if !expect_ok(out, name, &response, types) {
            return;
        }
        self.head_parity(out, name, &response, CODED);
        match entry.kind {
            ArtifactKind::SkillMd => self.one_etag_one_body(out, name, &response),
            ArtifactKind::Archive => {
                let codings = response.codings();
                if !codings.is_empty() {
                    out.push(
                        Status::Fail,
                        name,
                        format!("the archive arrives with Content-Encoding: {}; an archive must be sent as it is (a client that does not remove the coding hashes other bytes and drops the skill, and caches mix the two): keep compression layers off archives", codings.join(", ")),
                    );
                }
            }
        }
        match self.client.verify(entry, response) {
            Ok(skill) => {
                out.push(Status::Ok, name, format!("digest {} matches the served bytes", entry.digest));
                if entry.kind == ArtifactKind::Archive {
                    out.push(
                        Status::Ok,
                        name,
                        format!("archive unpacks safely: SKILL.md at the root and {} more files", skill.files.len()),
                    );
                }
                for note in &skill.notes {
                    out.push(Status::Warn, name, note.clone());
                }
                out.push(Status::Ok, name, "SKILL.md is valid and its frontmatter name matches the entry");
                if skill.frontmatter.description() == entry.description {
                    out.push(Status::Ok, name, "the index description equals the frontmatter description");
                } else {
                    out.push(
                        Status::Warn,
                        name,
                        "the index description differs from the SKILL.md frontmatter description; it SHOULD match (generate both from one source)",
                    );
                }
            }
            Err(ClientError::DigestMismatch { expected, actual, .. }) => out.push(
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
                    out.push(Status::Fail, name, message);
                }
            }
            Err(error) => out.push(Status::Fail, name, error.to_string()),
        }
    }

    /// The site: 404 for a missing skill beside the index, caching, CORS, validators.
    fn site(&self, out: &mut Lines, index_url: &Url, index: &Fetched) {
        let Ok(missing) = index_url.join(MISSING_SKILL) else {
            return;
        };
        if let Some(response) = self.get(out, "site", &missing, CODED) {
            if response.status == StatusCode::NOT_FOUND {
                out.push(
                    Status::Ok,
                    "site",
                    "a skill that does not exist answers 404",
                );
            } else {
                let shown = response.header("content-type").unwrap_or("no Content-Type");
                out.push(
                    Status::Fail,
                    "site",
                    format!("a skill that does not exist answers {} ({shown}), not 404; a catch-all route is hiding missing files", response.status),
                );
            }
        }
        match index.header("cache-control") {
            Some(value) => out.push(Status::Ok, "site", format!("Cache-Control: {value}")),
            None => out.push(
                Status::Warn,
                "site",
                "the index has no Cache-Control; the draft says servers SHOULD set it",
            ),
        }
        match index.header("access-control-allow-origin") {
            Some(value) => out.push(
                Status::Ok,
                "site",
                format!("Access-Control-Allow-Origin: {value}"),
            ),
            None => out.push(
                Status::Warn,
                "site",
                "no Access-Control-Allow-Origin; browser-based agents cannot read the skills",
            ),
        }
        let Some(etag) = index.header("etag") else {
            return out.push(
                Status::Warn,
                "site",
                "the index has no ETag, so clients cannot revalidate it cheaply",
            );
        };
        let revalidate = [CODED[0], ("if-none-match", etag)];
        if let Some(response) = self.get(out, "site", &index.url, &revalidate) {
            if response.status == StatusCode::NOT_MODIFIED {
                out.push(
                    Status::Ok,
                    "site",
                    format!("ETag {etag} revalidates with 304"),
                );
            } else {
                out.push(
                    Status::Fail,
                    "site",
                    format!("the index sends ETag {etag} but answers {} to If-None-Match with it, not 304", response.status),
                );
            }
        }
    }
}

/// Runs `job` over `items`, [`CONCURRENT_FETCHES`] at a time on scoped threads, and returns
/// the results in item order; an item not started before `deadline` has `None`.
fn in_parallel<I: Sync, R: Send>(
    items: &[I],
    deadline: Option<Instant>,
    job: impl Fn(usize, &I) -> R + Sync,
) -> Vec<Option<R>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let work = || {
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(at) else { break };
            if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                break;
            }
            let result = job(at, item);
            results.lock().unwrap_or_else(PoisonError::into_inner)[at] = Some(result);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..CONCURRENT_FETCHES.min(items.len()) {
            scope.spawn(work);
        }
        work();
    });
    results.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// Checks status 200 and, when `types` is not empty, the media type.
fn expect_ok(out: &mut Lines, subject: &str, response: &Fetched, types: &[&str]) -> bool {
    if response.status != StatusCode::OK {
        out.push(
            Status::Fail,
            subject,
            format!("GET {} answered {}, not 200", response.url, response.status),
        );
        return false;
    }
    let media_type = response.media_type().unwrap_or_default();
    if types.is_empty() || types.contains(&media_type.as_str()) {
        let shown = response.header("content-type").unwrap_or("no Content-Type");
        out.push(Status::Ok, subject, format!("GET 200, {shown}"));
        true
    } else {
        let shown = if media_type.is_empty() {
            "no Content-Type".to_owned()
        } else {
            media_type
        };
        out.push(
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
