//! A strict Agent Skills Discovery client: discover an index, fetch artifacts, verify their
//! digests and unpack archives safely, within limits.
//!
//! - [`Client`] discovers an index (`.well-known/agent-skills/index.json` under an origin and
//!   the path it is given, such as `https://example.com/tenant`, or any index URL), follows up
//!   to ten redirects with every hop checked against a [`HostPolicy`] (no private hosts
//!   unless allowed, an optional origin allowlist), resolves each `url` per RFC 3986 against the
//!   final index URL, and fetches artifacts.
//! - Requests send `Accept-Encoding: gzip, deflate, br` ([`ACCEPT_ENCODING`](fetch::ACCEPT_ENCODING), as Node's
//!   `fetch` does). Every artifact's SHA-256 is compared with the index's digest before
//!   anything else is done with it, over the body with its content codings removed (each
//!   decoded output bounded like the body; `identity` is no coding). A mismatch is an error
//!   naming the skill and both digests.
//! - Archives are recognised by `Content-Type`, then extension, then magic bytes, and unpacked
//!   in memory within a size and file-count limit (50 MiB and 1,000 files by default),
//!   refusing absolute paths, drive letters, backslashes, `..`, links that leave the folder
//!   or pass through another link, paths and link targets over [`MAX_PATH_LENGTH`](unpack::MAX_PATH_LENGTH) bytes,
//!   devices and encrypted entries; `SKILL.md` must be at the root. Every check is linear in
//!   the archive's size.
//! - The fetched `SKILL.md` is validated with `skillpub-core`'s `SkillMd::parse`, the Agent
//!   Skills rules, its name against the entry's; the supporting files are held to the
//!   client's limits, not to the publisher's path rules and limits.
//! - Time: each request (each redirect hop is one), body included, ends within the transport's
//!   timeout; [`Client::with_deadline`] bounds everything done through the client, requests
//!   and unpacking alike. Durations are saturated at [`MAX_TIMEOUT`](fetch::MAX_TIMEOUT), never an
//!   overflow.
//! - Credentials ([`Client::with_credentials`]: a bearer token, a cookie, any header) are sent
//!   to the origin of the site being fetched and to no other: not after a redirect to another
//!   origin, not to an artifact URL or a `Link`-named index elsewhere; their values never
//!   appear in a `Debug`, a `Display` or an error ([`credentials`]).
//! - A [`Transport`] sends one request: [`HttpTransport`] over the network (feature `http`,
//!   on by default), `ServiceTransport` to a tower service in process (feature `tower`).
//! - Errors keep their cause: [`ClientError`], [`FetchError`] and [`UnpackError`](unpack::UnpackError) return the
//!   error they wrap from [`Error::source`](std::error::Error::source), down to what the HTTP
//!   stack, a decoder or an archive reader said ([`SourceError`]).
//!
//! An index with an unknown `$schema` is refused; one without `$schema` is read as 0.1.0; an
//! entry with an unknown `type` is skipped with a warning, and one bad entry never fails the
//! others.
//!
//! # Proxies and private addresses
//!
//! [`HttpTransport`] uses a proxy from the environment (`ALL_PROXY`, `HTTPS_PROXY`,
//! `HTTP_PROXY`, minus `NO_PROXY`) through `CONNECT`. The private-address guard applies to
//! what is fetched, not to the proxy: a proxy on `127.0.0.1` works. Without a proxy, the
//! guard refuses local and private names and IP literals before a request and every local or
//! private address a name resolves to when connecting (DNS rebinding). Through a proxy, the
//! proxy resolves the name, so the client can only refuse names and IP literals: a public
//! name that resolves to a private address is for the proxy to refuse.
//!
//! # Example
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use skillpub_client::{Client, HttpTransport};
//!
//! let client = Client::new(HttpTransport::new(Duration::from_secs(10)))
//!     .with_deadline(Instant::now() + Duration::from_secs(60));
//! let index = client.discover("https://example.com")?;
//! for entry in index.entries() {
//!     match client.fetch(entry) {
//!         Ok(skill) => println!("{}: {}", entry.name, skill.frontmatter.description()),
//!         Err(error) => eprintln!("{error}"),
//!     }
//! }
//! # Ok::<(), skillpub_client::ClientError>(())
//! ```
//!
//! # Layout
//!
//! The root holds what a host names to load skills: the [`Client`] and its [`ClientError`],
//! the [`FetchedSkill`] it returns, the [`Index`] and [`Entry`] it discovers, the
//! [`Transport`]s, the [`HostPolicy`] and [`Limits`] it obeys, the [`Fetched`] answers and
//! [`FetchError`]s of a request, and [`SourceError`]. The rest is in a module per step:
//!
//! | Module | What |
//! |---|---|
//! | [`credentials`] | headers for a private catalog, sent to the site's origin only, never shown: [`Credentials`](credentials::Credentials), [`BearerToken`](credentials::BearerToken) |
//! | [`fetch`] | one request and its redirects: the limits' defaults, `Accept-Encoding`, [`send`](fetch::send) |
//! | [`index`] | reading an index: [`parse`](index::parse), its [`Version`](index::Version), entries and their problems |
//! | [`unpack`] | unpacking an archive safely: [`unpack`](unpack::unpack), [`detect`](unpack::detect), what is refused |
//!
//! The checks of `skillpub check`, which run on this client, are in
//! [`skillpub-check`](https://docs.rs/skillpub-check).
//!
//! # Crate features
//!
//! | Name | Description | Default |
//! |---|---|---|
//! | `http` | [`HttpTransport`]: fetch over HTTP(S) with ureq and rustls (no OpenSSL) | yes |
//! | `tower` | `ServiceTransport`: fetch from a tower service in process, such as an axum `Router` | no |

mod client;
pub mod credentials;
pub mod fetch;
#[cfg(feature = "http")]
mod http;
pub mod index;
#[cfg(feature = "tower")]
mod service;
mod source;
pub mod unpack;

pub use client::{Client, ClientError, FetchedSkill, index_url};
#[doc(inline)]
pub use fetch::{FetchError, Fetched, HostPolicy, Limits, Transport};
#[cfg(feature = "http")]
pub use http::HttpTransport;
#[doc(inline)]
pub use index::{Entry, Index};
#[cfg(feature = "tower")]
pub use service::ServiceTransport;
pub use source::SourceError;
