//! The reading of references as it was before issue 18, in quadratic time, kept as the
//! oracle of the properties that the linear reading finds the same references on the same
//! lines: the text before each path in code copied and searched whole, code spans paired by
//! searching the rest of the line, folders copied out of every path; and the interpreter
//! before a script searched for in the whole text before it.

use std::collections::BTreeSet;
use std::ops::Range;

use proptest::prelude::*;

use super::super::tests::input_with_files;
use super::*;
use crate::files::Files;

/// The code spans of a line, each run of backticks closed by searching the rest of the line.
fn code_spans_by_search(line: &str) -> Vec<(usize, Range<usize>)> {
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
    let mut spans = Vec::new();
    let mut next = 0;
    while next < runs.len() {
        let (start, length) = runs[next];
        match runs[next + 1..].iter().position(|&(_, l)| l == length) {
            Some(offset) => {
                let (close, _) = runs[next + 1 + offset];
                spans.push((start, start + length..close));
                next += offset + 2;
            }
            None => next += 1,
        }
    }
    spans
}

/// The files with every folder copied out.
struct CopiedFolders {
    paths: BTreeSet<String>,
    folders: BTreeSet<String>,
}

impl CopiedFolders {
    fn new(paths: &[String]) -> Self {
        let paths: BTreeSet<String> = paths.iter().cloned().collect();
        let folders = paths
            .iter()
            .flat_map(|path| path.match_indices('/').map(|(at, _)| path[..at].to_owned()))
            .collect();
        Self { paths, folders }
    }

    fn count_under(&self, folder: &str) -> usize {
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

    fn ignoring_case(&self, path: &str) -> Option<&str> {
        self.paths
            .iter()
            .chain(&self.folders)
            .find(|candidate| candidate.to_lowercase() == path.to_lowercase())
            .map(String::as_str)
    }
}

/// [`is_skill_path`] on the text before the path, copied whole.
fn is_skill_path_of(token: &str, before: &str, input: &Input<'_>) -> bool {
    let context = Before {
        text: before,
        example_before: false,
        window: 0,
    };
    is_skill_path(token, &context, input)
}

/// The references in code spans and fenced code, as (kind, target, line), with the text
/// before each path copied whole.
fn code_references_by_copying(input: &Input<'_>) -> Vec<(Kind, String, u64)> {
    let (body, clock) = (&input.body, &Clock::unlimited());
    let prose = body.prose();
    let mut found = Vec::new();
    let mut line_start = 0;
    for line in prose.split('\n') {
        for (start, content) in code_spans_by_search(line) {
            for word in clock.find_iter(&WORD, &line[content.clone()]) {
                let part = word
                    .as_str()
                    .trim_matches(['\'', '"', ',', ';', ':', '(', ')']);
                if !part.contains('/') || clock.is_match(&LINE_NUMBER, part) {
                    continue;
                }
                let at = content.start + word.start();
                let before = format!("{}{}", &line[..start], &line[content.start..at]);
                if is_skill_path_of(part, &before, input) {
                    found.push((
                        Kind::CodeSpan,
                        part.to_owned(),
                        body.line_of(line_start + at),
                    ));
                }
            }
        }
        line_start += line.len() + 1;
    }
    for (number, line) in body
        .code_lines(clock)
        .filter(|(_, line)| line.contains('/'))
    {
        for token in clock.captures_iter(&PATH_TOKEN, line) {
            let Some(path) = token.get(1) else { continue };
            let after = &line[path.end()..];
            let cites_a_line =
                after.starts_with(':') && after[1..].starts_with(|c: char| c.is_ascii_digit());
            if !cites_a_line && is_skill_path_of(path.as_str(), &line[..path.start()], input) {
                found.push((Kind::CodeBlock, path.as_str().to_owned(), number));
            }
        }
    }
    found
}

/// The references in code that [`references`] finds.
fn code_references(input: &Input<'_>) -> Vec<(Kind, String, u64)> {
    references(input)
        .into_iter()
        .filter(|reference| reference.kind != Kind::Link)
        .map(|reference| (reference.kind, reference.target.to_owned(), reference.line))
        .collect()
}

/// Lines made of what the text before a path is read for: backticks, examples (with the
/// letters that fold to ASCII ones), interpreters, options, paths, quotes and non-ASCII
/// letters.
fn code_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("`"),
        Just("``"),
        Just(" "),
        Just("\n"),
        Just("```\n"),
        Just("for example "),
        Just("for instance"),
        Just("e.g. "),
        Just("i.e."),
        Just("examples"),
        Just("Example"),
        Just("ſuch aſ "),
        Just("such as"),
        Just("python "),
        Just("python3"),
        Just("uv run --x "),
        Just("--y"),
        Just("bash"),
        Just(". "),
        Just("'"),
        Just("\""),
        Just("scripts/a.py"),
        Just("references/b.md"),
        Just("x/a.md"),
        Just("../x/a.md"),
        Just("${CLAUDE_SKILL_DIR}/t.sh"),
        Just("é"),
        Just("for"),
        Just("x"),
        Just(";"),
        Just("("),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// A path of one to four segments with letters whose lowercase is longer, shorter or
/// depends on what follows (`İ`, the Kelvin sign, `Σ`), in few enough spellings that paths
/// and queries often differ only in letter case.
fn path(segments: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        Just("a"),
        Just("A"),
        Just("ab"),
        Just("aΣ"),
        Just("Aσ"),
        Just("aς"),
        Just("İ"),
        Just("i\u{307}"),
        Just("\u{212A}"),
        Just("k"),
        Just("é"),
        Just("a.md"),
        Just(""),
    ];
    proptest::collection::vec(segment, segments).prop_map(|segments| segments.join("/"))
}

/// Text shaped as what [`INTERPRETER`] reads: a few words, a character that may stand before
/// an interpreter (or one that glues to it), an interpreter, options, white space of one to
/// three bytes, and quotes; each part but the interpreter may be missing or doubled.
fn command_text() -> impl Strategy<Value = String> {
    let interpreter = prop_oneof![
        Just("python"),
        Just("python3"),
        Just("py"),
        Just("bash"),
        Just("sh"),
        Just("zsh"),
        Just("node"),
        Just("deno run"),
        Just("bun"),
        Just("bun run"),
        Just("tsx"),
        Just("npx tsx"),
        Just("ts-node"),
        Just("uv run"),
        Just("uv"),
        Just("ruby"),
        Just("perl"),
        Just("pwsh"),
        Just("powershell"),
        Just("powershell -File"),
        Just("Rscript"),
        Just("source"),
        Just("."),
    ];
    let before = prop_oneof![
        Just(""),
        Just(" "),
        Just("\u{85}"),
        Just("\u{3000}"),
        Just(";"),
        Just("&"),
        Just("|"),
        Just("("),
        Just("`"),
        Just("$"),
        Just("x"),
        Just("é"),
        Just("-"),
    ];
    let option = prop_oneof![
        Just(" --x"),
        Just(" --"),
        Just("--y"),
        Just("  --x"),
        Just("\t--x"),
        Just(" --é"),
    ];
    let space = prop_oneof![
        3 => prop_oneof![Just(" "), Just("\t"), Just("\u{85}"), Just("\u{3000}")],
        1 => Just("x"),
    ];
    let quote = prop_oneof![Just(""), Just("'"), Just("\""), Just("''")];
    let word = prop_oneof![
        Just("x"),
        Just(" "),
        Just("é"),
        Just("uv run --x "),
        Just("python")
    ];
    (
        proptest::collection::vec(word, 0..2).prop_map(|words| words.concat()),
        before,
        interpreter,
        proptest::collection::vec(option, 0..8),
        proptest::collection::vec(space, 0..3),
        quote,
    )
        .prop_map(|(text, before, interpreter, options, spaces, quote)| {
            format!(
                "{text}{before}{interpreter}{}{}{quote}",
                options.concat(),
                spaces.concat()
            )
        })
}

proptest! {
    // The shapes that need the whole window (a long interpreter at the start of the text or
    // after white space of three bytes) are a few in a thousand.
    #![proptest_config(skillpub_testkit::property_config(2048))]

    #[test]
    fn the_interpreter_window_finds_what_the_whole_text_does(text in command_text()) {
        let before = Before { text: &text, example_before: false, window: 0 };
        let whole = Clock::unlimited().is_match(&INTERPRETER, &text);
        prop_assert_eq!(before.ends_in_interpreter(&Clock::unlimited()), whole);
    }
}

proptest! {
    #![proptest_config(skillpub_testkit::property_config(512))]

    #[test]
    fn code_spans_pair_as_searching_the_rest_of_the_line_does(line in "[`a ]{0,60}") {
        prop_assert_eq!(code_spans(&line), code_spans_by_search(&line));
    }

    #[test]
    fn paths_in_code_are_read_as_copying_the_text_before_them_does(
        body in code_text(),
        files in proptest::collection::vec("(scripts|references|x)/[ab]\\.(py|md)", 0..3),
    ) {
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        let input = input_with_files(&body, &files);
        prop_assert_eq!(code_references(&input), code_references_by_copying(&input));
    }

    #[test]
    fn files_answer_as_copying_every_folder_does(
        paths in proptest::collection::vec(path(1..5), 0..8),
        queries in proptest::collection::vec(path(0..4), 1..8),
    ) {
        let copied = CopiedFolders::new(&paths);
        let files = Files::new(paths.iter().cloned());
        for query in &queries {
            prop_assert_eq!(files.contains(query), copied.contains(query), "{}", query);
            prop_assert_eq!(files.has_folder(query), copied.folders.contains(query.as_str()), "{}", query);
            prop_assert_eq!(files.count_under(query), copied.count_under(query), "{}", query);
            prop_assert_eq!(files.ignoring_case(query), copied.ignoring_case(query), "{}", query);
        }
    }
}
