//! The problem codes: one per kind, well-formed, unique, and each in the documented table.

use std::collections::HashSet;

use crate::{ErrorKind, paths::BasePathProblem, spec::PathProblem};

/// The table of codes in the crate docs and the README: each code with its row.
fn documented() -> Vec<(&'static str, &'static str)> {
    include_str!("../docs/codes.md")
        .lines()
        .filter_map(|row| {
            let (code, _) = row.strip_prefix("| `")?.split_once('`')?;
            Some((code, row))
        })
        .collect()
}

/// The codes of `skillpub lint` itself, which has problems of its own beside the kinds.
const LINT_ONLY: [&str; 1] = ["path.no-skill"];

/// One of every kind any build has. The `match` names every variant, so a new kind fails to
/// compile here until it is listed.
fn pure_kinds() -> Vec<ErrorKind> {
    let kinds = vec![
        ErrorKind::NotUtf8 { valid_up_to: 0 },
        ErrorKind::FrontmatterMissing,
        ErrorKind::FrontmatterUnclosed,
        ErrorKind::FrontmatterFence {
            line: 3,
            text: "...".into(),
        },
        ErrorKind::Yaml {
            line: 2,
            column: 1,
            message: "bad".into(),
        },
        ErrorKind::NotAMapping { found: "a list" },
        ErrorKind::MissingField { field: "name" },
        ErrorKind::WrongType {
            expected: "a string",
            found: "a number",
            hint: "quote it",
        },
        ErrorKind::UnknownField,
        ErrorKind::NameEmpty,
        ErrorKind::NameTooLong {
            name: "a".repeat(65),
            length: 65,
        },
        ErrorKind::NameUppercase {
            name: "A".into(),
            suggestion: None,
        },
        ErrorKind::NameInvalidCharacters {
            name: "a_b".into(),
            characters: "'_'".into(),
            suggestion: None,
        },
        ErrorKind::NameHyphenAtEdge { name: "-a".into() },
        ErrorKind::NameConsecutiveHyphens {
            name: "a--b".into(),
        },
        ErrorKind::NameFolderMismatch {
            name: "a".into(),
            folder: "b".into(),
        },
        ErrorKind::DescriptionEmpty,
        ErrorKind::DescriptionTooLong { length: 1025 },
        ErrorKind::CompatibilityEmpty,
        ErrorKind::CompatibilityTooLong { length: 501 },
        ErrorKind::ControlCharacter {
            character: '\0',
            position: 1,
            more: 0,
        },
        ErrorKind::FilePath {
            problem: PathProblem::Hidden,
        },
        ErrorKind::DuplicateFile,
        ErrorKind::CaseCollision { other: "a".into() },
        ErrorKind::FileUsedAsFolder { file: "a".into() },
        ErrorKind::TooManyFiles {
            count: 513,
            limit: 512,
        },
        ErrorKind::TooLarge {
            bytes: 1,
            limit: 0,
            largest: Vec::new(),
        },
        ErrorKind::Archive {
            message: "full".into(),
        },
        ErrorKind::BasePath {
            base_path: "/a/".into(),
            problem: BasePathProblem::TrailingSlash,
        },
        ErrorKind::DuplicateName {
            name: "a".into(),
            other_file: "a/SKILL.md".into(),
        },
        ErrorKind::Secret {
            line: 1,
            credential: crate::security::Credential::PrivateKey,
            shown: "-----BEGIN PRIVATE KEY----- …".into(),
        },
    ];
    for kind in kinds.iter().chain(&folder_kinds()) {
        match kind {
            ErrorKind::NotUtf8 { .. }
            | ErrorKind::FrontmatterMissing
            | ErrorKind::FrontmatterUnclosed
            | ErrorKind::FrontmatterFence { .. }
            | ErrorKind::Yaml { .. }
            | ErrorKind::NotAMapping { .. }
            | ErrorKind::MissingField { .. }
            | ErrorKind::WrongType { .. }
            | ErrorKind::UnknownField
            | ErrorKind::NameEmpty
            | ErrorKind::NameTooLong { .. }
            | ErrorKind::NameUppercase { .. }
            | ErrorKind::NameInvalidCharacters { .. }
            | ErrorKind::NameHyphenAtEdge { .. }
            | ErrorKind::NameConsecutiveHyphens { .. }
            | ErrorKind::NameFolderMismatch { .. }
            | ErrorKind::DescriptionEmpty
            | ErrorKind::DescriptionTooLong { .. }
            | ErrorKind::CompatibilityEmpty
            | ErrorKind::CompatibilityTooLong { .. }
            | ErrorKind::ControlCharacter { .. }
            | ErrorKind::FilePath { .. }
            | ErrorKind::DuplicateFile
            | ErrorKind::CaseCollision { .. }
            | ErrorKind::FileUsedAsFolder { .. }
            | ErrorKind::TooManyFiles { .. }
            | ErrorKind::TooLarge { .. }
            | ErrorKind::Archive { .. }
            | ErrorKind::BasePath { .. }
            | ErrorKind::DuplicateName { .. }
            | ErrorKind::Secret { .. } => {}
            #[cfg(feature = "fs")]
            ErrorKind::Io(_)
            | ErrorKind::NotAFolder
            | ErrorKind::MissingSkillMd
            | ErrorKind::SkillMdCase { .. }
            | ErrorKind::NameNotUtf8
            | ErrorKind::SymlinkOutside { .. }
            | ErrorKind::BrokenSymlink { .. }
            | ErrorKind::LinkToHidden { .. }
            | ErrorKind::SymlinkedFolder
            | ErrorKind::NotARegularFile => {}
        }
    }
    kinds
}

/// One of every kind that only reading a folder has (feature `fs`).
#[cfg(feature = "fs")]
fn folder_kinds() -> Vec<ErrorKind> {
    let io = std::io::Error::from(std::io::ErrorKind::NotFound);
    vec![
        ErrorKind::Io(crate::folder::IoError::new(std::path::Path::new("a"), io)),
        ErrorKind::NotAFolder,
        ErrorKind::MissingSkillMd,
        ErrorKind::SkillMdCase {
            found: "skill.md".into(),
        },
        ErrorKind::NameNotUtf8,
        ErrorKind::SymlinkOutside { target: "/".into() },
        ErrorKind::BrokenSymlink { target: "a".into() },
        ErrorKind::LinkToHidden {
            target: ".env".into(),
        },
        ErrorKind::SymlinkedFolder,
        ErrorKind::NotARegularFile,
    ]
}

#[cfg(not(feature = "fs"))]
fn folder_kinds() -> Vec<ErrorKind> {
    Vec::new()
}

/// `<subject>.<problem>`, each made of lowercase ASCII words joined by single hyphens.
fn well_formed(code: &str) -> bool {
    let word = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    let part = |p: &str| p.starts_with(|c: char| c.is_ascii_lowercase()) && p.split('-').all(word);
    code.split_once('.')
        .is_some_and(|(subject, problem)| part(subject) && part(problem))
}

#[test]
fn every_kind_has_its_own_well_formed_code() {
    let kinds: Vec<ErrorKind> = pure_kinds().into_iter().chain(folder_kinds()).collect();
    let variants: HashSet<_> = kinds.iter().map(std::mem::discriminant).collect();
    assert_eq!(variants.len(), kinds.len(), "each kind is listed once");
    let mut seen = HashSet::new();
    for kind in &kinds {
        let code = kind.code();
        assert!(well_formed(code), "{code} of {kind:?}");
        assert!(seen.insert(code), "{code} is the code of two kinds");
    }
}

#[test]
fn every_code_is_documented_once_with_its_origin() {
    let table = documented();
    let codes: Vec<&str> = table.iter().map(|(code, _)| *code).collect();
    let unique: HashSet<&str> = codes.iter().copied().collect();
    assert_eq!(unique.len(), codes.len(), "a code has two rows: {codes:?}");
    let row = |code: &str| table.iter().find(|(c, _)| *c == code).map(|(_, row)| *row);
    for kind in pure_kinds() {
        let row = row(kind.code()).unwrap_or_else(|| panic!("{} is not in the table", kind.code()));
        assert!(
            !row.contains("*folder*") && !row.contains("*lint*"),
            "{row}"
        );
    }
    for kind in folder_kinds() {
        let row = row(kind.code()).unwrap_or_else(|| panic!("{} is not in the table", kind.code()));
        assert!(row.contains("*folder*"), "{row}");
    }
    for code in LINT_ONLY {
        assert!(
            row(code).is_some_and(|row| row.contains("*lint*")),
            "{code}"
        );
    }
    assert!(codes.iter().all(|code| well_formed(code)), "{codes:?}");
}

#[cfg(feature = "fs")]
#[test]
fn the_table_has_no_row_without_a_kind() {
    let kinds: HashSet<&str> = pure_kinds()
        .iter()
        .chain(&folder_kinds())
        .map(ErrorKind::code)
        .chain(LINT_ONLY)
        .collect();
    for (code, row) in documented() {
        assert!(kinds.contains(code), "no kind has the code of {row}");
    }
}

#[test]
fn errors_give_their_kind_s_code() {
    let errors = crate::SkillMd::parse("---\nname: a\ndescription: \"\"\n---\n", None).unwrap_err();
    let error = &errors.as_slice()[0];
    assert_eq!(
        (error.field(), error.code()),
        (Some("description"), "description.empty")
    );
}
