//! Properties of what the client reads from a network, over generated input: index bodies
//! (arbitrary bytes, arbitrary JSON, near-valid indexes) and archives (arbitrary bytes, valid
//! archives with bytes changed, and archives built entry by entry with hostile names, links,
//! special files and sizes). Nothing panics, everything accepted is within the limits, and no
//! path or URL accepted leaves the skill's folder.
//!
//! Each property runs a small number of cases so that `cargo test` stays fast; set
//! `PROPTEST_CASES` to run more.

mod invariants;

use std::io::Write;

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Map, Value, json};
use skillpub_client::index::parse;
use skillpub_client::unpack::{UnpackError, detect};
use skillpub_core::{
    Catalog, Skill, SkillFile,
    index::{ArchiveFormat, SCHEMA_URI},
};
use skillpub_testkit::property_config;
use url::Url;

use invariants::{Limits, assert_index_is_sound, assert_unpacked_is_sound, unpack};

fn index_url() -> Url {
    Url::parse("https://example.com/.well-known/agent-skills/index.json").expect("a URL")
}

// Index bodies.

/// Any JSON value, nested a few levels.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("\\PC{0,8}", inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn field<T: Strategy<Value = Value>>(valid: T) -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        8 => valid.prop_map(Some),
        1 => Just(None),
        1 => json_value().prop_map(Some),
    ]
}

fn name() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => "[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}",
        1 => prop::sample::select(vec![
            "", "-a", "a-", "a--b", "A", "pdf/..", "..", "a b", "é", "a\u{0}", "%2e%2e", "a/b",
        ])
        .prop_map(str::to_owned),
        1 => "[a-z-]{60,70}",
    ]
    .prop_map(Value::String)
}

fn description() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => "\\PC{1,40}",
        1 => prop::sample::select(vec!["", " ", "\u{202e}evil", "a\u{1b}[31m"]).prop_map(str::to_owned),
        1 => (1020usize..1030).prop_map(|length| "d".repeat(length)),
    ]
    .prop_map(Value::String)
}

fn url_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z0-9-]{1,8}/SKILL\\.md",
        2 => "[a-z0-9-]{1,8}\\.(tar\\.gz|zip)",
        1 => prop::sample::select(vec![
            "/x/SKILL.md", "https://cdn.example.net/a.md", "//cdn.example.net/a.md", "../a.md",
            "http://127.0.0.1/a.md", "javascript:alert(1)", "file:///etc/passwd",
            "data:text/plain,x", "ftp://example.com/a", "", " ", "%2e%2e/%2e%2e/x", "a b",
            "http://[::1", "https://user:pass@example.com/", "\\\\server\\x", "?q", "#f",
            "https://例え.jp/a", "HTTPS://EXAMPLE.COM/A",
        ])
        .prop_map(str::to_owned),
        1 => "\\PC{0,20}",
    ]
}

fn digest() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => "[0-9a-f]{64}".prop_map(|hex| format!("sha256:{hex}")),
        1 => prop::sample::select(vec![
            "sha256:", "sha256:ABC", "SHA256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha512:00", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ])
        .prop_map(str::to_owned),
        1 => "[0-9A-Fa-f]{63,65}".prop_map(|hex| format!("sha256:{hex}")),
    ]
    .prop_map(Value::String)
}

fn entry() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        4 => prop::sample::select(vec!["skill-md", "archive"]),
        1 => prop::sample::select(vec!["bundle", "", "Archive", "skill_md"]),
    ]
    .prop_map(|kind| Value::String(kind.to_owned()));
    (
        field(name()),
        field(kind),
        field(description()),
        field(url_text().prop_map(Value::String)),
        field(digest()),
        prop::option::of(json_value()),
    )
        .prop_map(|(name, kind, description, url, digest, extra)| {
            let mut fields = Map::new();
            for (key, value) in [
                ("name", name),
                ("type", kind),
                ("description", description),
                ("url", url),
                ("digest", digest),
                ("x-extra", extra),
            ] {
                if let Some(value) = value {
                    fields.insert(key.to_owned(), value);
                }
            }
            Value::Object(fields)
        })
}

/// A `files` member of a 0.1.0 entry: a safe path most of the time, else one that tries to
/// leave the skill's folder in some way.
fn legacy_file() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => "(references|scripts|assets)/[a-z0-9_.-]{1,8}",
        2 => Just("SKILL.md".to_owned()),
        2 => prop::sample::select(vec![
            "..", "../x", "a/../../x", "/etc/passwd", "%2e%2e/x", "%2E%2E/%2e%2e/x", ".%2e/x",
            "%2e./x", "a/%2e%2e/%2e%2e/x", "//evil.example/x", "\\\\x", "a\\..\\..\\x",
            "https://evil.example/x", "C:/x", "?x", "#x", "./SKILL.md", "a/./b", "%2f..%2fx",
            "..;/x", "%252e%252e/x", "\u{2025}/x", "．．/x",
        ])
        .prop_map(str::to_owned),
        1 => "[ -~]{0,12}",
    ]
    .prop_map(Value::String)
}

fn legacy_entry() -> impl Strategy<Value = Value> {
    (
        field(name()),
        field(description()),
        field(prop::collection::vec(legacy_file(), 0..5).prop_map(Value::Array)),
    )
        .prop_map(|(name, description, files)| {
            let mut fields = Map::new();
            for (key, value) in [
                ("name", name),
                ("description", description),
                ("files", files),
            ] {
                if let Some(value) = value {
                    fields.insert(key.to_owned(), value);
                }
            }
            Value::Object(fields)
        })
}

/// A near-valid index body: 0.2.0 or 0.1.0, with entries from the grammars above.
fn near_valid_index() -> impl Strategy<Value = Vec<u8>> {
    let schema = prop_oneof![
        6 => Just(Some(Value::String(SCHEMA_URI.to_owned()))),
        2 => Just(None),
        1 => json_value().prop_map(Some),
    ];
    let entries = prop_oneof![
        4 => prop::collection::vec(entry(), 0..6),
        2 => prop::collection::vec(legacy_entry(), 0..6),
        1 => prop::collection::vec(json_value(), 0..4),
    ];
    let skills = prop_oneof![
        8 => entries.prop_map(Value::Array),
        1 => json_value(),
    ];
    (schema, prop::option::of(skills)).prop_map(|(schema, skills)| {
        let mut top = Map::new();
        if let Some(schema) = schema {
            top.insert("$schema".to_owned(), schema);
        }
        if let Some(skills) = skills {
            top.insert("skills".to_owned(), skills);
        }
        serde_json::to_vec(&Value::Object(top)).expect("JSON")
    })
}

// Archives.

/// Valid skills with supporting files, as a catalog builds them.
fn catalog() -> impl Strategy<Value = Catalog> {
    let file = (
        prop::sample::select(vec!["references", "scripts", "assets", "references/deep"]),
        "[a-zA-Z0-9_~-][a-zA-Z0-9_.~-]{0,12}".prop_filter("a folder", |name| name != "deep"),
        prop::collection::vec(any::<u8>(), 0..300),
        any::<bool>(),
    );
    prop::collection::vec(file, 1..6).prop_map(|files| {
        let mut seen = std::collections::BTreeSet::new();
        let files: Vec<SkillFile> = files
            .into_iter()
            .filter(|(folder, name, _, _)| seen.insert(format!("{folder}/{name}").to_lowercase()))
            .map(|(folder, name, bytes, executable)| {
                SkillFile::new(format!("{folder}/{name}"), bytes, executable)
            })
            .collect();
        let skill = Skill::new(
            None,
            "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n",
        )
        .with_files(files);
        Catalog::new([skill]).expect("a valid skill")
    })
}

/// One archive entry as a hostile builder may write it.
#[derive(Debug, Clone)]
struct RawEntry {
    name: String,
    kind: u8,
    data: Vec<u8>,
    target: String,
    mode: u32,
}

fn hostile_path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        4 => prop::sample::select(vec![
            "SKILL.md", "references", "a.md", "scripts", "run.sh", "link", "p", "q",
        ])
        .prop_map(str::to_owned),
        2 => prop::sample::select(vec![
            "..", ".", "", "C:", "c:x", "a\\b", "..\\..", "\u{0}", "%2e%2e", "skill.md",
            "SKILL.MD", "\u{202e}dm.LLIKS", "con", "a:b",
        ])
        .prop_map(str::to_owned),
        1 => "[a-z]{1,4}",
        1 => (90usize..300).prop_map(|length| "n".repeat(length)),
        // Around Linux's PATH_MAX, 4096 bytes.
        1 => (4000usize..4200).prop_map(|length| "n".repeat(length)),
    ];
    (
        prop::sample::select(vec!["", "", "", "./", "/", "//", "../"]),
        prop::collection::vec(segment, 1..5),
    )
        .prop_map(|(start, segments)| format!("{start}{}", segments.join("/")))
}

fn raw_entry() -> impl Strategy<Value = RawEntry> {
    (
        hostile_path(),
        prop::sample::select(vec![
            b'0', b'0', b'0', b'0', b'5', b'2', b'2', b'1', b'3', b'4', b'6', b'7', b'x', b'g',
            b'L', b'K', b'Z',
        ]),
        prop::collection::vec(any::<u8>(), 0..80),
        hostile_path(),
        prop::sample::select(vec![0o644, 0o755, 0o4755, 0o777, 0, 0o10_644, 0o120_777]),
    )
        .prop_map(|(name, kind, data, target, mode)| RawEntry {
            name,
            kind,
            data,
            target,
            mode,
        })
}

/// The entries of a hostile archive: usually a good `SKILL.md` first, then anything.
fn raw_entries() -> impl Strategy<Value = Vec<RawEntry>> {
    (any::<bool>(), prop::collection::vec(raw_entry(), 0..6)).prop_map(|(skill_md, mut rest)| {
        if skill_md {
            rest.insert(
                0,
                RawEntry {
                    name: "SKILL.md".to_owned(),
                    kind: b'0',
                    data: b"---\nname: a\ndescription: d\n---\n".to_vec(),
                    target: String::new(),
                    mode: 0o644,
                },
            );
        }
        rest
    })
}

/// A tar.gz written header by header, so that no builder check cleans the names: names over
/// 100 bytes go into a GNU long-name entry, as GNU tar writes them.
fn tar_gz(entries: &[RawEntry]) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    for entry in entries {
        if entry.name.len() > 100 {
            let mut long = tar::Header::new_gnu();
            long.set_entry_type(tar::EntryType::GNULongName);
            long.as_gnu_mut().expect("a GNU header").name[..13].copy_from_slice(b"././@LongLink");
            let mut name = entry.name.clone().into_bytes();
            name.push(0);
            long.set_size(name.len() as u64);
            long.set_cksum();
            tar.append(&long, &name[..]).expect("in memory");
        }
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::new(entry.kind));
        let name = entry.name.as_bytes();
        let field = &mut header.as_gnu_mut().expect("a GNU header").name;
        field[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
        let target = entry.target.as_bytes();
        let field = &mut header.as_gnu_mut().expect("a GNU header").linkname;
        field[..target.len().min(100)].copy_from_slice(&target[..target.len().min(100)]);
        header.set_mode(entry.mode);
        header.set_size(entry.data.len() as u64);
        header.set_cksum();
        tar.append(&header, &entry.data[..]).expect("in memory");
    }
    let bytes = tar.into_inner().expect("in memory");
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gzip.write_all(&bytes).expect("in memory");
    gzip.finish().expect("in memory")
}

/// A zip with the same entries: `5` a folder, `2` a symbolic link, other kinds a file whose
/// Unix mode says what it is.
fn zip(entries: &[RawEntry]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for entry in entries {
        let options = zip::write::SimpleFileOptions::default();
        let written = match entry.kind {
            b'5' => zip.add_directory(entry.name.as_str(), options),
            b'2' => zip.add_symlink(entry.name.as_str(), entry.target.as_str(), options),
            _ => zip
                .start_file(entry.name.as_str(), options.unix_permissions(entry.mode))
                .and_then(|()| zip.write_all(&entry.data).map_err(Into::into)),
        };
        // The zip crate refuses some names itself; such an entry is left out.
        if written.is_err() {
            zip.abort_file().ok();
        }
    }
    zip.finish()
        .map(std::io::Cursor::into_inner)
        .unwrap_or_default()
}

/// Changes some bytes of a valid archive: overwrites, insertions, deletions, a cut.
fn mutate(mut bytes: Vec<u8>, changes: &[(usize, u8, u8)]) -> Vec<u8> {
    for &(at, how, value) in changes {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        match how % 4 {
            0 => bytes[at] = value,
            1 => bytes.insert(at, value),
            2 => {
                bytes.remove(at);
            }
            _ => bytes.truncate(at),
        }
    }
    bytes
}

fn limits() -> impl Strategy<Value = Limits> {
    prop_oneof![
        1 => Just(Limits::default()),
        2 => (0u64..4000, 1usize..12).prop_map(|(max_unpacked, max_files)| Limits {
            max_unpacked,
            max_files,
            ..Limits::default()
        }),
    ]
}

fn format() -> impl Strategy<Value = ArchiveFormat> {
    prop_oneof![Just(ArchiveFormat::TarGz), Just(ArchiveFormat::Zip)]
}

proptest! {
    #![proptest_config(property_config(512))]

    #[test]
    fn arbitrary_bytes_never_panic_the_index_parser(body in prop::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(index) = parse(&index_url(), &body) {
            assert_index_is_sound(&index, &body);
        }
    }

    #[test]
    fn arbitrary_json_never_panics_the_index_parser(value in json_value()) {
        let body = serde_json::to_vec(&json!({ "$schema": SCHEMA_URI, "skills": [value.clone()] }))
            .expect("JSON");
        if let Ok(index) = parse(&index_url(), &body) {
            assert_index_is_sound(&index, &body);
        }
        let body = serde_json::to_vec(&value).expect("JSON");
        if let Ok(index) = parse(&index_url(), &body) {
            assert_index_is_sound(&index, &body);
        }
    }

    #[test]
    fn near_valid_indexes_yield_only_sound_entries(body in near_valid_index()) {
        if let Ok(index) = parse(&index_url(), &body) {
            assert_index_is_sound(&index, &body);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_unpacker(
        format in format(),
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        limits in limits(),
    ) {
        if let Ok(unpacked) = unpack(format, &bytes, &limits) {
            assert_unpacked_is_sound(&unpacked, &limits);
        }
    }

    #[test]
    fn the_format_is_detected_from_anything_without_panic(
        media_type in prop::option::of("[ -~]{0,30}"),
        path in "\\PC{0,30}",
        bytes in prop::collection::vec(any::<u8>(), 0..8),
    ) {
        let format = detect(media_type.as_deref(), &path, &bytes);
        if let Some("application/zip") = media_type.as_deref() {
            assert_eq!(format, Some(ArchiveFormat::Zip));
        }
    }

    #[test]
    fn the_archives_a_catalog_builds_unpack_to_its_files(catalog in catalog()) {
        let skill = &catalog.skills()[0];
        for format in [ArchiveFormat::TarGz, ArchiveFormat::Zip] {
            let archive = skill.archive(format).expect("a multi-file skill has archives");
            let unpacked = unpack(format, archive.bytes(), &Limits::default())
                .unwrap_or_else(|error| panic!("{format:?}: {error}"));
            assert_unpacked_is_sound(&unpacked, &Limits::default());
            assert!(unpacked.notes.is_empty(), "{:?}", unpacked.notes);
            let mut files: Vec<(&str, &[u8], bool)> = unpacked
                .files
                .iter()
                .map(|file| (file.path.as_str(), &file.bytes[..], file.executable))
                .collect();
            files.sort();
            let mut expected: Vec<(&str, &[u8], bool)> = skill
                .all_files()
                .map(|file| {
                    (file.relative_path(), &file.artifact().bytes()[..], file.mode() & 0o111 != 0)
                })
                .collect();
            expected.sort();
            assert_eq!(files, expected, "{format:?}");
        }
    }

    #[test]
    fn changed_bytes_of_a_valid_archive_never_escape_the_limits(
        catalog in catalog(),
        zip in any::<bool>(),
        changes in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
        limits in limits(),
    ) {
        let format = if zip { ArchiveFormat::Zip } else { ArchiveFormat::TarGz };
        let archive = catalog.skills()[0].archive(format).expect("an archive");
        let bytes = mutate(archive.bytes().to_vec(), &changes);
        if let Ok(unpacked) = unpack(format, &bytes, &limits) {
            assert_unpacked_is_sound(&unpacked, &limits);
        }
    }

    #[test]
    fn hostile_archives_never_yield_a_path_outside_the_folder(
        entries in raw_entries(),
        limits in limits(),
    ) {
        for (format, bytes) in [(ArchiveFormat::TarGz, tar_gz(&entries)), (ArchiveFormat::Zip, zip(&entries))] {
            if let Ok(unpacked) = unpack(format, &bytes, &limits) {
                assert_unpacked_is_sound(&unpacked, &limits);
            }
        }
    }
}

proptest! {
    // Compressing megabytes is slow in a debug build: a few cases, whatever PROPTEST_CASES says.
    #![proptest_config(Config { cases: 8, failure_persistence: None, ..Config::default() })]

    #[test]
    fn a_decompression_bomb_stops_at_the_limit(
        zip in any::<bool>(),
        size in (1usize << 20)..(4 << 20),
        limit in 1u64..(1 << 20),
    ) {
        let entries = [
            RawEntry {
                name: "SKILL.md".to_owned(),
                kind: b'0',
                data: b"---\nname: a\ndescription: d\n---\n".to_vec(),
                target: String::new(),
                mode: 0o644,
            },
            RawEntry {
                name: "references/zeros".to_owned(),
                kind: b'0',
                data: vec![0; size],
                target: String::new(),
                mode: 0o644,
            },
        ];
        let (format, bytes) = if zip {
            (ArchiveFormat::Zip, self::zip(&entries))
        } else {
            (ArchiveFormat::TarGz, tar_gz(&entries))
        };
        let limits = Limits { max_unpacked: limit, max_files: 10, ..Limits::default() };
        assert!(
            matches!(unpack(format, &bytes, &limits), Err(UnpackError::TooLarge(_))),
            "{size} bytes unpacked under a limit of {limit}"
        );
    }
}
