//! Serve a [`skillpub_core::Catalog`] at `/.well-known/agent-skills/` from axum.
//!
//! [`router`] returns a `Router<S>` for any state `S`, to `merge` into an existing app. It has
//! one route per published path, each holding answers prepared when the router is built: a
//! request costs the route match, a look at `If-Match`/`If-None-Match`, and a copy of a
//! prepared header map (reference-counted values; nothing is parsed, hashed or formatted).
//!
//! # Example
//!
//! ```
//! use axum::{Router, routing::get};
//! use skillpub_core::{Catalog, Skill};
//!
//! static GREETING: Skill = Skill::from_static_in(
//!     "skills/greeting",
//!     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
//! );
//!
//! let catalog = Catalog::new([&GREETING]).expect("the skills are valid");
//! let app: Router = Router::new()
//!     .route("/", get(|| async { "my app" }))
//!     .merge(skillpub_axum::router(catalog));
//! ```
//!
//! # HTTP policy
//!
//! | Answer | Status | Headers besides the common ones |
//! |---|---|---|
//! | `GET`/`HEAD` `index.json` | 200 | `Content-Type: application/json`, `Content-Length`, `ETag` |
//! | `GET`/`HEAD` `{name}/SKILL.md` | 200 | `Content-Type: text/markdown; charset=utf-8`, `Content-Length`, `ETag` |
//! | `GET`/`HEAD` `{name}/{path}` (supporting files) | 200 | `Content-Type` by extension ([`skillpub_core::media_type`]), `Content-Length`, `ETag` |
//! | `GET`/`HEAD` `{name}.tar.gz`, `{name}.zip` | 200 | `Content-Type: application/gzip` or `application/zip`, `Content-Length`, `ETag` |
//! | `If-None-Match` lists the `ETag` (weak comparison) or is `*` | 304 | `ETag` (no body, no `Content-Length`) |
//! | `If-Match` lists no `ETag` (strong comparison) and is not `*` | 412 | small JSON body |
//! | `OPTIONS` on any path under the folder (CORS preflight) | 204 | `Allow`, `Access-Control-Allow-Methods: GET, HEAD, OPTIONS`, `Access-Control-Allow-Headers: If-None-Match, If-Match`, `Access-Control-Max-Age` |
//! | `GET`/`HEAD` of anything not published byte for byte (unknown skill or file, wrong case, trailing slash, `..`, `%2e%2e`) | 404 | small JSON body |
//! | any other method on a published path | 405 | `Allow: GET, HEAD, OPTIONS`, small JSON body |
//! | any other method on an unpublished path | 404 | small JSON body |
//!
//! Common to every answer: `Cache-Control` (configurable, separately for errors),
//! `Access-Control-Allow-Origin: *`, `Access-Control-Expose-Headers: ETag`,
//! `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none'; sandbox`
//! (an SVG, XML or HTML file opened in a browser cannot run script on your site). `HEAD` gets exactly the headers of `GET`, and no body.
//! The `ETag` is the quoted digest (`"sha256:<hex>"`), so it is the same on every replica.

mod coding;
mod headers;
mod link;
mod router;

pub use coding::{BROTLI_QUALITY, BROTLI_WINDOW};
pub use headers::{
    ALLOWED_METHODS, COMMON_HEADERS, DEFAULT_CACHE_CONTROL, DEFAULT_CACHE_CONTROL_TEXT,
    DEFAULT_CORS_MAX_AGE, DEFAULT_ERROR_CACHE_CONTROL, DEFAULT_ERROR_CACHE_CONTROL_TEXT,
    PREFLIGHT_HEADERS, Rejection,
};
pub use link::{
    AgentSkillsLink, AgentSkillsLinkLayer, InvalidBasePath, InvalidIndexUrl, ResponseFuture,
};
pub use router::{RouterBuilder, router};

#[cfg(test)]
mod tests;
