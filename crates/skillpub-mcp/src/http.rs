//! Mounting a skills server on the Streamable HTTP transport, next to the well-known routes.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::live::LiveMcpSkills;
use crate::server::SkillsServer;
use crate::service::{DEFAULT_MAX_STREAMS, McpService};
use crate::sessions::{Endpoint, Limits, MAX_BODY, Sessions};
use crate::skills::{ConfigError, McpSkills};

/// How many sessions may be open at once by default ([`HttpOptions::max_sessions`]).
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;

/// The largest cap [`HttpOptions::max_sessions`] accepts.
pub const MAX_SESSIONS_LIMIT: usize = 1_000_000;

/// How long a session lasts after its client's last request by default
/// ([`HttpOptions::session_idle_timeout`]): rmcp's default, five minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The longest idle time [`HttpOptions::session_idle_timeout`] accepts: a day.
pub const MAX_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// The browser origins a server on loopback accepts by default: any port of `localhost`,
/// `127.0.0.1` and `[::1]` over `http`, as the official MCP SDKs allow, so that a local
/// browser client (an inspector, an app on a development server) is not refused.
pub const LOOPBACK_ORIGINS: [&str; 3] =
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// The `Host` values a server accepts by default: loopback only, against DNS rebinding.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Who may call the MCP endpoint (the `Host` values it answers and the browser `Origin`s it
/// accepts), and the sessions of clients before 2026-07-28 ([`stateful`](Self::stateful),
/// [`max_sessions`](Self::max_sessions), [`session_idle_timeout`](Self::session_idle_timeout)).
///
/// The service cannot see the address it listens on, so the `Host` allowlist stands for it:
/// with the default one ([`LOOPBACK_HOSTS`]), only requests addressed to this machine are
/// answered, and the browser origins on this machine ([`LOOPBACK_ORIGINS`]) are accepted too.
/// As soon as [`allowed_hosts`](Self::allowed_hosts) names a host that is not loopback (a
/// public deployment), the default origin list is empty: a request that carries an `Origin`
/// gets 403 unless [`allowed_origins`](Self::allowed_origins) lists it. Requests without
/// `Origin` (agents, command-line clients) always pass the origin check.
///
/// # Example
///
/// ```
/// use skillpub_mcp::HttpOptions;
///
/// // Local: loopback hosts, loopback browser origins.
/// assert_eq!(HttpOptions::default().origins(), ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]);
/// // Public: only the origins given.
/// let public = HttpOptions::default().allowed_hosts(["skills.example.com"]);
/// assert!(public.origins().is_empty());
/// let public = public.allowed_origins(["https://app.example.com"]);
/// assert_eq!(public.origins(), ["https://app.example.com"]);
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct HttpOptions {
    origins: Option<Vec<String>>,
    hosts: Option<Vec<String>>,
    stateful: bool,
    max_streams: usize,
    max_sessions: usize,
    session_idle_timeout: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            origins: None,
            hosts: None,
            stateful: false,
            max_streams: DEFAULT_MAX_STREAMS,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
        }
    }
}

impl HttpOptions {
    /// Browser origins allowed to call (such as `https://app.example.com`, or
    /// `http://localhost:*` for any port), replacing the default. A request with any other
    /// `Origin` gets 403, as the transport requires; requests without `Origin` pass. Default:
    /// [`LOOPBACK_ORIGINS`] while every allowed host is loopback, none otherwise.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// `Host` values accepted, against DNS rebinding (default: [`LOOPBACK_HOSTS`]); give your
    /// public host names when serving publicly. A host that is not loopback also drops the
    /// loopback origins from the default origin list.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Sessions for clients of the protocol versions before 2026-07-28 (default: off, every
    /// request stands alone and is answered with JSON). With sessions, `initialize` opens
    /// one (`Mcp-Session-Id`), a client of a live catalog may hold a `GET` stream of
    /// server-sent events open for `notifications/resources/list_changed` (and
    /// `prompts/list_changed`) after a [`LiveCatalog`](skillpub_core::LiveCatalog)
    /// replacement, and the session ends with `DELETE`, or once its client has made no
    /// request for [`session_idle_timeout`](Self::session_idle_timeout). At most
    /// [`max_sessions`](Self::max_sessions) are open at once. Clients of 2026-07-28 have no
    /// sessions either way and follow changes with `subscriptions/listen`.
    ///
    /// A session is a record of about a hundred bytes, kept by skillpub in front of rmcp's
    /// stateless transport (every request is answered as without sessions), and nothing is
    /// queued for it: its stream tells of each list that changed, once, however often it
    /// changed, and counts against [`max_streams`](Self::max_streams). The hardened server
    /// (`skillpub_axum::serve`) never closes a connection whose stream is open as idle,
    /// closes it when file descriptors run out only after the quiet connections (the client
    /// reconnects), and at the end of the grace period on shutdown. The crate docs' section
    /// on sessions says what a client gets when.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().stateful(true);
    /// assert!(options.is_stateful());
    /// ```
    pub fn stateful(mut self, on: bool) -> Self {
        self.stateful = on;
        self
    }

    /// Caps the event streams open at once (default [`DEFAULT_MAX_STREAMS`], 512): the
    /// `subscriptions/listen` streams of 2026-07-28 clients and the `GET` streams of sessions
    /// together, since each holds a connection, a task and some memory for as long as its
    /// client likes. Beyond the cap, the request gets `503` with `Retry-After: 3` and the
    /// JSON-RPC error [`TOO_MANY_STREAMS`](crate::TOO_MANY_STREAMS), whose `data` gives the
    /// cap; clients that follow no changes never meet it. `0` refuses every stream: clients
    /// then learn of changes only by asking again.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::HttpOptions;
    ///
    /// assert_eq!(HttpOptions::default().stream_cap(), 512);
    /// assert_eq!(HttpOptions::default().max_streams(10_000).stream_cap(), 10_000);
    /// ```
    pub fn max_streams(mut self, max: usize) -> Self {
        self.max_streams = max;
        self
    }

    /// The cap on open event streams.
    #[must_use]
    pub fn stream_cap(&self) -> usize {
        self.max_streams
    }

    /// The most sessions open at once (default: [`DEFAULT_MAX_SESSIONS`], a few megabytes
    /// when all are open). Past it, an `initialize` gets `503 Service Unavailable` with
    /// `Retry-After` (the time until a session can expire) and a JSON-RPC error that says
    /// so; the sessions already open keep working. At least 1 and at most
    /// [`MAX_SESSIONS_LIMIT`]: [`McpSkills::streamable_http_service`] refuses other values.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let skills = McpSkills::new(skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let options = HttpOptions::default().stateful(true).max_sessions(100);
    /// assert!(skills.streamable_http_service(options).is_ok());
    /// let zero = skills.streamable_http_service(HttpOptions::default().max_sessions(0));
    /// assert_eq!(zero.unwrap_err().to_string(), "`max_sessions` is 0; give at least 1 and at most 1000000");
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// How long a session lasts after its client's last request ended (default:
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`]). Only the client's requests count: notifications
    /// the server sends never keep a session open, and a request in progress (an open
    /// `GET` stream is one) holds it until it ends. An expired session's requests get
    /// `404`, after which a client opens a new session with `initialize`, as the transport
    /// says. More than zero and at most [`MAX_SESSION_IDLE_TIMEOUT`]:
    /// [`McpSkills::streamable_http_service`] refuses other values.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let skills = McpSkills::new(skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let options = HttpOptions::default().stateful(true).session_idle_timeout(Duration::from_secs(60));
    /// assert!(skills.streamable_http_service(options).is_ok());
    /// let zero = HttpOptions::default().session_idle_timeout(Duration::ZERO);
    /// assert!(skills.streamable_http_service(zero).is_err());
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle_timeout = idle;
        self
    }

    /// Whether clients before 2026-07-28 get sessions.
    #[must_use]
    pub fn is_stateful(&self) -> bool {
        self.stateful
    }

    /// The `Host` values the endpoint answers.
    #[must_use]
    pub fn hosts(&self) -> Vec<String> {
        match &self.hosts {
            Some(hosts) => hosts.clone(),
            None => LOOPBACK_HOSTS.map(str::to_owned).to_vec(),
        }
    }

    /// The browser origins the endpoint accepts: the ones given, or the default that follows
    /// from the hosts.
    #[must_use]
    pub fn origins(&self) -> Vec<String> {
        match &self.origins {
            Some(origins) => origins.clone(),
            None if self.hosts().iter().all(|host| is_loopback_host(host)) => {
                LOOPBACK_ORIGINS.map(str::to_owned).to_vec()
            }
            None => Vec::new(),
        }
    }

    /// The session limits, checked.
    fn limits(&self) -> Result<Limits, ConfigError> {
        if !(1..=MAX_SESSIONS_LIMIT).contains(&self.max_sessions) {
            return Err(ConfigError::MaxSessions(self.max_sessions));
        }
        let idle = self.session_idle_timeout;
        if idle.is_zero() || idle > MAX_SESSION_IDLE_TIMEOUT {
            return Err(ConfigError::SessionIdleTimeout(idle));
        }
        Ok(Limits {
            max: self.max_sessions,
            idle,
        })
    }
}

/// Whether a `Host` allowlist entry (`name`, `name:port`, `::1` or `[::1]:port`) is this
/// machine: `localhost` or a loopback address.
fn is_loopback_host(entry: &str) -> bool {
    let host = match entry.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(bracketed),
        None if entry.matches(':').count() == 1 => entry.split(':').next().unwrap_or(entry),
        None => entry,
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl McpSkills {
    /// A tower service for the Streamable HTTP transport: stateless unless
    /// [`HttpOptions::stateful`], JSON responses, `Host` and `Origin` checked and open streams
    /// capped as [`HttpOptions`] says. Nest it in the same axum app as the well-known router.
    ///
    /// # Errors
    ///
    /// A session cap or idle time out of range ([`HttpOptions::max_sessions`],
    /// [`HttpOptions::session_idle_timeout`]).
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let app: axum::Router = axum::Router::new()
    ///     .merge(skillpub_axum::router(catalog.clone()))
    ///     .nest_service("/mcp", McpSkills::new(catalog).streamable_http_service(HttpOptions::default())?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn streamable_http_service(&self, options: HttpOptions) -> Result<McpService, ConfigError> {
        service(SkillsServer::new(self.clone()), None, &options)
    }
}

impl LiveMcpSkills {
    /// A tower service for the Streamable HTTP transport, as
    /// [`McpSkills::streamable_http_service`]; turn on [`HttpOptions::stateful`] for clients
    /// before 2026-07-28 to be told of changes.
    ///
    /// # Errors
    ///
    /// As [`McpSkills::streamable_http_service`].
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, LiveCatalog};
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let live = LiveCatalog::new(Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let mcp = McpSkills::live(live.clone()).build()?;
    /// let app: axum::Router = axum::Router::new()
    ///     .merge(skillpub_axum::live_router(live))
    ///     .nest_service("/mcp", mcp.streamable_http_service(HttpOptions::default().stateful(true))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn streamable_http_service(&self, options: HttpOptions) -> Result<McpService, ConfigError> {
        service(
            SkillsServer::live(self.clone()),
            Some(self.clone()),
            &options,
        )
    }
}

/// The transport for `server`: rmcp's stateless transport (one clone of `server` per
/// request), with the sessions in front of it when they are on.
fn service(
    server: SkillsServer,
    live: Option<LiveMcpSkills>,
    options: &HttpOptions,
) -> Result<McpService, ConfigError> {
    let limits = options.limits()?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(options.hosts())
        .with_allowed_origins(options.origins())
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_BODY);
    let rmcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let sessions = options
        .stateful
        .then(|| (Arc::new(Sessions::new(limits)), live));
    Ok(McpService::new(
        Endpoint::new(rmcp, sessions),
        options.stream_cap(),
    ))
}

#[cfg(test)]
mod tests {
    use super::{HttpOptions, is_loopback_host};

    macro_rules! loopback {
        ($($entry:literal => $expected:literal),+ $(,)?) => {$(
            assert_eq!(is_loopback_host($entry), $expected, "{}", $entry);
        )+};
    }

    #[test]
    fn loopback_hosts_are_localhost_and_loopback_addresses_with_any_port() {
        loopback! {
            "localhost" => true,
            "LocalHost:3000" => true,
            "127.0.0.1" => true,
            "127.0.0.1:8080" => true,
            "::1" => true,
            "[::1]" => true,
            "[::1]:8080" => true,
            "skills.example.com" => false,
            "localhost.example.com" => false,
            "10.0.0.1" => false,
            "0.0.0.0" => false,
            "[::]:80" => false,
            "" => false,
        }
    }

    #[test]
    fn loopback_hosts_given_explicitly_keep_the_loopback_origins() {
        let local = HttpOptions::default().allowed_hosts(["localhost:3000", "[::1]:3000"]);
        assert_eq!(local.origins().len(), 3);
        let mixed = HttpOptions::default().allowed_hosts(["localhost", "skills.example.com"]);
        assert!(mixed.origins().is_empty());
    }
}
