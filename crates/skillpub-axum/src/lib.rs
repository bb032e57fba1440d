//! Serve a [`skillpub_core::Catalog`] at `/.well-known/agent-skills/` from axum.
//!
//! [`router`] returns a `Router<S>` for any state `S`, to `merge` into an existing app. It
//! answers from bytes and headers prepared when it is built; a request costs one lookup.
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
//! | `If-None-Match` matches | 304 | `ETag` (no body, no `Content-Length`) |
//! | `OPTIONS` | 204 | `Allow`, `Access-Control-Allow-Methods: GET, HEAD, OPTIONS`, `Access-Control-Allow-Headers: If-None-Match`, `Access-Control-Max-Age` |
//! | unknown path (also wrong case, trailing slash, `..`, `%2e%2e`) | 404 | small JSON body |
//! | other method | 405 | `Allow: GET, HEAD, OPTIONS`, small JSON body |
//!
//! Common to every answer: `Cache-Control` (configurable, separately for errors),
//! `Access-Control-Allow-Origin: *`, `Access-Control-Expose-Headers: ETag` and
//! `X-Content-Type-Options: nosniff`. `HEAD` gets exactly the headers of `GET`, and no body.
//! The `ETag` is the quoted digest (`"sha256:<hex>"`), so it is the same on every replica.

mod headers;
mod router;

pub use headers::{
    ALLOWED_METHODS, DEFAULT_CACHE_CONTROL, DEFAULT_CORS_MAX_AGE, DEFAULT_ERROR_CACHE_CONTROL,
    Rejection,
};
pub use router::{RouterBuilder, router};

#[cfg(test)]
mod tests;
