//! One `SKILL.md`, read and checked: the pipeline that the catalog, the build script (through
//! the catalog), the client and the linter all run, so that a file is judged the same
//! everywhere.

use bytes::Bytes;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Errors};
use crate::fence;
use crate::frontmatter::Frontmatter;
use crate::paths::SKILL_MD;
use crate::skill;
use crate::validate::{self, Problem};
use crate::yaml::{self, YamlError};

/// A `SKILL.md` that passed every rule: its exact bytes and its frontmatter.
///
/// [`SkillMd::parse`] runs the whole pipeline on one file: UTF-8, the `---` fences, the YAML,
/// then every field rule (see the crate docs' Rules). It checks nothing but the `SKILL.md`:
/// supporting files and their limits are a publisher's concern, checked by
/// [`CatalogBuilder`](crate::CatalogBuilder) with the rest of the skill, so a client that
/// fetched one file from a site can hold it to exactly the Agent Skills rules.
///
/// # Example
///
/// ```
/// use skillpub_core::{ErrorKind, SkillMd};
///
/// let skill_md = SkillMd::parse("---\nname: pdf\ndescription: Reads PDFs.\n---\n# Steps\n", Some("skills/pdf"))?;
/// assert_eq!(skill_md.frontmatter().description(), "Reads PDFs.");
///
/// let errors = SkillMd::parse("---\nname: pdf\ndescription: Reads PDFs.\n---\n", Some("skills/docx"))
///     .unwrap_err();
/// assert_eq!(errors.as_slice()[0].file(), "skills/docx/SKILL.md");
/// assert!(matches!(errors.as_slice()[0].kind(), ErrorKind::NameFolderMismatch { .. }));
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SkillMd {
    bytes: Bytes,
    frontmatter: Frontmatter,
}

impl SkillMd {
    /// Reads and checks one `SKILL.md` with the default rules ([`SkillMdParser::new`]).
    ///
    /// `folder` is the folder the file came from, such as `skills/pdf`: the skill's `name` must
    /// equal its last component, and errors name the file as `skills/pdf/SKILL.md`. Without a
    /// folder the name is not compared and errors name the file `SKILL.md`.
    ///
    /// # Errors
    ///
    /// Every problem of the file: one when it cannot be read as frontmatter at all (not UTF-8,
    /// no fences, YAML that is refused), else every field that breaks a rule.
    pub fn parse(bytes: impl Into<Bytes>, folder: Option<&str>) -> Result<Self, Errors> {
        SkillMdParser::new().parse(bytes, folder)
    }

    /// The exact bytes, as they will be served and hashed.
    #[must_use]
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The checked frontmatter.
    #[must_use]
    pub fn frontmatter(&self) -> &Frontmatter {
        &self.frontmatter
    }

    /// The frontmatter block as written: the YAML between the opening `---` line and the
    /// closing one, with its line endings.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::SkillMd;
    ///
    /// let skill_md = SkillMd::parse("---\nname: pdf\ndescription: Reads PDFs.\n---\n# Steps\n", None)?;
    /// assert_eq!(skill_md.yaml(), "name: pdf\ndescription: Reads PDFs.\n");
    /// assert_eq!(skill_md.body(), "# Steps\n");
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[must_use]
    pub fn yaml(&self) -> &str {
        self.parts().0
    }

    /// The body: everything after the closing `---` line, the instructions an agent reads.
    #[must_use]
    pub fn body(&self) -> &str {
        self.parts().1
    }

    /// The YAML block and the body, found again in the bytes. A `SkillMd` is UTF-8 with
    /// frontmatter, so they are always there; empty ones stand in should they not be.
    fn parts(&self) -> (&str, &str) {
        let text = std::str::from_utf8(&self.bytes).unwrap_or_default();
        fence::split(text).unwrap_or_default()
    }

    /// The skill's name, from the frontmatter.
    #[must_use]
    pub fn name(&self) -> &str {
        self.frontmatter.name()
    }

    /// The frontmatter, without the bytes.
    #[must_use]
    pub fn into_frontmatter(self) -> Frontmatter {
        self.frontmatter
    }
}

/// The rules a `SKILL.md` is read with, for [`SkillMd`]; every one is on by default, and
/// [`CatalogBuilder`](crate::CatalogBuilder) reads every skill through one of these.
///
/// # Example
///
/// ```
/// use skillpub_core::SkillMdParser;
///
/// let text = "---\nname: pdf\ndescription: Reads PDFs.\nx-team: docs\n---\n";
/// assert!(SkillMdParser::new().parse(text, None).is_err());
/// let skill_md = SkillMdParser::new().allow_unknown_fields(true).parse(text, None)?;
/// assert_eq!(skill_md.frontmatter().json()["x-team"], "docs");
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[must_use]
pub struct SkillMdParser {
    allow_unknown_fields: bool,
}

impl SkillMdParser {
    /// The rules of the Agent Skills specification and the discovery draft, all of them.
    pub const fn new() -> Self {
        Self {
            allow_unknown_fields: false,
        }
    }

    /// Accepts top-level frontmatter fields that the Agent Skills specification does not
    /// define (default: `false`, they are errors, as skills-ref has them). They are kept in
    /// [`Frontmatter::json`].
    pub const fn allow_unknown_fields(mut self, allow: bool) -> Self {
        self.allow_unknown_fields = allow;
        self
    }

    /// Reads and checks one `SKILL.md`; see [`SkillMd::parse`].
    ///
    /// # Errors
    ///
    /// Every problem of the file, as [`SkillMd::parse`] has them.
    pub fn parse(&self, bytes: impl Into<Bytes>, folder: Option<&str>) -> Result<SkillMd, Errors> {
        let folder_name = folder.and_then(skill::folder_name);
        let label = Label::new(
            skill::file_label(folder, SKILL_MD),
            folder_name.unwrap_or(NO_FOLDER),
        );
        self.read(bytes.into(), folder_name)
            .map_err(|problems| Errors::new(problems.into_errors(&label)))
    }

    /// The pipeline, unlabelled: UTF-8, the fences, the YAML, the fields. `folder_name` is
    /// what the `name` must equal, when known.
    pub(crate) fn read(
        &self,
        bytes: Bytes,
        folder_name: Option<&str>,
    ) -> Result<SkillMd, Problems> {
        let text = std::str::from_utf8(&bytes).map_err(|error| {
            Problems::whole(ErrorKind::NotUtf8 {
                valid_up_to: error.valid_up_to(),
            })
        })?;
        let block = fence::yaml_block(text).map_err(Problems::whole)?;
        let fields = fields(block).map_err(Problems::whole)?;
        self.check_fields(bytes, fields, folder_name)
    }

    /// The pipeline for a `SKILL.md` whose frontmatter was parsed from its YAML at build time
    /// (see [`Skill::with_parsed_frontmatter`](crate::Skill::with_parsed_frontmatter)): the
    /// fields are read from that JSON, then every field rule runs on them as on the YAML's.
    /// The caller has checked that `bytes` are the bytes the JSON was parsed from. JSON that is
    /// not an object is no such parse, so the YAML is read instead.
    pub(crate) fn read_parsed(
        &self,
        bytes: Bytes,
        json: &str,
        folder_name: Option<&str>,
    ) -> Result<SkillMd, Problems> {
        match serde_json::from_str::<Map<String, Value>>(json) {
            Ok(fields) => self.check_fields(bytes, fields, folder_name),
            Err(_) => self.read(bytes, folder_name),
        }
    }

    /// Every field rule, on the fields of a frontmatter.
    fn check_fields(
        &self,
        bytes: Bytes,
        fields: Map<String, Value>,
        folder_name: Option<&str>,
    ) -> Result<SkillMd, Problems> {
        let name = match fields.get("name") {
            Some(Value::String(name)) if !name.is_empty() => Some(name.clone()),
            _ => None,
        };
        let mut problems = if self.allow_unknown_fields {
            Vec::new()
        } else {
            validate::unknown_fields(&fields)
        };
        match validate::frontmatter(fields, folder_name) {
            Ok(frontmatter) if problems.is_empty() => Ok(SkillMd { bytes, frontmatter }),
            Ok(_) => Err(Problems { name, problems }),
            Err(mut more) => {
                problems.append(&mut more);
                Err(Problems { name, problems })
            }
        }
    }
}

/// How errors name a skill without a folder, when its `name` cannot be read either.
pub(crate) const NO_FOLDER: &str = "(no folder given)";

/// The top-level mapping of a frontmatter block, or why there is none. Positions are made
/// relative to the `SKILL.md`: the block starts on the line after the opening `---`.
fn fields(block: &str) -> Result<Map<String, Value>, ErrorKind> {
    match yaml::to_json(block) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(other) => Err(ErrorKind::NotAMapping {
            found: validate::describe(&other),
        }),
        Err(YamlError::Refused {
            line,
            column,
            message,
        }) => Err(ErrorKind::Yaml {
            line: line + 1,
            column,
            message,
        }),
        Err(YamlError::DocumentMarker { line, text }) => Err(ErrorKind::FrontmatterFence {
            line: line + 1,
            text,
        }),
    }
}

/// How the problems of one `SKILL.md` name their file, and their skill when its `name`
/// cannot be read.
#[derive(Debug)]
pub(crate) struct Label {
    pub(crate) file: String,
    pub(crate) skill: String,
}

impl Label {
    pub(crate) fn new(file: String, skill: &str) -> Self {
        Self {
            file,
            skill: skill.to_owned(),
        }
    }
}

/// The problems of one `SKILL.md` before they are labelled, with its `name` when it could be
/// read, which names the skill in every error.
#[derive(Debug)]
pub(crate) struct Problems {
    pub(crate) name: Option<String>,
    pub(crate) problems: Vec<Problem>,
}

impl Problems {
    /// One problem with the file as a whole.
    fn whole(kind: ErrorKind) -> Self {
        Self {
            name: None,
            problems: vec![(None, kind)],
        }
    }

    pub(crate) fn into_errors(self, label: &Label) -> Vec<Error> {
        let skill = self.name.as_deref().unwrap_or(&label.skill);
        self.problems
            .into_iter()
            .map(|(field, kind)| Error::new(skill, &label.file, field.as_deref(), kind))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_names_the_file_and_the_skill_until_the_name_is_read() {
        let errors = SkillMd::parse("no fence", Some("skills/notes")).unwrap_err();
        let error = &errors.as_slice()[0];
        assert_eq!(
            (error.file(), error.skill()),
            ("skills/notes/SKILL.md", "notes")
        );

        let errors = SkillMd::parse("---\nname: Notes\ndescription: d\n---\n", None).unwrap_err();
        let error = &errors.as_slice()[0];
        assert_eq!((error.file(), error.skill()), ("SKILL.md", "Notes"));

        let errors = SkillMd::parse("---\n- a list\n---\n", None).unwrap_err();
        assert_eq!(errors.as_slice()[0].skill(), NO_FOLDER);
    }

    #[test]
    fn the_bytes_are_kept_exactly() {
        let text = "\u{feff}---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n";
        let skill_md = SkillMd::parse(text, None).unwrap();
        assert_eq!(skill_md.bytes().as_ref(), text.as_bytes());
        assert_eq!(skill_md.name(), "a");
    }

    #[test]
    fn unknown_fields_come_first_and_every_rule_still_runs_when_they_are_allowed() {
        let text = "---\nname: A\ndescription: d\nx-team: docs\n---\n";
        let strict = SkillMd::parse(text, None).unwrap_err();
        let fields: Vec<Option<&str>> = strict.as_slice().iter().map(Error::field).collect();
        assert_eq!(fields, [Some("x-team"), Some("name")]);
        let lenient = SkillMdParser::new()
            .allow_unknown_fields(true)
            .parse(text, None)
            .unwrap_err();
        assert!(matches!(
            lenient.as_slice(),
            [error] if matches!(error.kind(), ErrorKind::NameUppercase { .. })
        ));
    }
}
