//! The HTTP transport: ureq with rustls, no redirects followed by itself (so that each hop is
//! checked), no automatic decompression (so that the client sees the encoding), a timeout and
//! a body cap on every request.
//!
//! A proxy from the environment (`ALL_PROXY`, `HTTPS_PROXY`, `HTTP_PROXY`, minus `NO_PROXY`) is
//! used as ureq does, through `CONNECT`. The proxy's own address may be local (a proxy on
//! `127.0.0.1` is common); the private-address guard applies to the targets. Through a proxy
//! the proxy resolves the target's name, so the client can only judge the host name and IP
//! literals (the policy does), not the address the name leads to: DNS rebinding through a
//! proxy is for the proxy to refuse.

use std::time::{Duration, Instant};

use http::{Method, Request};
use url::Url;

use ureq::config::Config;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use crate::fetch::{FetchError, MAX_TIMEOUT, RawAnswer, Transport, time_left};
use crate::source::SourceError;

/// What the resolver says when a name resolves only to local or private addresses; the
/// transport turns it into [`FetchError::PrivateAddress`].
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves only to local or private addresses, which are not allowed")]
struct PrivateAddresses {
    host: String,
}

/// Resolves as usual, then keeps only public addresses: the host-name check of the policy
/// cannot see what a name resolves to. The configured proxy is the one name it resolves
/// without that filter: it is where the client connects, not what it fetches.
#[derive(Debug)]
struct PublicOnly(DefaultResolver);

/// Whether `uri` names the proxy of `config`: same host and port.
fn is_proxy(uri: &http::Uri, config: &Config) -> bool {
    config.proxy().is_some_and(|proxy| {
        let port = uri
            .port_u16()
            .or_else(|| uri.scheme().and_then(default_port));
        uri.host()
            .is_some_and(|host| host.eq_ignore_ascii_case(proxy.host()))
            && port == Some(proxy.port())
    })
}

fn default_port(scheme: &http::uri::Scheme) -> Option<u16> {
    match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

impl Resolver for PublicOnly {
    fn resolve(
        &self,
        uri: &http::Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let all = self.0.resolve(uri, config, timeout)?;
        if is_proxy(uri, config) {
            return Ok(all);
        }
        let mut public = self.empty();
        for address in all
            .iter()
            .filter(|a| !skillpub_core::origin::is_local_ip(a.ip()))
        {
            public.push(*address);
        }
        if public.is_empty() {
            let host = uri.host().unwrap_or_default().to_owned();
            return Err(ureq::Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                PrivateAddresses { host },
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
    /// `timeout` (at most [`MAX_TIMEOUT`]), and that refuses to connect to local or private
    /// addresses, whatever the host name resolves to (a public name that resolves to
    /// `127.0.0.1`, DNS rebinding). Through a proxy, see the [crate docs](crate#proxies-and-private-addresses).
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
        let timeout = timeout.min(MAX_TIMEOUT);
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
        deadline: Option<Instant>,
    ) -> Result<RawAnswer, FetchError> {
        let timeout = match deadline {
            Some(deadline) => time_left(deadline, url)?.min(self.timeout),
            None => self.timeout,
        };
        let failed = |error: ureq::Error| match error {
            ureq::Error::Timeout(_) if deadline.is_some_and(|d| Instant::now() >= d) => {
                FetchError::Deadline(url.to_string())
            }
            ureq::Error::Timeout(_) => FetchError::Timeout(url.to_string()),
            ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
                url: url.to_string(),
                limit,
            },
            ureq::Error::Io(io) if io.get_ref().is_some_and(|e| e.is::<PrivateAddresses>()) => {
                FetchError::PrivateAddress {
                    url: url.to_string(),
                    host: url.host_str().unwrap_or_default().to_owned(),
                }
            }
            other => FetchError::Transport {
                url: url.to_string(),
                error: SourceError::new(other),
            },
        };
        let mut request = Request::builder().method(method.clone()).uri(url.as_str());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(()).map_err(|error| FetchError::Transport {
            url: url.to_string(),
            error: SourceError::new(error),
        })?;
        let request = self
            .agent
            .configure_request(request)
            .timeout_global(Some(timeout))
            .build();
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
