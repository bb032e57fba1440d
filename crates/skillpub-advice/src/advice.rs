//! One piece of advice: the rule that gave it, what to change, and the line it is about.

use std::fmt;

use skillpub_core::spec::Severity;

use crate::rule::AdviceRule;

/// One piece of advice on a skill: the rule, what to change, and the line of the `SKILL.md`
/// it is about, when it is about one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    rule: AdviceRule,
    message: String,
    line: Option<u64>,
}

impl Advice {
    pub(crate) fn new(rule: AdviceRule, message: String, line: Option<u64>) -> Self {
        Self {
            rule,
            message,
            line,
        }
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

    /// The line of the `SKILL.md` (1-based) it is about: the field's line for the
    /// frontmatter rules, the reference's for the link rules; `None` for advice on the whole
    /// file.
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
