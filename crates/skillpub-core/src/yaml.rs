//! The one place where YAML is parsed, with every option pinned.
//!
//! serde-saphyr's defaults follow YAML 1.1 (`yes` becomes `true`) and merge `<<` keys.
//! Frontmatter is read with YAML 1.2 booleans instead (only `true` and `false`), and with one
//! deliberate departure from the 1.2 core schema: numbers written with leading zeros or
//! underscores (`0777`, `1_000`) and `.inf`/`.nan` stay text, as the author wrote them. Keys
//! must be text. Budgets are tight, because a `SKILL.md` may come from anywhere.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Deepest nesting accepted in frontmatter; `metadata` needs two levels.
pub const MAX_DEPTH: usize = 16;

/// Most YAML nodes accepted in one frontmatter block.
pub const MAX_NODES: usize = 10_000;

/// Most scalar bytes accepted in one frontmatter block.
pub const MAX_SCALAR_BYTES: usize = 1 << 20;

/// Why a frontmatter block is not accepted, with its position in the block (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlError {
    pub(crate) line: u64,
    pub(crate) column: u64,
    pub(crate) message: String,
}

/// Parses one YAML document into a JSON value, keeping the keys in source order.
///
/// Duplicate keys, keys that are not text, unknown tags, anchors, aliases and a second
/// document are errors; `<<` is an ordinary key.
pub(crate) fn to_json(yaml: &str) -> Result<Value, YamlError> {
    let options = serde_saphyr::options! {
        with_snippet: false,
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
        reject_unsupported_tags: true,
        merge_keys: serde_saphyr::MergeKeyPolicy::AsOrdinary,
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::AsString,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        budget: serde_saphyr::budget! {
            max_depth: MAX_DEPTH,
            max_nodes: MAX_NODES,
            max_documents: 1,
            max_anchors: 0,
            max_aliases: 0,
            max_total_scalar_bytes: MAX_SCALAR_BYTES,
        },
    };
    if yaml.trim().is_empty() {
        // An empty document is `null`; say so instead of letting a parser decide.
        return Ok(Value::Null);
    }
    match serde_saphyr::from_str_with_options::<TextKeys>(yaml, options) {
        Ok(TextKeys(value)) => Ok(value),
        Err(error) => Err(explain(&error)),
    }
}

/// Turns a parser error into one line that says what to change.
fn explain(error: &serde_saphyr::Error) -> YamlError {
    let (line, column) = error.location().map_or((0, 0), |l| (l.line(), l.column()));
    let text = error.without_snippet().to_string();
    let text = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => text.as_str(),
    };
    let message = if let Some(key) = text.strip_prefix("duplicate mapping key: ") {
        let key = key.split(", set DuplicateKeyPolicy").next().unwrap_or(key);
        format!("the key `{key}` appears twice; keep one")
    } else if text.starts_with("budget breached: Depth") {
        format!("the nesting is deeper than {MAX_DEPTH} levels; frontmatter needs two at most")
    } else if text.starts_with("budget breached: Anchors")
        || text.starts_with("budget breached: Aliases")
    {
        "anchors (`&name`) and aliases (`*name`) are not allowed; write the value out".to_owned()
    } else if text.starts_with("budget breached") {
        format!(
            "the frontmatter is too large (at most {MAX_NODES} values and {MAX_SCALAR_BYTES} bytes of text); shorten it"
        )
    } else if text.contains(KEY_NOT_TEXT) {
        text.to_owned()
    } else if text.contains("tag") {
        format!("{text}; remove the `!tag`, frontmatter values are plain text")
    } else {
        format!(
            "{text}; quote values that contain `: ` or ` #`, or that start with `*`, `&`, `!`, `[`, `{{`, `>` or `|` unintentionally"
        )
    };
    YamlError {
        line,
        column,
        message,
    }
}

const KEY_NOT_TEXT: &str = "is not text";

/// A JSON value whose mapping keys were all written as text in the YAML.
///
/// Reading straight into `serde_json::Value` would turn the keys `1` and `"1"` into one
/// key, silently dropping a value, and accept `true:` or `~:` as text.
struct TextKeys(Value);

impl<'de> de::Deserialize<'de> for TextKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor).map(TextKeys)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(TextKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key_seed(KeyVisitor)? {
            let TextKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Accepts a mapping key only when it is text.
struct KeyVisitor;

impl<'de> de::DeserializeSeed<'de> for KeyVisitor {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl KeyVisitor {
    fn refuse<E: de::Error>(key: impl fmt::Display, kind: &str) -> E {
        E::custom(format_args!(
            "the key `{key}` {KEY_NOT_TEXT} but {kind}; write keys as text, in quotes if needed (\"{key}\":)"
        ))
    }
}

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a text key")
    }

    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Err(Self::refuse(v, "a boolean"))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Err(Self::refuse(v, "a number"))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Err(Self::refuse(v, "a number"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Err(Self::refuse(v, "a number"))
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Err(Self::refuse("~", "empty"))
    }

    fn visit_none<E: de::Error>(self) -> Result<String, E> {
        Err(Self::refuse("~", "empty"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn to_map(yaml: &str) -> Map<String, Value> {
        match to_json(yaml).unwrap() {
            Value::Object(map) => map,
            other => panic!("not a mapping: {other:?}"),
        }
    }

    macro_rules! parses {
        ($name:ident, $yaml:expr, $json:tt) => {
            #[test]
            fn $name() {
                assert_eq!(Value::Object(to_map($yaml)), json!($json));
            }
        };
    }

    macro_rules! refuses {
        ($name:ident, $yaml:expr, $line:expr, $needle:expr) => {
            #[test]
            fn $name() {
                let error = to_json($yaml).unwrap_err();
                assert!(error.message.contains($needle), "{error:?}");
                assert_eq!(error.line, $line, "{error:?}");
                assert!(!error.message.contains('\n'), "one line: {error:?}");
            }
        };
    }

    parses!(yes_and_on_stay_strings, "a: yes\nb: on\nc: no\nd: off\ne: y", {"a": "yes", "b": "on", "c": "no", "d": "off", "e": "y"});
    parses!(core_schema_booleans_are_booleans, "a: true\nb: False", {"a": true, "b": false});
    parses!(leading_zeros_stay_strings, "mode: 0777\nid: 007", {"mode": "0777", "id": "007"});
    parses!(underscored_numbers_stay_strings, "n: 1_000", {"n": "1_000"});
    parses!(infinity_stays_text, "n: .inf", {"n": ".inf"});
    parses!(plain_numbers_are_numbers, "a: 12\nb: 1.5", {"a": 12, "b": 1.5});
    parses!(merge_key_is_an_ordinary_key, "<<: x", {"<<": "x"});
    parses!(keys_keep_source_order, "z: 1\na: 2\nm: 3", {"z": 1, "a": 2, "m": 3});
    parses!(folded_description, "d: >\n  one\n  two\n", {"d": "one two\n"});
    parses!(literal_description, "d: |-\n  one\n  two\n", {"d": "one\ntwo"});
    parses!(quoted_values, "a: \"x: y\"\nb: 'it''s'", {"a": "x: y", "b": "it's"});
    parses!(quoted_number_keys_are_text, "\"1\": a\n'true': b", {"1": "a", "true": "b"});
    parses!(nested_map, "metadata:\n  author: acme\n  version: \"1.0\"", {"metadata": {"author": "acme", "version": "1.0"}});
    parses!(lists, "a:\n  - x\n  - 1", {"a": ["x", 1]});

    refuses!(
        duplicate_keys,
        "name: a\nname: b",
        2,
        "the key `name` appears twice"
    );
    refuses!(
        number_and_text_key_are_not_merged,
        "metadata:\n  1: x\n  \"1\": y",
        2,
        "the key `1` is not text but a number"
    );
    refuses!(
        boolean_key,
        "metadata:\n  true: x",
        2,
        "the key `true` is not text but a boolean"
    );
    refuses!(null_key, "~: x", 1, "is not text but empty");
    refuses!(anchors, "a: &x 1\nb: *x", 1, "anchors (`&name`)");
    refuses!(unknown_tags, "a: !custom x", 1, "remove the `!tag`");
    refuses!(
        deep_block_nesting,
        &"- ".repeat(200),
        1,
        "deeper than 16 levels"
    );
    refuses!(
        deep_flow_nesting,
        &format!("a: {}{}", "[".repeat(100), "]".repeat(100)),
        1,
        "deeper than 16 levels"
    );
    refuses!(
        unquoted_colon_in_value,
        "name: a\ndescription: Use this: now",
        2,
        "quote values"
    );
    refuses!(unclosed_flow, "x: [1, 2", 1, "quote values");

    #[test]
    fn two_documents_are_refused() {
        assert!(to_json("a: 1\n---\nb: 2").is_err());
    }

    #[test]
    fn billion_laughs_is_refused_at_the_first_anchor() {
        let mut yaml = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for level in 1..10 {
            let previous = level - 1;
            yaml.push_str(&format!(
                "a{level}: &a{level} [*a{previous}, *a{previous}, *a{previous}]\n"
            ));
        }
        let error = to_json(&yaml).unwrap_err();
        assert!(error.message.contains("anchors"), "{error:?}");
    }

    #[test]
    fn blank_input_is_null() {
        assert_eq!(to_json("").unwrap(), Value::Null);
        assert_eq!(to_json(" \n\t\n").unwrap(), Value::Null);
    }

    #[test]
    fn a_comment_alone_is_not_a_mapping() {
        assert!(!matches!(
            to_json("# only a comment\n"),
            Ok(Value::Object(_))
        ));
    }
}
