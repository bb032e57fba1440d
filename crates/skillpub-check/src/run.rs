//! The checks of an index, of each of its entries (a few at a time) and of the site around
//! it, once the target has led to the answer for the index.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use http::{HeaderMap, Method, StatusCode};
use skillpub_core::{
    ErrorKind, SkillMd,
    index::ArtifactKind,
    media::{GZIP, JSON, MARKDOWN, PLAIN_TEXT, ZIP, essence},
    origin::{DEV_PORTS, is_local_host},
    paths::{INDEX_PATH, LEGACY_INDEX_PATH, SKILL_MD},
    security::{SECRET_CODE, allowed_by_metadata, find_secrets},
    spec::Severity,
};
use url::Url;

use skillpub_advice::FileText;
use skillpub_client::fetch::ACCEPT_ENCODING;
use skillpub_client::index::Version;
use skillpub_client::{Client, ClientError, Entry, FetchError, Fetched, FetchedSkill, Transport};

use crate::freshness::{self, Exposure, Window, unix_now};
use crate::grade::Grade;
use crate::isitagentready::Verdict;
use crate::options::{CONCURRENT_FETCHES, CheckOptions};
use crate::private::{PROBE_ORIGIN, Private};
use crate::report::Lines;
use crate::table::{CheckKind, Finding};

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
pub(crate) const CODED: &[(&str, &str)] = &[("accept-encoding", ACCEPT_ENCODING)];

/// The kinds of the HTTP checks that run on the index and on every artifact alike.
#[derive(Clone, Copy)]
struct Probes {
    status: CheckKind,
    media_type: CheckKind,
    head_parity: CheckKind,
}

const INDEX: Probes = Probes {
    status: CheckKind::IndexStatus,
    media_type: CheckKind::IndexMediaType,
    head_parity: CheckKind::IndexHeadParity,
};

const ARTIFACT: Probes = Probes {
    status: CheckKind::EntryStatus,
    media_type: CheckKind::EntryMediaType,
    head_parity: CheckKind::EntryHeadParity,
};

pub(crate) struct Run<'a, T> {
    pub(crate) client: &'a Client<T>,
    pub(crate) options: &'a CheckOptions<'a>,
    /// What the private view must say, when the run expects one.
    pub(crate) private: Option<Private>,
}

/// One download of the run that can go on beside the others.
enum Job<'a> {
    /// A file of a 0.1.0 entry.
    Legacy(&'a str, &'a Url),
    /// A 0.2.0 entry.
    Entry(&'a Entry),
}

/// What the two scanners say of a well-known index: the aiSiteReady grade and the
/// isitagentready verdict.
pub(crate) type Scanners = (Grade, Verdict);

impl<T: Transport + Sync> Run<'_, T> {
    /// What the scanners say of the answer to `GET url`: the grade, and the verdict, for which
    /// the legacy index of the origin is fetched when `url` is the origin's well-known index
    /// and answered `404`, as isitagentready.com does.
    pub(crate) fn scanners(&self, url: &Url, answer: Result<&Fetched, &FetchError>) -> Scanners {
        let grade = Grade::of(url, answer);
        let not_found = answer.is_ok_and(|answer| answer.status == StatusCode::NOT_FOUND);
        let legacy = (not_found && url.path() == INDEX_PATH).then(|| {
            let mut legacy = url.clone();
            legacy.set_path(LEGACY_INDEX_PATH);
            self.request(&Method::GET, &legacy, CODED)
        });
        let verdict = Verdict::of(url, answer, legacy.as_ref().map(Result::as_ref));
        (grade, verdict)
    }

    /// Sends one request through the client; its answer is judged by the private policy when
    /// it is the private view's. Every request of the run goes through here.
    pub(crate) fn request(
        &self,
        method: &Method,
        url: &Url,
        headers: &[(&str, &str)],
    ) -> Result<Fetched, FetchError> {
        let answer = self.client.request(method, url, headers);
        if let (Some(private), Ok(answer)) = (&self.private, &answer) {
            private.observe(method, answer);
        }
        answer
    }

    /// Every check of an index and its entries, from the answer to its `GET`.
    pub(crate) fn index(&self, out: &mut Lines, answer: Result<Fetched, FetchError>) {
        let index_response = match answer {
            Ok(response) => response,
            Err(error) => return out.push("index", Finding::failed("GET", error)),
        };
        if matches!(
            index_response.status,
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
        ) {
            return self.refused(out, &index_response);
        }
        if !expect_ok(out, "index", INDEX, &index_response, &[JSON]) {
            return;
        }
        self.head_parity(out, "index", INDEX, &index_response, CODED);
        self.one_etag_one_body(out, "index", &index_response);
        let index = match skillpub_client::index::parse(&index_response.url, &index_response.body) {
            Ok(index) => index,
            Err(error) => return out.push("index", Finding::index(error)),
        };
        let schema = match index.version {
            Version::V0_2 => Finding::schema_current(CheckKind::IndexSchema),
            Version::V0_1 => Finding::schema_missing(CheckKind::IndexSchema),
        };
        out.push("index", schema);
        let count = index.entries().len() + index.legacy_entries().len();
        if index.empty {
            out.push("index", Finding::empty_skills(CheckKind::IndexEmpty));
        } else if count == 0 {
            out.push("index", Finding::no_usable_entry(CheckKind::IndexSkills));
        } else {
            out.push(
                "index",
                Finding::usable_entries(CheckKind::IndexSkills, count),
            );
        }
        for problem in index.problems() {
            let subject = problem
                .name
                .clone()
                .unwrap_or_else(|| format!("skills[{}]", problem.position));
            out.push(&subject, Finding::entry(problem.error.clone()));
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
        let exposures = self.jobs(out, &jobs, &index.url);
        self.site(out, &index.url, &index_response);
        if self.private.is_some() {
            self.cors_probes(&index_response.url);
        }
        mismatch_window(out, &index_response, &exposures);
    }

    /// An index that answered 401 ("log in") or 403 ("not allowed"): a line of its own with
    /// the challenge, a failure when a 401 has none, and one line for the checks that could
    /// not run without the index.
    fn refused(&self, out: &mut Lines, index: &Fetched) {
        let (url, status) = (&index.url, index.status);
        let sent = if index.credentialed {
            "to the credentials sent"
        } else {
            "and no credentials were sent (skillpub check --bearer-env VAR or --header 'Name: value')"
        };
        if status == StatusCode::FORBIDDEN {
            out.push(
                "index",
                Finding::forbidden(CheckKind::AuthForbidden, url, status, sent),
            );
        } else {
            let challenges: Vec<&str> = index
                .headers
                .get_all(http::header::WWW_AUTHENTICATE)
                .iter()
                .map(|value| value.to_str().unwrap_or("?"))
                .collect();
            let kind = CheckKind::AuthRequired;
            if challenges.is_empty() {
                out.push(
                    "index",
                    Finding::login_without_challenge(kind, url, status, sent),
                );
                out.push(
                    "index",
                    Finding::no_challenge(CheckKind::AuthChallenge, url),
                );
            } else {
                let challenge = challenges.join(", ");
                out.push(
                    "index",
                    Finding::login_required(kind, url, status, sent, &challenge),
                );
            }
        }
        out.push("site", Finding::not_run(CheckKind::RunNotRun, status));
    }

    /// Runs the downloads [`CONCURRENT_FETCHES`] at a time and appends their lines in job
    /// order. Once the deadline has passed no job starts; one line counts those left out.
    /// Returns what caches may do with each artifact that answered `200`.
    fn jobs(&self, out: &mut Lines, jobs: &[Job<'_>], index_url: &Url) -> Vec<Exposure> {
        let entries = jobs
            .iter()
            .filter(|job| matches!(job, Job::Entry(_)))
            .count();
        let first_entry = jobs.len() - entries;
        let results = in_parallel(jobs, self.client.deadline(), |at, job| {
            let mut lines = Lines::default();
            let exposure = match job {
                Job::Legacy(name, url) => {
                    if let Some(response) = self.get(&mut lines, name, url, CODED) {
                        expect_ok(&mut lines, name, ARTIFACT, &response, &[]);
                    }
                    None
                }
                Job::Entry(entry) => {
                    if let Some(progress) = self.options.progress {
                        progress(at - first_entry, entries, entry.url.as_str());
                    }
                    self.entry(&mut lines, entry, index_url)
                }
            };
            (lines, exposure)
        });
        let mut left_out = 0;
        let mut exposures = Vec::new();
        for result in results {
            match result {
                Some((lines, exposure)) => {
                    out.0.extend(lines.0);
                    exposures.extend(exposure);
                }
                None => left_out += 1,
            }
        }
        if left_out > 0 {
            let finding = Finding::not_started(CheckKind::RunMaxTime, left_out, jobs.len());
            out.push("site", finding);
        }
        exposures
    }

    /// GETs a URL; a transport failure is a failed check.
    fn get(
        &self,
        out: &mut Lines,
        subject: &str,
        url: &Url,
        headers: &[(&str, &str)],
    ) -> Option<Fetched> {
        match self.request(&Method::GET, url, headers) {
            Ok(response) => Some(response),
            Err(error) => {
                out.push(subject, Finding::failed("GET", error));
                None
            }
        }
    }

    /// HEAD, with the headers the GET was sent with, must answer like GET: same status and
    /// representation headers, no body.
    fn head_parity(
        &self,
        out: &mut Lines,
        subject: &str,
        probes: Probes,
        get: &Fetched,
        headers: &[(&str, &str)],
    ) {
        let kind = probes.head_parity;
        let head = match self.request(&Method::HEAD, &get.url, headers) {
            Ok(head) => head,
            Err(error) => return out.push(subject, Finding::failed("HEAD", error)),
        };
        if head.status != get.status {
            return out.push(subject, Finding::head_status(kind, head.status, get.status));
        }
        let differences = differences(&get.headers, &head.headers);
        if differences.is_empty() {
            out.push(subject, Finding::head_like_get(kind, head.status.as_u16()));
        } else {
            let differences = differences.join("; ");
            out.push(subject, Finding::head_headers(kind, &differences));
        }
    }

    /// When a text artifact arrived content-encoded under a strong `ETag`, fetches it again
    /// without `Accept-Encoding`: the same strong `ETag` on other bytes fails, since caches
    /// and `If-None-Match` then mix the two up.
    fn one_etag_one_body(&self, out: &mut Lines, subject: &str, coded: &Fetched) {
        let kind = CheckKind::EncodingEtagReused;
        let codings = coded.codings();
        if codings.is_empty() {
            return;
        }
        let coding = codings.join(", ");
        let Some(etag) = coded.header("etag").filter(|etag| !etag.starts_with("W/")) else {
            return out.push(subject, Finding::no_strong_etag(kind, &coding));
        };
        let plain = match self.request(&Method::GET, &coded.url, &[]) {
            Ok(plain) => plain,
            Err(error) => {
                let finding = Finding::failed("GET without Accept-Encoding", error);
                return out.push(subject, finding);
            }
        };
        if plain.header("etag") == Some(etag) && plain.wire_digest() != coded.wire_digest() {
            out.push(subject, Finding::etag_reused(kind, &coding, etag));
        } else {
            out.push(subject, Finding::own_etag(kind, &coding, etag));
        }
    }

    /// Every check of an entry; what caches may do with its artifact, when it answered `200`.
    fn entry(&self, out: &mut Lines, entry: &Entry, index_url: &Url) -> Option<Exposure> {
        let name = entry.name.as_str();
        let valid = Finding::entry_valid(CheckKind::EntryFields, entry.kind.as_str(), &entry.url);
        out.push(name, valid);
        if is_misdirected(&entry.url, index_url) {
            out.push(
                name,
                Finding::local_url(CheckKind::EntryLocalUrl, &entry.url),
            );
            return None;
        }
        let response = self.get(out, name, &entry.url, CODED)?;
        let types = match entry.kind {
            ArtifactKind::SkillMd => [essence(MARKDOWN), essence(PLAIN_TEXT)],
            ArtifactKind::Archive => [GZIP, ZIP],
        };
        if !expect_ok(out, name, ARTIFACT, &response, &types) {
            return None;
        }
        let exposure = Exposure {
            addressed: response.url.path().contains(&entry.digest.hex()),
            lifetime: freshness::lifetime(&response.headers, unix_now()),
        };
        self.artifact(out, entry, response);
        Some(exposure)
    }

    /// The checks of an artifact that answered `200` with its type.
    fn artifact(&self, out: &mut Lines, entry: &Entry, response: Fetched) {
        let name = entry.name.as_str();
        self.head_parity(out, name, ARTIFACT, &response, CODED);
        match entry.kind {
            ArtifactKind::SkillMd => self.one_etag_one_body(out, name, &response),
            ArtifactKind::Archive => {
                let codings = response.codings();
                if !codings.is_empty() {
                    let codings = codings.join(", ");
                    let kind = CheckKind::EncodingArchiveEncoded;
                    out.push(name, Finding::archive_encoded(kind, &codings));
                }
            }
        }
        let skill = match self.client.verify(entry, response) {
            Ok(skill) => skill,
            Err(ClientError::Invalid { errors, .. }) => {
                for error in errors {
                    out.push(name, invalid_skill_md(name, error));
                }
                return;
            }
            Err(error) => return out.push(name, Finding::client(error)),
        };
        out.push(
            name,
            Finding::digest_matches(CheckKind::EntryDigest, &entry.digest),
        );
        if entry.kind == ArtifactKind::Archive {
            let more = skill.files.len();
            out.push(name, Finding::unpacked(CheckKind::ArchiveUnpack, more));
        }
        for note in &skill.notes {
            out.push(name, Finding::note(note));
        }
        out.push(name, Finding::skill_valid(CheckKind::SkillFrontmatter));
        advise(out, name, &skill, self.client.deadline());
        let kind = CheckKind::SkillDescription;
        if skill.frontmatter.description() == entry.description {
            out.push(name, Finding::same_description(kind));
        } else {
            out.push(name, Finding::description_differs(kind));
        }
    }

    /// For the private policy: a `GET` and a preflight of the index from an origin no
    /// allow-list holds ([`PROBE_ORIGIN`]); their answers are judged with the others, and
    /// one that allows that origin with credentials fails `private.cors`. A transport
    /// failure here is already reported by the checks before, so it adds no line.
    fn cors_probes(&self, index_url: &Url) {
        let get = [CODED[0], ("origin", PROBE_ORIGIN)];
        let preflight = [
            ("origin", PROBE_ORIGIN),
            ("access-control-request-method", "GET"),
            ("access-control-request-headers", "authorization"),
        ];
        let _ = self.request(&Method::GET, index_url, &get);
        let _ = self.request(&Method::OPTIONS, index_url, &preflight);
    }

    /// The site: 404 for a missing skill beside the index, caching, CORS, validators.
    fn site(&self, out: &mut Lines, index_url: &Url, index: &Fetched) {
        let Ok(missing) = index_url.join(MISSING_SKILL) else {
            return;
        };
        if let Some(response) = self.get(out, "site", &missing, CODED) {
            let kind = CheckKind::SiteNotFoundProbe;
            if response.status == StatusCode::NOT_FOUND {
                out.push("site", Finding::missing_is_404(kind));
            } else {
                let shown = response.header("content-type").unwrap_or("no Content-Type");
                out.push(
                    "site",
                    Finding::missing_answers(kind, response.status, shown),
                );
            }
        }
        let kind = CheckKind::SiteCacheControl;
        match index.header("cache-control") {
            Some(value) => out.push("site", Finding::header(kind, "Cache-Control", value)),
            None => out.push("site", Finding::no_cache_control(kind)),
        }
        let kind = CheckKind::SiteCors;
        match index.header("access-control-allow-origin") {
            Some(value) => {
                let finding = Finding::header(kind, "Access-Control-Allow-Origin", value);
                out.push("site", finding);
            }
            None if self.private.is_some() => out.push("site", Finding::no_cors_private(kind)),
            None => out.push("site", Finding::no_cors(kind)),
        }
        let Some(etag) = index.header("etag") else {
            return out.push("site", Finding::no_etag(CheckKind::SiteEtag));
        };
        let revalidate = [CODED[0], ("if-none-match", etag)];
        if let Some(response) = self.get(out, "site", &index.url, &revalidate) {
            let kind = CheckKind::SiteNotModified;
            if response.status == StatusCode::NOT_MODIFIED {
                out.push("site", Finding::revalidates(kind, etag));
            } else {
                out.push(
                    "site",
                    Finding::not_revalidated(kind, etag, response.status),
                );
            }
        }
    }
}

/// Whether a cache can pair the index with other bytes than its digests name, and for how
/// long: from the index's lifetime and that of each artifact fetched (`exposures`); no
/// line when no artifact was.
fn mismatch_window(out: &mut Lines, index: &Fetched, exposures: &[Exposure]) {
    if exposures.is_empty() {
        return;
    }
    let kind = CheckKind::CacheMismatchWindow;
    let lifetime = freshness::lifetime(&index.headers, unix_now());
    let finding = match freshness::window(lifetime, exposures) {
        Window::Addressed(count) => Finding::addressed_urls(kind, count),
        Window::NothingCached => Finding::nothing_cached(kind),
        Window::Open {
            seconds,
            index,
            artifacts,
            longest,
        } => Finding::mismatch_window(kind, seconds, index, artifacts, longest),
    };
    out.push("site", finding);
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

/// Checks status 200 and, when `types` is not empty, the media type: a line for each.
fn expect_ok(
    out: &mut Lines,
    subject: &str,
    probes: Probes,
    response: &Fetched,
    types: &[&str],
) -> bool {
    if response.status != StatusCode::OK {
        let finding = Finding::not_ok(probes.status, &response.url, response.status);
        out.push(subject, finding);
        return false;
    }
    out.push(subject, Finding::answered(probes.status, response.status));
    if types.is_empty() {
        return true;
    }
    let media_type = response.media_type().unwrap_or_default();
    if types.contains(&media_type.as_str()) {
        let shown = response.header("content-type").unwrap_or_default();
        out.push(subject, Finding::served_as(probes.media_type, shown));
        true
    } else {
        let shown = if media_type.is_empty() {
            "no Content-Type".to_owned()
        } else {
            media_type
        };
        let expected = types.join(" or ");
        let finding = Finding::wrong_media_type(probes.media_type, &shown, &expected);
        out.push(subject, finding);
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

/// The security review and the authoring advice on a fetched skill, the rules of `skillpub
/// lint`: its `SKILL.md` and every file of its archive, unpacked (none for a `skill-md` entry,
/// so a reference to another file is missing as served). First the credentials (a `FAIL` line
/// each, or one `ok` line), then the advice: one `ok` line stands for a skill without
/// warnings. The advice stops at the run's deadline, as downloads do: its time grows with a
/// text the server chose.
pub(crate) fn advise(out: &mut Lines, name: &str, skill: &FetchedSkill, deadline: Option<Instant>) {
    let Ok(skill_md) = SkillMd::parse(skill.skill_md.clone(), Some(name)) else {
        return;
    };
    secrets(out, name, &skill_md, skill);
    let files = skill
        .files
        .iter()
        .map(|file| FileText::new(&file.path, &file.bytes));
    let advice = match deadline {
        None => skillpub_advice::advise(&skill_md, files),
        Some(deadline) => match skillpub_advice::advise_before(&skill_md, files, deadline) {
            Ok(advice) => advice,
            Err(error) => return out.push(name, Finding::advice_deadline(error)),
        },
    };
    if !advice
        .iter()
        .any(|advice| advice.severity() == Severity::Warning)
    {
        out.push(name, Finding::follows_advice(CheckKind::SkillAdvice));
    }
    for advice in advice {
        out.push(name, Finding::advice(advice));
    }
}

/// The credentials in a fetched skill's files (`skill.secret`), unless its frontmatter's
/// `metadata.skillpub-allow` lists `security.secret` (a comment with a reason allows its line,
/// as in `skillpub lint`).
fn secrets(out: &mut Lines, name: &str, skill_md: &SkillMd, skill: &FetchedSkill) {
    if allowed_by_metadata(skill_md.frontmatter(), SECRET_CODE) {
        return;
    }
    let kind = CheckKind::SkillSecret;
    let files = std::iter::once((SKILL_MD, skill.skill_md.as_slice())).chain(
        skill
            .files
            .iter()
            .map(|file| (file.path.as_str(), file.bytes.as_slice())),
    );
    let mut found = false;
    let mut count = 0;
    for (path, bytes) in files {
        count += 1;
        for secret in find_secrets(bytes) {
            found = true;
            let (line, credential) = (secret.line(), secret.credential());
            out.push(
                name,
                Finding::secret(kind, path, line, credential, secret.shown()),
            );
        }
    }
    if !found {
        let files = if count == 1 {
            "1 file".to_owned()
        } else {
            format!("{count} files")
        };
        out.push(name, Finding::no_secret(kind, &files));
    }
}

/// The line of one problem the core's validation found in a fetched `SKILL.md`, with the
/// core error as its cause: a frontmatter name other than the entry's is `skill.name`,
/// anything else `skill.frontmatter`.
pub(crate) fn invalid_skill_md(name: &str, error: skillpub_core::Error) -> Finding {
    let kind = CheckKind::SkillFrontmatter;
    let finding = match (error.kind(), error.field()) {
        (ErrorKind::NameFolderMismatch { name: found, .. }, _) => {
            Finding::name_differs(CheckKind::SkillName, found, name)
        }
        (problem, Some(field)) => Finding::invalid_field(kind, field, problem),
        (problem, None) => Finding::invalid_skill_md(kind, problem),
    };
    finding.because(error)
}
