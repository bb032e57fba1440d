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

use super::markdown::code_spans;
use super::{Advice, AdviceRule, Input};

static INLINE_LINK: LazyLock<Regex> = lazy_regex!(
    r#"(!?)\[((?:[^\[\]\n]|\[[^\]\n]*\])*)\]\(\s*(<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)"#
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

/// The paths of a skill's files (`SKILL.md` included) and of the folders that hold them.
#[derive(Debug, Default)]
pub(super) struct Files {
    paths: BTreeSet<String>,
    folders: BTreeSet<String>,
}

impl Files {
    pub(super) fn new(paths: impl IntoIterator<Item = String>) -> Self {
        let paths: BTreeSet<String> = paths.into_iter().collect();
        let folders = paths
            .iter()
            .flat_map(|path| path.match_indices('/').map(|(at, _)| path[..at].to_owned()))
            .collect();
        Self { paths, folders }
    }

    /// How many files are under `folder/`.
    pub(super) fn count_under(&self, folder: &str) -> usize {
        self.paths
            .iter()
            .filter(|path| {
                path.strip_prefix(folder)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
            .count()
    }

    fn contains(&self, path: &str) -> bool {
        self.paths.contains(path) || self.folders.contains(path)
    }

    fn has_folder(&self, folder: &str) -> bool {
        self.folders.contains(folder)
    }

    /// A file or folder whose path differs from `path` only in letter case.
    fn ignoring_case(&self, path: &str) -> Option<&str> {
        self.paths
            .iter()
            .chain(&self.folders)
            .find(|candidate| candidate.to_lowercase() == path.to_lowercase())
            .map(String::as_str)
    }
}

/// Every reference of the body, in the order: links, code spans, fenced code.
fn references<'a>(input: &'a Input<'_>) -> Vec<Reference<'a>> {
    let body = &input.body;
    let prose = body.prose();
    let mut found = Vec::new();
    for (pattern, group) in [
        (&INLINE_LINK, 3),
        (&REFERENCE_DEFINITION, 1),
        (&HTML_LINK, 1),
    ] {
        for link in pattern.captures_iter(prose) {
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
    for line in prose.split('\n') {
        for (start, content) in code_spans(line) {
            for word in WORD.find_iter(&line[content.clone()]) {
                let part = word
                    .as_str()
                    .trim_matches(['\'', '"', ',', ';', ':', '(', ')']);
                if !part.contains('/') || LINE_NUMBER.is_match(part) {
                    continue;
                }
                let at = content.start + word.start();
                let before = format!("{}{}", &line[..start], &line[content.start..at]);
                if is_skill_path(part, &before, &input.files) {
                    found.push(Reference {
                        kind: Kind::CodeSpan,
                        target: part,
                        line: body.line_of(line_start + at),
                    });
                }
            }
        }
        line_start += line.len() + 1;
    }
    for (number, line) in body.code_lines().filter(|(_, line)| line.contains('/')) {
        for token in PATH_TOKEN.captures_iter(line) {
            let Some(path) = token.get(1) else { continue };
            let after = &line[path.end()..];
            let cites_a_line =
                after.starts_with(':') && after[1..].starts_with(|c: char| c.is_ascii_digit());
            if !cites_a_line && is_skill_path(path.as_str(), &line[..path.start()], &input.files) {
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
fn is_skill_path(token: &str, before: &str, files: &Files) -> bool {
    let raw = token.trim();
    if !raw.contains('/') {
        return false;
    }
    let path = SKILL_DIR.replace(raw, "");
    let anchored = path.len() != raw.len();
    if path.is_empty() || SCHEME.is_match(&path) || path.starts_with(['/', '~', '-']) {
        return false;
    }
    let names_a_file = FILE_EXTENSION.is_match(&path) || path.ends_with('/');
    if path.starts_with("../") {
        let rest = path.trim_start_matches("../");
        return !SYSTEM_FOLDER.is_match(rest) && names_a_file && !EXAMPLE.is_match(before);
    }
    let path = path.strip_prefix("./").unwrap_or(&path);
    let Some((first, rest)) = path.split_once('/') else {
        return false;
    };
    if rest.is_empty()
        || !names_a_file
        || PLACEHOLDER_NAME.is_match(path)
        || EXAMPLE.is_match(before)
    {
        return false;
    }
    anchored || files.has_folder(first) || (first == "scripts" && INTERPRETER.is_match(before))
}

/// Where a reference leads.
fn resolve(target: &str, files: &Files) -> Resolution {
    let target = clean(target);
    if target.is_empty()
        || target.starts_with('#')
        || target.starts_with("//")
        || SCHEME.is_match(target)
    {
        return Resolution::Skipped;
    }
    let target = target.split(['#', '?']).next().unwrap_or_default();
    let decoded = percent_decode(target);
    let path = SKILL_DIR.replace(&decoded, "");
    if path.starts_with(['/', '~'])
        || DRIVE.is_match(&path)
        || PLACEHOLDER_PATH.is_match(&path)
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
    references
        .into_iter()
        .filter_map(|reference| {
            let resolution = resolve(reference.target, &input.files);
            let advice = judge(&reference, &resolution)?;
            let path = resolution.path()?.to_owned();
            seen.insert(path).then_some(advice)
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

    macro_rules! missing {
        ($name:ident, $body:expr, $target:expr) => {
            #[test]
            fn $name() {
                let found = reported($body, FILES);
                assert_eq!(found.len(), 1, "{found:?}");
                assert_eq!(
                    (found[0].0, found[0].1.as_str()),
                    ("link.missing-file", $target)
                );
            }
        };
    }

    macro_rules! outside {
        ($name:ident, $body:expr, $target:expr) => {
            #[test]
            fn $name() {
                let found = reported($body, FILES);
                assert_eq!(found.len(), 1, "{found:?}");
                assert_eq!(
                    (found[0].0, found[0].1.as_str()),
                    ("link.leaves-skill", $target)
                );
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

    missing!(
        a_link_to_a_missing_file,
        "See [tools](references/tool-patterns.md).",
        "references/tool-patterns.md"
    );
    missing!(
        a_link_whose_target_names_another_folder,
        "[references/api.md](reference/api.md)",
        "reference/api.md"
    );
    missing!(
        a_reference_definition,
        "[api]: references/old.md",
        "references/old.md"
    );
    missing!(
        an_html_link,
        "<a href=\"references/old.md\">old</a>",
        "references/old.md"
    );
    missing!(
        a_code_span_in_a_folder_the_skill_has,
        "Read `references/security.md` first.",
        "references/security.md"
    );
    missing!(
        a_script_run_by_an_interpreter,
        "Run `python scripts/generate_schematic.py \"diagram\"`.",
        "scripts/generate_schematic.py"
    );
    missing!(
        a_script_in_fenced_code,
        "```sh\npython3 scripts/validate.py --all\n```",
        "scripts/validate.py"
    );
    missing!(
        a_path_under_the_skill_dir_variable,
        "Run `${CLAUDE_SKILL_DIR}/tools/check.sh`.",
        "${CLAUDE_SKILL_DIR}/tools/check.sh"
    );
    missing!(
        a_percent_encoded_link,
        "[x](references/tool%2Dpatterns.md)",
        "references/tool%2Dpatterns.md"
    );
    outside!(
        a_link_to_a_sibling_skill,
        "See [build](../firecrawl-build-scrape/SKILL.md).",
        "../firecrawl-build-scrape/SKILL.md"
    );
    outside!(
        a_link_up_two_folders,
        "[README](../../README.md#scripts)",
        "../../README.md#scripts"
    );
    outside!(
        a_code_span_through_the_skill_dir,
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
    fn paths_are_normalized() {
        assert_eq!(normalize("./a//b/../c/"), "a/c");
        assert_eq!(normalize("../../a"), "../../a");
        assert_eq!(normalize("a/../.."), "..");
        assert_eq!(normalize("."), ".");
        assert_eq!(percent_decode("a%20b%2"), "a b%2");
    }
}
