//! The validation rules as a table: one line per case, the folder, the `SKILL.md`, and the
//! problems expected as (field, kind) pairs. Cases follow skills-ref's test catalogue where it
//! agrees with the discovery draft, and say so where skillpub is stricter.

use crate::{Catalog, CatalogBuilder, ErrorKind, Errors, Skill};

fn skill_md(frontmatter: &str) -> String {
    format!("---\n{frontmatter}\n---\n# Instructions\n")
}

fn build(folder: Option<&str>, text: String) -> Result<Catalog, Errors> {
    Catalog::new([Skill::new(folder.map(str::to_owned), text)])
}

fn codes(errors: &Errors) -> Vec<&'static str> {
    errors.as_slice().iter().map(crate::Error::code).collect()
}

fn problems(folder: Option<&str>, frontmatter: &str) -> Vec<(Option<String>, ErrorKind)> {
    match build(folder, skill_md(frontmatter)) {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .into_iter()
            .map(|e| (e.field().map(str::to_owned), e.kind().clone()))
            .collect(),
    }
}

macro_rules! valid {
    ($name:ident, $folder:expr, $frontmatter:expr) => {
        #[test]
        fn $name() {
            assert_eq!(problems($folder, $frontmatter), []);
        }
    };
}

macro_rules! invalid {
    ($name:ident, $folder:expr, $frontmatter:expr, [$(($field:expr, $kind:pat)),+ $(,)?]) => {
        #[test]
        fn $name() {
            let found = problems($folder, $frontmatter);
            let expected: &[Option<&str>] = &[$($field),+];
            assert_eq!(found.len(), expected.len(), "{found:#?}");
            let mut found = found.into_iter();
            $(
                let (field, kind) = found.next().unwrap();
                assert_eq!(field.as_deref(), $field, "{kind:?}");
                assert!(matches!(kind, $kind), "{kind:?}");
            )+
        }
    };
}

const NAME: Option<&str> = Some("name");
const DESCRIPTION: Option<&str> = Some("description");
const COMPATIBILITY: Option<&str> = Some("compatibility");

valid!(
    valid_skill,
    Some("my-skill"),
    "name: my-skill\ndescription: A test skill"
);
valid!(
    without_a_folder_any_valid_name_is_accepted,
    None,
    "name: anything\ndescription: d"
);
valid!(
    valid_with_all_fields,
    Some("my-skill"),
    "name: my-skill\ndescription: d\nlicense: MIT\ncompatibility: Requires Python 3.11+\nallowed-tools: Bash(jq:*) Bash(git:*)\nmetadata:\n  author: Test\n  version: \"1.0\""
);
valid!(
    name_of_64_characters,
    None,
    &format!("name: {}\ndescription: d", "a".repeat(64))
);
valid!(
    description_of_1024_characters,
    None,
    &format!("name: a\ndescription: {}", "x".repeat(1024))
);
valid!(
    description_of_1024_multibyte_characters,
    None,
    &format!("name: a\ndescription: {}", "é".repeat(1024))
);
valid!(
    compatibility_of_500_characters,
    None,
    &format!(
        "name: a\ndescription: d\ncompatibility: {}",
        "x".repeat(500)
    )
);
valid!(digits_in_names, None, "name: 007\ndescription: d");
valid!(
    yes_as_a_name_stays_text,
    Some("yes"),
    "name: yes\ndescription: d"
);
valid!(
    folded_description,
    None,
    "name: a\ndescription: >\n  Folded\n  text."
);
valid!(
    literal_description,
    None,
    "name: a\ndescription: |-\n  Literal\n  text."
);
valid!(
    quoted_description_with_colon,
    None,
    "name: a\ndescription: \"Use when: always\""
);
valid!(
    folder_with_trailing_slash,
    Some("skills/a/"),
    "name: a\ndescription: d"
);

invalid!(
    uppercase_name,
    Some("MySkill"),
    "name: MySkill\ndescription: d",
    [(NAME, ErrorKind::NameUppercase { .. })]
);
invalid!(
    name_too_long,
    None,
    &format!("name: {}\ndescription: d", "a".repeat(65)),
    [(NAME, ErrorKind::NameTooLong { length: 65, .. })]
);
invalid!(
    name_leading_hyphen,
    Some("-my-skill"),
    "name: -my-skill\ndescription: d",
    [(NAME, ErrorKind::NameHyphenAtEdge { .. })]
);
invalid!(
    name_trailing_hyphen,
    None,
    "name: my-skill-\ndescription: d",
    [(NAME, ErrorKind::NameHyphenAtEdge { .. })]
);
invalid!(
    name_consecutive_hyphens,
    Some("my--skill"),
    "name: my--skill\ndescription: d",
    [(NAME, ErrorKind::NameConsecutiveHyphens { .. })]
);
invalid!(
    name_underscore,
    Some("my_skill"),
    "name: my_skill\ndescription: d",
    [(NAME, ErrorKind::NameInvalidCharacters { .. })]
);
invalid!(
    name_with_space,
    None,
    "name: my skill\ndescription: d",
    [(NAME, ErrorKind::NameInvalidCharacters { .. })]
);
invalid!(
    name_directory_mismatch,
    Some("wrong-name"),
    "name: correct-name\ndescription: d",
    [(NAME, ErrorKind::NameFolderMismatch { .. })]
);
// skills-ref accepts the next four (Unicode names); the discovery draft is ASCII only.
invalid!(
    chinese_name_is_refused,
    Some("技能"),
    "name: 技能\ndescription: d",
    [(NAME, ErrorKind::NameInvalidCharacters { .. })]
);
invalid!(
    russian_name_is_refused,
    Some("мой-навык"),
    "name: мой-навык\ndescription: d",
    [(NAME, ErrorKind::NameInvalidCharacters { .. })]
);
invalid!(
    russian_uppercase_is_refused,
    Some("НАВЫК"),
    "name: НАВЫК\ndescription: d",
    [(NAME, ErrorKind::NameInvalidCharacters { .. })]
);
invalid!(
    decomposed_accent_is_refused,
    Some("café"),
    "name: cafe\u{301}\ndescription: d",
    [
        (NAME, ErrorKind::NameInvalidCharacters { .. }),
        (NAME, ErrorKind::NameFolderMismatch { .. })
    ]
);
invalid!(
    empty_name,
    None,
    "name:\ndescription: d",
    [(NAME, ErrorKind::NameEmpty)]
);
invalid!(
    empty_quoted_name,
    None,
    "name: \"\"\ndescription: d",
    [(NAME, ErrorKind::NameEmpty)]
);
invalid!(
    list_as_name,
    None,
    "name:\n  - a\ndescription: d",
    [(
        NAME,
        ErrorKind::WrongType {
            found: "a list",
            ..
        }
    )]
);
invalid!(
    number_as_name,
    None,
    "name: 12\ndescription: d",
    [(
        NAME,
        ErrorKind::WrongType {
            found: "a number",
            ..
        }
    )]
);
invalid!(
    missing_name,
    None,
    "description: d",
    [(NAME, ErrorKind::MissingField { field: "name" })]
);
invalid!(
    missing_description,
    None,
    "name: a",
    [(
        DESCRIPTION,
        ErrorKind::MissingField {
            field: "description"
        }
    )]
);
invalid!(
    empty_description,
    None,
    "name: a\ndescription:",
    [(DESCRIPTION, ErrorKind::DescriptionEmpty)]
);
invalid!(
    blank_description,
    None,
    "name: a\ndescription: \"   \"",
    [(DESCRIPTION, ErrorKind::DescriptionEmpty)]
);
invalid!(
    description_too_long,
    None,
    &format!("name: a\ndescription: {}", "x".repeat(1025)),
    [(DESCRIPTION, ErrorKind::DescriptionTooLong { length: 1025 })]
);
invalid!(
    boolean_description,
    None,
    "name: a\ndescription: true",
    [(
        DESCRIPTION,
        ErrorKind::WrongType {
            found: "a boolean",
            ..
        }
    )]
);
invalid!(
    compatibility_too_long,
    None,
    &format!(
        "name: a\ndescription: d\ncompatibility: {}",
        "x".repeat(501)
    ),
    [(
        COMPATIBILITY,
        ErrorKind::CompatibilityTooLong { length: 501 }
    )]
);
// skills-ref accepts an empty compatibility; the specification says 1 to 500 characters.
invalid!(
    empty_compatibility,
    None,
    "name: a\ndescription: d\ncompatibility: \"\"",
    [(COMPATIBILITY, ErrorKind::CompatibilityEmpty)]
);
invalid!(
    list_as_compatibility,
    None,
    "name: a\ndescription: d\ncompatibility: [a]",
    [(
        COMPATIBILITY,
        ErrorKind::WrongType {
            found: "a list",
            ..
        }
    )]
);
invalid!(
    list_as_license,
    None,
    "name: a\ndescription: d\nlicense: [MIT]",
    [(
        Some("license"),
        ErrorKind::WrongType {
            found: "a list",
            ..
        }
    )]
);
invalid!(
    list_as_allowed_tools,
    None,
    "name: a\ndescription: d\nallowed-tools:\n  - Read",
    [(
        Some("allowed-tools"),
        ErrorKind::WrongType {
            found: "a list",
            ..
        }
    )]
);
invalid!(
    scalar_metadata,
    None,
    "name: a\ndescription: d\nmetadata: hello",
    [(
        Some("metadata"),
        ErrorKind::WrongType {
            found: "a string",
            ..
        }
    )]
);
invalid!(
    number_in_metadata,
    None,
    "name: a\ndescription: d\nmetadata:\n  version: 1.0",
    [(
        Some("metadata.version"),
        ErrorKind::WrongType {
            found: "a number",
            ..
        }
    )]
);
invalid!(
    map_in_metadata,
    None,
    "name: a\ndescription: d\nmetadata:\n  nested:\n    b: c",
    [(
        Some("metadata.nested"),
        ErrorKind::WrongType {
            found: "a mapping",
            ..
        }
    )]
);
invalid!(
    unexpected_fields,
    None,
    "name: a\ndescription: d\nunknown_field: x\nfoo: y",
    [
        (Some("unknown_field"), ErrorKind::UnknownField),
        (Some("foo"), ErrorKind::UnknownField)
    ]
);
invalid!(
    duplicate_key,
    None,
    "name: a\nname: b\ndescription: d",
    [(None, ErrorKind::Yaml { .. })]
);
invalid!(
    unquoted_colon,
    None,
    "name: a\ndescription: Use this: now",
    [(None, ErrorKind::Yaml { .. })]
);
invalid!(
    list_frontmatter,
    None,
    "- a\n- b",
    [(None, ErrorKind::NotAMapping { found: "a list" })]
);
invalid!(
    empty_frontmatter,
    None,
    "",
    [(None, ErrorKind::NotAMapping { found: "empty" })]
);
invalid!(
    every_problem_at_once,
    Some("Bad_Name"),
    &format!(
        "name: Bad_Name--\ndescription: d\nfoo: x\nbar: y\ncompatibility: {}",
        "x".repeat(501)
    ),
    [
        (Some("foo"), ErrorKind::UnknownField),
        (Some("bar"), ErrorKind::UnknownField),
        (NAME, ErrorKind::NameUppercase { .. }),
        (NAME, ErrorKind::NameHyphenAtEdge { .. }),
        (NAME, ErrorKind::NameConsecutiveHyphens { .. }),
        (NAME, ErrorKind::NameInvalidCharacters { .. }),
        (NAME, ErrorKind::NameFolderMismatch { .. }),
        (COMPATIBILITY, ErrorKind::CompatibilityTooLong { .. }),
    ]
);

// Control characters: only tab and line feed, which YAML gives for CRLF line breaks too.
valid!(
    tab_and_line_feed_in_text,
    None,
    "name: a\ndescription: \"one\\ttwo\\nthree\"\ncompatibility: \"a\\tb\""
);
valid!(
    crlf_folded_description,
    None,
    "name: a\r\ndescription: >\r\n  one\r\n\r\n  two\r\n"
);
invalid!(
    nul_in_description,
    None,
    "name: a\ndescription: \"a\\0b\"",
    [(
        DESCRIPTION,
        ErrorKind::ControlCharacter {
            character: '\0',
            position: 2,
            more: 0
        }
    )]
);
invalid!(
    every_control_character_is_counted,
    None,
    "name: a\ndescription: \"\\e[31mred\\e[0m\\a\"",
    [(
        DESCRIPTION,
        ErrorKind::ControlCharacter {
            character: '\u{1b}',
            position: 1,
            more: 2
        }
    )]
);
invalid!(
    carriage_return_escape_in_description,
    None,
    "name: a\ndescription: \"a\\rb\"",
    [(
        DESCRIPTION,
        ErrorKind::ControlCharacter {
            character: '\r',
            ..
        }
    )]
);
invalid!(
    delete_and_next_line_in_compatibility,
    None,
    "name: a\ndescription: d\ncompatibility: \"x\\x7f\\N\"",
    [(
        COMPATIBILITY,
        ErrorKind::ControlCharacter {
            character: '\u{7f}',
            position: 2,
            more: 1
        }
    )]
);
invalid!(
    control_character_in_name,
    None,
    "name: \"ab\\0\"\ndescription: d",
    [(
        NAME,
        ErrorKind::ControlCharacter {
            character: '\0',
            position: 3,
            more: 0
        }
    )]
);
invalid!(
    tab_in_name_is_an_invalid_character,
    None,
    "name: \"a\\tb\"\ndescription: d",
    [(NAME, ErrorKind::NameInvalidCharacters { .. })]
);

// Values are kept as written: numbers JSON cannot write back the same way stay text.
valid!(
    overflowing_number_as_description_stays_text,
    None,
    "name: a\ndescription: 1e999"
);
valid!(
    exponent_as_name_stays_text,
    Some("1e3"),
    "name: 1e3\ndescription: d"
);
valid!(
    version_with_a_trailing_zero_stays_text,
    None,
    "name: a\ndescription: d\nmetadata:\n  version: 1.10"
);
invalid!(
    binary_description_is_not_decoded,
    None,
    "name: a\ndescription: !!binary aGVsbG8=",
    [(None, ErrorKind::Yaml { line: 3, .. })]
);
invalid!(
    closing_fence_with_a_trailing_space,
    None,
    "name: a\n--- \ndescription: d",
    [(None, ErrorKind::FrontmatterFence { line: 3, .. })]
);

#[test]
fn numbers_that_cannot_be_written_back_are_kept_as_written() {
    let catalog = CatalogBuilder::new()
        .skill(Skill::from_static(
            "---\nname: a\ndescription: .NaN\nx-size: 1e999\nx-count: 12\n---\n",
        ))
        .allow_unknown_fields(true)
        .build()
        .unwrap();
    let frontmatter = catalog.get("a").unwrap().frontmatter();
    assert_eq!(frontmatter.description(), ".NaN");
    assert_eq!(frontmatter.json()["x-size"], "1e999");
    assert_eq!(frontmatter.json()["x-count"], 12);
}

#[test]
fn a_fence_mistake_says_so_instead_of_too_large() {
    let errors = build(
        None,
        "---\nname: a\n--- \ndescription: d\n---\n# Body\n".to_owned(),
    )
    .unwrap_err();
    assert_eq!(codes(&errors), ["frontmatter.fence"]);
    assert_eq!(
        errors.as_slice()[0].kind(),
        &ErrorKind::FrontmatterFence {
            line: 3,
            text: "--- ".into()
        }
    );
}

#[test]
fn unknown_fields_can_be_allowed_and_are_kept() {
    let catalog = CatalogBuilder::new()
        .skill(Skill::from_static(
            "---\nname: a\ndescription: d\nx-team: search\n---\n",
        ))
        .allow_unknown_fields(true)
        .build()
        .unwrap();
    let json = catalog.get("a").unwrap().frontmatter().json();
    assert_eq!(json["x-team"], "search");
}

#[test]
fn byte_order_mark_and_crlf_are_accepted_and_served_unchanged() {
    let text = "\u{feff}---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n";
    let catalog = Catalog::new([Skill::from_static(text)]).unwrap();
    assert_eq!(
        catalog.get("a").unwrap().skill_md().bytes().as_ref(),
        text.as_bytes()
    );
}

#[test]
fn every_skill_is_reported_not_just_the_first() {
    let errors = Catalog::new([
        Skill::from_static_in("one", "---\nname: One\ndescription: d\n---\n"),
        Skill::from_static_in("two", "no frontmatter"),
        Skill::from_static_in("three", "---\nname: three\n"),
    ])
    .unwrap_err();
    let files: Vec<&str> = errors.as_slice().iter().map(|e| e.file()).collect();
    assert_eq!(
        files,
        [
            "one/SKILL.md",
            "one/SKILL.md",
            "two/SKILL.md",
            "three/SKILL.md"
        ]
    );
}

#[test]
fn duplicate_names_are_an_error_naming_both_files() {
    let text = "---\nname: a\ndescription: d\n---\n";
    let errors = Catalog::new([
        Skill::from_static_in("one/a", text),
        Skill::from_static_in("two/a", text),
    ])
    .unwrap_err();
    assert_eq!(errors.len(), 1);
    let error = &errors.as_slice()[0];
    assert_eq!(error.file(), "two/a/SKILL.md");
    assert_eq!(
        error.kind(),
        &ErrorKind::DuplicateName {
            name: "a".into(),
            other_file: "one/a/SKILL.md".into()
        }
    );
}

#[test]
fn skills_without_a_folder_are_told_apart_by_position() {
    let errors = Catalog::new([
        Skill::from_static("---\nname: fine\ndescription: d\n---\n"),
        Skill::from_static("no frontmatter"),
    ])
    .unwrap_err();
    let error = &errors.as_slice()[0];
    assert_eq!(error.skill(), "#2 (no folder given)");
    assert_eq!(error.file(), "SKILL.md of skill #2 (no folder given)");
}

#[test]
fn bytes_that_are_not_utf8_are_reported_with_the_offset() {
    let errors = Catalog::new([Skill::new(
        Some("bad".into()),
        b"---\nname: \xff\n".to_vec(),
    )])
    .unwrap_err();
    assert!(matches!(
        errors.as_slice()[0].kind(),
        ErrorKind::NotUtf8 { valid_up_to: 10 }
    ));
}

#[test]
fn messages_name_the_file_the_skill_and_the_field_and_say_how_to_fix() {
    let errors = build(Some("skills/pdf"), skill_md("name: PDF\ndescription: d")).unwrap_err();
    let message = errors.as_slice()[0].to_string();
    assert_eq!(
        message,
        "skills/pdf/SKILL.md: skill `PDF`: field `name`: `PDF` has uppercase letters; names are lowercase, such as `pdf`"
    );
    let summary = errors.to_string();
    assert!(
        summary.starts_with("2 problems in the skills:\n  skills/pdf/SKILL.md"),
        "{summary}"
    );
}

#[test]
fn a_name_with_an_underscore_gets_a_valid_suggestion() {
    let errors = build(
        Some("skills/Greeting_Bot"),
        skill_md("name: Greeting_Bot\ndescription: d"),
    )
    .unwrap_err();
    let messages: Vec<String> = errors.into_iter().map(|e| e.to_string()).collect();
    assert_eq!(
        messages,
        [
            "skills/Greeting_Bot/SKILL.md: skill `Greeting_Bot`: field `name`: `Greeting_Bot` has uppercase letters; names are lowercase, such as `greeting-bot`",
            "skills/Greeting_Bot/SKILL.md: skill `Greeting_Bot`: field `name`: `Greeting_Bot` contains '_'; names use only ASCII `a-z`, `0-9` and `-` (the discovery draft refuses non-ASCII letters), such as `greeting-bot`",
        ]
    );
}

#[test]
fn a_skill_without_frontmatter_is_named_by_its_folder() {
    let errors = build(Some("skills/notes"), "# Notes".to_owned()).unwrap_err();
    assert_eq!(errors.as_slice()[0].skill(), "notes");
    assert_eq!(codes(&errors), ["frontmatter.missing"]);
}

#[test]
fn yaml_errors_carry_the_parser_position() {
    let errors = build(None, skill_md("name: a\ndescription: Use this: now")).unwrap_err();
    assert_eq!(codes(&errors), ["yaml.syntax"]);
    assert!(
        matches!(
            errors.as_slice()[0].kind(),
            ErrorKind::Yaml {
                line: 3,
                column: 22,
                ..
            }
        ),
        "{errors}"
    );
}

#[test]
fn check_reports_what_build_reports_and_builds_nothing() {
    let mut builder = CatalogBuilder::new();
    builder
        .skill(Skill::from_static_in(
            "one/a",
            "---\nname: a\ndescription: d\n---\n",
        ))
        .skill(Skill::from_static_in(
            "two/a",
            "---\nname: a\ndescription: d\n---\n",
        ))
        .skill(Skill::from_static_in("bad", "---\nname: Bad\n---\n"))
        .base_path("tenant");
    let built = builder.build().unwrap_err();
    assert_eq!(builder.check().unwrap_err(), built);
    assert_eq!(built.len(), 5, "{built}");
    let mut fine = CatalogBuilder::new();
    fine.skill(Skill::from_static("---\nname: a\ndescription: d\n---\n"));
    assert_eq!(fine.check(), Ok(()));
}
