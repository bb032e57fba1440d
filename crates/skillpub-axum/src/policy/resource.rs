//! The answers of one published artifact: a variant per content coding, each with its strong
//! entity tag and the values of its own headers, which variant a request gets, and the making
//! of the encoded ones.

use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use bytes::Bytes;
use http::HeaderValue;
use skillpub_core::Digest;

use super::accept_encoding::AcceptEncoding;
use super::deferred::{Deferred, Ticket};
use super::encoder;
use super::settings::Policy;
use crate::coding::{self, Coding};

/// One representation of an artifact (its bytes in one content coding): the values of the
/// headers that are its own. The rest of its answers' headers are shared by every artifact
/// of the same kind (see `template.rs`), so a variant costs its bytes and three values.
#[derive(Debug)]
pub(super) struct Variant {
    /// The quoted strong entity tag.
    pub(super) etag: HeaderValue,
    pub(super) content_length: HeaderValue,
    pub(super) body: Bytes,
    pub(super) coding: Coding,
}

impl Variant {
    fn new(coding: Coding, etag: HeaderValue, body: Bytes) -> Self {
        Self {
            etag,
            content_length: HeaderValue::from(body.len()),
            body,
            coding,
        }
    }
}

/// The quoted strong entity tag of an artifact's bytes: the digest, `"sha256:<hex>"`.
pub(super) fn entity_tag(digest: Digest) -> HeaderValue {
    super::address::exact(format!("\"{digest}\"")).expect("a quoted digest is a valid header value")
}

/// The entity tag of the same bytes in `coding`: the coding appended to the identity tag
/// (`"sha256:<hex>-br"`, `"sha256:<hex>-gzip"`, as Apache's `mod_deflate` does).
fn coded_tag(identity: &HeaderValue, coding: Coding) -> HeaderValue {
    let quoted = identity.as_bytes();
    let opaque = &quoted[..quoted.len().saturating_sub(1)];
    let mut tag = Vec::with_capacity(quoted.len() + 1 + coding.token().len());
    tag.extend_from_slice(opaque);
    tag.push(b'-');
    tag.extend_from_slice(coding.token().as_bytes());
    tag.push(b'"');
    HeaderValue::from_maybe_shared(Bytes::from(tag))
        .expect("a quoted digest is a valid header value")
}

/// The answers for one published artifact: its type and one [`Variant`] per content coding.
#[derive(Debug)]
pub(crate) struct Resource {
    pub(super) content_type: HeaderValue,
    /// The bytes the digest covers, `Content-Encoding: identity`.
    pub(super) identity: Variant,
    /// Whether it gets encoded variants: text does; archives, images and other binaries
    /// never do.
    text: bool,
    /// The encoded variants, once a request has asked for one.
    encoded: OnceLock<Box<Encoded>>,
}

/// The brotli and gzip variants of a text artifact, each made on first demand, on an encoder
/// thread: its first requests wait for it without holding a thread, later ones pick it.
/// `None` inside if the encoder failed.
#[derive(Debug, Default)]
struct Encoded {
    brotli: Deferred<Option<Variant>>,
    gzip: Deferred<Option<Variant>>,
}

/// Which variant a request gets.
#[derive(Debug)]
pub(super) enum Selected<'a> {
    /// This one.
    Variant(&'a Variant),
    /// None: the request refuses every coding the artifact has, identity included.
    NotAcceptable,
    /// The variant in this coding, which is not made yet: the choice is made again once it
    /// is (or once making it has failed).
    Pending(Coding),
}

/// The codings whose variant could not be made for a request (no thread could be started, or
/// the encoder panicked): that request is answered as if the artifact had no such variant,
/// and a later request tries again.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Unavailable {
    brotli: bool,
    gzip: bool,
}

impl Unavailable {
    /// `coding` is unavailable too.
    pub(super) fn and(mut self, coding: Coding) -> Self {
        match coding {
            Coding::Brotli => self.brotli = true,
            Coding::Gzip => self.gzip = true,
            Coding::Identity => {}
        }
        self
    }

    fn has(self, coding: Coding) -> bool {
        match coding {
            Coding::Brotli => self.brotli,
            Coding::Gzip => self.gzip,
            Coding::Identity => false,
        }
    }
}

impl Resource {
    /// What identifies it: the entity tag of its bytes and their type.
    pub(super) fn key(&self) -> (HeaderValue, HeaderValue) {
        (self.identity.etag.clone(), self.content_type.clone())
    }

    /// Whether its answers vary on `Accept-Encoding`.
    pub(super) fn is_text(&self) -> bool {
        self.text
    }

    /// The 64 hex digits of its digest, as its entity tag holds them.
    pub(super) fn hex(&self) -> &[u8] {
        let tag = self.identity.etag.as_bytes();
        tag.get(DIGEST_HEX).unwrap_or_default()
    }

    /// The variant to answer a `GET` or `HEAD` with (RFC 9110, 12.5.3): identity for a
    /// request without `Accept-Encoding`; otherwise the acceptable coding it prefers, skipping
    /// a coding that would not make the bytes smaller while identity is acceptable, and the
    /// `unavailable` ones. [`Selected::NotAcceptable`] when the request refuses every coding
    /// this artifact has, identity included (`identity;q=0`, `*;q=0`): the answer is then
    /// `406`. [`Selected::Pending`] when the choice depends on a variant not made yet.
    pub(super) fn select(
        &self,
        request: &http::HeaderMap,
        unavailable: Unavailable,
    ) -> Selected<'_> {
        let Some(accept) = AcceptEncoding::of(request) else {
            return Selected::Variant(&self.identity);
        };
        let mut larger = None;
        for coding in accept.preferred() {
            if coding == Coding::Identity {
                return Selected::Variant(&self.identity);
            }
            let Some(cell) = self.cell(coding) else {
                continue;
            };
            if unavailable.has(coding) {
                continue;
            }
            match cell.get() {
                None => return Selected::Pending(coding),
                Some(None) => {}
                Some(Some(variant)) => {
                    if variant.body.len() < self.identity.body.len() {
                        return Selected::Variant(variant);
                    }
                    larger = larger.or(Some(variant));
                }
            }
        }
        larger.map_or(Selected::NotAcceptable, Selected::Variant)
    }

    /// Waits for the variant in `coding`, starting its making on the encoder if no one has:
    /// `Ready(true)` once it is made, `Ready(false)` if the attempt waited for failed.
    /// `ticket` is the waiter's place; give it back with [`forget`](Self::forget) if the
    /// waiter stops waiting before this is ready.
    pub(super) fn poll_variant(
        self: &Arc<Self>,
        coding: Coding,
        ticket: &mut Option<Ticket>,
        cx: &mut Context<'_>,
    ) -> Poll<bool> {
        let Some(cell) = self.cell(coding) else {
            return Poll::Ready(false);
        };
        let start = || {
            let making = Making {
                resource: Arc::clone(self),
                coding,
            };
            encoder::run(Box::new(move || making.run()));
        };
        cell.poll(ticket, cx, start)
    }

    /// Gives up a waiter's place in the making of the variant in `coding`.
    pub(super) fn forget(&self, coding: Coding, ticket: Ticket) {
        if let Some(cell) = self.cell(coding) {
            cell.forget(ticket);
        }
    }

    /// Where the variant in `coding` is kept (made room for on the first look); `None` for
    /// identity and for an artifact that is never encoded.
    fn cell(&self, coding: Coding) -> Option<&Deferred<Option<Variant>>> {
        if !self.text {
            return None;
        }
        let encoded = self.encoded.get_or_init(Box::default);
        match coding {
            Coding::Brotli => Some(&encoded.brotli),
            Coding::Gzip => Some(&encoded.gzip),
            Coding::Identity => None,
        }
    }

    /// The variant in `coding`.
    fn encode(&self, coding: Coding) -> Option<Variant> {
        let body = coding.encode(&self.identity.body)?;
        Some(Variant::new(
            coding,
            coded_tag(&self.identity.etag, coding),
            body,
        ))
    }
}

/// Where the 64 hex digits sit in an entity tag: after `"sha256:`.
const DIGEST_HEX: std::ops::Range<usize> = 8..72;

/// The making of one variant, on an encoder thread. Dropped without having stored the
/// variant (the encoder panicked, or no thread could take it), it ends the attempt without
/// one, so its waiters go on and a later request tries again.
struct Making {
    resource: Arc<Resource>,
    coding: Coding,
}

impl Making {
    fn run(self) {
        let variant = self.resource.encode(self.coding);
        if let Some(cell) = self.resource.cell(self.coding) {
            cell.set(variant);
        }
    }
}

impl Drop for Making {
    fn drop(&mut self) {
        if let Some(cell) = self.resource.cell(self.coding)
            && cell.get().is_none()
        {
            cell.abandon();
        }
    }
}

impl Policy {
    /// Prepares the answers for an artifact served with `content_type`, whose bytes have the
    /// entity tag `etag` ([`entity_tag`] of their digest). Its encoded variants are made
    /// later, on first demand, by the encoder.
    pub(super) fn resource(
        &self,
        content_type: HeaderValue,
        body: Bytes,
        etag: HeaderValue,
    ) -> Resource {
        let text = coding::is_encoded(content_type.to_str().unwrap_or_default());
        Resource {
            content_type,
            identity: Variant::new(Coding::Identity, etag, body),
            text,
            encoded: OnceLock::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::task::Waker;

    use http::HeaderMap;
    use http::header::ACCEPT_ENCODING;

    use super::*;

    fn text_resource() -> Arc<Resource> {
        let text = "Fill in every field of the form, then sign it.\n".repeat(40);
        let etag = entity_tag(Digest::of(text.as_bytes()));
        let content_type = HeaderValue::from_static(skillpub_core::media::MARKDOWN);
        Arc::new(Policy::default().resource(content_type, Bytes::from(text), etag))
    }

    /// A making that no thread took (or that panicked) is dropped unrun: the request that
    /// waited for it is answered without its coding, and the next request makes it.
    #[test]
    fn a_making_dropped_unrun_leaves_the_variant_to_the_next_request() {
        let resource = text_resource();
        let mut br = HeaderMap::new();
        br.insert(ACCEPT_ENCODING, HeaderValue::from_static("br"));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(matches!(
            resource.select(&br, Unavailable::default()),
            Selected::Pending(Coding::Brotli)
        ));

        let cell = resource.cell(Coding::Brotli).unwrap();
        let mut ticket = None;
        let lost = || {
            drop(Making {
                resource: Arc::clone(&resource),
                coding: Coding::Brotli,
            });
        };
        assert_eq!(cell.poll(&mut ticket, &mut cx, lost), Poll::Pending);
        assert_eq!(cell.poll(&mut ticket, &mut cx, || {}), Poll::Ready(false));
        let without = Unavailable::default().and(Coding::Brotli);
        let Selected::Variant(variant) = resource.select(&br, without) else {
            panic!("identity is acceptable");
        };
        assert_eq!(
            variant.etag,
            entity_tag(Digest::of(&resource.identity.body))
        );

        let mut ticket = None;
        let started = std::time::Instant::now();
        while resource
            .poll_variant(Coding::Brotli, &mut ticket, &mut cx)
            .is_pending()
        {
            assert!(started.elapsed() < std::time::Duration::from_secs(60));
            std::thread::yield_now();
        }
        let Selected::Variant(variant) = resource.select(&br, Unavailable::default()) else {
            panic!("the variant is made");
        };
        let digest = Digest::of(&resource.identity.body);
        assert_eq!(variant.etag, format!("\"{digest}-br\"").as_str());
        assert_eq!(resource.hex(), digest.hex().as_bytes());
    }
}
