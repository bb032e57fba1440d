//! Serve a [`skillpub_core::Catalog`] at `/.well-known/agent-skills/` from axum.
//!
//! [`router`] returns a `Router<S>` for any state `S`, to `merge` into an existing app. It has
//! one route per published path, each holding answers prepared when the router is built (the
//! encoded variants of text on first demand): a request costs the route match, a look at
//! `Accept-Encoding`, `If-Match` and `If-None-Match`, and a copy of a prepared header map
//! (reference-counted values; nothing is hashed, compressed or formatted).
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
//! | `GET`/`HEAD` `index.json` | 200 | `Content-Type: application/json`, `Content-Length`, `Content-Encoding`, `ETag`, `Vary: Accept-Encoding` |
//! | `GET`/`HEAD` `{name}/SKILL.md` | 200 | `Content-Type: text/markdown; charset=utf-8`, `Content-Length`, `Content-Encoding`, `ETag`, `Vary: Accept-Encoding` |
//! | `GET`/`HEAD` `{name}/{path}` (supporting files) | 200 | `Content-Type` by extension ([`skillpub_core::media_type`]), `Content-Length`, `Content-Encoding`, `ETag`; `Vary: Accept-Encoding` on text |
//! | `GET`/`HEAD` `{name}.tar.gz`, `{name}.zip` | 200 | `Content-Type: application/gzip` or `application/zip`, `Content-Length`, `Content-Encoding: identity`, `ETag` |
//! | `If-None-Match` is `*` or lists the variant's `ETag` (weak comparison) | 304 | `ETag`, `Content-Encoding`, `Vary` on text (no body, no `Content-Length`) |
//! | `If-Match` is neither `*` nor a list that names the variant's `ETag` (strong comparison), a malformed list included | 412 | small JSON body |
//! | `Accept-Encoding` refuses every coding the file is served in, identity included | 406 | small JSON body, `Vary: Accept-Encoding` |
//! | `OPTIONS` on any path under the folder (CORS preflight) | 204 | `Allow`, `Access-Control-Allow-Methods: GET, HEAD, OPTIONS`, `Access-Control-Allow-Headers: If-None-Match, If-Match`, `Access-Control-Max-Age` |
//! | `GET`/`HEAD` of anything not published byte for byte (unknown skill or file, wrong case, trailing slash, `..`, `%2e%2e`) | 404 | small JSON body |
//! | any other method on a published path | 405 | `Allow: GET, HEAD, OPTIONS`, small JSON body |
//! | any other method on an unpublished path | 404 | small JSON body |
//!
//! Common to every answer: `Cache-Control` (configurable, separately for errors),
//! `Content-Encoding: identity` unless the body is encoded,
//! `Access-Control-Allow-Origin: *`, `Access-Control-Expose-Headers: ETag`,
//! `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none'; sandbox`
//! (an SVG, XML or HTML file opened in a browser cannot run script on your site). `HEAD` gets exactly the headers of `GET`, and no body.
//! The `ETag` is the quoted digest (`"sha256:<hex>"`), so it is the same on every replica.
//!
//! `If-Match` and `If-None-Match` are `*` alone or a list of entity tags (RFC 9110, 13.1.1 and
//! 13.1.2); anything else, such as a tag followed by garbage, falls to the RFC's "otherwise":
//! `If-Match` fails with `412`, `If-None-Match` is ignored.
//!
//! # Content codings
//!
//! Text (JSON, Markdown, `text/*`, XML, SVG) is also served in `br` and `gzip`, chosen from
//! `Accept-Encoding` with its q-values (RFC 9110, 12.5.3; equal weights go to `br`, then
//! `gzip`, then identity), each variant with its own strong `ETag` derived from the digest
//! (`"sha256:<hex>-br"`, `"sha256:<hex>-gzip"`) and made once, on the first request that asks
//! for it. Archives and other binaries are never encoded. Every answer that is not encoded says
//! `Content-Encoding: identity`, so that a compression layer around the app (tower-http's
//! `CompressionLayer`) leaves it alone instead of sending other bytes under the same `ETag`.
//!
//! ```
//! use axum::body::Body;
//! use http::Request;
//! use skillpub_core::{Catalog, Skill};
//! use tower::ServiceExt;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let text = "Fill in every field of the form, then sign it.\n".repeat(20);
//! let skill = Skill::new(None, format!("---\nname: forms\ndescription: Fills forms.\n---\n{text}"));
//! let app: axum::Router = skillpub_axum::router(Catalog::new([skill])?);
//!
//! let request = Request::get("/.well-known/agent-skills/forms/SKILL.md")
//!     .header("accept-encoding", "gzip, deflate, br")
//!     .body(Body::empty())?;
//! let response = app.oneshot(request).await?;
//! assert_eq!(response.headers()["content-encoding"], "br");
//! assert!(response.headers()["etag"].to_str()?.ends_with("-br\""));
//! assert_eq!(response.headers()["vary"], "Accept-Encoding");
//! # Ok(())
//! # }
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(run()).unwrap();
//! ```
//!
//! # Crate features
//!
//! | Name | Description | Default |
//! |---|---|---|
//! | `server` | `serve`: a hardened HTTP/1.1 server for any `Router` (header-read and idle timeouts, graceful shutdown, flood resistance) | no (yes in the `skillpub` facade) |

mod coding;
mod link;
mod policy;
mod router;
#[cfg(feature = "server")]
pub mod serve;

pub use coding::{BROTLI_QUALITY, BROTLI_WINDOW};
pub use link::{
    AgentSkillsLink, AgentSkillsLinkLayer, InvalidBasePath, InvalidIndexUrl, ResponseFuture,
};
pub use policy::{
    ALLOWED_METHODS, COMMON_HEADERS, DEFAULT_CACHE_CONTROL, DEFAULT_CORS_MAX_AGE,
    DEFAULT_ERROR_CACHE_CONTROL, PREFLIGHT_HEADERS, Rejection,
};
pub use router::{RouterBuilder, router};
#[cfg(feature = "server")]
#[doc(inline)]
pub use serve::serve;

#[cfg(test)]
mod tests;
