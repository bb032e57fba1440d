//! [`SkillsServer`]: a ready MCP server handler that serves a catalog and nothing else.

use rmcp::model::{
    GetSkillRequestParams, GetSkillResult, Implementation, ListResourcesResult, ListSkillsResult,
    PaginatedRequestParams, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::skills::McpSkills;

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
        _: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.skills.list_skills(cursor(request.as_ref()))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.skills.get_skill(&request.uri)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.skills
            .read_resource_directory(&request.uri, request.cursor.as_deref())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.skills.list_resources(cursor(request.as_ref()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.skills
            .read_resource(&request.uri)
            .map(Into::into)
            .ok_or_else(|| {
                ErrorData::invalid_params(format!("No resource is served at {}", request.uri), None)
            })
    }
}
