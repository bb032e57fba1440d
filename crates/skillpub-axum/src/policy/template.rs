//! The headers every answer of one kind shares, prepared once per router, and how an
//! artifact's `200` or `304` is made from them.
//!
//! An artifact's answer differs from another's of the same kind in a few values only:
//! `ETag`, `Content-Type`, `Content-Length`, `Content-Encoding` for an encoded variant, and
//! the header that names its other path. Preparing a whole header map per artifact and kind
//! (as this router did before addressed paths) cost about 1.3 KiB per answer, which for 1,000
//! skills was more than a quarter of the bytes served. Instead a template per kind holds every
//! header, those included with a placeholder value; a request copies the template (the same
//! work as copying a prepared map) and puts the artifact's values in place in one pass over
//! the copy, comparing names (a byte for the standard ones) rather than hashing them as an
//! `insert` would.

use axum::body::Body;
use http::header::{
    CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_LOCATION, CONTENT_TYPE, ETAG, LINK, VARY,
};
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode};

use super::address::{Address, Kind};
use super::prepared::Prepared;
use super::resource::{Resource, Variant};
use super::settings::Policy;
use crate::coding::Coding;

/// What a template holds until a request puts an artifact's value in place: never sent.
const PLACEHOLDER: HeaderValue = HeaderValue::from_static("-");

/// The `200` and `304` headers of one kind of answer.
#[derive(Debug)]
struct Template {
    ok: HeaderMap,
    not_modified: HeaderMap,
}

/// A template per kind of answer (plain, canonical, addressed) and per whether the artifact
/// is text (whose answers vary on `Accept-Encoding`).
#[derive(Debug)]
pub(super) struct Templates([[Template; 2]; 3]);

impl Policy {
    /// Prepares the templates of every kind.
    pub(super) fn templates(&self) -> Templates {
        Templates(Kind::ALL.map(|kind| [false, true].map(|text| self.template(kind, text))))
    }

    /// The template of `kind`: the values a request fills in first (so that it stops looking
    /// once they are filled, see [`fill`]), then the rest.
    fn template(&self, kind: Kind, text: bool) -> Template {
        let cache_control = match kind {
            Kind::Addressed => &self.addressed_cache_control,
            Kind::Plain | Kind::Canonical => &self.cache_control,
        };
        let other_path = match kind {
            Kind::Plain => None,
            Kind::Canonical => Some(CONTENT_LOCATION),
            Kind::Addressed => Some(LINK),
        };
        let head = |with_content: bool| {
            let mut headers = HeaderMap::with_capacity(12);
            headers.insert(ETAG, PLACEHOLDER);
            if with_content {
                headers.insert(CONTENT_TYPE, PLACEHOLDER);
                headers.insert(CONTENT_LENGTH, PLACEHOLDER);
            }
            if let Some(name) = &other_path {
                headers.insert(name, PLACEHOLDER);
            }
            headers.extend(self.common(cache_control));
            if let Some(vary) = self.vary(text) {
                headers.insert(VARY, vary);
            }
            headers
        };
        Template {
            ok: head(true),
            not_modified: head(false),
        }
    }
}

impl Templates {
    fn of(&self, kind: Kind, text: bool) -> &Template {
        &self.0[kind.index()][usize::from(text)]
    }

    /// The `200` of `variant` of `resource` at `address`, to `method` (`HEAD`: no body).
    pub(super) fn ok(
        &self,
        resource: &Resource,
        variant: &Variant,
        address: Address<&HeaderValue>,
        method: &Method,
    ) -> Response<Body> {
        let mut headers = self.of(address.kind(), resource.is_text()).ok.clone();
        fill(&mut headers, true, resource, variant, address);
        let body = if method == Method::HEAD {
            Body::empty()
        } else {
            Body::from(variant.body.clone())
        };
        let mut response = Response::new(body);
        *response.headers_mut() = headers;
        response
    }

    /// The `304` of `variant` of `resource` at `address`: no body, no `Content-Length`, no
    /// `Content-Type`.
    pub(super) fn not_modified(
        &self,
        resource: &Resource,
        variant: &Variant,
        address: Address<&HeaderValue>,
    ) -> Response<Body> {
        let mut headers = self
            .of(address.kind(), resource.is_text())
            .not_modified
            .clone();
        fill(&mut headers, false, resource, variant, address);
        Prepared::bodiless(StatusCode::NOT_MODIFIED, headers)
    }
}

/// Puts the values of `variant` of `resource` at `address` in place of the template's
/// placeholders (a `304` has no `Content-Type` or `Content-Length` to fill), and its
/// `Content-Encoding` when it is encoded. Names are compared, so any order of the entries
/// gives the same answer; the templates put the placeholders first, so that the look stops
/// after them for an identity answer.
fn fill(
    headers: &mut HeaderMap,
    with_content: bool,
    resource: &Resource,
    variant: &Variant,
    address: Address<&HeaderValue>,
) {
    let other_path = match address {
        Address::Plain => None,
        Address::Canonical(value) | Address::Addressed(value) => Some(value),
    };
    let encoded = variant.coding != Coding::Identity;
    let mut left = 1
        + 2 * usize::from(with_content)
        + usize::from(other_path.is_some())
        + usize::from(encoded);
    for (name, value) in headers.iter_mut() {
        let filled = if name == ETAG {
            &variant.etag
        } else if name == CONTENT_TYPE {
            &resource.content_type
        } else if name == CONTENT_LENGTH {
            &variant.content_length
        } else if let (Some(other_path), true) =
            (other_path, name == CONTENT_LOCATION || name == LINK)
        {
            other_path
        } else if encoded && name == CONTENT_ENCODING {
            *value = HeaderValue::from_static(variant.coding.token());
            left -= 1;
            if left == 0 {
                return;
            }
            continue;
        } else {
            continue;
        };
        *value = filled.clone();
        left -= 1;
        if left == 0 {
            return;
        }
    }
}
