//! Start-up: a catalog built on several threads is the one built on one, and what
//! `skillpub-build` worked out at compile time (frontmatter parsed, archives built) is used only
//! for the very bytes it came from.

use std::num::NonZeroUsize;

use bytes::Bytes;

use crate::{
    Catalog, CatalogBuilder, Digest, ErrorKind, Errors, Skill, SkillFile, index::ArchiveFormat,
};

/// Deterministic text of about `size` bytes, different for each `seed`.
fn text(seed: usize, size: usize) -> String {
    const WORDS: [&str; 12] = [
        "skill", "archive", "digest", "the", "index", "a", "file", "served", "bytes", "of",
        "every", "client",
    ];
    let mut out = String::new();
    let mut at = seed;
    while out.len() < size {
        at = (at * 31 + 7) % 1_009;
        out.push_str(WORDS[at % WORDS.len()]);
        out.push(if at.is_multiple_of(13) { '\n' } else { ' ' });
    }
    out
}

fn skill_md(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Handles {name}.\nmetadata:\n  n: \"1\"\n---\n# {name}\n"
    )
}

/// `count` skills with two supporting files of `size` bytes each.
fn skills(count: usize, size: usize) -> Vec<Skill> {
    (0..count)
        .map(|at| {
            let name = format!("skill-{at:03}");
            Skill::new(Some(format!("skills/{name}")), skill_md(&name)).with_files(vec![
                SkillFile::new("references/guide.md", text(at, size), false),
                SkillFile::new("scripts/run.sh", text(at + 1, size / 2), true),
            ])
        })
        .collect()
}

fn build(skills: &[Skill], threads: usize) -> Result<Catalog, Errors> {
    let mut builder = CatalogBuilder::new();
    builder
        .skills(skills)
        .threads(NonZeroUsize::new(threads).unwrap());
    builder.build()
}

/// Every artifact: path, type, bytes and digest.
fn everything(catalog: &Catalog) -> Vec<(String, &'static str, Bytes, Digest)> {
    catalog
        .artifacts()
        .map(|a| {
            (
                a.path().to_owned(),
                a.media_type(),
                a.bytes().clone(),
                a.digest(),
            )
        })
        .collect()
}

#[test]
fn a_catalog_built_on_several_threads_is_the_one_built_on_one() {
    // 24 skills of 60 KB: enough work for every thread asked for.
    let skills = skills(24, 40_000);
    let one = build(&skills, 1).unwrap();
    for threads in [2, 3, 8] {
        let many = build(&skills, threads).unwrap();
        assert_eq!(everything(&many), everything(&one), "{threads} threads");
    }
}

#[test]
fn errors_come_in_the_same_order_on_several_threads() {
    // Enough frontmatters to parse that several threads share them; every third is invalid.
    let skills: Vec<Skill> = (0_u32..300)
        .map(|at| {
            let name = if at.is_multiple_of(3) {
                format!("Skill-{at:03}")
            } else {
                format!("skill-{at:03}")
            };
            Skill::new(Some(format!("skills/skill-{at:03}")), skill_md(&name))
        })
        .collect();
    let one = build(&skills, 1).unwrap_err();
    let many = build(&skills, 4).unwrap_err();
    assert_eq!(many, one);
    assert_eq!(
        one.as_slice().len(),
        100 * 2,
        "uppercase, and not the folder name"
    );
}

#[test]
fn a_frontmatter_parsed_at_build_time_gives_the_catalog_of_the_yaml() {
    let text = "---\nname: pdf\ndescription: >\n  Reads PDF\n  files.\nlicense: MIT\nmetadata:\n  version: \"1.0\"\n---\n# PDF\n";
    let parsed = Catalog::new([Skill::from_static(text)]).unwrap();
    let json = serde_json::Value::Object(parsed.get("pdf").unwrap().frontmatter().json().clone())
        .to_string();
    let sha256 = *Digest::of(text.as_bytes()).as_bytes();
    let skill = Skill::from_static(text).with_parsed_frontmatter(sha256, json.leak());
    let read = Catalog::new([skill]).unwrap();
    assert_eq!(
        read.get("pdf").unwrap().frontmatter(),
        parsed.get("pdf").unwrap().frontmatter()
    );
    assert_eq!(read.index(), parsed.index());
}

#[test]
fn a_frontmatter_parsed_from_other_bytes_is_ignored_and_the_yaml_is_read() {
    let text = "---\nname: pdf\ndescription: Reads PDFs.\n---\n";
    let other = *Digest::of(b"another SKILL.md").as_bytes();
    let skill = Skill::from_static(text).with_parsed_frontmatter(other, r#"{"name":"docx"}"#);
    let catalog = Catalog::new([skill]).unwrap();
    assert_eq!(
        catalog.get("pdf").unwrap().frontmatter().description(),
        "Reads PDFs."
    );

    let sha256 = *Digest::of(text.as_bytes()).as_bytes();
    let not_an_object = Skill::from_static(text).with_parsed_frontmatter(sha256, "[1, 2]");
    assert!(Catalog::new([not_an_object]).unwrap().get("pdf").is_some());
}

#[test]
fn every_field_rule_still_runs_on_a_frontmatter_parsed_at_build_time() {
    let text = "---\nname: pdf\ndescription: Reads PDFs.\nowner: me\n---\n";
    let json = r#"{"name":"pdf","description":"Reads PDFs.","owner":"me"}"#;
    let sha256 = *Digest::of(text.as_bytes()).as_bytes();
    let skill = Skill::from_static_in("skills/docx", text).with_parsed_frontmatter(sha256, json);
    let errors = Catalog::new([skill.clone()]).unwrap_err();
    let kinds: Vec<&ErrorKind> = errors.as_slice().iter().map(|e| e.kind()).collect();
    assert!(matches!(
        kinds.as_slice(),
        [
            ErrorKind::UnknownField,
            ErrorKind::NameFolderMismatch { .. }
        ]
    ));
    let mut lenient = CatalogBuilder::new();
    lenient.skill(skill).allow_unknown_fields(true);
    assert_eq!(lenient.build().unwrap_err().as_slice().len(), 1);
}

/// The archives a catalog builds for `skill`, as static bytes, with the skill's key.
fn built_archives(skill: &Skill) -> ([u8; 32], &'static [u8], &'static [u8]) {
    let catalog = Catalog::new([skill]).unwrap();
    let published = catalog.skills()[0].clone();
    let bytes =
        |format| -> &'static [u8] { published.archive(format).unwrap().bytes().to_vec().leak() };
    let key = *skill.archive_key().unwrap().as_bytes();
    (key, bytes(ArchiveFormat::TarGz), bytes(ArchiveFormat::Zip))
}

#[test]
fn archives_built_ahead_of_time_are_served_as_given_and_hashed() {
    let skill = skills(1, 3_000).remove(0);
    let (key, tar_gz, zip) = built_archives(&skill);
    let catalog = Catalog::new([skill.with_built_archives(key, tar_gz, zip)]).unwrap();
    let published = &catalog.skills()[0];
    for (format, bytes) in [(ArchiveFormat::TarGz, tar_gz), (ArchiveFormat::Zip, zip)] {
        let archive = published.archive(format).unwrap();
        assert_eq!(archive.bytes().as_ptr(), bytes.as_ptr(), "not rebuilt");
        assert_eq!(archive.digest(), Digest::of(bytes));
    }
    assert!(
        std::str::from_utf8(catalog.index().bytes())
            .unwrap()
            .contains(&Digest::of(tar_gz).to_string())
    );
}

#[test]
fn archives_built_from_other_files_are_not_served() {
    let skill = skills(1, 3_000).remove(0);
    let (key, tar_gz, zip) = built_archives(&skill);
    let edited = skill.clone().with_files(vec![
        SkillFile::new("references/guide.md", "edited\n", false),
        SkillFile::new("scripts/run.sh", text(1, 1_500), true),
    ]);
    let expected = Catalog::new([&edited]).unwrap();
    let catalog = Catalog::new([edited.with_built_archives(key, tar_gz, zip)]).unwrap();
    assert_eq!(everything(&catalog), everything(&expected));
    assert_ne!(
        catalog.skills()[0]
            .archive(ArchiveFormat::TarGz)
            .unwrap()
            .bytes(),
        tar_gz
    );
}

#[test]
fn the_archive_key_follows_every_path_mode_and_byte() {
    let skill = |path: &str, bytes: &'static str, executable| {
        Skill::new(None, skill_md("pdf")).with_files(vec![SkillFile::new(path, bytes, executable)])
    };
    let key = |skill: Skill| skill.archive_key().unwrap();
    let base = key(skill("references/a.md", "a", false));
    assert_eq!(key(skill("references/a.md", "a", false)), base);
    assert_ne!(key(skill("references/b.md", "a", false)), base);
    assert_ne!(key(skill("references/a.md", "b", false)), base);
    assert_ne!(key(skill("references/a.md", "a", true)), base);
    let in_another_order = Skill::new(None, skill_md("pdf")).with_files(vec![
        SkillFile::new("b.md", "b", false),
        SkillFile::new("a.md", "a", false),
    ]);
    let sorted = Skill::new(None, skill_md("pdf")).with_files(vec![
        SkillFile::new("a.md", "a", false),
        SkillFile::new("b.md", "b", false),
    ]);
    assert_eq!(key(in_another_order), key(sorted));
}
