//! `skillpub lint PATH...`: the errors that keep a skill from publishing, then the authoring
//! advice, which does not.

use std::path::{Path, PathBuf};

use serde_json::json;
use skillpub_advice::{Advice, AdviceRule, advise};
use skillpub_core::{
    Error, SkillFile, SkillMdParser,
    folder::{SkillSource, SkillsFolder},
    paths::SKILL_MD,
    spec::Severity,
};

use crate::output::Format;

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
    /// Exit 1 when the authoring advice has a warning (infos never fail a run).
    #[arg(long)]
    deny_warnings: bool,
    /// Silence one rule of the authoring advice, by its code, such as `body.too-long`
    /// (repeatable).
    #[arg(long = "allow", value_name = "CODE")]
    allow: Vec<AdviceRule>,
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

/// One piece of advice on one skill's `SKILL.md`.
struct Note {
    file: String,
    skill: String,
    advice: Advice,
}

/// Lints every path, prints every problem and every piece of advice, and says whether the run
/// passed: no problem, and no warning under `--deny-warnings`.
pub(crate) fn run(args: &Args) -> bool {
    let mut problems: Vec<Problem> = Vec::new();
    let mut notes: Vec<Note> = Vec::new();
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
        for source in found.skills() {
            notes.extend(advice(source, args));
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
    let warnings = notes
        .iter()
        .filter(|note| note.advice.severity() == Severity::Warning)
        .count();
    let passed = problems.is_empty() && !(args.deny_warnings && warnings > 0);
    match args.format {
        Format::Text => {
            for problem in &problems {
                println!("{}", line(problem));
            }
            for note in &notes {
                let Note { file, advice, .. } = note;
                let (severity, code) = (advice.severity(), advice.code());
                println!("{file}: {severity}: {advice} [{code}]");
            }
            let infos = notes.len() - warnings;
            let summary = summary(skills, problems.len(), warnings, infos, args.deny_warnings);
            println!("{summary}");
        }
        Format::Json => {
            let problems: Vec<_> = problems
                .iter()
                .map(|p| json!({"file": p.file, "skill": p.skill, "field": p.field, "code": p.code, "severity": Severity::Error.label(), "message": p.message}))
                .collect();
            let advice: Vec<_> = notes
                .iter()
                .map(|Note { file, skill, advice }| json!({"file": file, "skill": skill, "line": advice.line(), "code": advice.code(), "severity": advice.severity().label(), "message": advice.message()}))
                .collect();
            println!(
                "{}",
                json!({"valid": problems.is_empty(), "passed": passed, "skills": skills, "problems": problems, "advice": advice, "skipped": skipped})
            );
        }
    }
    passed
}

/// The advice on one skill whose `SKILL.md` passes the rules, without the rules `--allow`
/// silences. A skill with errors gets its advice once they are fixed.
fn advice(source: &SkillSource, args: &Args) -> Vec<Note> {
    let skill = source.skill();
    let parser = SkillMdParser::new().allow_unknown_fields(args.allow_unknown_fields);
    let Ok(skill_md) = parser.parse(skill.skill_md().clone(), skill.folder()) else {
        return Vec::new();
    };
    let file = Path::new(skill.folder().unwrap_or_default())
        .join(SKILL_MD)
        .display()
        .to_string();
    advise(&skill_md, skill.files().iter().map(SkillFile::path))
        .into_iter()
        .filter(|advice| !args.allow.contains(&advice.rule()))
        .map(|advice| Note {
            file: file.clone(),
            skill: skill_md.name().to_owned(),
            advice,
        })
        .collect()
}

/// The last line: `ok: 3 skills valid`, with the advice counted, or the problems.
fn summary(
    skills: usize,
    problems: usize,
    warnings: usize,
    infos: usize,
    deny_warnings: bool,
) -> String {
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut advice = Vec::new();
    if warnings > 0 {
        advice.push(count(warnings, "warning", "warnings"));
    }
    if infos > 0 {
        advice.push(count(infos, "info", "infos"));
    }
    let advice = advice.join(" and ");
    if problems > 0 {
        let problems = count(problems, "problem", "problems");
        return if advice.is_empty() {
            problems
        } else {
            format!("{problems}, {advice}")
        };
    }
    let valid = format!("{} valid", count(skills, "skill", "skills"));
    match (advice.is_empty(), deny_warnings && warnings > 0) {
        (true, _) => format!("ok: {valid}"),
        (false, false) => format!("ok: {valid}, {advice}"),
        (false, true) => format!("{valid}, {advice}, denied by --deny-warnings"),
    }
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
