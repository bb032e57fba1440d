//! One piece of advice: the rule that gave it, what to change, and the file and line it is
//! about.

use std::fmt;

use skillpub_core::paths::SKILL_MD;
use skillpub_core::spec::Severity;

use crate::rule::AdviceRule;

/// One piece of advice on a skill: the rule, what to change, and the file and line it is
/// about, when it is about one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    rule: AdviceRule,
    message: String,
    /// The supporting file it is about; `None` for the `SKILL.md`.
    file: Option<String>,
    line: Option<u64>,
}

impl Advice {
    /// Advice on the `SKILL.md`.
    pub(crate) fn new(rule: AdviceRule, message: String, line: Option<u64>) -> Self {
        Self {
            rule,
            message,
            file: None,
            line,
        }
    }

    /// Advice on the file `path` of the skill (`SKILL.md` or a supporting file).
    pub(crate) fn in_file(
        rule: AdviceRule,
        message: String,
        path: &str,
        line: Option<u64>,
    ) -> Self {
        Self {
            rule,
            message,
            file: (path != SKILL_MD).then(|| path.to_owned()),
            line,
        }
    }

    /// The file it is about, inside the skill folder: `SKILL.md`, or a supporting file such as
    /// `scripts/install.sh` for the security review.
    #[must_use]
    pub fn file(&self) -> &str {
        self.file.as_deref().unwrap_or(SKILL_MD)
    }

    /// The rule that gave it.
    #[must_use]
    pub fn rule(&self) -> AdviceRule {
        self.rule
    }

    /// The rule's stable code, such as `description.no-trigger`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.rule.code()
    }

    /// The rule's severity.
    #[must_use]
    pub fn severity(&self) -> Severity {
        self.rule.severity()
    }

    /// What is wrong and what to change, for people; it may be reworded between versions,
    /// the code is what scripts match on.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The line of its [`file`](Self::file) (1-based) it is about: the field's line for the
    /// frontmatter rules, the reference's for the link rules, the finding's for the security
    /// review; `None` for advice on the whole file.
    #[must_use]
    pub fn line(&self) -> Option<u64> {
        self.line
    }
}

/// The message.
impl fmt::Display for Advice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
