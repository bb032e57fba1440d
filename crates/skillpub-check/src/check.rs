//! Where a run starts: what the target is, then the checks of the index it leads to.

use http::Method;
use skillpub_client::{Client, Transport};

use crate::options::CheckOptions;
use crate::private::Private;
use crate::report::{Lines, Report};
use crate::run::{CODED, Run, Scanners};
use crate::table::Finding;
use crate::target::Target;

/// Runs every check against a target, within the client's limits and deadline. Entries are
/// checked [`CONCURRENT_FETCHES`](crate::CONCURRENT_FETCHES) at a time; the report lists them in index order. Every line
/// has a [`CheckKind`](crate::CheckKind) with a stable code, and the report has the
/// [aiSiteReady grade](crate::Grade) and the [isitagentready verdict](crate::Verdict) of the
/// well-known index.
///
/// What the target is, in this order:
///
/// - **a page**, with [`CheckOptions::page`];
/// - **an index URL**: its path ends with `.json`; it is checked as it is;
/// - **an origin**: its path is empty or `/`; its index is `/.well-known/agent-skills/index.json`;
/// - any other path is fetched once (`GET`): when the answer (after redirects) has a `Link`
///   with `rel="agent-skills"`, or a `Link` field that does not parse and mentions
///   `agent-skills`, it is **a page**; otherwise it is **a path prefix** the skills are mounted
///   under, and its index is `{path}/.well-known/agent-skills/index.json`. A page whose `Link`
///   and well-known path lead to no index, while there is one under its path, is read as
///   that prefix after all (with a `discovery.link` warning).
///
/// For a page, the index of its `Link` (resolved against the page's URL) is compared with its
/// origin's well-known index (`discovery.link`, `discovery.link-mismatch`), and one of them is
/// checked in full: the well-known index when it answers `200` with a JSON object, as clients
/// that follow the draft read it, else the `Link`'s when it does, else the well-known one. The
/// grade and the verdict are always those of the well-known index, the only one the scanners
/// read (isitagentready's reads the legacy `/.well-known/skills/index.json` when it answers
/// `404`).
///
/// With the client's credentials (sent to their origin only), a private catalog is checked:
/// an index that answers 401 or 403 is `auth.required` (with the `WWW-Authenticate`
/// challenge) or `auth.forbidden` and one `run.not-run` line, and every answer to a request
/// that carried them is held to the private policy (the `private.*` lines; with
/// [`CheckOptions::private`](crate::CheckOptions::private), every answer from the target's
/// origin is).
///
/// Requests send `Accept-Encoding: gzip, deflate, br`, as Node's `fetch` does; digests are
/// compared with the decoded bodies. An artifact that arrives content-encoded is fetched again
/// without `Accept-Encoding`, and one strong `ETag` on both answers with different bytes
/// fails; an archive that arrives content-encoded fails.
///
/// # Example
///
/// ```no_run
/// use std::time::{Duration, Instant};
/// use skillpub_check::{CheckKind, CheckOptions, check};
/// use skillpub_client::{Client, HttpTransport};
///
/// let client = Client::new(HttpTransport::new(Duration::from_secs(15)))
///     .with_deadline(Instant::now() + Duration::from_secs(120));
/// let report = check(&client, "https://example.com/tenant", &CheckOptions::default());
/// println!("{report}");
/// assert!(report.passed());
/// assert_eq!(report.of(CheckKind::EntryDigest).count(), report.of(CheckKind::EntryFields).count());
/// ```
pub fn check<T: Transport + Sync>(
    client: &Client<T>,
    target: &str,
    options: &CheckOptions<'_>,
) -> Report {
    let mut checks = Lines::default();
    let private = Private::of(client.credentials(), target, options.private);
    let run = Run {
        client,
        options,
        private,
    };
    let scanners = run.all(&mut checks, target);
    if let Some(private) = &run.private {
        private.lines(&mut checks);
    }
    let (aisiteready, isitagentready) = scanners.unzip();
    Report {
        target: target.to_owned(),
        checks: checks.0,
        aisiteready,
        isitagentready,
    }
}

impl<T: Transport + Sync> Run<'_, T> {
    /// Every check of a target; what the scanners say of its well-known index, once a URL
    /// could be made of it.
    fn all(&self, out: &mut Lines, target: &str) -> Option<Scanners> {
        let target = match Target::parse(target, self.options.page) {
            Ok(target) => target,
            Err(error) => {
                out.push("target", Finding::target(error));
                return None;
            }
        };
        Some(match target {
            Target::Index(url) => {
                let answer = self.request(&Method::GET, &url, CODED);
                let scanners = self.scanners(&url, answer.as_ref());
                self.index(out, answer);
                scanners
            }
            Target::Path { url, index } => self.path(out, &url, &index),
            Target::Page(url) => self.page(out, &url),
        })
    }
}
