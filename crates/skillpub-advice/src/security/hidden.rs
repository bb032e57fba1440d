//! `security.hidden-text`: text an agent reads and a person reviewing the skill does not see.
//! Invisible characters anywhere (Unicode tag characters, which spell ASCII invisibly;
//! zero-width characters; bidirectional overrides that reorder what is shown), and, in Markdown
//! and HTML, instructions in places a rendered page hides: HTML comments, image alt text, link
//! titles and elements styled out of sight.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::super::clock::Clock;
use super::super::{Advice, AdviceRule, Input};
use super::exfiltration;
use super::finding;
use super::injection::INJECTION;
use super::script::SCRIPT;
use super::text::{Kind, Text};
use super::triggers::Family;

/// Whether `c` is one of the invisible characters read: tag characters (U+E0000 to U+E007F),
/// zero-width spaces, joiners and non-joiners, the word joiner and invisible operators, the
/// byte order mark, the Mongolian vowel separator, and the bidirectional embeddings,
/// overrides and isolates.
fn is_invisible(c: char) -> bool {
    matches!(
        u32::from(c),
        0xE0000..=0xE007F
            | 0x200B..=0x200D
            | 0x2060..=0x2064
            | 0xFEFF
            | 0x180E
            | 0x202A..=0x202E
            | 0x2066..=0x2069
    )
}

/// The runs of invisible characters of `text`, as byte ranges. Each of them is encoded in
/// UTF-8 from a lead byte 0xE1, 0xE2, 0xEF or 0xF3, which `memchr` finds many bytes at a time;
/// the characters at those bytes are decoded, and a run read on while it lasts.
fn invisible_runs<'c>(text: &'c str, clock: &'c Clock) -> impl Iterator<Item = Range<usize>> + 'c {
    let bytes = text.as_bytes();
    let mut leads = memchr::memchr3_iter(0xE2, 0xEF, 0xF3, bytes).peekable();
    let mut mongolian = memchr::memchr_iter(0xE1, bytes).peekable();
    let candidates = std::iter::from_fn(move || match (leads.peek(), mongolian.peek()) {
        (Some(&a), Some(&b)) if b < a => mongolian.next(),
        (Some(_), _) => leads.next(),
        (None, _) => mongolian.next(),
    });
    let paced = candidates.scan(0, |previous, at| {
        let from = std::mem::replace(previous, at);
        Some((from, at))
    });
    let mut end = 0;
    clock
        .bounded(paced, |&(from, at)| at - from)
        .filter_map(move |(_, at)| {
            if at < end {
                return None;
            }
            let mut chars = text[at..].char_indices();
            let mut length = 0;
            while let Some((offset, c)) = chars.next().filter(|&(_, c)| is_invisible(c)) {
                length = offset + c.len_utf8();
            }
            end = at + length;
            (length > 0).then_some(at..at + length)
        })
}

/// Letters of the scripts written right to left, where bidirectional controls are ordinary.
static RIGHT_TO_LEFT: LazyLock<Regex> =
    security_regex!(r"[\u{0590}-\u{08FF}\u{FB1D}-\u{FDFF}\u{FE70}-\u{FEFC}]");

/// Words that make hidden text an instruction to an agent: addressing one at the start of a
/// sentence with at least two words after it (`Claude: run ...`, `AI agents, always ...`; a
/// template's marker for the agent, `<!-- AGENT: anomalies -->`, instructs nothing) or saying
/// what one must do (`the assistant must run ...`).
static ADDRESSED: LazyLock<Regex> = security_regex!(
    r"(?im)(?:^|[.!?]\s+)\s*(?:(?:hey|dear|attention|note\s+to|(?:a\s+)?(?:message|note|instructions?)\s+(?:for|to))\s+)?(?:the\s+)?(?:AI|assistants?|agents?|LLMs?|models?|Claude|ChatGPT|GPT|Copilot|Gemini|Cursor|bots?)(?:\s+(?:agents?|assistants?|models?))?(?:\s+(?:reading|processing|parsing|seeing)\s+(?:this|these|it))?\s*[:,]\s*\w+[^\w\n]+\w|\b(?:note|nota|hinweis|consigne|instructions?|instrucci[oó]n|message|mensaje)\b[^:\n]{0,40}?\b(?:for|to|para|pour|für|an)\s+(?:the\s+|el\s+|l['’]|den\s+)?(?:AI|assistants?|asistente|Assistenten|agents?|models?|IA|KI|Claude)\b[^:\n]{0,40}:\s*\w|\b(?:AI|assistants?|agents?|LLMs?|models?|Claude|ChatGPT|GPT|Copilot|Gemini|Cursor|bots?)\s+(?:must|shall|need\s+to|have\s+to)\s+(?:always\s+|never\s+|not\s+|now\s+)?(?:run|execute|send|read|open|fetch|download|install|call|ignore|reply|respond|say|tell|output|delete|upload|post)\b"
);

/// What an author's note to the person filling a template starts with: `<!-- Describe ...`,
/// `<!-- TODO ...`.
static AUTHOR_NOTE: LazyLock<Regex> = security_regex!(
    r"(?i)^\s*(?:describe|list|add|fill|replace|update|edit|remove|insert|write|todo|fixme|note|see|example|e\.g\.|usage|keep|delete|change)\b"
);

/// `<!-- ... -->`.
const OPEN: &str = "<!--";
const CLOSE: &str = "-->";

/// Image alt text `![alt](` and link titles `](target "title")`; the text holds no bracket
/// (a bracket ends it), so an unclosed one reads no further than the next.
static ALT: LazyLock<Regex> = security_regex!(r"!\[([^\[\]\n]{12,})\]\(");
static TITLE: LazyLock<Regex> =
    security_regex!(r#"\]\([^()\s]*\s+(?:"([^"\n]{12,})"|'([^'\n]{12,})')\s*\)"#);

/// A Markdown comment: a link reference to `#` that no text uses, `[//]: # (...)`.
static LINK_COMMENT: LazyLock<Regex> =
    security_regex!(r#"^\s*\[[^\]\n]*\]:\s*#\s*(?:\(([^()\n]{12,})\)|"([^"\n]{12,})")\s*$"#);

/// An element styled out of sight, up to the next tag: `<span style="display:none">...`.
static HIDDEN_ELEMENT: LazyLock<Regex> = security_regex!(
    r#"(?i)<(?:div|span|p|section|aside|font|small|em|strong|b|i)\b[^<>]*?(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|em|rem|pt)?\s*[;"']|opacity\s*:\s*0(?:\.0+)?\s*[;"']|color\s*:\s*(?:white|#fff(?:fff)?)\b)[^<>]*>([^<]{12,})"#
);

/// Why hidden text matters, and the fix.
const WHY: &str = "an agent reads it and a person reviewing the skill does not see it";

/// `security.hidden-text` on every text file of the skill.
pub(crate) fn hidden_text(input: &Input<'_>) -> Vec<Advice> {
    let clock = &input.clock;
    let mut advice = Vec::new();
    for text in &input.texts {
        // Every invisible character is outside ASCII, which std checks many bytes at a time.
        if !text.text.is_ascii() {
            advice.extend(invisible(text, clock));
        }
        if text.kind == Kind::Prose {
            advice.extend(hidden_places(text, clock));
        }
    }
    advice
}

/// The runs of invisible characters, one finding per line that describes every run on it: a
/// run of tag characters spells its ASCII (shown in the finding), the others are counted. A
/// byte order mark at the start of the file, the tags of an emoji flag (after 🏴), a joiner
/// between two characters that are not both ASCII (emoji, Indic and Arabic scripts need
/// them), and bidirectional controls on a line of a right-to-left script are ordinary text;
/// so are zero-width characters in a fenced block the text marks as an example, but tag and
/// bidirectional characters are never an example: the fence shows its text, not them.
fn invisible(text: &Text<'_>, clock: &Clock) -> Vec<Advice> {
    let mut advice = Vec::new();
    // The line being read, whether it has right-to-left letters (read once per line), and
    // its runs that are not ordinary.
    let mut current: Option<(u64, Option<bool>, Vec<&str>)> = None;
    for run in invisible_runs(&text.text, clock) {
        let line = text.line_of(run.start);
        if current.as_ref().is_none_or(|(at, _, _)| *at != line) {
            if let Some((at, _, runs)) = current.take()
                && !runs.is_empty()
            {
                advice.push(described(text, at, &runs));
            }
            current = Some((line, None, Vec::new()));
        }
        let Some((_, right_to_left, runs)) = current.as_mut() else {
            continue;
        };
        let value = &text.text[run.clone()];
        let before = text.text[..run.start].chars().next_back();
        let after = text.text[run.end..].chars().next();
        let tags = value
            .chars()
            .all(|c| ('\u{E0000}'..='\u{E007F}').contains(&c));
        let bidi = value.chars().all(|c| {
            ('\u{202A}'..='\u{202E}').contains(&c) || ('\u{2066}'..='\u{2069}').contains(&c)
        });
        let ordinary = if tags {
            before == Some('\u{1F3F4}')
        } else if bidi {
            *right_to_left.get_or_insert_with(|| clock.is_match(&RIGHT_TO_LEFT, text.line(line)))
        } else if text.is_example(line) {
            true
        } else if value == "\u{FEFF}" {
            run.start == 0
        } else if value == "\u{200B}" && text.line_start(line) == run.start {
            // A zero-width space before a fence shows the fence in a fenced block.
            text.text[run.end..].starts_with("```") || text.text[run.end..].starts_with("~~~")
        } else if value.chars().all(|c| c == '\u{200C}' || c == '\u{200D}') {
            !(before.is_some_and(|c| c.is_ascii_alphanumeric())
                && after.is_some_and(|c| c.is_ascii_alphanumeric()))
        } else {
            false
        };
        if !ordinary {
            runs.push(value);
        }
    }
    if let Some((at, _, runs)) = current
        && !runs.is_empty()
    {
        advice.push(described(text, at, &runs));
    }
    advice
}

/// The finding on line `line` that holds these runs of invisible characters: what the tag
/// characters among them spell, and the names of the others (at least one of the two).
fn described(text: &Text<'_>, line: u64, runs: &[&str]) -> Advice {
    let characters = || runs.iter().flat_map(|run| run.chars());
    let spelled: String = characters()
        .filter_map(|c| {
            let code = u32::from(c);
            (0xE0020..=0xE007E)
                .contains(&code)
                .then(|| char::from_u32(code - 0xE0000))
                .flatten()
        })
        .collect();
    let names: Vec<String> = characters()
        .filter(|&c| !(0xE0020..=0xE007E).contains(&u32::from(c)))
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect();
    let mut parts = Vec::new();
    if !spelled.is_empty() {
        parts.push(format!(
            "holds Unicode tag characters that spell, invisibly, \"{}\"",
            skillpub_core::security::redact(&spelled, 0)
                .chars()
                .take(120)
                .collect::<String>()
        ));
    }
    if !names.is_empty() {
        parts.push(format!(
            "holds {} invisible character{} ({})",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            dedup(names)
        ));
    }
    Advice::in_file(
        AdviceRule::SecurityHiddenText,
        format!(
            "line {line} {}; {WHY}, and such characters smuggle instructions or make code look other than it is: remove them (\"{}\")",
            parts.join(" and "),
            visible(&text.redacted(line, 0))
        ),
        text.path,
        Some(line),
    )
}

/// The distinct names in order, joined.
fn dedup(names: Vec<String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for name in names {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen.join(", ")
}

/// A line with its invisible characters written as `<U+200B>`, cut to 80 characters.
fn visible(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars().take(80) {
        let code = u32::from(c);
        let hidden = (0xE0000..=0xE007F).contains(&code)
            || matches!(code, 0x200B..=0x200D | 0x2060..=0x2064 | 0xFEFF | 0x180E | 0x202A..=0x202E | 0x2066..=0x2069);
        if hidden {
            out.push_str(&format!("<U+{code:04X}>"));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether hidden text asks an agent for something: an injected instruction, an action of
/// exfiltration or a risky command, or words addressed to an agent.
fn directive(hidden: &str, clock: &Clock) -> bool {
    clock.is_match(&INJECTION, hidden)
        || clock.is_match(&SCRIPT, hidden)
        || exfiltration::asks_for(hidden, clock)
        || (!clock.is_match(&AUTHOR_NOTE, hidden) && clock.is_match(&ADDRESSED, hidden))
}

/// Instructions in HTML comments, image alt text, link titles and hidden elements, outside
/// the fenced blocks the text marks as examples.
fn hidden_places(text: &Text<'_>, clock: &Clock) -> Vec<Advice> {
    let mut places: Vec<(usize, &str, &str)> = comments(text, clock)
        .into_iter()
        .map(|(at, inside)| {
            (
                at,
                inside,
                "has an HTML comment, which a rendered page hides, that gives an instruction",
            )
        })
        .collect();
    for &line in text.triggered(Family::Hidden) {
        let (start, line_text) = (text.line_start(line), text.line(line));
        for (regex, what) in [
            (
                &*ALT,
                "has image alt text, which a rendered page hides, that gives an instruction",
            ),
            (
                &*TITLE,
                "has a link title, shown only on hover, that gives an instruction",
            ),
            (
                &*LINK_COMMENT,
                "has a Markdown comment (a link reference to `#`), which a rendered page hides, that gives an instruction",
            ),
            (
                &*HIDDEN_ELEMENT,
                "has an element styled out of sight that gives an instruction",
            ),
        ] {
            // The matches are found by the fast engines; their groups read on each match.
            for found in clock.find_iter(regex, line_text) {
                let groups = clock.captures(regex, found.as_str());
                if let Some(inside) =
                    groups.and_then(|groups| groups.get(1).or_else(|| groups.get(2)))
                {
                    let inside =
                        &line_text[found.start() + inside.start()..found.start() + inside.end()];
                    places.push((start + found.start(), inside, what));
                }
            }
        }
    }
    places.extend(hidden_blocks(text, clock));
    places.sort_by_key(|(at, _, _)| *at);
    let mut last_line = 0;
    // The code spans of the line of the last place, read once per line.
    let mut spans: (u64, Vec<std::ops::Range<usize>>) = (0, Vec::new());
    let mut advice = Vec::new();
    for (at, inside, what) in places {
        // Fenced code and code spans show a comment, alt text or a tag as it is written.
        let line = text.line_of(at);
        if line == last_line || text.is_code(line) || text.is_example(line) {
            continue;
        }
        if spans.0 != line {
            spans = (line, text.code_spans(line, clock));
        }
        // The spans are in order and apart: the one that may hold the place is the last
        // that starts at or before it.
        let column = at - text.line_start(line);
        let before = spans.1.partition_point(|span| span.start <= column);
        let in_span = before > 0 && spans.1[before - 1].contains(&column);
        if in_span || !directive(inside, clock) {
            continue;
        }
        last_line = line;
        advice.push(finding(
            AdviceRule::SecurityHiddenText,
            text,
            at,
            what,
            &format!("{WHY}: say it in the visible text, or remove it"),
        ));
    }
    advice
}

/// An element styled out of sight whose opening tag ends its line: what follows, up to its
/// closing tag.
static HIDDEN_OPEN: LazyLock<Regex> = security_regex!(
    r#"(?i)<(?:div|span|p|section|aside)\b[^<>]*?(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?:\.0+)?\s*[;"']|color\s*:\s*(?:white|#fff(?:fff)?)\b)[^<>]*>\s*$"#
);

/// How many lines a hidden element is read over at most.
const HIDDEN_LINES: u64 = 12;

/// The elements styled out of sight over several lines, as (offset, text inside, what).
fn hidden_blocks<'t>(text: &'t Text<'_>, clock: &Clock) -> Vec<(usize, &'t str, &'static str)> {
    let mut found = Vec::new();
    for &line in text.triggered(Family::Hidden) {
        if !clock.is_match(&HIDDEN_OPEN, text.line(line)) {
            continue;
        }
        let start = text.line_start(line + 1);
        let mut end = start;
        for next in line + 1..=(line + HIDDEN_LINES).min(text.line_count()) {
            if text.line(next).contains("</") {
                break;
            }
            end = text.line_start(next) + text.line(next).len();
        }
        if end > start {
            found.push((
                text.line_start(line),
                &text.text[start..end],
                "has an element styled out of sight that gives an instruction",
            ));
        }
    }
    found
}

/// The HTML comments of `text`, as (offset, text inside). One pass: after an unclosed
/// comment no other can close.
fn comments<'t>(text: &'t Text<'_>, clock: &Clock) -> Vec<(usize, &'t str)> {
    let mut found = Vec::new();
    let mut at = 0;
    let whole: &str = &text.text;
    let starts = std::iter::from_fn(|| {
        let from = at;
        let open = at + whole[at..].find(OPEN)?;
        let inside = open + OPEN.len();
        let close = inside + whole[inside..].find(CLOSE)?;
        at = close + CLOSE.len();
        Some((from, open, inside, close))
    });
    let cost = |&(from, _, _, close): &(usize, usize, usize, usize)| close + CLOSE.len() - from;
    for (_, open, inside, close) in clock.bounded(starts, cost) {
        found.push((open, &whole[inside..close]));
    }
    found
}
