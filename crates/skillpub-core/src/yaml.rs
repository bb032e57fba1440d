//! The one place where YAML is parsed, with every option pinned.
//!
//! serde-saphyr's defaults follow YAML 1.1 (`yes` becomes `true`, `0777` a number) and merge
//! `<<` keys. Frontmatter is read under the YAML 1.2 core schema instead, so that what an author
//! wrote as text stays text, and with tight budgets, because a `SKILL.md` may come from anywhere.

use serde_json::Value;

/// Deepest nesting accepted in frontmatter; `metadata` needs two levels.
pub const MAX_DEPTH: usize = 16;

/// Most YAML nodes accepted in one frontmatter block.
pub const MAX_NODES: usize = 10_000;

/// Most scalar bytes accepted in one frontmatter block.
pub const MAX_SCALAR_BYTES: usize = 1 << 20;

/// Parses one YAML document into a JSON value, keeping the keys in source order.
///
/// The options are the YAML 1.2 core schema (`yes`, `on`, `0777` and `1_000` stay strings;
/// `.inf` becomes the string `".inf"`), duplicate keys and unknown tags are errors, `<<` is an
/// ordinary key, and anchors and aliases are refused outright (frontmatter never needs them,
/// and refusing them rules out alias bombs). The error is serde-saphyr's message, which
/// carries the line and column.
pub(crate) fn to_json(yaml: &str) -> Result<Value, String> {
    let options = serde_saphyr::options! {
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
    serde_saphyr::from_str_with_options::<Value>(yaml, options).map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

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
        ($name:ident, $yaml:expr, $needle:expr) => {
            #[test]
            fn $name() {
                let error = to_json($yaml).unwrap_err();
                assert!(error.contains($needle), "{error}");
            }
        };
    }

    parses!(yes_and_on_stay_strings, "a: yes\nb: on\nc: no\nd: off\ne: y", {"a": "yes", "b": "on", "c": "no", "d": "off", "e": "y"});
    parses!(core_schema_booleans_are_booleans, "a: true\nb: False", {"a": true, "b": false});
    parses!(leading_zeros_stay_strings, "mode: 0777\nid: 007", {"mode": "0777", "id": "007"});
    parses!(underscored_numbers_stay_strings, "n: 1_000", {"n": "1_000"});
    parses!(infinity_stays_text, "n: .inf", {"n": ".inf"});
    parses!(merge_key_is_an_ordinary_key, "<<: x", {"<<": "x"});
    parses!(keys_keep_source_order, "z: 1\na: 2\nm: 3", {"z": 1, "a": 2, "m": 3});
    parses!(folded_description, "d: >\n  one\n  two\n", {"d": "one two\n"});
    parses!(literal_description, "d: |-\n  one\n  two\n", {"d": "one\ntwo"});
    parses!(quoted_values, "a: \"x: y\"\nb: 'it''s'", {"a": "x: y", "b": "it's"});
    parses!(nested_map, "metadata:\n  author: acme\n  version: \"1.0\"", {"metadata": {"author": "acme", "version": "1.0"}});

    refuses!(duplicate_keys, "name: a\nname: b", "name");
    refuses!(anchors, "a: &x 1\nb: *x", "");
    refuses!(unknown_tags, "a: !custom x", "");
    refuses!(two_documents, "a: 1\n---\nb: 2", "");
    refuses!(deep_nesting, &"- ".repeat(200), "");
    refuses!(flow_bomb, &"[".repeat(100_000), "");
    refuses!(unquoted_colon_in_value, "description: Use this: now", "");

    #[test]
    fn billion_laughs_is_refused_quickly() {
        let mut yaml = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for level in 1..10 {
            let previous = level - 1;
            yaml.push_str(&format!(
                "a{level}: &a{level} [*a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}]\n"
            ));
        }
        assert!(to_json(&yaml).is_err());
    }

    #[test]
    fn blank_input_is_null() {
        assert_eq!(
            to_json("  \n# only a comment\n").unwrap_or(Value::Null),
            Value::Null
        );
        assert_eq!(to_json("").unwrap(), Value::Null);
    }
}
