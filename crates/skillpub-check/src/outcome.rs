//! What one check found: its outcome, and the typed error behind it.

use skillpub_client::index::{EntryError, IndexError};
use skillpub_client::unpack::UnpackError;
use skillpub_client::{ClientError, FetchError};
use skillpub_core::spec::Severity;

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Passed.
    Ok,
    /// Works, but breaks a SHOULD or a common client's expectation.
    Warn,
    /// Breaks a MUST: clients will not use what it is about.
    Fail,
}

impl Status {
    /// The label of the text report: `ok`, `warn` or `FAIL`.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_check::Status;
    ///
    /// assert_eq!(Status::Fail.label(), "FAIL");
    /// ```
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Warn => "warn",
            Self::Fail => "FAIL",
        }
    }
}

/// The status of a line that reports something of this severity: an error fails, a warning
/// warns, an info is `ok`.
///
/// # Example
///
/// ```
/// use skillpub_check::Status;
/// use skillpub_core::spec::Severity;
///
/// assert_eq!(Status::from(Severity::Error), Status::Fail);
/// assert_eq!(Status::from(Severity::Info), Status::Ok);
/// ```
impl From<Severity> for Status {
    fn from(severity: Severity) -> Self {
        match severity {
            Severity::Info => Self::Ok,
            Severity::Warning => Self::Warn,
            Severity::Error => Self::Fail,
        }
    }
}

/// The typed error behind a line, when there is one: what code can inspect beyond the
/// message, such as the core's validation problem behind `skill.frontmatter`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cause {
    /// A request that failed.
    Fetch(FetchError),
    /// An index that cannot be used.
    Index(IndexError),
    /// An entry that clients skip.
    Entry(EntryError),
    /// An archive that must not be unpacked.
    Unpack(UnpackError),
    /// A problem the core's validation found in a fetched `SKILL.md`.
    Skill(skillpub_core::Error),
    /// The core's authoring advice on a fetched `SKILL.md` (`skill.advice`).
    Advice(skillpub_advice::Advice),
    /// The deadline passed before the authoring advice on a fetched `SKILL.md` was complete
    /// (`run.max-time`).
    AdviceDeadline(skillpub_advice::AdviceDeadline),
    /// Another reason a target or an artifact cannot be used.
    Client(ClientError),
}

macro_rules! cause_from {
    ($($variant:ident($error:ty)),*) => {
        $(
            impl From<$error> for Cause {
                fn from(error: $error) -> Self {
                    Self::$variant(error)
                }
            }
        )*
    };
}

cause_from!(
    Fetch(FetchError),
    Index(IndexError),
    Entry(EntryError),
    Unpack(UnpackError),
    Skill(skillpub_core::Error),
    Advice(skillpub_advice::Advice),
    AdviceDeadline(skillpub_advice::AdviceDeadline),
    Client(ClientError)
);
