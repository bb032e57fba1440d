//! An index body of any bytes, parsed as the client does: no panic, and every entry kept is
//! valid, with http(s) URLs and 0.1.0 files inside their skill's folder.

#![no_main]

use std::sync::LazyLock;

use url::Url;

#[path = "../../crates/skillpub-client/tests/invariants/index.rs"]
mod invariants;

static INDEX_URL: LazyLock<Url> = LazyLock::new(|| {
    Url::parse("https://example.com/.well-known/agent-skills/index.json").expect("a URL")
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(index) = skillpub_client::index::parse(&INDEX_URL, data) {
        invariants::assert_index_is_sound(&index, data);
    }
});
