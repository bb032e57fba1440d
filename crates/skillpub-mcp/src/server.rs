//! [`SkillsServer`]: a ready MCP server handler that serves a catalog and nothing else.

use std::sync::{Arc, OnceLock};

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CacheScope, CallToolRequestMethod, CallToolRequestParams, CallToolResponse, DiscoverResult,
    GetPromptRequestMethod, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, Implementation, InitializeRequestParams, InitializeResult,
    ListPromptsRequestMethod, ListPromptsResult, ListResourcesResult, ListSkillsResult,
    ListToolsRequestMethod, ListToolsResult, PaginatedRequestParams, PromptsCapability,
    ProtocolVersion, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig, ToolsCapability,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio::sync::watch;

use crate::live::LiveMcpSkills;

use crate::prompts::prompt_not_found;
use crate::skills::{McpSkills, resource_not_found};

/// What a handler needs of skills chosen per caller ([`McpCallers`](crate::McpCallers)),
/// without their key type.
pub(crate) trait Choose: Send + Sync + std::fmt::Debug {
    /// The skills of the caller of `context`.
    fn skills(&self, context: &RequestContext<RoleServer>) -> McpSkills;
    /// The skills of the caller of a request with these parts.
    fn skills_of(&self, parts: Option<&http::request::Parts>) -> McpSkills;
    /// The capabilities every caller's skills need.
    fn capabilities(&self) -> ServerCapabilities;
}

/// The capabilities of the skills extension: `resources`, and the extension with
/// `directoryRead: true`. [`McpSkills::capabilities`] adds `prompts` and `tools` when those
/// surfaces are on; a handler of your own that delegates to [`McpSkills`] declares those (plus
/// its own).
#[must_use]
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder()
        .enable_resources()
        .enable_skills_with_directory_read()
        .build()
}

impl McpSkills {
    /// The capabilities to declare: [`capabilities`], plus `prompts` and `tools` when
    /// [`prompts`](crate::McpSkillsBuilder::prompts) and
    /// [`tools`](crate::McpSkillsBuilder::tools) are on.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::McpSkills;
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let plain = McpSkills::new(catalog.clone()).capabilities();
    /// assert!(plain.resources.is_some() && plain.prompts.is_none() && plain.tools.is_none());
    /// let both = McpSkills::builder(catalog).prompts(true).tools(true).build()?.capabilities();
    /// assert!(both.prompts.is_some() && both.tools.is_some() && both.extensions.is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn capabilities(&self) -> ServerCapabilities {
        let mut capabilities = capabilities();
        if self.offers_prompts() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        if self.offers_tools() {
            capabilities.tools = Some(ToolsCapability::default());
        }
        capabilities
    }
}

/// An MCP server handler for a catalog: `skills/list`, `skills/get`, `resources/list`,
/// `resources/read` and `resources/directory/read`, and `prompts/list`, `prompts/get`,
/// `tools/list` and `tools/call` when those surfaces are on.
///
/// Over a [`LiveMcpSkills`], every request is answered from the catalog of that moment, a
/// session's client is told when a replacement changes a list (from `initialized` until the
/// session ends), and `subscriptions/listen` is answered for 2026-07-28 clients. A clone is a
/// handler for another session: what one session follows ends with that session.
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
#[derive(Debug)]
pub struct SkillsServer {
    skills: Served,
    /// Whether results say `cacheScope: private` whatever the skills' options say
    /// ([`HttpOptions::with_private`](crate::HttpOptions::with_private)).
    private: bool,
    /// Dropped with the handler, which ends what its session follows. Made only once a
    /// session is initialized: the stateless transport makes a handler for every request
    /// and never initializes one.
    session: OnceLock<watch::Sender<()>>,
}

/// What a handler serves.
#[derive(Debug, Clone)]
enum Served {
    Fixed(McpSkills),
    Live(LiveMcpSkills),
    /// The skills of each request's caller.
    Callers(Arc<dyn Choose>),
}

impl SkillsServer {
    /// Serves these skills.
    #[must_use]
    pub fn new(skills: McpSkills) -> Self {
        Self::serving(Served::Fixed(skills))
    }

    /// Serves the catalog of a live handle at each moment, and tells clients of changes.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, LiveCatalog};
    /// use skillpub_mcp::{McpSkills, SkillsServer};
    ///
    /// let live = LiveCatalog::new(Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let server = SkillsServer::live(McpSkills::live(live).build()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn live(skills: LiveMcpSkills) -> Self {
        Self::serving(Served::Live(skills))
    }

    /// Serves the skills of each request's caller.
    pub(crate) fn callers(callers: Arc<dyn Choose>) -> Self {
        Self::serving(Served::Callers(callers))
    }

    fn serving(skills: Served) -> Self {
        Self {
            skills,
            private: false,
            session: OnceLock::new(),
        }
    }

    /// The same server, whose results say `cacheScope: private` when `private`.
    pub(crate) fn with_private(mut self, private: bool) -> Self {
        self.private = private;
        self
    }

    /// The skills it serves now: for a live handle, those of the current catalog; for
    /// skills chosen per caller, those of a caller without a key.
    #[must_use]
    pub fn skills(&self) -> McpSkills {
        match &self.skills {
            Served::Fixed(skills) => skills.clone(),
            Served::Live(live) => live.current(),
            Served::Callers(callers) => callers.skills_of(None),
        }
    }

    /// The skills it serves the caller of `context`.
    fn skills_for(&self, context: &RequestContext<RoleServer>) -> McpSkills {
        match &self.skills {
            Served::Callers(callers) => callers.skills(context),
            Served::Fixed(_) | Served::Live(_) => self.skills(),
        }
    }

    /// The capabilities it declares.
    fn capabilities(&self, skills: &McpSkills) -> ServerCapabilities {
        match &self.skills {
            Served::Fixed(_) => skills.capabilities(),
            Served::Live(live) => live.capabilities(),
            Served::Callers(callers) => callers.capabilities(),
        }
    }

    /// What `initialize` and `server/discover` say, with the instructions of `skills`.
    fn info(&self, skills: &McpSkills) -> ServerConfig {
        ServerConfig::new(self.capabilities(skills))
            .with_server_info(Implementation::new("skillpub", env!("CARGO_PKG_VERSION")))
            .with_instructions(skills.instructions())
    }

    /// `result` fitted to the peer of `context`, and private when the endpoint is.
    fn fit<T: CacheHinted>(&self, result: T, context: &RequestContext<RoleServer>) -> T {
        let result = fit_to_peer(result, context);
        if self.private {
            result.privately_scoped()
        } else {
            result
        }
    }
}

impl Clone for SkillsServer {
    /// The same skills, for another session.
    fn clone(&self) -> Self {
        Self::serving(self.skills.clone()).with_private(self.private)
    }
}

/// Results that carry the SEP-2549 cache hints `ttlMs` and `cacheScope`: those of
/// `skills/list`, `skills/get`, `resources/list`, `resources/read`, (the same type as
/// `resources/list` in rmcp) `resources/directory/read`, `prompts/list` and `tools/list`.
pub trait CacheHinted {
    /// Removes the hints.
    fn without_cache_hints(self) -> Self;
    /// Says `cacheScope: private` where a scope is said: the answer is for this caller.
    fn privately_scoped(self) -> Self;
}

macro_rules! cache_hinted {
    ($($result:ty),+) => {$(
        impl CacheHinted for $result {
            fn without_cache_hints(mut self) -> Self {
                self.ttl_ms = None;
                self.cache_scope = None;
                self
            }

            fn privately_scoped(mut self) -> Self {
                if self.cache_scope.is_some() {
                    self.cache_scope = Some(CacheScope::Private);
                }
                self
            }
        }
    )+};
}

cache_hinted!(
    ListSkillsResult,
    GetSkillResult,
    ListResourcesResult,
    ReadResourceResult,
    ListPromptsResult,
    ListToolsResult
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
        self.info(&self.skills())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        if let Served::Callers(_) = &self.skills {
            result.instructions = self.info(&self.skills_for(&context)).instructions;
        }
        Ok(result)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.info(&self.skills_for(&context)),
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let Served::Live(live) = &self.skills else {
            return;
        };
        // The session's handler is dropped when the session ends, and with it the sender.
        let mut session = self
            .session
            .get_or_init(|| watch::Sender::new(()))
            .subscribe();
        let ended = async move { while session.changed().await.is_ok() {} };
        let (peer, changes) = (context.peer, live.changes());
        tokio::spawn(async move { changes.tell(&peer, ended).await });
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        match &self.skills {
            Served::Fixed(_) | Served::Callers(_) => None,
            Served::Live(live) => Some(requested.intersection(&live.subscription_filter())),
        }
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        match &self.skills {
            Served::Fixed(_) | Served::Callers(_) => context.cancelled().await,
            Served::Live(live) => {
                live.changes()
                    .tell(context.sink(), context.cancelled())
                    .await;
            }
        }
        Ok(())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let skills = self.skills_for(&context);
        if !skills.offers_prompts() {
            return Err(ErrorData::method_not_found::<ListPromptsRequestMethod>());
        }
        let result = skills.list_prompts(cursor(request.as_ref()))?;
        Ok(self.fit(result, &context))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let skills = self.skills_for(&context);
        if !skills.offers_prompts() {
            return Err(ErrorData::method_not_found::<GetPromptRequestMethod>());
        }
        match skills.get_prompt(&request.name) {
            Some(result) => Ok(result.into()),
            None => Err(prompt_not_found(&request.name)),
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let skills = self.skills_for(&context);
        if !skills.offers_tools() {
            return Err(ErrorData::method_not_found::<ListToolsRequestMethod>());
        }
        let result = skills.list_tools(cursor(request.as_ref()))?;
        Ok(self.fit(result, &context))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let skills = self.skills_for(&context);
        if !skills.offers_tools() {
            return Err(ErrorData::method_not_found::<CallToolRequestMethod>());
        }
        match skills.call_tool(&request) {
            Some(result) => Ok(result.into()),
            // The specification's protocol error for an unknown tool.
            None => Err(ErrorData::invalid_params(
                format!(
                    "No tool named `{}` is served here; tools/list lists the tools",
                    request.name
                ),
                None,
            )),
        }
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let skills = self.skills_for(&context);
        let result = skills.list_skills(cursor(request.as_ref()))?;
        Ok(self.fit(result, &context))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let skills = self.skills_for(&context);
        Ok(self.fit(skills.get_skill(&request.uri)?, &context))
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let skills = self.skills_for(&context);
        let result = skills.read_resource_directory(&request.uri, request.cursor.as_deref())?;
        Ok(self.fit(result, &context))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let skills = self.skills_for(&context);
        let result = skills.list_resources(cursor(request.as_ref()))?;
        Ok(self.fit(result, &context))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let skills = self.skills_for(&context);
        match skills.read_resource(&request.uri) {
            Some(result) => Ok(self.fit(result, &context).into()),
            None => Err(resource_not_found(&request.uri)),
        }
    }
}
