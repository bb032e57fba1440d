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
//!     .nest_service("/mcp", McpSkills::new(catalog).streamable_http_service(HttpOptions::default())?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every answer carries `ttlMs` and `cacheScope` ([`McpSkillsBuilder::ttl_ms`],
//! [`McpSkillsBuilder::cache_scope`]) for 2026-07-28 peers; an unknown URI is `-32602` with
//! `data: {"uri": ...}`. Who may call the endpoint is set by [`HttpOptions`]: loopback hosts
//! and loopback browser origins by default, your public host names and origins when serving
//! publicly. `Host` and `Origin` are checked first, once, with rmcp's rules (unit tests compare
//! the two on a table of forms): nothing else is done for a request refused with `403` (or
//! `400` for a `Host` that cannot be read), no body read, no session looked up or kept alive.
//!
//! # Serving it, and reading it
//!
#![doc = include_str!("docs/serving.md")]
//!
//! # Methods
//!
#![doc = include_str!("docs/methods.md")]
//!
//! # Hosts without the skills extension
//!
//! Most MCP hosts in use (desktop chat apps, IDE agents) call tools, show prompts and read
//! resources, but do not call `skills/list`. Three opt-in surfaces on [`McpSkillsBuilder`]
//! reach them, from the same catalog, bytes and digests:
//!
//! - [`prompts`](McpSkillsBuilder::prompts): every skill is a prompt of the same name whose
//!   message is the exact `SKILL.md`, with a resource link to each supporting file;
//! - [`tools`](McpSkillsBuilder::tools): [`LIST_SKILLS_TOOL`], [`LOAD_SKILL_TOOL`] (the
//!   `SKILL.md` and its files' paths, URIs, sizes and digests) and [`READ_SKILL_FILE_TOOL`]
//!   (one file); bad input is a tool error that says how to fix it, and names and paths are
//!   checked by the core's rules, so no call reads outside the catalog;
//! - [`instructions`](McpSkillsBuilder::instructions): every skill's name and description in
//!   the server's `instructions`, at most [`INSTRUCTIONS_LIMIT`] bytes.
//!
//! ```
//! use skillpub_core::{Catalog, Skill};
//! use skillpub_mcp::McpSkills;
//!
//! let catalog = Catalog::new([Skill::from_static(
//!     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
//! )])?;
//! let skills = McpSkills::builder(catalog).prompts(true).tools(true).instructions(true).build()?;
//! let capabilities = skills.capabilities();
//! assert!(capabilities.prompts.is_some() && capabilities.tools.is_some());
//! assert!(skills.instructions().contains("- greeting: Greets the user by name."));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
#![doc = include_str!("docs/surfaces.md")]
//!
//! # A handler of your own
//!
//! With tools of your own, delegate the skills methods of your `ServerHandler` to an
//! [`McpSkills`] (its methods are named after the protocol's), pass the results through
//! [`fit_to_peer`] (cache hints only for 2026-07-28 peers), answer [`resource_not_found`] for
//! a URI that neither you nor [`McpSkills::read_resource`] serve, and declare
//! [`McpSkills::capabilities`]. [`McpSkills::get_prompt`] and [`McpSkills::call_tool`]
//! answer `None` for a prompt or tool that is not theirs, so yours can answer it
//! ([`prompt_not_found`] when none has the prompt).
//!
//! # Skills per caller, and private endpoints
//!
//! [`McpCallers`] serves each caller its own skills: the app's auth middleware, in front of
//! the endpoint, puts what it found (a principal, a tenant) into the request's extensions,
//! and rmcp hands every handler the request's parts, so `skills/list`, `skills/get`,
//! `resources/*`, the prompts, the tools and the instructions of `initialize` answer from the
//! caller's skills alone. A URI, prompt or tool argument naming another caller's skill is as
//! unknown as one that no one serves (`-32602`, or a tool error). A caller's skills can be
//! live ([`McpCallers::live_caller`]): each request answers from the catalog of that moment
//! (clients of an endpoint per caller are not told of changes; they list again).
//! [`HttpOptions::with_private`] is the private policy of the endpoint: every answer
//! `Cache-Control: private, no-store` and `Vary: Origin, Authorization, Cookie` (the
//! credential headers are [`HttpOptions::with_credential_headers`]), every result
//! `cacheScope: private`, and a page of an allowed origin may send credentials (its origin
//! named back with `Access-Control-Allow-Credentials: true`, its preflight answered). The
//! HTTP side of the same is `skillpub_axum::Callers` and `RouterBuilder::private`; for the
//! `401` and `403` of the app's auth, `skillpub_axum::RefusalLayer` gives both endpoints the
//! challenge and the CORS headers. `examples/private.rs` in the repository serves both.
//!
//! ```
//! use skillpub_core::{Catalog, Skill};
//! use skillpub_mcp::{HttpOptions, McpCallers, McpSkills};
//!
//! /// What the app's auth middleware puts into the extensions of a tenant's request.
//! #[derive(Debug, Clone, PartialEq, Eq, Hash)]
//! struct Tenant(&'static str);
//!
//! let acme = Catalog::new([Skill::from_static(
//!     "---\nname: acme-refunds\ndescription: Issues Acme's refunds.\n---\n",
//! )])?;
//! let mcp = McpCallers::by_extension::<Tenant>()
//!     .caller(Tenant("acme"), McpSkills::new(acme))
//!     .streamable_http_service(HttpOptions::default().with_private(true))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Catalogs that change
//!
//! [`McpSkills::live`] serves the catalog a [`LiveCatalog`](skillpub_core::LiveCatalog) holds
//! at each moment ([`LiveMcpSkills`]): `skills/list` answers from the new catalog as soon as
//! `replace` returns. With [`HttpOptions::with_stateful`], clients of the protocol versions
//! with sessions are told `notifications/resources/list_changed` (and `prompts/list_changed`)
//! on their session's stream after a replacement; 2026-07-28 clients follow the same with
//! `subscriptions/listen`, in either mode.
//!
//! Unlike the HTTP routers, a live MCP server does not keep answering the digests a replaced
//! catalog's `skills/list` gave. It cannot do so by URI: SEP-2640 names a file by its place
//! (`skill://pdf/SKILL.md`, its `resources[]` siblings beside it), one URI for whatever bytes
//! the skill has now, and lists the digest next to the URI rather than in it, so after a
//! replacement `resources/read` of that URI returns the new bytes, and there is no URI the old
//! ones could be read at without inventing one that no client would ask for. It need not,
//! either: the mismatch HTTP caches create cannot arise here, since every read goes to the
//! server itself in a session (no shared cache sits between `skills/list` and
//! `resources/read`), and the client is told of the change
//! (`notifications/resources/list_changed`, or `subscriptions/listen`), so a client that reads
//! a file whose digest differs from its listing lists again and reads the files of the new
//! one, which match. A client that verifies digests sees a mismatch only for the reads that
//! raced a replacement, and one `skills/list` or `skills/get` repairs it.
//!
//! Those streams stay open for as long as their clients like, so an endpoint holds at most
//! [`HttpOptions::with_max_streams`] of them ([`DEFAULT_MAX_STREAMS`], 512, listen and session
//! streams together). Every event stream counts, whatever the request carries: a session's
//! `GET` takes its place before it replaces the session's open stream, and every event stream
//! rmcp answers takes one once rmcp has answered (with JSON answers, rmcp answers with an
//! event stream only a request that stays open). Beyond the cap a client gets `503` with
//! `Retry-After` and the JSON-RPC error [`TOO_MANY_STREAMS`], and a session's stream open
//! before is left working. Served by `skillpub_axum::serve`, a flood of held streams cannot
//! starve other requests either: when file descriptors run out it closes the oldest event
//! streams (after the quiet connections), and their clients reconnect.
//!
//! The refusals a client acts on carry JSON-RPC errors with codes of their own:
//!
//! | Code | Status | When |
//! |---|---|---|
//! | [`TOO_MANY_STREAMS`], `-32000` | `503`, `Retry-After: 3` | every place for an event stream is taken |
//! | [`SESSION_NOT_FOUND`], `-32001` | `404` | the session ended, made room for another, or expired: initialize again |
//! | [`TOO_MANY_SESSIONS`], `-32003` | `503`, `Retry-After: 3` | every session has a request in progress |
//! | [`SESSION_REQUIRED`], `-32004` | `400` | a request that needs a session came without `Mcp-Session-Id` |
//!
//! # Sessions
//!
//! ```
//! use std::time::Duration;
//! use skillpub_mcp::{HttpOptions, McpSkills};
//!
//! let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
//! let options = HttpOptions::default()
//!     .with_stateful(true)
//!     .with_max_sessions(1_000)
//!     .with_session_idle_timeout(Duration::from_secs(120));
//! let mcp = McpSkills::new(catalog).streamable_http_service(options)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
#![doc = include_str!("docs/sessions.md")]

mod answers;
mod callers;
mod config;
mod guard;
mod http;
mod instructions;
mod live;
mod media;
mod options;
mod paging;
mod prepare;
mod private;
mod prompts;
mod request;
mod served;
mod server;
mod service;
mod sessions;
mod skills;
mod streams;
mod tools;

pub use answers::{SESSION_NOT_FOUND, SESSION_REQUIRED, TOO_MANY_SESSIONS, TOO_MANY_STREAMS};
pub use callers::McpCallers;
pub use config::{ConfigError, MAX_SESSION_IDLE_TIMEOUT, MAX_SESSIONS_LIMIT, MAX_STREAMS_LIMIT};
pub use http::{
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS, DEFAULT_SESSION_IDLE_TIMEOUT, HttpOptions,
    LOOPBACK_HOSTS, LOOPBACK_ORIGINS,
};
pub use instructions::INSTRUCTIONS_LIMIT;
pub use live::LiveMcpSkills;
pub use options::{DEFAULT_PAGE_SIZE, DEFAULT_TTL_MS};
pub use private::DEFAULT_CREDENTIAL_HEADERS;
pub use prompts::prompt_not_found;
pub use served::SCHEME;
pub use server::{CacheHinted, SkillsServer, capabilities, fit_to_peer};
pub use service::McpService;
pub use skills::{McpSkills, McpSkillsBuilder, resource_not_found};
pub use tools::{LIST_SKILLS_TOOL, LOAD_SKILL_TOOL, READ_SKILL_FILE_TOOL};
