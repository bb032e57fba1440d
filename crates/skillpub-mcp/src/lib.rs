//! Serve a [`skillpub_core::Catalog`] over MCP with the skills extension (SEP-2640,
//! `io.modelcontextprotocol/skills`), on the crate rmcp.
//!
//! Every file of every skill is a resource `skill://[prefix/]name/path`. `skills/list` gives
//! each skill's frontmatter (every authored field) and a complete manifest of `uri`, `digest`
//! and `size`; `skills/get`, `resources/list`, `resources/read` and
//! `resources/directory/read` work as the extension says, and anything not served is
//! `-32602`. The bytes and digests are the catalog's, so they equal what the HTTP routes serve.
//!
//! # Example
//!
//! ```
//! use skillpub_core::{Catalog, Skill};
//! use skillpub_mcp::{HttpOptions, McpSkills};
//!
//! let catalog = Catalog::new([Skill::from_static(
//!     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
//! )])?;
//! let app: axum::Router = axum::Router::new()
//!     .merge(skillpub_axum::router(catalog.clone()))
//!     .nest_service("/mcp", McpSkills::new(catalog).streamable_http_service(HttpOptions::default()));
//! # Ok::<(), skillpub_core::Errors>(())
//! ```
//!
//! Every answer carries `ttlMs` and `cacheScope` ([`McpSkillsBuilder::ttl_ms`],
//! [`McpSkillsBuilder::cache_scope`]) for 2026-07-28 peers; an unknown URI is `-32602` with
//! `data: {"uri": ...}`. Who may call the endpoint is set by [`HttpOptions`]: loopback hosts
//! and loopback browser origins by default, your public host names and origins when serving
//! publicly.
//!
//! With tools of your own, delegate the skills methods of your `ServerHandler` to an
//! [`McpSkills`] (its methods are named after the protocol's), pass the results through
//! [`fit_to_peer`] (cache hints only for 2026-07-28 peers), answer [`resource_not_found`] for
//! a URI that neither you nor [`McpSkills::read_resource`] serve, and declare
//! [`capabilities`].

mod http;
mod server;
mod skills;

pub use http::{HttpOptions, LOOPBACK_HOSTS, LOOPBACK_ORIGINS, McpService};
pub use server::{CacheHinted, SkillsServer, capabilities, fit_to_peer};
pub use skills::{
    ConfigError, DEFAULT_PAGE_SIZE, DEFAULT_TTL_MS, McpSkills, McpSkillsBuilder, SCHEME,
    resource_not_found,
};
