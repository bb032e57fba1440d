//! Authoring advice on Agent Skills: what makes a valid skill hard for an agent to pick or to
//! use, from the Agent Skills authoring guidance and the aiSiteReady guide. Each rule is a
//! warning (or an info) with a stable code, never an error: the skill still publishes. The
//! scale is the core's [`Severity`], shared with the client and the checks.
//!
//! The rules read a [`SkillMd`] that passed the specification's rules (skillpub-core's
//! [`SkillMd::parse`]) and the paths of the skill's other files, and nothing else, so
//! `skillpub lint` (a folder on disk) and `skillpub check` (a fetched `SKILL.md` or archive)
//! give the same advice. Building a catalog and serving a skill never run it, which is why it
//! is a crate of its own: a server does not compile its heuristics or the regex crate.
//!
//! # Example
//!
//! ```
//! use skillpub_advice::{AdviceRule, advise};
//! use skillpub_core::{SkillMd, spec::Severity};
//!
//! let skill_md = SkillMd::parse(
//!     "---\nname: pdf\ndescription: Extracts the text and tables of PDF files.\n---\nSee [forms](references/forms.md).\n",
//!     Some("skills/pdf"),
//! )?;
//! let advice = advise(&skill_md, ["scripts/extract.py"]);
//! let rules: Vec<AdviceRule> = advice.iter().map(|advice| advice.rule()).collect();
//! assert_eq!(rules, [
//!     AdviceRule::DescriptionNoTrigger,
//!     AdviceRule::LinkMissingFile,
//!     AdviceRule::ScriptsPresent,
//! ]);
//! assert_eq!(advice[1].line(), Some(5));
//! assert_eq!(advice[2].severity(), Severity::Info);
//! # Ok::<(), skillpub_core::Errors>(())
//! ```
//!
//! # Rules
//!
#![doc = include_str!("docs/rules.md")]

/// A [`regex::Regex`] compiled on first use, for a `static`. The patterns are constants of
/// this crate, each exercised by the rules' tests, so compiling one cannot fail at run time.
macro_rules! lazy_regex {
    ($pattern:expr $(,)?) => {
        ::std::sync::LazyLock::new(|| {
            ::regex::Regex::new($pattern).expect("the advice patterns are valid")
        })
    };
}

mod body;
mod clock;
mod description;
mod links;
mod markdown;
mod platform;
#[cfg(test)]
mod scaling;
mod sections;
#[cfg(test)]
mod tests;

use std::fmt;
use std::time::Instant;

use serde_json::Value;

pub use body::{MAX_BODY_TOKENS, MAX_SKILL_MD_LINES, estimate_tokens};
pub use sections::Section;

use clock::Clock;
use links::Files;
use markdown::{Markdown, collapse_whitespace};
use skillpub_core::SkillMd;
use skillpub_core::paths::SKILL_MD;
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
    /// The `SKILL.md` is over [`MAX_SKILL_MD_LINES`] lines.
    BodyTooLong = "body.too-long", Warning;
    /// The body is estimated over [`MAX_BODY_TOKENS`] tokens.
    BodyTokenBudget = "body.token-budget", Warning;
    /// A skill that calls a site or an API lacks some of the guide's five [`Section`]s.
    BodyMissingSection = "body.missing-section", Warning;
    /// The body refers to a file that the skill does not contain.
    LinkMissingFile = "link.missing-file", Warning;
    /// The body refers to a file outside the skill folder.
    LinkLeavesSkill = "link.leaves-skill", Warning;
    /// The skill has files under `scripts/`, which clients do not run by default.
    ScriptsPresent = "scripts.present", Info;
}

impl AdviceRule {
    /// Adds this rule's advice on `input` to `out`.
    fn check(self, input: &Input<'_>, out: &mut Vec<Advice>) {
        match self {
            Self::DescriptionNoTrigger => out.extend(description::no_trigger(input)),
            Self::DescriptionVague => out.extend(description::vague(input)),
            Self::DescriptionFirstPerson => out.extend(description::first_person(input)),
            Self::FrontmatterXmlTag => out.extend(platform::xml_tag(input)),
            Self::NameReservedWord => out.extend(platform::reserved_word(input)),
            Self::BodyTooLong => out.extend(body::too_long(input)),
            Self::BodyTokenBudget => out.extend(body::token_budget(input)),
            Self::BodyMissingSection => out.extend(sections::missing_section(input)),
            Self::LinkMissingFile => out.extend(links::missing_files(input)),
            Self::LinkLeavesSkill => out.extend(links::leaving_skill(input)),
            Self::ScriptsPresent => out.extend(scripts_present(input)),
        }
    }
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
#[error("`{0}` is not a code of the authoring advice; the codes are {codes}", codes = codes())]
pub struct UnknownRule(pub String);

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

/// One piece of advice on a skill: the rule, what to change, and the line of the `SKILL.md`
/// it is about, when it is about one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    rule: AdviceRule,
    message: String,
    line: Option<u64>,
}

impl Advice {
    fn new(rule: AdviceRule, message: String, line: Option<u64>) -> Self {
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

/// The authoring advice on one skill: its checked `SKILL.md` and the paths of its other
/// files, relative to the skill folder and `/`-separated (for a skill served as a single
/// `SKILL.md`, none). Every rule of [`AdviceRule::ALL`] runs, in that order; references are
/// given in line order.
///
/// The advice is computed only when asked for: building a catalog or serving a skill never
/// runs it.
///
/// # Example
///
/// ```
/// use skillpub_advice::{AdviceRule, advise};
/// use skillpub_core::SkillMd;
///
/// let skill_md = SkillMd::parse(
///     "---\nname: pdf\ndescription: Extracts the text and tables of PDF files.\n---\nSee [forms](references/forms.md).\n",
///     None,
/// )?;
/// let advice = advise(&skill_md, ["scripts/extract.py"]);
/// let codes: Vec<&str> = advice.iter().map(|advice| advice.code()).collect();
/// assert_eq!(codes, ["description.no-trigger", "link.missing-file", "scripts.present"]);
/// assert_eq!(advice[1].line(), Some(5));
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
pub fn advise<I>(skill_md: &SkillMd, files: I) -> Vec<Advice>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let input = Input::new(skill_md, files, Clock::unlimited());
    let mut advice = Vec::new();
    for rule in AdviceRule::ALL {
        rule.check(&input, &mut advice);
    }
    advice
}

/// The authoring advice of [`advise`], given only if it is complete by `deadline`: what
/// `skillpub check --max-time` runs on a fetched `SKILL.md`, whose size its server chose.
///
/// Every rule takes time linear in the `SKILL.md` and its file list, and reads the clock as
/// it goes (once per 64 KiB of text read): after the deadline the run stops within about the
/// time of one search of one pattern over one line (or, for the few patterns that span
/// lines, over the body), and gives no advice at all, since part of it could mislead.
///
/// # Errors
///
/// [`AdviceDeadline`] when the deadline passes first, with the rule that was running.
///
/// # Example
///
/// ```
/// use std::time::{Duration, Instant};
/// use skillpub_advice::{AdviceRule, advise_before};
/// use skillpub_core::SkillMd;
///
/// let skill_md = SkillMd::parse(
///     "---\nname: pdf\ndescription: Extracts the text and tables of PDF files.\n---\nSee [forms](references/forms.md).\n",
///     None,
/// )?;
/// let later = Instant::now() + Duration::from_secs(60);
/// assert_eq!(advise_before(&skill_md, ["scripts/extract.py"], later).unwrap().len(), 3);
/// let passed = advise_before(&skill_md, [""; 0], Instant::now()).unwrap_err();
/// assert_eq!(passed.rule(), AdviceRule::ALL[0]);
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
pub fn advise_before<I>(
    skill_md: &SkillMd,
    files: I,
    deadline: Instant,
) -> Result<Vec<Advice>, AdviceDeadline>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let clock = Clock::until(deadline);
    if clock.passed_now() {
        return Err(AdviceDeadline(AdviceRule::ALL[0]));
    }
    let input = Input::new(skill_md, files, clock);
    let mut advice = Vec::new();
    for rule in AdviceRule::ALL {
        if input.clock.passed_now() {
            return Err(AdviceDeadline(*rule));
        }
        rule.check(&input, &mut advice);
        if input.clock.passed_now() {
            return Err(AdviceDeadline(*rule));
        }
    }
    Ok(advice)
}

/// The deadline of [`advise_before`] passed before the advice was complete.
///
/// # Example
///
/// ```
/// use std::time::Instant;
/// use skillpub_advice::advise_before;
/// use skillpub_core::SkillMd;
///
/// let skill_md = SkillMd::parse("---\nname: pdf\ndescription: Reads PDFs.\n---\n", None)?;
/// let passed = advise_before(&skill_md, [""; 0], Instant::now()).unwrap_err();
/// assert_eq!(
///     passed.to_string(),
///     "the authoring advice was not complete at the deadline (it stopped at description.no-trigger); allow more time"
/// );
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the authoring advice was not complete at the deadline (it stopped at {0}); allow more time"
)]
pub struct AdviceDeadline(AdviceRule);

impl AdviceDeadline {
    /// The rule that was running when the deadline passed, or the first when it had passed
    /// before the advice began.
    #[must_use]
    pub fn rule(&self) -> AdviceRule {
        self.0
    }
}

/// What the rules read, prepared once.
#[derive(Debug)]
struct Input<'a> {
    name: &'a str,
    /// The description with runs of white space made one space.
    description: String,
    /// The description as parsed.
    description_raw: &'a str,
    /// `disable-model-invocation: true`: only a user can invoke the skill.
    model_invocation_disabled: bool,
    name_line: Option<u64>,
    description_line: Option<u64>,
    /// Lines of the whole `SKILL.md`.
    lines: usize,
    body: Markdown,
    files: Files,
    /// The deadline of the run, which every loop over the body reads.
    clock: Clock,
}

impl<'a> Input<'a> {
    fn new<I>(skill_md: &'a SkillMd, files: I, clock: Clock) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let frontmatter = skill_md.frontmatter();
        // A `SkillMd` is UTF-8 with frontmatter; an empty text stands in should it not be.
        let text = std::str::from_utf8(skill_md.bytes()).unwrap_or_default();
        let (yaml, body) = (skill_md.yaml(), skill_md.body());
        let field_line = |field: &str| {
            yaml.lines()
                .position(|line| {
                    line.strip_prefix(field)
                        .is_some_and(|rest| rest.trim_start().starts_with(':'))
                })
                .map(|index| index as u64 + 2)
        };
        // The body starts after the opening fence, the YAML lines and the closing fence.
        let body_line = yaml.matches('\n').count() as u64 + 3;
        let files = Files::new(
            files
                .into_iter()
                .map(|path| path.as_ref().to_owned())
                .chain([SKILL_MD.to_owned()]),
        );
        Self {
            name: frontmatter.name(),
            description: collapse_whitespace(frontmatter.description()),
            description_raw: frontmatter.description(),
            model_invocation_disabled: frontmatter.json().get("disable-model-invocation")
                == Some(&Value::Bool(true)),
            name_line: field_line("name"),
            description_line: field_line("description"),
            lines: body::line_count(text),
            body: Markdown::new(body, body_line),
            files,
            clock,
        }
    }
}

/// The folder whose files clients do not run by default.
const SCRIPTS: &str = "scripts";

/// `scripts.present`: files under `scripts/` at the skill's root.
fn scripts_present(input: &Input<'_>) -> Option<Advice> {
    let count = input.files.count_under(SCRIPTS);
    (count > 0).then(|| {
        Advice::new(
            AdviceRule::ScriptsPresent,
            format!(
                "the skill has {count} file{} under {SCRIPTS}/; clients do not run scripts by default, so a website skill should not depend on them",
                if count == 1 { "" } else { "s" }
            ),
            None,
        )
    })
}
