//! `link.missing-file` and `link.leaves-skill`: the references of a `SKILL.md` to files of
//! its skill. A skill is published as its own folder, so a reference to a file it does not
//! contain, or to one outside its folder, breaks for every agent that loads it.
//!
//! Three kinds of reference are read: Markdown links (inline, reference definitions, and
//! `href`/`src` of HTML tags), which always count, since a link is explicit; and paths in code
//! spans and in fenced code, which count only when they are clearly the skill's own files.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::advice::Advice;
use crate::clock::Clock;
use crate::input::Input;
use crate::markdown::code_spans;
use crate::rule::AdviceRule;

#[cfg(test)]
mod quadratic;

/// `[text](target "title")`. The text may hold brackets one deep, and an angle-bracket
/// target no `<`, as CommonMark says: a bracket or a `<` that may hold more of them would let
/// an unclosed one read to the end of its line for every link after it, in quadratic time.
static INLINE_LINK: LazyLock<Regex> = lazy_regex!(
    r#"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(<[^<>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)"#
);
/// `[label]: target`, not a footnote (`[^1]: text`).
static REFERENCE_DEFINITION: LazyLock<Regex> =
    lazy_regex!(r"(?m)^ {0,3}\[[^\]\n^][^\]\n]*\]:\s*(<[^>\n]*>|\S+)");
static HTML_LINK: LazyLock<Regex> = lazy_regex!(
    r#"(?i)<(?:a|img|link|script|source)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']"#
);
/// A path-shaped token in fenced code: `references/api.md`, `./scripts/run.sh`,
/// `${SKILL_DIR}/data/x.csv`.
static PATH_TOKEN: LazyLock<Regex> =
    lazy_regex!(r"(?:^|[^\w./$-])((?:\.\.?/)?(?:\$\{?\w+\}?/|\{\w+\}/)?[\w.-]+/[\w./-]*[\w/])");
static SCHEME: LazyLock<Regex> = lazy_regex!(r"^[A-Za-z][A-Za-z0-9+.-]*:");
static DRIVE: LazyLock<Regex> = lazy_regex!(r"^[A-Za-z]:[\\/]");
/// The skill's own folder spelled as a variable or a placeholder.
static SKILL_DIR: LazyLock<Regex> = lazy_regex!(
    r"^(?:\$\{?(?:CLAUDE_SKILL_DIR|SKILL_DIR|SKILL_ROOT|SKILL_PATH|skill_dir|BASE_DIR|baseDir)\}?|\{(?:baseDir|skill_dir|SKILL_DIR|skillDir)\}|<skill[-_ ]?(?:dir|root|path|folder)>|SKILL_DIR)/"
);
/// A path that stands for any path: `path/to/file.md`, `your-file.md`, `<name>.md`.
static PLACEHOLDER_PATH: LazyLock<Regex> = lazy_regex!(
    r"(?i)[{}<>$*?|^\[\]]|\.\.\.|…|\bpath/to\b|\byour[-_]|\bmy[-_]|\bexample[-_./]|\bfoo\b|\bbar\b|\bxxx\b|\bsome[-_]?"
);
/// A file name that stands for any file: `scripts/script_name.py`, `phases/phaseN.md`.
static PLACEHOLDER_NAME: LazyLock<Regex> = lazy_regex!(
    r"(?i)(?:^|/)(?:script_name|scriptname|filename|file_name|file|name|xxx|foo|bar|baz|example|sample|your_\w+|my_\w+)\.\w+$|(?-i:[a-z]N)\.\w+$"
);
static FILE_EXTENSION: LazyLock<Regex> = lazy_regex!(
    r"(?i)\.(?:md|txt|py|sh|js|mjs|ts|json|ya?ml|toml|csv|html|xml|sql|rb|ps1|bat|ipynb)$"
);
/// The text before a path ends in an interpreter: `python scripts/x.py`.
static INTERPRETER: LazyLock<Regex> = lazy_regex!(
    r#"(?:^|[\s;&|(`$])(?:python3?|py|bash|sh|zsh|node|deno run|bun(?: run)?|tsx|npx tsx|ts-node|uv run(?: --\S+)*|ruby|perl|pwsh|powershell(?: -File)?|Rscript|source|\.)\s+["']?$"#
);
/// The text before a path says it is an example.
static EXAMPLE: LazyLock<Regex> =
    lazy_regex!(r"(?i)\b(?:e\.g\.|for example|for instance|examples?\b|such as|i\.e\.)");
/// `../../etc/passwd` and the like lead to the machine's folders, not a sibling skill.
static SYSTEM_FOLDER: LazyLock<Regex> =
    lazy_regex!(r"(?i)^(?:etc|usr|var|proc|dev|tmp|bin|home|root|windows)(?:/|$)");
static LINE_NUMBER: LazyLock<Regex> = lazy_regex!(r":\d+$");
static WORD: LazyLock<Regex> = lazy_regex!(r"\S+");

/// Where a reference was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A Markdown or HTML link.
    Link,
    /// A path in a code span.
    CodeSpan,
    /// A path in fenced code.
    CodeBlock,
}

/// A reference to a file, as written, and its line in the `SKILL.md`.
#[derive(Debug)]
struct Reference<'a> {
    kind: Kind,
    target: &'a str,
    line: u64,
}

/// What a reference leads to.
#[derive(Debug, PartialEq, Eq)]
enum Resolution {
    /// Not a reference to a file of the skill: a URL, an anchor, an absolute path, a
    /// placeholder.
    Skipped,
    /// A file or folder of the skill.
    Found,
    /// Nothing in the skill has this path; with the path that differs only in letter case,
    /// if any.
    Missing {
        path: String,
        other_case: Option<String>,
    },
    /// This path is outside the skill folder.
    Outside { path: String },
}

impl Resolution {
    /// The normalized path of a reference that the advice is about.
    fn path(&self) -> Option<&str> {
        match self {
            Self::Missing { path, .. } | Self::Outside { path } => Some(path),
            Self::Skipped | Self::Found => None,
        }
    }
}

/// The text before a path in code, on its line, which says whether the path is an example
/// or a script run by an interpreter: for a path in a code span, the line before the span
/// and the span before the path, the span's backticks left out; for a path in fenced code,
/// the line before it.
///
/// Whether it holds an example is known in constant time from the first example of the
/// line and of the span, found once for all their paths: an example is at most
/// [`EXAMPLE_LENGTH`] bytes, so an example that ends before them holds for every later path,
/// and one that ends at the path lies in the last [`EXAMPLE_LENGTH`] bytes.
struct Before<'a> {
    /// The text, as one string.
    text: &'a str,
    /// An example of the line or the span ends before the end of `text`, so `text` holds it
    /// whatever follows.
    example_before: bool,
    /// Where the examples that `example_before` does not cover may start: at most
    /// [`EXAMPLE_LENGTH`] bytes before the end of `text`.
    window: usize,
}

impl Before<'_> {
    fn has_example(&self, clock: &Clock) -> bool {
        self.example_before || clock.is_match_at(&EXAMPLE, self.text, self.window)
    }

    /// Searches only the window of [`interpreter_window`]: the text before it cannot hold
    /// a match, and reading it for every path of a line would be quadratic (the regex crate
    /// happens to read an end-anchored pattern backwards from the end, but need not).
    fn ends_in_interpreter(&self, clock: &Clock) -> bool {
        clock.is_match_at(&INTERPRETER, self.text, interpreter_window(self.text))
    }
}

/// The longest match of [`INTERPRETER`] without `uv run`'s options, the white space and the
/// quote: the character before the interpreter (up to 3 bytes of white space) and
/// `powershell -File`. Checked by `the_longest_interpreter_is_known`.
const INTERPRETER_REACH: usize = 19;

/// Where a match of [`INTERPRETER`] in `text` may start. A match ends at the end of the
/// text, after one quote at most and a run of white space, which follows the interpreter and,
/// for `uv run`, its options (` --x`, each a space, `--` and no white space): the window is
/// that tail, the options and [`INTERPRETER_REACH`] bytes before them. Each step back reads
/// only the part it passes over, so finding the window reads the window.
fn interpreter_window(text: &str) -> usize {
    let command = text.strip_suffix(['"', '\'']).unwrap_or(text).trim_end();
    let mut end = command.len();
    while let Some(space) = command[..end].rfind(char::is_whitespace)
        && command[space..].starts_with(' ')
        && command[space + 1..end].starts_with("--")
        && end - space > 3
    {
        end = space;
    }
    boundary_before(text, end.saturating_sub(INTERPRETER_REACH))
}

/// The longest match of [`EXAMPLE`] in bytes ("for instance" with `ſ`, which folds to `s`),
/// checked by `the_longest_example_is_known`.
const EXAMPLE_LENGTH: usize = 13;

/// The end of the first example in `text` from `start`, looking behind `start` for word
/// boundaries.
fn first_example_end(text: &str, start: usize, clock: &Clock) -> Option<usize> {
    clock
        .find_at(&EXAMPLE, text, start)
        .map(|found| found.end())
}

/// The largest character boundary of `text` at or before `at`.
fn boundary_before(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&at| text.is_char_boundary(at))
        .unwrap_or(0)
}

/// Every reference of the body, in the order: links, code spans, fenced code.
fn references<'a>(input: &'a Input<'_>) -> Vec<Reference<'a>> {
    let (body, clock) = (&input.body, &input.clock);
    let prose = body.prose();
    let mut found = Vec::new();
    for (pattern, group) in [
        (&INLINE_LINK, 3),
        (&REFERENCE_DEFINITION, 1),
        (&HTML_LINK, 1),
    ] {
        for link in clock.captures_iter(pattern, prose) {
            if let Some(target) = link.get(group) {
                found.push(Reference {
                    kind: Kind::Link,
                    target: target.as_str(),
                    line: body.line_of(target.start()),
                });
            }
        }
    }
    let mut line_start = 0;
    // The line up to the current span, then the span's content: built once per line, so
    // each byte is copied at most twice.
    let mut before = String::new();
    for line in clock.bounded(prose.split('\n'), |line| line.len() + 1) {
        let spans = code_spans(line);
        let line_example = (!spans.is_empty()).then(|| first_example_end(line, 0, clock));
        before.clear();
        let mut copied = 0;
        for (start, content) in clock.bounded(spans.into_iter(), |(_, content)| content.len()) {
            before.truncate(copied);
            before.push_str(&line[copied..start]);
            copied = start;
            before.push_str(&line[content.clone()]);
            let window = boundary_before(&before, start.saturating_sub(EXAMPLE_LENGTH));
            let span_example = first_example_end(&before, window, clock);
            let example_before_span = line_example.flatten().is_some_and(|end| end < start);
            for word in clock.find_iter(&WORD, &line[content.clone()]) {
                let part = word
                    .as_str()
                    .trim_matches(['\'', '"', ',', ';', ':', '(', ')']);
                if !part.contains('/') || clock.is_match(&LINE_NUMBER, part) {
                    continue;
                }
                let end = start + word.start();
                let context = Before {
                    text: &before[..end],
                    example_before: example_before_span
                        || span_example.is_some_and(|example| example < end),
                    window: window
                        .max(boundary_before(&before, end.saturating_sub(EXAMPLE_LENGTH))),
                };
                if is_skill_path(part, &context, input) {
                    found.push(Reference {
                        kind: Kind::CodeSpan,
                        target: part,
                        line: body.line_of(line_start + content.start + word.start()),
                    });
                }
            }
        }
        line_start += line.len() + 1;
    }
    for (number, line) in body
        .code_lines(clock)
        .filter(|(_, line)| line.contains('/'))
    {
        let line_example = first_example_end(line, 0, clock);
        for token in clock.captures_iter(&PATH_TOKEN, line) {
            let Some(path) = token.get(1) else { continue };
            let after = &line[path.end()..];
            let cites_a_line =
                after.starts_with(':') && after[1..].starts_with(|c: char| c.is_ascii_digit());
            let at = path.start();
            let context = Before {
                text: &line[..at],
                example_before: line_example.is_some_and(|end| end < at),
                window: boundary_before(line, at.saturating_sub(EXAMPLE_LENGTH)),
            };
            if !cites_a_line && is_skill_path(path.as_str(), &context, input) {
                found.push(Reference {
                    kind: Kind::CodeBlock,
                    target: path.as_str(),
                    line: number,
                });
            }
        }
    }
    found
}

/// Whether a path in code is meant as a file of the skill, `before` being the text of its
/// line before it. It must have a folder and a known extension (or end in `/`), not be a
/// placeholder or an example, and start with the skill's folder variable, a folder the skill
/// has, or be a script run by an interpreter (`python scripts/x.py`). `../` paths count
/// when they name a file or folder, unless they lead into the machine's system folders.
fn is_skill_path(token: &str, before: &Before<'_>, input: &Input<'_>) -> bool {
    let (files, clock) = (&input.files, &input.clock);
    let raw = token.trim();
    if !raw.contains('/') {
        return false;
    }
    let path = clock.replace(&SKILL_DIR, raw, "");
    let anchored = path.len() != raw.len();
    if path.is_empty() || clock.is_match(&SCHEME, &path) || path.starts_with(['/', '~', '-']) {
        return false;
    }
    let names_a_file = clock.is_match(&FILE_EXTENSION, &path) || path.ends_with('/');
    if path.starts_with("../") {
        let rest = path.trim_start_matches("../");
        return !clock.is_match(&SYSTEM_FOLDER, rest) && names_a_file && !before.has_example(clock);
    }
    let path = path.strip_prefix("./").unwrap_or(&path);
    let Some((first, rest)) = path.split_once('/') else {
        return false;
    };
    if rest.is_empty()
        || !names_a_file
        || clock.is_match(&PLACEHOLDER_NAME, path)
        || before.has_example(clock)
    {
        return false;
    }
    anchored || files.has_folder(first) || (first == "scripts" && before.ends_in_interpreter(clock))
}

/// Where a reference leads.
fn resolve(target: &str, input: &Input<'_>) -> Resolution {
    let (files, clock) = (&input.files, &input.clock);
    let target = clean(target);
    if target.is_empty()
        || target.starts_with('#')
        || target.starts_with("//")
        || clock.is_match(&SCHEME, target)
    {
        return Resolution::Skipped;
    }
    let target = target.split(['#', '?']).next().unwrap_or_default();
    let decoded = percent_decode(target);
    let path = clock.replace(&SKILL_DIR, &decoded, "");
    if path.starts_with(['/', '~'])
        || clock.is_match(&DRIVE, &path)
        || clock.is_match(&PLACEHOLDER_PATH, &path)
        || path.contains(char::is_whitespace)
        || !path.contains(['/', '.'])
    {
        return Resolution::Skipped;
    }
    let path = normalize(&path);
    if path == "." {
        Resolution::Skipped
    } else if path == ".." || path.starts_with("../") {
        Resolution::Outside { path }
    } else if files.contains(&path) {
        Resolution::Found
    } else {
        let other_case = files.ignoring_case(&path).map(str::to_owned);
        Resolution::Missing { path, other_case }
    }
}

/// The target without white space around it or `<...>` brackets.
fn clean(target: &str) -> &str {
    let target = target.trim();
    target
        .strip_prefix('<')
        .and_then(|inner| inner.strip_suffix('>'))
        .map_or(target, str::trim)
}

/// `%XX` escapes decoded, as a URL path is read.
fn percent_decode(text: &str) -> Cow<'_, str> {
    if !text.contains('%') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes
            .get(at + 1..at + 3)
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (bytes[at], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                at += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    Cow::Owned(String::from_utf8_lossy(&decoded).into_owned())
}

/// The path with `.`, empty segments and `name/..` pairs removed; leading `..` are kept.
fn normalize(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." if segments.last().is_some_and(|last| *last != "..") => {
                segments.pop();
            }
            _ => segments.push(segment),
        }
    }
    if segments.is_empty() {
        ".".to_owned()
    } else {
        segments.join("/")
    }
}

/// `link.missing-file`: one advice per target that names nothing in the skill, at its first
/// line.
pub(super) fn missing_files(input: &Input<'_>) -> Vec<Advice> {
    once_per_target(input, |reference, resolution| match resolution {
        Resolution::Missing { other_case, .. } => {
            let case = other_case
                .as_ref()
                .map(|path| format!(" (it has \"{path}\": letter case differs)"))
                .unwrap_or_default();
            Some(Advice::new(
                AdviceRule::LinkMissingFile,
                format!(
                    "SKILL.md refers to \"{}\", which the skill does not contain{case}",
                    clean(reference.target)
                ),
                Some(reference.line),
            ))
        }
        _ => None,
    })
}

/// `link.leaves-skill`: one advice per target outside the skill folder, at its first line.
/// Paths in fenced code are not held to it: a `../` there is too often a path in the user's
/// own project.
pub(super) fn leaving_skill(input: &Input<'_>) -> Vec<Advice> {
    once_per_target(input, |reference, resolution| {
        let outside = matches!(resolution, Resolution::Outside { .. });
        (outside && reference.kind != Kind::CodeBlock).then(|| {
            Advice::new(
                AdviceRule::LinkLeavesSkill,
                format!(
                    "SKILL.md refers to \"{}\", outside the skill folder; a published skill carries only its own folder",
                    clean(reference.target)
                ),
                Some(reference.line),
            )
        })
    })
}

/// The advice `judge` gives on the references, the first for each path they lead to, in line
/// order.
fn once_per_target(
    input: &Input<'_>,
    judge: impl Fn(&Reference<'_>, &Resolution) -> Option<Advice>,
) -> Vec<Advice> {
    let mut references = references(input);
    references.sort_by_key(|reference| reference.line);
    let mut seen = BTreeSet::new();
    input
        .clock
        .bounded(references.into_iter(), |reference| reference.target.len())
        .filter_map(|reference| {
            let resolution = resolve(reference.target, input);
            let path = resolution.path().filter(|path| !seen.contains(*path))?;
            let advice = judge(&reference, &resolution)?;
            seen.insert(path.to_owned());
            Some(advice)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::input_with_files;
    use super::*;

    /// The targets reported by a rule for a body and a skill's files, with their lines.
    fn reported(body: &str, files: &[&str]) -> Vec<(&'static str, String, u64)> {
        let input = input_with_files(body, files);
        let mut out = missing_files(&input);
        out.extend(leaving_skill(&input));
        out.iter()
            .map(|advice| {
                let message = advice.message();
                let target = message.split('"').nth(1).unwrap_or_default().to_owned();
                (advice.rule().code(), target, advice.line().unwrap())
            })
            .collect()
    }

    const FILES: &[&str] = &[
        "references/api.md",
        "references/Security.md",
        "scripts/run.py",
    ];

    /// A test that `$body` gets exactly one piece of advice, `$code` on `$target`.
    macro_rules! reports {
        ($name:ident, $code:literal, $body:expr, $target:expr) => {
            #[test]
            fn $name() {
                let found = reported($body, FILES);
                assert_eq!(found.len(), 1, "{found:?}");
                assert_eq!((found[0].0, found[0].1.as_str()), ($code, $target));
            }
        };
    }

    macro_rules! fine {
        ($name:ident, $body:expr) => {
            #[test]
            fn $name() {
                assert_eq!(reported($body, FILES), []);
            }
        };
    }

    reports!(
        a_link_to_a_missing_file,
        "link.missing-file",
        "See [tools](references/tool-patterns.md).",
        "references/tool-patterns.md"
    );
    reports!(
        a_link_whose_target_names_another_folder,
        "link.missing-file",
        "[references/api.md](reference/api.md)",
        "reference/api.md"
    );
    reports!(
        a_reference_definition,
        "link.missing-file",
        "[api]: references/old.md",
        "references/old.md"
    );
    reports!(
        an_html_link,
        "link.missing-file",
        "<a href=\"references/old.md\">old</a>",
        "references/old.md"
    );
    reports!(
        a_code_span_in_a_folder_the_skill_has,
        "link.missing-file",
        "Read `references/security.md` first.",
        "references/security.md"
    );
    reports!(
        a_script_run_by_an_interpreter,
        "link.missing-file",
        "Run `python scripts/generate_schematic.py \"diagram\"`.",
        "scripts/generate_schematic.py"
    );
    reports!(
        a_script_in_fenced_code,
        "link.missing-file",
        "```sh\npython3 scripts/validate.py --all\n```",
        "scripts/validate.py"
    );
    reports!(
        a_path_under_the_skill_dir_variable,
        "link.missing-file",
        "Run `${CLAUDE_SKILL_DIR}/tools/check.sh`.",
        "${CLAUDE_SKILL_DIR}/tools/check.sh"
    );
    reports!(
        a_percent_encoded_link,
        "link.missing-file",
        "[x](references/tool%2Dpatterns.md)",
        "references/tool%2Dpatterns.md"
    );
    reports!(
        a_link_to_a_sibling_skill,
        "link.leaves-skill",
        "See [build](../firecrawl-build-scrape/SKILL.md).",
        "../firecrawl-build-scrape/SKILL.md"
    );
    reports!(
        a_link_up_two_folders,
        "link.leaves-skill",
        "[README](../../README.md#scripts)",
        "../../README.md#scripts"
    );
    reports!(
        a_code_span_through_the_skill_dir,
        "link.leaves-skill",
        "Query with `${CLAUDE_SKILL_DIR}/../browser-trace/scripts/query.mjs`.",
        "${CLAUDE_SKILL_DIR}/../browser-trace/scripts/query.mjs"
    );
    fine!(
        files_the_skill_has,
        "[api](references/api.md), [dir](references/), `scripts/run.py`, [self](SKILL.md), [up](./references/../references/api.md)"
    );
    fine!(
        urls_anchors_and_absolute_paths,
        "[a](https://x.io/a.md) [b](#usage) [c](/api/orders.json) [d](~/notes.md) [e](mailto:a@b.io) [f](//cdn.io/x.js) [g](C:\\\\x.md)"
    );
    fine!(
        syntax_examples,
        "![alt](path) [descriptive-name](relative-url) [x](path/to/file.md) [y](your-file.md)"
    );
    fine!(footnotes, "[^1]: GitHub\n[^2]: Mermaid.");
    fine!(
        user_paths_in_folders_the_skill_lacks,
        "Write `docs/harness/adoption-report.md` and `docs/api.md`."
    );
    fine!(bare_file_names, "Fill `FORMS.md` and `README.md`.");
    fine!(
        placeholder_names,
        "Run `scripts/script_name.py` on `phases/phaseN.md` and `references/filename.md`."
    );
    fine!(
        file_line_citations,
        "See `scripts/tool.py:15`.\n```\nscripts/tool.py:15: error\n```"
    );
    fine!(
        examples_in_prose,
        "- **Example**: `scripts/rotate_pdf.py`\nFor example `references/other.md`."
    );
    fine!(system_paths, "Payload: `../../../../etc/passwd`");
    fine!(
        a_bare_parent_folder,
        "Check `./testing-handbook`, `../testing-handbook`."
    );
    fine!(
        templates_in_fenced_code,
        "```md\n- [Basic Example](examples/basic-usage.md)\n| API contract | `docs/api.md` |\n```"
    );
    fine!(
        parent_paths_in_fenced_code,
        "```sh\ncat ../shared/config.json\n```"
    );

    #[test]
    fn a_script_named_in_prose_counts_only_when_the_skill_has_scripts() {
        let body = "A `scripts/rotate_pdf.py` script would be helpful.";
        assert_eq!(reported(body, &["references/api.md"]), []);
        // The one false positive the research kept: a hypothetical file in prose.
        assert_eq!(reported(body, FILES).len(), 1);
    }
    fine!(links_in_comments, "<!-- [old](references/old.md) -->");

    #[test]
    fn a_letter_case_difference_is_named() {
        let input = input_with_files("Read [security](references/security.md).", FILES);
        let out = missing_files(&input);
        assert_eq!(
            out[0].message(),
            "SKILL.md refers to \"references/security.md\", which the skill does not contain (it has \"references/Security.md\": letter case differs)"
        );
    }

    #[test]
    fn each_target_is_reported_once_at_its_first_line_in_line_order() {
        let body = "Intro\n\nSee `references/b.md`.\n[a](references/a.md)\n[b again](references/b.md)\n[a again](./references/a.md)";
        let found = reported(body, FILES);
        let lines: Vec<(String, u64)> = found
            .into_iter()
            .map(|(_, target, line)| (target, line))
            .collect();
        // The body starts on line 5 of the SKILL.md, after the frontmatter's four lines.
        assert_eq!(
            lines,
            [
                ("references/b.md".to_owned(), 7),
                ("references/a.md".to_owned(), 8)
            ]
        );
    }

    #[test]
    fn a_skill_without_files_has_every_link_missing() {
        let found = reported("[api](references/api.md) and `references/api.md`", &[]);
        assert_eq!(
            found.len(),
            1,
            "the code span needs a folder the skill has: {found:?}"
        );
    }

    #[test]
    fn the_longest_interpreter_is_known() {
        let unbounded = [r"(?: --\S+)*", r#"\s+["']?$"#];
        let mut bounded = INTERPRETER.as_str().to_owned();
        for part in unbounded {
            assert!(bounded.contains(part), "{part}");
            bounded = bounded.replace(part, "");
        }
        let pattern = regex_syntax::parse(&bounded).unwrap();
        assert_eq!(pattern.properties().maximum_len(), Some(INTERPRETER_REACH));
    }

    /// Whether `text` ends in an interpreter, and the bytes the search counted.
    fn interpreter_work(text: &str) -> (bool, u64) {
        let clock = Clock::unlimited();
        let before = Before {
            text,
            example_before: false,
            window: 0,
        };
        (before.ends_in_interpreter(&clock), clock.spent())
    }

    #[test]
    fn the_interpreter_is_searched_only_in_its_window() {
        // What follows the interpreter, and the reach before it.
        let window = |after: &str| (INTERPRETER_REACH + after.len()) as u64;
        let prose = "word ".repeat(20_000);
        let options = " --x".repeat(1_000);
        let after = format!("{options} ");
        assert_eq!(
            interpreter_work(&format!("{prose}uv run{after}")),
            (true, window(&after))
        );
        assert_eq!(
            interpreter_work(&format!("{prose}python {after}")),
            (false, window(&after)),
            "options only follow uv run"
        );
        assert_eq!(
            interpreter_work(&format!("{prose}bash '")),
            (true, window(" '"))
        );
        assert_eq!(interpreter_work(&prose), (false, window(" ")));
    }

    #[test]
    fn a_line_of_options_and_scripts_is_read_in_linear_work() {
        // Every path after a long run of options, on one fenced line: each search reads its
        // own run of options, never the line before it.
        let work = |paths: usize| {
            let line = format!("uv run{} scripts/a.py ", " --x".repeat(200)).repeat(paths);
            let input = input_with_files(&format!("```\n{line}\n```"), &[]);
            let before = input.clock.spent();
            assert_eq!(missing_files(&input).len(), 1);
            (input.clock.spent() - before, line.len() as u64)
        };
        let (small, small_line) = work(50);
        let (large, large_line) = work(100);
        assert!(
            large * small_line <= small * large_line * 11 / 10,
            "{small} -> {large}"
        );
    }

    #[test]
    fn the_longest_example_is_known() {
        let pattern = regex_syntax::parse(EXAMPLE.as_str()).unwrap();
        assert_eq!(pattern.properties().maximum_len(), Some(EXAMPLE_LENGTH));
    }

    #[test]
    fn paths_are_normalized() {
        assert_eq!(normalize("./a//b/../c/"), "a/c");
        assert_eq!(normalize("../../a"), "../../a");
        assert_eq!(normalize("a/../.."), "..");
        assert_eq!(normalize("."), ".");
        assert_eq!(percent_decode("a%20b%2"), "a b%2");
    }
}
