//! Authoring advice on Agent Skills: what makes a valid skill hard for an agent to pick or to
//! use, from the Agent Skills authoring guidance and the aiSiteReady guide, and the security
//! review of what it carries (hidden text, injected instructions, exfiltration, risky
//! scripts, obfuscated commands). Each rule is a warning (or an info) with a stable code, never an error: the skill
//! still publishes. The scale is the core's [`Severity`](skillpub_core::spec::Severity),
//! shared with the client and the checks. Credentials, which keep a skill from publishing, are
//! skillpub-core's (`skillpub_core::security`).
//!
//! The rules read a [`SkillMd`] that passed the specification's rules (skillpub-core's
//! [`SkillMd::parse`]) and the skill's other files (their paths, and their bytes when the
//! caller has them: see [`FileText`]), and nothing else, so `skillpub lint` (a folder on disk)
//! and `skillpub check` (a fetched `SKILL.md` or archive) give the same advice. Serving a
//! skill never runs it, and building a catalog runs it only in `skillpub-build`, for its
//! warnings, which is why it is a crate of its own: a server does not compile its heuristics
//! or the regex crate.
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

mod advice;
mod body;
mod clock;
mod description;
mod file_text;
mod files;
mod input;
mod links;
mod markdown;
mod platform;
mod rule;
#[cfg(test)]
mod scaling;
mod scripts;
mod sections;
mod security;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::time::Instant;

pub use advice::Advice;
pub use body::{MAX_BODY_TOKENS, MAX_SKILL_MD_LINES, estimate_tokens};
pub use file_text::FileText;
pub use rule::{AdviceRule, UnknownRule};
pub use sections::Section;

use clock::Clock;
use input::Input;
use skillpub_core::SkillMd;

/// Adds `rule`'s advice on `input` to `out`.
fn check(rule: AdviceRule, input: &Input<'_>, out: &mut Vec<Advice>) {
    match rule {
        AdviceRule::DescriptionNoTrigger => out.extend(description::no_trigger(input)),
        AdviceRule::DescriptionVague => out.extend(description::vague(input)),
        AdviceRule::DescriptionFirstPerson => out.extend(description::first_person(input)),
        AdviceRule::FrontmatterXmlTag => out.extend(platform::xml_tag(input)),
        AdviceRule::NameReservedWord => out.extend(platform::reserved_word(input)),
        AdviceRule::BodyTooLong => out.extend(body::too_long(input)),
        AdviceRule::BodyTokenBudget => out.extend(body::token_budget(input)),
        AdviceRule::BodyMissingSection => out.extend(sections::missing_section(input)),
        AdviceRule::LinkMissingFile => out.extend(links::missing_files(input)),
        AdviceRule::LinkLeavesSkill => out.extend(links::leaving_skill(input)),
        AdviceRule::ScriptsPresent => out.extend(scripts::scripts_present(input)),
        AdviceRule::SecurityHiddenText => out.extend(security::hidden_text(input)),
        AdviceRule::SecurityInjection => out.extend(security::injection(input)),
        AdviceRule::SecurityExfiltration => out.extend(security::exfiltration(input)),
        AdviceRule::SecurityScript => out.extend(security::script(input)),
        AdviceRule::SecurityObfuscation => out.extend(security::obfuscation(input)),
    }
}

/// The authoring advice on one skill: its checked `SKILL.md` and its other files, each its
/// path relative to the skill folder and `/`-separated, with its bytes when the caller has
/// them (for a skill served as a single `SKILL.md`, none; see [`FileText`]). The security
/// review reads every file given with its bytes. Every rule of [`AdviceRule::ALL`] runs, in that order; references are
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
pub fn advise<'a, I>(skill_md: &'a SkillMd, files: I) -> Vec<Advice>
where
    I: IntoIterator,
    I::Item: Into<FileText<'a>>,
{
    run(skill_md, files, Clock::unlimited()).expect("a clock without a deadline never stops")
}

/// The authoring advice of [`advise`], given only if it is complete by `deadline`: what
/// `skillpub check --max-time` runs on a fetched `SKILL.md`, whose size its server chose.
///
/// Every rule takes time linear in the `SKILL.md` and its files, and the run reads the
/// clock as it goes (once per 64 KiB of work): after the deadline it stops within about the
/// time of one search of one pattern over one line (or, for the few patterns that span
/// lines, over the body), and gives no advice at all, since part of it could mislead.
///
/// # Errors
///
/// [`AdviceDeadline`] when the deadline passes first, with the rule that was running, if
/// one was.
///
/// # Example
///
/// ```
/// use std::time::{Duration, Instant};
/// use skillpub_advice::advise_before;
/// use skillpub_core::SkillMd;
///
/// let skill_md = SkillMd::parse(
///     "---\nname: pdf\ndescription: Extracts the text and tables of PDF files.\n---\nSee [forms](references/forms.md).\n",
///     None,
/// )?;
/// let later = Instant::now() + Duration::from_secs(60);
/// assert_eq!(advise_before(&skill_md, ["scripts/extract.py"], later).unwrap().len(), 3);
/// let passed = advise_before(&skill_md, [""; 0], Instant::now()).unwrap_err();
/// assert_eq!(passed.rule(), None, "no rule ran");
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
pub fn advise_before<'a, I>(
    skill_md: &'a SkillMd,
    files: I,
    deadline: Instant,
) -> Result<Vec<Advice>, AdviceDeadline>
where
    I: IntoIterator,
    I::Item: Into<FileText<'a>>,
{
    run(skill_md, files, Clock::until(deadline))
}

/// Every rule of [`AdviceRule::ALL`] on the skill, in order, until `clock` says the deadline
/// has passed: before the input is read, or after it, is before any rule ran.
fn run<'a, I>(skill_md: &'a SkillMd, files: I, clock: Clock) -> Result<Vec<Advice>, AdviceDeadline>
where
    I: IntoIterator,
    I::Item: Into<FileText<'a>>,
{
    if clock.passed_now() {
        return Err(AdviceDeadline(None));
    }
    let input = Input::new(skill_md, files, clock);
    if input.clock.passed_now() {
        return Err(AdviceDeadline(None));
    }
    let mut advice = Vec::new();
    for rule in AdviceRule::ALL {
        check(*rule, &input, &mut advice);
        if input.clock.passed_now() {
            return Err(AdviceDeadline(Some(*rule)));
        }
    }
    let mut commented = HashMap::new();
    advice.retain(|advice| !input.allowed(advice, &mut commented));
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
///     "the authoring advice was not complete at the deadline (it had passed before any rule ran); allow more time"
/// );
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the authoring advice was not complete at the deadline ({}); allow more time", stopped(*.0))]
pub struct AdviceDeadline(Option<AdviceRule>);

impl AdviceDeadline {
    /// The rule that was running when the deadline passed; `None` when it had passed before
    /// any rule ran.
    #[must_use]
    pub fn rule(&self) -> Option<AdviceRule> {
        self.0
    }
}

/// Where the advice stopped, for the message of [`AdviceDeadline`].
fn stopped(rule: Option<AdviceRule>) -> String {
    match rule {
        Some(rule) => format!("it stopped at {rule}"),
        None => "it had passed before any rule ran".to_owned(),
    }
}
