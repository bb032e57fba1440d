//! The checks of `skillpub check`, run in process against a tower service such as an axum
//! `Router`, for a user's own tests: no network, no port.
//!
//! # Example
//!
//! With an axum app, in a `#[tokio::test]`: `skillpub::testing::assert_conforms(app).await;`.
//! Any tower service works; this one publishes nothing, so the checks fail:
//!
//! ```
//! use http::{Request, Response, StatusCode};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let nothing = tower::service_fn(|_: Request<String>| async {
//!     let mut response = Response::new(String::new());
//!     *response.status_mut() = StatusCode::NOT_FOUND;
//!     Ok::<_, std::convert::Infallible>(response)
//! });
//! let report = skillpub_check::testing::check_service(nothing).await;
//! assert!(!report.passed());
//! let failure = report.failures().next().unwrap();
//! assert_eq!((failure.subject.as_str(), failure.code()), ("index", "index.status"));
//! # });
//! ```

use std::fmt::Display;

use http::{Request, Response};
use skillpub_client::Client;
use skillpub_client::credentials::Credentials;
use tower::Service;
use url::Url;

use crate::check::check;
use crate::options::CheckOptions;
use crate::report::Report;

/// The error type `http-body-util` boxes body errors into, which the transport takes.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The transport the checks run on in process, from skillpub-client.
pub use skillpub_client::ServiceTransport;
/// The credentials [`TestOptions`] sends, from skillpub-client.
pub use skillpub_client::credentials::{BearerToken, Header};

/// The origin the in-process checks pretend the service is served from.
pub const TEST_ORIGIN: &str = "http://skillpub.test";

/// Runs every check of `skillpub check` against the service, as if it were served at
/// [`TEST_ORIGIN`].
///
/// Call it from a Tokio runtime (a `#[tokio::test]`); the checks run on blocking threads.
///
/// # Panics
///
/// If it is not called from a Tokio runtime.
pub async fn check_service<S, B>(service: S) -> Report
where
    S: Service<Request<String>, Response = Response<B>> + Clone + Send + 'static,
    S::Error: Display,
    S::Future: Send,
    B: http_body::Body + Send,
    B::Error: Into<BoxError>,
{
    check_service_at(service, "/").await
}

/// Runs every check of `skillpub check` against the service mounted under `base` (such as
/// `/tenant` for an app that `.nest("/tenant", ...)`s the skills, or an index path such as
/// `/v1/skills.json`), as `skillpub check http://host/tenant` would: the prefix is fetched once
/// (an answer with a `Link` `rel="agent-skills"` makes it a page, whose index is followed),
/// then the index is looked for under the prefix, and every probe stays under it.
///
/// # Example
///
/// ```
/// use http::{Request, Response, StatusCode};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
/// let seen = asked.clone();
/// let nothing = tower::service_fn(move |request: Request<String>| {
///     seen.lock().unwrap().push(request.uri().path().to_owned());
///     async {
///         let mut response = Response::new(String::new());
///         *response.status_mut() = StatusCode::NOT_FOUND;
///         Ok::<_, std::convert::Infallible>(response)
///     }
/// });
/// let report = skillpub_check::testing::check_service_at(nothing, "/tenant").await;
/// assert!(!report.passed());
/// let asked = asked.lock().unwrap();
/// assert_eq!(asked[..2], ["/tenant", "/tenant/.well-known/agent-skills/index.json"]);
/// # });
/// ```
///
/// # Panics
///
/// If it is not called from a Tokio runtime.
pub async fn check_service_at<S, B>(service: S, base: &str) -> Report
where
    S: Service<Request<String>, Response = Response<B>> + Clone + Send + 'static,
    S::Error: Display,
    S::Future: Send,
    B: http_body::Body + Send,
    B::Error: Into<BoxError>,
{
    check_service_with(service, &TestOptions::new().at(base)).await
}

/// How the in-process checks call the service: under which path, with which credentials,
/// and whether every answer must follow the private policy. A consuming builder; the default
/// is the root path, no credentials and no private expectation, as [`check_service`] runs.
///
/// With credentials, every answer to a request that carried them must follow the private
/// policy (`private.*` lines: never `public`, `private` or `no-store`, `Vary` naming the
/// credential headers, no `*` with `Access-Control-Allow-Credentials`); with
/// [`private`](Self::private), every answer must, credentials or not.
///
/// # Example
///
/// ```
/// use skillpub_check::testing::{BearerToken, TestOptions};
///
/// let options = TestOptions::new()
///     .at("/tenant")
///     .bearer(&BearerToken::new("test-token")?)
///     .header("X-Tenant: acme".parse()?);
/// assert!(!format!("{options:?}").contains("test-token"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct TestOptions {
    base: String,
    credentials: Credentials,
    private: bool,
}

impl Default for TestOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl TestOptions {
    /// The root path, no credentials, no private expectation.
    pub fn new() -> Self {
        let origin = Url::parse(TEST_ORIGIN).expect("TEST_ORIGIN is a URL");
        Self {
            base: "/".to_owned(),
            credentials: Credentials::new(&origin).expect("TEST_ORIGIN is an http origin"),
            private: false,
        }
    }

    /// Checks the skills mounted under `base` (see [`check_service_at`]).
    pub fn at(mut self, base: &str) -> Self {
        base.trim_start_matches('/').clone_into(&mut self.base);
        self.base.insert(0, '/');
        self
    }

    /// Sends a header with every request, as a credential of [`TEST_ORIGIN`].
    pub fn header(mut self, header: Header) -> Self {
        self.credentials = self.credentials.with_header(header);
        self
    }

    /// Sends `Authorization: Bearer <token>` with every request.
    pub fn bearer(mut self, token: &BearerToken) -> Self {
        self.credentials = self.credentials.with_bearer(token);
        self
    }

    /// Expects the private policy of every answer, credentials or not, as a router built
    /// with the private switch serves it.
    pub fn private(mut self) -> Self {
        self.private = true;
        self
    }
}

/// Runs every check of `skillpub check` against the service as `options` say: under their
/// path, with their credentials, expecting the private policy where they do.
///
/// # Example
///
/// A catalog for callers with a token, which a public policy would leak to shared caches:
///
/// ```
/// use http::{HeaderValue, Request, Response, StatusCode, header};
/// use skillpub_check::testing::{BearerToken, TestOptions, check_service_with};
///
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// let public = tower::service_fn(|_: Request<String>| async {
///     let mut response = Response::new(String::new());
///     *response.status_mut() = StatusCode::NOT_FOUND;
///     let cache = HeaderValue::from_static("public, max-age=300");
///     response.headers_mut().insert(header::CACHE_CONTROL, cache);
///     Ok::<_, std::convert::Infallible>(response)
/// });
/// let options = TestOptions::new().bearer(&BearerToken::new("t0ken").unwrap());
/// let report = check_service_with(public, &options).await;
/// assert!(report.failures().any(|failure| failure.code() == "private.public"));
/// # });
/// ```
///
/// # Panics
///
/// If it is not called from a Tokio runtime.
pub async fn check_service_with<S, B>(service: S, options: &TestOptions) -> Report
where
    S: Service<Request<String>, Response = Response<B>> + Clone + Send + 'static,
    S::Error: Display,
    S::Future: Send,
    B: http_body::Body + Send,
    B::Error: Into<BoxError>,
{
    let runtime = tokio::runtime::Handle::current();
    let target = format!("{TEST_ORIGIN}{}", options.base);
    let (credentials, private) = (options.credentials.clone(), options.private);
    tokio::task::spawn_blocking(move || {
        let mut client = Client::new(ServiceTransport::new(service, runtime));
        if !credentials.is_empty() {
            client = client.with_credentials(credentials);
        }
        let options = CheckOptions {
            private,
            ..CheckOptions::default()
        };
        check(&client, &target, &options)
    })
    .await
    .expect("the checks do not panic")
}

/// Asserts that the service passes every check of `skillpub check`; the panic message is the
/// whole report.
///
/// # Panics
///
/// When a check fails, or when not called from a Tokio runtime.
pub async fn assert_conforms<S, B>(service: S)
where
    S: Service<Request<String>, Response = Response<B>> + Clone + Send + 'static,
    S::Error: Display,
    S::Future: Send,
    B: http_body::Body + Send,
    B::Error: Into<BoxError>,
{
    assert_conforms_at(service, "/").await;
}

/// Asserts that the service, with the skills mounted under `base` (see
/// [`check_service_at`]), passes every check of `skillpub check`; the panic message is the
/// whole report. With axum: `assert_conforms_at(Router::new().nest("/tenant", skills), "/tenant")`.
///
/// # Panics
///
/// When a check fails, or when not called from a Tokio runtime.
pub async fn assert_conforms_at<S, B>(service: S, base: &str)
where
    S: Service<Request<String>, Response = Response<B>> + Clone + Send + 'static,
    S::Error: Display,
    S::Future: Send,
    B: http_body::Body + Send,
    B::Error: Into<BoxError>,
{
    let report = check_service_at(service, base).await;
    assert!(report.passed(), "the service does not conform:\n{report}");
}

/// Asserts that the service, called as `options` say (path, credentials, private
/// expectation; see [`TestOptions`]), passes every check of `skillpub check`; the panic
/// message is the whole report. For a private catalog:
/// `assert_conforms_with(app, &TestOptions::new().bearer(&token).private()).await`.
///
/// # Panics
///
/// When a check fails, or when not called from a Tokio runtime.
pub async fn assert_conforms_with<S, B>(service: S, options: &TestOptions)
where
    S: Service<Request<String>, Response = Response<B>> + Clone + Send + 'static,
    S::Error: Display,
    S::Future: Send,
    B: http_body::Body + Send,
    B::Error: Into<BoxError>,
{
    let report = check_service_with(service, options).await;
    assert!(report.passed(), "the service does not conform:\n{report}");
}
