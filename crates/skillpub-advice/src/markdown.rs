//! The little Markdown the rules need, read line by line as CommonMark does: fenced code,
//! HTML comments, headings, bold labels and code spans. Nothing is rendered; every position
//! maps back to its line in the `SKILL.md`.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::clock::Clock;

/// The body of a `SKILL.md` (everything after the frontmatter), split into prose and code.
#[derive(Debug)]
pub(super) struct Markdown {
    /// The body, with CRLF and CR line ends read as LF.
    text: String,
    /// The line of the `SKILL.md` where the body starts (1-based).
    first_line: u64,
    /// For each line of `text`: whether it belongs to a fenced code block (fences included).
    code: Vec<bool>,
    /// `text` with fenced code lines emptied and HTML comments blanked, line for line, so an
    /// offset in it has the same line as in `text`.
    prose: String,
    /// The byte offset where each line of `prose` starts.
    line_starts: Vec<usize>,
}

impl Markdown {
    /// Reads a body that starts on line `first_line` of its file.
    pub(super) fn new(body: &str, first_line: u64) -> Self {
        let text = body.replace("\r\n", "\n").replace('\r', "\n");
        let code = fenced_lines(&text);
        let emptied: Vec<&str> = text
            .split('\n')
            .zip(&code)
            .map(|(line, &code)| if code { "" } else { line })
            .collect();
        let prose = blank_comments(&emptied.join("\n"));
        let line_starts = std::iter::once(0)
            .chain(prose.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Self {
            text,
            first_line,
            code,
            prose,
            line_starts,
        }
    }

    /// The whole body.
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// The body outside fenced code and HTML comments, line for line.
    pub(super) fn prose(&self) -> &str {
        &self.prose
    }

    /// Each line with whether it is fenced code, until the deadline.
    pub(super) fn lines<'a: 'c, 'c>(
        &'a self,
        clock: &'c Clock,
    ) -> impl Iterator<Item = (&'a str, bool)> + 'c {
        let lines = self.text.split('\n').zip(self.code.iter().copied());
        clock.bounded(lines, |(line, _)| line.len() + 1)
    }

    /// The lines of fenced code (fences included), with their line in the `SKILL.md`, until
    /// the deadline.
    pub(super) fn code_lines<'a: 'c, 'c>(
        &'a self,
        clock: &'c Clock,
    ) -> impl Iterator<Item = (u64, &'a str)> + 'c {
        self.lines(clock)
            .zip(self.first_line..)
            .filter_map(|((line, code), number)| code.then_some((number, line)))
    }

    /// The line of the `SKILL.md` that holds byte `offset` of [`prose`](Self::prose).
    pub(super) fn line_of(&self, offset: usize) -> u64 {
        let index = self.line_starts.partition_point(|&start| start <= offset);
        self.first_line + index.saturating_sub(1) as u64
    }

    /// The ATX (`# Title`) and setext (`Title` over `===` or `---`) headings outside code, as
    /// (level, text), until the deadline.
    pub(super) fn headings(&self, clock: &Clock) -> Vec<(usize, &str)> {
        static ATX: LazyLock<Regex> = lazy_regex!(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$");
        static UNDERLINE: LazyLock<Regex> = lazy_regex!(r"^ {0,3}(=+|-+)[ \t]*$");
        static LIST_ITEM: LazyLock<Regex> = lazy_regex!(r"^\s*[-*+]\s");
        let mut headings = Vec::new();
        let mut previous: Option<&str> = None;
        for (line, code) in self.lines(clock) {
            if code {
                previous = None;
                continue;
            }
            if let Some(heading) = clock.captures(&ATX, line) {
                let text = heading.get(2).map_or("", |text| text.as_str().trim());
                headings.push((heading[1].len(), text));
                previous = None;
                continue;
            }
            if let Some(above) = previous
                && !above.trim().is_empty()
                && !clock.is_match(&LIST_ITEM, above)
                && clock.is_match(&UNDERLINE, line)
            {
                let level = if line.contains('=') { 1 } else { 2 };
                headings.push((level, above.trim()));
                previous = None;
                continue;
            }
            previous = Some(line);
        }
        headings
    }

    /// The labels that stand in for headings outside code: a line that is only a bold label
    /// (`**Output**`, `**Errors:**`), or a paragraph or list item that opens with a bold label
    /// and a colon (`**Errors:** ...`, `- **Rate limits**: ...`). Bold words in running text
    /// or in lists of names are not labels. Until the deadline.
    pub(super) fn bold_labels(&self, clock: &Clock) -> Vec<&str> {
        static ALONE: LazyLock<Regex> =
            lazy_regex!(r"^\s*(?:\*\*|__)([^*_\n]{2,60}?)(?:\*\*|__)\s*:?\s*$");
        static LEADING: LazyLock<Regex> = lazy_regex!(
            r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)([^*_\n]{2,60}?)(?::(?:\*\*|__)|(?:\*\*|__)\s*:)",
        );
        self.lines(clock)
            .filter(|(_, code)| !code)
            .filter_map(|(line, _)| {
                clock
                    .captures(&ALONE, line)
                    .or_else(|| clock.captures(&LEADING, line))
            })
            .filter_map(|label| label.get(1))
            .map(|label| label.as_str().trim().trim_end_matches(':'))
            .collect()
    }
}

/// A fence line: up to three spaces, then three or more backticks or tildes, then the rest.
/// Returns the fence's character, its length and the rest.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let line = &line[indent..];
    let mark = line.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let length = line.len() - line.trim_start_matches(mark).len();
    (length >= 3).then(|| (mark, length, &line[length..]))
}

/// For each line, whether it is inside a fenced code block, fences included. A fence opens
/// with three or more backticks (with no backtick in the info string) or tildes, and closes
/// at a line of the same character, at least as many, and nothing else; an unclosed fence
/// runs to the end.
fn fenced_lines(text: &str) -> Vec<bool> {
    let mut open: Option<(char, usize)> = None;
    text.split('\n')
        .map(|line| {
            let fence = fence(line);
            match open {
                None => {
                    if let Some((mark, length, info)) = fence
                        && !(mark == '`' && info.contains('`'))
                    {
                        open = Some((mark, length));
                    }
                    open.is_some()
                }
                Some((mark, length)) => {
                    if let Some((closing, closing_length, rest)) = fence
                        && closing == mark
                        && closing_length >= length
                        && rest.trim().is_empty()
                    {
                        open = None;
                    }
                    true
                }
            }
        })
        .collect()
}

/// `text` with every `<!-- ... -->` replaced by the line ends it spans.
fn blank_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        let Some(length) = rest[start + 4..].find("-->") else {
            break;
        };
        let end = start + 4 + length + 3;
        out.push_str(&rest[..start]);
        out.extend(rest[start..end].matches('\n'));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The code spans of one line, as (byte offset of the opening backticks, byte range of the
/// content): a run of N backticks opens a span that the next run of exactly N closes; a run
/// that nothing closes is text. One pass finds, for each run, the next run of its length.
pub(super) fn code_spans(line: &str) -> Vec<(usize, Range<usize>)> {
    let mut runs = Vec::new();
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let start = at;
            while at < bytes.len() && bytes[at] == b'`' {
                at += 1;
            }
            runs.push((start, at - start));
        } else {
            at += 1;
        }
    }
    let mut closing = vec![None; runs.len()];
    let mut next_of_length: HashMap<usize, usize> = HashMap::new();
    for (index, &(_, length)) in runs.iter().enumerate().rev() {
        closing[index] = next_of_length.insert(length, index);
    }
    let mut spans = Vec::new();
    let mut next = 0;
    while next < runs.len() {
        let (start, length) = runs[next];
        match closing[next] {
            Some(close) => {
                spans.push((start, start + length..runs[close].0));
                next = close + 1;
            }
            None => next += 1,
        }
    }
    spans
}

/// Whether a character is a word character as `\w` reads it: a letter, a digit or `_`.
pub(super) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text with every run of white space made one space, and none at either end.
pub(super) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A short quote of `text` from byte `start`: at most `limit` characters, ending at a word
/// boundary when cut, with `…` when cut.
pub(super) fn excerpt(text: &str, start: usize, limit: usize) -> String {
    let rest = &text[start..];
    match rest.char_indices().nth(limit) {
        None => rest.to_owned(),
        Some((cut, _)) => {
            let shown = &rest[..cut];
            let shown = shown.rfind(' ').map_or(shown, |space| &shown[..space]);
            format!("{}…", shown.trim_end())
        }
    }
}

/// How many lines an editor shows: each line end (`\n`, `\r\n` or `\r`) ends one, and text
/// after the last one is one more.
pub(crate) fn line_count(text: &str) -> usize {
    let bytes = text.as_bytes();
    let ends = bytes
        .iter()
        .enumerate()
        .filter(|&(at, &b)| b == b'\n' || (b == b'\r' && bytes.get(at + 1) != Some(&b'\n')))
        .count();
    let unterminated = !text.is_empty() && !text.ends_with(['\n', '\r']);
    ends + usize::from(unterminated)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markdown(body: &str) -> Markdown {
        Markdown::new(body, 5)
    }

    #[test]
    fn fenced_code_follows_commonmark() {
        let body = "a\n```sh\nb\n```\nc\n~~~~\n```\n~~~\nd\n~~~~\ne\n``` x`y\nf\n````\ng\n```\nh";
        let md = markdown(body);
        let flags: Vec<(&str, bool)> = md.lines(&Clock::unlimited()).collect();
        assert_eq!(
            flags,
            [
                ("a", false),
                ("```sh", true),
                ("b", true),
                ("```", true),
                ("c", false),
                ("~~~~", true),
                ("```", true),
                ("~~~", true),
                ("d", true),
                ("~~~~", true),
                ("e", false),
                ("``` x`y", false),
                ("f", false),
                ("````", true),
                ("g", true),
                ("```", true),
                ("h", true),
            ]
        );
    }

    #[test]
    fn prose_keeps_every_line_without_code_and_comments() {
        let body = "a <!-- one\ntwo --> b\n```\ncode\n```\nc <!-- open";
        let md = markdown(body);
        assert_eq!(md.prose(), "a \n b\n\n\n\nc <!-- open");
        assert_eq!(md.line_of(md.prose().find('c').unwrap()), 10);
        assert_eq!(md.line_of(0), 5);
    }

    #[test]
    fn crlf_is_read_as_lf() {
        assert_eq!(markdown("a\r\nb\rc").text(), "a\nb\nc");
    }

    #[test]
    fn headings_are_atx_or_setext_outside_code() {
        let body = "# Title #\n\n## When to use\nText\n===\n- item\n---\n```\n# not\n```\n####### seven\n#tag\nEnd\n---";
        assert_eq!(
            markdown(body).headings(&Clock::unlimited()),
            [(1, "Title"), (2, "When to use"), (1, "Text"), (2, "End")]
        );
    }

    #[test]
    fn bold_labels_are_alone_or_lead_with_a_colon() {
        let body = "**Output**\n- **Rate limits**: 10/s\n**Errors:** none\n1. __Scope__ :\nSee **this** and that\n- **Tasks** → list\n```\n**Code**\n```";
        assert_eq!(
            markdown(body).bold_labels(&Clock::unlimited()),
            ["Output", "Rate limits", "Errors", "Scope"]
        );
    }

    #[test]
    fn code_spans_pair_runs_of_equal_length() {
        let line = "a `b` c ``d ` e`` `` f";
        let spans: Vec<(usize, &str)> = code_spans(line)
            .into_iter()
            .map(|(start, content)| (start, &line[content]))
            .collect();
        assert_eq!(spans, [(2, "b"), (8, "d ` e")]);
        assert_eq!(code_spans("``` x `y` z"), [(6, 7..8)]);
        assert!(code_spans("no `span").is_empty());
    }

    #[test]
    fn excerpts_end_at_a_word() {
        assert_eq!(excerpt("one two three", 4, 20), "two three");
        assert_eq!(excerpt("one two three four", 0, 10), "one two…");
    }

    macro_rules! lines {
        ($name:ident, $text:expr, $count:expr) => {
            #[test]
            fn $name() {
                assert_eq!(line_count($text), $count);
            }
        };
    }

    lines!(empty_has_no_line, "", 0);
    lines!(a_final_line_end_adds_none, "a\nb\n", 2);
    lines!(a_last_line_without_end_counts, "a\nb", 2);
    lines!(crlf_counts_once, "a\r\nb\r\n", 2);
    lines!(a_lone_cr_ends_a_line, "a\rb", 2);
    lines!(blank_lines_count, "\n\n", 2);
}
