//! The rules of the Agent Skills specification and the discovery draft, applied to frontmatter.
//!
//! Every rule reports its own problem and checking goes on, so an author sees every problem at
//! once. The values of the rules (limits, allowed fields) and the name rule are in
//! [`spec`](crate::spec), which clients share.

use serde_json::{Map, Value};

use crate::error::ErrorKind;
use crate::frontmatter::Frontmatter;
use crate::spec::limits::{ALLOWED_FIELDS, MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH};
use crate::spec::name::{check_control, validate_name};

const STRING_HINT: &str = "write it as text, in quotes if it could be read as a number or boolean";

/// A field name (`None` for the frontmatter as a whole) and what is wrong with it.
pub(crate) type Problem = (Option<String>, ErrorKind);

/// Every top-level field that the specification does not define.
pub(crate) fn unknown_fields(json: &Map<String, Value>) -> Vec<Problem> {
    json.keys()
        .filter(|key| !ALLOWED_FIELDS.contains(&key.as_str()))
        .map(|key| (Some(key.clone()), ErrorKind::UnknownField))
        .collect()
}

/// Reads and checks every field the specification defines. `folder` is the skill's folder
/// name when it is known.
pub(crate) fn frontmatter(
    json: Map<String, Value>,
    folder: Option<&str>,
) -> Result<Frontmatter, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut report = |field: &str, kind| problems.push((Some(field.to_owned()), kind));

    let name = required_string(&json, "name", ErrorKind::NameEmpty, &mut report);
    if let Some(name) = name {
        for kind in validate_name(name) {
            report("name", kind);
        }
        if let Some(folder) = folder
            && !name.is_empty()
            && name != folder
        {
            report(
                "name",
                ErrorKind::NameFolderMismatch {
                    name: name.to_owned(),
                    folder: folder.to_owned(),
                },
            );
        }
    }

    let description = required_string(
        &json,
        "description",
        ErrorKind::DescriptionEmpty,
        &mut report,
    );
    if let Some(description) = description {
        let rule = TextRule {
            limit: MAX_DESCRIPTION_LENGTH,
            empty: ErrorKind::DescriptionEmpty,
            too_long: |length| ErrorKind::DescriptionTooLong { length },
        };
        rule.check(description, |kind| report("description", kind));
    }

    let compatibility = optional_string(&json, "compatibility", &mut report);
    if let Some(compatibility) = compatibility {
        let rule = TextRule {
            limit: MAX_COMPATIBILITY_LENGTH,
            empty: ErrorKind::CompatibilityEmpty,
            too_long: |length| ErrorKind::CompatibilityTooLong { length },
        };
        rule.check(compatibility, |kind| report("compatibility", kind));
    }
    let license = optional_string(&json, "license", &mut report);
    let allowed_tools = optional_string(&json, "allowed-tools", &mut report);
    check_metadata(json.get("metadata"), &mut report);

    match (name, description) {
        (Some(name), Some(description)) if problems.is_empty() => Ok(Frontmatter {
            name: name.to_owned(),
            description: description.to_owned(),
            license: license.map(str::to_owned),
            compatibility: compatibility.map(str::to_owned),
            allowed_tools: allowed_tools.map(str::to_owned),
            json,
        }),
        _ => Err(problems),
    }
}

/// A field that must be text; `empty` is its problem when it is written without a value.
fn required_string<'a>(
    json: &'a Map<String, Value>,
    field: &'static str,
    empty: ErrorKind,
    report: &mut impl FnMut(&str, ErrorKind),
) -> Option<&'a str> {
    match json.get(field) {
        None => {
            report(field, ErrorKind::MissingField { field });
            None
        }
        Some(Value::Null) => {
            report(field, empty);
            None
        }
        Some(_) => optional_string(json, field, report),
    }
}

fn optional_string<'a>(
    json: &'a Map<String, Value>,
    field: &str,
    report: &mut impl FnMut(&str, ErrorKind),
) -> Option<&'a str> {
    match json.get(field)? {
        Value::String(text) => Some(text),
        other => {
            report(field, wrong_type("a string", other, STRING_HINT));
            None
        }
    }
}

/// The rules of a text field: not blank, no control characters, at most `limit` characters.
struct TextRule {
    limit: usize,
    empty: ErrorKind,
    too_long: fn(usize) -> ErrorKind,
}

impl TextRule {
    fn check(self, text: &str, mut report: impl FnMut(ErrorKind)) {
        if text.trim().is_empty() {
            report(self.empty);
        }
        if let Some(kind) = check_control(text) {
            report(kind);
        }
        let length = text.chars().count();
        if length > self.limit {
            report((self.too_long)(length));
        }
    }
}

fn check_metadata(metadata: Option<&Value>, report: &mut impl FnMut(&str, ErrorKind)) {
    match metadata {
        None => {}
        Some(Value::Object(map)) => {
            for (key, value) in map {
                if !value.is_string() {
                    report(
                        &format!("metadata.{key}"),
                        wrong_type("a string", value, STRING_HINT),
                    );
                }
            }
        }
        Some(other) => report(
            "metadata",
            wrong_type(
                "a mapping of text keys to text values",
                other,
                "indent `key: value` lines under `metadata:`",
            ),
        ),
    }
}

fn wrong_type(expected: &'static str, found: &Value, hint: &'static str) -> ErrorKind {
    ErrorKind::WrongType {
        expected,
        found: describe(found),
        hint,
    }
}

/// Names the kind of a YAML value the way an author would.
pub(crate) fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}
