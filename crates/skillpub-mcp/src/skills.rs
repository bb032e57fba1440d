//! [`McpSkills`]: a catalog seen through SEP-2640. Every file of every skill is a
//! `skill://` resource; the answers to `skills/list`, `skills/get`, `resources/list`,
//! `resources/read` and `resources/directory/read` are prepared once, from the very bytes and
//! digests the HTTP routes serve.

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
use skillpub_core::{Catalog, PublishedSkill, SKILL_MD};

/// The URI scheme of skill resources.
pub const SCHEME: &str = "skill://";

/// Default number of items on one page of `skills/list`, `resources/list` and
/// `resources/directory/read`.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// Default `ttlMs` of results: five minutes, as the HTTP routes' `max-age`.
pub const DEFAULT_TTL_MS: u64 = 300_000;

/// The `mimeType` of `SKILL.md` resources.
const MARKDOWN: &str = "text/markdown";

/// A bad option given to [`McpSkillsBuilder`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
}

/// One served file.
#[derive(Debug)]
struct File {
    bytes: bytes::Bytes,
    mime_type: &'static str,
}

#[derive(Debug)]
struct Prepared {
    skills: Vec<Skill>,
    files: HashMap<String, File>,
    listed: Vec<Resource>,
    directories: BTreeMap<String, Vec<Resource>>,
    page_size: usize,
    ttl_ms: u64,
    cache_scope: CacheScope,
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
pub struct McpSkills(Arc<Prepared>);

/// Options for [`McpSkills`].
#[derive(Debug, Clone)]
#[must_use]
pub struct McpSkillsBuilder {
    catalog: Catalog,
    prefix: String,
    page_size: usize,
    ttl_ms: u64,
    cache_scope: CacheScope,
}

impl McpSkills {
    /// Starts from a catalog: no prefix, pages of [`DEFAULT_PAGE_SIZE`], `ttlMs`
    /// [`DEFAULT_TTL_MS`], `cacheScope: public`.
    pub fn builder(catalog: Catalog) -> McpSkillsBuilder {
        McpSkillsBuilder {
            catalog,
            prefix: String::new(),
            page_size: DEFAULT_PAGE_SIZE,
            ttl_ms: DEFAULT_TTL_MS,
            cache_scope: CacheScope::Public,
        }
    }

    /// The same as `McpSkills::builder(catalog).build()`.
    #[must_use]
    pub fn new(catalog: Catalog) -> Self {
        Self::builder(catalog).prepare()
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
        let text = skillpub_core::is_text(file.mime_type)
            .then_some(&file.bytes)
            .filter(|bytes| !bytes.contains(&0))
            .and_then(|bytes| std::str::from_utf8(bytes).ok());
        let contents = match text {
            Some(text) => ResourceContents::text(text, uri),
            None => ResourceContents::blob(BASE64_STANDARD.encode(&file.bytes), uri),
        };
        Some(
            ReadResourceResult::new(vec![contents.with_mime_type(file.mime_type)])
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

    fn page<T: Clone>(
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

impl McpSkillsBuilder {
    /// A path put before each skill name in its URIs, such as `acme/billing` for
    /// `skill://acme/billing/refunds/SKILL.md` (default: none).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Items per page (default [`DEFAULT_PAGE_SIZE`]).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size;
        self
    }

    /// `ttlMs` of every result (default [`DEFAULT_TTL_MS`]); sent to 2026-07-28 peers only.
    pub fn ttl_ms(mut self, ttl_ms: u64) -> Self {
        self.ttl_ms = ttl_ms;
        self
    }

    /// `cacheScope` of every result (default public); sent to 2026-07-28 peers only.
    pub fn cache_scope(mut self, scope: CacheScope) -> Self {
        self.cache_scope = scope;
        self
    }

    /// Prepares every answer.
    ///
    /// # Errors
    ///
    /// A prefix that is not URI-safe, or a page size of zero.
    pub fn build(self) -> Result<McpSkills, ConfigError> {
        let prefix = self.prefix.trim_matches('/');
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
            return Err(ConfigError::Prefix(self.prefix));
        }
        if self.page_size == 0 {
            return Err(ConfigError::PageSize);
        }
        let prefix = prefix.to_owned();
        Ok(Self { prefix, ..self }.prepare())
    }

    fn prepare(self) -> McpSkills {
        let root_of = |name: &str| match self.prefix.as_str() {
            "" => format!("{SCHEME}{name}"),
            prefix => format!("{SCHEME}{prefix}/{name}"),
        };
        let mut prepared = Prepared {
            skills: Vec::new(),
            files: HashMap::new(),
            listed: Vec::new(),
            directories: BTreeMap::new(),
            page_size: self.page_size,
            ttl_ms: self.ttl_ms,
            cache_scope: self.cache_scope,
        };
        for skill in self.catalog.skills() {
            let root = root_of(skill.name());
            add_skill(&mut prepared, skill, &root);
        }
        prepared.skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        prepared.listed.sort_by(|a, b| a.uri.cmp(&b.uri));
        for children in prepared.directories.values_mut() {
            children.sort_by(|a, b| a.uri.cmp(&b.uri));
        }
        McpSkills(Arc::new(prepared))
    }
}

/// Adds one skill: its entry, its files, its folders.
fn add_skill(prepared: &mut Prepared, skill: &PublishedSkill, root: &str) {
    let frontmatter = skill.frontmatter();
    let mut extra = frontmatter.json().clone();
    // `retain` keeps the authored order (`remove` would swap the last field into the gap).
    extra.retain(|key, _| key != "name" && key != "description");
    let mut entry_frontmatter =
        SkillFrontmatter::new(frontmatter.name(), frontmatter.description());
    entry_frontmatter.extra = extra;

    let mut manifest = Vec::new();
    prepared.directories.entry(root.to_owned()).or_default();
    for file in skill.all_files() {
        let relative = file.relative_path();
        let uri = format!("{root}/{relative}");
        let artifact = file.artifact();
        let mime_type = if relative == SKILL_MD {
            MARKDOWN
        } else {
            essence(artifact.media_type())
        };
        manifest.push(SkillResource::new(
            &uri,
            artifact.digest().to_string(),
            artifact.len() as u64,
        ));
        let base = relative.rsplit('/').next().unwrap_or(relative);
        let mut resource = Resource::new(&uri, base)
            .with_mime_type(mime_type)
            .with_size(artifact.len() as u64);
        if relative == SKILL_MD {
            resource = Resource::new(&uri, frontmatter.name())
                .with_description(frontmatter.description())
                .with_mime_type(mime_type)
                .with_size(artifact.len() as u64);
        }
        // Every folder on the way gets its children: sub-folders once, the file itself.
        let mut parent = root.to_owned();
        let segments: Vec<&str> = relative.split('/').collect();
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
            .push(resource.clone());
        prepared.listed.push(resource);
        prepared.files.insert(
            uri,
            File {
                bytes: artifact.bytes().clone(),
                mime_type,
            },
        );
    }
    manifest.sort_by(|a, b| a.uri.cmp(&b.uri));
    let uri = format!("{root}/{SKILL_MD}");
    prepared.skills.push(Skill::new(
        uri,
        entry_frontmatter,
        SkillResources::Files(manifest),
    ));
}

/// A media type without its parameters: MCP's `mimeType` is the type itself.
fn essence(media_type: &'static str) -> &'static str {
    media_type.split(';').next().unwrap_or(media_type).trim()
}
