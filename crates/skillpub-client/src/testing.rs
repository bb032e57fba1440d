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
//! let report = skillpub_client::testing::check_service(nothing).await;
//! assert!(!report.passed());
//! assert!(report.to_string().contains("FAIL  index: GET"));
//! # });
//! ```

use std::fmt::Display;

/// The error type `http-body-util` boxes body errors into.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

use http::{Method, Request, Response};
use http_body_util::{BodyExt, Limited};
use tower::{Service, ServiceExt};
use url::Url;

use crate::check::{CheckOptions, Report, check};
use crate::client::Client;
use crate::fetch::{FetchError, RawAnswer, Transport};

/// The origin the in-process checks pretend the service is served from.
pub const TEST_ORIGIN: &str = "http://skillpub.test";

/// A transport that calls a tower service instead of opening a connection.
#[derive(Debug, Clone)]
pub struct ServiceTransport<S> {
    service: S,
    runtime: tokio::runtime::Handle,
}

impl<S> ServiceTransport<S> {
    /// Calls `service` on `runtime` (from a thread where blocking is allowed).
    pub fn new(service: S, runtime: tokio::runtime::Handle) -> Self {
        Self { service, runtime }
    }
}

impl<S, B> Transport for ServiceTransport<S>
where
    S: Service<Request<String>, Response = Response<B>> + Clone,
    S::Error: Display,
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    fn send_once(
        &self,
        method: &Method,
        url: &Url,
        headers: &[(&str, &str)],
        limit: u64,
    ) -> Result<RawAnswer, FetchError> {
        let failed = |message: String| FetchError::Transport {
            url: url.to_string(),
            message,
        };
        let mut target = url.path().to_owned();
        if let Some(query) = url.query() {
            target = format!("{target}?{query}");
        }
        let mut request = Request::builder().method(method.clone()).uri(target);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(host) = url.host_str() {
            request = request.header(http::header::HOST, host);
        }
        let request = request
            .body(String::new())
            .map_err(|e| failed(e.to_string()))?;
        let service = self.service.clone();
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        self.runtime.block_on(async move {
            let response = service
                .oneshot(request)
                .await
                .map_err(|e| failed(e.to_string()))?;
            let (parts, body) = response.into_parts();
            let bytes = Limited::new(body, limit).collect().await.map_err(|error| {
                if error.is::<http_body_util::LengthLimitError>() {
                    FetchError::TooLarge {
                        url: url.to_string(),
                        limit: limit as u64,
                    }
                } else {
                    failed(error.to_string())
                }
            })?;
            Ok((parts.status, parts.headers, bytes.to_bytes().to_vec()))
        })
    }
}

/// Runs every check of `skillpub check` against the service, as if it were served at
/// [`TEST_ORIGIN`].
///
/// Call it from a Tokio runtime (a `#[tokio::test]`); the checks run on a blocking thread.
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
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let client = Client::new(ServiceTransport::new(service, runtime));
        check(&client, TEST_ORIGIN, &CheckOptions::default())
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
    let report = check_service(service).await;
    assert!(report.passed(), "the service does not conform:\n{report}");
}
