//! Serve a [`skillpub_core::Catalog`] at `/.well-known/agent-skills/` from axum.
//!
//! [`router`] returns a `Router<S>` for any state `S`, to `merge` into an existing app. It has
//! a handful of routes (the folders, the index), and every path under the folders is looked
//! up in one table of answers prepared when the router is built (the encoded variants of text
//! on first demand): a request costs the route match, a look-up by path, a look at
//! `Accept-Encoding`, `If-Match` and `If-None-Match`, and a copy of a prepared header map with
//! the artifact's values put in (reference-counted values; nothing is hashed, compressed or
//! formatted). Every `SKILL.md` and archive is served at its canonical path and at the
//! addressed path the index names, whose bytes never change (see the HTTP policy below).
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
//! # Catalogs that change, one per host, one per caller
//!
//! [`live_router`] (or [`RouterBuilder::live`]) serves the catalog a
//! [`LiveCatalog`](skillpub_core::LiveCatalog) holds at each moment: each catalog's answers are
//! prepared before it is swapped in, each request is answered from one catalog, and the
//! addressed URLs of replaced catalogs keep their bytes for the handle's grace period
//! ([`Retention`](skillpub_core::live::Retention)).
//! [`RouterBuilder::hosts`] serves one catalog per `Host` ([`Hosts`]: an exact map and an
//! optional default; any other host gets the `404` of the policy), and
//! [`RouterBuilder::callers`] one per caller ([`Callers`]: a key the app computes from each
//! request, see below). What a live router costs
//! per request and per swap is in
//! [BENCHMARKS.md](https://github.com/skillpub/skillpub/blob/main/BENCHMARKS.md#live-catalogs).
//!
//! # HTTP policy
//!
#![doc = include_str!("docs/policy.md")]
//!
//! # Private catalogs
//!
#![doc = include_str!("docs/private.md")]
//!
//! # Content codings
//!
#![doc = include_str!("docs/codings.md")]
//!
//! A browser, for example, gets a long `SKILL.md` in `br`, under its own `ETag`:
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
//! # Deploying
//!
#![doc = include_str!("docs/deploy.md")]
//!
//! # Crate features
//!
//! | Name | Description | Default |
//! |---|---|---|
//! | `server` | `serve`: a hardened HTTP/1.1 server for any `Router` (header-read and idle timeouts, graceful shutdown, flood resistance) | no (yes in the `skillpub` facade) |

mod callers;
mod coding;
mod hosts;
mod link;
mod live;
mod policy;
mod refusal;
mod router;
#[cfg(feature = "server")]
pub mod serve;
pub mod store;

pub use callers::{Callers, Visibility};
pub use coding::{BROTLI_QUALITY, BROTLI_WINDOW};
pub use hosts::{Hosts, InvalidHost};
pub use link::{AgentSkillsLink, AgentSkillsLinkLayer, InvalidIndexUrl, ResponseFuture};
pub use policy::{
    ADDRESSED_CACHE_CONTROL, ADDRESSED_MISS_CACHE_CONTROL, ALLOWED_METHODS, COMMON_HEADERS,
    DEFAULT_CACHE_CONTROL, DEFAULT_CHALLENGE, DEFAULT_CORS_MAX_AGE, DEFAULT_CREDENTIAL_HEADERS,
    DEFAULT_ERROR_CACHE_CONTROL, PREFLIGHT_HEADERS, PRIVATE_ADDRESSED_CACHE_CONTROL,
    PRIVATE_CACHE_CONTROL, PRIVATE_ERROR_CACHE_CONTROL, Private, PrivateError, Rejection,
};
pub use refusal::{FORBIDDEN_TEXT, Refusal, RefusalFuture, RefusalLayer, UNAUTHORIZED_TEXT};
pub use router::{RouterBuilder, live_router, router};
#[cfg(feature = "server")]
#[doc(inline)]
pub use serve::serve;
pub use store::{ArtifactStore, StoreFetch};

#[cfg(test)]
mod tests;
