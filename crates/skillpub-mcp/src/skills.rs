//! [`McpSkills`]: a catalog seen through SEP-2640, and the [`McpSkillsBuilder`] of its
//! options. Every file of every skill is a `skill://` resource; each method answers a protocol
//! method from the answers prepared once (`prepare.rs`), without further work.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResult, GetPromptResult, GetSkillResult,
    ListPromptsResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    ReadResourceDirectoryResult, ReadResourceResult,
};
use skillpub_core::Catalog;

use crate::config::ConfigError;
use crate::options::Options;
use crate::paging::page;
use crate::prepare::Prepared;

/// A catalog served over MCP with the skills extension. Cheap to clone.
///
/// Its methods are named after the protocol methods, so a handler of your own (one that also
/// has tools) can delegate to them; [`SkillsServer`](crate::SkillsServer) is a ready handler
/// that does only that.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, Skill};
/// use skillpub_mcp::McpSkills;
///
/// let catalog = Catalog::new([Skill::from_static(
///     "---\nname: refunds\ndescription: Process refunds per policy.\n---\nSteps.\n",
/// )])?;
/// let skills = McpSkills::builder(catalog).prefix("acme/billing").build()?;
/// let listed = skills.list_skills(None)?;
/// assert_eq!(listed.skills[0].uri, "skill://acme/billing/refunds/SKILL.md");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct McpSkills(pub(crate) Arc<Prepared>);

/// Options for [`McpSkills`] over a catalog, or for a
/// [`LiveMcpSkills`](crate::LiveMcpSkills) over a [`LiveCatalog`](skillpub_core::LiveCatalog)
/// (made by [`McpSkills::live`]): the same options, applied to every catalog it publishes.
#[derive(Debug, Clone)]
#[must_use]
pub struct McpSkillsBuilder<C = Catalog> {
    pub(crate) source: C,
    pub(crate) options: Options,
}

impl McpSkills {
    /// Starts from a catalog: no prefix, pages of [`DEFAULT_PAGE_SIZE`](crate::DEFAULT_PAGE_SIZE), `ttlMs`
    /// [`DEFAULT_TTL_MS`](crate::DEFAULT_TTL_MS), `cacheScope: public`, the skills extension and resources only (no
    /// prompts, no tools, no catalog summary in the instructions).
    pub fn builder(catalog: Catalog) -> McpSkillsBuilder {
        McpSkillsBuilder::from_source(catalog)
    }

    /// The same as `McpSkills::builder(catalog).build()`.
    #[must_use]
    pub fn new(catalog: Catalog) -> Self {
        Self::prepare(&Options::default(), &catalog)
    }

    /// The server's `instructions`: how to reach the skills with the surfaces that are on
    /// and, with [`McpSkillsBuilder::instructions`], a summary of the catalog of at most
    /// [`INSTRUCTIONS_LIMIT`](crate::INSTRUCTIONS_LIMIT) bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::McpSkills;
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let skills = McpSkills::new(catalog);
    /// assert!(skills.instructions().contains("skills/list"));
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[must_use]
    pub fn instructions(&self) -> &str {
        &self.0.instructions
    }

    /// Whether every skill is also a prompt.
    pub(crate) fn offers_prompts(&self) -> bool {
        self.0.surfaces.prompts
    }

    /// Whether the skill tools are on.
    pub(crate) fn offers_tools(&self) -> bool {
        self.0.surfaces.tools
    }

    /// `skills/list`: one page of skills, sorted by URI; an entry is never split.
    ///
    /// # Errors
    ///
    /// `-32602` for a cursor this server did not hand out.
    pub fn list_skills(&self, cursor: Option<&str>) -> Result<ListSkillsResult, ErrorData> {
        let (page, next) = page(&self.0.skills, cursor, self.0.page_size)?;
        let mut result = ListSkillsResult::with_all_items(page)
            .with_ttl_ms(self.0.ttl_ms)
            .with_cache_scope(self.0.cache_scope);
        result.next_cursor = next;
        Ok(result)
    }

    /// `skills/get` for the URI of a served skill's `SKILL.md`.
    ///
    /// # Errors
    ///
    /// `-32602` when no skill is served at `uri`.
    pub fn get_skill(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        let skill = self
            .0
            .skills
            .binary_search_by(|skill| skill.uri.as_str().cmp(uri))
            .map(|at| self.0.skills[at].clone())
            .map_err(|_| not_served(format!("No skill is served at {uri}"), uri))?;
        Ok(GetSkillResult::new(skill)
            .with_ttl_ms(self.0.ttl_ms)
            .with_cache_scope(self.0.cache_scope))
    }

    /// `resources/list`: one page of every file of every skill, sorted by URI.
    ///
    /// # Errors
    ///
    /// `-32602` for a cursor this server did not hand out.
    pub fn list_resources(&self, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
        let (page, next) = page(&self.0.listed, cursor, self.0.page_size)?;
        let mut result = ListResourcesResult::with_all_items(page)
            .with_ttl_ms(self.0.ttl_ms)
            .with_cache_scope(self.0.cache_scope);
        result.next_cursor = next;
        Ok(result)
    }

    /// `resources/read` of a skill file, or `None` when `uri` is not one, so a handler with
    /// resources of its own can try those (and answer [`resource_not_found`] when none has
    /// it). Text files come back as text, others as base64. The result carries `ttlMs` and
    /// `cacheScope`, as SEP-2549 requires of `resources/read` on 2026-07-28.
    #[must_use]
    pub fn read_resource(&self, uri: &str) -> Option<ReadResourceResult> {
        let file = self.0.files.get(uri)?;
        Some(
            ReadResourceResult::new(vec![file.contents(uri)])
                .with_ttl_ms(self.0.ttl_ms)
                .with_cache_scope(self.0.cache_scope),
        )
    }

    /// `resources/directory/read` of a skill root or one of its folders: its direct children,
    /// one page. The result carries `ttlMs` and `cacheScope` too: the extension does not ask
    /// for them here, but rmcp answers with the type of `resources/list` and would otherwise
    /// fill in `0` and `private` for 2026-07-28 peers.
    ///
    /// # Errors
    ///
    /// `-32602` when `uri` is not such a folder (a file, an unknown path), or for a cursor this
    /// server did not hand out.
    pub fn read_resource_directory(
        &self,
        uri: &str,
        cursor: Option<&str>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let Some(children) = self.0.directories.get(uri) else {
            let message = if self.0.files.contains_key(uri) {
                format!("{uri} is not a directory resource")
            } else {
                format!("No directory is served at {uri}")
            };
            return Err(not_served(message, uri));
        };
        let (page, next) = page(children, cursor, self.0.page_size)?;
        let mut result = ReadResourceDirectoryResult::with_all_items(page)
            .with_ttl_ms(self.0.ttl_ms)
            .with_cache_scope(self.0.cache_scope);
        result.next_cursor = next;
        Ok(result)
    }

    /// `prompts/list`: one page of the skills' prompts, sorted by name; empty unless
    /// [`prompts`](crate::McpSkillsBuilder::prompts) is on. The result carries `ttlMs` and
    /// `cacheScope`.
    ///
    /// # Errors
    ///
    /// `-32602` for a cursor this server did not hand out.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    /// use skillpub_mcp::McpSkills;
    ///
    /// let catalog = Catalog::new([Skill::from_static(
    ///     "---\nname: refunds\ndescription: Process refunds per policy.\n---\nSteps.\n",
    /// )])?;
    /// let skills = McpSkills::builder(catalog).prompts(true).build()?;
    /// let prompts = skills.list_prompts(None)?.prompts;
    /// assert_eq!(prompts[0].name, "refunds");
    /// assert_eq!(prompts[0].description.as_deref(), Some("Process refunds per policy."));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult, ErrorData> {
        let (page, next) = page(self.0.prompts.listed(), cursor, self.0.page_size)?;
        let mut result = ListPromptsResult::with_all_items(page)
            .with_ttl_ms(self.0.ttl_ms)
            .with_cache_scope(self.0.cache_scope);
        result.next_cursor = next;
        Ok(result)
    }

    /// `prompts/get` of a skill's prompt: the exact `SKILL.md` as a user message, then a
    /// resource link (`skill://` URI, name, media type, size) to each supporting file. `None`
    /// when no skill has that name or prompts are off, so a handler with prompts of its own
    /// can try those (and answer [`prompt_not_found`](crate::prompt_not_found) when none has
    /// it).
    #[must_use]
    pub fn get_prompt(&self, name: &str) -> Option<GetPromptResult> {
        self.0.prompts.get(name)
    }

    /// `tools/list`: `list_skills`, `load_skill` and `read_skill_file`, with their input and
    /// output schemas, when [`tools`](crate::McpSkillsBuilder::tools) is on; none otherwise.
    /// The result carries `ttlMs` and `cacheScope`.
    ///
    /// # Errors
    ///
    /// `-32602` for a cursor this server did not hand out.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_mcp::McpSkills;
    ///
    /// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let skills = McpSkills::builder(catalog).tools(true).build()?;
    /// let names: Vec<String> = skills.list_tools(None)?.tools.into_iter().map(|t| t.name.into()).collect();
    /// assert_eq!(names, ["list_skills", "load_skill", "read_skill_file"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        let (page, next) = page(self.0.tools.listed(), cursor, self.0.page_size)?;
        let mut result = ListToolsResult::with_all_items(page)
            .with_ttl_ms(self.0.ttl_ms)
            .with_cache_scope(self.0.cache_scope);
        result.next_cursor = next;
        Ok(result)
    }

    /// `tools/call` of one of the skill tools, or `None` when the tool is not one of them (or
    /// tools are off), so a handler with tools of its own can try those. Bad arguments, an
    /// unknown skill and an unknown file are answered with a tool error (`isError: true`)
    /// whose text names the input and says how to fix it, so the model can correct itself.
    ///
    /// - `list_skills(cursor?)`: one page of `{name, description, uri}`, with `nextCursor`.
    /// - `load_skill(name)`: the exact `SKILL.md` as text, then `{name, description, uri,
    ///   files: [{path, uri, mimeType, size, digest}]}` for every file, `SKILL.md` included.
    /// - `read_skill_file(name, path)`: the file (text as text, other files as an embedded
    ///   base64 blob resource), then `{name, path, uri, mimeType, size, digest}`.
    ///
    /// The JSON part is also the result's `structuredContent`. Bytes and digests are the
    /// catalog's, as on every other route.
    ///
    /// # Example
    ///
    /// ```
    /// use rmcp::model::CallToolRequestParams;
    /// use skillpub_core::{Catalog, Skill};
    /// use skillpub_mcp::{McpSkills, READ_SKILL_FILE_TOOL};
    ///
    /// let catalog = Catalog::new([Skill::from_static(
    ///     "---\nname: refunds\ndescription: Process refunds per policy.\n---\nSteps.\n",
    /// )])?;
    /// let skills = McpSkills::builder(catalog).tools(true).build()?;
    /// let arguments = serde_json::json!({"name": "refunds", "path": "../../etc/passwd"});
    /// let call = CallToolRequestParams::new(READ_SKILL_FILE_TOOL)
    ///     .with_arguments(arguments.as_object().unwrap().clone());
    /// let refused = skills.call_tool(&call).unwrap();
    /// assert_eq!(refused.is_error, Some(true));
    /// assert!(skills.call_tool(&CallToolRequestParams::new("other_tool")).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn call_tool(&self, request: &CallToolRequestParams) -> Option<CallToolResult> {
        self.0.tools.call(request, &self.0.files)
    }

    /// Which lists a client sees differ from those of `before`: `skills/list` or
    /// `resources/list`, `prompts/list`. (`tools/list` is the same for every catalog.)
    pub(crate) fn lists_differ(&self, before: &Self) -> [bool; 2] {
        let (now, then) = (&self.0, &before.0);
        [
            now.skills != then.skills || now.listed != then.listed,
            now.prompts.listed() != then.prompts.listed(),
        ]
    }

    /// Prepares every answer of `catalog` with checked `options`.
    pub(crate) fn prepare(options: &Options, catalog: &Catalog) -> Self {
        Self(Arc::new(Prepared::new(options, catalog)))
    }
}

/// The error for a `resources/read` of a URI that nothing serves: `-32602` with
/// `data: {"uri": ...}`, as the 2026-07-28 base protocol (SEP-2164) says. A handler with
/// resources of its own answers this when neither [`McpSkills::read_resource`] nor its own
/// resources have the URI.
///
/// # Example
///
/// ```
/// let error = skillpub_mcp::resource_not_found("skill://nope/SKILL.md");
/// assert_eq!(error.code.0, -32602);
/// assert_eq!(error.data, Some(serde_json::json!({"uri": "skill://nope/SKILL.md"})));
/// ```
#[must_use]
pub fn resource_not_found(uri: &str) -> ErrorData {
    not_served(format!("No resource is served at {uri}"), uri)
}

/// The one place where "not served" becomes a protocol error: `-32602`, as the stable
/// extension and the 2026-07-28 base protocol say, naming the URI in `data` (SEP-2164).
fn not_served(message: String, uri: &str) -> ErrorData {
    ErrorData::invalid_params(message, Some(serde_json::json!({ "uri": uri })))
}

impl<C> McpSkillsBuilder<C> {
    /// The default options over `source`.
    pub(crate) fn from_source(source: C) -> Self {
        Self {
            source,
            options: Options::default(),
        }
    }

    /// A path put before each skill name in its URIs, such as `acme/billing` for
    /// `skill://acme/billing/refunds/SKILL.md` (default: none).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.options.prefix = prefix.into();
        self
    }

    /// Items per page (default [`DEFAULT_PAGE_SIZE`](crate::DEFAULT_PAGE_SIZE)).
    pub fn page_size(mut self, size: usize) -> Self {
        self.options.page_size = size;
        self
    }

    /// `ttlMs` of every result (default [`DEFAULT_TTL_MS`](crate::DEFAULT_TTL_MS)); sent to 2026-07-28 peers only.
    pub fn ttl_ms(mut self, ttl_ms: u64) -> Self {
        self.options.ttl_ms = ttl_ms;
        self
    }

    /// `cacheScope` of every result (default public); sent to 2026-07-28 peers only.
    pub fn cache_scope(mut self, scope: CacheScope) -> Self {
        self.options.cache_scope = scope;
        self
    }

    /// Also offers every skill as a prompt, for hosts that show prompts but do not speak the
    /// skills extension (default: off). The prompt is named after the skill (without the
    /// prefix), described by its frontmatter's `description`; its first message is the exact
    /// `SKILL.md`, followed by a resource link to each supporting file. The server then
    /// declares `prompts`.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    /// use skillpub_mcp::McpSkills;
    ///
    /// let skill_md = "---\nname: refunds\ndescription: Process refunds per policy.\n---\nSteps.\n";
    /// let catalog = Catalog::new([Skill::from_static(skill_md)])?;
    /// let skills = McpSkills::builder(catalog).prompts(true).build()?;
    /// assert!(skills.capabilities().prompts.is_some());
    /// let prompt = skills.get_prompt("refunds").unwrap();
    /// assert_eq!(prompt.messages[0].content.as_text().unwrap().text, skill_md);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prompts(mut self, on: bool) -> Self {
        self.options.surfaces.prompts = on;
        self
    }

    /// Also offers tools that let a model find and load a skill on demand, for hosts that
    /// call tools but do not speak the skills extension (default: off): `list_skills`,
    /// `load_skill` (the `SKILL.md` and its files' paths, URIs, sizes and digests) and
    /// `read_skill_file` (one file). Bad input is a tool error (`isError: true`) saying how
    /// to fix it; a call can only ever read a file of the catalog. The server then declares
    /// `tools`.
    ///
    /// # Example
    ///
    /// ```
    /// use rmcp::model::CallToolRequestParams;
    /// use skillpub_core::{Catalog, Skill};
    /// use skillpub_mcp::{LOAD_SKILL_TOOL, McpSkills};
    ///
    /// let skill_md = "---\nname: refunds\ndescription: Process refunds per policy.\n---\nSteps.\n";
    /// let catalog = Catalog::new([Skill::from_static(skill_md)])?;
    /// let skills = McpSkills::builder(catalog).tools(true).build()?;
    /// let call = CallToolRequestParams::new(LOAD_SKILL_TOOL)
    ///     .with_arguments(serde_json::json!({"name": "refunds"}).as_object().unwrap().clone());
    /// let loaded = skills.call_tool(&call).unwrap();
    /// assert_eq!(loaded.is_error, Some(false));
    /// assert_eq!(loaded.content[0].as_text().unwrap().text, skill_md);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tools(mut self, on: bool) -> Self {
        self.options.surfaces.tools = on;
        self
    }

    /// Also puts a summary of the catalog in the server's `instructions`: every skill's name
    /// and description, one line each, so that a model knows which skills exist and when to
    /// load one (default: off). The text is at most [`INSTRUCTIONS_LIMIT`] bytes; past it,
    /// the list stops at a whole line and ends with a note saying how many skills were left
    /// out and how to list them all.
    ///
    /// [`INSTRUCTIONS_LIMIT`]: crate::INSTRUCTIONS_LIMIT
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    /// use skillpub_mcp::McpSkills;
    ///
    /// let skill_md = "---\nname: refunds\ndescription: Process refunds per policy.\n---\nSteps.\n";
    /// let catalog = Catalog::new([Skill::from_static(skill_md)])?;
    /// let skills = McpSkills::builder(catalog).instructions(true).build()?;
    /// assert!(skills.instructions().contains("\n- refunds: Process refunds per policy.\n"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn instructions(mut self, on: bool) -> Self {
        self.options.surfaces.instructions = on;
        self
    }

    /// The options, checked.
    pub(crate) fn checked_options(self) -> Result<(C, Options), ConfigError> {
        let Self { source, options } = self;
        let prefix = options.prefix.trim_matches('/');
        let segment = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b))
        };
        if !prefix.is_empty()
            && !prefix
                .split('/')
                .all(|s| segment(s) && s != "." && s != "..")
        {
            return Err(ConfigError::Prefix(options.prefix));
        }
        if options.page_size == 0 {
            return Err(ConfigError::PageSize);
        }
        let prefix = prefix.to_owned();
        Ok((source, Options { prefix, ..options }))
    }
}

impl McpSkillsBuilder {
    /// Prepares every answer.
    ///
    /// # Errors
    ///
    /// A prefix that is not URI-safe, or a page size of zero.
    pub fn build(self) -> Result<McpSkills, ConfigError> {
        let (catalog, options) = self.checked_options()?;
        Ok(McpSkills::prepare(&options, &catalog))
    }
}
