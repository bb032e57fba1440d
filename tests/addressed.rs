//! Addressed URLs over real TCP on 127.0.0.1, through every router (fixed, live, per host),
//! at the site root and nested under a prefix: every `url` of the index answers its artifact
//! with `immutable` caching and a `Link` to its canonical path, the canonical path answers
//! the same bytes with `no-cache` and a `Content-Location` naming the address, both
//! revalidate to a `304`, `HEAD` matches `GET`, CORS and the content codings are those of
//! every other answer, and an address whose digest the catalog does not hold is the `404` of
//! the policy.

use std::net::SocketAddr;

use axum::Router;
use skillpub::model::paths::{INDEX_PATH, addressed_path};
use skillpub::model::{Digest, index::UrlStyle};
use skillpub::web::{ADDRESSED_CACHE_CONTROL, DEFAULT_CACHE_CONTROL, Hosts, RouterBuilder};
use skillpub::{Catalog, LiveCatalog};
use skillpub_testkit::{Response, decode, get_and_head, request, serve};

/// The example skills (one of them with supporting files, so archives), published in `style`
/// under `base_path`.
fn catalog(style: UrlStyle, base_path: &str) -> Catalog {
    let folder = skillpub::model::folder::read_skills_folder(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/skills"
    ))
    .unwrap();
    let mut builder = folder.builder();
    builder.url_style(style).base_path(base_path);
    builder.build().unwrap()
}

/// The three routers of a catalog.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Fixed,
    Live,
    Hosts,
}

const HOST: &str = "skills.example.com";

/// Serves `catalog` through a router of `kind`, nested under its base path; returns the
/// address and the headers every request sends.
async fn served(kind: Kind, catalog: Catalog) -> (SocketAddr, Vec<(&'static str, &'static str)>) {
    let base_path = catalog.base_path().as_str().to_owned();
    let skills: Router = match kind {
        Kind::Fixed => skillpub::web::router(catalog),
        Kind::Live => skillpub::web::live_router(LiveCatalog::new(catalog)),
        Kind::Hosts => RouterBuilder::hosts(Hosts::new().host(HOST, catalog).unwrap()).build(),
    };
    let app = if base_path.is_empty() {
        skills
    } else {
        Router::new().nest(&base_path, skills)
    };
    let headers = match kind {
        Kind::Hosts => vec![("Host", HOST)],
        Kind::Fixed | Kind::Live => Vec::new(),
    };
    (serve(app).await, headers)
}

fn with<'a>(
    headers: &[(&'a str, &'a str)],
    more: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    headers.iter().chain(more).copied().collect()
}

fn assert_cors(answer: &Response, what: &str) {
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("*"),
        "{what}"
    );
    assert_eq!(
        answer.header("access-control-expose-headers"),
        Some("ETag"),
        "{what}"
    );
    assert_eq!(
        answer.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
}

/// Every entry of the index, fetched at its `url` and at its canonical path, checked.
async fn every_entry_is_addressed(kind: Kind, style: UrlStyle, base_path: &str) {
    let catalog = catalog(style.clone(), base_path);
    let (addr, headers) = served(kind, catalog.clone()).await;
    let index_path = format!("{base_path}{INDEX_PATH}");
    let index = get_and_head(addr, &index_path, &headers).await;
    assert_eq!(index.status, 200);
    assert_eq!(index.header("cache-control"), Some(DEFAULT_CACHE_CONTROL));
    let index_url = url::Url::parse(&format!("http://{HOST}{index_path}")).unwrap();
    let index: serde_json::Value = serde_json::from_slice(&index.body).unwrap();
    let entries = index["skills"].as_array().unwrap();
    assert!(entries.iter().any(|entry| entry["type"] == "archive"));
    for entry in entries {
        let what = format!("{kind:?} {style:?} {base_path:?} {}", entry["name"]);
        let url = index_url.join(entry["url"].as_str().unwrap()).unwrap();
        let digest: Digest = entry["digest"].as_str().unwrap().parse().unwrap();
        let listed = catalog.addressed(url.path().strip_prefix(base_path).unwrap());
        let listed = listed.unwrap_or_else(|| panic!("{what}: {url} is an addressed path"));
        let canonical = format!("{base_path}{}", listed.path());

        let addressed = get_and_head(addr, url.path(), &headers).await;
        assert_eq!(addressed.status, 200, "{what}");
        assert_eq!(Digest::of(&addressed.body), digest, "{what}");
        assert_eq!(
            addressed.header("cache-control"),
            Some(ADDRESSED_CACHE_CONTROL),
            "{what}"
        );
        assert_eq!(
            addressed.header("link"),
            Some(format!("<{canonical}>; rel=\"canonical\"").as_str()),
            "{what}"
        );
        assert_eq!(addressed.header("content-location"), None, "{what}");
        let etag = format!("\"{digest}\"");
        assert_eq!(addressed.header("etag"), Some(etag.as_str()), "{what}");
        assert_eq!(
            addressed.header("content-type"),
            Some(listed.media_type()),
            "{what}"
        );
        assert_cors(&addressed, &what);

        let current = get_and_head(addr, &canonical, &headers).await;
        assert_eq!(current.status, 200, "{what}");
        assert_eq!(
            current.body, addressed.body,
            "{what}: the same bytes at both paths"
        );
        assert_eq!(
            current.header("cache-control"),
            Some(DEFAULT_CACHE_CONTROL),
            "{what}"
        );
        assert_eq!(
            current.header("content-location"),
            Some(url.path()),
            "{what}"
        );
        assert_eq!(current.header("link"), None, "{what}");
        assert_eq!(current.header("etag"), Some(etag.as_str()), "{what}");

        for (path, cache_control) in [
            (url.path(), ADDRESSED_CACHE_CONTROL),
            (canonical.as_str(), DEFAULT_CACHE_CONTROL),
        ] {
            let revalidated =
                get_and_head(addr, path, &with(&headers, &[("if-none-match", &etag)])).await;
            assert_eq!(revalidated.status, 304, "{what}: {path}");
            assert!(revalidated.body.is_empty());
            assert_eq!(revalidated.header("etag"), Some(etag.as_str()), "{what}");
            assert_eq!(
                revalidated.header("cache-control"),
                Some(cache_control),
                "{what}"
            );
            assert_eq!(revalidated.header("content-length"), None, "{what}");
            assert_cors(&revalidated, &what);
        }
        let tied = |answer: &Response| {
            (
                answer.header("link").map(str::to_owned),
                answer.header("content-location").map(str::to_owned),
            )
        };
        let revalidated = request(
            addr,
            "GET",
            url.path(),
            &with(&headers, &[("if-none-match", &etag)]),
        )
        .await;
        assert_eq!(
            tied(&revalidated),
            tied(&addressed),
            "{what}: a 304 ties the paths too"
        );

        let preflight = request(
            addr,
            "OPTIONS",
            url.path(),
            &with(
                &headers,
                &[
                    ("Origin", "https://app.example.com"),
                    ("Access-Control-Request-Method", "GET"),
                ],
            ),
        )
        .await;
        assert_eq!(preflight.status, 204, "{what}");
        assert_eq!(preflight.header("access-control-allow-origin"), Some("*"));
    }
}

macro_rules! addressed {
    ($($name:ident: $kind:expr, $style:expr, $base:expr;)+) => {$(
        #[tokio::test]
        async fn $name() {
            every_entry_is_addressed($kind, $style, $base).await;
        }
    )+};
}

fn absolute() -> UrlStyle {
    UrlStyle::Absolute(format!("https://{HOST}").parse().unwrap())
}

addressed! {
    fixed_path_absolute_at_the_root: Kind::Fixed, UrlStyle::PathAbsolute, "";
    fixed_relative_under_a_prefix: Kind::Fixed, UrlStyle::Relative, "/tenant";
    fixed_absolute_under_a_prefix: Kind::Fixed, absolute(), "/tenant";
    fixed_path_absolute_under_a_prefix: Kind::Fixed, UrlStyle::PathAbsolute, "/acme/skills";
    live_path_absolute_at_the_root: Kind::Live, UrlStyle::PathAbsolute, "";
    live_relative_under_a_prefix: Kind::Live, UrlStyle::Relative, "/tenant";
    live_absolute_at_the_root: Kind::Live, absolute(), "";
    hosts_path_absolute_at_the_root: Kind::Hosts, UrlStyle::PathAbsolute, "";
    hosts_relative_under_a_prefix: Kind::Hosts, UrlStyle::Relative, "/tenant";
    hosts_absolute_under_a_prefix: Kind::Hosts, absolute(), "/tenant";
}

/// Addresses that name no artifact of the catalog: the policy's `404`, never other bytes.
#[tokio::test]
async fn an_address_the_catalog_does_not_hold_is_the_404_of_the_policy() {
    for kind in [Kind::Fixed, Kind::Live, Kind::Hosts] {
        let catalog = catalog(UrlStyle::PathAbsolute, "");
        let (addr, headers) = served(kind, catalog.clone()).await;
        let unpublished =
            get_and_head(addr, "/.well-known/agent-skills/no-such/SKILL.md", &headers).await;
        let skill = &catalog.skills()[0];
        let files = catalog
            .skills()
            .iter()
            .find(|s| !s.files().is_empty())
            .unwrap();
        let file = files.files()[0].artifact();
        let other = Digest::of(b"bytes no catalog has");
        let hex = skill.skill_md().digest().hex();
        let addresses = [
            addressed_path(skill.skill_md().path(), other).unwrap(),
            // The digest of another skill's SKILL.md.
            addressed_path(
                skill.skill_md().path(),
                catalog.skills()[1].skill_md().digest(),
            )
            .unwrap(),
            // A supporting file and the index have no address.
            addressed_path(file.path(), file.digest()).unwrap(),
            addressed_path(INDEX_PATH, catalog.index().digest()).unwrap(),
            format!(
                "/.well-known/agent-skills/sha256-{}/{}/SKILL.md",
                hex.to_uppercase(),
                skill.name()
            ),
            format!(
                "/.well-known/agent-skills/sha256-{}/{}/SKILL.md",
                &hex[1..],
                skill.name()
            ),
            format!(
                "/.well-known/agent-skills/sha256-{hex}/{}/skill.md",
                skill.name()
            ),
            format!(
                "/.well-known/agent-skills/sha256-{hex}/{}/SKILL.md/",
                skill.name()
            ),
            format!("/.well-known/agent-skills/sha256-{hex}/"),
            format!("/.well-known/agent-skills/sha256-{hex}"),
            format!(
                "/.well-known/agent-skills/sha256%2d{hex}/{}/SKILL.md",
                skill.name()
            ),
            format!(
                "/.well-known/agent-skills/sha256-{hex}/../{}/SKILL.md",
                skill.name()
            ),
        ];
        for (n, path) in addresses.iter().enumerate() {
            let answer = get_and_head(addr, path, &headers).await;
            assert_eq!(answer.status, 404, "{kind:?} {path}");
            assert_eq!(answer.body, unpublished.body, "{kind:?} {path}");
            // A well-formed address of a SKILL.md (the first two) may be published by another
            // replica a moment later: its miss is never stored. A malformed one never is
            // published: the error policy's.
            let cache_control = if n < 2 {
                Some(skillpub::web::ADDRESSED_MISS_CACHE_CONTROL)
            } else {
                unpublished.header("cache-control")
            };
            assert_eq!(
                answer.header("cache-control"),
                cache_control,
                "{kind:?} {path}"
            );
            assert_eq!(answer.header("link"), None);
            assert_cors(&answer, path);
        }
    }
}

/// The content codings of an addressed `SKILL.md`: the same variants, under the same
/// `ETag`s, as at its canonical path, and `Vary`; archives are never encoded.
#[tokio::test]
async fn an_addressed_skill_md_is_sent_in_br_and_gzip_and_an_archive_never_encoded() {
    for kind in [Kind::Fixed, Kind::Live, Kind::Hosts] {
        let catalog = catalog(UrlStyle::PathAbsolute, "");
        let (addr, headers) = served(kind, catalog.clone()).await;
        for skill in catalog.skills() {
            let skill_md = skill.skill_md();
            let addressed = skill_md.addressed_path().unwrap();
            for coding in ["br", "gzip"] {
                let accept = with(&headers, &[("accept-encoding", coding)]);
                let at_address = get_and_head(addr, addressed, &accept).await;
                let at_canonical = get_and_head(addr, skill_md.path(), &accept).await;
                assert_eq!(
                    at_address.header("content-encoding"),
                    Some(coding),
                    "{kind:?}"
                );
                assert_eq!(at_address.header("etag"), at_canonical.header("etag"));
                assert_eq!(at_address.header("vary"), Some("Accept-Encoding"));
                assert_eq!(
                    at_address.header("cache-control"),
                    Some(ADDRESSED_CACHE_CONTROL)
                );
                let body = decode(at_address.header("content-encoding"), &at_address.body);
                assert_eq!(Digest::of(&body), skill_md.digest(), "{kind:?} {coding}");
            }
            if let Some(archive) = skill.archive(Default::default()) {
                let accept = with(&headers, &[("accept-encoding", "br, gzip")]);
                let answer = get_and_head(addr, archive.addressed_path().unwrap(), &accept).await;
                assert_eq!(answer.header("content-encoding"), Some("identity"));
                assert_eq!(answer.header("vary"), None);
                assert_eq!(Digest::of(&answer.body), archive.digest());
            }
        }
    }
}
