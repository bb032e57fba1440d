//! The description rules: it is all an agent sees before it picks a skill, so it must say
//! when to use the skill, in specific terms, in the third person.

use std::sync::LazyLock;

use regex::Regex;

use crate::advice::Advice;
use crate::input::Input;
use crate::markdown::{excerpt, is_word};
use crate::rule::AdviceRule;

/// The words of a modifier that may stand between "use" and its clause: "Use this skill
/// proactively when".
macro_rules! modifiers {
    () => {
        r"(?:\s+(?:this|the|these|it|me|skill|skills|tool|agent|proactively|only|always|automatically|immediately|first|also|instead|especially|primarily|mainly|mostly|exclusively))*"
    };
}

/// The phrasings that name a situation, in order of how often they do (see the research
/// behind these rules in the docs' table). Any one of them is a trigger.
static TRIGGERS: [LazyLock<Regex>; 7] = [
    // "Use when", "Use this skill whenever", "Use for", "Invoke when", "Consult before".
    lazy_regex!(concat!(
        r"(?i)\buse",
        modifiers!(),
        r"\s+(?:when|whenever|if|for|after|before|during|while|upon|on|in|as soon as|once|with|to)\b",
        r"|\b(?:invoke|trigger|activate|apply|load|consult|reach for|call|employ|choose|pick|run)",
        modifiers!(),
        r"\s+(?:when|whenever|if|for|after|before|during|while|upon|as soon as|once)\b",
    )),
    // "Used when", "Should be invoked for", "Triggered by".
    lazy_regex!(
        r"(?i)\b(?:used|invoked|triggered|activated|applied|loaded|consulted)\s+(?:only\s+|automatically\s+|proactively\s+)?(?:when|whenever|if|for|after|before|during|by|on)\b",
    ),
    // Any "when" clause: "... when the user asks", "When Claude needs to".
    lazy_regex!(r"(?i)\bwhen(?:ever)?\b"),
    // Labelled lists: "Triggers:", "Trigger phrases", "Keywords:", "Use cases:", "Applies to".
    lazy_regex!(
        r"(?i)\btriggers?(?:\s+(?:on|when|for|if|words?|phrases?|keywords?|include|includes))?\s*[:\-–—]|\btriggers?\s+(?:on|when|for|if)\b|\btrigger\s+(?:words|phrases|keywords)\b|\bkeywords?\s*[:\-–—]|\buse[- ]cases?\s*[:\-–—]|\busage\s*[:\-–—]|\bapplies\s+to\b|\brelevant\s+(?:when|for|to|if)\b|\bfor\s+use\s+(?:when|with|in|by|on)\b",
    ),
    // "Perfect for", "Ideal when", "Designed for", "Preferred for".
    lazy_regex!(
        r"(?i)\b(?:perfect|ideal|ideally|useful|best|great|good|suitable|helpful|handy|designed|intended|recommended|meant|tailored|preferred|optimized)\s+(?:for|when|if)\b",
    ),
    // The user as actor: "if the user", "the user asks", "someone mentions".
    lazy_regex!(
        r"(?i)\bif\s+(?:the\s+|a\s+)?(?:user|you|someone)\b|\b(?:the\s+)?(?:user|users|someone)\s+(?:asks?|wants?|needs?|mentions?|requests?|says?|types?|provides?|shares?|is|are|has|have)\b",
    ),
    // A closing purpose clause ("..., for RNA-seq analysis.") or a "Not for ..." sentence.
    lazy_regex!(r"(?i)[,;]\s+for\s+[^,.;!?]{3,}(?:[.!?]\s*|$)|(?:^|[.!?;]\s+)not\s+for\b"),
];

/// A sentence that opens with "For <situation>", which names a use ...
static FOR_SENTENCE: LazyLock<Regex> = lazy_regex!(r"(?i)(?:^|[.!?;]\s+)for\s+([^.!?;]*)");
/// ... unless it only sends the reader to another skill: "For routing, use the expo-router
/// skill".
static REDIRECT: LazyLock<Regex> =
    lazy_regex!(r"(?i)\buse\s+(?:the\s+)?[\w-]+(?:\s+skill|\s+instead)\b");

/// `description.no-trigger`: no phrasing names a situation. Skipped for a skill that only a
/// user can invoke (`disable-model-invocation: true`) and for a description that is not
/// mostly in Latin script, whose phrasings these patterns do not know.
pub(super) fn no_trigger(input: &Input<'_>) -> Option<Advice> {
    let description = &input.description;
    if input.model_invocation_disabled || !mostly_latin(description) {
        return None;
    }
    let clock = &input.clock;
    let has_trigger = TRIGGERS
        .iter()
        .any(|trigger| clock.is_match(trigger, description))
        || clock
            .captures_iter(&FOR_SENTENCE, description)
            .any(|sentence| !clock.is_match(&REDIRECT, &sentence[1]));
    (!has_trigger).then(|| {
        Advice::new(
            AdviceRule::DescriptionNoTrigger,
            "the description says what the skill does but not when to use it; add a \"Use when ...\" sentence naming the user's situations (the description is all an agent sees before it picks a skill)".to_owned(),
            input.description_line,
        )
    })
}

/// Whether at least 80 % of the letters are ASCII (or there are none).
fn mostly_latin(text: &str) -> bool {
    let (letters, ascii) = text
        .chars()
        .filter(|c| c.is_alphabetic())
        .fold((0usize, 0usize), |(letters, ascii), c| {
            (letters + 1, ascii + usize::from(c.is_ascii()))
        });
    ascii * 5 >= letters * 4
}

/// Fewer words than this is very short.
const SHORT: usize = 6;
/// Fewer words than this, with generic wording, is generic.
const GENERIC: usize = 12;

static PLACEHOLDER: LazyLock<Regex> = lazy_regex!(
    r"(?i)^\s*(?:TODO|TBD|FIXME|XXX)\b|\breplace (?:this|with|me)\b|\b(?:description|text) (?:goes )?here\b|\bdescribe (?:what|when|your|the skill)\b|^\s*[\[<{].*[\]>}]\s*$|lorem ipsum|\byour (?:skill )?description\b|^skill converted from\b|^(?:a |an |the )?(?:skill|description|tbd|todo|placeholder)\.?$",
);
static GENERIC_OPENER: LazyLock<Regex> = lazy_regex!(
    r"(?i)^(?:this (?:skill|tool)\s+)?(?:helps?|assists?|supports?|handles?|manages?|deals?|works?|is used|does)\s+(?:with|you|users?|in|stuff|things)\b",
);
static GENERIC_WORD: LazyLock<Regex> = lazy_regex!(
    r"(?i)\b(?:stuff|things|various|anything|everything|misc(?:ellaneous)?|general[- ]purpose|all kinds of)\b",
);
static WORD: LazyLock<Regex> = lazy_regex!(r"[A-Za-z0-9][A-Za-z0-9'’_-]*");

/// Words that carry no content of their own in a description.
const STOP_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "and",
    "or",
    "of",
    "for",
    "to",
    "with",
    "in",
    "on",
    "by",
    "via",
    "from",
    "into",
    "at",
    "as",
    "is",
    "are",
    "be",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "your",
    "you",
    "using",
    "use",
    "used",
    "uses",
    "any",
    "all",
    "some",
    "skill",
    "skills",
    "prompt",
    "prompts",
    "tool",
    "tools",
    "helper",
    "helpers",
    "guide",
    "guides",
    "assistant",
    "assistants",
    "utility",
    "utilities",
    "agent",
    "agents",
    "expert",
    "experts",
    "support",
    "help",
    "helps",
    "file",
    "files",
    "toolkit",
    "framework",
    "kit",
    "generator",
    "template",
    "instructions",
    "workflow",
    "workflows",
    "best",
    "practices",
    "practice",
];

/// `description.vague`: a placeholder, very short, generic, or only the name again.
pub(super) fn vague(input: &Input<'_>) -> Option<Advice> {
    let description = &input.description;
    let clock = &input.clock;
    let words: Vec<&str> = clock
        .find_iter(&WORD, description)
        .map(|w| w.as_str())
        .collect();
    let why = if clock.is_match(&PLACEHOLDER, description) {
        "it is a placeholder".to_owned()
    } else if words.len() < SHORT {
        match words.len() {
            1 => "only 1 word".to_owned(),
            count => format!("only {count} words"),
        }
    } else if words.len() < GENERIC
        && (clock.is_match(&GENERIC_OPENER, description)
            || clock.is_match(&GENERIC_WORD, description))
    {
        "generic wording".to_owned()
    } else if words.len() < GENERIC && restates_name(input.name, &words) {
        "it only restates the name".to_owned()
    } else {
        return None;
    };
    Some(Advice::new(
        AdviceRule::DescriptionVague,
        format!(
            "the description is too short or generic to pick this skill by ({why}); say what it does with specific terms and when to use it"
        ),
        input.description_line,
    ))
}

/// Whether every content word of the description is a word of the name, both stemmed.
fn restates_name(name: &str, words: &[&str]) -> bool {
    let name: Vec<String> = name
        .split('-')
        .filter(|w| !w.is_empty())
        .map(stem)
        .collect();
    let mut content = words
        .iter()
        .filter(|word| !STOP_WORDS.contains(&word.to_lowercase().as_str()))
        .map(|word| stem(word))
        .peekable();
    content.peek().is_some() && content.all(|word| name.contains(&word))
}

/// The word in lowercase, without quotes or one common suffix.
fn stem(word: &str) -> String {
    let word = word.to_lowercase();
    let word = word.trim_matches(['\'', '’']);
    ["ing", "ers", "er", "es", "s", "ed"]
        .into_iter()
        .find_map(|suffix| word.strip_suffix(suffix).filter(|stem| stem.len() > 2))
        .unwrap_or(word)
        .to_owned()
}

static FIRST_PERSON_I: LazyLock<Regex> = lazy_regex!(
    r"\bI(?:['’](?:m|ll|ve|d)\b|\s+(?:am|can|will|would|could|should|help|have|do|create|generate|write|build|make|provide|use|need|want|know|analy[sz]e|review|run|process|turn|give|offer|handle|manage|assist|take|let|specialize|focus)\b)",
);
static FIRST_PERSON_ME: LazyLock<Regex> = lazy_regex!(r"\b(?:me|my|myself)\b|(?:^|[.!?]\s+)My\b");
static SECOND_PERSON: LazyLock<Regex> = lazy_regex!(r"(?:^|[.!?;]\s+|\n)(?:You|We|Our)\b|\bour\b");
/// Text before a "me" or "my" that introduces the user's own words ("USE FOR: write my
/// review").
static UTTERANCE: LazyLock<Regex> = lazy_regex!(
    r"(?i)\b(?:use for|triggers?(?: on| phrases?| words?)?|phrases?|keywords?|e\.g\.|for example|such as|like|says?|asks?|mentions?|requests? like)\s*[:,]?\s*[^.]*$",
);

/// `description.first-person`: "I can", "my", or a sentence opening with "You", "We" or
/// "Our", outside quotes (quoted text is the user's own words). "Use when you need" is a
/// trigger clause addressed to the reader and is not flagged.
pub(super) fn first_person(input: &Input<'_>) -> Option<Advice> {
    let text = without_quotes(&input.description);
    let clock = &input.clock;
    let found = clock
        .find(&FIRST_PERSON_I, &text)
        .or_else(|| {
            clock
                .find_iter(&FIRST_PERSON_ME, &text)
                .find(|found| !clock.is_match(&UTTERANCE, &text[..found.start()]))
        })
        .or_else(|| clock.find(&SECOND_PERSON, &text))?;
    let start = found.start() + found.as_str().find(char::is_alphabetic).unwrap_or(0);
    let start = quote_start(&text, start);
    Some(Advice::new(
        AdviceRule::DescriptionFirstPerson,
        format!(
            "the description is written in the first or second person (\"{}\"); write it in the third person (\"Creates ...\", \"Use when ...\"): it is inserted into the agent's system prompt",
            excerpt(&text, start, 40)
        ),
        input.description_line,
    ))
}

/// Where to quote a finding from: one word before it ("help me write"), unless it opens a
/// sentence.
fn quote_start(text: &str, start: usize) -> usize {
    let before = text[..start].trim_end();
    if before.is_empty() || before.ends_with(['.', '!', '?', ';', ':']) {
        start
    } else {
        before.rfind(' ').map_or(0, |space| space + 1)
    }
}

/// The text with every quoted span replaced by `""`: double quotes, curly quotes, guillemets
/// and backticks pair with their closing mark; a single quote opens after a character that
/// is not a word character and closes at the next single quote that is not followed by one,
/// so that "I'm" and "don't" stay inside their quotes.
fn without_quotes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let close = match c {
            '"' | '`' => chars[at + 1..].iter().position(|&d| d == c),
            '“' => chars[at + 1..].iter().position(|&d| d == '”'),
            '‘' => chars[at + 1..].iter().position(|&d| d == '’'),
            '«' => chars[at + 1..].iter().position(|&d| d == '»'),
            '\'' if at == 0 || !is_word(chars[at - 1]) => (at + 1..chars.len()).position(|j| {
                chars[j] == '\'' && chars.get(j + 1).is_none_or(|&next| !is_word(next))
            }),
            _ => None,
        };
        match close {
            Some(length) => {
                out.push_str(" \"\" ");
                at += length + 2;
            }
            None => {
                out.push(c);
                at += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::input_with_description;
    use super::*;

    /// Asserts that `rule` fires on a description, or that it does not.
    macro_rules! fires {
        ($name:ident, $rule:ident, $description:expr) => {
            #[test]
            fn $name() {
                let input = input_with_description($description);
                assert!(
                    $rule(&input).is_some(),
                    "{} does not fire on {:?}",
                    stringify!($rule),
                    $description
                );
            }
        };
    }
    macro_rules! quiet {
        ($name:ident, $rule:ident, $description:expr) => {
            #[test]
            fn $name() {
                let input = input_with_description($description);
                assert_eq!($rule(&input), None, "{:?}", $description);
            }
        };
    }

    // description.no-trigger
    fires!(
        no_trigger_on_a_toolkit_without_a_situation,
        no_trigger,
        "Toolkit for interacting with and testing local web applications using Playwright. Supports verifying frontend functionality, debugging UI behavior, capturing browser screenshots, and viewing browser logs."
    );
    fires!(
        no_trigger_on_a_guide_title,
        no_trigger,
        "Guide for upgrading Stripe API versions and SDKs"
    );
    fires!(
        no_trigger_when_the_for_sentence_only_redirects,
        no_trigger,
        "Build and distribute Expo development clients locally or via TestFlight for internal testing. For production TestFlight releases and store submission, use the eas-app-stores skill."
    );
    fires!(
        no_trigger_on_apply_to_an_artifact,
        no_trigger,
        "Styles artifacts with a set of themes that you can apply to any artifact."
    );
    fires!(
        no_trigger_on_invoke_with_a_command,
        no_trigger,
        "Finds sponsors for open source projects. Invoke with /sponsor followed by a repository."
    );
    fires!(
        no_trigger_on_resources_used_in_an_app,
        no_trigger,
        "Analyze AWS resources used in the app and list their costs."
    );
    quiet!(
        no_trigger_use_when,
        no_trigger,
        "Reads PDF files. Use when the user asks about a PDF."
    );
    quiet!(
        no_trigger_use_this_skill_for,
        no_trigger,
        "Reads PDF files. Use this skill for forms."
    );
    quiet!(
        no_trigger_you_must_use_before,
        no_trigger,
        "You MUST use this before any creative work."
    );
    quiet!(
        no_trigger_when_clause,
        no_trigger,
        "Reads PDF files when Claude needs to fill a form."
    );
    quiet!(
        no_trigger_triggers_label,
        no_trigger,
        "Reads PDF files. Triggers: pdf, form, fill."
    );
    quiet!(
        no_trigger_keywords_label,
        no_trigger,
        "Reads PDF files. Keywords: pdf, form."
    );
    quiet!(
        no_trigger_perfect_for,
        no_trigger,
        "Reads PDF files, perfect for forms."
    );
    quiet!(
        no_trigger_if_the_user,
        no_trigger,
        "Reads PDF files if the user uploads one."
    );
    quiet!(
        no_trigger_for_sentence,
        no_trigger,
        "Reads PDF files. For scanned forms, runs OCR first."
    );
    quiet!(
        no_trigger_purpose_clause,
        no_trigger,
        "Phylogenetic tree inference and visualization tools, for phylogenomics."
    );
    quiet!(
        no_trigger_not_for,
        no_trigger,
        "Docking of small molecules. Not for affinity prediction."
    );
    quiet!(
        no_trigger_applies_to,
        no_trigger,
        "Coding conventions that applies to every Rust file."
    );
    quiet!(
        no_trigger_not_latin,
        no_trigger,
        "PDFファイルを読み取り、フォームに記入し、表を抽出します"
    );

    #[test]
    fn no_trigger_is_skipped_when_only_a_user_can_invoke_the_skill() {
        let mut input = input_with_description("Deploys the site to production.");
        assert!(no_trigger(&input).is_some());
        input.model_invocation_disabled = true;
        assert_eq!(no_trigger(&input), None);
    }

    // description.vague
    fires!(
        vague_on_anthropic_s_bad_example,
        vague,
        "Helps with documents"
    );
    fires!(
        vague_on_the_template,
        vague,
        "Replace with description of the skill and when Claude should use it."
    );
    fires!(
        vague_on_a_converted_prompt,
        vague,
        "Skill converted from mcp-create-adaptive-cards.prompt.md"
    );
    fires!(
        vague_on_four_words,
        vague,
        "Structured Autonomy Planning Prompt"
    );
    fires!(
        vague_on_the_placeholder_of_skillpub_new,
        vague,
        "TODO: say what this skill does and when to use it (\"Use when ...\")."
    );
    fires!(
        vague_on_generic_wording,
        vague,
        "This skill helps with various things about files and folders."
    );
    fires!(
        vague_on_a_bracketed_placeholder,
        vague,
        "[Say what the skill does and when to use it]"
    );
    quiet!(
        vague_short_but_specific,
        vague,
        "Create Spring Boot Java Project Skeleton"
    );
    quiet!(
        vague_filler_words_in_a_long_description,
        vague,
        "Comprehensive PDF manipulation toolkit for extracting text and tables, creating new PDFs, merging and splitting documents, and handling forms; anything with PDF files."
    );
    quiet!(
        vague_a_specific_description,
        vague,
        "Reads PDF files and extracts their tables. Use when the user asks about a PDF."
    );

    #[test]
    fn vague_fires_on_a_description_that_restates_the_name() {
        let mut input =
            input_with_description("Processing of PDF files with PDF processing tools.");
        input.name = "pdf-processing";
        let advice = vague(&input).unwrap();
        assert!(
            advice.message().contains("(it only restates the name)"),
            "{advice}"
        );
        input.name = "pdf-forms";
        assert_eq!(vague(&input), None);
    }

    // description.first-person
    fires!(
        first_person_you_should,
        first_person,
        "You should use this skill when the user asks to create a poster."
    );
    fires!(
        first_person_help_me,
        first_person,
        "A set of resources to help me write all kinds of internal communications, using the formats that my company likes to use."
    );
    fires!(
        first_person_we_are,
        first_person,
        "Welcome to Cloudflare's API documentation site. We are experimenting with an updated version of our API documentation."
    );
    fires!(
        first_person_i_can,
        first_person,
        "I can turn meeting notes into action items."
    );
    fires!(
        first_person_you_merge,
        first_person,
        "You merge a clean PR; the bot runs it."
    );
    quiet!(
        first_person_use_when_you,
        first_person,
        "Builds iOS apps. Use when you need to run one on a device."
    );
    quiet!(
        first_person_quoted_utterance,
        first_person,
        "Sets up devices. Use when the user says 'I'm on Linux/Cursor and need an iOS device'."
    );
    quiet!(
        first_person_double_quoted,
        first_person,
        "Tunes queries. Use when the user says \"I don't get needed results from my dataset\"."
    );
    quiet!(
        first_person_utterance_list,
        first_person,
        "Writes reviews. USE FOR: write my performance review, summarize my year."
    );
    quiet!(
        first_person_us_treasury,
        first_person,
        "Reads US Treasury yield curves and I/O statistics of Phase I trials."
    );

    #[test]
    fn first_person_quotes_the_words_it_found() {
        let input = input_with_description(
            "Creates posters. You should use this skill when the user asks.",
        );
        let advice = first_person(&input).unwrap();
        assert!(advice.message().starts_with("the description is written in the first or second person (\"You should use this skill when the user…\")"), "{advice}");
    }

    #[test]
    fn first_person_quotes_one_word_before_a_word_inside_a_sentence() {
        let input =
            input_with_description("A set of resources to help me write internal communications.");
        let advice = first_person(&input).unwrap();
        assert!(
            advice
                .message()
                .contains("(\"help me write internal communications.\")"),
            "{advice}"
        );
    }

    #[test]
    fn quotes_are_removed_as_spans() {
        assert_eq!(without_quotes("say 'I'm here' now"), "say  \"\"  now");
        assert_eq!(without_quotes("don't 'x"), "don't 'x");
        assert_eq!(
            without_quotes("“a” «b» `c` \"d"),
            " \"\"   \"\"   \"\"  \"d"
        );
    }
}
