//! The aiSiteReady grade: what the aiSiteReady scanner's `agent_skills` check says about an
//! index, computed from one answer the way its guide ("Agent Skills SKILL.md for websites:
//! write, index, verify") documents the check. The scanner makes one request for the index
//! and never downloads an artifact, so the grade never depends on a `SKILL.md`, an archive or
//! a digest match.

use std::fmt;

use http::StatusCode;
use serde_json::{Map, Value};
use skillpub_core::{Digest, index::ArtifactKind, paths::INDEX_PATH, spec::MAX_DESCRIPTION_LENGTH};
use url::{Host, Url};

use skillpub_client::{FetchError, Fetched};

use crate::target::well_known;

/// The status the aiSiteReady scanner gives a site's `agent_skills` check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GradeStatus {
    /// `$schema` declared, a JSON content type, and at least one valid entry.
    Pass,
    /// An index, but with a defect: valid entries without `$schema`, a parseable index with a
    /// non-JSON content type, entries none of which is valid, `skills` missing or empty, or a
    /// body that is not JSON.
    Partial,
    /// The index could not be fetched, or the site blocked the request (403 or 429): no
    /// verdict.
    Unknown,
    /// No index: 404 or another error status, or an HTML page.
    Fail,
}

impl GradeStatus {
    /// The scanner's label: `PASS`, `PARTIAL`, `UNKNOWN` or `FAIL`.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_check::GradeStatus;
    ///
    /// assert_eq!(GradeStatus::Partial.label(), "PARTIAL");
    /// assert_eq!(GradeStatus::Unknown.to_string(), "UNKNOWN");
    /// ```
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Partial => "PARTIAL",
            Self::Unknown => "UNKNOWN",
            Self::Fail => "FAIL",
        }
    }
}

/// The label.
impl fmt::Display for GradeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// What the aiSiteReady scanner's `agent_skills` check would say about an index, and why.
///
/// [`Grade::of`] follows the guide's table row by row, from the one answer to `GET` of the
/// index:
///
/// | Status | When |
/// |---|---|
/// | `UNKNOWN` | the request failed (connection, TLS, timeout, redirects, size), or the answer is 403 or 429 (a block, not a verdict) |
/// | `FAIL` | any other 4xx or 5xx status (no index), or a `Content-Type` of `text/html` or `application/xhtml+xml` (an SPA shell, or JSON sent as HTML) |
/// | `PARTIAL` | the body is not JSON; `skills` is missing, not a list or empty; no entry is valid; `$schema` is not a non-empty string; or the `Content-Type` is not JSON (`application/json` or a `+json` type), such as `text/plain` |
/// | `PASS` | everything else: `$schema` declared, JSON, and at least one valid entry |
///
/// An entry is valid for the scanner when it is an object whose `name` follows the Agent
/// Skills name rule, whose `type` is `skill-md` or `archive`, whose `description` has 1 to
/// 1,024 characters, whose `digest` is `sha256:` and 64 lowercase hex digits, and whose `url`
/// resolves against the index URL to an http or https URL on a host name with a dot (an IPv4
/// address counts; `localhost` and IPv6 addresses do not) and on port 80 or 443. The scanner
/// resolves nothing and fetches nothing more, so a private address or a staging host passes.
///
/// That is looser than `skillpub check` on `$schema` (any non-empty string, where clients
/// ignore any but the 0.2.0 URI), on the content type (any JSON type), on entries (never
/// fetched: digest drift, a wrong media type or an invalid `SKILL.md` still pass) and on the
/// rest of the site; and stricter on entry URLs (a port other than 80 and 443, as on a local
/// development server, makes an entry invalid) and on an empty `skills` (`PARTIAL` here, a
/// warning in `check`).
///
/// The scanner reads only the index at its origin's `/.well-known/agent-skills/index.json`;
/// the grade of an index elsewhere (under a path prefix, or an index URL given as is) says so
/// in its reason.
///
/// # Example
///
/// ```
/// use http::{HeaderMap, HeaderValue, StatusCode};
/// use skillpub_check::{Grade, GradeStatus};
/// use skillpub_client::Fetched;
///
/// let url: url::Url = "https://example.com/.well-known/agent-skills/index.json".parse()?;
/// let mut headers = HeaderMap::new();
/// headers.insert("content-type", HeaderValue::from_static("text/plain"));
/// let answer = Fetched {
///     url: url.clone(),
///     status: StatusCode::OK,
///     headers,
///     body: br#"{"$schema": "x", "skills": []}"#.to_vec(),
///     encoded_digest: None,
///     credentialed: false,
/// };
/// let grade = Grade::of(&url, Ok(&answer));
/// assert_eq!(grade.status, GradeStatus::Partial);
/// assert_eq!(grade.reason, "`skills` is empty; served as text/plain, not as JSON");
/// # Ok::<(), url::ParseError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grade {
    /// The status.
    pub status: GradeStatus,
    /// Why, in a sentence: what the scanner would see.
    pub reason: String,
    /// The index URL that was graded.
    pub url: Url,
}

impl Grade {
    /// Grades the answer to `GET url` (after redirects) as the aiSiteReady scanner would.
    #[must_use]
    pub fn of(url: &Url, answer: Result<&Fetched, &FetchError>) -> Self {
        let (status, mut reason) = match answer {
            Ok(answer) => judge(answer),
            Err(error) => (
                GradeStatus::Unknown,
                format!("the index could not be fetched: {error}"),
            ),
        };
        if url.path() != INDEX_PATH {
            let root = well_known(url);
            reason.push_str(&format!(
                "; graded at {url}, but the scanner reads only {root}"
            ));
        }
        Self {
            status,
            reason,
            url: url.clone(),
        }
    }
}

/// The guide's table, row by row.
fn judge(answer: &Fetched) -> (GradeStatus, String) {
    let status = answer.status;
    if matches!(
        status,
        StatusCode::FORBIDDEN | StatusCode::TOO_MANY_REQUESTS
    ) {
        return (
            GradeStatus::Unknown,
            format!(
                "the index answered {status}, which the scanner counts as a block, not a verdict"
            ),
        );
    }
    if status.is_client_error() || status.is_server_error() {
        return (
            GradeStatus::Fail,
            format!("the index answered {status}: no index"),
        );
    }
    let media_type = answer.media_type().unwrap_or_default();
    if matches!(media_type.as_str(), "text/html" | "application/xhtml+xml") {
        return (
            GradeStatus::Fail,
            format!("the index is served as {media_type}: an HTML page, not JSON"),
        );
    }
    let json: Value = match serde_json::from_slice(&answer.body) {
        Ok(json) => json,
        Err(error) => {
            return (
                GradeStatus::Partial,
                format!("the body is not JSON ({error})"),
            );
        }
    };
    let top = json.as_object();
    let mut problems = Vec::new();
    let mut valid = 0;
    let mut total = 0;
    match top.and_then(|top| top.get("skills")) {
        None => problems.push("`skills` is missing".to_owned()),
        Some(Value::Array(skills)) if skills.is_empty() => {
            problems.push("`skills` is empty".to_owned());
        }
        Some(Value::Array(skills)) => {
            total = skills.len();
            let mut first_problem = None;
            for (position, skill) in skills.iter().enumerate() {
                match entry(skill, &answer.url) {
                    Ok(()) => valid += 1,
                    Err(problem) => {
                        first_problem.get_or_insert(format!("skills[{position}]: {problem}"));
                    }
                }
            }
            if valid == 0
                && let Some(problem) = first_problem
            {
                problems.push(format!("none of the {total} entries is valid ({problem})"));
            }
        }
        Some(_) => problems.push("`skills` is not a list".to_owned()),
    }
    let schema = top
        .and_then(|top| top.get("$schema"))
        .and_then(Value::as_str);
    if schema.is_none_or(str::is_empty) {
        problems.push("no `$schema`".to_owned());
    }
    let json_type = media_type == "application/json"
        || (media_type.starts_with("application/") && media_type.ends_with("+json"));
    if !json_type {
        problems.push(if media_type.is_empty() {
            "served without a Content-Type, not as JSON".to_owned()
        } else {
            format!("served as {media_type}, not as JSON")
        });
    }
    if problems.is_empty() {
        let reason =
            format!("`$schema` declared, served as {media_type}, {valid} of {total} entries valid");
        (GradeStatus::Pass, reason)
    } else {
        (GradeStatus::Partial, problems.join("; "))
    }
}

/// Whether one entry is valid for the scanner; if not, why.
fn entry(skill: &Value, index_url: &Url) -> Result<(), String> {
    let Value::Object(fields) = skill else {
        return Err("not an object".to_owned());
    };
    let name = text(fields, "name")?;
    if let Some(problem) = skillpub_core::spec::validate_name(name).into_iter().next() {
        return Err(format!("`name` {problem}"));
    }
    let kind = text(fields, "type")?;
    if ArtifactKind::from_type(kind).is_none() {
        let (skill_md, archive) = (ArtifactKind::SkillMd, ArtifactKind::Archive);
        return Err(format!(
            "`type` `{kind}` is neither {skill_md} nor {archive}"
        ));
    }
    let length = text(fields, "description")?.chars().count();
    if length == 0 || length > MAX_DESCRIPTION_LENGTH {
        return Err(format!(
            "`description` has {length} characters, not 1 to {MAX_DESCRIPTION_LENGTH}"
        ));
    }
    let raw = text(fields, "url")?;
    let url = index_url
        .join(raw)
        .map_err(|error| format!("`url` `{raw}` does not resolve: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("`url` resolves to {url}, not an http or https URL"));
    }
    let dotted = match url.host() {
        Some(Host::Domain(host)) => host.contains('.'),
        Some(Host::Ipv4(_)) => true,
        Some(Host::Ipv6(_)) | None => false,
    };
    if !dotted || !matches!(url.port_or_known_default(), Some(80 | 443)) {
        return Err(format!(
            "`url` resolves to {url}; the scanner accepts only a host name with a dot on port 80 or 443"
        ));
    }
    text(fields, "digest")?
        .parse::<Digest>()
        .map_err(|error| error.to_string())?;
    Ok(())
}

fn text<'a>(fields: &'a Map<String, Value>, field: &str) -> Result<&'a str, String> {
    match fields.get(field) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(format!("`{field}` is not a string")),
        None => Err(format!("`{field}` is missing")),
    }
}

#[cfg(test)]
mod tests {
    use http::{HeaderMap, HeaderValue};
    use skillpub_core::index::SCHEMA_URI;

    use super::*;

    const INDEX_URL: &str = "https://example.com/.well-known/agent-skills/index.json";
    const DIGEST: &str = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    /// An entry with these `name`, `url` and `digest`, valid otherwise.
    fn entry_with(name: &str, url: &str, digest: &str) -> String {
        format!(
            r#"{{"name":"{name}","type":"skill-md","description":"Greets.","url":"{url}","digest":"{digest}"}}"#
        )
    }

    fn good() -> String {
        entry_with(
            "greeting",
            "/.well-known/agent-skills/greeting/SKILL.md",
            DIGEST,
        )
    }

    fn index(skills: &str) -> String {
        format!(r#"{{"$schema":"{SCHEMA_URI}","skills":[{skills}]}}"#)
    }

    fn answer(status: u16, content_type: Option<&str>, body: &str) -> Fetched {
        let mut headers = HeaderMap::new();
        if let Some(content_type) = content_type {
            headers.insert("content-type", HeaderValue::from_str(content_type).unwrap());
        }
        Fetched {
            url: Url::parse(INDEX_URL).unwrap(),
            status: StatusCode::from_u16(status).unwrap(),
            headers,
            body: body.as_bytes().to_vec(),
            encoded_digest: None,
            credentialed: false,
        }
    }

    /// `grades!(name, status, content type, body => GradeStatus, reason)`: one row of the
    /// scanner's table.
    macro_rules! grades {
        ($name:ident, $status:expr, $type:expr, $body:expr => $grade:ident, $reason:expr) => {
            #[test]
            fn $name() {
                let url = Url::parse(INDEX_URL).unwrap();
                let body = String::from($body);
                let grade = Grade::of(&url, Ok(&answer($status, $type, &body)));
                assert_eq!(
                    (grade.status, grade.reason.as_str()),
                    (GradeStatus::$grade, $reason)
                );
            }
        };
    }

    const JSON: Option<&str> = Some("application/json; charset=utf-8");

    grades!(a_good_index_passes, 200, JSON, index(&good()) => Pass,
        "`$schema` declared, served as application/json, 1 of 1 entries valid");
    grades!(any_schema_passes, 200, JSON, index(&good()).replace(SCHEMA_URI, "invented") => Pass,
        "`$schema` declared, served as application/json, 1 of 1 entries valid");
    grades!(one_valid_entry_is_enough, 200, Some("application/json"),
        index(&format!(r#"{},7,{{"name":"x"}}"#, good())) => Pass,
        "`$schema` declared, served as application/json, 1 of 3 entries valid");
    grades!(a_json_suffix_type_is_json, 200, Some("application/vnd.skills+json"), index(&good()) => Pass,
        "`$schema` declared, served as application/vnd.skills+json, 1 of 1 entries valid");
    grades!(no_schema_is_partial, 200, JSON, format!(r#"{{"skills":[{}]}}"#, good()) => Partial,
        "no `$schema`");
    grades!(an_empty_schema_is_partial, 200, JSON, index(&good()).replace(SCHEMA_URI, "") => Partial,
        "no `$schema`");
    grades!(plain_text_is_partial, 200, Some("text/plain"), index(&good()) => Partial,
        "served as text/plain, not as JSON");
    grades!(no_content_type_is_partial, 200, None, index(&good()) => Partial,
        "served without a Content-Type, not as JSON");
    grades!(invalid_json_is_partial, 200, JSON, "{\"skills\": [" => Partial,
        "the body is not JSON (EOF while parsing a list at line 1 column 12)");
    grades!(a_missing_skills_list_is_partial, 200, JSON, format!(r#"{{"$schema":"{SCHEMA_URI}"}}"#) => Partial,
        "`skills` is missing");
    grades!(an_array_is_partial, 200, JSON, "[]" => Partial,
        "`skills` is missing; no `$schema`");
    grades!(skills_that_are_not_a_list_is_partial, 200, JSON,
        format!(r#"{{"$schema":"{SCHEMA_URI}","skills":{{}}}}"#) => Partial, "`skills` is not a list");
    grades!(an_empty_skills_list_is_partial, 200, JSON, index("") => Partial, "`skills` is empty");
    grades!(no_valid_entry_is_partial, 200, JSON,
        index(&entry_with("Greeting", "/x", DIGEST)) => Partial,
        "none of the 1 entries is valid (skills[0]: `name` `Greeting` has uppercase letters; names are lowercase, such as `greeting`)");
    grades!(a_localhost_url_is_invalid, 200, JSON,
        index(&entry_with("greeting", "http://localhost:5173/g/SKILL.md", DIGEST)) => Partial,
        "none of the 1 entries is valid (skills[0]: `url` resolves to http://localhost:5173/g/SKILL.md; the scanner accepts only a host name with a dot on port 80 or 443)");
    grades!(a_dotless_host_is_invalid, 200, JSON,
        index(&entry_with("greeting", "https://intranet/g/SKILL.md", DIGEST)) => Partial,
        "none of the 1 entries is valid (skills[0]: `url` resolves to https://intranet/g/SKILL.md; the scanner accepts only a host name with a dot on port 80 or 443)");
    grades!(another_port_is_invalid, 200, JSON,
        index(&entry_with("greeting", "https://example.com:8443/g/SKILL.md", DIGEST)) => Partial,
        "none of the 1 entries is valid (skills[0]: `url` resolves to https://example.com:8443/g/SKILL.md; the scanner accepts only a host name with a dot on port 80 or 443)");
    grades!(an_ipv6_host_is_invalid, 200, JSON,
        index(&entry_with("greeting", "https://[2001:db8::1]/g/SKILL.md", DIGEST)) => Partial,
        "none of the 1 entries is valid (skills[0]: `url` resolves to https://[2001:db8::1]/g/SKILL.md; the scanner accepts only a host name with a dot on port 80 or 443)");
    grades!(a_private_address_and_port_443_on_http_pass, 200, JSON,
        index(&entry_with("greeting", "http://10.0.0.7:443/g/SKILL.md", DIGEST)) => Pass,
        "`$schema` declared, served as application/json, 1 of 1 entries valid");
    grades!(an_ftp_url_is_invalid, 200, JSON,
        index(&entry_with("greeting", "ftp://example.com/g", DIGEST)) => Partial,
        "none of the 1 entries is valid (skills[0]: `url` resolves to ftp://example.com/g, not an http or https URL)");
    grades!(an_upper_case_digest_is_invalid, 200, JSON,
        index(&entry_with("greeting", "/g", &DIGEST.to_uppercase().replace("SHA256", "sha256"))) => Partial,
        "none of the 1 entries is valid (skills[0]: digest `sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855` must use lowercase hex digits 0-9 and a-f only)");
    grades!(an_unknown_type_is_invalid, 200, JSON,
        index(&good().replace("skill-md", "bundle")) => Partial,
        "none of the 1 entries is valid (skills[0]: `type` `bundle` is neither skill-md nor archive)");
    grades!(a_long_description_is_invalid, 200, JSON,
        index(&good().replace("Greets.", &"a".repeat(1025))) => Partial,
        "none of the 1 entries is valid (skills[0]: `description` has 1025 characters, not 1 to 1024)");
    grades!(a_missing_field_is_invalid, 200, JSON, index(r#"{"name":"greeting"}"#) => Partial,
        "none of the 1 entries is valid (skills[0]: `type` is missing)");
    grades!(every_problem_is_listed, 200, Some("text/plain"), r#"{"skills":[7]}"# => Partial,
        "none of the 1 entries is valid (skills[0]: not an object); no `$schema`; served as text/plain, not as JSON");
    grades!(forbidden_is_unknown, 403, JSON, index(&good()) => Unknown,
        "the index answered 403 Forbidden, which the scanner counts as a block, not a verdict");
    grades!(too_many_requests_is_unknown, 429, None, "" => Unknown,
        "the index answered 429 Too Many Requests, which the scanner counts as a block, not a verdict");
    grades!(not_found_fails, 404, JSON, "{}" => Fail,
        "the index answered 404 Not Found: no index");
    grades!(unauthorized_fails, 401, None, "" => Fail,
        "the index answered 401 Unauthorized: no index");
    grades!(a_server_error_fails, 503, None, "" => Fail,
        "the index answered 503 Service Unavailable: no index");
    grades!(an_html_page_fails, 200, Some("text/html; charset=utf-8"), "<!doctype html>" => Fail,
        "the index is served as text/html: an HTML page, not JSON");
    grades!(json_sent_as_html_fails, 200, Some("TEXT/HTML"), index(&good()) => Fail,
        "the index is served as text/html: an HTML page, not JSON");

    #[test]
    fn a_failed_request_is_unknown() {
        let url = Url::parse(INDEX_URL).unwrap();
        let error = FetchError::Timeout(INDEX_URL.to_owned());
        let grade = Grade::of(&url, Err(&error));
        assert_eq!(grade.status, GradeStatus::Unknown);
        assert_eq!(
            grade.reason,
            format!("the index could not be fetched: `{INDEX_URL}` did not answer in time")
        );
    }

    #[test]
    fn an_index_away_from_the_well_known_path_says_so() {
        let url = Url::parse("https://example.com/tenant/.well-known/agent-skills/index.json?x=1")
            .unwrap();
        let mut fetched = answer(200, JSON, &index(&good()));
        fetched.url = url.clone();
        let grade = Grade::of(&url, Ok(&fetched));
        assert_eq!(grade.status, GradeStatus::Pass);
        assert!(
            grade.reason.ends_with(
                "; graded at https://example.com/tenant/.well-known/agent-skills/index.json?x=1, but the scanner reads only https://example.com/.well-known/agent-skills/index.json"
            ),
            "{}",
            grade.reason
        );
        assert_eq!(grade.url, url);
    }
}
