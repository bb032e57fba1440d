//! Every skill as an MCP prompt, for hosts that show prompts but do not speak the skills
//! extension: the prompt is named after the skill, its first message is the exact `SKILL.md`,
//! and a resource link follows for each supporting file, so that the host can read those
//! with `resources/read`.

use std::collections::HashMap;

use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, ListPromptsResult, Prompt, PromptMessage, Role};

use crate::skills::{McpSkills, ServedSkill};

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
}

impl McpSkills {
    /// `prompts/list`: one page of the skills' prompts, sorted by name; empty unless
    /// [`prompts`](crate::McpSkillsBuilder::prompts) is on. The result carries `ttlMs` and
    /// `cacheScope`.
    ///
    /// # Errors
    ///
    /// `-32602` for a cursor this server did not hand out.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, Skill};
    /// use skillpub_mcp::McpSkills;
    ///
    /// let catalog = Catalog::new([Skill::from_static(
    ///     "---\nname: refunds\ndescription: Process refunds per policy.\n---\nSteps.\n",
    /// )])?;
    /// let skills = McpSkills::builder(catalog).prompts(true).build()?;
    /// let prompts = skills.list_prompts(None)?.prompts;
    /// assert_eq!(prompts[0].name, "refunds");
    /// assert_eq!(prompts[0].description.as_deref(), Some("Process refunds per policy."));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult, ErrorData> {
        let (page, next) = self.page(&self.0.prompts.listed, cursor)?;
        let mut result = ListPromptsResult::with_all_items(page)
            .with_ttl_ms(self.0.ttl_ms)
            .with_cache_scope(self.0.cache_scope);
        result.next_cursor = next;
        Ok(result)
    }

    /// `prompts/get` of a skill's prompt: the exact `SKILL.md` as a user message, then a
    /// resource link (`skill://` URI, name, media type, size) to each supporting file. `None`
    /// when no skill has that name or prompts are off, so a handler with prompts of its own
    /// can try those (and answer [`prompt_not_found`] when none has it).
    #[must_use]
    pub fn get_prompt(&self, name: &str) -> Option<GetPromptResult> {
        self.0.prompts.answers.get(name).cloned()
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
