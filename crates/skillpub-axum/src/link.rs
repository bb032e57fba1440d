//! A layer that advertises the skills index on the host app's responses with a `Link` header:
//! `</.well-known/agent-skills/index.json>; rel="agent-skills"; type="application/json"`.
//!
//! The header is a convention (spread by scanners such as isitagentready.com), not part of
//! the discovery draft: it helps agents that look at any page find the index.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::header::{CONTENT_TYPE, LINK};
use http::{HeaderMap, HeaderValue, Response, StatusCode};
use skillpub_core::paths::{BasePath, INDEX_PATH};
use tower::{Layer, Service};

/// Which responses get the `Link` header.
#[derive(Clone, Copy)]
enum Which {
    All,
    Html,
    When(fn(StatusCode, &HeaderMap) -> bool),
}

impl Which {
    fn applies(self, status: StatusCode, headers: &HeaderMap) -> bool {
        match self {
            Self::All => true,
            // Compared in place: this runs on every answer of the app.
            Self::Html => headers.get(CONTENT_TYPE).is_some_and(|value| {
                value
                    .as_bytes()
                    .trim_ascii_start()
                    .get(..b"text/html".len())
                    .is_some_and(|start| start.eq_ignore_ascii_case(b"text/html"))
            }),
            Self::When(predicate) => predicate(status, headers),
        }
    }
}

impl fmt::Debug for Which {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::All => "All",
            Self::Html => "Html",
            Self::When(_) => "When(..)",
        })
    }
}

/// Adds the `Link` header that advertises the skills index.
///
/// # Example
///
/// ```
/// use axum::{Router, routing::get};
/// use skillpub_axum::AgentSkillsLinkLayer;
///
/// let app: Router = Router::new()
///     .route("/", get(|| async { axum::response::Html("<h1>Home</h1>") }))
///     .layer(AgentSkillsLinkLayer::html_only());
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct AgentSkillsLinkLayer {
    link: HeaderValue,
    which: Which,
}

impl AgentSkillsLinkLayer {
    /// On every response.
    pub fn all() -> Self {
        Self {
            link: link_to(INDEX_PATH).expect("the index path is a plain URL"),
            which: Which::All,
        }
    }

    /// On responses whose `Content-Type` is `text/html`: the pages people and agents open.
    pub fn html_only() -> Self {
        Self {
            which: Which::Html,
            ..Self::all()
        }
    }

    /// On responses for which `predicate(status, headers)` holds.
    pub fn when(predicate: fn(StatusCode, &HeaderMap) -> bool) -> Self {
        Self {
            which: Which::When(predicate),
            ..Self::all()
        }
    }

    /// Points the link to another index URL, such as one on another origin
    /// (default `/.well-known/agent-skills/index.json`). For a router nested under a path,
    /// [`base_path`](Self::base_path) says it more simply.
    ///
    /// # Errors
    ///
    /// When the URL cannot stand between `<` and `>` in a header.
    pub fn index_url(mut self, url: &str) -> Result<Self, InvalidIndexUrl> {
        self.link = link_to(url).ok_or_else(|| InvalidIndexUrl(url.to_owned()))?;
        Ok(self)
    }

    /// Points the link to the index of a router nested under `path`, the path given to
    /// axum's `Router::nest` (default: empty, the site root). The path was checked where it
    /// was given, by the catalog's build
    /// ([`Catalog::base_path`](skillpub_core::Catalog::base_path), the prefix of its URLs) or
    /// by [`BasePath::new`] (for a catalog whose relative URLs need none), so the layer takes
    /// it as it is and cannot fail.
    ///
    /// # Example
    ///
    /// ```
    /// use axum::Router;
    /// use skillpub_axum::AgentSkillsLinkLayer;
    /// use skillpub_core::{Catalog, paths::BasePath};
    ///
    /// let mut builder = Catalog::builder();
    /// builder.base_path("/tenant");
    /// let catalog = builder.build()?;
    /// let app: Router = Router::new()
    ///     .nest("/tenant", skillpub_axum::router(catalog.clone()))
    ///     // Link: </tenant/.well-known/agent-skills/index.json>; rel="agent-skills"; ...
    ///     .layer(AgentSkillsLinkLayer::html_only().base_path(catalog.base_path()));
    ///
    /// let docs = AgentSkillsLinkLayer::all().base_path(&BasePath::new("/docs/skills")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn base_path(mut self, path: &BasePath) -> Self {
        // A base path is made of URI characters, so the link always forms.
        self.link = link_to(&format!("{path}{INDEX_PATH}"))
            .expect("a base path and the index path are URI characters");
        self
    }
}

/// An index URL that a `Link` header cannot carry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` cannot be a Link target; give a URI reference (percent-encode spaces, quotes, `<`, `>` and the like)"
)]
pub struct InvalidIndexUrl(String);

fn link_to(url: &str) -> Option<HeaderValue> {
    // The characters of an RFC 3986 URI reference.
    let plain = url
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=%".contains(&b));
    if !plain || url.is_empty() {
        return None;
    }
    HeaderValue::from_str(&format!(
        "<{url}>; rel=\"agent-skills\"; type=\"application/json\""
    ))
    .ok()
}

impl<S> Layer<S> for AgentSkillsLinkLayer {
    type Service = AgentSkillsLink<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AgentSkillsLink {
            inner,
            link: self.link.clone(),
            which: self.which,
        }
    }
}

/// The service of [`AgentSkillsLinkLayer`].
#[derive(Debug, Clone)]
pub struct AgentSkillsLink<S> {
    inner: S,
    link: HeaderValue,
    which: Which,
}

impl<S> AgentSkillsLink<S> {
    /// The wrapped service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Unwraps the service.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S, Request, B> Service<Request> for AgentSkillsLink<S>
where
    S: Service<Request, Response = Response<B>>,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        ResponseFuture {
            inner: self.inner.call(request),
            link: self.link.clone(),
            which: self.which,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`AgentSkillsLink`].
    pub struct ResponseFuture<F> {
        #[pin]
        inner: F,
        link: HeaderValue,
        which: Which,
    }
}

impl<F: fmt::Debug> fmt::Debug for ResponseFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseFuture")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<F, B, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    type Output = Result<Response<B>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = match this.inner.poll(cx) {
            Poll::Ready(Ok(response)) => response,
            other => return other,
        };
        let applies = this.which.applies(response.status(), response.headers());
        let present = response
            .headers()
            .get_all(LINK)
            .iter()
            .any(|value| value == this.link);
        if applies && !present {
            response.headers_mut().append(LINK, this.link.clone());
        }
        Poll::Ready(Ok(response))
    }
}
