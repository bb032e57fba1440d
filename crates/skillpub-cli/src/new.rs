//! `skillpub new NAME`: a skill folder to fill in, with valid frontmatter and the five
//! sections of the aiSiteReady guide.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::output::say;
use skillpub_advice::Section;
use skillpub_core::{paths::SKILL_MD, spec::validate_name};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The skill's name, also its folder's: 1 to 64 characters of a-z, 0-9 and -.
    name: String,
    /// The folder to create the skill folder in (default: the current folder).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// The description until the author writes one: `skillpub lint` flags it as a placeholder
/// (`description.vague`), and it names no other problem.
const PLACEHOLDER: &str = "TODO: say what this skill does and when to use it (\"Use when ...\").";

/// The `SKILL.md` of a new skill: the name, the placeholder description, a title made of the
/// name (`order-status`: "Order status") and each section with one line of guidance.
fn skill_md(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut title = words.chars();
    let title: String = title
        .next()
        .map(|first| first.to_ascii_uppercase())
        .into_iter()
        .chain(title)
        .collect();
    let mut text = format!("---\nname: {name}\ndescription: '{PLACEHOLDER}'\n---\n\n# {title}\n");
    for section in Section::ALL {
        text.push_str(&format!(
            "\n## {}\n\n{}\n",
            section.title(),
            section.guidance()
        ));
    }
    text
}

/// Creates `DIR/NAME/SKILL.md`, and says what it made and what to do next.
pub(crate) fn run(args: &Args) -> bool {
    let name = &args.name;
    let problems = validate_name(name);
    if !problems.is_empty() {
        for problem in problems {
            eprintln!("skillpub new: name `{name}`: {problem}");
        }
        return false;
    }
    let folder = match &args.dir {
        Some(dir) => dir.join(name),
        None => PathBuf::from(name),
    };
    match create(&folder, &skill_md(name)) {
        Ok(file) => {
            say!("created {}", file.display());
            say!(
                "next: replace the description and fill in the sections, then run `skillpub lint {}`",
                folder.display()
            );
            true
        }
        Err(message) => {
            eprintln!("skillpub new: {message}");
            false
        }
    }
}

/// Writes `folder/SKILL.md`, creating the folder; refuses a folder that is a file or has
/// anything in it, so nothing is ever overwritten.
fn create(folder: &Path, text: &str) -> Result<PathBuf, String> {
    let shown = folder.display();
    match fs::read_dir(folder) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(format!(
                    "{shown} already exists and is not empty; choose another name or --dir, or remove it"
                ));
            }
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(folder)
                .map_err(|error| format!("cannot create the folder {shown}: {error}"))?;
        }
        Err(error) if folder.exists() => {
            return Err(format!(
                "{shown} already exists and is not a folder ({error}); choose another name or --dir"
            ));
        }
        Err(error) => return Err(format!("cannot read {shown}: {error}")),
    }
    let file = folder.join(SKILL_MD);
    let mut out = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file)
        .map_err(|error| format!("cannot create {}: {error}", file.display()))?;
    out.write_all(text.as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use skillpub_advice::advise;
    use skillpub_core::SkillMd;

    use super::*;

    #[test]
    fn the_new_skill_is_valid_and_only_its_placeholder_gets_advice() {
        let skill_md =
            SkillMd::parse(skill_md("order-status"), Some("skills/order-status")).unwrap();
        assert_eq!(skill_md.frontmatter().description(), PLACEHOLDER);
        let codes: Vec<&str> = advise(&skill_md, [""; 0])
            .iter()
            .map(|advice| advice.code())
            .collect();
        assert_eq!(codes, ["description.vague"]);
    }

    #[test]
    fn every_section_is_a_heading_with_its_guidance() {
        let text = skill_md("order-status");
        for section in Section::ALL {
            let heading = format!("\n## {}\n\n{}\n", section.title(), section.guidance());
            assert!(text.contains(&heading), "{heading} in {text}");
        }
    }
}
