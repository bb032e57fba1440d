//! Every relative link in the repository's Markdown resolves, so that moving a section never
//! leaves a reader at a dead end.
//!
//! The files read: the top-level `README.md`, `CONTRIBUTING.md`, `BENCHMARKS.md` and
//! `SECURITY.md`, `examples/README.md`, every `crates/*/README.md` and `crates/*/docs/*.md`
//! (the CLI's manual), and the text rustdoc includes, `src/docs/*.md` and every
//! `crates/*/src/docs/*.md`. Links in code spans and fenced code are not links.
//!
//! - A file read on GitHub and crates.io (the READMEs, the CLI's manual and the top-level
//!   documents) may link to any file or folder of the repository, relative to itself, and to a
//!   heading of a Markdown file (`file.md#section`, or `#section` in itself) by GitHub's anchor
//!   rules.
//! - Text that rustdoc includes is read on docs.rs, where a relative file link leads nowhere:
//!   it links to Rust items (which `cargo doc` with `-D warnings` checks), to rustdoc's own
//!   pages (`mcp/index.html`), to a heading of the page it is included in (`#section`: the
//!   `//! #` headings of the including file and the headings of every file it includes), or
//!   to an absolute URL.
//! - An absolute link into this repository (`https://github.com/skillpub/skillpub/blob/main/...`,
//!   or the repository's page `https://github.com/skillpub/skillpub#section`, its README) is
//!   checked as a relative one from the repository's root.
//!
//! Standard library only, and a few milliseconds: it reads some fifty files.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

/// The repository's page, which shows its `README.md` (`#section` names a heading of it).
const REPOSITORY: &str = "https://github.com/skillpub/skillpub";

/// The repository's URL prefixes under which a link names a file of this repository.
const REPOSITORY_URLS: [&str; 2] = [
    "https://github.com/skillpub/skillpub/blob/main/",
    "https://github.com/skillpub/skillpub/tree/main/",
];

#[test]
fn every_relative_link_in_the_markdown_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repository = Repository::read(root);
    assert!(
        repository.files.len() >= 20,
        "the Markdown files were not found under {}",
        root.display()
    );
    let links: usize = repository
        .files
        .values()
        .map(|text| links(text).len())
        .sum();
    assert!(links >= 50, "only {links} links were found");
    let problems: Vec<String> = repository
        .files
        .keys()
        .flat_map(|file| repository.problems(file))
        .collect();
    assert!(
        problems.is_empty(),
        "{} broken links:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn a_broken_file_link_or_anchor_is_reported() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut repository = Repository::read(root);
    let text = "# Top\n\n## Two words\n\n\
        [fine](#two-words), [fine](SECURITY.md), [fine](crates/skillpub-core), \
        [fine](https://example.com/x.md), `[code](missing.md)`\n\n\
        [gone](missing.md) and [no heading](#nowhere) and [elsewhere](SECURITY.md#nowhere)\n\n\
        [ref]: missing-too.md\n\n```md\n[fenced](missing.md)\n```\n";
    repository.insert(root.join("LINKS-TEST.md"), text);
    let problems = repository.problems(&root.join("LINKS-TEST.md"));
    assert_eq!(problems.len(), 4, "{problems:#?}");
    for (problem, target) in problems.iter().zip([
        "missing.md",
        "#nowhere",
        "SECURITY.md#nowhere",
        "missing-too.md",
    ]) {
        assert!(problem.contains(&format!("`{target}`")), "{problem}");
    }
}

#[test]
fn rustdoc_text_may_not_link_to_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut repository = Repository::read(root);
    // In place of a file the core's crate docs include, under their heading "Rules".
    let path = root.join("crates/skillpub-core/src/docs/validation.md");
    let text = "[item](crate::Catalog), [item](Catalog::new), [page](mcp/index.html), \
        [heading](#rules), [web](https://docs.rs/skillpub), \
        [readme](https://github.com/skillpub/skillpub#quick-start), \
        [file](../../README.md), [repository](https://github.com/skillpub/skillpub/blob/main/NOPE.md), \
        [heading](#no-such-heading), [readme](https://github.com/skillpub/skillpub#nowhere)\n";
    repository.insert(path.clone(), text);
    let problems = repository.problems(&path);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(
        problems[0].contains("`../../README.md`: rustdoc text"),
        "{}",
        problems[0]
    );
    assert!(problems[1].contains("NOPE.md"), "{}", problems[1]);
    assert!(problems[2].contains("#no-such-heading"), "{}", problems[2]);
    assert!(problems[3].contains("skillpub#nowhere"), "{}", problems[3]);
}

#[test]
fn anchors_follow_github() {
    for (heading, anchor) in [
        ("Quick start", "quick-start"),
        (
            "Start a skill: `skillpub new`",
            "start-a-skill-skillpub-new",
        ),
        (
            "Publish anywhere: export, serve, discovery links",
            "publish-anywhere-export-serve-discovery-links",
        ),
        ("The aiSiteReady grade", "the-aisiteready-grade"),
        (
            "Slow request bodies, bodies in flight, held event streams",
            "slow-request-bodies-bodies-in-flight-held-event-streams",
        ),
        (
            "MCP sessions: a flood of `initialize`",
            "mcp-sessions-a-flood-of-initialize",
        ),
        (
            "Behind a CDN, or on several replicas",
            "behind-a-cdn-or-on-several-replicas",
        ),
        (
            "Reading a folder through descriptors",
            "reading-a-folder-through-descriptors",
        ),
        (
            "[Linked](https://example.com) **bold** text",
            "linked-bold-text",
        ),
        ("snake_case and 1,000 skills", "snake_case-and-1000-skills"),
    ] {
        assert_eq!(github_anchor(heading), anchor, "{heading}");
    }
    let anchors = headings("# A\n\n## A\n\n```\n# Not a heading\n```\n\n### A\n");
    assert_eq!(anchors, ["a", "a-1", "a-2"].map(String::from).into());
}

/// The Markdown files checked, with their text, and what rustdoc includes where.
struct Repository {
    root: PathBuf,
    files: BTreeMap<PathBuf, String>,
    /// For each Markdown file rustdoc includes: the anchors of the page it is shown on.
    pages: HashMap<PathBuf, HashSet<String>>,
}

impl Repository {
    fn read(root: &Path) -> Self {
        let mut paths: Vec<PathBuf> = [
            "README.md",
            "CONTRIBUTING.md",
            "BENCHMARKS.md",
            "SECURITY.md",
        ]
        .iter()
        .chain(&["examples/README.md"])
        .map(|path| root.join(path))
        .collect();
        paths.extend(markdown_in(&root.join("src/docs")));
        for krate in sorted_entries(&root.join("crates")) {
            // Unpublished crates (the test kit) have no README.
            paths.extend(Some(krate.join("README.md")).filter(|readme| readme.exists()));
            paths.extend(markdown_in(&krate.join("docs")));
            paths.extend(markdown_in(&krate.join("src/docs")));
        }
        let mut repository = Self {
            root: root.to_owned(),
            files: BTreeMap::new(),
            pages: HashMap::new(),
        };
        for path in paths {
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            repository.insert(path, &text);
        }
        repository.read_pages();
        repository
    }

    fn insert(&mut self, path: PathBuf, text: &str) {
        self.files.insert(path, text.to_owned());
    }

    /// Finds every `include_str!` of a Markdown file in the Rust sources, and gives each such
    /// file the anchors of its page: the `//!` headings of the including file and the headings
    /// of every Markdown file that file includes.
    fn read_pages(&mut self) {
        let mut sources = vec![];
        rust_files(&self.root.join("src"), &mut sources);
        for krate in sorted_entries(&self.root.join("crates")) {
            rust_files(&krate.join("src"), &mut sources);
        }
        for source in sources {
            let text = fs::read_to_string(&source).unwrap();
            let included: Vec<PathBuf> = text
                .split("include_str!(\"")
                .skip(1)
                .filter_map(|rest| rest.split_once("\")").map(|(path, _)| path))
                .filter(|path| path.ends_with(".md"))
                .map(|path| normalize(&source.parent().unwrap().join(path)))
                .collect();
            if included.is_empty() {
                continue;
            }
            let doc: String = text
                .lines()
                .filter_map(|line| line.trim_start().strip_prefix("//!"))
                .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
                .collect();
            let mut anchors = headings(&doc);
            for path in &included {
                let markdown = fs::read_to_string(path).unwrap_or_else(|error| {
                    panic!("{}: {}: {error}", source.display(), path.display())
                });
                anchors.extend(headings(&markdown));
            }
            for path in included {
                self.pages
                    .entry(path)
                    .or_default()
                    .extend(anchors.iter().cloned());
            }
        }
    }

    /// Every broken link of one file, as `file:line: `target`: why`.
    fn problems(&self, file: &Path) -> Vec<String> {
        let text = &self.files[file];
        let rustdoc = is_rustdoc(&self.root, file);
        let shown = file.strip_prefix(&self.root).unwrap_or(file).display();
        links(text)
            .into_iter()
            .filter_map(|(line, target)| {
                let why = self.check(file, rustdoc, &target)?;
                Some(format!("{shown}:{line}: `{target}`: {why}"))
            })
            .collect()
    }

    /// Why `target`, a link of `file`, does not resolve; `None` when it does.
    fn check(&self, file: &Path, rustdoc: bool, target: &str) -> Option<String> {
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target, None),
        };
        if let Some(inside) = REPOSITORY_URLS
            .iter()
            .find_map(|url| path.strip_prefix(url))
        {
            return self.check_file(&self.root.join(inside), anchor);
        }
        if path == REPOSITORY {
            return self.check_file(&self.root.join("README.md"), anchor);
        }
        if has_scheme(path) {
            return None;
        }
        if rustdoc {
            return if path.is_empty() {
                let anchor = anchor.unwrap_or_default();
                let page = self.pages.get(&normalize(file));
                let found = match page {
                    Some(anchors) => anchors.contains(anchor),
                    // Text not included anywhere (yet): its own headings.
                    None => headings(&self.files[file]).contains(anchor),
                };
                (!found).then(|| "no such heading on the page rustdoc shows it in".to_owned())
            } else if is_rust_path(path) || path.ends_with(".html") {
                None
            } else {
                Some(format!(
                    "rustdoc text is read on docs.rs, where a relative file link leads nowhere; \
                     link to {}<path> instead",
                    REPOSITORY_URLS[0]
                ))
            };
        }
        let resolved = if path.is_empty() {
            file.to_owned()
        } else if let Some(from_root) = path.strip_prefix('/') {
            self.root.join(from_root)
        } else {
            file.parent().unwrap().join(path)
        };
        self.check_file(&resolved, anchor)
    }

    /// Why `path` (and its `anchor`, for a Markdown file) does not exist; `None` when it does.
    fn check_file(&self, path: &Path, anchor: Option<&str>) -> Option<String> {
        let path = normalize(path);
        let text = match self.files.get(&path) {
            Some(text) => text.clone(),
            None if path.exists() => match anchor {
                Some(_) if path.extension().is_some_and(|extension| extension == "md") => {
                    fs::read_to_string(&path).ok()?
                }
                _ => return None,
            },
            None => return Some(format!("no file or folder {}", path.display())),
        };
        let anchor = anchor?;
        (!headings(&text).contains(anchor)).then(|| {
            format!(
                "no heading with the anchor `#{anchor}` in {}",
                path.display()
            )
        })
    }
}

/// Whether rustdoc includes `file`: it sits in a `src/docs/` folder.
fn is_rustdoc(root: &Path, file: &Path) -> bool {
    file.strip_prefix(root)
        .map(|inside| {
            let parts: Vec<_> = inside.components().collect();
            parts
                .windows(2)
                .any(|pair| pair[0].as_os_str() == "src" && pair[1].as_os_str() == "docs")
        })
        .unwrap_or(false)
}

/// `scheme:` at the start (`https:`, `mailto:`), but not a Rust path (`crate::Catalog`).
fn has_scheme(target: &str) -> bool {
    let Some((scheme, rest)) = target.split_once(':') else {
        return false;
    };
    !rest.starts_with(':')
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// An intra-doc link: a Rust path (`crate::web::serve`, `fn@serve`, `Self::prompts`,
/// `skillpub_core`), never a file name or a folder.
fn is_rust_path(target: &str) -> bool {
    let path = target.rsplit_once('@').map_or(target, |(_, path)| path);
    !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '!' | '(' | ')'))
}

/// `path` without `.` and `..` components, as the file system would read it.
fn normalize(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

fn sorted_entries(folder: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = fs::read_dir(folder)
        .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}

fn markdown_in(folder: &Path) -> Vec<PathBuf> {
    sorted_entries(folder)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect()
}

fn rust_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for path in sorted_entries(folder) {
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// The lines of `text` outside fenced code, each with its line number (from 1).
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<(char, usize)> = None;
    let mut lines = vec![];
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'));
        let run = marker.map_or(0, |c| trimmed.chars().take_while(|&d| d == c).count());
        match (fence, marker) {
            (None, Some(c)) if run >= 3 => fence = Some((c, run)),
            (Some((open, length)), Some(c))
                if c == open && run >= length && trimmed[run..].trim().is_empty() =>
            {
                fence = None
            }
            (None, _) => lines.push((index + 1, line)),
            (Some(_), _) => {}
        }
    }
    lines
}

/// `text` with every code span replaced by `code`, so that nothing in it reads as a link.
/// Spans may cross lines, as in Markdown, but never a blank line.
fn without_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let other = chars[j..].iter().take_while(|&&c| c == '`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                // Keep the line breaks, so that line numbers stay right.
                out.push_str("code");
                out.extend(chars[i..end].iter().filter(|&&c| c == '\n'));
                i = end + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// Every link target of `text` outside code, with its line: inline links and images
/// (`[text](target "title")`) and reference definitions (`[label]: target`).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = vec![];
    // Paragraphs of prose, so that a code span that wraps is still one span.
    let mut paragraph: Vec<(usize, &str)> = vec![];
    let mut lines = prose(text);
    lines.push((usize::MAX, ""));
    for (number, line) in lines {
        if !line.trim().is_empty() && number != usize::MAX {
            if paragraph
                .last()
                .is_some_and(|&(last, _)| last + 1 != number)
            {
                links_of_paragraph(&paragraph, &mut found);
                paragraph.clear();
            }
            paragraph.push((number, line));
            continue;
        }
        links_of_paragraph(&paragraph, &mut found);
        paragraph.clear();
    }
    found
}

fn links_of_paragraph(paragraph: &[(usize, &str)], found: &mut Vec<(usize, String)>) {
    let Some(&(first, _)) = paragraph.first() else {
        return;
    };
    let joined: Vec<&str> = paragraph.iter().map(|&(_, line)| line).collect();
    let text = without_code_spans(&joined.join("\n"));
    for (offset, line) in text.lines().enumerate() {
        let number = first + offset;
        if let Some(target) = reference_definition(line) {
            found.push((number, target));
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let (target, used) = inline_target(after);
            if !target.is_empty() {
                found.push((number, target));
            }
            rest = &after[used..];
        }
    }
}

/// `[label]: target` at the start of a line (up to three spaces in).
fn reference_definition(line: &str) -> Option<String> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = line[indent..].strip_prefix('[').filter(|_| indent <= 3)?;
    let (label, after) = rest.split_once("]:")?;
    if label.is_empty() || label.contains(']') {
        return None;
    }
    let target = after.split_whitespace().next()?;
    Some(
        target
            .trim_start_matches('<')
            .trim_end_matches('>')
            .to_owned(),
    )
}

/// The target of an inline link whose `(` came just before `after`, and how many bytes of
/// `after` the link used: up to the `)` that balances, without a `"title"`.
fn inline_target(after: &str) -> (String, usize) {
    if let Some(inner) = after.strip_prefix('<') {
        return match inner.find('>') {
            Some(end) => (inner[..end].to_owned(), end + 2),
            None => (String::new(), 0),
        };
    }
    let mut depth = 0;
    for (index, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                let target = after[..index].split_whitespace().next().unwrap_or_default();
                return (target.to_owned(), index + 1);
            }
            ')' => depth -= 1,
            _ => {}
        }
    }
    (String::new(), 0)
}

/// The anchors of the ATX headings of `text` (`# Title`), outside fenced code, by GitHub's
/// rules, which rustdoc follows too; repeated ones get `-1`, `-2`...
fn headings(text: &str) -> HashSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = HashSet::new();
    for (_, line) in prose(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = line[hashes..].trim().trim_end_matches('#').trim();
        let anchor = github_anchor(title);
        let count = seen.entry(anchor.clone()).or_insert(0);
        anchors.insert(if *count == 0 {
            anchor
        } else {
            format!("{anchor}-{count}")
        });
        *count += 1;
    }
    anchors
}

/// The text a heading shows: code spans without their backticks, links as their text,
/// emphasis markers dropped.
fn heading_text(title: &str) -> String {
    let mut text = String::new();
    let mut rest = title;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|at| open + at) else {
            break;
        };
        let (_, used) = inline_target(&rest[close + 2..]);
        if used == 0 {
            break;
        }
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[close + 2 + used..];
    }
    text.push_str(rest);
    text.replace(['`', '*'], "")
}

/// GitHub's anchor of a heading: its text in lowercase, with every character but letters,
/// digits, `_`, `-` and spaces removed, then each space a `-`.
fn github_anchor(title: &str) -> String {
    heading_text(title)
        .to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}
