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
use tower::Service;

use crate::check::check;
use crate::options::CheckOptions;
use crate::report::Report;

/// The error type `http-body-util` boxes body errors into, which the transport takes.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The transport the checks run on in process, from skillpub-client.
pub use skillpub_client::ServiceTransport;

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
    let runtime = tokio::runtime::Handle::current();
    let target = format!("{TEST_ORIGIN}/{}", base.trim_start_matches('/'));
    tokio::task::spawn_blocking(move || {
        let client = Client::new(ServiceTransport::new(service, runtime));
        check(&client, &target, &CheckOptions::default())
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
