//! A strict Agent Skills Discovery client, and the checks behind `skillpub check`.
//!
//! - [`Client`] discovers an index (`/.well-known/agent-skills/index.json` of an origin, or
//!   any index URL), follows up to ten redirects with every hop checked against a [`Policy`]
//!   (no private hosts unless allowed, an optional origin allowlist), resolves each `url` per
//!   RFC 3986 against the final index URL, and fetches artifacts.
//! - Every artifact's SHA-256 is compared with the index's digest before anything else is done
//!   with it, over the body with any `Content-Encoding` removed. A mismatch is an error naming
//!   the skill and both digests.
//! - Archives are recognised by `Content-Type`, then extension, then magic bytes, and unpacked
//!   in memory within a size and file-count limit (50 MiB and 1,000 files by default),
//!   refusing absolute paths, drive letters, backslashes, `..`, links that leave the folder,
//!   devices and encrypted entries; `SKILL.md` must be at the root.
//! - The fetched skill is validated with `skillpub-core`'s rules, its name against the
//!   entry's.
//! - [`check`] runs every check of `skillpub check` against a site through any [`Transport`].
//!
//! An index with an unknown `$schema` is refused; one without `$schema` is read as 0.1.0; an
//! entry with an unknown `type` is skipped with a warning, and one bad entry never fails the
//! others.
//!
//! # Example
//!
//! ```no_run
//! use skillpub_client::{Client, HttpTransport};
//!
//! let client = Client::new(HttpTransport::new(std::time::Duration::from_secs(10)));
//! let index = client.discover("https://example.com")?;
//! for entry in index.entries() {
//!     match client.fetch(entry) {
//!         Ok(skill) => println!("{}: {}", entry.name, skill.frontmatter.description()),
//!         Err(error) => eprintln!("{error}"),
//!     }
//! }
//! # Ok::<(), skillpub_client::ClientError>(())
//! ```

mod check;
mod client;
mod fetch;
#[cfg(feature = "http")]
mod http;
mod index;
#[cfg(feature = "tower")]
pub mod testing;
mod unpack;

pub use check::{CONCURRENT_FETCHES, Check, CheckOptions, Progress, Report, Status, check};
pub use client::{Client, ClientError, FetchedSkill};
pub use fetch::{
    ACCEPT_ENCODING, DEFAULT_MAX_BODY, DEFAULT_MAX_FILES, DEFAULT_MAX_UNPACKED, DEFAULT_TIMEOUT,
    FetchError, Fetched, Limits, MAX_CODINGS, MAX_REDIRECTS, MAX_TIMEOUT, Policy, RawAnswer,
    Transport, send,
};
#[cfg(feature = "http")]
pub use http::HttpTransport;
pub use index::{
    ArtifactKind, Entry, EntryProblem, Index, IndexError, LegacyEntry, Severity, Version, parse,
};
pub use unpack::{Format, MAX_PATH_LENGTH, UnpackError, Unpacked, UnpackedFile, detect, unpack};
