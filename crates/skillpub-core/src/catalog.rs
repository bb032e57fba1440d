//! The catalog: every skill validated, hashed and indexed once, then shared read-only.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;

use crate::digest::Digest;
use crate::error::{Error, ErrorKind, Errors};
use crate::frontmatter::{self, Frontmatter};
use crate::index::{self, TYPE_SKILL_MD, UrlStyle};
use crate::skill::Skill;
use crate::validate::{self, Rules};
use crate::yaml;

/// Bytes that are served as they are, with the digest of exactly those bytes.
///
/// # Example
///
/// ```
/// let catalog = skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())?;
/// let index = catalog.index();
/// assert_eq!(index.digest(), skillpub_core::Digest::of(index.bytes()));
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    bytes: Bytes,
    digest: Digest,
}

impl Artifact {
    fn new(bytes: Bytes) -> Self {
        let digest = Digest::of(&bytes);
        Self { bytes, digest }
    }

    /// The bytes to serve.
    #[must_use]
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The SHA-256 of [`bytes`](Self::bytes).
    #[must_use]
    pub fn digest(&self) -> Digest {
        self.digest
    }

    /// The length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are no bytes.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// A validated skill in a catalog.
#[derive(Debug, Clone)]
pub struct PublishedSkill {
    frontmatter: Frontmatter,
    skill_md: Artifact,
    url: String,
    path: String,
    /// How errors refer to the `SKILL.md` this came from.
    file: String,
}

impl PublishedSkill {
    /// The skill's name.
    #[must_use]
    pub fn name(&self) -> &str {
        self.frontmatter.name()
    }

    /// The parsed frontmatter.
    #[must_use]
    pub fn frontmatter(&self) -> &Frontmatter {
        &self.frontmatter
    }

    /// The `SKILL.md` as served.
    #[must_use]
    pub fn skill_md(&self) -> &Artifact {
        &self.skill_md
    }

    /// The `url` the index gives for this skill.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The path the `SKILL.md` is served at: `/.well-known/agent-skills/{name}/SKILL.md`.
    #[must_use]
    pub fn skill_md_path(&self) -> &str {
        &self.path
    }
}

/// Every skill of a site, validated, hashed and indexed once at start-up.
///
/// Building a catalog parses each `SKILL.md`, checks it against the Agent Skills
/// specification and the discovery draft, and reports every problem of every skill at once.
/// A catalog that builds is immutable: it holds the bytes it serves, their digests and the
/// rendered index, and cloning it only bumps a reference count.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, Skill};
///
/// let catalog = Catalog::new([Skill::from_static_in(
///     "skills/greeting",
///     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
/// )])?;
/// let index: serde_json::Value = serde_json::from_slice(catalog.index().bytes()).unwrap();
/// assert_eq!(index["skills"][0]["url"], "/.well-known/agent-skills/greeting/SKILL.md");
/// assert_eq!(
///     index["skills"][0]["digest"],
///     catalog.get("greeting").unwrap().skill_md().digest().to_string(),
/// );
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone)]
pub struct Catalog(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    skills: Vec<PublishedSkill>,
    index: Artifact,
}

impl Catalog {
    /// Builds a catalog from skills with the default options.
    ///
    /// # Errors
    ///
    /// Every problem of every skill, and every name used twice.
    pub fn new<I>(skills: I) -> Result<Self, Errors>
    where
        I: IntoIterator,
        I::Item: Into<Skill>,
    {
        let mut builder = CatalogBuilder::new();
        builder.skills(skills);
        builder.build()
    }

    /// A builder for a catalog with options.
    #[must_use]
    pub fn builder() -> CatalogBuilder {
        CatalogBuilder::new()
    }

    /// The skills, sorted by name.
    #[must_use]
    pub fn skills(&self) -> &[PublishedSkill] {
        &self.0.skills
    }

    /// The skill with this exact name.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&PublishedSkill> {
        let skills = &self.0.skills;
        skills
            .binary_search_by(|skill| skill.name().cmp(name))
            .ok()
            .map(|at| &skills[at])
    }

    /// The rendered `index.json`.
    #[must_use]
    pub fn index(&self) -> &Artifact {
        &self.0.index
    }
}

/// Options for a [`Catalog`].
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, Skill, UrlStyle};
///
/// let catalog = Catalog::builder()
///     .skill(Skill::from_static("---\nname: a\ndescription: Does a.\nx-owner: me\n---\n"))
///     .url_style(UrlStyle::Relative)
///     .allow_unknown_fields(true)
///     .build()?;
/// assert_eq!(catalog.get("a").unwrap().url(), "a/SKILL.md");
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CatalogBuilder {
    skills: Vec<Skill>,
    url_style: UrlStyle,
    rules: Rules,
}

impl CatalogBuilder {
    /// An empty builder: path-absolute URLs, unknown frontmatter fields refused.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one skill.
    pub fn skill(&mut self, skill: impl Into<Skill>) -> &mut Self {
        self.skills.push(skill.into());
        self
    }

    /// Adds skills.
    pub fn skills<I>(&mut self, skills: I) -> &mut Self
    where
        I: IntoIterator,
        I::Item: Into<Skill>,
    {
        self.skills.extend(skills.into_iter().map(Into::into));
        self
    }

    /// How the index writes `url` (default: [`UrlStyle::PathAbsolute`]).
    pub fn url_style(&mut self, style: UrlStyle) -> &mut Self {
        self.url_style = style;
        self
    }

    /// Accepts top-level frontmatter fields that the Agent Skills specification does not
    /// define (default: `false`, they are errors, as skills-ref has them). They are kept in
    /// [`Frontmatter::json`].
    pub fn allow_unknown_fields(&mut self, allow: bool) -> &mut Self {
        self.rules.allow_unknown_fields = allow;
        self
    }

    /// Validates every skill, hashes every artifact and renders the index.
    ///
    /// # Errors
    ///
    /// Every problem of every skill, in the order the skills were added, then every name used
    /// twice.
    pub fn build(&self) -> Result<Catalog, Errors> {
        let mut errors = Vec::new();
        let mut skills = Vec::with_capacity(self.skills.len());
        for skill in &self.skills {
            match self.publish(skill) {
                Ok(published) => skills.push(published),
                Err(mut problems) => errors.append(&mut problems),
            }
        }
        skills.sort_by(|a, b| a.name().cmp(b.name()));
        for pair in skills.windows(2) {
            if pair[0].name() == pair[1].name() {
                let name = pair[1].name();
                errors.push(Error::new(
                    name,
                    &pair[1].file,
                    Some("name"),
                    ErrorKind::DuplicateName {
                        name: name.to_owned(),
                    },
                ));
            }
        }
        if !errors.is_empty() {
            return Err(Errors::new(errors));
        }
        let entries: Vec<index::Entry<'_>> = skills
            .iter()
            .map(|skill| index::Entry {
                name: skill.name(),
                kind: TYPE_SKILL_MD,
                description: skill.frontmatter.description(),
                url: &skill.url,
                digest: skill.skill_md.digest().to_string(),
            })
            .collect();
        let index = Artifact::new(Bytes::from(index::render(&entries)));
        Ok(Catalog(Arc::new(Inner { skills, index })))
    }

    fn publish(&self, skill: &Skill) -> Result<PublishedSkill, Vec<Error>> {
        let file = skill.file_label();
        let label = skill.folder_name().unwrap_or("(unnamed)");
        let fail = |name: &str, problems: Vec<(Option<String>, ErrorKind)>| {
            problems
                .into_iter()
                .map(|(field, kind)| Error::new(name, &file, field.as_deref(), kind))
                .collect::<Vec<_>>()
        };
        let text = std::str::from_utf8(skill.skill_md()).map_err(|error| {
            let kind = ErrorKind::NotUtf8 {
                valid_up_to: error.valid_up_to(),
            };
            fail(label, vec![(None, kind)])
        })?;
        let block =
            frontmatter::yaml_block(text).map_err(|kind| fail(label, vec![(None, kind)]))?;
        let json = match yaml::to_json(block) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                let found = validate::describe(&other);
                return Err(fail(label, vec![(None, ErrorKind::NotAMapping { found })]));
            }
            Err(message) => return Err(fail(label, vec![(None, ErrorKind::Yaml { message })])),
        };
        let name = match json.get("name") {
            Some(Value::String(name)) if !name.is_empty() => name.clone(),
            _ => label.to_owned(),
        };
        let frontmatter = validate::frontmatter(json, skill.folder_name(), self.rules)
            .map_err(|problems| fail(&name, problems))?;
        let url = self.url_style.skill_md_url(frontmatter.name());
        let path = index::skill_md_path(frontmatter.name());
        Ok(PublishedSkill {
            frontmatter,
            skill_md: Artifact::new(skill.skill_md().clone()),
            url,
            path,
            file,
        })
    }
}
