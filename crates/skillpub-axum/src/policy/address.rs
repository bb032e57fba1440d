//! Which of its two paths an artifact's answer is for, and the header that names the other.
//!
//! Every `SKILL.md` and archive is served at its canonical path and at its addressed one
//! (`sha256-<hex>/` after the folder, see [`skillpub_core::paths::addressed_path`]). The two
//! answers have the same bytes, type and `ETag`; they differ in how long they may be cached
//! (the addressed bytes never change) and in the header that ties each to the other:
//! `Content-Location` on the canonical answer names the addressed URL of the representation
//! sent (RFC 9110, 8.7), and `Link: <...>; rel="canonical"` on the addressed answer names the
//! canonical URL (RFC 6596). Both are path-absolute, with the catalog's base path: a client
//! resolves them against the request's URL, whatever host it asked.

use http::HeaderValue;
use skillpub_core::catalog::Artifact;

/// Which path an answer is for, with the header value that names the other path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Address<V> {
    /// A path that is the only one of its artifact: the index, a supporting file, the
    /// legacy layout, the API catalog.
    Plain,
    /// The canonical path of an addressed artifact, with its `Content-Location`.
    Canonical(V),
    /// The addressed path, with its `Link`.
    Addressed(V),
}

impl<V> Address<V> {
    /// Which of the prepared header templates the answer starts from.
    pub(super) fn kind(&self) -> Kind {
        match self {
            Self::Plain => Kind::Plain,
            Self::Canonical(_) => Kind::Canonical,
            Self::Addressed(_) => Kind::Addressed,
        }
    }
}

impl<V> Address<V> {
    /// The same address with `f` of its value.
    pub(super) fn map<W>(self, f: impl FnOnce(V) -> W) -> Address<W> {
        match self {
            Self::Plain => Address::Plain,
            Self::Canonical(value) => Address::Canonical(f(value)),
            Self::Addressed(value) => Address::Addressed(f(value)),
        }
    }

    /// The same address, borrowed.
    pub(super) fn as_ref(&self) -> Address<&V> {
        match self {
            Self::Plain => Address::Plain,
            Self::Canonical(value) => Address::Canonical(value),
            Self::Addressed(value) => Address::Addressed(value),
        }
    }
}

/// The kinds of answers of an artifact, by how they are cached and what ties them together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Plain,
    Canonical,
    Addressed,
}

impl Kind {
    /// Every kind, in the order of [`index`](Self::index).
    pub(super) const ALL: [Self; 3] = [Self::Plain, Self::Canonical, Self::Addressed];

    pub(super) fn index(self) -> usize {
        match self {
            Self::Plain => 0,
            Self::Canonical => 1,
            Self::Addressed => 2,
        }
    }
}

/// The header values of an addressed artifact's two answers: `Content-Location` for the
/// canonical one, `Link` for the addressed one. Boxed in the table, since only `SKILL.md`s and
/// archives have them.
#[derive(Debug)]
pub(super) struct Faces {
    pub(super) content_location: HeaderValue,
    pub(super) link: HeaderValue,
}

impl Faces {
    /// The faces of `artifact` under `base_path`, for an artifact that has an addressed path.
    /// (Its paths are a skill name and a suffix, and the base path is checked by the catalog,
    /// so both are valid header values; were one not, the artifact would have no faces, and
    /// be served at its canonical path alone.)
    pub(super) fn of(artifact: &Artifact, base_path: &str) -> Option<Self> {
        let addressed = artifact.addressed_path()?;
        Some(Self {
            content_location: exact(format!("{base_path}{addressed}"))?,
            link: link(artifact, base_path)?,
        })
    }
}

/// `Link: <{base_path}{canonical path}>; rel="canonical"` for the addressed answer of
/// `artifact`.
pub(super) fn link(artifact: &Artifact, base_path: &str) -> Option<HeaderValue> {
    exact(format!(
        "<{base_path}{}>; rel=\"canonical\"",
        artifact.path()
    ))
}

/// `text` as a header value that holds no more memory than its bytes: `format!` leaves
/// room to grow, which a value kept for every artifact would keep for good.
pub(super) fn exact(text: String) -> Option<HeaderValue> {
    let bytes = bytes::Bytes::from(text.into_boxed_str().into_boxed_bytes());
    HeaderValue::from_maybe_shared(bytes).ok()
}
