//! The checks behind `skillpub check`: what a strict client needs from a site, one line each,
//! each with a stable code, run through [`skillpub-client`](skillpub_client) against a live
//! site or, with the feature `tower`, in process against a tower service (the module `testing`).
//!
//! - [`check`] runs every check against a site through any
//!   [`Transport`](skillpub_client::Transport), [`CONCURRENT_FETCHES`] entries at a time,
//!   within the client's limits and deadline, and reports them in index order, each line with a
//!   stable code ([`CheckKind`], listed [below](#check-codes)). It takes an origin, a path
//!   prefix, an index URL or a page, whose `Link` with `rel="agent-skills"` (RFC 8288) it
//!   follows and compares with the origin's well-known index.
//! - The [`Report`] is text for people (its `Display`, with control, bidirectional and
//!   invisible characters from the server escaped) and JSON for scripts
//!   ([`Report::to_json`]); a line's [`Cause`] is the typed error behind it.
//! - The report grades the well-known index as the aiSiteReady scanner does ([`Grade`]),
//!   which is looser than the checks, and gives isitagentready.com's verdict on it
//!   ([`Verdict`]).
//! - A private catalog is checked with the client's credentials
//!   ([`Client::with_credentials`](skillpub_client::Client::with_credentials), sent to the
//!   target's origin only): a 401 or 403 on the index is its own result (`auth.required` with
//!   the `WWW-Authenticate` challenge, `auth.forbidden`), and every answer to a credentialed
//!   request is held to the private policy (`private.*`: never `public`, `Vary` naming the
//!   credential headers, no `*` or unlisted origin with credentialed CORS); see
//!   [`CheckOptions::private`] for a private view without credentials.
//! - Each fetched skill gets the authoring advice and the security review of `skillpub lint`
//!   ([`skillpub-advice`](skillpub_advice)) on its `SKILL.md` and every file of its archive,
//!   which stops at the client's deadline, as downloads do, and every file is searched for
//!   credentials (`skill.secret`, with skillpub-core's matcher).
//!
//! # Example
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use skillpub_check::{CheckKind, CheckOptions, check};
//! use skillpub_client::{Client, HttpTransport};
//!
//! let client = Client::new(HttpTransport::new(Duration::from_secs(15)))
//!     .with_deadline(Instant::now() + Duration::from_secs(120));
//! let report = check(&client, "https://example.com/tenant", &CheckOptions::default());
//! println!("{report}");
//! assert!(report.passed());
//! assert_eq!(report.of(CheckKind::EntryDigest).count(), report.of(CheckKind::EntryFields).count());
//! ```
//!
//! # Crate features
//!
//! | Name | Description | Default |
//! |---|---|---|
//! | `tower` | the module `testing`: the checks in process against a tower service, such as an axum `Router`, for your own tests (`assert_conforms`) | no |
//!
//! # Check codes
//!
#![doc = include_str!("docs/checks.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[macro_use]
mod macros;
mod check;
mod discovery;
mod freshness;
mod grade;
mod isitagentready;
mod link;
mod options;
mod outcome;
mod private;
mod report;
mod run;
mod table;
mod target;
#[cfg(feature = "tower")]
#[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
pub mod testing;
#[cfg(test)]
mod tests;

pub use check::check;
pub use grade::{Grade, GradeStatus};
pub use isitagentready::Verdict;
pub use options::{CONCURRENT_FETCHES, CheckOptions, Progress};
pub use outcome::{Cause, Status};
pub use report::{Check, Report};
pub use table::{CheckKind, UnknownCode};
