//! What the rules read, prepared once from a checked `SKILL.md` and the skill's files.

use std::cell::OnceCell;
use std::collections::HashMap;

use serde_json::Value;
use skillpub_core::security::{ALLOW_KEY, allowed_by_metadata, comment_allows};
use skillpub_core::{Frontmatter, SkillMd, paths::SKILL_MD};

use crate::advice::Advice;
use crate::clock::Clock;
use crate::file_text::FileText;
use crate::files::Files;
use crate::markdown::{Markdown, collapse_whitespace, line_count};
use crate::security::{Flow, Sink, Text, flows};

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
    /// The files the security review reads: the `SKILL.md`, then every supporting file
    /// given with its bytes that is text.
    pub(crate) texts: Vec<Text<'a>>,
    /// For each of `texts`, the file as it is read, where that is not its text
    /// ([`Text::reading`]).
    readings: Vec<Option<Text<'a>>>,
    /// The data flows through the files as they are read, found once for the three rules
    /// that report them.
    flows: OnceCell<Vec<Flow>>,
    frontmatter: &'a Frontmatter,
    /// The deadline of the run, which every loop over the body reads.
    pub(crate) clock: Clock,
}

impl<'a> Input<'a> {
    pub(crate) fn new<I>(skill_md: &'a SkillMd, files: I, clock: Clock) -> Self
    where
        I: IntoIterator,
        I::Item: Into<FileText<'a>>,
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
        let files: Vec<FileText<'a>> = files.into_iter().map(Into::into).collect();
        let mut texts: Vec<Text<'a>> = Text::new(SKILL_MD, skill_md.bytes(), &clock)
            .into_iter()
            .collect();
        texts.extend(
            files
                .iter()
                .filter_map(|file| Text::new(file.path, file.bytes?, &clock)),
        );
        let readings = texts.iter().map(|text| text.reading(&clock)).collect();
        let files = Files::new(
            files
                .iter()
                .map(|file| file.path.to_owned())
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
            texts,
            readings,
            flows: OnceCell::new(),
            frontmatter,
            clock,
        }
    }

    /// Every file as it is read ([`Text::reading`]), or as it is written where that is the
    /// same: what the rules that judge what a text asks for read.
    pub(crate) fn read(&self) -> impl Iterator<Item = &Text<'a>> + Clone {
        self.texts
            .iter()
            .zip(&self.readings)
            .map(|(text, reading)| reading.as_ref().unwrap_or(text))
    }

    /// The flows that end in `sink`, each with the file (as it is read) it ends in.
    pub(crate) fn flows(&self, sink: Sink) -> impl Iterator<Item = (&Text<'a>, usize)> {
        let flows = self.flows.get_or_init(|| flows(self.read(), &self.clock));
        let texts: Vec<&Text<'a>> = self.read().collect();
        flows
            .iter()
            .filter(move |flow| flow.sink == sink)
            .map(move |flow| (texts[flow.file], flow.at))
    }

    /// Whether the skill suppresses `advice`: its code is listed under the frontmatter's
    /// `metadata.skillpub-allow`, or a comment on its line or the line before names the code
    /// with a reason (see `skillpub_core::security`). `commented` remembers, for each line
    /// asked about, whether it holds the comment's marker at all, so that a line of many
    /// pieces of advice is read once.
    pub(crate) fn allowed<'s>(
        &'s self,
        advice: &Advice,
        commented: &mut HashMap<(&'s str, u64), bool>,
    ) -> bool {
        let code = advice.code();
        if allowed_by_metadata(self.frontmatter, code) {
            return true;
        }
        let (Some(line), Some(text)) = (
            advice.line(),
            self.texts.iter().find(|text| text.path == advice.file()),
        ) else {
            return false;
        };
        let mut allows = |line: u64| {
            let marked = *commented
                .entry((text.path, line))
                .or_insert_with(|| text.line(line).contains(ALLOW_KEY));
            marked && comment_allows(text.line(line).as_bytes(), code)
        };
        allows(line) || (line > 1 && allows(line - 1))
    }
}
