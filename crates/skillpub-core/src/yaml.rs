//! The one place where YAML is parsed, with every option pinned.
//!
//! serde-saphyr's defaults follow YAML 1.1 (`yes` becomes `true`) and merge `<<` keys.
//! Frontmatter is read with YAML 1.2 booleans instead (only `true` and `false`), and every
//! value is kept as the author wrote it or refused, never silently changed:
//!
//! - text (plain, quoted or block) is the text YAML reads, after its escapes and line folding;
//! - a plain scalar that YAML reads as a number stays a number only when JSON writes it back
//!   with the same characters (`12`, `-3`, `1.5`); any other spelling stays text exactly as
//!   written (`0777`, `1_000`, `+1`, `0x1F`, `1e3`, `1.50`, `.inf`, `.NaN`, `1e999`), since a
//!   number that cannot be written back the same way would change on its way to a client;
//! - `true`/`false` (also `True`, `FALSE`) are booleans; `~`, `null` or nothing are empty;
//! - the tag `!!str` (and `!`) is accepted, as a way to say "text"; every other tag is
//!   refused (`!!binary` would decode base64, `!!float 1` would become `1.0`).
//!
//! Keys must be text. Budgets are tight, because a `SKILL.md` may come from anywhere.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::{Location, Spanned, Tagged};

use crate::fence;
use crate::spec::limits::{MAX_YAML_DEPTH, MAX_YAML_NODES, MAX_YAML_SCALAR_BYTES};

/// The tags that mean "text": `!!str`, and the non-specific `!`.
const TEXT_TAGS: [&str; 2] = ["tag:yaml.org,2002:str", "!"];

/// The prefix of the standard tags, written `!!` in YAML.
const STANDARD_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// Why a frontmatter block is not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum YamlError {
    /// The YAML is refused at a position in the block (1-based), with what to change.
    Refused {
        line: u64,
        column: u64,
        message: String,
    },
    /// A line that YAML reads as a document marker (`--- x`, `--- ` with a trailing space,
    /// `...`), so that the block holds a second document: it looks like the closing fence but
    /// is not one.
    DocumentMarker { line: u64, text: String },
}

/// Parses one YAML document into a JSON value, keeping the keys in source order.
///
/// Duplicate keys, keys that are not text, tags other than `!!str`, anchors, aliases and a
/// second document are errors; `<<` is an ordinary key.
pub(crate) fn to_json(yaml: &str) -> Result<Value, YamlError> {
    let options = serde_saphyr::options! {
        with_snippet: false,
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
        reject_unsupported_tags: true,
        merge_keys: serde_saphyr::MergeKeyPolicy::AsOrdinary,
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        budget: serde_saphyr::budget! {
            max_depth: MAX_YAML_DEPTH,
            max_nodes: MAX_YAML_NODES,
            max_documents: 1,
            max_anchors: 0,
            max_aliases: 0,
            max_total_scalar_bytes: MAX_YAML_SCALAR_BYTES,
        },
    };
    if yaml.trim().is_empty() {
        // An empty document is `null`; say so instead of letting a parser decide.
        return Ok(Value::Null);
    }
    match serde_saphyr::from_str_with_options::<Read>(yaml, options) {
        Ok(read) => json(read, yaml),
        Err(error) => Err(explain(&error, yaml)),
    }
}

/// Turns a parser error into one line that says what to change.
fn explain(error: &serde_saphyr::Error, yaml: &str) -> YamlError {
    let (line, column) = error.location().map_or((0, 0), |l| (l.line(), l.column()));
    let text = error.without_snippet().to_string();
    let text = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => text.as_str(),
    };
    let message = if let Some(key) = text.strip_prefix("duplicate mapping key: ") {
        let key = key.split(", set DuplicateKeyPolicy").next().unwrap_or(key);
        format!("the key `{key}` appears twice; keep one")
    } else if text.starts_with("budget breached: Documents") {
        if let Some((line, text)) = fence::document_marker(yaml) {
            return YamlError::DocumentMarker { line, text };
        }
        "a second YAML document starts here; the frontmatter is one document".to_owned()
    } else if text.starts_with("budget breached: Depth") {
        format!("the nesting is deeper than {MAX_YAML_DEPTH} levels; frontmatter needs two at most")
    } else if text.starts_with("budget breached: Anchors")
        || text.starts_with("budget breached: Aliases")
    {
        "anchors (`&name`) and aliases (`*name`) are not allowed; write the value out".to_owned()
    } else if text.starts_with("budget breached") {
        format!(
            "the frontmatter is too large (at most {MAX_YAML_NODES} values and {MAX_YAML_SCALAR_BYTES} bytes of text); shorten it"
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
    YamlError::Refused {
        line,
        column,
        message,
    }
}

const KEY_NOT_TEXT: &str = "is not text";

/// A YAML node as read: its value, its tag, and where it is written.
type Read = Spanned<Tagged<Node>>;

/// A YAML value before it becomes JSON; numbers wait for their source text.
enum Node {
    Null,
    Bool(bool),
    /// `None` when the number has no finite value (`.nan`, `.inf`, `1e999`).
    Number(Option<Number>),
    Text(String),
    List(Vec<Read>),
    Map(Vec<(Spanned<Tagged<Key>>, Read)>),
}

/// A mapping key, accepted only when it is text.
struct Key(String);

/// Turns a node into JSON, refusing tags and keeping numbers as written.
fn json(read: Read, source: &str) -> Result<Value, YamlError> {
    let Tagged(node, tag) = read.value;
    refuse_tag(tag.as_deref(), read.referenced)?;
    Ok(match node {
        Node::Null => Value::Null,
        Node::Bool(value) => Value::Bool(value),
        Node::Number(number) => match (number, written(source, read.referenced)) {
            (Some(number), Some(written)) if number.to_string() == written => Value::Number(number),
            (_, Some(written)) => Value::String(written.to_owned()),
            (_, None) => {
                return Err(YamlError::Refused {
                    line: read.referenced.line(),
                    column: read.referenced.column(),
                    message: "this number cannot be kept as written; put it in quotes".to_owned(),
                });
            }
        },
        Node::Text(text) => Value::String(text),
        Node::List(items) => Value::Array(
            items
                .into_iter()
                .map(|item| json(item, source))
                .collect::<Result<_, _>>()?,
        ),
        Node::Map(entries) => {
            let mut object = Map::new();
            for (key, value) in entries {
                let Tagged(Key(text), tag) = key.value;
                refuse_tag(tag.as_deref(), key.referenced)?;
                object.insert(text, json(value, source)?);
            }
            Value::Object(object)
        }
    })
}

/// The source text of a scalar, as the author typed it. The parser reads from a `&str`, so
/// it knows the byte span of every node.
fn written(source: &str, at: Location) -> Option<&str> {
    let span = at.span();
    let start = usize::try_from(span.byte_offset()?).ok()?;
    let len = usize::try_from(span.byte_len()?).ok()?;
    source.get(start..start.checked_add(len)?)
}

fn refuse_tag(tag: Option<&str>, at: Location) -> Result<(), YamlError> {
    match tag {
        Some(tag) if !TEXT_TAGS.contains(&tag) => {
            let tag = match tag.strip_prefix(STANDARD_TAG_PREFIX) {
                Some(name) => format!("!!{name}"),
                None => tag.to_owned(),
            };
            Err(YamlError::Refused {
                line: at.line(),
                column: at.column(),
                message: format!(
                    "the tag `{tag}` is not accepted: frontmatter values are kept as written, so remove the tag (quote the value to make it text)"
                ),
            })
        }
        _ => Ok(()),
    }
}

impl<'de> de::Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Number(Some(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Number(Some(v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Number(Number::from_f64(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Text(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Text(v))
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key()? {
            entries.push((key, map.next_value()?));
        }
        Ok(Node::Map(entries))
    }
}

/// Accepts a mapping key only when it is text.
///
/// Reading keys as any value would turn the keys `1` and `"1"` into one JSON key, silently
/// dropping a value, and accept `true:` or `~:` as text.
impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KeyVisitor).map(Key)
    }
}

struct KeyVisitor;

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
                let YamlError::Refused { line, message, .. } = &error else {
                    panic!("{error:?}");
                };
                assert!(message.contains($needle), "{error:?}");
                assert_eq!(*line, $line, "{error:?}");
                assert!(!message.contains('\n'), "one line: {error:?}");
            }
        };
    }

    parses!(yes_and_on_stay_strings, "a: yes\nb: on\nc: no\nd: off\ne: y", {"a": "yes", "b": "on", "c": "no", "d": "off", "e": "y"});
    parses!(core_schema_booleans_are_booleans, "a: true\nb: False", {"a": true, "b": false});
    parses!(leading_zeros_stay_strings, "mode: 0777\nid: 007", {"mode": "0777", "id": "007"});
    parses!(underscored_numbers_stay_strings, "n: 1_000", {"n": "1_000"});
    parses!(infinity_stays_text, "n: .inf", {"n": ".inf"});
    // Numbers stay numbers only when JSON writes them back with the same characters.
    parses!(overflowing_number_stays_as_written, "n: 1e999", {"n": "1e999"});
    parses!(not_a_number_stays_as_written, "a: .NaN\nb: .nan\nc: -.Inf", {"a": ".NaN", "b": ".nan", "c": "-.Inf"});
    parses!(exponents_stay_as_written, "a: 1e3\nb: 2.5E-3", {"a": "1e3", "b": "2.5E-3"});
    parses!(trailing_zeros_stay_as_written, "n: 1.50", {"n": "1.50"});
    parses!(signs_and_radixes_stay_as_written, "a: +1\nb: 0x1F\nc: 0o17\nd: -0", {"a": "+1", "b": "0x1F", "c": "0o17", "d": "-0"});
    parses!(integers_beyond_64_bits_stay_as_written, "a: 12345678901234567890123\nb: -9223372036854775809", {"a": "12345678901234567890123", "b": "-9223372036854775809"});
    parses!(numbers_that_round_trip_stay_numbers, "a: 18446744073709551615\nb: -9223372036854775808\nc: 1.0\nd: 0.1\ne: -3", {"a": 18_446_744_073_709_551_615_u64, "b": i64::MIN, "c": 1.0, "d": 0.1, "e": -3});
    parses!(numbers_in_flow_lists_keep_their_text, "a: [1.5, 1e3, 07]", {"a": [1.5, "1e3", "07"]});
    parses!(comments_and_spaces_are_not_part_of_a_number, "a:   1e3   # kilo", {"a": "1e3"});
    parses!(numbers_after_non_ascii_text_keep_their_text, "café: 1e3\nb: [ü, 1e3, \"日本\", 2.50]", {"café": "1e3", "b": ["ü", "1e3", "日本", "2.50"]});
    parses!(null_spellings_are_empty, "a: ~\nb: null\nc:", {"a": null, "b": null, "c": null});
    parses!(str_tag_makes_text, "a: !!str 12\nb: ! 1e3\n!!str 3: c", {"a": "12", "b": "1e3", "3": "c"});
    parses!(escapes_are_decoded_and_left_to_validation, "a: \"x\\0y\\e\"", {"a": "x\u{0}y\u{1b}"});
    parses!(crlf_block_scalars_have_no_carriage_returns, "a: |\r\n  x\r\n  y\r\nb: >\r\n  x\r\n\r\n  y\r\n", {"a": "x\ny\n", "b": "x\ny\n"});
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
        binary_is_not_decoded,
        "name: a\ndescription: !!binary aGVsbG8=",
        2,
        "the tag `!!binary` is not accepted"
    );
    refuses!(
        binary_that_is_not_utf8,
        "a: !!binary /w==",
        1,
        "remove the `!tag`"
    );
    refuses!(int_tag, "a: !!int 12", 1, "the tag `!!int` is not accepted");
    refuses!(
        float_tag_in_a_list,
        "a:\n  - x\n  - !!float 1",
        3,
        "the tag `!!float` is not accepted"
    );
    refuses!(
        map_tag,
        "metadata: !!map {a: b}",
        1,
        "the tag `!!map` is not accepted"
    );
    refuses!(
        tagged_key,
        "!!binary aGk=: x",
        1,
        "the tag `!!binary` is not accepted"
    );
    refuses!(overflowing_key, "1e999: x", 1, "is not text but a number");
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

    macro_rules! second_document {
        ($name:ident, $yaml:expr, $line:expr, $text:expr) => {
            #[test]
            fn $name() {
                assert_eq!(
                    to_json($yaml),
                    Err(YamlError::DocumentMarker {
                        line: $line,
                        text: $text.to_owned()
                    })
                );
            }
        };
    }

    second_document!(
        fence_with_a_trailing_space,
        "name: a\n--- \ndescription: d\n",
        2,
        "--- "
    );
    second_document!(
        fence_with_a_comment,
        "name: a\n--- # end\ndescription: d\n",
        2,
        "--- # end"
    );
    second_document!(
        fence_with_text,
        "name: a\n---\tdescription: d\n",
        2,
        "---\tdescription: d"
    );
    second_document!(
        document_end_then_more,
        "name: a\n...\ndescription: d\n",
        2,
        "..."
    );

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
        assert!(
            matches!(&error, YamlError::Refused { message, .. } if message.contains("anchors")),
            "{error:?}"
        );
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
