//! The two rules Anthropic's platform (claude.ai and the API) adds to the specification: no
//! XML tags in `name` or `description`, and no reserved word in `name`. Claude Code and other
//! clients accept such skills, so these are warnings.

use std::sync::LazyLock;

use regex::Regex;

use crate::advice::Advice;
use crate::input::Input;
use crate::rule::AdviceRule;

/// Something shaped like a tag: `<tag>`, `</tag>`, `<tag attr="x"/>`, a comment or CDATA.
/// Bare angle brackets (`Epic > Feature`, `->`) are not tags.
static TAG: LazyLock<Regex> =
    lazy_regex!(r"</?[A-Za-z][A-Za-z0-9_.:-]*(?:\s[^<>]*)?/?>|<!--|<!\[CDATA\[");

/// The words the platform refuses anywhere in a name.
const RESERVED_WORDS: [&str; 2] = ["anthropic", "claude"];

/// `frontmatter.xml-tag`: a tag in the description. A `name` that passes the name rule
/// holds only `a-z`, `0-9` and `-`, so it cannot hold one.
pub(super) fn xml_tag(input: &Input<'_>) -> Option<Advice> {
    let tag = input.clock.find(&TAG, input.description_raw)?;
    Some(Advice::new(
        AdviceRule::FrontmatterXmlTag,
        format!(
            "the description contains an XML/HTML tag (\"{}\"); Anthropic's platform refuses XML tags in name and description: spell it without angle brackets",
            tag.as_str()
        ),
        input.description_line,
    ))
}

/// `name.reserved-word`: `anthropic` or `claude` anywhere in the name.
pub(super) fn reserved_word(input: &Input<'_>) -> Option<Advice> {
    let word = RESERVED_WORDS
        .into_iter()
        .find(|word| input.name.contains(word))?;
    Some(Advice::new(
        AdviceRule::NameReservedWord,
        format!(
            "the name contains the reserved word \"{word}\"; Anthropic's platform (claude.ai, the API) refuses names containing \"anthropic\" or \"claude\""
        ),
        input.name_line,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::tests::input_with_description;
    use super::*;

    macro_rules! tag {
        ($name:ident, $description:expr, $found:expr) => {
            #[test]
            fn $name() {
                let input = input_with_description($description);
                let found = xml_tag(&input).map(|advice| advice.message().to_owned());
                let expected: Option<&str> = $found;
                match expected {
                    Some(tag) => assert!(
                        found
                            .as_deref()
                            .is_some_and(|m| m.contains(&format!("(\"{tag}\")"))),
                        "{found:?}"
                    ),
                    None => assert_eq!(found, None),
                }
            }
        };
    }

    tag!(
        a_component_tag,
        "React's View Transition API (`<ViewTransition>` component, ...)",
        Some("<ViewTransition>")
    );
    tag!(
        a_generic_parameter,
        "Messages between view models: IRecipient<TMessage>, WeakReferenceMessenger.",
        Some("<TMessage>")
    );
    tag!(a_closing_tag, "Formats </b> text.", Some("</b>"));
    tag!(a_comment, "Reads <!-- notes.", Some("<!--"));
    tag!(
        a_hierarchy_arrow,
        "Breaks work down as Epic > Feature > Story.",
        None
    );
    tag!(
        an_arrow_in_code,
        "Migrates `Should -Be` -> `Should-Be` assertions.",
        None
    );
    tag!(
        command_syntax,
        "Saves notes: `/remember [>domain [scope]]`.",
        None
    );
    tag!(a_comparison, "Finds values where a < b and c > d.", None);

    #[test]
    fn reserved_words_are_found_anywhere_in_the_name() {
        let mut input = input_with_description("Reads PDFs. Use when asked.");
        for (name, word) in [
            ("claude-api", Some("claude")),
            ("anthropic-administrator-automation", Some("anthropic")),
            ("myclaudehelper", Some("claude")),
            ("claw-tools", None),
        ] {
            input.name = name;
            let found = reserved_word(&input);
            assert_eq!(
                found.as_ref().map(|advice| advice
                    .message()
                    .contains(&format!("\"{}\";", word.unwrap_or("")))),
                word.map(|_| true),
                "{name}"
            );
        }
    }
}
