//! The typed fields read from a `SKILL.md`'s frontmatter; the `---` fences around it are found
//! by `fence.rs`, and the fields are checked by `validate.rs`.

use serde_json::{Map, Value};

/// The frontmatter of a valid `SKILL.md`: the typed fields, and the whole block as JSON.
///
/// # Example
///
/// ```
/// use skillpub_core::Catalog;
///
/// let catalog = Catalog::new([skillpub_core::Skill::from_static(
///     "---\nname: pdf\ndescription: >\n  Reads PDF files.\nmetadata:\n  version: \"1.0\"\n---\n",
/// )])?;
/// let frontmatter = catalog.get("pdf").unwrap().frontmatter();
/// assert_eq!(frontmatter.description(), "Reads PDF files.\n");
/// assert_eq!(frontmatter.metadata().collect::<Vec<_>>(), [("version", "1.0")]);
/// assert_eq!(frontmatter.json().keys().collect::<Vec<_>>(), ["name", "description", "metadata"]);
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Frontmatter {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) license: Option<String>,
    pub(crate) compatibility: Option<String>,
    pub(crate) allowed_tools: Option<String>,
    pub(crate) json: Map<String, Value>,
}

impl Frontmatter {
    /// `name`: the skill's identifier.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `description`: what the skill does and when to use it, exactly as parsed.
    #[must_use]
    pub fn description(&self) -> &str {
        &self.description
    }

    /// `license`, when present.
    #[must_use]
    pub fn license(&self) -> Option<&str> {
        self.license.as_deref()
    }

    /// `compatibility`, when present.
    #[must_use]
    pub fn compatibility(&self) -> Option<&str> {
        self.compatibility.as_deref()
    }

    /// `allowed-tools`, when present: a space-separated list, kept as written.
    #[must_use]
    pub fn allowed_tools(&self) -> Option<&str> {
        self.allowed_tools.as_deref()
    }

    /// `metadata` entries in source order.
    pub fn metadata(&self) -> impl Iterator<Item = (&str, &str)> {
        let map = match self.json.get("metadata") {
            Some(Value::Object(map)) => Some(map),
            _ => None,
        };
        map.into_iter()
            .flatten()
            .filter_map(|(key, value)| Some((key.as_str(), value.as_str()?)))
    }

    /// Every field as authored, in source order, as a JSON object.
    #[must_use]
    pub fn json(&self) -> &Map<String, Value> {
        &self.json
    }
}
