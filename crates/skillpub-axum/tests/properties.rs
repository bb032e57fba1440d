//! Properties of the router over generated requests, through `oneshot`: any method, any path
//! (percent-encodings, `..`, case changes, trailing slashes) and any `If-Match`,
//! `If-None-Match` and `Accept-Encoding`, valid or garbage. The router never answers 5xx,
//! answers 200 only for a published path, always with bytes that hash to the artifact's digest
//! once any `Content-Encoding` is removed, and gives `HEAD` the status and headers of `GET`.
//!
//! Each property runs a small number of cases so that `cargo test` stays fast; set
//! `PROPTEST_CASES` to run more.

mod invariants;

use std::sync::LazyLock;

use axum::Router;
use http::header::{ACCEPT_ENCODING, IF_MATCH, IF_NONE_MATCH};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use proptest::prelude::*;
use skillpub_core::{
    Catalog, Skill, SkillFile,
    catalog::Artifact,
    index::ArchiveFormat,
    paths::{API_CATALOG_PATH, WELL_KNOWN_PATH},
};
use skillpub_testkit::property_config;

use invariants::{artifact, check, check_get_and_head, send};

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\nSee references/forms.md.\n";
const NOTE: &str = "---\nname: note\ndescription: Takes notes.\n---\nWrite it down.\n";

/// Two catalogs that between them publish every kind of artifact: single `SKILL.md` files,
/// supporting files of several media types, both archives, the 0.1.0 layout and the API
/// catalog.
static CATALOGS: LazyLock<Vec<Catalog>> = LazyLock::new(|| {
    let files = vec![
        SkillFile::new("references/forms.md", "# Forms\n", false),
        SkillFile::new("scripts/fill.py", "print('fill')\n", true),
        SkillFile::new(
            "assets/logo.svg",
            "<svg xmlns='http://www.w3.org/2000/svg'/>",
            false,
        ),
        SkillFile::new("assets/blob", &b"\x00\x01\xff binary"[..], false),
        SkillFile::new("references/long.txt", "text ".repeat(2000), false),
    ];
    let plain = Catalog::new([
        Skill::new(None, PDF).with_files(files.clone()),
        Skill::new(None, NOTE),
    ])
    .expect("valid skills");
    let everything = Catalog::builder()
        .skill(Skill::new(None, PDF).with_files(files))
        .skill(Skill::new(None, NOTE))
        .archive_format(ArchiveFormat::Zip)
        .legacy_index(true)
        .api_catalog(true)
        .build()
        .expect("valid skills");
    vec![plain, everything]
});

/// Every published path of each catalog, for generating paths near them.
static PATHS: LazyLock<Vec<Vec<String>>> = LazyLock::new(|| {
    CATALOGS
        .iter()
        .map(|catalog| catalog.artifacts().map(|a| a.path().to_owned()).collect())
        .collect()
});

/// Every artifact's `ETag` value, for generating conditional headers that match.
static ETAGS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut etags: Vec<String> = CATALOGS
        .iter()
        .flat_map(|catalog| catalog.artifacts().map(|a| format!("\"{}\"", a.digest())))
        .collect();
    etags.sort();
    etags.dedup();
    etags
});

// Requests.

fn method() -> impl Strategy<Value = Method> {
    prop_oneof![
        6 => Just(Method::GET),
        4 => Just(Method::HEAD),
        1 => prop::sample::select(vec![
            Method::OPTIONS,
            Method::POST,
            Method::PUT,
            Method::DELETE,
            Method::PATCH,
            Method::TRACE,
            Method::CONNECT,
        ]),
        1 => "[A-Za-z!#$%&'*+.^_`|~-]{1,10}"
            .prop_map(|name| Method::from_bytes(name.as_bytes()).expect("a token")),
    ]
}

/// Percent-encodes what a request target cannot carry, keeping `%` so that stray and
/// malformed encodings get through as they are.
fn target(raw: &str) -> String {
    let mut out = String::new();
    for byte in raw.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/%?".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    if !out.starts_with('/') {
        out.insert(0, '/');
    }
    out
}

/// One change to a published path that makes it another path, or keeps it.
fn mutated(path: String) -> impl Strategy<Value = String> {
    let length = path.len();
    (0..12usize, 0..length.max(1)).prop_map(move |(change, at)| {
        let at = (0..=at)
            .rev()
            .find(|at| path.is_char_boundary(*at))
            .unwrap_or(0);
        let (head, tail) = path.split_at(at);
        let mut chars = tail.chars();
        let first = chars.next();
        let rest: String = chars.collect();
        match (change, first) {
            (0, Some(c)) => format!("{head}{}{rest}", c.to_ascii_uppercase()),
            (1, _) => path.to_ascii_uppercase(),
            (2, _) => format!("{path}/"),
            (3, _) => format!("{path}/."),
            (4, _) => format!("{path}/.."),
            (5, _) => format!("{head}/{tail}"),
            (6, Some(c)) => format!("{head}%{:02X}{rest}", u32::from(c) & 0xff),
            (7, _) => path.replace('.', "%2e"),
            (8, _) => format!("{WELL_KNOWN_PATH}..{}", &path[1..]),
            (9, _) => format!("{path}?download=1"),
            (10, _) => format!("{path}%00"),
            _ => format!("{head}/../{tail}"),
        }
    })
}

/// A path near the published paths of catalog `which`, or anywhere.
fn path(which: usize) -> impl Strategy<Value = String> {
    let published = prop::sample::select(PATHS[which].clone());
    prop_oneof![
        6 => published.clone(),
        4 => published.prop_flat_map(mutated),
        1 => "[a-zA-Z0-9._~%/-]{0,30}"
            .prop_map(|tail| format!("{WELL_KNOWN_PATH}{tail}")),
        1 => "\\PC{0,30}".prop_map(|raw| target(&raw)),
        1 => prop::sample::select(vec![
            "/", "/.well-known", "/.well-known/", "/.well-known/agent-skills",
            "/.well-known/agent-skills/", "/.well-known/skills", API_CATALOG_PATH,
            "/.well-known/agent-skills/%2e%2e/%2e%2e/etc/passwd",
            "/.well-known/agent-skills/pdf/../note/SKILL.md",
            "/.well-known/agent-skills/PDF/SKILL.md", "/.well-known/agent-skills/pdf/skill.md",
            "/.well-known/agent-skills/pdf%2FSKILL.md", "/.well-known/agent-skills//pdf/SKILL.md",
            "/.well-known/agent-skills/pdf/SKILL.md/", "//.well-known/agent-skills/index.json",
            "/.well-known/agent-skills/index.json;x", "/.well-known/agent-skills/pdf.TAR.GZ",
            "/.well-known/agent-skills/pdf/%53KILL.md", "/%2ewell-known/agent-skills/index.json",
        ])
        .prop_map(str::to_owned),
    ]
}

/// One member of an entity-tag list: the requested artifact's own tag, plain, weak or with
/// trailing garbage, or any other text.
#[derive(Debug, Clone)]
enum Tag {
    Own,
    OwnWeak,
    OwnWithGarbage,
    Text(String),
}

/// An entity-tag list as a client, a proxy or an attacker might write it: members and the
/// separator between them. It becomes a value once the requested path is known.
#[derive(Debug, Clone)]
struct TagList(Vec<Tag>, &'static str);

impl TagList {
    /// The header value, with `own` as the requested artifact's `ETag` (any other published
    /// one when the path is not published).
    fn value(&self, own: &str) -> Vec<u8> {
        let members: Vec<String> = self
            .0
            .iter()
            .map(|tag| match tag {
                Tag::Own => own.to_owned(),
                Tag::OwnWeak => format!("W/{own}"),
                Tag::OwnWithGarbage => format!("{own} garbage"),
                Tag::Text(text) => text.clone(),
            })
            .collect();
        members.join(self.1).into_bytes()
    }
}

fn entity_tags() -> impl Strategy<Value = TagList> {
    let tag = prop_oneof![
        4 => Just(Tag::Own),
        2 => Just(Tag::OwnWeak),
        1 => Just(Tag::OwnWithGarbage),
        1 => prop::sample::select(ETAGS.clone()).prop_map(Tag::Text),
        1 => prop::sample::select(vec![
            "*", "\"\"", "\"other\"", "W/\"other\"", "\"unterminated", "W/", "w/\"x\"", ",",
            " ", "\"a,b\"", "\"*\"", "**", "\"sha256:\"", "sha256:abc",
        ])
        .prop_map(|text| Tag::Text(text.to_owned())),
        1 => "[ -~]{0,12}".prop_map(Tag::Text),
    ];
    (
        prop::collection::vec(tag, 0..4),
        prop::sample::select(vec![", ", ",", " ", ",,", " , "]),
    )
        .prop_map(|(tags, separator)| TagList(tags, separator))
}

fn accept_encoding() -> impl Strategy<Value = Vec<u8>> {
    let coding = prop_oneof![
        4 => prop::sample::select(vec![
            "gzip", "br", "deflate", "zstd", "identity", "*", "x-gzip", "compress", "GZIP", "Br",
        ])
        .prop_map(str::to_owned),
        1 => "[a-z-]{1,8}",
    ];
    let weight = prop_oneof![
        3 => Just(String::new()),
        1 => prop::sample::select(vec![
            ";q=0", ";q=1", ";q=0.5", ";q=0.000", ";q=1.000", ";q=2", ";q=-1", ";q=", ";q=abc",
            "; q=0.8", ";Q=0", ";q=0.5;x=1", ";",
        ])
        .prop_map(str::to_owned),
    ];
    prop::collection::vec((coding, weight), 0..4).prop_map(|codings| {
        let list: Vec<String> = codings
            .into_iter()
            .map(|(coding, weight)| format!("{coding}{weight}"))
            .collect();
        list.join(", ").into_bytes()
    })
}

/// Bytes that a header value may hold: anything but control characters other than tab.
fn garbage_value() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        any::<u8>().prop_map(|byte| {
            if byte < 0x20 && byte != b'\t' || byte == 0x7f {
                b'?'
            } else {
                byte
            }
        }),
        0..40,
    )
}

/// A request header's value: bytes, or an entity-tag list.
#[derive(Debug, Clone)]
enum Value {
    Bytes(Vec<u8>),
    Tags(TagList),
}

/// Request headers, some of them entity-tag lists that refer to the requested artifact.
#[derive(Debug, Clone)]
struct Headers(Vec<(HeaderName, Value)>);

impl Headers {
    fn map(&self, own: &str) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in &self.0 {
            let bytes = match value {
                Value::Bytes(bytes) => bytes.clone(),
                Value::Tags(tags) => tags.value(own),
            };
            let value = HeaderValue::from_bytes(&bytes).expect("no control characters");
            map.append(name.clone(), value);
        }
        map
    }
}

fn headers() -> impl Strategy<Value = Headers> {
    let header = prop_oneof![
        4 => entity_tags().prop_map(|tags| (IF_MATCH, Value::Tags(tags))),
        6 => entity_tags().prop_map(|tags| (IF_NONE_MATCH, Value::Tags(tags))),
        4 => accept_encoding().prop_map(|value| (ACCEPT_ENCODING, Value::Bytes(value))),
        1 => garbage_value().prop_map(|value| (IF_MATCH, Value::Bytes(value))),
        1 => garbage_value().prop_map(|value| (IF_NONE_MATCH, Value::Bytes(value))),
        1 => garbage_value().prop_map(|value| (ACCEPT_ENCODING, Value::Bytes(value))),
        1 => (
            prop::sample::select(vec![
                "range", "if-modified-since", "if-unmodified-since", "if-range", "origin",
                "access-control-request-method", "te", "x-forwarded-proto", "content-length",
            ]),
            garbage_value(),
        )
            .prop_map(|(name, value)| (HeaderName::from_static(name), Value::Bytes(value))),
    ];
    prop::collection::vec(header, 0..4).prop_map(Headers)
}

proptest! {
    #![proptest_config(property_config(512))]

    #[test]
    fn any_request_gets_a_sound_answer_and_head_gets_the_headers_of_get(
        (which, path) in (0..2usize).prop_flat_map(|which| (Just(which), path(which))),
        method in method(),
        headers in headers(),
    ) {
        let catalog = &CATALOGS[which];
        let app: Router = skillpub_axum::router(catalog.clone());
        let uri: Uri = target(&path).parse().unwrap_or_else(|e| panic!("{path}: {e}"));
        let own = artifact(catalog, uri.path()).map_or_else(
            || ETAGS[0].clone(),
            |artifact| format!("\"{}\"", artifact.digest()),
        );
        let headers = headers.map(&own);
        if method == Method::GET || method == Method::HEAD {
            check_get_and_head(&app, catalog, &uri, &headers);
        } else {
            let answer = send(&app, &method, &uri, &headers);
            check(catalog, &method, &uri, &headers, &answer);
        }
    }

    #[test]
    fn a_published_path_answers_200_with_its_digest_unless_every_coding_is_refused(
        which in 0..2usize,
        at in any::<prop::sample::Index>(),
        accept in accept_encoding(),
    ) {
        let catalog = &CATALOGS[which];
        let artifacts: Vec<&Artifact> = catalog.artifacts().collect();
        let published = artifacts[at.index(artifacts.len())];
        let mut headers = HeaderMap::new();
        headers.insert(
            ACCEPT_ENCODING,
            HeaderValue::from_bytes(&accept).expect("a header value"),
        );
        let uri: Uri = published.path().parse().expect("a published path is a URI");
        let app: Router = skillpub_axum::router(catalog.clone());
        let answer = send(&app, &Method::GET, &uri, &headers);
        check(catalog, &Method::GET, &uri, &headers, &answer);
        // Only a zero weight (`identity;q=0`, `*;q=0`) can refuse every coding: then 406.
        let refuses = String::from_utf8_lossy(&accept).to_ascii_lowercase().contains("q=0");
        let expected: &[StatusCode] = if refuses {
            &[StatusCode::OK, StatusCode::NOT_ACCEPTABLE]
        } else {
            &[StatusCode::OK]
        };
        assert!(expected.contains(&answer.status), "{uri} with {headers:?}: {}", answer.status);
    }
}
