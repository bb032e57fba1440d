//! `GET` and `HEAD` of a published path with any `If-Match`, `If-None-Match` and
//! `Accept-Encoding`, through the router: never 5xx, 304 and 412 only when asked, a 200 body
//! that hashes to the artifact's digest once decoded, and `HEAD` with the headers of `GET`.
//!
//! The input: its first byte picks the artifact; the rest is up to three lines, the values of
//! `If-Match`, `If-None-Match` and `Accept-Encoding` in that order (a missing line sends no
//! such header; byte 0x01 splits a line into several fields), where `$E` stands for the
//! artifact's own `ETag`, so that matching lists are within reach.

#![no_main]

use std::sync::LazyLock;

use axum::Router;
use http::header::{ACCEPT_ENCODING, IF_MATCH, IF_NONE_MATCH};
use http::{HeaderMap, HeaderValue, Uri};
use skillpub_core::{Catalog, folder::read_skills_folder};

#[path = "../../crates/skillpub-axum/tests/invariants/mod.rs"]
mod invariants;

/// The example skills (one of them with supporting files and archives), with the 0.1.0
/// layout and the API catalog.
static SITE: LazyLock<(Catalog, Router)> = LazyLock::new(|| {
    let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills");
    let catalog = read_skills_folder(skills)
        .expect("the example skills")
        .builder()
        .legacy_index(true)
        .api_catalog(true)
        .build()
        .expect("the example skills are valid");
    let router = skillpub_axum::router(catalog.clone());
    (catalog, router)
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (catalog, router) = &*SITE;
    let artifacts: Vec<_> = catalog.artifacts().collect();
    let artifact = artifacts[usize::from(pick) % artifacts.len()];
    let own = format!("\"{}\"", artifact.digest());
    let mut headers = HeaderMap::new();
    for (name, line) in [IF_MATCH, IF_NONE_MATCH, ACCEPT_ENCODING]
        .into_iter()
        .zip(rest.split(|byte| *byte == b'\n'))
    {
        for field in line.split(|byte| *byte == 1) {
            if let Ok(value) = HeaderValue::from_bytes(&expand(field, own.as_bytes())) {
                headers.append(name.clone(), value);
            }
        }
    }
    let uri: Uri = artifact.path().parse().expect("a published path is a URI");
    invariants::check_get_and_head(router, catalog, &uri, &headers);
});

/// The field with every `$E` replaced by `own`.
fn expand(field: &[u8], own: &[u8]) -> Vec<u8> {
    let mut expanded = Vec::with_capacity(field.len());
    let mut rest = field;
    while let Some((&byte, after)) = rest.split_first() {
        if let Some(after) = rest.strip_prefix(b"$E") {
            expanded.extend_from_slice(own);
            rest = after;
        } else {
            expanded.push(byte);
            rest = after;
        }
    }
    expanded
}
