//! Mounting a skills server on the Streamable HTTP transport, next to the well-known routes.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::server::SkillsServer;
use crate::skills::McpSkills;

/// The tower service of the Streamable HTTP transport for a skills server.
pub type McpService = StreamableHttpService<SkillsServer, LocalSessionManager>;

/// Who may call the MCP endpoint.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct HttpOptions {
    origins: Vec<String>,
    hosts: Option<Vec<String>>,
}

impl HttpOptions {
    /// Browser origins allowed to call (such as `https://app.example.com`). A request with any
    /// other `Origin` gets 403, as the transport requires; requests without `Origin` (agents,
    /// command-line clients) pass. Default: none.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// `Host` values accepted, against DNS rebinding (default: rmcp's `localhost`,
    /// `127.0.0.1` and `::1`; give your public host names when serving publicly).
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }
}

impl McpSkills {
    /// A tower service for the Streamable HTTP transport: stateless, JSON responses, `Origin`
    /// checked. Nest it in the same axum app as the well-known router.
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
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_allowed_origins(options.origins)
            .enforce_origin_validation();
        if let Some(hosts) = options.hosts {
            config = config.with_allowed_hosts(hosts);
        }
        let skills = self.clone();
        StreamableHttpService::new(
            move || Ok(SkillsServer::new(skills.clone())),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    }
}
