//! An RFC 9727 API catalog (`/.well-known/api-catalog`) that links the skills index, for sites
//! that have no API catalog of their own. Off by default.

use serde_json::json;

use crate::index::UrlStyle;
use crate::paths::{API_CATALOG_PATH, INDEX_PATH};

/// Renders the linkset: the catalog as anchor, the skills index as its one `item`, both
/// where clients reach them (under the base path, after the origin for absolute URLs).
pub(crate) fn render(style: &UrlStyle, base_path: &str) -> Vec<u8> {
    let anchor = style.link_to(base_path, API_CATALOG_PATH);
    let href = style.link_to(base_path, INDEX_PATH);
    let linkset = json!({
        "linkset": [{
            "anchor": anchor,
            "item": [{
                "href": href,
                "type": "application/json",
                "title": "Agent Skills index (Agent Skills Discovery 0.2.0)",
            }],
        }],
    });
    let mut bytes =
        serde_json::to_vec_pretty(&linkset).expect("serializing JSON values cannot fail");
    bytes.push(b'\n');
    bytes
}
