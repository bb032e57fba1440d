//! Reading a discovery index the way the draft tells clients to: `$schema` matched exactly,
//! unknown fields ignored, unknown types skipped with a warning, and one bad entry never
//! failing the others.

use serde_json::{Map, Value};
use skillpub_core::{
    Digest, ErrorKind,
    digest::DigestParseError,
    index::SCHEMA_URI,
    paths::SKILL_MD,
    spec::{MAX_DESCRIPTION_LENGTH, Severity, validate_name},
};
use url::Url;

/// How an [`Entry`]'s artifact is distributed: the core's type, named here too since every
/// entry holds one.
pub use skillpub_core::index::ArtifactKind;

/// The index versions a client can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// Draft 0.2.0: `$schema`, and entries with `type`, `url` and `digest`.
    V0_2,
    /// Draft 0.1.0 (no `$schema`): entries with `files`, served beside the index.
    V0_1,
}

/// A valid entry of a 0.2.0 index, with its `url` resolved against the index URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `name`.
    pub name: String,
    /// `type`.
    pub kind: ArtifactKind,
    /// `description`.
    pub description: String,
    /// `url` as written.
    pub raw_url: String,
    /// `url` resolved per RFC 3986 against the final index URL.
    pub url: Url,
    /// `digest`.
    pub digest: Digest,
}

/// A valid entry of a 0.1.0 index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyEntry {
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// Each of `files`, resolved against `{index folder}/{name}/`.
    pub files: Vec<(String, Url)>,
}

/// A problem with one entry; the entry is not used, the others are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryProblem {
    /// The entry's position in `skills`.
    pub position: usize,
    /// Its `name`, when it has a readable one.
    pub name: Option<String>,
    /// What is wrong.
    pub error: EntryError,
}

impl EntryProblem {
    /// How bad it is: only an unknown `type` is a [`Severity::Warning`].
    #[must_use]
    pub fn severity(&self) -> Severity {
        self.error.severity()
    }
}

/// Why one entry of an index is skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// The entry is not a JSON object.
    #[error("the entry is not a JSON object")]
    NotAnObject,
    /// A required field is absent.
    #[error("the required field `{0}` is missing")]
    MissingField(&'static str),
    /// A field that must be a string is not one.
    #[error("`{0}` must be a string")]
    NotAString(&'static str),
    /// A `type` this client does not know; the draft says to skip the entry.
    #[error("unknown `type` `{0}`; the entry is skipped, as the draft says")]
    UnknownType(String),
    /// The `name` breaks the Agent Skills name rule.
    #[error("`name` {0}")]
    Name(#[source] ErrorKind),
    /// The `description` is empty or too long.
    #[error("`description` must have 1 to {MAX_DESCRIPTION_LENGTH} characters, it has {0}")]
    DescriptionLength(usize),
    /// The `url` is empty.
    #[error("`url` is empty")]
    EmptyUrl,
    /// The `url` does not resolve against the index URL.
    #[error("`url` `{url}` does not resolve: {error}")]
    UrlUnresolvable {
        /// The `url` as written.
        url: String,
        /// Why.
        #[source]
        error: url::ParseError,
    },
    /// The `url` resolves to something other than http or https.
    #[error("`url` `{0}` is not an http or https URL")]
    UrlScheme(String),
    /// The `digest` is not `sha256:` and 64 lowercase hex digits.
    #[error("{0}")]
    Digest(#[source] DigestParseError),
    /// A 0.1.0 entry without a `files` list.
    #[error("a 0.1.0 entry needs a `files` list")]
    NoFiles,
    /// A 0.1.0 `files` list that holds something other than strings.
    #[error("`files` must hold strings")]
    FilesNotStrings,
    /// A 0.1.0 `files` path that is absolute, climbs with `..` or is not printable ASCII.
    #[error("`files` entry `{0}` is not a safe relative path")]
    UnsafeFile(String),
    /// A 0.1.0 `files` path that looks relative but resolves outside the skill's folder, as
    /// `%2e%2e/x` does (URL parsing reads it as `../x`).
    #[error("`files` entry `{path}` leads outside the skill's folder (to {url})")]
    FileOutside {
        /// The path as listed.
        path: String,
        /// Where it resolves.
        url: String,
    },
    /// A 0.1.0 `files` list without `SKILL.md`.
    #[error("`files` must include SKILL.md")]
    NoSkillMd,
}

impl EntryError {
    /// How bad it is: only an unknown `type`, which the draft says to skip, is a
    /// [`Severity::Warning`]; anything else breaks the draft, a [`Severity::Error`].
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_client::index::EntryError;
    /// use skillpub_core::spec::Severity;
    ///
    /// assert_eq!(EntryError::UnknownType("bundle".into()).severity(), Severity::Warning);
    /// assert_eq!(EntryError::EmptyUrl.severity(), Severity::Error);
    /// ```
    #[must_use]
    pub fn severity(&self) -> Severity {
        match self {
            Self::UnknownType(_) => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// A parsed index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// The final URL of the index (after redirects), the base of every `url`.
    pub url: Url,
    /// Its version.
    pub version: Version,
    /// Whether `skills` was present but empty.
    pub empty: bool,
    entries: Vec<Entry>,
    legacy: Vec<LegacyEntry>,
    problems: Vec<EntryProblem>,
}

impl Index {
    /// The valid 0.2.0 entries.
    #[must_use]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The valid 0.1.0 entries.
    #[must_use]
    pub fn legacy_entries(&self) -> &[LegacyEntry] {
        &self.legacy
    }

    /// The entries that were skipped, and why.
    #[must_use]
    pub fn problems(&self) -> &[EntryProblem] {
        &self.problems
    }
}

/// Why an index cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// Not JSON.
    #[error("the index is not valid JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("the index must be a JSON object with `$schema` and `skills`")]
    NotAnObject,
    /// A `$schema` this client does not know; the draft says not to process the index.
    #[error(
        "the index has `$schema` `{0}`, which is not the 0.2.0 URI `{SCHEMA_URI}`; clients ignore such an index"
    )]
    UnknownSchema(String),
    /// `skills` is missing or not a list.
    #[error("the index has no `skills` list")]
    NoSkills,
}

/// Parses an index fetched from `url` (its final URL, after redirects).
///
/// # Errors
///
/// [`IndexError`] when the index as a whole cannot be used; problems with single entries are
/// in [`Index::problems`].
pub fn parse(url: &Url, body: &[u8]) -> Result<Index, IndexError> {
    let json: Value =
        serde_json::from_slice(body).map_err(|e| IndexError::NotJson(e.to_string()))?;
    let Value::Object(top) = json else {
        return Err(IndexError::NotAnObject);
    };
    let version = match top.get("$schema") {
        None => Version::V0_1,
        Some(Value::String(schema)) if schema == SCHEMA_URI => Version::V0_2,
        Some(other) => {
            return Err(IndexError::UnknownSchema(match other {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            }));
        }
    };
    let Some(Value::Array(skills)) = top.get("skills") else {
        return Err(IndexError::NoSkills);
    };
    let mut index = Index {
        url: url.clone(),
        version,
        empty: skills.is_empty(),
        entries: Vec::new(),
        legacy: Vec::new(),
        problems: Vec::new(),
    };
    for (position, value) in skills.iter().enumerate() {
        let name = value.get("name").and_then(Value::as_str).map(str::to_owned);
        let problem = |error| EntryProblem {
            position,
            name: name.clone(),
            error,
        };
        let Value::Object(fields) = value else {
            index.problems.push(problem(EntryError::NotAnObject));
            continue;
        };
        let result = match version {
            Version::V0_2 => entry(url, fields).map(|entry| index.entries.push(entry)),
            Version::V0_1 => legacy_entry(url, fields).map(|entry| index.legacy.push(entry)),
        };
        if let Err(error) = result {
            index.problems.push(problem(error));
        }
    }
    Ok(index)
}

fn text<'a>(fields: &'a Map<String, Value>, field: &'static str) -> Result<&'a str, EntryError> {
    match fields.get(field) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(EntryError::NotAString(field)),
        None => Err(EntryError::MissingField(field)),
    }
}

fn name_and_description(fields: &Map<String, Value>) -> Result<(String, String), EntryError> {
    let name = text(fields, "name")?;
    if let Some(problem) = validate_name(name).into_iter().next() {
        return Err(EntryError::Name(problem));
    }
    let description = text(fields, "description")?;
    let length = description.chars().count();
    if description.trim().is_empty() || length > MAX_DESCRIPTION_LENGTH {
        return Err(EntryError::DescriptionLength(length));
    }
    Ok((name.to_owned(), description.to_owned()))
}

fn entry(base: &Url, fields: &Map<String, Value>) -> Result<Entry, EntryError> {
    let kind = text(fields, "type")?;
    let Some(kind) = ArtifactKind::from_type(kind) else {
        return Err(EntryError::UnknownType(kind.to_owned()));
    };
    let (name, description) = name_and_description(fields)?;
    let raw_url = text(fields, "url")?;
    if raw_url.is_empty() {
        return Err(EntryError::EmptyUrl);
    }
    let url = base
        .join(raw_url)
        .map_err(|error| EntryError::UrlUnresolvable {
            url: raw_url.to_owned(),
            error,
        })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(EntryError::UrlScheme(raw_url.to_owned()));
    }
    let digest = text(fields, "digest")?
        .parse::<Digest>()
        .map_err(EntryError::Digest)?;
    Ok(Entry {
        name,
        kind,
        description,
        raw_url: raw_url.to_owned(),
        url,
        digest,
    })
}

fn legacy_entry(base: &Url, fields: &Map<String, Value>) -> Result<LegacyEntry, EntryError> {
    let (name, description) = name_and_description(fields)?;
    let Some(Value::Array(files)) = fields.get("files") else {
        return Err(EntryError::NoFiles);
    };
    let unresolvable =
        |url: String| move |error: url::ParseError| EntryError::UrlUnresolvable { url, error };
    let folder = base
        .join(&format!("{name}/"))
        .map_err(unresolvable(format!("{name}/")))?;
    let mut resolved = Vec::new();
    for file in files {
        let Some(path) = file.as_str() else {
            return Err(EntryError::FilesNotStrings);
        };
        let printable = path
            .bytes()
            .all(|b| (0x20..=0x7e).contains(&b) && !b"\\?#[]".contains(&b));
        if path.is_empty()
            || path.starts_with('/')
            || path.split('/').any(|s| s == "..")
            || !printable
        {
            return Err(EntryError::UnsafeFile(path.to_owned()));
        }
        let url = folder.join(path).map_err(unresolvable(path.to_owned()))?;
        // URL parsing reads `%2e%2e` and `.%2e` as `..`: judge where the path really leads.
        if !url.as_str().starts_with(folder.as_str()) {
            return Err(EntryError::FileOutside {
                path: path.to_owned(),
                url: url.to_string(),
            });
        }
        resolved.push((path.to_owned(), url));
    }
    if !resolved.iter().any(|(path, _)| path == SKILL_MD) {
        return Err(EntryError::NoSkillMd);
    }
    Ok(LegacyEntry {
        name,
        description,
        files: resolved,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    fn base() -> Url {
        Url::parse("https://example.com/.well-known/agent-skills/index.json").unwrap()
    }

    fn index(skills: &str) -> String {
        format!(r#"{{"$schema":"{SCHEMA_URI}","skills":[{skills}]}}"#)
    }

    fn entry_json(url: &str) -> String {
        format!(
            r#"{{"name":"a","type":"skill-md","description":"d","url":"{url}","digest":"{DIGEST}","extra":1}}"#
        )
    }

    #[test]
    fn urls_resolve_against_the_index_url_in_every_form() {
        for (raw, resolved) in [
            (
                "a/SKILL.md",
                "https://example.com/.well-known/agent-skills/a/SKILL.md",
            ),
            ("/x/SKILL.md", "https://example.com/x/SKILL.md"),
            (
                "https://cdn.example.net/a.md",
                "https://cdn.example.net/a.md",
            ),
            ("//cdn.example.net/a.md", "https://cdn.example.net/a.md"),
            (
                "../skills/a.md",
                "https://example.com/.well-known/skills/a.md",
            ),
        ] {
            let parsed = parse(&base(), index(&entry_json(raw)).as_bytes()).unwrap();
            assert_eq!(parsed.entries()[0].url.as_str(), resolved, "{raw}");
        }
    }

    #[test]
    fn the_schema_is_matched_exactly() {
        let wrong = r#"{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json/","skills":[]}"#;
        assert!(matches!(
            parse(&base(), wrong.as_bytes()),
            Err(IndexError::UnknownSchema(_))
        ));
        let legacy =
            r#"{"skills":[{"name":"a","description":"d","files":["SKILL.md","references/x.md"]}]}"#;
        let parsed = parse(&base(), legacy.as_bytes()).unwrap();
        assert_eq!(parsed.version, Version::V0_1);
        assert_eq!(
            parsed.legacy_entries()[0].files[1].1.as_str(),
            "https://example.com/.well-known/agent-skills/a/references/x.md"
        );
    }

    #[test]
    fn one_bad_entry_does_not_fail_the_others() {
        let skills = format!(
            r#"{},{{"name":"b","type":"bundle","description":"d","url":"b","digest":"{DIGEST}"}},{{"name":"C","type":"skill-md","description":"d","url":"c","digest":"{DIGEST}"}},{{"name":"d","type":"skill-md","description":"d","url":"d","digest":"sha256:ABC"}},{{"name":"e"}},7"#,
            entry_json("a/SKILL.md")
        );
        let parsed = parse(&base(), index(&skills).as_bytes()).unwrap();
        assert_eq!(parsed.entries().len(), 1);
        let errors: Vec<&EntryError> = parsed.problems().iter().map(|p| &p.error).collect();
        assert!(
            matches!(
                errors[..],
                [
                    EntryError::UnknownType(bundle),
                    EntryError::Name(ErrorKind::NameUppercase { .. }),
                    EntryError::Digest(DigestParseError::WrongLength { .. }),
                    EntryError::MissingField("type"),
                    EntryError::NotAnObject,
                ] if bundle == "bundle"
            ),
            "{errors:?}"
        );
        let severities: Vec<Severity> = parsed.problems().iter().map(|p| p.severity()).collect();
        assert_eq!(
            severities,
            [
                Severity::Warning,
                Severity::Error,
                Severity::Error,
                Severity::Error,
                Severity::Error
            ]
        );
    }

    #[test]
    fn whole_index_errors() {
        assert!(matches!(
            parse(&base(), b"<html>"),
            Err(IndexError::NotJson(_))
        ));
        assert!(matches!(
            parse(&base(), b"[]"),
            Err(IndexError::NotAnObject)
        ));
        let no_skills = format!(r#"{{"$schema":"{SCHEMA_URI}"}}"#);
        assert!(matches!(
            parse(&base(), no_skills.as_bytes()),
            Err(IndexError::NoSkills)
        ));
        assert!(parse(&base(), index("").as_bytes()).unwrap().empty);
    }

    /// Found by the property `near_valid_indexes_yield_only_sound_entries`: URL parsing reads
    /// `%2e%2e` as `..`, so these paths led outside the skill's folder.
    #[test]
    fn a_legacy_file_encoded_to_climb_out_is_refused() {
        for path in ["%2E%2E/%2e%2e/x", ".%2e/x", "%2e./x", "a/%2e%2e/%2e%2e/x"] {
            let body = format!(
                r#"{{"skills":[{{"name":"a","description":"d","files":["SKILL.md","{path}"]}}]}}"#
            );
            let parsed = parse(&base(), body.as_bytes()).unwrap();
            assert_eq!(parsed.legacy_entries(), [], "{path}");
            assert!(
                matches!(&parsed.problems()[0].error, EntryError::FileOutside { path: listed, .. } if listed == path),
                "{path}: {:?}",
                parsed.problems()
            );
        }
        let inside =
            r#"{"skills":[{"name":"a","description":"d","files":["SKILL.md","b/%2e%2e/c.md"]}]}"#;
        let parsed = parse(&base(), inside.as_bytes()).unwrap();
        assert_eq!(
            parsed.legacy_entries()[0].files[1].1.as_str(),
            "https://example.com/.well-known/agent-skills/a/c.md"
        );
    }
}
