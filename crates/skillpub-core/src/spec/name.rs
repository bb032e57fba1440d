//! The name rule of the discovery draft, and the control characters that every text field
//! refuses.
//!
//! Names follow the discovery draft's ASCII rule, which is stricter than skills-ref (that
//! accepts Unicode letters): a name that passes here passes everywhere.

use crate::error::ErrorKind;
use crate::spec::limits::MAX_NAME_LENGTH;

/// Checks a skill name against the discovery draft: 1 to 64 characters of ASCII `a-z`, `0-9`
/// and `-`, with no leading, trailing or double hyphen. Returns every problem, or none.
///
/// # Example
///
/// ```
/// use skillpub_core::{ErrorKind, spec::validate_name};
///
/// assert!(validate_name("pdf-processing").is_empty());
/// let problems = validate_name("-PDF--tools");
/// assert_eq!(problems.len(), 3);
/// assert!(matches!(problems[0], ErrorKind::NameUppercase { .. }));
/// ```
#[must_use]
pub fn validate_name(name: &str) -> Vec<ErrorKind> {
    let mut problems = Vec::new();
    if name.is_empty() {
        problems.push(ErrorKind::NameEmpty);
        return problems;
    }
    let length = name.chars().count();
    if length > MAX_NAME_LENGTH {
        problems.push(ErrorKind::NameTooLong {
            name: name.to_owned(),
            length,
        });
    }
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        problems.push(ErrorKind::NameUppercase {
            name: name.to_owned(),
            suggestion: suggest_name(name),
        });
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push(ErrorKind::NameHyphenAtEdge {
            name: name.to_owned(),
        });
    }
    if name.contains("--") {
        problems.push(ErrorKind::NameConsecutiveHyphens {
            name: name.to_owned(),
        });
    }
    problems.extend(check_control(name));
    let mut invalid: Vec<char> = Vec::new();
    for c in name.chars() {
        let allowed = c.is_ascii_alphanumeric() || c == '-' || is_refused_control(c);
        if !allowed && !invalid.contains(&c) {
            invalid.push(c);
        }
    }
    if !invalid.is_empty() {
        let quoted: Vec<String> = invalid.iter().map(|c| format!("{c:?}")).collect();
        problems.push(ErrorKind::NameInvalidCharacters {
            name: name.to_owned(),
            characters: quoted.join(", "),
            suggestion: suggest_name(name),
        });
    }
    problems
}

/// A valid name close to `name`, or `None` when nothing of it is left: ASCII letters in
/// lowercase, every run of other characters (`_`, spaces, dots, hyphens, non-ASCII letters)
/// turned into one hyphen, no hyphen at either end, at most 64 characters.
fn suggest_name(name: &str) -> Option<String> {
    let mut suggestion = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            suggestion.push(c.to_ascii_lowercase());
        } else if !suggestion.is_empty() && !suggestion.ends_with('-') {
            suggestion.push('-');
        }
    }
    // Only ASCII was pushed, so bytes are characters.
    suggestion.truncate(MAX_NAME_LENGTH);
    let suggestion = suggestion.trim_end_matches('-');
    (!suggestion.is_empty()).then(|| suggestion.to_owned())
}

/// Whether a character is a control character that text fields refuse: every one (C0, DEL
/// and C1) except tab and line feed. YAML turns CRLF line breaks into line feeds, so a
/// carriage return only gets in through an escape such as `"\r"`.
pub(crate) fn is_refused_control(c: char) -> bool {
    c.is_control() && c != '\t' && c != '\n'
}

/// The first refused control character of a text, where it is, and how many there are.
pub(crate) fn check_control(text: &str) -> Option<ErrorKind> {
    let mut found = text
        .chars()
        .zip(1..)
        .filter(|(c, _)| is_refused_control(*c));
    let (character, position) = found.next()?;
    Some(ErrorKind::ControlCharacter {
        character,
        position,
        more: found.count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! suggests {
        ($name:ident, $input:expr, $suggestion:expr) => {
            #[test]
            fn $name() {
                assert_eq!(suggest_name($input).as_deref(), $suggestion);
            }
        };
    }

    suggests!(uppercase, "PDF", Some("pdf"));
    suggests!(underscore, "Greeting_Bot", Some("greeting-bot"));
    suggests!(spaces_and_dots, "My Skill v2.0", Some("my-skill-v2-0"));
    suggests!(runs_become_one_hyphen, "a__--  b", Some("a-b"));
    suggests!(no_hyphen_at_the_edges, "-_Bad_Name--", Some("bad-name"));
    suggests!(
        non_ascii_letters_separate_words,
        "café au lait",
        Some("caf-au-lait")
    );
    suggests!(nothing_left, "技能", None);
    suggests!(only_separators, "_-_", None);
    suggests!(
        truncated_to_64_without_a_trailing_hyphen,
        &format!("{}_B", "a".repeat(63)),
        Some("a".repeat(63).as_str())
    );
    suggests!(
        long_names_are_cut,
        &"Ab".repeat(40),
        Some("ab".repeat(32).as_str())
    );

    /// Every "such as `...`" in any message about a name.
    fn suggestions_in(problems: &[ErrorKind]) -> Vec<String> {
        problems
            .iter()
            .flat_map(|kind| {
                kind.to_string()
                    .split("such as `")
                    .skip(1)
                    .map(|rest| rest.split('`').next().unwrap_or_default().to_owned())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn every_suggested_name_is_valid() {
        let alphabet = [
            'a', 'Z', '0', '-', '_', ' ', '.', 'é', '技', '\t', '\0', '/',
        ];
        let mut inputs: Vec<String> = vec![String::new()];
        for length in 1..=4 {
            let mut next = Vec::new();
            for prefix in inputs.iter().filter(|s| s.chars().count() == length - 1) {
                for c in alphabet {
                    next.push(format!("{prefix}{c}"));
                }
            }
            inputs.extend(next);
        }
        for (at, filler) in ["a", "Z_", "-", "é", "ab-"].iter().enumerate() {
            inputs.push(filler.repeat(30 + at * 7));
            inputs.push(format!("{}_{}", "X".repeat(63), filler));
            inputs.push(format!("{}{}", filler.repeat(63), "Tail_End"));
        }
        let mut checked = 0;
        for input in &inputs {
            for suggestion in suggestions_in(&validate_name(input)) {
                assert_eq!(
                    validate_name(&suggestion),
                    [],
                    "`{suggestion}`, suggested for {input:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 10_000, "only {checked} suggestions checked");
    }
}
