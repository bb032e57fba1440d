//! The answers of one published artifact: a variant per content coding, each with its strong
//! entity tag and its prepared `200` and `304`, and which variant a request gets.

use std::sync::OnceLock;

use bytes::Bytes;
use http::header::{CONTENT_ENCODING, CONTENT_TYPE, ETAG, VARY};
use http::{HeaderMap, HeaderValue, StatusCode};
use skillpub_core::Digest;

use super::accept_encoding::AcceptEncoding;
use super::prepared::Prepared;
use super::{Policy, VARY_ACCEPT_ENCODING};
use crate::coding::{self, Coding};

/// One representation of an artifact (its bytes in one content coding): its strong entity
/// tag and its prepared `200` and `304`.
#[derive(Debug)]
pub(super) struct Variant {
    /// The quoted strong entity tag.
    pub(super) etag: Bytes,
    pub(super) ok: Prepared,
    pub(super) not_modified: Prepared,
}

impl Variant {
    /// The same representation sent in `coding`: its own entity tag, `Content-Encoding`,
    /// body and `Content-Length`; everything else as in `self`.
    fn in_coding(&self, coding: Coding, etag: Bytes, body: Bytes) -> Self {
        let etag_value = etag_header(&etag);
        let content_encoding = HeaderValue::from_static(coding.token());
        let mut ok = self.ok.headers().clone();
        ok.insert(ETAG, etag_value.clone());
        ok.insert(CONTENT_ENCODING, content_encoding.clone());
        let mut not_modified = self.not_modified.headers().clone();
        not_modified.insert(ETAG, etag_value);
        not_modified.insert(CONTENT_ENCODING, content_encoding);
        Self {
            etag,
            ok: Prepared::with_content(StatusCode::OK, ok, body),
            not_modified: Prepared::without_content(StatusCode::NOT_MODIFIED, not_modified),
        }
    }
}

/// The quoted strong entity tag of an artifact's bytes in a coding: the digest
/// (`"sha256:<hex>"`) for the bytes themselves, with the coding appended for the others
/// (`"sha256:<hex>-br"`, `"sha256:<hex>-gzip"`, as Apache's `mod_deflate` does).
fn entity_tag(digest: Digest, coding: Coding) -> Bytes {
    Bytes::from(match coding {
        Coding::Identity => format!("\"{digest}\""),
        coding => format!("\"{digest}-{}\"", coding.token()),
    })
}

fn etag_header(etag: &Bytes) -> HeaderValue {
    HeaderValue::from_maybe_shared(etag.clone()).expect("a quoted digest is a valid header value")
}

/// The answers for one published artifact: one [`Variant`] per content coding.
#[derive(Debug)]
pub(crate) struct Resource {
    digest: Digest,
    /// The bytes the digest covers, `Content-Encoding: identity`.
    identity: Variant,
    /// The encoded variants; `None` for media types that are never encoded (archives, images).
    encoded: Option<Encoded>,
}

/// The brotli and gzip variants of a text artifact, each made on first demand: its first
/// request pays the compression, later ones pick it. `None` inside if the encoder failed.
#[derive(Debug, Default)]
struct Encoded {
    brotli: OnceLock<Option<Variant>>,
    gzip: OnceLock<Option<Variant>>,
}

impl Resource {
    /// The variant to answer a `GET` or `HEAD` with (RFC 9110, 12.5.3): identity for a
    /// request without `Accept-Encoding`; otherwise the acceptable coding it prefers, skipping
    /// a coding that would not make the bytes smaller while identity is acceptable. `None`
    /// when the request refuses every coding this artifact has, identity included
    /// (`identity;q=0`, `*;q=0`): the answer is then `406`.
    pub(super) fn select(&self, request: &HeaderMap) -> Option<&Variant> {
        let Some(accept) = AcceptEncoding::of(request) else {
            return Some(&self.identity);
        };
        let mut larger = None;
        for coding in accept.preferred() {
            let cell = match (coding, &self.encoded) {
                (Coding::Identity, _) => return Some(&self.identity),
                (Coding::Brotli, Some(encoded)) => &encoded.brotli,
                (Coding::Gzip, Some(encoded)) => &encoded.gzip,
                (_, None) => continue,
            };
            if let Some(variant) = cell.get_or_init(|| self.encode(coding)) {
                if variant.ok.content().len() < self.identity.ok.content().len() {
                    return Some(variant);
                }
                larger = larger.or(Some(variant));
            }
        }
        larger
    }

    /// The variant in `coding`.
    fn encode(&self, coding: Coding) -> Option<Variant> {
        let body = coding.encode(self.identity.ok.content())?;
        let etag = entity_tag(self.digest, coding);
        Some(self.identity.in_coding(coding, etag, body))
    }
}

impl Policy {
    /// Prepares the answers for an artifact served with `content_type`. Its encoded
    /// variants are made later, on first demand.
    pub(crate) fn resource(
        &self,
        content_type: HeaderValue,
        body: Bytes,
        digest: Digest,
    ) -> Resource {
        let encoded = coding::is_encoded(content_type.to_str().unwrap_or_default());
        let etag = entity_tag(digest, Coding::Identity);
        let mut validators = self.common(&self.cache_control);
        validators.insert(ETAG, etag_header(&etag));
        if encoded {
            validators.insert(VARY, VARY_ACCEPT_ENCODING);
        }

        let mut ok = validators.clone();
        ok.insert(CONTENT_TYPE, content_type);

        Resource {
            digest,
            identity: Variant {
                etag,
                ok: Prepared::with_content(StatusCode::OK, ok, body),
                not_modified: Prepared::without_content(StatusCode::NOT_MODIFIED, validators),
            },
            encoded: encoded.then(Encoded::default),
        }
    }
}
