//! The options of a check run, and how many downloads it makes at once.

use std::fmt;

/// Called as each artifact download starts, with (position, total, url); from several
/// threads at once, since downloads run concurrently.
pub type Progress<'a> = &'a (dyn Fn(usize, usize, &str) + Sync);

/// Options of a check run.
#[derive(Default)]
pub struct CheckOptions<'a> {
    /// Reports downloads as they start, for a progress indicator.
    pub progress: Option<Progress<'a>>,
    /// Reads the target as a page whatever its path (default `false`): its `Link` with
    /// `rel="agent-skills"` is followed and compared with its origin's well-known index. Without
    /// it, only a target with a path whose answer has such a `Link` is read as a page; see
    /// [`check`](crate::check).
    pub page: bool,
    /// Expects the private policy of every answer from the target's origin (default
    /// `false`), as a router built with the private switch serves it even to a caller without
    /// credentials. A client with [`Credentials`](skillpub_client::credentials::Credentials)
    /// expects it of every answer to a request that carried them, whatever this says; see
    /// [`check`](crate::check).
    pub private: bool,
}

impl fmt::Debug for CheckOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CheckOptions")
            .field("page", &self.page)
            .field("private", &self.private)
            .finish_non_exhaustive()
    }
}

/// How many entries are checked at once: enough that a site of a hundred skills checks in a
/// few round trips, few enough not to load a small server.
pub const CONCURRENT_FETCHES: usize = 6;
