//! Tools that let a model find and load a skill on demand, for hosts that call tools but do
//! not speak the skills extension: `list_skills`, `load_skill` and `read_skill_file`. They
//! read only the catalog's prepared files: a name is checked by the core's name rule and a
//! path by its path rules before any look-up, so no input can reach outside the catalog.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, JsonObject, ResourceContents, Tool,
    ToolAnnotations,
};
use serde_json::{Value, json};
use skillpub_core::{
    paths::SKILL_MD,
    spec::{MAX_NAME_LENGTH, PathProblem, validate_file_path, validate_name},
};

use crate::options::Options;
use crate::paging::page;
use crate::served::{File, ServedSkill, root_uri};

/// The name of the tool that lists the skills, page by page: names, descriptions and URIs.
pub const LIST_SKILLS_TOOL: &str = "list_skills";

/// The name of the tool that loads a skill: its `SKILL.md` and the list of its files.
pub const LOAD_SKILL_TOOL: &str = "load_skill";

/// The name of the tool that reads one file of a skill.
pub const READ_SKILL_FILE_TOOL: &str = "read_skill_file";

/// How much of a caller's input an error message repeats, in characters.
const SHOWN_CHARACTERS: usize = 100;

/// The tools of a catalog, prepared once; empty when tools are off.
#[derive(Debug, Default)]
pub(crate) struct Tools {
    /// Whether the tools are on.
    on: bool,
    /// The prefix of the skills' URIs.
    prefix: String,
    /// Items per page of `list_skills`.
    page_size: usize,
    listed: Vec<Tool>,
    /// The answer of `load_skill`, by skill name.
    loaded: HashMap<String, CallToolResult>,
    /// The entries of `list_skills` with their URIs, in `skills/list` order once sorted.
    summaries: Vec<(String, Value)>,
}

impl Tools {
    /// The tool definitions when the options turn them on, none otherwise.
    pub(crate) fn new(options: &Options) -> Self {
        let on = options.surfaces.tools;
        Self {
            on,
            prefix: options.prefix.clone(),
            page_size: options.page_size,
            listed: if on { definitions() } else { Vec::new() },
            ..Self::default()
        }
    }

    /// Adds one skill: its `load_skill` answer and its `list_skills` entry.
    pub(crate) fn add(&mut self, served: &ServedSkill<'_>) {
        let name = served.skill.name();
        let description = served.skill.frontmatter().description();
        let files: Vec<Value> = served
            .files
            .iter()
            .map(|file| {
                json!({
                    "path": file.path,
                    "uri": file.uri,
                    "mimeType": file.mime_type,
                    "size": file.size,
                    "digest": file.digest,
                })
            })
            .collect();
        let manifest = json!({
            "name": name,
            "description": description,
            "uri": served.uri,
            "files": files,
        });
        self.loaded.insert(
            name.to_owned(),
            structured(vec![ContentBlock::text(served.skill_md())], manifest),
        );
        self.summaries.push((
            served.uri.clone(),
            json!({ "name": name, "description": description, "uri": served.uri }),
        ));
    }

    /// Puts the `list_skills` entries in `skills/list` order, once every skill is added.
    pub(crate) fn sort(&mut self) {
        self.summaries.sort_by(|a, b| a.0.cmp(&b.0));
    }

    /// The tool definitions of `tools/list`.
    pub(crate) fn listed(&self) -> &[Tool] {
        &self.listed
    }
}

/// A successful answer: `content`, then the structured content as JSON text (for hosts that
/// read only `content`), and the structured content itself.
fn structured(mut content: Vec<ContentBlock>, value: Value) -> CallToolResult {
    content.push(ContentBlock::text(value.to_string()));
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(value);
    result
}

impl Tools {
    /// `tools/call` of one of the skill tools, reading `files` (the catalog's, by URI); `None`
    /// when the tool is not one of them or tools are off (see `McpSkills::call_tool`).
    pub(crate) fn call(
        &self,
        request: &CallToolRequestParams,
        files: &HashMap<String, File>,
    ) -> Option<CallToolResult> {
        if !self.on {
            return None;
        }
        let arguments = request.arguments.as_ref();
        let answer = match request.name.as_ref() {
            LIST_SKILLS_TOOL => self.list_skills_tool(arguments),
            LOAD_SKILL_TOOL => self.load_skill_tool(arguments),
            READ_SKILL_FILE_TOOL => self.read_skill_file_tool(arguments, files),
            _ => return None,
        };
        Some(answer.unwrap_or_else(|error| {
            CallToolResult::error(vec![ContentBlock::text(error.to_string())])
        }))
    }

    fn list_skills_tool(
        &self,
        arguments: Option<&JsonObject>,
    ) -> Result<CallToolResult, ToolError> {
        let arguments = Arguments::new(LIST_SKILLS_TOOL, arguments, &["cursor"])?;
        let cursor = arguments.optional("cursor")?;
        let (page, next) =
            page(&self.summaries, cursor, self.page_size).map_err(|_| ToolError::Cursor {
                cursor: shown(cursor.unwrap_or_default()),
            })?;
        let skills: Vec<Value> = page.into_iter().map(|(_, summary)| summary).collect();
        let mut value = json!({ "skills": skills });
        if let Some(next) = next {
            value["nextCursor"] = Value::String(next);
        }
        Ok(structured(Vec::new(), value))
    }

    fn load_skill_tool(&self, arguments: Option<&JsonObject>) -> Result<CallToolResult, ToolError> {
        let arguments = Arguments::new(LOAD_SKILL_TOOL, arguments, &["name"])?;
        let name = skill_name(arguments.required("name")?)?;
        self.loaded
            .get(name)
            .cloned()
            .ok_or_else(|| ToolError::UnknownSkill {
                name: name.to_owned(),
            })
    }

    fn read_skill_file_tool(
        &self,
        arguments: Option<&JsonObject>,
        files: &HashMap<String, File>,
    ) -> Result<CallToolResult, ToolError> {
        let arguments = Arguments::new(READ_SKILL_FILE_TOOL, arguments, &["name", "path"])?;
        let name = skill_name(arguments.required("name")?)?;
        let path = arguments.required("path")?;
        if path != SKILL_MD {
            validate_file_path(path).map_err(|problem| ToolError::InvalidPath {
                path: shown(path),
                problem,
            })?;
        }
        if !self.loaded.contains_key(name) {
            return Err(ToolError::UnknownSkill {
                name: name.to_owned(),
            });
        }
        let uri = format!("{}/{path}", root_uri(&self.prefix, name));
        let file = files.get(&uri).ok_or_else(|| ToolError::UnknownFile {
            name: name.to_owned(),
            path: path.to_owned(),
        })?;
        let content = match file.contents(&uri) {
            ResourceContents::TextResourceContents { text, .. } => ContentBlock::text(text),
            blob => ContentBlock::resource(blob),
        };
        let value = json!({
            "name": name,
            "path": path,
            "uri": uri,
            "mimeType": file.mime_type,
            "size": file.bytes.len(),
            "digest": file.digest,
        });
        Ok(structured(vec![content], value))
    }
}

/// A name checked by the core's name rule.
fn skill_name(name: &str) -> Result<&str, ToolError> {
    let problems = validate_name(name);
    if problems.is_empty() {
        return Ok(name);
    }
    // Each problem repeats the name; a name longer than any valid one is reported by length.
    let problems = if name.len() <= 4 * MAX_NAME_LENGTH {
        let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
        problems.join("; ")
    } else {
        format!(
            "it is {} characters long, over the limit of {MAX_NAME_LENGTH}",
            name.chars().count()
        )
    };
    Err(ToolError::InvalidName {
        name: shown(name),
        problems,
    })
}

/// The arguments of one call, checked against the ones the tool takes.
struct Arguments<'a> {
    tool: &'static str,
    map: Option<&'a JsonObject>,
}

impl<'a> Arguments<'a> {
    fn new(
        tool: &'static str,
        map: Option<&'a JsonObject>,
        accepted: &[&str],
    ) -> Result<Self, ToolError> {
        if let Some(unknown) = map
            .into_iter()
            .flat_map(JsonObject::keys)
            .find(|key| !accepted.contains(&key.as_str()))
        {
            return Err(ToolError::UnknownArgument {
                tool,
                argument: shown(unknown),
                accepted: accepted
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(" and "),
            });
        }
        Ok(Self { tool, map })
    }

    fn optional(&self, argument: &'static str) -> Result<Option<&'a str>, ToolError> {
        match self.map.and_then(|map| map.get(argument)) {
            None => Ok(None),
            Some(Value::String(value)) => Ok(Some(value)),
            Some(other) => Err(ToolError::NotAString {
                tool: self.tool,
                argument,
                found: json_type(other),
            }),
        }
    }

    fn required(&self, argument: &'static str) -> Result<&'a str, ToolError> {
        self.optional(argument)?.ok_or(ToolError::Missing {
            tool: self.tool,
            argument,
        })
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A caller's input as an error message repeats it: at most [`SHOWN_CHARACTERS`], then `…`.
fn shown(input: &str) -> String {
    match input.char_indices().nth(SHOWN_CHARACTERS) {
        Some((at, _)) => format!("{}…", &input[..at]),
        None => input.to_owned(),
    }
}

/// Why a tool call could not be answered; the text goes to the model as a tool error.
#[derive(Debug, thiserror::Error)]
enum ToolError {
    #[error("`{tool}` needs the argument `{argument}`, {}", what(argument))]
    Missing {
        tool: &'static str,
        argument: &'static str,
    },
    #[error(
        "The argument `{argument}` of `{tool}` must be a string, not {found}: {}",
        what(argument)
    )]
    NotAString {
        tool: &'static str,
        argument: &'static str,
        found: &'static str,
    },
    #[error("`{tool}` has no argument `{argument}`; it takes {accepted}")]
    UnknownArgument {
        tool: &'static str,
        argument: String,
        accepted: String,
    },
    #[error(
        "The skill name `{name}` is not valid: {problems}. Call `{LIST_SKILLS_TOOL}` for the names of the skills served here."
    )]
    InvalidName { name: String, problems: String },
    #[error(
        "The path `{path}` {problem}. Give a path that `{LOAD_SKILL_TOOL}` lists for the skill, such as `SKILL.md` or `references/guide.md`."
    )]
    InvalidPath { path: String, problem: PathProblem },
    #[error(
        "No skill named `{name}` is served here. Call `{LIST_SKILLS_TOOL}` for the names of the skills served here."
    )]
    UnknownSkill { name: String },
    #[error(
        "The skill `{name}` has no file `{path}`. Call `{LOAD_SKILL_TOOL}` with the name `{name}` for the list of its files."
    )]
    UnknownFile { name: String, path: String },
    #[error(
        "The cursor `{cursor}` was not handed out by `{LIST_SKILLS_TOOL}`; call it without a cursor to start from the first page."
    )]
    Cursor { cursor: String },
}

/// What an argument holds, for the messages that ask for it.
fn what(argument: &str) -> &'static str {
    match argument {
        "name" => "a skill's name as `list_skills` gives it, such as `pdf-processing`",
        "path" => {
            "a file's path in the skill as `load_skill` lists it, such as `references/guide.md`"
        }
        _ => "the cursor `nextCursor` of the previous page",
    }
}

/// The three tools, with their schemas and hints: read-only, idempotent, closed-world.
fn definitions() -> Vec<Tool> {
    let hints = |title: &str| {
        ToolAnnotations::with_title(title)
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    };
    let file = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "uri": {"type": "string"},
            "mimeType": {"type": "string"},
            "size": {"type": "integer", "minimum": 0},
            "digest": {"type": "string", "description": "sha256: and the SHA-256 of the file's bytes, in lowercase hex"},
        },
        "required": ["path", "uri", "mimeType", "size", "digest"],
    });
    let name = json!({
        "type": "string",
        "maxLength": MAX_NAME_LENGTH,
        "description": "The skill's name, as list_skills gives it, such as pdf-processing.",
    });
    vec![
        Tool::new(
            LIST_SKILLS_TOOL,
            "List the Agent Skills this server publishes: each skill's name, description (what \
             it does and when to use it) and SKILL.md URI, one page at a time. Pass nextCursor \
             back as cursor for the next page. Load a skill with load_skill.",
            Arc::new(rmcp::object!({
                "type": "object",
                "properties": {
                    "cursor": {"type": "string", "description": "nextCursor of the previous page; leave it out for the first page."},
                },
                "additionalProperties": false,
            })),
        )
        .with_raw_output_schema(Arc::new(rmcp::object!({
            "type": "object",
            "properties": {
                "skills": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "description": {"type": "string"},
                        "uri": {"type": "string"},
                    },
                    "required": ["name", "description", "uri"],
                }},
                "nextCursor": {"type": "string"},
            },
            "required": ["skills"],
        })))
        .annotate(hints("List skills")),
        Tool::new(
            LOAD_SKILL_TOOL,
            "Load an Agent Skill by name before a task it describes: returns its SKILL.md (the \
             instructions to follow) and the list of its files with path, uri, mimeType, size \
             and digest. Read a file the skill refers to with read_skill_file.",
            Arc::new(rmcp::object!({
                "type": "object",
                "properties": {"name": name},
                "required": ["name"],
                "additionalProperties": false,
            })),
        )
        .with_raw_output_schema(Arc::new(rmcp::object!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "description": {"type": "string"},
                "uri": {"type": "string"},
                "files": {"type": "array", "items": file},
            },
            "required": ["name", "description", "uri", "files"],
        })))
        .annotate(hints("Load a skill")),
        Tool::new(
            READ_SKILL_FILE_TOOL,
            "Read one file of an Agent Skill, such as a reference or a script that its SKILL.md \
             mentions: name is the skill's name, path the file's path as load_skill lists it. \
             Text comes back as text, other files as a base64 blob.",
            Arc::new(rmcp::object!({
                "type": "object",
                "properties": {
                    "name": name,
                    "path": {"type": "string", "description": "The file's path in the skill, as load_skill lists it, such as references/guide.md or SKILL.md."},
                },
                "required": ["name", "path"],
                "additionalProperties": false,
            })),
        )
        .with_raw_output_schema(Arc::new(rmcp::object!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "path": {"type": "string"},
                "uri": {"type": "string"},
                "mimeType": {"type": "string"},
                "size": {"type": "integer", "minimum": 0},
                "digest": {"type": "string"},
            },
            "required": ["name", "path", "uri", "mimeType", "size", "digest"],
        })))
        .annotate(hints("Read a skill file")),
    ]
}

#[cfg(test)]
mod tests {
    use super::{SHOWN_CHARACTERS, shown};

    #[test]
    fn long_input_is_cut_in_messages() {
        assert_eq!(shown("short"), "short");
        let long = "é".repeat(SHOWN_CHARACTERS * 10);
        let cut = shown(&long);
        assert_eq!(cut.chars().count(), SHOWN_CHARACTERS + 1);
        assert!(cut.ends_with('…'));
    }
}
