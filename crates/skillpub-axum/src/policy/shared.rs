//! The answers every path of a router shares, prepared once when it is built.

use super::prepared::Prepared;
use super::rejection::Rejection;
use super::settings::Policy;
use super::template::Templates;

/// The answers that do not depend on the artifact, and the headers that the answers of every
/// artifact share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(super) not_found: Prepared,
    pub(super) method_not_allowed: Prepared,
    pub(super) precondition_failed: Prepared,
    pub(super) not_acceptable: Prepared,
    pub(super) preflight: Prepared,
    pub(super) templates: Templates,
}

impl Policy {
    /// Prepares the answers that every path shares.
    pub(crate) fn shared(&self) -> Shared {
        Shared {
            not_found: self.error(Rejection::NotFound),
            method_not_allowed: self.error(Rejection::MethodNotAllowed),
            precondition_failed: self.error(Rejection::PreconditionFailed),
            not_acceptable: self.error(Rejection::NotAcceptable),
            preflight: self.preflight(),
            templates: self.templates(),
        }
    }
}
