//! The HTTP transport: ureq with rustls, no redirects followed by itself (so that each hop is
//! checked), no automatic decompression (so that the client sees the encoding), a timeout and
//! a body cap on every request.

use std::time::Duration;

use http::{Method, Request};
use url::Url;

use ureq::config::Config;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use crate::fetch::{FetchError, RawAnswer, Transport};

/// Resolves as usual, then keeps only public addresses: the host-name check of the policy
/// cannot see what a name resolves to.
#[derive(Debug)]
struct PublicOnly(DefaultResolver);

impl Resolver for PublicOnly {
    fn resolve(
        &self,
        uri: &http::Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let all = self.0.resolve(uri, config, timeout)?;
        let mut public = self.empty();
        for address in all.iter().filter(|a| !skillpub_core::is_local_ip(a.ip())) {
            public.push(*address);
        }
        if public.is_empty() {
            let host = uri.host().unwrap_or_default();
            return Err(ureq::Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "{host} resolves only to local or private addresses, which are not allowed"
                ),
            )));
        }
        Ok(public)
    }
}

/// Fetches over HTTP(S).
///
/// # Example
///
/// ```no_run
/// use skillpub_client::{Client, HttpTransport};
///
/// let client = Client::new(HttpTransport::new(std::time::Duration::from_secs(10)));
/// let index = client.discover("https://example.com")?;
/// for entry in index.entries() {
///     let skill = client.fetch(entry)?;
///     println!("{} ({} files)", entry.name, skill.files.len());
/// }
/// # Ok::<(), skillpub_client::ClientError>(())
/// ```
#[derive(Debug, Clone)]
pub struct HttpTransport {
    agent: ureq::Agent,
    timeout: Duration,
}

impl HttpTransport {
    /// A transport whose every request (each redirect hop is one), body included, ends within
    /// `timeout`, and that refuses to connect to local or private addresses, whatever the
    /// host name resolves to (a public name that resolves to `127.0.0.1`, DNS rebinding).
    #[must_use]
    pub fn new(timeout: Duration) -> Self {
        Self::build(timeout, PublicOnly(DefaultResolver::default()))
    }

    /// A transport that may also connect to local and private addresses, for checking a
    /// server on this machine or network.
    #[must_use]
    pub fn allowing_private(timeout: Duration) -> Self {
        Self::build(timeout, DefaultResolver::default())
    }

    fn build(timeout: Duration, resolver: impl Resolver) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .max_redirects_will_error(false)
            .http_status_as_error(false)
            .user_agent(concat!("skillpub/", env!("CARGO_PKG_VERSION")))
            .build();
        Self {
            agent: ureq::Agent::with_parts(config, DefaultConnector::new(), resolver),
            timeout,
        }
    }

    /// The timeout of one request.
    #[must_use]
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

impl Transport for HttpTransport {
    fn send_once(
        &self,
        method: &Method,
        url: &Url,
        headers: &[(&str, &str)],
        limit: u64,
    ) -> Result<RawAnswer, FetchError> {
        let failed = |error: ureq::Error| match error {
            ureq::Error::Timeout(_) => FetchError::Timeout(url.to_string()),
            ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
                url: url.to_string(),
                limit,
            },
            other => FetchError::Transport {
                url: url.to_string(),
                message: other.to_string(),
            },
        };
        let mut request = Request::builder().method(method.clone()).uri(url.as_str());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(()).map_err(|error| FetchError::Transport {
            url: url.to_string(),
            message: error.to_string(),
        })?;
        let mut response = self.agent.run(request).map_err(failed)?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = if method == Method::HEAD {
            Vec::new()
        } else {
            response
                .body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .map_err(failed)?
        };
        Ok((status, headers, body))
    }
}
