//! How much a finding about a skill, an index or a site matters, by the force of the rule it
//! is about.

use std::fmt;

/// How much a finding matters, by the force of the rule it is about (RFC 2119): an error
/// breaks a MUST, a warning a SHOULD or what common clients expect, an info is only worth
/// knowing. Ordered from the least to the most serious.
///
/// One scale for every crate: the authoring advice gives warnings and infos, the client
/// skips an index entry with a warning (an unknown `type`, which the draft says to skip) or
/// an error, and a check of `skillpub check` warns on a warning and fails on an error.
///
/// # Example
///
/// ```
/// use skillpub_core::spec::Severity;
///
/// assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
/// assert_eq!(Severity::Warning.label(), "warning");
/// assert_eq!(Severity::Error.to_string(), "error");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; nothing to change for most skills or sites.
    Info,
    /// Worth changing: it works, but breaks a SHOULD or what common clients expect, so agents
    /// pick or use it worse. `skillpub lint --deny-warnings` fails on it.
    Warning,
    /// Breaks a MUST: clients will not use what it is about.
    Error,
}

impl Severity {
    /// `info`, `warning` or `error`, as `skillpub lint` prints it.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

/// The label.
impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}
