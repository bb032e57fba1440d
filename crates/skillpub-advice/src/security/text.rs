//! A file as the security review reads it: its text with CRLF and CR line ends read as LF,
//! where each line starts, which lines are code and which the text marks as an example, and
//! which lines hold the words of each family of rules (`triggers.rs`). A Markdown file's code
//! is its fenced blocks; every line of a script or a data file is code.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use skillpub_core::security::reading;

use super::super::clock::Clock;
use super::super::markdown::fenced_blocks;
use super::triggers::{self, FAMILIES, Family};

/// What kind of file it is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Text an agent reads as instructions: Markdown, plain text, HTML.
    Prose,
    /// A script, a program or a data file.
    Code,
}

/// The extensions of the files an agent reads as instructions; the first three are Markdown.
const PROSE: [&str; 7] = ["md", "mdx", "markdown", "txt", "rst", "html", "htm"];
const MARKDOWN: usize = 3;

/// Words that, in a fence's info string, in the lines just before it, or in the heading of its
/// section, mark the fenced block as an example: something the text quotes, warns against or
/// teaches to spot, not something it asks the agent to do.
static EXAMPLE: LazyLock<Regex> = security_regex!(
    r"(?i)\b(?:e\.g\.|for example|for instance|such as|examples?|samples?|illustrat\w*|attacks?|attackers?|malicious|payloads?|exploits?|injections?|vulnerab\w*|insecure|unsafe|dangerous|bad|wrong|incorrect|anti-?patterns?|red flags?|detect\w*|don'?t|do not|never|avoid|instead of|looks? like|like this|pitfalls?|mistakes?|threats?|poison\w*|jailbreaks?|adversarial|phishing|suspicious|risky|harmful|exfiltration|backdoors?|malware|obfuscat\w*)\b"
);

/// How many lines before a fence may mark it: the sentence that introduces it, and a blank
/// line or two.
const INTRODUCTION: usize = 3;

/// How many bytes at the start of a file are looked at for a NUL, which makes it binary (an
/// image, an archive, a compiled program), as Git and grep decide: a NUL further on (a script
/// that prints one) leaves it text.
const BINARY_PROBE: usize = 8 << 10;

/// One file of the skill, prepared for the security rules.
#[derive(Debug)]
pub(crate) struct Text<'a> {
    /// Its path in the skill, `SKILL.md` for the skill's own.
    pub(crate) path: &'a str,
    pub(crate) kind: Kind,
    /// Whether it is Markdown, where a code span shows what it holds as it is written.
    markdown: bool,
    /// The text, line ends read as LF.
    pub(crate) text: Cow<'a, str>,
    /// The byte offset where each line starts.
    line_starts: Vec<usize>,
    /// The fenced blocks of a Markdown file (line indexes, fences included) and the lines of
    /// its catalogues (see `examples`), in order, each with whether it is code and whether
    /// the text marks it as an example.
    blocks: Vec<(Range<usize>, bool, bool)>,
    /// For each family, the lines that hold one of its words.
    triggered: [Vec<u64>; FAMILIES],
    /// For a reading, where its bytes were written ([`reading::view_with_lines`]); empty for
    /// a file as it is written.
    written_on: Vec<(usize, u64)>,
}

impl<'a> Text<'a> {
    /// The file `path` with these bytes, if it is text: no NUL byte in its first
    /// [`BINARY_PROBE`] bytes. Bytes that are not UTF-8 (a Latin-1 comment in a script) are
    /// read as U+FFFD, so that one of them does not hide the rest of the file from the
    /// review. Reading it is linear in its length: the lines before a fence that may mark it
    /// are at most [`INTRODUCTION`], and each heading is read once.
    pub(crate) fn new(path: &'a str, bytes: &'a [u8], clock: &Clock) -> Option<Self> {
        if memchr::memchr(0, &bytes[..bytes.len().min(BINARY_PROBE)]).is_some() {
            return None;
        }
        let raw = String::from_utf8_lossy(bytes);
        let text = if memchr::memchr(b'\r', bytes).is_some() {
            Cow::Owned(raw.replace("\r\n", "\n").replace('\r', "\n"))
        } else {
            raw
        };
        Some(Self::prepared(path, text, clock))
    }

    /// The file as it is read ([`reading::view`]: invisible characters removed, lookalike
    /// letters folded, continued lines joined, string pieces joined and decoded), if that is
    /// not its text: what the rules of what a text asks for read, where the hidden-text rule
    /// reads the text itself. Its lines are the file's lines.
    pub(crate) fn reading(&self, clock: &Clock) -> Option<Text<'a>> {
        clock.count(self.text.len());
        let (view, written_on) = reading::view_with_lines(&self.text, self.markdown)?;
        let mut text = Self::prepared(self.path, Cow::Owned(view), clock);
        text.written_on = written_on;
        Some(text)
    }

    /// The line (1-based) of the file as written that byte `offset` of this text comes from:
    /// [`line_of`](Self::line_of) for the file itself, the line a statement's part was
    /// written on for its reading. What a finding names, so that it and its suppression
    /// comment are where the author wrote them.
    pub(crate) fn written_line_of(&self, offset: usize) -> u64 {
        if self.written_on.is_empty() {
            return self.line_of(offset);
        }
        let at = self
            .written_on
            .partition_point(|&(start, _)| start <= offset);
        at.checked_sub(1)
            .map_or_else(|| self.line_of(offset), |at| self.written_on[at].1)
    }

    /// The file `path` with the text `text`, line ends already LF.
    fn prepared(path: &'a str, text: Cow<'a, str>, clock: &Clock) -> Self {
        let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
        let markdown = path == skillpub_core::paths::SKILL_MD
            || PROSE[..MARKDOWN]
                .iter()
                .any(|prose| extension.eq_ignore_ascii_case(prose));
        let kind = if markdown
            || PROSE
                .iter()
                .any(|prose| extension.eq_ignore_ascii_case(prose))
        {
            Kind::Prose
        } else {
            Kind::Code
        };
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1))
            .collect();
        let blocks = match kind {
            Kind::Code => Vec::new(),
            Kind::Prose => {
                let blocks = fenced_blocks(&text);
                let (marked, catalogues) = examples(&text, &blocks, clock);
                let mut all: Vec<(Range<usize>, bool, bool)> = blocks
                    .into_iter()
                    .zip(marked)
                    .map(|((lines, _), marked)| (lines, true, marked))
                    .chain(catalogues.into_iter().map(|lines| (lines, false, true)))
                    .collect();
                all.sort_by_key(|(lines, _, _)| lines.start);
                all
            }
        };
        let line_of = |offset: usize| line_starts.partition_point(|&start| start <= offset) as u64;
        let triggered = triggers::lines(&text, line_of, clock);
        Self {
            path,
            kind,
            markdown,
            text,
            line_starts,
            blocks,
            triggered,
            written_on: Vec::new(),
        }
    }

    /// The line (1-based) that holds byte `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> u64 {
        self.line_starts.partition_point(|&start| start <= offset) as u64
    }

    /// The byte offset where line `line` (1-based) starts.
    pub(crate) fn line_start(&self, line: u64) -> usize {
        let index = (line as usize).saturating_sub(1);
        self.line_starts
            .get(index)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// The text of line `line` (1-based), without its line end.
    pub(crate) fn line(&self, line: u64) -> &str {
        let index = (line as usize).saturating_sub(1);
        let start = self.line_start(line);
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |next| next - 1);
        &self.text[start..end.max(start)]
    }

    /// Line `line` from its byte `from` on, every credential on it redacted
    /// ([`skillpub_core::security::redact`]): what a finding may quote. It reads the line
    /// once, and a line gets at most one finding of each rule.
    pub(crate) fn redacted(&self, line: u64, from: usize) -> String {
        skillpub_core::security::redact(self.line(line), from)
    }

    /// The text of the line that holds `offset`, up to `offset`.
    pub(crate) fn before(&self, offset: usize) -> &str {
        &self.text[self.line_start(self.line_of(offset))..offset]
    }

    /// The fenced block or catalogue line that holds line `line`.
    fn block(&self, line: u64) -> Option<&(Range<usize>, bool, bool)> {
        let index = (line as usize).saturating_sub(1);
        let at = self
            .blocks
            .partition_point(|(lines, _, _)| lines.end <= index);
        self.blocks
            .get(at)
            .filter(|(lines, _, _)| lines.contains(&index))
    }

    /// Whether line `line` is code.
    pub(crate) fn is_code(&self, line: u64) -> bool {
        self.kind == Kind::Code || self.block(line).is_some_and(|(_, code, _)| *code)
    }

    /// Whether line `line` is in a fenced block or a catalogue the text marks as an example.
    pub(crate) fn is_example(&self, line: u64) -> bool {
        self.block(line).is_some_and(|(_, _, example)| *example)
    }

    /// The code spans of line `line` of a Markdown file, as byte ranges of the line, each
    /// from its opening backticks to the end of its closing ones; none in any other file.
    /// A run of backticks opens a span only if a run of the same length closes it later on
    /// the line (CommonMark; a span across lines is not read): an unclosed one is shown as
    /// written, and so hides nothing. Linear in the line: for each length of run, the next
    /// run of that length is looked for from where the last search for it stopped.
    pub(crate) fn code_spans(&self, line: u64, clock: &Clock) -> Vec<Range<usize>> {
        let text = self.line(line);
        if !self.markdown {
            return Vec::new();
        }
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for _ in clock.bounded(std::iter::once(text), |text| text.len()) {
            let bytes = text.as_bytes();
            let mut at = 0;
            while let Some(found) = memchr::memchr(b'`', &bytes[at..]) {
                let start = at + found;
                let end = start + bytes[start..].iter().take_while(|&&b| b == b'`').count();
                runs.push((start, end - start));
                at = end;
            }
        }
        // For each length, the indexes of its runs in order, and how far the search went.
        let mut of_length: std::collections::HashMap<usize, (Vec<usize>, usize)> =
            std::collections::HashMap::new();
        for (index, &(_, length)) in runs.iter().enumerate() {
            of_length.entry(length).or_default().0.push(index);
        }
        let mut spans = Vec::new();
        let mut index = 0;
        while let Some(&(start, length)) = runs.get(index) {
            let (indexes, cursor) = of_length.entry(length).or_default();
            while indexes.get(*cursor).is_some_and(|&other| other <= index) {
                *cursor += 1;
            }
            match indexes.get(*cursor) {
                Some(&close) => {
                    let (close_start, close_length) = runs[close];
                    spans.push(start..close_start + close_length);
                    index = close + 1;
                }
                None => index += 1,
            }
        }
        spans
    }

    /// How many lines the text has.
    pub(crate) fn line_count(&self) -> u64 {
        self.line_starts.len() as u64
    }

    /// Whether line `line` holds one of the words of `family`.
    pub(crate) fn is_triggered(&self, family: Family, line: u64) -> bool {
        self.triggered(family).binary_search(&line).is_ok()
    }

    /// The lines that hold one of the words of `family`.
    pub(crate) fn triggered(&self, family: Family) -> &[u64] {
        triggers::of(&self.triggered, family)
    }
}

/// For each fenced block, whether the text marks it as an example: by the fence's info
/// string, by one of the [`INTRODUCTION`] lines before the fence, or by a heading of the
/// sections it is in (a heading marks its subsections too); and the lines outside fences
/// that the text marks: the rows of a table and the items of a list under a heading that
/// marks its section, a catalogue of what it describes rather than instructions. Each line is
/// read at most [`INTRODUCTION`] + 1 times.
fn examples(
    text: &str,
    blocks: &[(Range<usize>, &str)],
    clock: &Clock,
) -> (Vec<bool>, Vec<Range<usize>>) {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut marked = Vec::with_capacity(blocks.len());
    let mut catalogues = Vec::new();
    // The headings above, as (level, whether it marks its section).
    let mut path: Vec<(usize, bool)> = Vec::new();
    let mut read = 0;
    let ends = blocks
        .iter()
        .map(|(block, _)| block.start)
        .chain([lines.len()]);
    for (at, end) in ends.enumerate() {
        for (index, line) in lines.iter().enumerate().take(end).skip(read) {
            let level = line.len() - line.trim_start_matches('#').len();
            if (1..=6).contains(&level) && line[level..].starts_with([' ', '\t']) {
                path.retain(|&(above, _)| above < level);
                path.push((level, clock.is_match(&EXAMPLE, line)));
            } else if path.iter().any(|&(_, marks)| marks) && catalogue(line) {
                catalogues.push(index..index + 1);
            }
        }
        let Some((block, info)) = blocks.get(at) else {
            break;
        };
        read = block.end;
        let introduced = lines[block.start.saturating_sub(INTRODUCTION)..block.start]
            .iter()
            .any(|before| clock.is_match(&EXAMPLE, before));
        let heading_marks = path.iter().any(|&(_, marks)| marks);
        marked.push(heading_marks || introduced || clock.is_match(&EXAMPLE, info));
    }
    (marked, catalogues)
}

/// Whether a line outside fences is a row of a table or an item of a list.
fn catalogue(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with('|')
        || line.starts_with("- ")
        || line.starts_with("* ")
        || line.starts_with("+ ")
        || line.split_once(". ").is_some_and(|(number, _)| {
            !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
        })
}
