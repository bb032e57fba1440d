//! Properties of parsing and validating a `SKILL.md`, over generated input: arbitrary bytes,
//! near-valid files from a grammar of fences, keys and YAML scalars of every style, and valid
//! skills whose values must come back exactly as written.
//!
//! Each property runs a small number of cases so that `cargo test` stays fast; set
//! `PROPTEST_CASES` to run more (`PROPTEST_CASES=5000 cargo test -p skillpub-core --test
//! properties`).

mod invariants;

use proptest::prelude::*;
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use skillpub_core::{
    CatalogBuilder, Skill, SkillFile,
    index::ArchiveFormat,
    paths::{INDEX_PATH, TAR_GZ_SUFFIX, WELL_KNOWN_PATH},
};
use skillpub_testkit::property_config;

use invariants::{assert_outcome, assert_served_as_given, build};

// The grammar of near-valid `SKILL.md` files.

fn folder() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just("pdf".to_owned()),
        1 => "[a-z0-9-]{1,8}",
        1 => "[A-Za-z_. é-]{1,6}",
    ]
}

fn opening() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        24 => Just("---\n"),
        2 => Just("---\r\n"),
        1 => Just("\u{feff}---\n"),
        1 => Just("--- \n"),
        1 => Just("----\n"),
        1 => Just("...\n"),
        1 => Just("\n---\n"),
        1 => Just("# Title\n---\n"),
        1 => Just(""),
    ]
}

fn closing() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        24 => Just("---\n"),
        1 => Just("---"),
        1 => Just("---\r\n"),
        1 => Just("--- \n"),
        1 => Just("--- x\n"),
        1 => Just("...\n"),
        1 => Just(""),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "name", "description", "license", "compatibility", "allowed-tools", "metadata",
        ])
        .prop_map(str::to_owned),
        1 => prop::sample::select(vec![
            "x-owner", "Name", "<<", "\"name\"", "'description'", "? name", "[a, b]", "{a: b}",
            "1", "true", "~", "&a name", "*a", "!!str name", "!!int 1", "", "-", "- name",
            "name ", " name",
        ])
        .prop_map(str::to_owned),
        1 => "[a-z-]{1,12}",
    ]
}

/// A double-quoted scalar's pieces: plain characters and every kind of escape, valid or not.
fn double_quoted() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-zA-Z0-9 .,é漢]{1,6}",
        1 => prop::sample::select(vec![
            "\\\\", "\\\"", "\\n", "\\t", "\\0", "\\e", "\\a", "\\b", "\\v", "\\f", "\\r",
            "\\x41", "\\x7f", "\\x9b", "\\u00e9", "\\u202e", "\\u200b", "\\uD800", "\\U0001F600",
            "\\U00110000", "\\N", "\\_", "\\L", "\\P", "\\ ", "\\/", "\\q", "\\x", "\\u12",
            "\\", "\u{7}", "\u{1b}[31m", "\u{85}",
        ])
        .prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..6).prop_map(|pieces| format!("\"{}\"", pieces.concat()))
}

fn block_scalar() -> impl Strategy<Value = String> {
    let header = prop::sample::select(vec![
        "|", ">", "|-", "|+", ">-", ">+", "|2", ">1", "|9", "|0",
    ]);
    let line = prop_oneof![
        4 => "[a-zA-Z0-9 .,:#-]{0,12}",
        1 => Just("---".to_owned()),
        1 => Just("\t".to_owned()),
        1 => Just(" extra".to_owned()),
    ];
    (header, prop::collection::vec(line, 0..4)).prop_map(|(header, lines)| {
        let mut text = header.to_owned();
        for line in lines {
            text.push_str("\n  ");
            text.push_str(&line);
        }
        text
    })
}

/// A scalar in any style, or a collection, or something that only looks like one.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[A-Za-z][A-Za-z0-9 ,.()-]{0,24}",
        2 => "[^'\n\r]{0,12}".prop_map(|text| format!("'{}'", text.replace('\'', "''"))),
        2 => double_quoted(),
        2 => block_scalar(),
        2 => numeric_spelling(),
        1 => prop::sample::select(vec![
            "", "true", "false", "True", "FALSE", "yes", "on", "~", "null", "Null",
            "!!str 12", "! 12", "!!binary aGVsbG8=", "!!int 1", "!!float 1", "!custom x",
            "!<tag:yaml.org,2002:str> x", "!!map {}", "!!null ''", "&a x", "*a", "&a [1, 2]",
            "[a, b]", "{a: 1}", "{a: [b, {c: d}]}", "[", "{", "]", "'", "\"", "|", ">", "@x",
            "`x`", "%YAML 1.2", "a: b", "a #b", "#c", "- a", "? a", "\u{202e}txet", "a\u{200b}b",
            "a\u{7}b", "\u{1b}[31mred", "a\u{0}b", "\u{feff}x",
        ])
        .prop_map(str::to_owned),
        1 => (1usize..200).prop_map(|depth| format!("{}{}", "[".repeat(depth), "]".repeat(depth))),
        1 => (1usize..3000).prop_map(|count| format!("[{}]", vec!["1"; count].join(", "))),
        1 => (1usize..5000).prop_map(|length| "x".repeat(length)),
    ]
}

/// A plain scalar that YAML may read as a number, an infinity or not-a-number.
fn numeric_spelling() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[+-]?(0|[1-9][0-9_]{0,5}|0[0-7_]{1,4}|0x[0-9a-fA-F_]{1,4}|0o[0-7]{1,3}|0b[01]{1,4})(\\.[0-9]{0,4})?([eE][+-]?[0-9]{1,4})?",
        1 => "[+-]?\\.[0-9]{1,3}",
        1 => prop::sample::select(vec![
            ".inf", "-.inf", "+.INF", ".Inf", ".NaN", ".nan", ".NAN", "1e999", "-1e999",
            "18446744073709551616", "-9223372036854775809", "9223372036854775807", "-0", "0.0",
            "-0.0", "1.", ".5", "1__0", "0x", "0o8", "1e", "1e+",
        ])
        .prop_map(str::to_owned),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (key(), value()).prop_map(|(key, value)| format!("{key}: {value}")),
        2 => prop::collection::vec(("[a-z]{1,6}", value()), 0..4).prop_map(|entries| {
            let mut text = "metadata:".to_owned();
            for (key, value) in entries {
                text.push_str(&format!("\n  {key}: {value}"));
            }
            text
        }),
        1 => value().prop_map(|value| format!("  - {value}")),
        1 => prop::sample::select(vec![
            "", "# comment", "---", "--- x", "--- ", "...", "  ", "\t", "%TAG ! tag:x,2000:",
            "name:", "name:x", ":", "- a", "? a", "  indented: x",
        ])
        .prop_map(str::to_owned),
        1 => "[^\n]{0,20}",
    ]
}

/// A near-valid `SKILL.md`: a valid `name` and `description` most of the time, a few lines
/// from the grammar, all shuffled, between an opening and a closing line that are usually
/// right, then a body; CRLF line endings now and then.
fn near_valid_skill_md() -> impl Strategy<Value = String> {
    let name = prop_oneof![3 => Just("name: pdf".to_owned()), 1 => line()];
    let description = prop_oneof![
        3 => written_text().prop_map(|text| format!("description: {}", text.source)),
        1 => line(),
    ];
    let lines = (name, description, prop::collection::vec(line(), 0..4))
        .prop_map(|(name, description, mut lines)| {
            lines.extend([name, description]);
            lines
        })
        .prop_shuffle();
    (lines, opening(), closing(), "[^\u{0}]{0,40}", any::<bool>()).prop_map(
        |(lines, opening, closing, body, crlf)| {
            let mut text = opening.to_owned();
            for line in lines {
                text.push_str(&line);
                text.push('\n');
            }
            text.push_str(closing);
            text.push_str(&body);
            if crlf {
                text = text.replace('\n', "\r\n").replace("\r\r\n", "\r\n");
            }
            text
        },
    )
}

// The grammar of valid skills, with the values they must read as.

/// A valid skill name, written plain: it starts with a letter, so that YAML reads no number.
fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,9}(-[a-z0-9]{1,10}){0,3}"
        .prop_filter("YAML reads it as no text", |name| !is_reserved(name))
}

/// A text written in one YAML style, and the text it must read as.
#[derive(Debug, Clone)]
struct Written {
    source: String,
    text: String,
}

/// Words that a plain scalar must not consist of alone, since YAML reads them as something
/// other than text.
fn is_reserved(text: &str) -> bool {
    matches!(
        text.to_ascii_lowercase().as_str(),
        "true" | "false" | "null" | "~"
    )
}

/// A valid description or other text field, in every style YAML has for text.
fn written_text() -> impl Strategy<Value = Written> {
    let word = "[A-Za-z][a-z0-9.,()é漢'-]{0,8}";
    let plain = prop::collection::vec(word, 1..6)
        .prop_filter("a plain word YAML reads as no text", |words| {
            !is_reserved(&words.join(" "))
        })
        .prop_map(|words| Written {
            source: words.join(" "),
            text: words.join(" "),
        });
    let plain_on_two_lines = (
        prop::collection::vec(word, 1..3),
        prop::collection::vec(word, 1..3),
    )
        .prop_map(|(first, second)| Written {
            source: format!("{}\n  {}", first.join(" "), second.join(" ")),
            text: format!("{} {}", first.join(" "), second.join(" ")),
        });
    let single_quoted =
        "[A-Za-z0-9'\"\\\\#:é漢][A-Za-z0-9 '\"\\\\#:,é漢]{0,30}".prop_map(|text| Written {
            source: format!("'{}'", text.replace('\'', "''")),
            text,
        });
    let escape = prop::sample::select(vec![
        ("\\\\", "\\"),
        ("\\\"", "\""),
        ("\\t", "\t"),
        ("\\n", "\n"),
        ("\\/", "/"),
        ("\\x41", "A"),
        ("\\u00e9", "é"),
        ("\\U0001F600", "\u{1F600}"),
        ("\\_", "\u{a0}"),
        ("'", "'"),
        ("#", "#"),
    ])
    .prop_map(|(source, text)| (source.to_owned(), text.to_owned()));
    let double_quoted = (
        "[A-Za-z]{1,4}",
        prop::collection::vec(
            prop_oneof![
                2 => "[A-Za-z0-9 ,.é漢]{1,5}".prop_map(|text| (text.clone(), text)),
                1 => escape,
            ],
            0..8,
        ),
    )
        .prop_map(|(start, pieces)| {
            let (sources, texts): (Vec<String>, Vec<String>) = pieces.into_iter().unzip();
            Written {
                source: format!("\"{start}{}\"", sources.concat()),
                text: format!("{start}{}", texts.concat()),
            }
        });
    let lines = prop::collection::vec("[A-Za-z][A-Za-z0-9 ,.:#'\"é漢]{0,20}", 1..4);
    let literal = lines.clone().prop_map(|lines| Written {
        source: format!("|\n  {}", lines.join("\n  ")),
        text: format!("{}\n", lines.join("\n")),
    });
    let literal_stripped = lines.clone().prop_map(|lines| Written {
        source: format!("|-\n  {}", lines.join("\n  ")),
        text: lines.join("\n"),
    });
    let folded = lines.prop_map(|lines| Written {
        source: format!(">\n  {}", lines.join("\n  ")),
        text: format!("{}\n", lines.join(" ")),
    });
    prop_oneof![
        plain,
        plain_on_two_lines,
        single_quoted,
        double_quoted,
        literal,
        literal_stripped,
        folded,
    ]
}

/// A valid skill: its `SKILL.md` text and what its fields must read as.
#[derive(Debug, Clone)]
struct ValidSkill {
    name: String,
    description: String,
    license: Option<String>,
    compatibility: Option<String>,
    metadata: Vec<(String, String)>,
    /// The top-level keys in the order they are written.
    keys: Vec<String>,
    text: String,
}

fn valid_skill() -> impl Strategy<Value = ValidSkill> {
    let key =
        "[a-z][a-z0-9_-]{0,8}".prop_filter("YAML reads it as no text", |key| !is_reserved(key));
    let metadata = prop::collection::btree_map(key, written_text(), 0..4);
    (
        name(),
        written_text(),
        prop::option::of(written_text()),
        prop::option::of(written_text()),
        metadata,
        "[^\u{0}]{0,60}",
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(
            |(name, description, license, compatibility, metadata, body, crlf, bom, order)| {
                let mut fields = vec![
                    ("name".to_owned(), name.clone()),
                    ("description".to_owned(), description.source.clone()),
                ];
                if let Some(license) = &license {
                    fields.push(("license".to_owned(), license.source.clone()));
                }
                if let Some(compatibility) = &compatibility {
                    fields.push(("compatibility".to_owned(), compatibility.source.clone()));
                }
                if !metadata.is_empty() {
                    let entries: Vec<String> = metadata
                        .iter()
                        .map(|(key, value)| {
                            format!("{key}: {}", value.source.replace("\n  ", "\n    "))
                        })
                        .collect();
                    fields.push((
                        "metadata".to_owned(),
                        format!("\n  {}", entries.join("\n  ")),
                    ));
                }
                // A fixed rotation of the fields, so that the source order is not always the
                // same; the order must be kept either way.
                let turn = usize::try_from(order % fields.len() as u64).unwrap_or(0);
                fields.rotate_left(turn);
                let mut text = if bom { "\u{feff}---\n" } else { "---\n" }.to_owned();
                for (key, value) in &fields {
                    text.push_str(&format!("{key}: {value}\n"));
                }
                text.push_str("---\n");
                text.push_str(&body);
                if crlf {
                    text = text.replace('\n', "\r\n").replace("\r\r\n", "\r\n");
                }
                ValidSkill {
                    name,
                    description: description.text,
                    license: license.map(|w| w.text),
                    compatibility: compatibility.map(|w| w.text),
                    metadata: metadata.into_iter().map(|(k, v)| (k, v.text)).collect(),
                    keys: fields.into_iter().map(|(key, _)| key).collect(),
                    text,
                }
            },
        )
}

/// A valid supporting file path and its bytes.
fn supporting_file() -> impl Strategy<Value = (String, Vec<u8>, bool)> {
    (
        prop::sample::select(vec!["references", "scripts", "assets", "references/deep"]),
        // Not `deep`, which would be a file and a folder at once.
        "[a-zA-Z0-9_~-][a-zA-Z0-9_.~-]{0,12}".prop_filter("a folder", |name| name != "deep"),
        prop::collection::vec(any::<u8>(), 0..200),
        any::<bool>(),
    )
        .prop_map(|(folder, file, bytes, executable)| {
            (format!("{folder}/{file}"), bytes, executable)
        })
}

proptest! {
    #![proptest_config(property_config(256))]

    #[test]
    fn arbitrary_bytes_never_panic_and_every_error_is_named(
        folder in folder(),
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        allow in any::<bool>(),
    ) {
        let outcome = build(&folder, bytes.clone(), allow);
        assert_outcome(&outcome, &folder, &bytes);
    }

    #[test]
    fn arbitrary_text_between_fences_never_panics_and_every_error_is_named(
        folder in folder(),
        yaml in "[^\u{0}]{0,300}",
        allow in any::<bool>(),
    ) {
        let bytes = format!("---\n{yaml}\n---\n# Body\n").into_bytes();
        let outcome = build(&folder, bytes.clone(), allow);
        assert_outcome(&outcome, &folder, &bytes);
    }

    #[test]
    fn near_valid_files_never_panic_and_every_error_is_named(
        folder in folder(),
        text in near_valid_skill_md(),
        allow in any::<bool>(),
    ) {
        let outcome = build(&folder, text.clone().into_bytes(), allow);
        assert_outcome(&outcome, &folder, text.as_bytes());
    }

    #[test]
    fn a_valid_skill_round_trips_with_its_values_as_written(skill in valid_skill()) {
        let catalog = build(&skill.name, skill.text.clone().into_bytes(), false)
            .unwrap_or_else(|errors| panic!("{errors}\n{}", skill.text));
        assert_served_as_given(&catalog, skill.text.as_bytes());
        let published = catalog.get(&skill.name).expect("the skill is published");
        let frontmatter = published.frontmatter();
        assert_eq!(frontmatter.name(), skill.name);
        assert_eq!(frontmatter.description(), skill.description);
        assert_eq!(frontmatter.license(), skill.license.as_deref());
        assert_eq!(frontmatter.compatibility(), skill.compatibility.as_deref());
        let metadata: Vec<(String, String)> = frontmatter
            .metadata()
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
            .collect();
        assert_eq!(metadata, skill.metadata);
        let keys: Vec<&str> = frontmatter.json().keys().map(String::as_str).collect();
        assert_eq!(keys, skill.keys);

        let index: Value = serde_json::from_slice(catalog.index().bytes()).unwrap();
        let entry = &index["skills"][0];
        assert_eq!(entry["name"], skill.name.as_str());
        assert_eq!(entry["description"], skill.description.as_str());
        assert_eq!(entry["type"], "skill-md");
        let hex = hex::encode(Sha256::digest(skill.text.as_bytes()));
        assert_eq!(
            entry["url"],
            format!("{WELL_KNOWN_PATH}sha256-{hex}/{}/SKILL.md", skill.name).as_str()
        );
        let digest = format!("sha256:{hex}");
        assert_eq!(entry["digest"], digest.as_str());
        assert_eq!(catalog.index().path(), INDEX_PATH);
    }

    #[test]
    fn a_skill_with_files_lists_the_digest_of_the_archive_it_serves(
        skill in valid_skill(),
        files in prop::collection::vec(supporting_file(), 1..5),
        zip in any::<bool>(),
    ) {
        let mut paths = std::collections::BTreeSet::new();
        let files: Vec<SkillFile> = files
            .into_iter()
            .filter(|(path, _, _)| paths.insert(path.to_ascii_lowercase()))
            .map(|(path, bytes, executable)| SkillFile::new(path, bytes, executable))
            .collect();
        let format = if zip { ArchiveFormat::Zip } else { ArchiveFormat::TarGz };
        let catalog = CatalogBuilder::new()
            .skill(
                Skill::new(Some(format!("skills/{}", skill.name)), skill.text.clone())
                    .with_files(files.clone()),
            )
            .archive_format(format)
            .build()
            .unwrap_or_else(|errors| panic!("{errors}"));
        let published = &catalog.skills()[0];
        let archive = published.archive(format).expect("an archive is built");
        let hex = hex::encode(Sha256::digest(archive.bytes()));
        let hashed = format!("sha256:{hex}");
        let index: Value = serde_json::from_slice(catalog.index().bytes()).unwrap();
        assert_eq!(index["skills"][0]["type"], "archive");
        assert_eq!(index["skills"][0]["digest"], hashed.as_str());
        let suffix = if zip { ".zip" } else { TAR_GZ_SUFFIX };
        assert_eq!(
            index["skills"][0]["url"],
            format!("{WELL_KNOWN_PATH}sha256-{hex}/{}{suffix}", skill.name).as_str()
        );
        for artifact in published.artifacts() {
            let hashed = format!("sha256:{}", hex::encode(Sha256::digest(artifact.bytes())));
            assert_eq!(artifact.digest().to_string(), hashed, "{}", artifact.path());
        }
        for file in &files {
            let served = published
                .files()
                .iter()
                .find(|served| served.relative_path() == file.path())
                .expect("every file is served");
            assert_eq!(served.artifact().bytes(), file.bytes());
        }
    }

    #[test]
    fn number_like_values_are_kept_as_written(
        spelling in numeric_spelling(),
        tagged in any::<bool>(),
    ) {
        let written = if tagged { format!("!!str {spelling}") } else { spelling.clone() };
        let text = format!("---\nname: pdf\ndescription: Reads PDFs.\nx-value: {written}\n---\n");
        let catalog = build("pdf", text.into_bytes(), true)
            .unwrap_or_else(|errors| panic!("{errors}"));
        let value = &catalog.skills()[0].frontmatter().json()["x-value"];
        match value {
            Value::String(text) => assert_eq!(text, &spelling),
            Value::Number(number) if !tagged => assert_eq!(number.to_string(), spelling),
            other => panic!("`{written}` read as {other:?}"),
        }
    }
}

/// The property above, for spellings that once changed on the way: each must stay as written.
#[test]
fn number_spellings_that_once_changed_are_kept() {
    for spelling in [
        "1e999", ".NaN", ".inf", "-0", "0777", "1_000", "+1", "0x1F", "1.50",
    ] {
        let text = format!("---\nname: pdf\ndescription: Reads PDFs.\nx-value: {spelling}\n---\n");
        let catalog = build("pdf", text.into_bytes(), true).unwrap();
        assert_eq!(
            catalog.skills()[0].frontmatter().json()["x-value"],
            Value::String(spelling.to_owned()),
            "{spelling}"
        );
    }
}
