//! Mounting a skills server on the Streamable HTTP transport, next to the well-known routes.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::live::LiveMcpSkills;
use crate::server::SkillsServer;
use crate::service::{DEFAULT_MAX_STREAMS, McpService};
use crate::skills::McpSkills;

/// The browser origins a server on loopback accepts by default: any port of `localhost`,
/// `127.0.0.1` and `[::1]` over `http`, as the official MCP SDKs allow, so that a local
/// browser client (an inspector, an app on a development server) is not refused.
pub const LOOPBACK_ORIGINS: [&str; 3] =
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// The `Host` values a server accepts by default: loopback only, against DNS rebinding.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Who may call the MCP endpoint: the `Host` values it answers and the browser `Origin`s it
/// accepts.
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
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct HttpOptions {
    origins: Option<Vec<String>>,
    hosts: Option<Vec<String>>,
    stateful: bool,
    max_streams: Option<usize>,
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
    /// one (`Mcp-Session-Id`), a client may hold a `GET` stream of server-sent events open
    /// for the server's notifications, such as `notifications/resources/list_changed` after
    /// a [`LiveCatalog`](skillpub_core::LiveCatalog) replacement, and the session ends with
    /// `DELETE`, or after five minutes without a request (rmcp's default). Clients of
    /// 2026-07-28 have no sessions either way and follow changes with
    /// `subscriptions/listen`.
    ///
    /// Each session holds a little memory and a task until it ends; its `GET` stream counts
    /// against [`max_streams`](Self::max_streams). The hardened server
    /// (`skillpub_axum::serve`) never closes a connection whose stream is open as idle, closes
    /// it when file descriptors run out only after the quiet connections (the client
    /// reconnects), and at the end of the grace period on shutdown.
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
        self.max_streams = Some(max);
        self
    }

    /// The cap on open event streams.
    #[must_use]
    pub fn stream_cap(&self) -> usize {
        self.max_streams.unwrap_or(DEFAULT_MAX_STREAMS)
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
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::{HttpOptions, McpSkills};
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let app: axum::Router = axum::Router::new()
    ///     .merge(skillpub_axum::router(catalog.clone()))
    ///     .nest_service("/mcp", McpSkills::new(catalog).streamable_http_service(HttpOptions::default()));
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[must_use]
    pub fn streamable_http_service(&self, options: HttpOptions) -> McpService {
        service(SkillsServer::new(self.clone()), &options)
    }
}

impl LiveMcpSkills {
    /// A tower service for the Streamable HTTP transport, as
    /// [`McpSkills::streamable_http_service`]; turn on [`HttpOptions::stateful`] for clients
    /// before 2026-07-28 to be told of changes.
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
    ///     .nest_service("/mcp", mcp.streamable_http_service(HttpOptions::default().stateful(true)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn streamable_http_service(&self, options: HttpOptions) -> McpService {
        service(SkillsServer::live(self.clone()), &options)
    }
}

/// The transport for `server`: one clone per session (or per request, without sessions).
fn service(server: SkillsServer, options: &HttpOptions) -> McpService {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(options.stateful)
        .with_json_response(true)
        .with_allowed_hosts(options.hosts())
        .with_allowed_origins(options.origins())
        .enforce_origin_validation();
    let transport = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    McpService::new(transport, options.stream_cap())
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
