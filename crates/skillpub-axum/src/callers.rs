//! Which catalog each caller is served ([`Callers`]): a key the app computes from the request
//! (a principal or tenant its auth middleware put into the request's extensions, or anything
//! else read from the request's parts), a map from keys to catalogs, and which of those views
//! are private.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use axum::body::Body;
use http::Request;
use http::request::Parts;
use skillpub_core::LiveCatalog;

/// Whether a view of a catalog is served to anyone or only to callers with credentials.
///
/// A [`Private`](Self::Private) view answers under the private policy of the router
/// ([`RouterBuilder::private`](crate::RouterBuilder::private)): never `public`, `Vary` on the
/// credential headers, CORS with credentials for the allowed origins only. A
/// [`Public`](Self::Public) view keeps the public policy, and, in a router that also has
/// private views, `Vary` on the credential headers, so that a shared cache never hands one
/// caller's answer to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// For anyone: the public policy.
    Public,
    /// For callers with credentials: the private policy.
    Private,
}

/// The key of a request: computed from its parts (method, URI, headers, extensions), once
/// per request.
type KeyFn<K> = dyn Fn(&Parts) -> Option<K> + Send + Sync;

/// The catalogs of a router that serves callers differently: a key computed from each request
/// (by [`by_extension`](Self::by_extension) or [`by`](Self::by)), a catalog per key with its
/// [`Visibility`], and optionally a catalog for every other request (no key, or a key without
/// a catalog). A request that gets neither gets the `404` of the policy on every path, as an
/// unpublished path does.
///
/// Who a caller is stays the app's business: its own auth middleware (tower-http's
/// `ValidateRequestHeaderLayer`, a session layer, a reverse proxy's header) decides, and
/// puts what it found into the request's extensions; [`Callers`] only reads it. A request
/// with credentials that the middleware refuses never reaches the router: wrap the
/// middleware in a [`RefusalLayer`](crate::RefusalLayer) so that its `401` and `403` are
/// useful to agents and browsers.
///
/// [`Hosts`](crate::Hosts) is the case where the key is the request's host.
///
/// # Example
///
/// ```
/// use skillpub_axum::{Callers, Private, RouterBuilder, Visibility};
/// use skillpub_core::{Catalog, Skill};
///
/// /// What the app's auth middleware puts into the extensions of a request it let in.
/// #[derive(Debug, Clone, PartialEq, Eq, Hash)]
/// enum Team {
///     Staff,
/// }
///
/// let public = Catalog::new([Skill::from_static(
///     "---\nname: greeting\ndescription: Greets the user by name.\n---\n",
/// )])?;
/// let internal = Catalog::new([Skill::from_static(
///     "---\nname: deploy\ndescription: Deploys the internal services.\n---\n",
/// )])?;
/// let callers = Callers::by_extension::<Team>()
///     .catalog(Team::Staff, Visibility::Private, internal)
///     .default_catalog(Visibility::Public, public);
/// let app: axum::Router = RouterBuilder::callers(callers)
///     .private(Private::new().allow_origins(["https://app.example.com"]))
///     .build();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub struct Callers<K> {
    key: Arc<KeyFn<K>>,
    keys: HashMap<K, (LiveCatalog, Visibility)>,
    default: Option<(LiveCatalog, Visibility)>,
}

impl<K> Callers<K>
where
    K: Clone + Eq + Hash + Send + Sync + 'static,
{
    /// The key of a request is the `K` in its extensions (put there by the app's auth
    /// middleware), `None` when it has none.
    pub fn by_extension<T>() -> Self
    where
        T: Into<K> + Clone + Send + Sync + 'static,
    {
        Self::by(|parts| parts.extensions.get::<T>().cloned().map(Into::into))
    }

    /// The key of a request is what `key` computes from its parts.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_axum::{Callers, Visibility};
    /// use skillpub_core::Catalog;
    ///
    /// // A tenant named by a header that a trusted proxy in front sets.
    /// let callers = Callers::by(|parts| {
    ///     let tenant = parts.headers.get("x-tenant")?.to_str().ok()?;
    ///     Some(tenant.to_owned())
    /// })
    /// .catalog("acme".to_owned(), Visibility::Private, Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn by(key: impl Fn(&Parts) -> Option<K> + Send + Sync + 'static) -> Self {
        Self {
            key: Arc::new(key),
            keys: HashMap::new(),
            default: None,
        }
    }

    /// Serves `catalog` to the requests whose key is `key`, as a view of `visibility`; a
    /// catalog given before for the same key is replaced.
    pub fn catalog(
        mut self,
        key: K,
        visibility: Visibility,
        catalog: impl Into<LiveCatalog>,
    ) -> Self {
        self.keys.insert(key, (catalog.into(), visibility));
        self
    }

    /// Serves `catalog` to the requests without a key, or whose key has no catalog, as a view
    /// of `visibility`.
    pub fn default_catalog(
        mut self,
        visibility: Visibility,
        catalog: impl Into<LiveCatalog>,
    ) -> Self {
        self.default = Some((catalog.into(), visibility));
        self
    }
}

impl<K> fmt::Debug for Callers<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callers")
            .field("keys", &self.keys.len())
            .field("default", &self.default.is_some())
            .finish_non_exhaustive()
    }
}

impl<K> Clone for Callers<K>
where
    K: Clone,
{
    fn clone(&self) -> Self {
        Self {
            key: Arc::clone(&self.key),
            keys: self.keys.clone(),
            default: self.default.clone(),
        }
    }
}

/// What a router needs of a [`Callers`] (or of [`Hosts`](crate::Hosts)), without its key
/// type: the views, and which view a request gets.
pub(crate) trait Choose: Send + Sync + fmt::Debug {
    /// Every view, with its visibility.
    fn views(&self) -> Vec<(LiveCatalog, Visibility)>;
    /// The index in [`views`](Self::views) of the view for `request`, `None` for none. The
    /// request is given back as it came.
    fn choose(&self, request: &mut Request<Body>) -> Option<usize>;
}

/// A [`Callers`] with its keys numbered, as a router looks them up.
pub(crate) struct Chooser<K> {
    key: Arc<KeyFn<K>>,
    index: HashMap<K, usize>,
    views: Vec<(LiveCatalog, Visibility)>,
    default: Option<usize>,
}

impl<K> fmt::Debug for Chooser<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chooser")
            .field("views", &self.views.len())
            .field("default", &self.default)
            .finish_non_exhaustive()
    }
}

impl<K> Callers<K>
where
    K: Clone + Eq + Hash + Send + Sync + 'static,
{
    pub(crate) fn into_chooser(self) -> Arc<dyn Choose> {
        let mut views = Vec::with_capacity(self.keys.len() + 1);
        let mut index = HashMap::with_capacity(self.keys.len());
        for (key, view) in self.keys {
            index.insert(key, views.len());
            views.push(view);
        }
        let default = self.default.map(|view| {
            views.push(view);
            views.len() - 1
        });
        Arc::new(Chooser {
            key: self.key,
            index,
            views,
            default,
        })
    }
}

impl<K> Choose for Chooser<K>
where
    K: Eq + Hash + Send + Sync + 'static,
{
    fn views(&self) -> Vec<(LiveCatalog, Visibility)> {
        self.views.clone()
    }

    fn choose(&self, request: &mut Request<Body>) -> Option<usize> {
        // The key function reads the parts: the request is taken apart and put together
        // again around it (moves, no copy).
        let (parts, body) = std::mem::take(request).into_parts();
        let chosen = (self.key)(&parts)
            .and_then(|key| self.index.get(&key).copied())
            .or(self.default);
        *request = Request::from_parts(parts, body);
        chosen
    }
}
