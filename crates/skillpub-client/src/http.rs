//! The HTTP transport: ureq with rustls, no redirects followed by itself (so that each hop is
//! checked), no automatic decompression (so that the client sees the encoding), a timeout and
//! a body cap on every request.

use std::time::Duration;

use http::{HeaderMap, Method, Request, StatusCode};
use url::Url;

use crate::fetch::{FetchError, Transport};

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
    /// A transport whose every request, body included, ends within `timeout`.
    #[must_use]
    pub fn new(timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .max_redirects_will_error(false)
            .http_status_as_error(false)
            .user_agent(concat!("skillpub/", env!("CARGO_PKG_VERSION")))
            .build();
        Self {
            agent: ureq::Agent::new_with_config(config),
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
    ) -> Result<(StatusCode, HeaderMap, Vec<u8>), FetchError> {
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
