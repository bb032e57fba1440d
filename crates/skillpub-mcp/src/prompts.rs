//! Every skill as an MCP prompt, for hosts that show prompts but do not speak the skills
//! extension: the prompt is named after the skill, its first message is the exact `SKILL.md`,
//! and a resource link follows for each supporting file, so that the host can read those
//! with `resources/read`.

use std::collections::HashMap;

use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, Prompt, PromptMessage, Role};

use crate::served::ServedSkill;

/// The prompts of a catalog, prepared once; empty when prompts are off.
#[derive(Debug, Default)]
pub(crate) struct Prompts {
    /// Sorted by name.
    listed: Vec<Prompt>,
    answers: HashMap<String, GetPromptResult>,
}

impl Prompts {
    /// Adds the prompt of one skill.
    pub(crate) fn add(&mut self, served: &ServedSkill<'_>) {
        let name = served.skill.name();
        let description = served.skill.frontmatter().description();
        self.listed.push(Prompt::new(name, Some(description), None));
        let mut messages = vec![PromptMessage::new_text(Role::User, served.skill_md())];
        messages.extend(
            served
                .supporting_files()
                .map(|file| PromptMessage::new_resource_link(Role::User, file.resource.clone())),
        );
        self.answers.insert(
            name.to_owned(),
            GetPromptResult::new(messages).with_description(description),
        );
    }

    /// The listing, sorted by name.
    pub(crate) fn listed(&self) -> &[Prompt] {
        &self.listed
    }

    /// Puts the listing in name order, once every skill is added.
    pub(crate) fn sort(&mut self) {
        self.listed.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// The answer of `prompts/get` for a skill's name, if it has a prompt.
    pub(crate) fn get(&self, name: &str) -> Option<GetPromptResult> {
        self.answers.get(name).cloned()
    }
}

/// The error for a `prompts/get` of a name that nothing serves: `-32602`, the code the MCP
/// specification gives an invalid prompt name (prompts have no error channel of their own),
/// naming the prompt in `data: {"name": ...}`.
///
/// # Example
///
/// ```
/// let error = skillpub_mcp::prompt_not_found("nope");
/// assert_eq!(error.code.0, -32602);
/// assert!(error.message.contains("`nope`"));
/// assert_eq!(error.data, Some(serde_json::json!({"name": "nope"})));
/// ```
#[must_use]
pub fn prompt_not_found(name: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "No prompt named `{name}` is served here; prompts/list lists the prompts, one per skill"
        ),
        Some(serde_json::json!({ "name": name })),
    )
}
