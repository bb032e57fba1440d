//! `cache.mismatch-window`: a site whose index and artifacts may be cached, the artifacts
//! under URLs that do not name their digest, warns with how long a cache can pair them; a site
//! whose artifact URLs name their digests, or that lets nothing be cached, passes; a digest
//! mismatch keeps its own failure beside it.

use skillpub_check::Status;
use skillpub_core::{Catalog, Digest, Skill};

use crate::site::{
    INDEX, Lines, SKILL_MD, Site, check_app, check_site, entry, good_site, index, ok,
};

const CODE: &str = "cache.mismatch-window";

/// The one-skill site with `Cache-Control: index` on the index and `skill` on the `SKILL.md`.
fn cached(index: &str, skill: &str) -> Site {
    let mut site = good_site();
    site.routes[0].1 = site.routes[0].1.clone().with("cache-control", index);
    site.routes[1].1 = site.routes[1].1.clone().with("cache-control", skill);
    site
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_and_a_skill_md_cached_five_minutes_warn_with_the_window() {
    let report = check_site(cached("public, max-age=300", "public, max-age=300")).await;
    assert!(report.passed(), "a warning: {report}");
    let message = report.message(Status::Warn, "site", CODE);
    assert!(
        message.starts_with("for up to 300 s after a deploy"),
        "{message}"
    );
    assert!(
        message.contains("the index may be cached for 300 s, and 1 artifacts whose url does not name their digest for up to 300 s"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_window_is_the_longer_of_the_two_lifetimes_from_cache_control_or_expires() {
    let report = check_site(cached("max-age=60", "public, s-maxage=600")).await;
    let message = report.message(Status::Warn, "site", CODE);
    assert!(
        message.starts_with("for up to 600 s after a deploy"),
        "{message}"
    );
    // A fresh index next to an old SKILL.md is a mismatch too.
    let report = check_site(cached("no-cache", "max-age=120")).await;
    let message = report.message(Status::Warn, "site", CODE);
    assert!(
        message.starts_with("for up to 120 s after a deploy"),
        "{message}"
    );
    let mut site = good_site();
    site.routes[0].1 = site.routes[0]
        .1
        .clone()
        .with("date", "Sun, 06 Nov 1994 08:49:37 GMT")
        .with("expires", "Sun, 06 Nov 1994 08:51:07 GMT");
    let report = check_site(site).await;
    let message = report.message(Status::Warn, "site", CODE);
    assert!(
        message.starts_with("for up to 90 s after a deploy"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_cached_is_no_window() {
    for (index, skill) in [("no-cache", "no-store"), ("public, no-cache", "max-age=0")] {
        let report = check_site(cached(index, skill)).await;
        let message = report.message(Status::Ok, "site", CODE);
        assert!(
            message.starts_with("neither the index nor the artifacts may be cached"),
            "{message}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn artifact_urls_that_name_their_digest_are_no_window_whatever_the_index_lifetime() {
    let addressed = format!(
        "/.well-known/agent-skills/sha256-{}/greeting/SKILL.md",
        Digest::of(SKILL_MD.as_bytes()).hex()
    );
    let entry = entry(
        "greeting",
        "skill-md",
        "Greets the user by name.",
        &addressed,
        SKILL_MD.as_bytes(),
    );
    let site = Site::new(vec![
        (
            INDEX,
            ok("application/json", index(&entry)).with("cache-control", "max-age=300"),
        ),
        (
            &addressed,
            ok("text/markdown; charset=utf-8", SKILL_MD)
                .with("cache-control", "max-age=31536000, immutable"),
        ),
    ]);
    let report = check_site(site).await;
    assert!(report.passed(), "{report}");
    let message = report.message(Status::Ok, "site", CODE);
    assert!(
        message.starts_with("every artifact url (1) names its digest"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn skillpubs_router_has_no_window_and_its_canonical_urls_would() {
    let skill = Skill::from_static(SKILL_MD);
    let addressed = Catalog::new([skill.clone()]).unwrap();
    let report = check_app(skillpub_axum::router(addressed), "/").await;
    report.line(Status::Ok, "site", CODE);
    // The same router with the canonical paths in the index: both are `no-cache`, so a
    // cache revalidates both; still no window.
    let canonical = Catalog::builder()
        .skill(skill)
        .addressed_urls(false)
        .build()
        .unwrap();
    let report = check_app(skillpub_axum::router(canonical), "/").await;
    let message = report.message(Status::Ok, "site", CODE);
    assert!(
        message.starts_with("neither the index nor the artifacts may be cached"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_digest_mismatch_keeps_its_own_failure_beside_the_window_and_the_index_is_found() {
    let mut site = cached("public, max-age=300", "public, max-age=300");
    site.routes[1].1.body = format!("{SKILL_MD}\n").into_bytes();
    let report = check_site(site).await;
    assert_eq!(report.failed(), [("greeting", "entry.digest")], "{report}");
    report.line(Status::Ok, "index", "index.status");
    report.line(Status::Warn, "site", CODE);
}
