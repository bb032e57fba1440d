//! The bounds of the options that have any, and the error for an option out of them, checked
//! once when a service is built: never per request.

use std::time::Duration;

/// The largest cap [`HttpOptions::with_max_streams`](crate::HttpOptions::with_max_streams)
/// accepts.
pub const MAX_STREAMS_LIMIT: usize = 1_000_000;

/// The largest cap [`HttpOptions::with_max_sessions`](crate::HttpOptions::with_max_sessions)
/// accepts.
pub const MAX_SESSIONS_LIMIT: usize = 1_000_000;

/// The longest idle time
/// [`HttpOptions::with_session_idle_timeout`](crate::HttpOptions::with_session_idle_timeout)
/// accepts: a day.
pub const MAX_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// A bad option given to [`McpSkillsBuilder`](crate::McpSkillsBuilder) or
/// [`HttpOptions`](crate::HttpOptions).
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The prefix is not `/`-separated segments of URI-safe characters.
    #[error(
        "the prefix `{0}` must be `/`-separated segments of ASCII letters, digits, `-`, `_`, `.` and `~`, such as `acme/billing`"
    )]
    Prefix(String),
    /// A page size of zero.
    #[error("the page size must be at least 1")]
    PageSize,
    /// An entry of [`HttpOptions::with_allowed_hosts`](crate::HttpOptions::with_allowed_hosts)
    /// that no `Host` can match.
    #[error(
        "`allowed_hosts` entry `{0}` is not a host; give a name or an address, with or without a port, such as `skills.example.com`, `skills.example.com:8443`, `127.0.0.1` or `[::1]:3000`"
    )]
    AllowedHost(String),
    /// An entry of
    /// [`HttpOptions::with_allowed_origins`](crate::HttpOptions::with_allowed_origins) that no
    /// `Origin` can match.
    #[error(
        "`allowed_origins` entry `{0}` is not an origin; give `scheme://host`, with `:port` or `:*` for any port, such as `https://app.example.com` or `http://localhost:*`, or `null`"
    )]
    AllowedOrigin(String),
    /// A stream cap of zero, or over [`MAX_STREAMS_LIMIT`](crate::MAX_STREAMS_LIMIT).
    #[error("`max_streams` is {0}; give at least 1 and at most {limit}", limit = MAX_STREAMS_LIMIT)]
    MaxStreams(usize),
    /// A session cap of zero, or over [`MAX_SESSIONS_LIMIT`](crate::MAX_SESSIONS_LIMIT).
    #[error("`max_sessions` is {0}; give at least 1 and at most {limit}", limit = MAX_SESSIONS_LIMIT)]
    MaxSessions(usize),
    /// A session idle time of zero, or over
    /// [`MAX_SESSION_IDLE_TIMEOUT`](crate::MAX_SESSION_IDLE_TIMEOUT).
    #[error("`session_idle_timeout` is {0:?}; give more than zero and at most {limit:?}", limit = MAX_SESSION_IDLE_TIMEOUT)]
    SessionIdleTimeout(std::time::Duration),
    /// An entry of
    /// [`HttpOptions::with_credential_headers`](crate::HttpOptions::with_credential_headers)
    /// that is not a header name.
    #[error(
        "`credential_headers` entry `{0}` is not a header name; give one such as `Authorization` or `X-Api-Key`"
    )]
    CredentialHeader(String),
    /// An empty
    /// [`HttpOptions::with_credential_headers`](crate::HttpOptions::with_credential_headers).
    #[error(
        "no credential header: name at least one (the default is `Authorization` and `Cookie`), since every answer of a private endpoint varies on them"
    )]
    NoCredentialHeader,
}

/// The message, so that `?` out of `main` prints it and not the variant.
impl std::fmt::Debug for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
