//! Mounting a skills server on the Streamable HTTP transport, next to the well-known routes:
//! [`HttpOptions`], every knob of the endpoint with its default and its range, and the service
//! made from them.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::config::{ConfigError, MAX_SESSION_IDLE_TIMEOUT, MAX_SESSIONS_LIMIT, MAX_STREAMS_LIMIT};
use crate::guard::Guard;
use crate::live::LiveMcpSkills;
use crate::private::{DEFAULT_CREDENTIAL_HEADERS, PrivateHeaders};
use crate::request::MAX_BODY;
use crate::server::SkillsServer;
use crate::service::McpService;
use crate::sessions::{Endpoint, Limits, Sessions};
use crate::skills::McpSkills;
use crate::streams::Streams;

/// The browser origins a server on loopback accepts by default: any port of `localhost`,
/// `127.0.0.1` and `[::1]` over `http`, as the official MCP SDKs allow, so that a local
/// browser client (an inspector, an app on a development server) is not refused.
pub const LOOPBACK_ORIGINS: [&str; 3] =
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// The `Host` values a server accepts by default: loopback only, against DNS rebinding.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The event streams an endpoint holds open at most by default
/// ([`HttpOptions::with_max_streams`]), of both kinds together: half the common limit of
/// 1,024 open files, so that streams alone never hold every descriptor of a server at that
/// limit. Raise it with the limit.
pub const DEFAULT_MAX_STREAMS: usize = 512;

/// How many sessions may be open at once by default ([`HttpOptions::with_max_sessions`]):
/// about 20 MB when all are open, and more than the conversations of clients before
/// 2026-07-28 that a skills server sees within an idle time.
pub const DEFAULT_MAX_SESSIONS: usize = 100_000;

/// How long a session lasts after its client's last request by default
/// ([`HttpOptions::with_session_idle_timeout`]): rmcp's default, five minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Every knob of the MCP endpoint: who may call it (the `Host` values it answers and the
/// browser `Origin`s it accepts), how many event streams it holds open, and the sessions of
/// clients before 2026-07-28 ([`with_stateful`](Self::with_stateful),
/// [`with_max_sessions`](Self::with_max_sessions),
/// [`with_session_idle_timeout`](Self::with_session_idle_timeout)).
///
/// Each knob has a setter `with_<knob>` and a getter `<knob>` (`is_stateful` for the switch);
/// each default is a constant of this crate, and each knob's range is checked by
/// [`McpSkills::streamable_http_service`], which names the knob in its error. The session
/// knobs are checked whether or not sessions are on, so that turning them on never turns a
/// configuration that was accepted into an error.
///
/// The service cannot see the address it listens on, so the `Host` allowlist stands for it:
/// with the default one ([`LOOPBACK_HOSTS`]), only requests addressed to this machine are
/// answered, and the browser origins on this machine ([`LOOPBACK_ORIGINS`]) are accepted too.
/// As soon as [`with_allowed_hosts`](Self::with_allowed_hosts) names a host that is not
/// loopback (a public deployment), the default origin list is empty: a request that carries
/// an `Origin` gets 403 unless [`with_allowed_origins`](Self::with_allowed_origins) lists it.
/// Requests without `Origin` (agents, command-line clients) always pass the origin check.
///
/// # Example
///
/// ```
/// use skillpub_mcp::HttpOptions;
///
/// // Local: loopback hosts, loopback browser origins.
/// let local = HttpOptions::default();
/// assert_eq!(local.allowed_origins(), ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]);
/// // Public: only the origins given.
/// let public = HttpOptions::default().with_allowed_hosts(["skills.example.com"]);
/// assert!(public.allowed_origins().is_empty());
/// let public = public.with_allowed_origins(["https://app.example.com"]);
/// assert_eq!(public.allowed_origins(), ["https://app.example.com"]);
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct HttpOptions {
    origins: Option<Vec<String>>,
    hosts: Option<Vec<String>>,
    stateful: bool,
    private: bool,
    credential_headers: Vec<String>,
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
            private: false,
            credential_headers: DEFAULT_CREDENTIAL_HEADERS.map(String::from).to_vec(),
            max_streams: DEFAULT_MAX_STREAMS,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
        }
    }
}

impl HttpOptions {
    /// Browser origins allowed to call (such as `https://app.example.com`, or
    /// `http://localhost:*` for any port), replacing the default. A request with any other
    /// `Origin` gets 403, as the transport requires; requests without `Origin` pass, and with
    /// an empty list every `Origin` is refused. An origin without a port stands for its
    /// scheme's default port when a request's has none, and allows any port otherwise (as rmcp
    /// reads it; give `:*` to say so). Default: [`LOOPBACK_ORIGINS`] while every allowed host
    /// is loopback and the endpoint is not [private](Self::with_private), none otherwise. An
    /// entry that is not an origin is an error.
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// The browser origins the endpoint accepts: the ones given, or the default that follows
    /// from the hosts (none for a [private](Self::with_private) endpoint).
    #[must_use]
    pub fn allowed_origins(&self) -> Vec<&str> {
        match &self.origins {
            Some(origins) => origins.iter().map(String::as_str).collect(),
            None if self.private => Vec::new(),
            None if self
                .allowed_hosts()
                .iter()
                .all(|host| is_loopback_host(host)) =>
            {
                LOOPBACK_ORIGINS.to_vec()
            }
            None => Vec::new(),
        }
    }

    /// `Host` values accepted, against DNS rebinding: names or addresses, each with a port or
    /// for any port (default: [`LOOPBACK_HOSTS`]); give your public host names when serving
    /// publicly. A host that is not loopback also drops the loopback origins from the default
    /// origin list. An empty list accepts every `Host` (only behind a proxy that checks it); an
    /// entry that is not a host is an error.
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// The `Host` values the endpoint answers.
    #[must_use]
    pub fn allowed_hosts(&self) -> Vec<&str> {
        match &self.hosts {
            Some(hosts) => hosts.iter().map(String::as_str).collect(),
            None => LOOPBACK_HOSTS.to_vec(),
        }
    }

    /// Sessions for clients of the protocol versions before 2026-07-28 (default: off, every
    /// request stands alone and is answered with JSON). With sessions, `initialize` opens
    /// one (`Mcp-Session-Id`), a client of a live catalog may hold a `GET` stream of
    /// server-sent events open for `notifications/resources/list_changed` (and
    /// `prompts/list_changed`) after a [`LiveCatalog`](skillpub_core::LiveCatalog)
    /// replacement, and the session ends with `DELETE`, once its client has made no request
    /// for [`session_idle_timeout`](Self::session_idle_timeout), or when it is the least
    /// recently used of [`max_sessions`](Self::max_sessions) and a new one is opened. Clients
    /// of 2026-07-28 have no sessions either way and follow changes with
    /// `subscriptions/listen`.
    ///
    /// A session is a record of about two hundred bytes, kept by skillpub in front of rmcp's
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
    /// let options = HttpOptions::default().with_stateful(true);
    /// assert!(options.is_stateful());
    /// ```
    pub fn with_stateful(mut self, on: bool) -> Self {
        self.stateful = on;
        self
    }

    /// Whether clients before 2026-07-28 get sessions.
    #[must_use]
    pub fn is_stateful(&self) -> bool {
        self.stateful
    }

    /// The private policy, for an endpoint that serves skills to callers with credentials
    /// (default: off). Every answer then says `Cache-Control: private, no-store` and varies on
    /// `Origin` and the [credential headers](Self::with_credential_headers) (`Authorization`
    /// and `Cookie` by default), every result says `cacheScope: private`, and a
    /// browser page of an allowed origin
    /// ([`with_allowed_origins`](Self::with_allowed_origins); `null` never) may send
    /// credentials: its requests get `Access-Control-Allow-Origin: <that origin>` and
    /// `Access-Control-Allow-Credentials: true`, and its preflight (`OPTIONS`) is answered
    /// with the methods and headers of the transport, the credential headers among them.
    /// Requests from other origins are refused with `403`, as without the switch. The loopback
    /// origins allowed by default are not: with credentials, any local page could read the
    /// caller's skills, so a private endpoint allows only the origins it is given.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().with_private(true);
    /// assert!(options.is_private());
    /// assert!(options.allowed_origins().is_empty());
    /// let options = options.with_allowed_origins(["https://app.example.com"]);
    /// assert_eq!(options.allowed_origins(), ["https://app.example.com"]);
    /// ```
    pub fn with_private(mut self, on: bool) -> Self {
        self.private = on;
        self
    }

    /// Whether the private policy is on.
    #[must_use]
    pub fn is_private(&self) -> bool {
        self.private
    }

    /// The headers that carry the callers' credentials on a [private](Self::with_private)
    /// endpoint, replacing the list (default [`DEFAULT_CREDENTIAL_HEADERS`]): every answer
    /// varies on them, and a preflight allows a page to send them (all but `Cookie`, which no
    /// script sends). Name the header the app's auth reads, such as `X-Api-Key`; the names are
    /// written out as given. At least one, each a header name; unused without the private
    /// policy.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().with_private(true);
    /// assert_eq!(options.credential_headers(), ["Authorization", "Cookie"]);
    /// let options = options.with_credential_headers(["X-Api-Key"]);
    /// assert_eq!(options.credential_headers(), ["X-Api-Key"]);
    /// ```
    pub fn with_credential_headers(
        mut self,
        names: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.credential_headers = names.into_iter().map(Into::into).collect();
        self
    }

    /// The headers that carry credentials.
    #[must_use]
    pub fn credential_headers(&self) -> Vec<&str> {
        self.credential_headers.iter().map(String::as_str).collect()
    }

    /// Caps the event streams open at once (default [`DEFAULT_MAX_STREAMS`], 512): the
    /// `subscriptions/listen` streams of 2026-07-28 clients and the `GET` streams of sessions
    /// together, since each holds a connection, a task and some memory for as long as its
    /// client likes. Beyond the cap, the request gets `503` with `Retry-After: 3` and the
    /// JSON-RPC error [`TOO_MANY_STREAMS`](crate::TOO_MANY_STREAMS), whose `data` gives the
    /// cap, and a session's stream open before is left as it was; clients that follow no
    /// changes never meet it. At least 1 and at most [`MAX_STREAMS_LIMIT`].
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::HttpOptions;
    ///
    /// assert_eq!(HttpOptions::default().max_streams(), 512);
    /// assert_eq!(HttpOptions::default().with_max_streams(10_000).max_streams(), 10_000);
    /// ```
    pub fn with_max_streams(mut self, max: usize) -> Self {
        self.max_streams = max;
        self
    }

    /// The cap on open event streams.
    #[must_use]
    pub fn max_streams(&self) -> usize {
        self.max_streams
    }

    /// The most sessions open at once (default: [`DEFAULT_MAX_SESSIONS`], about 20 MB when
    /// all are open). When every place is taken, an `initialize` ends the least recently used
    /// session that has no request in progress (an open `GET` stream is one), whose client
    /// then gets `404` and opens a new session, as the transport says: a flood of
    /// `initialize`s cannot lock the clients in use out. Only when every session is busy does
    /// an `initialize` get `503 Service Unavailable` with `Retry-After: 3` and the JSON-RPC
    /// error [`TOO_MANY_SESSIONS`](crate::TOO_MANY_SESSIONS). At least 1 and at most
    /// [`MAX_SESSIONS_LIMIT`].
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let skills = McpSkills::new(skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let options = HttpOptions::default().with_stateful(true).with_max_sessions(100);
    /// assert_eq!(options.max_sessions(), 100);
    /// assert!(skills.streamable_http_service(options).is_ok());
    /// let zero = skills.streamable_http_service(HttpOptions::default().with_max_sessions(0));
    /// assert_eq!(zero.unwrap_err().to_string(), "`max_sessions` is 0; give at least 1 and at most 1000000");
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// The cap on open sessions.
    #[must_use]
    pub fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    /// How long a session lasts after its client's last request ended (default:
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`]). Only the client's requests count: notifications
    /// the server sends never keep a session open, nor do requests refused for their `Host`
    /// or `Origin`, and a request in progress (an open `GET` stream is one) holds it until it
    /// ends. An expired session's requests get `404`, after which a client opens a new
    /// session with `initialize`, as the transport says. More than zero and at most
    /// [`MAX_SESSION_IDLE_TIMEOUT`].
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let skills = McpSkills::new(skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let options = HttpOptions::default().with_stateful(true).with_session_idle_timeout(Duration::from_secs(60));
    /// assert_eq!(options.session_idle_timeout(), Duration::from_secs(60));
    /// assert!(skills.streamable_http_service(options).is_ok());
    /// let zero = HttpOptions::default().with_session_idle_timeout(Duration::ZERO);
    /// assert!(skills.streamable_http_service(zero).is_err());
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn with_session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle_timeout = idle;
        self
    }

    /// How long a session lasts after its client's last request.
    #[must_use]
    pub fn session_idle_timeout(&self) -> Duration {
        self.session_idle_timeout
    }

    /// Every knob, checked: the guard, the stream cap and the session limits.
    fn checked(&self) -> Result<(Guard, usize, Limits), ConfigError> {
        let guard = Guard::new(self.allowed_hosts(), self.allowed_origins())?;
        if !(1..=MAX_STREAMS_LIMIT).contains(&self.max_streams) {
            return Err(ConfigError::MaxStreams(self.max_streams));
        }
        if !(1..=MAX_SESSIONS_LIMIT).contains(&self.max_sessions) {
            return Err(ConfigError::MaxSessions(self.max_sessions));
        }
        let idle = self.session_idle_timeout;
        if idle.is_zero() || idle > MAX_SESSION_IDLE_TIMEOUT {
            return Err(ConfigError::SessionIdleTimeout(idle));
        }
        let limits = Limits {
            max: self.max_sessions,
            idle,
        };
        Ok((guard, self.max_streams, limits))
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
    /// [`HttpOptions::with_stateful`], JSON responses, `Host` and `Origin` checked and open
    /// streams capped as [`HttpOptions`] says. Nest it in the same axum app as the well-known
    /// router.
    ///
    /// # Errors
    ///
    /// A knob of [`HttpOptions`] out of its range, named in the error: an allowed host or
    /// origin that no request can match, a stream or session cap of zero or over its limit,
    /// an idle time of zero or over a day.
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
    /// [`McpSkills::streamable_http_service`]; turn on [`HttpOptions::with_stateful`] for clients
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
    ///     .nest_service("/mcp", mcp.streamable_http_service(HttpOptions::default().with_stateful(true))?);
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

/// The endpoint for `server`: the guard, then the sessions when they are on, in front of
/// rmcp's stateless transport.
pub(crate) fn service(
    server: SkillsServer,
    live: Option<LiveMcpSkills>,
    options: &HttpOptions,
) -> Result<McpService, ConfigError> {
    let (guard, max_streams, limits) = options.checked()?;
    let private = options
        .private
        .then(|| PrivateHeaders::new(&options.credential_headers))
        .transpose()?;
    let sessions = options
        .stateful
        .then(|| (Arc::new(Sessions::new(limits)), live));
    let server = server.with_private(options.private);
    let endpoint = Endpoint::new(
        transport(server, options),
        sessions,
        Streams::new(max_streams),
    );
    Ok(McpService::new(guard, endpoint, private))
}

/// rmcp's stateless transport for `server` (one clone of `server` per request), answering
/// with JSON, with its own `Host` and `Origin` checks behind the guard's.
fn transport(
    server: SkillsServer,
    options: &HttpOptions,
) -> StreamableHttpService<SkillsServer, NeverSessionManager> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(options.allowed_hosts())
        .with_allowed_origins(options.allowed_origins())
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_BODY);
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// rmcp's transport as the endpoint configures it, for an empty catalog: what the unit tests
/// compare the endpoint's own checks to.
#[cfg(test)]
pub(crate) fn rmcp_transport(
    options: &HttpOptions,
) -> StreamableHttpService<SkillsServer, NeverSessionManager> {
    let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new()).unwrap();
    transport(SkillsServer::new(McpSkills::new(catalog)), options)
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
        let local = HttpOptions::default().with_allowed_hosts(["localhost:3000", "[::1]:3000"]);
        assert_eq!(local.allowed_origins().len(), 3);
        let mixed = HttpOptions::default().with_allowed_hosts(["localhost", "skills.example.com"]);
        assert!(mixed.allowed_origins().is_empty());
    }
}
