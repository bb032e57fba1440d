//! [`McpService`]: the Streamable HTTP transport of a skills server, as a tower service.
//!
//! Its front does, once, what every request needs before it is routed: the [`Guard`] checks
//! its `Host` and `Origin` (nothing else is done for a request it refuses: no body is read,
//! no session looked up or kept alive), then the body of a `POST` the transport takes is read,
//! whole and bounded, for the session layer, rmcp and the stream cap to share. A `POST`
//! rmcp refuses from its headers (`406`, `415`) goes to it unread.

use std::convert::Infallible;
use std::fmt::{self, Display};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::ACCESS_CONTROL_REQUEST_METHOD;
use http::{Method, Request};
use http_body::Body;
use tower::Service;

use crate::answers::BoxResponse;
use crate::guard::Guard;
use crate::media;
use crate::private::{self, PrivateHeaders};
use crate::request::{Incoming, MAX_BODY, read};
use crate::sessions::Endpoint;

/// The tower service of the Streamable HTTP transport for a skills server, with the cap on
/// open event streams; nest it at `/mcp`. Made by
/// [`McpSkills::streamable_http_service`](crate::McpSkills::streamable_http_service) and
/// [`LiveMcpSkills::streamable_http_service`](crate::LiveMcpSkills::streamable_http_service).
/// Cheap to clone; every clone serves the same sessions and counts the same streams.
///
/// # Example
///
/// ```
/// use http_body_util::Full;
/// use skillpub_mcp::{HttpOptions, McpSkills};
/// use tower::ServiceExt;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
/// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
/// let options = HttpOptions::default().with_stateful(true);
/// let mcp = McpSkills::new(catalog).streamable_http_service(options)?;
/// let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{
///     "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"doc","version":"1"}}}"#;
/// let request = http::Request::post("/mcp")
///     .header("host", "localhost")
///     .header("content-type", "application/json")
///     .header("accept", "application/json, text/event-stream")
///     .body(Full::new(bytes::Bytes::from(initialize)))?;
/// let answer = mcp.oneshot(request).await?;
/// assert_eq!(answer.status(), 200);
/// assert!(answer.headers().contains_key("mcp-session-id"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct McpService {
    guard: Arc<Guard>,
    endpoint: Endpoint,
    /// The private policy's headers, which every answer gets when it is on.
    private: Option<Arc<PrivateHeaders>>,
}

impl McpService {
    pub(crate) fn new(guard: Guard, endpoint: Endpoint, private: Option<PrivateHeaders>) -> Self {
        Self {
            guard: Arc::new(guard),
            endpoint,
            private: private.map(Arc::new),
        }
    }

    /// The event streams open now.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let service = McpSkills::new(catalog).streamable_http_service(HttpOptions::default())?;
    /// assert_eq!(service.open_streams(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn open_streams(&self) -> usize {
        self.endpoint.streams().open()
    }
}

impl fmt::Debug for McpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpService")
            .field("guard", &self.guard)
            .field("endpoint", &self.endpoint)
            .field("private", &self.private)
            .finish()
    }
}

impl<B> Service<Request<B>> for McpService
where
    B: Body + Send + 'static,
    B::Error: Display,
    B::Data: Send + 'static,
{
    type Response = BoxResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let (guard, endpoint) = (Arc::clone(&self.guard), self.endpoint.clone());
        let private = self.private.clone();
        Box::pin(async move {
            if let Err(refused) = guard.check(request.uri(), request.headers()) {
                let mut refused = refused.answer();
                if let Some(private) = &private {
                    private.stamp(&mut refused, None);
                }
                return Ok(refused);
            }
            let Some(private) = private else {
                return Ok(pass(endpoint, request).await);
            };
            let origin = private::origin(request.headers());
            let mut answer = if origin.is_some()
                && request.method() == Method::OPTIONS
                && request
                    .headers()
                    .contains_key(ACCESS_CONTROL_REQUEST_METHOD)
            {
                private.preflight()
            } else {
                pass(endpoint, request).await
            };
            private.stamp(&mut answer, origin);
            Ok(answer)
        })
    }
}

/// The endpoint's answer to `request`, which the guard let through: the transport's, after
/// the body of a `POST` is read.
async fn pass<B>(endpoint: Endpoint, request: Request<B>) -> BoxResponse
where
    B: Body + Send + 'static,
    B::Error: Display,
    B::Data: Send + 'static,
{
    let (head, body) = request.into_parts();
    if head.method != Method::POST {
        // Nobody reads the body of another method.
        let body = Bytes::new();
        return endpoint.handle(Incoming { head, body }).await;
    }
    if !media::is_json_post(&head.headers) {
        let body = Bytes::new();
        return endpoint.forward(Incoming { head, body }).await;
    }
    match read(body, MAX_BODY).await {
        Ok(body) => endpoint.handle(Incoming { head, body }).await,
        Err(refused) => refused,
    }
}
