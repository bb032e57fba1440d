//! A layer for the app's own auth: its `401` and `403` made useful to agents and browsers.
//!
//! Who may read a private catalog is the app's to decide (tower-http's
//! `ValidateRequestHeaderLayer`, a session layer, a proxy). Its refusals, as they come, are
//! often an empty `401` without a challenge, cacheable by default rules and unreadable by a
//! page on another origin. Put [`RefusalLayer`] outside the auth layer, and each refusal gets
//! what RFC 9110 and the private policy ask: a `401` names its `WWW-Authenticate` challenge
//! (15.5.2 requires one), both are `private, no-store` (a cached refusal would outlive a
//! login), vary on the credential headers and `Origin`, carry the CORS headers of an allowed
//! origin (so a browser agent can read why, `WWW-Authenticate` included), and, when the app
//! gave no body, a short `text/plain` one that says what to do: `401` is "log in", `403` is
//! "not allowed". A CORS preflight the auth refused is answered as a private view's preflight
//! instead, since a browser never sends credentials with one.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use http::header::{
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_REQUEST_METHOD, CACHE_CONTROL, CONTENT_LENGTH,
    CONTENT_TYPE, ORIGIN, VARY, WWW_AUTHENTICATE, X_CONTENT_TYPE_OPTIONS,
};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use tower::{Layer, Service};

use crate::policy::{Private, PrivateError, RefusedPreflight, Rules, allow_credentials};

/// The body of a `401` that had none: the caller must log in (send credentials).
pub const UNAUTHORIZED_TEXT: &str =
    "Log in: this skills catalog needs credentials; WWW-Authenticate names the scheme.\n";

/// The body of a `403` that had none: the caller's credentials do not give access.
pub const FORBIDDEN_TEXT: &str =
    "Not allowed: these credentials do not give access to this skills catalog.\n";

/// Makes the `401` and `403` of the layers it wraps useful to agents and browsers (see the
/// [module docs](crate#private-catalogs)); every other answer passes untouched.
///
/// # Example
///
/// ```
/// use axum::body::Body;
/// use http::{Request, StatusCode};
/// use skillpub_axum::{Private, RefusalLayer};
/// use tower::{ServiceBuilder, ServiceExt};
/// use tower_http::validate_request::ValidateRequestHeaderLayer;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let private = Private::new().allow_origins(["https://app.example.com"]);
/// let app: axum::Router = axum::Router::new()
///     .route("/", axum::routing::get(|| async { "secret" }))
///     .layer(
///         ServiceBuilder::new()
///             .layer(RefusalLayer::new(&private)?)
///             .layer(ValidateRequestHeaderLayer::custom(|request: &mut Request<Body>| {
///                 let token = request.headers().get("authorization");
///                 if token.is_some_and(|t| t == "Bearer let-me-in") {
///                     Ok(())
///                 } else {
///                     Err(http::Response::builder().status(401).body(Body::empty()).unwrap())
///                 }
///             })),
///     );
/// let request = Request::get("/")
///     .header("origin", "https://app.example.com")
///     .header("authorization", "Bearer wrong")
///     .body(Body::empty())?;
/// let refused = app.oneshot(request).await?;
/// assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
/// assert_eq!(refused.headers()["www-authenticate"], "Bearer realm=\"agent-skills\"");
/// assert_eq!(refused.headers()["cache-control"], "private, no-store");
/// assert_eq!(refused.headers()["access-control-allow-origin"], "https://app.example.com");
/// let body = axum::body::to_bytes(refused.into_body(), 1024).await?;
/// assert!(body.starts_with(b"Log in"));
/// # Ok(())
/// # }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(run()).unwrap();
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct RefusalLayer {
    rules: Arc<Rules>,
    preflight: Arc<RefusedPreflight>,
}

impl RefusalLayer {
    /// The layer for the private policy `private` (its allowed origins, credential headers,
    /// challenge and error `Cache-Control`).
    ///
    /// # Errors
    ///
    /// A setting [`Private::check`] refuses.
    pub fn new(private: &Private) -> Result<Self, PrivateError> {
        let rules = Arc::new(private.rules()?);
        Ok(Self {
            preflight: Arc::new(RefusedPreflight::new(&rules)),
            rules,
        })
    }
}

impl<S> Layer<S> for RefusalLayer {
    type Service = Refusal<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Refusal {
            inner,
            rules: Arc::clone(&self.rules),
            preflight: Arc::clone(&self.preflight),
        }
    }
}

/// The service of [`RefusalLayer`].
#[derive(Clone)]
pub struct Refusal<S> {
    inner: S,
    rules: Arc<Rules>,
    preflight: Arc<RefusedPreflight>,
}

impl<S> Refusal<S> {
    /// The wrapped service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// The wrapped service, unwrapped.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S: fmt::Debug> fmt::Debug for Refusal<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Refusal")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for Refusal<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    ResBody: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    ResBody::Error: Into<axum::BoxError>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = RefusalFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let origin = self.rules.allowed_origin(request.headers());
        let preflight = (request.method() == Method::OPTIONS
            && request.headers().contains_key(ORIGIN)
            && request
                .headers()
                .contains_key(ACCESS_CONTROL_REQUEST_METHOD))
        .then(|| Arc::clone(&self.preflight));
        RefusalFuture {
            inner: self.inner.call(request),
            rules: Arc::clone(&self.rules),
            origin,
            preflight,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Refusal`].
    pub struct RefusalFuture<F> {
        #[pin]
        inner: F,
        rules: Arc<Rules>,
        origin: Option<HeaderValue>,
        // The private preflight, when the request is a CORS preflight.
        preflight: Option<Arc<RefusedPreflight>>,
    }
}

impl<F: fmt::Debug> fmt::Debug for RefusalFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RefusalFuture")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<F, B, E> Future for RefusalFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Output = Result<Response<Body>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.inner.poll(cx) {
            Poll::Ready(Ok(response)) => response,
            Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
            Poll::Pending => return Poll::Pending,
        };
        let text = match response.status() {
            StatusCode::UNAUTHORIZED => UNAUTHORIZED_TEXT,
            StatusCode::FORBIDDEN => FORBIDDEN_TEXT,
            _ => return Poll::Ready(Ok(response.map(Body::new))),
        };
        if let Some(preflight) = this.preflight {
            return Poll::Ready(Ok(preflight.response(this.origin.take())));
        }
        Poll::Ready(Ok(refusal(response, text, this.rules, this.origin.take())))
    }
}

/// `response`, a `401` or `403`, with the headers of the private policy, and `text` as its
/// body when it had none.
fn refusal<B>(
    response: Response<B>,
    text: &'static str,
    rules: &Rules,
    origin: Option<HeaderValue>,
) -> Response<Body>
where
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    let (mut parts, body) = response.into_parts();
    let empty = body.size_hint().exact() == Some(0);
    let body = if empty {
        parts.headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        parts
            .headers
            .insert(CONTENT_LENGTH, HeaderValue::from(text.len()));
        Body::from(text)
    } else {
        Body::new(body)
    };
    let headers = &mut parts.headers;
    if parts.status == StatusCode::UNAUTHORIZED && !headers.contains_key(WWW_AUTHENTICATE) {
        headers.insert(WWW_AUTHENTICATE, rules.challenge.clone());
    }
    headers.insert(CACHE_CONTROL, rules.error_cache_control.clone());
    headers.insert(VARY, rules.vary_with_origin(false));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if let Some(origin) = origin {
        allow_credentials(headers, origin);
        headers.insert(
            ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("WWW-Authenticate"),
        );
    }
    Response::from_parts(parts, body)
}
