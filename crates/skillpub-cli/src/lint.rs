//! `skillpub lint PATH...`.

use std::path::{Path, PathBuf};

use serde_json::json;
use skillpub_core::{Error, SKILL_MD, SkillsFolder};

use crate::Format;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Skill folders, folders of skill folders, or SKILL.md files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// How to print the problems.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Accept top-level frontmatter fields that the Agent Skills specification does not
    /// define (by default they are errors, as in skills-ref).
    #[arg(long)]
    allow_unknown_fields: bool,
}

/// The code of the one problem that is lint's own, beside the core's kinds: a path with no
/// skill at all. It is in the core's table of codes with the others.
const NO_SKILL: &str = "path.no-skill";

/// One reported problem.
struct Problem {
    file: String,
    skill: Option<String>,
    field: Option<String>,
    code: &'static str,
    message: String,
}

impl From<&Error> for Problem {
    fn from(error: &Error) -> Self {
        Self {
            file: error.file().to_owned(),
            skill: Some(error.skill().to_owned()),
            field: error.field().map(str::to_owned),
            code: error.code(),
            message: error.kind().to_string(),
        }
    }
}

/// Lints every path, prints every problem, and says whether there were none.
pub(crate) fn run(args: &Args) -> bool {
    let mut problems: Vec<Problem> = Vec::new();
    let mut skills = 0;
    let mut skipped = Vec::new();
    for path in &args.paths {
        let folder = if path.file_name().is_some_and(|name| name == SKILL_MD) && path.is_file() {
            path.parent().unwrap_or(Path::new("."))
        } else {
            path.as_path()
        };
        let found = SkillsFolder::read(folder);
        problems.extend(found.errors().iter().map(Problem::from));
        skills += found.skills().len();
        skipped.extend(found.skipped().iter().map(|s| s.path.display().to_string()));
        let checked = found
            .builder()
            .allow_unknown_fields(args.allow_unknown_fields)
            .check();
        if let Err(errors) = checked {
            problems.extend(errors.as_slice().iter().map(Problem::from));
        }
        if found.skills().is_empty() && found.errors().is_empty() {
            problems.push(Problem {
                file: folder.display().to_string(),
                skill: None,
                field: None,
                code: NO_SKILL,
                message: "holds no skill; a skill folder holds a SKILL.md, a folder of skills holds skill folders"
                    .to_owned(),
            });
        }
    }
    match args.format {
        Format::Text => {
            for problem in &problems {
                println!("{}", line(problem));
            }
            if problems.is_empty() {
                println!(
                    "ok: {skills} skill{} valid",
                    if skills == 1 { "" } else { "s" }
                );
            } else {
                println!(
                    "{} problem{}",
                    problems.len(),
                    if problems.len() == 1 { "" } else { "s" }
                );
            }
        }
        Format::Json => {
            let list: Vec<_> = problems
                .iter()
                .map(|p| json!({"file": p.file, "skill": p.skill, "field": p.field, "code": p.code, "message": p.message}))
                .collect();
            println!(
                "{}",
                json!({"valid": problems.is_empty(), "skills": skills, "problems": list, "skipped": skipped})
            );
        }
    }
    problems.is_empty()
}

/// `path: field: message [code]`, or `path: message [code]` for a problem without a field.
fn line(problem: &Problem) -> String {
    let Problem {
        file,
        code,
        message,
        ..
    } = problem;
    match &problem.field {
        Some(field) => format!("{file}: {field}: {message} [{code}]"),
        None => format!("{file}: {message} [{code}]"),
    }
}
