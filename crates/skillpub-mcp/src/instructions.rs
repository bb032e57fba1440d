//! The server's `instructions`: how to reach the skills with the surfaces that are on and,
//! when asked for, a summary of the catalog (every skill's name and description) bounded in
//! size, so that a model in a host without the skills extension knows which skills exist and
//! when to load one.

use rmcp::model::Skill;

use crate::options::Surfaces;
use crate::served::root_uri;
use crate::tools::LIST_SKILLS_TOOL;

/// The most bytes (UTF-8) of `instructions` with a catalog summary: 16 KiB, the cap that
/// frontmcp puts on its own summary. Hosts put the instructions into the model's context on
/// every turn, so a large catalog is summarized up to this bound and the rest is named by
/// count, with the way to list it.
pub const INSTRUCTIONS_LIMIT: usize = 16 * 1024;

/// The instructions without any other surface: the extension's two calls.
const EXTENSION_ONLY: &str =
    "Agent Skills: call skills/list, then resources/read on a skill's SKILL.md.";

/// Renders the instructions for these skills (in `skills/list` order).
pub(crate) fn render(skills: &[Skill], surfaces: Surfaces, prefix: &str) -> String {
    if !(surfaces.prompts || surfaces.tools || surfaces.instructions) {
        return EXTENSION_ONLY.to_owned();
    }
    let mut text = introduction(surfaces, prefix);
    if !surfaces.instructions {
        return text;
    }
    text.push_str("\n\nSkills (name: description):\n");
    let lines: Vec<String> = skills
        .iter()
        .map(|skill| {
            let description = skill.frontmatter.description.split_whitespace();
            format!(
                "- {}: {}\n",
                skill.frontmatter.name,
                description.collect::<Vec<_>>().join(" ")
            )
        })
        .collect();
    let whole: usize = lines.iter().map(String::len).sum();
    if text.len() + whole <= INSTRUCTIONS_LIMIT {
        text.extend(lines);
        return text;
    }
    // Whole lines, in order, as long as they and the note on the rest fit.
    let mut shown = 0;
    let mut used = text.len();
    while let Some(line) = lines.get(shown) {
        let note = left_out(lines.len() - shown - 1, surfaces);
        if used + line.len() + note.len() > INSTRUCTIONS_LIMIT {
            break;
        }
        used += line.len();
        shown += 1;
    }
    text.extend(lines.into_iter().take(shown));
    text.push_str(&left_out(skills.len() - shown, surfaces));
    text
}

/// What the skills are and how to load one, naming only the surfaces that are on.
fn introduction(surfaces: Surfaces, prefix: &str) -> String {
    let mut text = String::from(
        "This server publishes Agent Skills: instructions for specific tasks, with supporting \
         files. When a task matches a skill's description, load that skill first and follow it.",
    );
    if surfaces.tools {
        text.push_str(
            " To load one, call the tool `load_skill` with the skill's name; it returns the \
             skill's SKILL.md and the list of its files, and `read_skill_file` reads a file the \
             skill refers to.",
        );
    }
    if surfaces.prompts {
        text.push_str(" Each skill is also a prompt of the same name.");
    }
    let root = root_uri(prefix, "<name>");
    text.push_str(&format!(
        " Every file of a skill is also the resource {root}/<path>, its instructions \
         {root}/SKILL.md; hosts with the skills extension list the skills with skills/list."
    ));
    text
}

/// The note that ends a cut summary: how many skills were left out, and how to list them.
fn left_out(count: usize, surfaces: Surfaces) -> String {
    if count == 0 {
        return String::new();
    }
    let skills = if count == 1 {
        "1 more skill is".to_owned()
    } else {
        format!("{count} more skills are")
    };
    let how = if surfaces.tools {
        format!("call the tool `{LIST_SKILLS_TOOL}` to list every skill")
    } else if surfaces.prompts {
        "prompts/list lists every skill".to_owned()
    } else {
        "skills/list lists every skill".to_owned()
    };
    format!(
        "({skills} not listed here, to keep this summary within {INSTRUCTIONS_LIMIT} bytes; {how}.)\n"
    )
}

#[cfg(test)]
mod tests {
    use rmcp::model::{Skill, SkillFrontmatter, SkillResources};

    use super::{INSTRUCTIONS_LIMIT, render};
    use crate::options::Surfaces;

    fn skills(count: usize, description: &str) -> Vec<Skill> {
        (0..count)
            .map(|at| {
                let name = format!("skill-{at:04}");
                Skill::new(
                    format!("skill://{name}/SKILL.md"),
                    SkillFrontmatter::new(name, description),
                    SkillResources::Files(Vec::new()),
                )
            })
            .collect()
    }

    const SUMMARY: Surfaces = Surfaces {
        prompts: false,
        tools: false,
        instructions: true,
    };

    #[test]
    fn a_description_over_several_lines_becomes_one_line() {
        let text = render(&skills(1, "Does a.\n  Use when b.\t"), SUMMARY, "");
        assert!(
            text.ends_with("\n- skill-0000: Does a. Use when b.\n"),
            "{text}"
        );
    }

    #[test]
    fn a_summary_that_fits_has_no_note() {
        let text = render(&skills(3, "Does a."), SUMMARY, "");
        assert!(!text.contains("not listed here"), "{text}");
        assert_eq!(text.matches("\n- skill-").count(), 3);
    }

    #[test]
    fn a_summary_stops_at_a_whole_line_within_the_limit_and_counts_the_rest() {
        let all = skills(400, &"x".repeat(100));
        let text = render(&all, SUMMARY, "");
        assert!(text.len() <= INSTRUCTIONS_LIMIT, "{}", text.len());
        let shown = text.matches("\n- skill-").count();
        assert!(shown > 100 && shown < 400, "{shown}");
        assert!(
            text.ends_with(&format!(
                "\n({} more skills are not listed here, to keep this summary within 16384 bytes; skills/list lists every skill.)\n",
                400 - shown
            )),
            "{}",
            &text[text.len() - 300..]
        );
        // One more line would not have fitted.
        let next = format!("- skill-{shown:04}: {}\n", "x".repeat(100));
        assert!(text.len() + next.len() > INSTRUCTIONS_LIMIT);
    }

    #[test]
    fn the_note_says_how_to_list_with_the_surfaces_that_are_on() {
        let all = skills(400, &"x".repeat(100));
        let tools = Surfaces {
            tools: true,
            ..SUMMARY
        };
        assert!(
            render(&all, tools, "").contains("; call the tool `list_skills` to list every skill.)")
        );
        let prompts = Surfaces {
            prompts: true,
            ..SUMMARY
        };
        assert!(render(&all, prompts, "").contains("; prompts/list lists every skill.)"));
    }

    #[test]
    fn one_skill_left_out_is_singular() {
        // Lines longer than the note, and a line length where the first cut leaves one out.
        let one_left = (250..350).find_map(|length| {
            let description = "x".repeat(length);
            let first_cut = (40..80)
                .map(|count| render(&skills(count, &description), SUMMARY, ""))
                .find(|text| text.contains("not listed here"))?;
            first_cut
                .contains("(1 more skill is not listed here")
                .then_some(first_cut)
        });
        assert!(one_left.is_some());
    }

    #[test]
    fn the_introduction_names_only_the_surfaces_that_are_on() {
        let none = render(&skills(1, "Does a."), Surfaces::default(), "");
        assert_eq!(
            none,
            "Agent Skills: call skills/list, then resources/read on a skill's SKILL.md."
        );
        let summary = render(&skills(1, "Does a."), SUMMARY, "acme");
        assert!(!summary.contains("load_skill") && !summary.contains("prompt"));
        assert!(summary.contains("the resource skill://acme/<name>/<path>, its instructions skill://acme/<name>/SKILL.md;"));
        let tools = Surfaces {
            tools: true,
            ..Surfaces::default()
        };
        let tools = render(&skills(1, "Does a."), tools, "");
        assert!(tools.contains("`load_skill`") && !tools.contains("Skills (name"));
    }
}
