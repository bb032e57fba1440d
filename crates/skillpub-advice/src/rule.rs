//! The rules of the advice in one table: each rule's variant, stable code and severity.

use std::fmt;

use skillpub_core::security::SECRET_CODE;
use skillpub_core::spec::Severity;

/// Declares every rule: its variant, its code, its severity and what it says, in one table.
macro_rules! rules {
    ($( $(#[$doc:meta])* $rule:ident = $code:literal, $severity:ident; )*) => {
        /// One rule of the authoring advice, with a stable [`code`](Self::code).
        ///
        /// The codes are public API, as the codes of [`ErrorKind`](skillpub_core::ErrorKind) are,
        /// and share their `<subject>.<problem>` form; no rule has the code of an error. The
        /// table in the crate docs says when each one fires and how to fix it.
        ///
        /// # Example
        ///
        /// ```
        /// use skillpub_advice::AdviceRule;
        /// use skillpub_core::spec::Severity;
        ///
        /// let rule: AdviceRule = "description.no-trigger".parse().unwrap();
        /// assert_eq!(rule, AdviceRule::DescriptionNoTrigger);
        /// assert_eq!(rule.severity(), Severity::Warning);
        /// assert!(AdviceRule::ALL.iter().all(|rule| rule.code().parse() == Ok(*rule)));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum AdviceRule {
            $(
                $(#[$doc])*
                #[doc = concat!("\n\nCode `", $code, "`, ", stringify!($severity), ".")]
                $rule,
            )*
        }

        impl AdviceRule {
            /// Every rule, in the order their advice is given.
            pub const ALL: &[AdviceRule] = &[$(AdviceRule::$rule),*];

            /// The stable code, `<subject>.<problem>`, such as `body.too-long`.
            #[must_use]
            pub fn code(self) -> &'static str {
                match self {
                    $(Self::$rule => $code,)*
                }
            }

            /// Whether advice of this rule is a warning or an info.
            #[must_use]
            pub fn severity(self) -> Severity {
                match self {
                    $(Self::$rule => Severity::$severity,)*
                }
            }
        }
    };
}

rules! {
    /// The description says what the skill does but not when to use it.
    DescriptionNoTrigger = "description.no-trigger", Warning;
    /// The description is a placeholder, very short, generic, or only the name again.
    DescriptionVague = "description.vague", Warning;
    /// The description speaks as "I", "we" or "you" instead of in the third person.
    DescriptionFirstPerson = "description.first-person", Warning;
    /// The description holds an XML or HTML tag, which Anthropic's platform refuses.
    FrontmatterXmlTag = "frontmatter.xml-tag", Warning;
    /// The name holds `anthropic` or `claude`, which Anthropic's platform refuses.
    NameReservedWord = "name.reserved-word", Warning;
    /// The `SKILL.md` is over [`MAX_SKILL_MD_LINES`](crate::MAX_SKILL_MD_LINES) lines.
    BodyTooLong = "body.too-long", Warning;
    /// The body is estimated over [`MAX_BODY_TOKENS`](crate::MAX_BODY_TOKENS) tokens.
    BodyTokenBudget = "body.token-budget", Warning;
    /// A skill that calls a site or an API lacks some of the guide's five
    /// [`Section`](crate::Section)s.
    BodyMissingSection = "body.missing-section", Warning;
    /// The body refers to a file that the skill does not contain.
    LinkMissingFile = "link.missing-file", Warning;
    /// The body refers to a file outside the skill folder.
    LinkLeavesSkill = "link.leaves-skill", Warning;
    /// The skill has files under `scripts/`, which clients do not run by default.
    ScriptsPresent = "scripts.present", Info;
    /// A file holds text an agent reads and a person does not see: invisible Unicode, or an
    /// instruction in an HTML comment, alt text, a link title or a hidden element.
    SecurityHiddenText = "security.hidden-text", Warning;
    /// A file tries to take the agent over: overriding instructions, impersonating a role,
    /// hiding actions from the user, forcing itself into later conversations.
    SecurityInjection = "security.injection", Warning;
    /// A file sends the environment, keys, files or the conversation to another host.
    SecurityExfiltration = "security.exfiltration", Warning;
    /// A file runs remote code, deletes the user's folders, opens permissions, a setuid
    /// shell or a reverse shell, persists itself, or turns TLS verification off.
    SecurityScript = "security.script", Warning;
    /// A file runs a command it decodes or builds from pieces, or holds a long base64 blob
    /// of commands.
    SecurityObfuscation = "security.obfuscation", Warning;
}

/// A code that names no rule of the advice.
///
/// # Example
///
/// ```
/// use skillpub_advice::AdviceRule;
///
/// let error = "body.too-short".parse::<AdviceRule>().unwrap_err();
/// assert!(error.to_string().starts_with("`body.too-short` is not a code of the authoring advice; the codes are description.no-trigger, "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a code of the authoring advice; the codes are {codes}{error}", codes = codes(), error = an_error(&self.0))]
pub struct UnknownRule(pub String);

/// What to do instead, for the code of the security review that is an error.
fn an_error(code: &str) -> &'static str {
    if code == SECRET_CODE {
        "; security.secret is an error, which builds, `export` and `serve` refuse too: suppress it in the skill, with a comment `skillpub-allow security.secret: <reason>` on the line or the line before, or under `metadata.skillpub-allow` in the frontmatter"
    } else {
        ""
    }
}

/// Every code, comma-separated.
fn codes() -> String {
    let codes: Vec<&str> = AdviceRule::ALL.iter().map(|rule| rule.code()).collect();
    codes.join(", ")
}

impl std::str::FromStr for AdviceRule {
    type Err = UnknownRule;

    fn from_str(code: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|rule| rule.code() == code)
            .ok_or_else(|| UnknownRule(code.to_owned()))
    }
}

/// The code.
impl fmt::Display for AdviceRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}
