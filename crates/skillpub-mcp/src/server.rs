//! [`SkillsServer`]: a ready MCP server handler that serves a catalog and nothing else.

use rmcp::model::{
    GetSkillRequestParams, GetSkillResult, Implementation, ListResourcesResult, ListSkillsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::skills::{McpSkills, resource_not_found};

/// The capabilities a skills server declares: `resources`, and the skills extension with
/// `directoryRead: true`. A handler of your own that delegates to [`McpSkills`] declares
/// these too (plus its tools).
#[must_use]
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder()
        .enable_resources()
        .enable_skills_with_directory_read()
        .build()
}

/// An MCP server handler for a catalog: `skills/list`, `skills/get`, `resources/list`,
/// `resources/read` and `resources/directory/read`.
///
/// # Example
///
/// ```
/// use skillpub_mcp::{McpSkills, SkillsServer};
///
/// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
/// let server = SkillsServer::new(McpSkills::new(catalog));
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone)]
pub struct SkillsServer {
    skills: McpSkills,
}

impl SkillsServer {
    /// Serves these skills.
    #[must_use]
    pub fn new(skills: McpSkills) -> Self {
        Self { skills }
    }

    /// The skills it serves.
    #[must_use]
    pub fn skills(&self) -> &McpSkills {
        &self.skills
    }
}

/// Results that carry the SEP-2549 cache hints `ttlMs` and `cacheScope`: those of
/// `skills/list`, `skills/get`, `resources/list`, `resources/read` and (the same type as
/// `resources/list` in rmcp) `resources/directory/read`.
pub trait CacheHinted {
    /// Removes the hints.
    fn without_cache_hints(self) -> Self;
}

macro_rules! cache_hinted {
    ($($result:ty),+) => {$(
        impl CacheHinted for $result {
            fn without_cache_hints(mut self) -> Self {
                self.ttl_ms = None;
                self.cache_scope = None;
                self
            }
        }
    )+};
}

cache_hinted!(
    ListSkillsResult,
    GetSkillResult,
    ListResourcesResult,
    ReadResourceResult
);

/// Fits a result to the peer: `ttlMs` and `cacheScope` exist from protocol 2026-07-28 on and
/// must be left out for older peers (rmcp removes only `resultType` for them). A handler that
/// delegates to [`McpSkills`] passes its results through this.
pub fn fit_to_peer<T: CacheHinted>(result: T, context: &RequestContext<RoleServer>) -> T {
    let modern = context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
    if modern {
        result
    } else {
        result.without_cache_hints()
    }
}

fn cursor(params: Option<&PaginatedRequestParams>) -> Option<&str> {
    params.and_then(|p| p.cursor.as_deref())
}

impl ServerHandler for SkillsServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(capabilities())
            .with_server_info(Implementation::new("skillpub", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Agent Skills: call skills/list, then resources/read on a skill's SKILL.md.",
            )
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let result = self.skills.list_skills(cursor(request.as_ref()))?;
        Ok(fit_to_peer(result, &context))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        Ok(fit_to_peer(self.skills.get_skill(&request.uri)?, &context))
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let result = self
            .skills
            .read_resource_directory(&request.uri, request.cursor.as_deref())?;
        Ok(fit_to_peer(result, &context))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let result = self.skills.list_resources(cursor(request.as_ref()))?;
        Ok(fit_to_peer(result, &context))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match self.skills.read_resource(&request.uri) {
            Some(result) => Ok(fit_to_peer(result, &context).into()),
            None => Err(resource_not_found(&request.uri)),
        }
    }
}
