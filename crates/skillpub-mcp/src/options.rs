//! The options of the MCP answers (prefix, page size, cache hints, the surfaces for hosts
//! without the skills extension) and their defaults.

use rmcp::model::CacheScope;

/// Default number of items on one page of `skills/list`, `resources/list` and
/// `resources/directory/read`.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// Default `ttlMs` of results: five minutes, as the HTTP routes' `max-age`.
pub const DEFAULT_TTL_MS: u64 = 300_000;

/// Which surfaces for hosts without the skills extension are on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Surfaces {
    pub(crate) prompts: bool,
    pub(crate) tools: bool,
    pub(crate) instructions: bool,
}

/// The options of an [`McpSkillsBuilder`](crate::McpSkillsBuilder), apart from what it
/// serves.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) prefix: String,
    pub(crate) page_size: usize,
    pub(crate) ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
    pub(crate) surfaces: Surfaces,
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
