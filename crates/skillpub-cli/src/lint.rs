//! `skillpub lint PATH...`: the errors that keep a skill from publishing, then the authoring
//! advice, which does not.

mod hidden;

use std::path::{Path, PathBuf};

use serde_json::json;
use skillpub_advice::{Advice, AdviceRule, FileText, advise};
use skillpub_core::{
    Error, ErrorKind, SkillMdParser,
    folder::{SkillSource, SkillsFolder, Skipped},
    paths::SKILL_MD,
    security::{SECRET_CODE, allowed_by_metadata, find_secrets},
    spec::Severity,
};

use crate::output::{Format, say};

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
    line: Option<u64>,
    code: &'static str,
    message: String,
}

impl From<&Error> for Problem {
    fn from(error: &Error) -> Self {
        Self {
            file: error.file().to_owned(),
            skill: Some(error.skill().to_owned()),
            field: error.field().map(str::to_owned),
            line: error.line(),
            code: error.code(),
            message: error.kind().to_string(),
        }
    }
}

/// One piece of advice on one file of a skill.
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
    // Paths on every core when there are several (a list of skill folders, as a script
    // gives), the skills of the one path on every core otherwise.
    let threads = if args.paths.len() > 1 { cores() } else { 1 };
    let inner = if threads > 1 { 1 } else { cores() };
    for found in ordered_map(&args.paths, 1, threads, |path| lint_path(path, args, inner)) {
        problems.extend(found.problems);
        notes.extend(found.notes);
        skills += found.skills;
        skipped.extend(found.skipped);
    }
    let warnings = notes
        .iter()
        .filter(|note| note.advice.severity() == Severity::Warning)
        .count();
    let passed = problems.is_empty() && !(args.deny_warnings && warnings > 0);
    match args.format {
        Format::Text => {
            for problem in &problems {
                say!("{}", line(problem));
            }
            for note in &notes {
                let Note { file, advice, .. } = note;
                let (severity, code) = (advice.severity(), advice.code());
                say!("{file}: {severity}: {advice} [{code}]");
            }
            let infos = notes.len() - warnings;
            let summary = summary(skills, problems.len(), warnings, infos, args.deny_warnings);
            say!("{summary}");
        }
        Format::Json => {
            let problems: Vec<_> = problems
                .iter()
                .map(|p| json!({"file": p.file, "skill": p.skill, "field": p.field, "line": p.line, "code": p.code, "severity": Severity::Error.label(), "message": p.message}))
                .collect();
            let advice: Vec<_> = notes
                .iter()
                .map(|Note { file, skill, advice }| json!({"file": file, "skill": skill, "line": advice.line(), "code": advice.code(), "severity": advice.severity().label(), "message": advice.message()}))
                .collect();
            say!(
                "{}",
                json!({"valid": problems.is_empty(), "passed": passed, "skills": skills, "problems": problems, "advice": advice, "skipped": skipped})
            );
        }
    }
    passed
}

/// What lint finds under one path.
struct Found {
    problems: Vec<Problem>,
    notes: Vec<Note>,
    skills: usize,
    skipped: Vec<String>,
}

/// The problems and the advice of the skills under one path, the advice on up to `threads`
/// threads.
fn lint_path(path: &Path, args: &Args, threads: usize) -> Found {
    let folder = if path.file_name().is_some_and(|name| name == SKILL_MD) && path.is_file() {
        path.parent().unwrap_or(Path::new("."))
    } else {
        path
    };
    let found = SkillsFolder::read(folder);
    let mut problems: Vec<Problem> = found.errors().iter().map(Problem::from).collect();
    let skipped = found.skipped().iter().map(|s| s.path.display().to_string());
    let checked = found
        .builder()
        .allow_unknown_fields(args.allow_unknown_fields)
        .check();
    if let Err(errors) = checked {
        problems.extend(errors.as_slice().iter().map(Problem::from));
    }
    let reviewed = ordered_map(found.skills(), SKILLS_PER_THREAD, threads, |source| {
        advice(source, found.skipped(), args)
    });
    let mut notes = Vec::new();
    for (advice, hidden_problems) in reviewed {
        notes.push(advice);
        problems.extend(hidden_problems);
    }
    if found.skills().is_empty() && found.errors().is_empty() {
        problems.push(Problem {
            file: folder.display().to_string(),
            skill: None,
            field: None,
            line: None,
            code: NO_SKILL,
            message: "holds no skill; a skill folder holds a SKILL.md, a folder of skills holds skill folders"
                .to_owned(),
        });
    }
    Found {
        problems,
        notes: notes.into_iter().flatten().collect(),
        skills: found.skills().len(),
        skipped: skipped.collect(),
    }
}

/// The cores the process may run on.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// `work` on every item, in their order, on up to `threads` threads, each taking the next
/// item when done with one; fewer than `per_thread` items a thread stay on the calling one.
/// The security review reads every byte of every text file, which on a thousand skills is
/// most of what lint does.
fn ordered_map<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = (items.len() / per_thread.max(1)).clamp(1, threads.max(1));
    if threads == 1 {
        return items.iter().map(work).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let drain = || {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(at) else {
                return done;
            };
            done.push((at, work(item)));
        }
    };
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(drain)).collect();
        let mut done = drain();
        for helper in helpers {
            match helper.join() {
                Ok(more) => done.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        done
    });
    done.sort_unstable_by_key(|(at, _)| *at);
    done.into_iter().map(|(_, result)| result).collect()
}

/// How many skills a thread of the advice takes at least: about a millisecond of advice on
/// skills of a few kilobytes, against tens of microseconds to start a thread.
const SKILLS_PER_THREAD: usize = 16;

/// The advice on one skill whose `SKILL.md` passes the rules, without the rules `--allow`
/// silences, and the credentials in its hidden files ([`hidden`]), which are reviewed with
/// its published files though they are not published. A skill with errors gets its advice
/// once they are fixed.
fn advice(source: &SkillSource, skipped: &[Skipped], args: &Args) -> (Vec<Note>, Vec<Problem>) {
    let skill = source.skill();
    let parser = SkillMdParser::new().allow_unknown_fields(args.allow_unknown_fields);
    let Ok(skill_md) = parser.parse(skill.skill_md().clone(), skill.folder()) else {
        return (Vec::new(), Vec::new());
    };
    let folder = Path::new(skill.folder().unwrap_or_default());
    let on_disk = source.skill_md_source().parent().unwrap_or(Path::new("."));
    let hidden = hidden::hidden_files(on_disk, skipped);
    let files = skill.files().iter().map(FileText::from).chain(
        hidden
            .iter()
            .map(|(path, bytes)| FileText::new(path, bytes)),
    );
    let notes = advise(&skill_md, files)
        .into_iter()
        .filter(|advice| !args.allow.contains(&advice.rule()))
        .map(|advice| Note {
            file: folder.join(advice.file()).display().to_string(),
            skill: skill_md.name().to_owned(),
            advice,
        })
        .collect();
    let mut problems = Vec::new();
    if !allowed_by_metadata(skill_md.frontmatter(), SECRET_CODE) {
        for (path, bytes) in &hidden {
            for secret in find_secrets(bytes) {
                problems.push(Problem {
                    file: folder.join(path).display().to_string(),
                    skill: Some(skill_md.name().to_owned()),
                    field: None,
                    line: Some(secret.line()),
                    code: SECRET_CODE,
                    message: format!(
                        "{} (a hidden file: it is not published, but it sits in the skill folder, which agents and packagers copy whole)",
                        ErrorKind::from(secret)
                    ),
                });
            }
        }
    }
    (notes, problems)
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

#[cfg(test)]
mod tests {
    use super::ordered_map;

    #[test]
    fn the_parallel_map_keeps_the_order_of_the_items() {
        let items: Vec<u64> = (0..300).collect();
        let squares: Vec<u64> = items.iter().map(|n| n * n).collect();
        for (per_thread, threads) in [(1, 1), (1, 2), (16, 2), (1, 7), (1_000, 4)] {
            let mapped = ordered_map(&items, per_thread, threads, |n| n * n);
            assert_eq!(mapped, squares, "{per_thread} a thread, {threads} threads");
        }
        assert_eq!(ordered_map(&[] as &[u64], 1, 4, |n| *n), Vec::<u64>::new());
    }
}
