//! Publish Agent Skills from a Rust web service.
//!
//! skillpub embeds each skill's `SKILL.md` at build time, validates it and hashes the exact
//! bytes it serves once at start-up, and mounts `/.well-known/agent-skills/` (the Agent Skills
//! Discovery index, draft 0.2.0, and every `SKILL.md`) on an axum `Router`. Because the index
//! digest is computed from the served bytes, it cannot drift from them.
//!
//! # Example
//!
//! ```
//! # #[cfg(feature = "axum")] {
//! use axum::{Router, routing::get};
//! use skillpub::{Catalog, Skill};
//!
//! // In a real crate: static GREETING: Skill = skillpub::skill!("skills/greeting");
//! static GREETING: Skill = Skill::from_static_in(
//!     "skills/greeting",
//!     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
//! );
//!
//! let catalog = Catalog::new([&GREETING]).expect("valid skills");
//! let app: Router = Router::new()
//!     .route("/", get(|| async { "my app" }))
//!     .merge(skillpub::axum::router(catalog));
//! # }
//! ```
//!
//! # Crate features
//!
//! | Name | Description | Default |
//! |---|---|---|
//! | `axum` | The router for `/.well-known/agent-skills/`, as `skillpub::axum` | yes |
//! | `server` | A hardened HTTP/1.1 server for your app, as `skillpub::axum::serve` (header-read and idle timeouts, graceful shutdown, flood resistance) | yes |
//! | `client` | The strict client and the checks of `skillpub check`, as `skillpub::client` | no |
//! | `testing` | `skillpub::testing::assert_conforms(router)` for your own `#[tokio::test]`s | no |
//! | `mcp` | The same catalog over MCP with the skills extension (SEP-2640), as `skillpub::mcp` | no |

pub use skillpub_core::*;

#[cfg(feature = "axum")]
#[doc(inline)]
pub use skillpub_axum as axum;

#[cfg(feature = "client")]
#[doc(inline)]
pub use skillpub_client as client;

#[cfg(feature = "testing")]
#[doc(inline)]
pub use skillpub_client::testing;

#[cfg(feature = "mcp")]
#[doc(inline)]
pub use skillpub_mcp as mcp;
