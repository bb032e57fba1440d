//! A transport that calls a tower service, such as an axum `Router`, instead of opening a
//! connection: the client, and the checks built on it, in process with no network and no port.

use std::fmt::Display;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use http::{Method, Request, Response};
use http_body_util::{BodyExt, Limited};
use tower::{Service, ServiceExt};
use url::Url;

use crate::fetch::{FetchError, RawAnswer, Transport, time_left};
use crate::source::SourceError;

/// The error type `http-body-util` boxes body errors into.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A transport that calls a tower service instead of opening a connection. It can be shared
/// between threads (the checks fetch entries concurrently) whenever the service can be sent:
/// each request calls a clone of it.
#[derive(Debug)]
pub struct ServiceTransport<S> {
    service: Mutex<S>,
    runtime: tokio::runtime::Handle,
}

impl<S> ServiceTransport<S> {
    /// Calls `service` on `runtime` (from a thread where blocking is allowed).
    pub fn new(service: S, runtime: tokio::runtime::Handle) -> Self {
        Self {
            service: Mutex::new(service),
            runtime,
        }
    }
}

impl<S: Clone> ServiceTransport<S> {
    /// A clone of the service, for one request.
    fn service(&self) -> S {
        self.service
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl<S: Clone> Clone for ServiceTransport<S> {
    fn clone(&self) -> Self {
        Self::new(self.service(), self.runtime.clone())
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
        deadline: Option<Instant>,
    ) -> Result<RawAnswer, FetchError> {
        let left = deadline
            .map(|deadline| time_left(deadline, url))
            .transpose()?;
        let failed = |error: SourceError| FetchError::Transport {
            url: url.to_string(),
            error,
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
            .map_err(|e| failed(SourceError::new(e)))?;
        let service = self.service();
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let answer = async move {
            let response = service
                .oneshot(request)
                .await
                .map_err(|e| failed(SourceError::new(e.to_string())))?;
            let (parts, body) = response.into_parts();
            let bytes = Limited::new(body, limit).collect().await.map_err(|error| {
                if error.is::<http_body_util::LengthLimitError>() {
                    FetchError::TooLarge {
                        url: url.to_string(),
                        limit: limit as u64,
                    }
                } else {
                    failed(SourceError::new(error))
                }
            })?;
            Ok((parts.status, parts.headers, bytes.to_bytes().to_vec()))
        };
        self.runtime.block_on(async move {
            match left {
                Some(left) => tokio::time::timeout(left, answer)
                    .await
                    .map_err(|_| FetchError::Deadline(url.to_string()))?,
                None => answer.await,
            }
        })
    }
}
