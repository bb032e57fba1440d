//! The server's knobs once checked, as the accept loop and each connection read them.

use std::num::NonZeroUsize;
use std::time::Duration;

use super::activity::Timeouts;

/// The checked knobs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) timeouts: Timeouts,
    pub(super) body_budget: usize,
    pub(super) max_header_size: usize,
    pub(super) grace_period: Duration,
    pub(super) max_connections: Option<NonZeroUsize>,
}
