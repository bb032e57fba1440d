//! The isitagentready verdict: what isitagentready.com's `checks.discovery.agentSkills` says
//! about a site, from its published scan results. The scanner fetches the origin's
//! `/.well-known/agent-skills/index.json` and, when that answers `404`, the legacy
//! `/.well-known/skills/index.json`; it passes on `200` with a JSON content type and a `skills`
//! list of at least one entry ("Agent Skills index exists with valid JSON", with the skill
//! count, the spec version and the path), and fails otherwise ("Agent Skills index not
//! found"). It fetches no artifact and checks no digest or entry.

use std::fmt;

use http::StatusCode;
use serde_json::Value;
use skillpub_client::{FetchError, Fetched};
use skillpub_core::paths::{INDEX_PATH, LEGACY_INDEX_PATH};
use url::Url;

/// What isitagentready.com's `agentSkills` check would say about a site, and why.
///
/// # Example
///
/// ```
/// use http::{HeaderMap, HeaderValue, StatusCode};
/// use skillpub_check::Verdict;
/// use skillpub_client::Fetched;
///
/// let url: url::Url = "https://example.com/.well-known/agent-skills/index.json".parse()?;
/// let mut headers = HeaderMap::new();
/// headers.insert("content-type", HeaderValue::from_static("application/json"));
/// let body = br#"{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
///     "skills": [{"name": "pdf"}]}"#.to_vec();
/// let answer = Fetched {
///     url: url.clone(),
///     status: StatusCode::OK,
///     headers,
///     body,
///     encoded_digest: None,
///     credentialed: false,
/// };
/// let verdict = Verdict::of(&url, Ok(&answer), None);
/// assert!(verdict.passed);
/// assert_eq!(verdict.to_string(), "pass (Agent Skills index exists with valid JSON: 1 skill, spec version 0.2.0, at /.well-known/agent-skills/index.json)");
/// # Ok::<(), url::ParseError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the check passes.
    pub passed: bool,
    /// Why, in a sentence: what the scanner would see.
    pub reason: String,
}

impl Verdict {
    /// The verdict on the answer to `GET url`, the origin's well-known index, and, when it
    /// answered `404`, on `legacy`, the answer to `GET` of the legacy index.
    #[must_use]
    pub fn of(
        url: &Url,
        answer: Result<&Fetched, &FetchError>,
        legacy: Option<Result<&Fetched, &FetchError>>,
    ) -> Self {
        let mut verdict = match (judge(answer, url.path()), legacy) {
            (Err(not_found), Some(legacy)) if is_404(answer) => {
                match judge(legacy, LEGACY_INDEX_PATH) {
                    Ok(found) => Self::pass(found),
                    Err(legacy_not_found) => {
                        Self::fail(format!("{not_found}, and {legacy_not_found}"))
                    }
                }
            }
            (Ok(found), _) => Self::pass(found),
            (Err(not_found), _) => Self::fail(not_found),
        };
        if url.path() != INDEX_PATH {
            verdict.reason.push_str(&format!(
                "; judged at {url}, but the scanner reads only the origin's {INDEX_PATH}"
            ));
        }
        verdict
    }

    fn pass(found: String) -> Self {
        Self {
            passed: true,
            reason: format!("Agent Skills index exists with valid JSON: {found}"),
        }
    }

    fn fail(why: String) -> Self {
        Self {
            passed: false,
            reason: format!("Agent Skills index not found: {why}"),
        }
    }

    /// `pass` or `fail`, as `skillpub check` prints it.
    #[must_use]
    pub fn label(&self) -> &'static str {
        if self.passed { "pass" } else { "fail" }
    }
}

/// `pass (reason)` or `fail (reason)`.
impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.label(), self.reason)
    }
}

/// Whether the answer is a `404`, after which the scanner reads the legacy index.
fn is_404(answer: Result<&Fetched, &FetchError>) -> bool {
    answer.is_ok_and(|answer| answer.status == StatusCode::NOT_FOUND)
}

/// What the scanner finds at `path`: the skill count, spec version and path of an index that
/// passes, or why there is none.
fn judge(answer: Result<&Fetched, &FetchError>, path: &str) -> Result<String, String> {
    let answer = answer.map_err(|error| format!("{path} could not be fetched ({error})"))?;
    if answer.status != StatusCode::OK {
        return Err(format!("{path} answered {}", answer.status));
    }
    let media_type = answer.media_type().unwrap_or_default();
    let json_type = media_type == "application/json"
        || (media_type.starts_with("application/") && media_type.ends_with("+json"));
    if !json_type {
        let shown = if media_type.is_empty() {
            "no Content-Type"
        } else {
            &media_type
        };
        return Err(format!("{path} is served with {shown}, not a JSON type"));
    }
    let json: Value = serde_json::from_slice(&answer.body)
        .map_err(|error| format!("{path} is not JSON ({error})"))?;
    let count = match json.get("skills") {
        Some(Value::Array(skills)) if !skills.is_empty() => skills.len(),
        Some(Value::Array(_)) => return Err(format!("{path} has an empty `skills` list")),
        _ => return Err(format!("{path} has no `skills` list")),
    };
    let version = json
        .get("$schema")
        .and_then(Value::as_str)
        .and_then(spec_version)
        .unwrap_or(if path == LEGACY_INDEX_PATH {
            "0.1.0"
        } else {
            "unknown"
        });
    let skills = if count == 1 { "skill" } else { "skills" };
    Ok(format!(
        "{count} {skills}, spec version {version}, at {path}"
    ))
}

/// The `x.y.z` in a `$schema` URI, such as `0.2.0` in
/// `https://schemas.agentskills.io/discovery/0.2.0/schema.json`.
fn spec_version(schema: &str) -> Option<&str> {
    schema.split('/').find(|part| {
        let numbers: Vec<&str> = part.split('.').collect();
        numbers.len() == 3
            && numbers
                .iter()
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use http::{HeaderMap, HeaderValue};

    use super::*;

    const WELL_KNOWN: &str = "https://example.com/.well-known/agent-skills/index.json";
    const LEGACY: &str = "https://example.com/.well-known/skills/index.json";

    fn answer(url: &str, status: u16, content_type: Option<&str>, body: &str) -> Fetched {
        let mut headers = HeaderMap::new();
        if let Some(content_type) = content_type {
            headers.insert("content-type", HeaderValue::from_str(content_type).unwrap());
        }
        Fetched {
            url: url.parse().unwrap(),
            status: StatusCode::from_u16(status).unwrap(),
            headers,
            body: body.as_bytes().to_vec(),
            encoded_digest: None,
            credentialed: false,
        }
    }

    const INDEX: &str = r#"{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [{"name": "a"}, {"name": "b"}]}"#;

    fn verdict(main: &Fetched, legacy: Option<&Fetched>) -> Verdict {
        Verdict::of(&WELL_KNOWN.parse().unwrap(), Ok(main), legacy.map(Ok))
    }

    #[test]
    fn an_index_with_skills_served_as_json_passes_whatever_its_entries() {
        let verdict = verdict(
            &answer(
                WELL_KNOWN,
                200,
                Some("application/json; charset=utf-8"),
                INDEX,
            ),
            None,
        );
        assert_eq!(
            verdict.to_string(),
            "pass (Agent Skills index exists with valid JSON: 2 skills, spec version 0.2.0, at /.well-known/agent-skills/index.json)"
        );
    }

    #[test]
    fn the_legacy_index_counts_after_a_404() {
        let legacy = answer(
            LEGACY,
            200,
            Some("application/json"),
            r#"{"skills": [{"name": "a"}]}"#,
        );
        let found = verdict(
            &answer(WELL_KNOWN, 404, Some("text/plain"), "no"),
            Some(&legacy),
        );
        assert_eq!(
            found.to_string(),
            "pass (Agent Skills index exists with valid JSON: 1 skill, spec version 0.1.0, at /.well-known/skills/index.json)"
        );
        let missing = answer(LEGACY, 404, None, "");
        let neither = verdict(&answer(WELL_KNOWN, 404, None, ""), Some(&missing));
        assert_eq!(
            neither.to_string(),
            "fail (Agent Skills index not found: /.well-known/agent-skills/index.json answered 404 Not Found, and /.well-known/skills/index.json answered 404 Not Found)"
        );
    }

    #[test]
    fn the_legacy_index_is_not_read_after_another_failure() {
        let legacy = answer(
            LEGACY,
            200,
            Some("application/json"),
            r#"{"skills": [{"name": "a"}]}"#,
        );
        let verdict = verdict(&answer(WELL_KNOWN, 500, None, ""), Some(&legacy));
        assert!(!verdict.passed);
        assert_eq!(
            verdict.reason,
            "Agent Skills index not found: /.well-known/agent-skills/index.json answered 500 Internal Server Error"
        );
    }

    macro_rules! fails {
        ($name:ident, $status:expr, $type:expr, $body:expr, $why:expr) => {
            #[test]
            fn $name() {
                let verdict = verdict(&answer(WELL_KNOWN, $status, $type, $body), None);
                assert!(!verdict.passed);
                assert_eq!(
                    verdict.reason,
                    format!("Agent Skills index not found: {}", $why)
                );
            }
        };
    }

    fails!(
        html,
        200,
        Some("text/html"),
        INDEX,
        "/.well-known/agent-skills/index.json is served with text/html, not a JSON type"
    );
    fails!(
        no_content_type,
        200,
        None,
        INDEX,
        "/.well-known/agent-skills/index.json is served with no Content-Type, not a JSON type"
    );
    fails!(
        empty_skills,
        200,
        Some("application/json"),
        r#"{"skills": []}"#,
        "/.well-known/agent-skills/index.json has an empty `skills` list"
    );
    fails!(
        no_skills,
        200,
        Some("application/json"),
        r#"{"entries": []}"#,
        "/.well-known/agent-skills/index.json has no `skills` list"
    );

    #[test]
    fn an_index_elsewhere_says_where_the_scanner_reads() {
        let url: Url = "https://example.com/tenant/.well-known/agent-skills/index.json"
            .parse()
            .unwrap();
        let index = answer(url.as_str(), 200, Some("application/json"), INDEX);
        let verdict = Verdict::of(&url, Ok(&index), None);
        assert!(verdict.reason.ends_with("; judged at https://example.com/tenant/.well-known/agent-skills/index.json, but the scanner reads only the origin's /.well-known/agent-skills/index.json"), "{}", verdict.reason);
    }
}
