//! [`McpSkills`]: a catalog seen through SEP-2640. Every file of every skill is a
//! `skill://` resource; the answers to `skills/list`, `skills/get`, `resources/list`,
//! `resources/read` and `resources/directory/read` are prepared once, from the very bytes and
//! digests the HTTP routes serve. The surfaces for hosts without the extension (prompts,
//! tools, the instructions) are prepared in the same pass, from the same files.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use rmcp::ErrorData;
use rmcp::model::{
    CacheScope, DIRECTORY_MIME_TYPE, GetSkillResult, ListResourcesResult, ListSkillsResult,
    ReadResourceDirectoryResult, ReadResourceResult, Resource, ResourceContents, Skill,
    SkillFrontmatter, SkillResource, SkillResources,
};
use skillpub_core::{Catalog, catalog::PublishedSkill, media::essence, paths::SKILL_MD};

use crate::instructions;
use crate::prompts::Prompts;
use crate::tools::Tools;

/// The URI scheme of skill resources.
pub const SCHEME: &str = "skill://";

/// Default number of items on one page of `skills/list`, `resources/list` and
/// `resources/directory/read`.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// Default `ttlMs` of results: five minutes, as the HTTP routes' `max-age`.
pub const DEFAULT_TTL_MS: u64 = 300_000;

/// The `mimeType` of `SKILL.md` resources.
const MARKDOWN: &str = "text/markdown";

/// A bad option given to [`McpSkillsBuilder`] or [`HttpOptions`](crate::HttpOptions).
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
    #[error("`max_streams` is {0}; give at least 1 and at most {limit}", limit = crate::MAX_STREAMS_LIMIT)]
    MaxStreams(usize),
    /// A session cap of zero, or over [`MAX_SESSIONS_LIMIT`](crate::MAX_SESSIONS_LIMIT).
    #[error("`max_sessions` is {0}; give at least 1 and at most {limit}", limit = crate::MAX_SESSIONS_LIMIT)]
    MaxSessions(usize),
    /// A session idle time of zero, or over
    /// [`MAX_SESSION_IDLE_TIMEOUT`](crate::MAX_SESSION_IDLE_TIMEOUT).
    #[error("`session_idle_timeout` is {0:?}; give more than zero and at most {limit:?}", limit = crate::MAX_SESSION_IDLE_TIMEOUT)]
    SessionIdleTimeout(std::time::Duration),
}

/// The message, so that `?` out of `main` prints it and not the variant.
impl std::fmt::Debug for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// One served file.
#[derive(Debug)]
pub(crate) struct File {
    pub(crate) bytes: bytes::Bytes,
    pub(crate) mime_type: &'static str,
    pub(crate) digest: String,
}

impl File {
    /// The file as MCP resource contents: text when its media type is text and its bytes are
    /// UTF-8 without NUL, a base64 blob otherwise; the same for `resources/read` and the
    /// `read_skill_file` tool.
    pub(crate) fn contents(&self, uri: &str) -> ResourceContents {
        let text = skillpub_core::media::is_text(self.mime_type)
            .then_some(&self.bytes)
            .filter(|bytes| !bytes.contains(&0))
            .and_then(|bytes| std::str::from_utf8(bytes).ok());
        let contents = match text {
            Some(text) => ResourceContents::text(text, uri),
            None => ResourceContents::blob(BASE64_STANDARD.encode(&self.bytes), uri),
        };
        contents.with_mime_type(self.mime_type)
    }
}

/// Which surfaces for hosts without the skills extension are on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Surfaces {
    pub(crate) prompts: bool,
    pub(crate) tools: bool,
    pub(crate) instructions: bool,
}

#[derive(Debug)]
pub(crate) struct Prepared {
    skills: Vec<Skill>,
    pub(crate) files: HashMap<String, File>,
    listed: Vec<Resource>,
    directories: BTreeMap<String, Vec<Resource>>,
    prefix: String,
    page_size: usize,
    pub(crate) ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
    pub(crate) surfaces: Surfaces,
    pub(crate) prompts: Prompts,
    pub(crate) tools: Tools,
    instructions: String,
}

/// One file of a skill as MCP serves it, worked out once for every surface.
#[derive(Debug)]
pub(crate) struct ServedFile<'a> {
    /// The path in the skill's folder, such as `references/api.md`.
    pub(crate) path: &'a str,
    pub(crate) uri: String,
    pub(crate) mime_type: &'static str,
    pub(crate) digest: String,
    pub(crate) size: u64,
    /// Its entry in `resources/list`, and its link in a prompt.
    pub(crate) resource: Resource,
    bytes: &'a bytes::Bytes,
}

/// One skill as MCP serves it: its catalog entry and its files, `SKILL.md` included, sorted
/// by path.
#[derive(Debug)]
pub(crate) struct ServedSkill<'a> {
    pub(crate) skill: &'a PublishedSkill,
    /// The URI of its folder, such as `skill://acme/refunds`.
    root: String,
    /// The URI of its `SKILL.md`.
    pub(crate) uri: String,
    pub(crate) files: Vec<ServedFile<'a>>,
}

impl ServedSkill<'_> {
    /// The `SKILL.md` as text: its exact bytes, since the catalog refuses a `SKILL.md` that
    /// is not UTF-8.
    pub(crate) fn skill_md(&self) -> std::borrow::Cow<'_, str> {
        let bytes = self.skill.skill_md().bytes();
        // `from_utf8` checks a word at a time, several times faster than the lossy
        // conversion, which is only a fallback here.
        std::str::from_utf8(bytes).map_or_else(
            |_| String::from_utf8_lossy(bytes),
            std::borrow::Cow::Borrowed,
        )
    }

    /// Its files other than `SKILL.md`.
    pub(crate) fn supporting_files(&self) -> impl Iterator<Item = &ServedFile<'_>> {
        self.files.iter().filter(|file| file.path != SKILL_MD)
    }
}

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

/// The options of an [`McpSkillsBuilder`], apart from what it serves.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    prefix: String,
    page_size: usize,
    ttl_ms: u64,
    cache_scope: CacheScope,
    pub(crate) surfaces: Surfaces,
}

impl McpSkills {
    /// Starts from a catalog: no prefix, pages of [`DEFAULT_PAGE_SIZE`], `ttlMs`
    /// [`DEFAULT_TTL_MS`], `cacheScope: public`, the skills extension and resources only (no
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

    /// The URI of a skill's file: `skill://[prefix/]name/path`.
    pub(crate) fn uri_of(&self, name: &str, path: &str) -> String {
        format!("{}/{path}", root_uri(&self.0.prefix, name))
    }

    /// `skills/list`: one page of skills, sorted by URI; an entry is never split.
    ///
    /// # Errors
    ///
    /// `-32602` for a cursor this server did not hand out.
    pub fn list_skills(&self, cursor: Option<&str>) -> Result<ListSkillsResult, ErrorData> {
        let (page, next) = self.page(&self.0.skills, cursor)?;
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
        let (page, next) = self.page(&self.0.listed, cursor)?;
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
        let (page, next) = self.page(children, cursor)?;
        let mut result = ReadResourceDirectoryResult::with_all_items(page)
            .with_ttl_ms(self.0.ttl_ms)
            .with_cache_scope(self.0.cache_scope);
        result.next_cursor = next;
        Ok(result)
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

    /// One page of `items` from `cursor` (an offset this server handed out).
    pub(crate) fn page<T: Clone>(
        &self,
        items: &[T],
        cursor: Option<&str>,
    ) -> Result<(Vec<T>, Option<String>), ErrorData> {
        let start = match cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|start| *start <= items.len())
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("the cursor `{cursor}` was not handed out by this server"),
                        None,
                    )
                })?,
        };
        let end = (start + self.0.page_size).min(items.len());
        let next = (end < items.len()).then(|| end.to_string());
        Ok((items[start..end].to_vec(), next))
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

impl Default for Options {
    fn default() -> Self {
        Self {
            prefix: String::new(),
            page_size: DEFAULT_PAGE_SIZE,
            ttl_ms: DEFAULT_TTL_MS,
            cache_scope: CacheScope::Public,
            surfaces: Surfaces::default(),
        }
    }
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

    /// Items per page (default [`DEFAULT_PAGE_SIZE`]).
    pub fn page_size(mut self, size: usize) -> Self {
        self.options.page_size = size;
        self
    }

    /// `ttlMs` of every result (default [`DEFAULT_TTL_MS`]); sent to 2026-07-28 peers only.
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

impl McpSkills {
    /// Prepares every answer of `catalog` with checked `options`.
    pub(crate) fn prepare(options: &Options, catalog: &Catalog) -> Self {
        let root_of = |name: &str| root_uri(&options.prefix, name);
        let surfaces = options.surfaces;
        let mut prepared = Prepared {
            skills: Vec::new(),
            files: HashMap::new(),
            listed: Vec::new(),
            directories: BTreeMap::new(),
            prefix: options.prefix.clone(),
            page_size: options.page_size,
            ttl_ms: options.ttl_ms,
            cache_scope: options.cache_scope,
            surfaces,
            prompts: Prompts::default(),
            tools: Tools::new(surfaces.tools),
            instructions: String::new(),
        };
        for skill in catalog.skills() {
            let served = serve(skill, &root_of(skill.name()));
            if surfaces.prompts {
                prepared.prompts.add(&served);
            }
            if surfaces.tools {
                prepared.tools.add(&served);
            }
            add_skill(&mut prepared, served);
        }
        prepared.skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        prepared.listed.sort_by(|a, b| a.uri.cmp(&b.uri));
        for children in prepared.directories.values_mut() {
            children.sort_by(|a, b| a.uri.cmp(&b.uri));
        }
        prepared.prompts.sort();
        prepared.tools.sort();
        prepared.instructions = instructions::render(&prepared.skills, surfaces, &options.prefix);
        McpSkills(Arc::new(prepared))
    }
}

/// The URI of a skill's folder: `skill://[prefix/]name`.
pub(crate) fn root_uri(prefix: &str, name: &str) -> String {
    match prefix {
        "" => format!("{SCHEME}{name}"),
        prefix => format!("{SCHEME}{prefix}/{name}"),
    }
}

/// Works out a skill's URIs, media types, digests and resource entries once, for every
/// surface.
fn serve<'a>(skill: &'a PublishedSkill, root: &str) -> ServedSkill<'a> {
    let files = skill
        .all_files()
        .map(|file| {
            let path = file.relative_path();
            let uri = format!("{root}/{path}");
            let artifact = file.artifact();
            let size = artifact.len() as u64;
            let mime_type = if path == SKILL_MD {
                MARKDOWN
            } else {
                essence(artifact.media_type())
            };
            let resource = if path == SKILL_MD {
                Resource::new(&uri, skill.name())
                    .with_description(skill.frontmatter().description())
            } else {
                Resource::new(&uri, path.rsplit('/').next().unwrap_or(path))
            }
            .with_mime_type(mime_type)
            .with_size(size);
            ServedFile {
                path,
                uri,
                mime_type,
                digest: artifact.digest().to_string(),
                size,
                resource,
                bytes: artifact.bytes(),
            }
        })
        .collect();
    ServedSkill {
        skill,
        root: root.to_owned(),
        uri: format!("{root}/{SKILL_MD}"),
        files,
    }
}

/// Adds one skill: its entry, its files, its folders.
fn add_skill(prepared: &mut Prepared, served: ServedSkill<'_>) {
    let root = served.root.as_str();
    let frontmatter = served.skill.frontmatter();
    let mut extra = frontmatter.json().clone();
    // `retain` keeps the authored order (`remove` would swap the last field into the gap).
    extra.retain(|key, _| key != "name" && key != "description");
    let mut entry_frontmatter =
        SkillFrontmatter::new(frontmatter.name(), frontmatter.description());
    entry_frontmatter.extra = extra;

    let mut manifest = Vec::new();
    prepared.directories.entry(root.to_owned()).or_default();
    for file in &served.files {
        manifest.push(SkillResource::new(&file.uri, &file.digest, file.size));
        // Every folder on the way gets its children: sub-folders once, the file itself.
        let mut parent = root.to_owned();
        let segments: Vec<&str> = file.path.split('/').collect();
        for folder in &segments[..segments.len() - 1] {
            let child = format!("{parent}/{folder}");
            let children = prepared.directories.entry(parent.clone()).or_default();
            if !children.iter().any(|r| r.uri == child) {
                children.push(Resource::new(&child, *folder).with_mime_type(DIRECTORY_MIME_TYPE));
            }
            prepared.directories.entry(child.clone()).or_default();
            parent = child;
        }
        prepared
            .directories
            .entry(parent)
            .or_default()
            .push(file.resource.clone());
        prepared.listed.push(file.resource.clone());
        prepared.files.insert(
            file.uri.clone(),
            File {
                bytes: file.bytes.clone(),
                mime_type: file.mime_type,
                digest: file.digest.clone(),
            },
        );
    }
    manifest.sort_by(|a, b| a.uri.cmp(&b.uri));
    prepared.skills.push(Skill::new(
        served.uri,
        entry_frontmatter,
        SkillResources::Files(manifest),
    ));
}
