//! What the rules read, prepared once from a checked `SKILL.md` and the paths of the skill's
//! files.

use serde_json::Value;
use skillpub_core::{SkillMd, paths::SKILL_MD};

use crate::clock::Clock;
use crate::files::Files;
use crate::markdown::{Markdown, collapse_whitespace, line_count};

/// What the rules read, prepared once.
#[derive(Debug)]
pub(crate) struct Input<'a> {
    pub(crate) name: &'a str,
    /// The description with runs of white space made one space.
    pub(crate) description: String,
    /// The description as parsed.
    pub(crate) description_raw: &'a str,
    /// `disable-model-invocation: true`: only a user can invoke the skill.
    pub(crate) model_invocation_disabled: bool,
    pub(crate) name_line: Option<u64>,
    pub(crate) description_line: Option<u64>,
    /// Lines of the whole `SKILL.md`.
    pub(crate) lines: usize,
    pub(crate) body: Markdown,
    pub(crate) files: Files,
    /// The deadline of the run, which every loop over the body reads.
    pub(crate) clock: Clock,
}

impl<'a> Input<'a> {
    pub(crate) fn new<I>(skill_md: &'a SkillMd, files: I, clock: Clock) -> Self
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
            lines: line_count(text),
            body: Markdown::new(body, body_line),
            files,
            clock,
        }
    }
}
