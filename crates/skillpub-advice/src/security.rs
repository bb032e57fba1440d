//! The security review of a skill, beside the credentials that skillpub-core refuses
//! (`security.secret`): hidden text, injected instructions, exfiltration and risky scripts,
//! over the `SKILL.md` and every supporting text file. Each finding names its file and line,
//! says why it matters to an agent and how to fix it.
//!
//! The rules read each file once per pattern, from the anchors of their patterns (the regex
//! crate's literal prefilters), so they are linear in the skill and fast on text that holds
//! none of them. A finding in a fenced block that the text marks as an example (see
//! `text.rs`), or in a sentence that says it is one, warns against it or quotes it, is not a
//! finding: a skill that teaches how to spot an attack quotes it.

/// A [`regex::Regex`] of the security review, compiled on first use, with every `\b` read as
/// an ASCII word boundary and every `\w` as an ASCII word character: the regex crate's lazy
/// DFA cannot read a Unicode boundary in text that is not ASCII, and would fall back to a
/// search many times slower on every non-ASCII file. The words the patterns look for are
/// ASCII.
macro_rules! security_regex {
    ($pattern:expr $(,)?) => {
        ::std::sync::LazyLock::new(|| $crate::security::ascii_words($pattern))
    };
}

mod exfiltration;
mod flow;
mod hidden;
mod injection;
mod obfuscation;
mod script;
mod text;
mod triggers;

#[cfg(test)]
mod tests;

use std::sync::LazyLock;

use regex::Regex;

pub(crate) use exfiltration::exfiltration;
pub(crate) use flow::{Flow, Sink, flows};
pub(crate) use hidden::hidden_text;
pub(crate) use injection::injection;
pub(crate) use obfuscation::obfuscation;
pub(crate) use script::script;
pub(crate) use text::Text;

use super::clock::Clock;
use super::markdown::excerpt;
use super::{Advice, AdviceRule};
use triggers::Family;

/// `pattern` compiled with each `\b` an ASCII word boundary and each `\w` an ASCII word
/// character (see [`security_regex!`]); the Unicode class of `\w` is also most of what
/// compiling the patterns costs, which every run of `skillpub lint` pays once.
pub(crate) fn ascii_words(pattern: &str) -> Regex {
    let pattern = pattern
        .replace(r"\b", r"(?-u:\b)")
        .replace(r"\w", "[0-9A-Za-z_]");
    // The lazy DFA's cache holds the states a search builds; the review's alternations of
    // phrases need more than the default to keep them, and rebuild them on every line
    // otherwise.
    regex::RegexBuilder::new(&pattern)
        .dfa_size_limit(DFA_CACHE)
        .build()
        .expect("the advice patterns are valid")
}

/// The lazy DFA cache of each pattern, per thread that searches with it.
const DFA_CACHE: usize = 8 << 20;

/// Words that, before a match in its sentence, make it a warning, a question, a quotation or
/// an example rather than an instruction: "never run `rm -rf /`", "attackers write 'ignore
/// previous instructions'", "flag phrases such as ...". A word after a dot is part of a
/// file's name (`.env.example`), not of the sentence.
static GUARDED: LazyLock<Regex> = security_regex!(
    r"(?i)(?:^|[^.\w])(?:not|never|don'?t|doesn'?t|won'?t|cannot|can'?t|shouldn'?t|mustn'?t|avoid\w*|refus\w*|reject\w*|resist\w*|detect\w*|flag\w*|block\w*|prevent\w*|forbid\w*|prohibit\w*|beware|watch|warn\w*|such as|e\.g\.|like|for example|for instance|examples?|attacks?|attackers?|adversar\w*|malicious|injection|jailbreak\w*|phishing|suspicious|dangerous|unsafe|insecure|risky|vulnerab\w*|exploit\w*|treat\w*|signs?|indicators?|patterns?|scan\w*|audit\w*|check\w* for|looks? for|search\w* for|grep\w*|match\w*|catch\w*|identif\w*|recogni\w*|spot\w*|red flags?)\b"
);

/// How far back in its line a match looks for a [`GUARDED`] word: a sentence or so.
const GUARD_WINDOW: usize = 160;

/// Whether the sentence before a match (the text since the last `.`, `!` or `?` followed by
/// white space, within [`GUARD_WINDOW`] bytes) has a [`GUARDED`] word.
fn guarded(before: &str, clock: &Clock) -> bool {
    let window = last_bytes(before, GUARD_WINDOW);
    let sentence = window
        .rmatch_indices(['.', '!', '?'])
        .find(|(at, _)| {
            window[at + 1..]
                .chars()
                .next()
                .is_some_and(char::is_whitespace)
        })
        .map_or(window, |(at, _)| &window[at + 1..]);
    clock.is_match(&GUARDED, conditioned(sentence))
}

/// The main clause of a sentence that starts with a condition ("If Acme cannot read your
/// keys, run ..."): a guarding word in the condition ("cannot") guards nothing after it.
fn conditioned(sentence: &str) -> &str {
    let trimmed = sentence.trim_start();
    let condition = [
        "if ", "when ", "once ", "after ", "before ", "since ", "because ", "unless ", "in case ",
    ]
    .iter()
    .any(|word| {
        trimmed
            .get(..word.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(word))
    });
    match sentence.find(", ") {
        Some(comma) if condition => &sentence[comma + 2..],
        _ => sentence,
    }
}

/// The last `length` bytes of `text` at most, from a char boundary.
fn last_bytes(text: &str, length: usize) -> &str {
    let mut start = text.len().saturating_sub(length);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// The first `length` bytes of `text` at most, up to a char boundary.
fn first_bytes(text: &str, length: usize) -> &str {
    let mut end = text.len().min(length);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// What a line holds before a point, read once as the point moves on: the matches of one
/// search come in order, so whether each sits in a quotation or after a comment costs the
/// bytes since the last one, not the whole line before it again (which made a line of
/// quoted matches quadratic).
struct Before<'l> {
    line: &'l str,
    /// How far the line has been read.
    read: usize,
    /// `"`, backticks, `“` and `”` before `read`.
    straight: usize,
    ticks: usize,
    opened: usize,
    closed: usize,
    /// Where the last `#` or `//` before `read` starts.
    comment: Option<usize>,
    /// Where the last of each mark on the whole line is, to tell whether one follows.
    last_straight: Option<usize>,
    last_tick: Option<usize>,
    last_closed: Option<usize>,
}

impl<'l> Before<'l> {
    fn new(line: &'l str, clock: &Clock) -> Self {
        // The line is read twice: once here for the last marks, once as the point moves on.
        clock.count(2 * line.len());
        Self {
            line,
            read: 0,
            straight: 0,
            ticks: 0,
            opened: 0,
            closed: 0,
            comment: None,
            last_straight: line.rfind('"'),
            last_tick: line.rfind('`'),
            last_closed: line.rfind('”'),
        }
    }

    /// Reads the line up to `to` (a char boundary at or after the last point).
    fn advance(&mut self, to: usize) {
        let read = &self.line[self.read..to];
        self.straight += read.matches('"').count();
        self.ticks += read.matches('`').count();
        self.opened += read.matches('“').count();
        self.closed += read.matches('”').count();
        let bytes = self.line.as_bytes();
        // A `//` may start on the byte before what is read now.
        let from = self.read.saturating_sub(1);
        let slashes = memchr::memmem::rfind(&bytes[from..to], b"//").map(|at| from + at);
        let hash = memchr::memrchr(b'#', read.as_bytes()).map(|at| self.read + at);
        self.comment = self.comment.max(slashes).max(hash);
        self.read = to;
    }

    /// Whether the match `line[start..end]` sits inside a quotation or a code span of its
    /// line: an odd number of `"` (or of backticks) before it and one after, or an unclosed
    /// `“`.
    fn quoted(&mut self, start: usize, end: usize) -> bool {
        self.advance(start);
        let after = |last: Option<usize>| last.is_some_and(|last| last >= end);
        (self.straight % 2 == 1 && after(self.last_straight))
            || (self.ticks % 2 == 1 && after(self.last_tick))
            || (self.opened > self.closed && after(self.last_closed))
    }

    /// The comment that the line before `start` (a line of code) ends in, after `#` or
    /// `//`.
    fn comment(&mut self, start: usize) -> Option<&'l str> {
        self.advance(start);
        self.comment.map(|at| &self.line[at..start])
    }
}

/// How a finding quotes what it found: at most this many characters.
const QUOTE: usize = 80;

/// The advice of `rule` on `text` at byte `offset`: what was found (quoted from `offset`,
/// every credential on the line redacted, so that no warning prints one), and `rest`, which
/// says why it matters and how to fix it.
fn finding(rule: AdviceRule, text: &Text<'_>, offset: usize, what: &str, rest: &str) -> Advice {
    let line = text.line_of(offset);
    let quote = excerpt(
        &text.redacted(line, offset - text.line_start(line)),
        0,
        QUOTE,
    );
    let written = text.written_line_of(offset);
    Advice::in_file(
        rule,
        format!("line {written} {what} (\"{quote}\"); {rest}"),
        text.path,
        Some(written),
    )
}

/// Whether `advice` already has a finding on the line of `text` that byte `at` was written on.
fn found_at(advice: &[Advice], text: &Text<'_>, at: usize) -> bool {
    let line = text.written_line_of(at);
    advice
        .iter()
        .any(|advice| advice.file() == text.path && advice.line() == Some(line))
}

/// Whether a match is a regular expression that looks for the command rather than the
/// command: a scanner's `curl .*\| sh`.
fn pattern_like(matched: &str) -> bool {
    ["\\|", ".*", ".+", "\\s", "\\b", "\\w", "\\.", "[^"]
        .iter()
        .any(|mark| matched.contains(mark))
}

/// Hosts that only illustrate: named for an attacker, or reserved for examples. A command to
/// `attacker.com` or `example.com` describes an attack or a shape; it sends nothing anywhere.
/// A name that starts with a dot is a file's, not a host's: `.env.example` is a template of
/// `.env`, and does not make an example of a line that also sends `.env`.
static ILLUSTRATIVE: LazyLock<Regex> = security_regex!(
    r"(?i)\b(?:attacker|attackers|evil|malicious|hacker|badguy)[\w-]*\.[a-z]{2,}\b|\bexample\.(?:com|org|net)\b|(?:^|[^.\w-])[\w-]+(?:\.[\w-]+)*\.(?:example|invalid|test)\b"
);

/// The matches of `regex` in `text` that are instructions, searched on the lines that hold a
/// word of `family`: outside the fenced blocks the text marks as examples, and, in prose, not
/// guarded (or, with `quotes_count`, quoted) in their sentence; in code, not in a comment
/// that guards them. At most one per line, in line order: the first that `accept` (given its
/// offset in `text`) takes, so that a match a rule lets pass does not hide a later one on its
/// line.
fn instructions<'t>(
    regex: &Regex,
    family: Family,
    text: &'t Text<'_>,
    clock: &Clock,
    quotes_count: bool,
    accept: impl Fn(usize, &str) -> bool,
) -> Vec<(usize, &'t str)> {
    let mut found: Vec<(usize, &str)> = Vec::new();
    for &line in text.triggered(family) {
        if text.is_example(line) {
            continue;
        }
        let (start, line_text) = (text.line_start(line), text.line(line));
        let code = text.is_code(line);
        let mut marks = Before::new(line_text, clock);
        let first = clock.find_iter(regex, line_text).find(|matched| {
            let before = &line_text[..matched.start()];
            let excused = if code {
                marks
                    .comment(matched.start())
                    .is_some_and(|comment| guarded(comment, clock))
            } else {
                guarded(before, clock)
                    || (quotes_count && marks.quoted(matched.start(), matched.end()))
            };
            !excused
                && !pattern_like(matched.as_str())
                && accept(start + matched.start(), matched.as_str())
        });
        if family != Family::Injection && clock.is_match(&ILLUSTRATIVE, line_text) {
            continue;
        }
        if let Some(matched) = first {
            found.push((start + matched.start(), matched.as_str()));
        }
    }
    found
}
