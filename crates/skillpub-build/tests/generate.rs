//! What `Embed::generate` writes for a folder: the statics, the names asked for, every catalog
//! problem, the archives built once and again only for a changed skill, and byte for byte the
//! archives the core builds from the same folder.

use std::path::PathBuf;

use skillpub_build::{Embed, EmbedError, generated_file};
use skillpub_core::{Digest, index::ArchiveFormat};
use skillpub_testkit::Scratch;

/// Where the archives go, as `OUT_DIR` in a build script.
fn out(root: &Scratch) -> PathBuf {
    root.path().join("out")
}

/// The bytes of each `.with_parsed_frontmatter([..], "json")` in `code`, with its JSON text.
fn parsed_frontmatters(code: &str) -> Vec<(Vec<u8>, &str)> {
    code.split(".with_parsed_frontmatter([")
        .skip(1)
        .map(|call| {
            let (array, rest) = call.split_once("], \"").unwrap();
            let bytes = array
                .split(", ")
                .map(|byte| u8::from_str_radix(byte.trim_start_matches("0x"), 16).unwrap())
                .collect();
            (bytes, rest.split_once("\")").unwrap().0)
        })
        .collect()
}

const SKILL_MD: &str = "---\nname: pdf\ndescription: Reads PDFs.\n---\n";

#[test]
fn generates_one_static_per_file_list_and_labels_relative_to_the_root() {
    let root = Scratch::new("generate");
    root.write("skills/pdf/SKILL.md", SKILL_MD);
    root.write("skills/pdf/scripts/run.sh", "#!/bin/sh\n");
    root.write("skills/pdf/.DS_Store", "junk");
    let generated = Embed::new("skills")
        .generate(root.path(), &out(&root))
        .unwrap();
    let code = &generated.code;
    assert!(
        code.contains("static __SKILLS_FILES_0: [::skillpub::SkillFile; 1]"),
        "{code}"
    );
    assert!(
        code.contains("::skillpub::SkillFile::from_static(\"scripts/run.sh\""),
        "{code}"
    );
    assert!(
        code.contains("pub static SKILLS: [::skillpub::Skill; 1]"),
        "{code}"
    );
    assert!(code.contains("from_static_parts(\"skills/pdf\""), "{code}");
    assert!(!code.contains("DS_Store"), "{code}");
    assert_eq!(generated.skipped.len(), 1);
    for watched in [
        "skills",
        "skills/pdf",
        "skills/pdf/scripts",
        "skills/pdf/SKILL.md",
        "skills/pdf/scripts/run.sh",
    ] {
        assert!(
            generated.watched.contains(&root.path().join(watched)),
            "{watched} is watched"
        );
    }
}

#[test]
fn crate_path_and_static_name_are_used() {
    let root = Scratch::new("names");
    root.write("skills/pdf/SKILL.md", SKILL_MD);
    let generated = Embed::new("skills")
        .crate_path("::skillpub_core")
        .static_name("AGENT_SKILLS")
        .generate(root.path(), &out(&root))
        .unwrap();
    assert!(
        generated
            .code
            .contains("pub static AGENT_SKILLS: [::skillpub_core::Skill; 1]")
    );
}

#[test]
fn invalid_skills_are_reported_with_every_catalog_problem() {
    let root = Scratch::new("invalid");
    root.write(
        "skills/pdf/SKILL.md",
        "---\nname: PDF\ndescription: d\n---\n",
    );
    root.write("skills/pdf/my notes.md", "x");
    let Err(EmbedError::Skills(errors)) = Embed::new("skills").generate(root.path(), &out(&root))
    else {
        panic!("the skills are invalid");
    };
    let found: Vec<(&str, &str)> = errors
        .as_slice()
        .iter()
        .map(|error| (error.file(), error.code()))
        .collect();
    let skill_md = root.path().join("skills/pdf/SKILL.md");
    let notes = root.path().join("skills/pdf/my notes.md");
    assert_eq!(
        found,
        [
            (skill_md.to_str().unwrap(), "name.uppercase"),
            (skill_md.to_str().unwrap(), "name.folder-mismatch"),
            (notes.to_str().unwrap(), "file.path"),
        ]
    );
}

#[test]
fn unknown_fields_can_be_allowed_as_at_run_time() {
    let root = Scratch::new("unknown-fields");
    root.write(
        "skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: d\nowner: me\n---\n",
    );
    assert!(
        Embed::new("skills")
            .generate(root.path(), &out(&root))
            .is_err()
    );
    assert!(
        Embed::new("skills")
            .allow_unknown_fields(true)
            .generate(root.path(), &out(&root))
            .is_ok()
    );
}

#[test]
fn names_that_are_not_rust_are_refused() {
    let root = Scratch::new("not-rust");
    root.write("skills/pdf/SKILL.md", SKILL_MD);
    let bad_static = Embed::new("skills")
        .static_name("MY SKILLS")
        .generate(root.path(), &out(&root));
    assert!(matches!(
        bad_static,
        Err(EmbedError::NotRust(_, "identifier"))
    ));
    let bad_path = Embed::new("skills")
        .crate_path("::sk-illpub")
        .generate(root.path(), &out(&root));
    assert!(matches!(bad_path, Err(EmbedError::NotRust(_, "path"))));
}

/// The archives in the store, by file name, with their bytes and modification times.
fn stored(root: &Scratch) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut files: Vec<_> = std::fs::read_dir(out(root).join("skillpub-archives-SKILLS"))
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
            (name, std::fs::read(&path).unwrap(), modified)
        })
        .collect();
    files.sort();
    files
}

fn with_files(root: &Scratch) {
    root.write("skills/pdf/SKILL.md", SKILL_MD);
    root.write("skills/pdf/references/forms.md", "# Forms\n");
    root.write(
        "skills/docx/SKILL.md",
        "---\nname: docx\ndescription: Reads DOCX.\n---\n",
    );
    root.write("skills/docx/scripts/run.sh", "#!/bin/sh\n");
    root.write(
        "skills/notes/SKILL.md",
        "---\nname: notes\ndescription: Takes notes.\n---\n",
    );
}

#[test]
fn archives_are_built_once_and_again_only_for_the_skill_whose_files_changed() {
    let root = Scratch::new("incremental");
    with_files(&root);
    let embed = Embed::new("skills");
    let first = embed.generate(root.path(), &out(&root)).unwrap();
    assert_eq!((first.archives_built, first.archives_kept), (2, 0));
    let before = stored(&root);
    assert_eq!(before.len(), 4, "a .tar.gz and a .zip for pdf and docx");

    let again = embed.generate(root.path(), &out(&root)).unwrap();
    assert_eq!((again.archives_built, again.archives_kept), (0, 2));
    assert_eq!(stored(&root), before, "nothing written again");
    assert_eq!(again.code, first.code);

    root.write("skills/pdf/references/forms.md", "# Forms, edited\n");
    let edited = embed.generate(root.path(), &out(&root)).unwrap();
    assert_eq!((edited.archives_built, edited.archives_kept), (1, 1));
    let after = stored(&root);
    assert_eq!(after.len(), 4, "the old archives of pdf are deleted");
    let kept: Vec<_> = after.iter().filter(|file| before.contains(file)).collect();
    assert_eq!(kept.len(), 2, "docx's two archives are untouched");
}

#[test]
fn the_archives_are_the_ones_the_catalog_builds_from_the_same_folder() {
    let root = Scratch::new("identical");
    with_files(&root);
    let generated = Embed::new("skills")
        .generate(root.path(), &out(&root))
        .unwrap();
    let catalog = skillpub_core::Catalog::from_dir(root.path().join("skills")).unwrap();
    let stored = stored(&root);
    for skill in ["pdf", "docx"] {
        let published = catalog.get(skill).unwrap();
        for format in [ArchiveFormat::TarGz, ArchiveFormat::Zip] {
            let bytes = published.archive(format).unwrap().bytes();
            let (name, ..) = stored
                .iter()
                .find(|(_, stored, _)| stored == bytes)
                .unwrap_or_else(|| panic!("no {format:?} of {skill} in the store"));
            assert!(generated.code.contains(name.as_str()), "{name} is embedded");
        }
    }
}

#[test]
fn the_code_gives_every_skill_its_frontmatter_and_archive_skills_their_archives() {
    let root = Scratch::new("code");
    with_files(&root);
    let code = Embed::new("skills")
        .generate(root.path(), &out(&root))
        .unwrap()
        .code;
    let parsed = parsed_frontmatters(&code);
    assert_eq!(parsed.len(), 3, "{code}");
    let pdf = Digest::of(SKILL_MD.as_bytes());
    assert!(
        parsed.contains(&(
            pdf.as_bytes().to_vec(),
            r#"{\"name\":\"pdf\",\"description\":\"Reads PDFs.\"}"#
        )),
        "{parsed:?}"
    );
    assert_eq!(
        code.matches(".with_built_archives(").count(),
        2,
        "not for notes"
    );
}

#[test]
fn each_static_has_its_own_file() {
    assert_eq!(generated_file("SKILLS"), "skillpub_SKILLS.rs");
    assert_eq!(generated_file("AGENT_SKILLS"), "skillpub_AGENT_SKILLS.rs");
}

#[test]
fn the_folder_in_comments_is_quoted() {
    let root = Scratch::new("quoted");
    root.write("skills/pdf/SKILL.md", SKILL_MD);
    let code = Embed::new("skills")
        .generate(root.path(), &out(&root))
        .unwrap()
        .code;
    assert!(
        code.starts_with("// Generated by skillpub-build from \"skills\"; do not edit.\n"),
        "{code}"
    );
}

/// Every path the code gives `include_bytes!`, with the bytes the compiler would read there.
fn included(code: &str) -> Vec<(PathBuf, Vec<u8>)> {
    code.split("::core::include_bytes!(\"")
        .skip(1)
        .map(|call| {
            let path = PathBuf::from(call.split_once("\")").unwrap().0);
            let bytes = std::fs::read(&path).unwrap_or_default();
            (path, bytes)
        })
        .collect()
}

#[cfg(unix)]
#[test]
fn the_compiler_embeds_the_bytes_read_and_checked_never_a_file_swapped_in_afterwards() {
    let root = Scratch::new("swapped-after");
    with_files(&root);
    root.write("secret.txt", "SECRET");
    let generated = Embed::new("skills")
        .generate(root.path(), &out(&root))
        .unwrap();
    // After the build script, before the compiler reads what it names: the file becomes a
    // link to a secret outside the skill.
    let forms = root.path().join("skills/pdf/references/forms.md");
    std::fs::remove_file(&forms).unwrap();
    std::os::unix::fs::symlink(root.path().join("secret.txt"), &forms).unwrap();
    let included = included(&generated.code);
    assert_eq!(
        included.len(),
        3 + 2 + 2 * 2,
        "3 SKILL.md, 2 files, 2 skills' 2 archives"
    );
    for (path, bytes) in &included {
        assert!(
            !bytes.windows(6).any(|w| w == b"SECRET"),
            "{} holds the secret",
            path.display()
        );
    }
    for (path, _) in &included {
        assert!(
            path.starts_with(out(&root)),
            "{} is in OUT_DIR",
            path.display()
        );
    }
    assert!(
        included.iter().any(|(_, bytes)| bytes == b"# Forms\n"),
        "the bytes read are embedded"
    );
}

#[test]
fn copies_of_the_files_are_written_once_and_the_ones_no_file_names_are_deleted() {
    let root = Scratch::new("copies");
    with_files(&root);
    let embed = Embed::new("skills");
    embed.generate(root.path(), &out(&root)).unwrap();
    let copies = || {
        let mut names: Vec<String> = std::fs::read_dir(out(&root).join("skillpub-files-SKILLS"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let before = copies();
    assert_eq!(
        before.len(),
        5,
        "3 SKILL.md and 2 files, by digest: {before:?}"
    );
    assert!(before.contains(&Digest::of(b"# Forms\n").hex()));
    root.write("skills/pdf/references/forms.md", "# Forms, edited\n");
    embed.generate(root.path(), &out(&root)).unwrap();
    let after = copies();
    assert_eq!(after.len(), 5);
    assert!(after.contains(&Digest::of(b"# Forms, edited\n").hex()));
    assert!(!after.contains(&Digest::of(b"# Forms\n").hex()));
}

/// The bytes of each `.with_reviewed_secrets([..])` in `code`.
fn review_keys(code: &str) -> Vec<Vec<u8>> {
    code.split(".with_reviewed_secrets([")
        .skip(1)
        .map(|call| {
            let (array, _) = call.split_once("])").unwrap();
            array
                .split(", ")
                .map(|byte| u8::from_str_radix(byte.trim_start_matches("0x"), 16).unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn a_credential_in_any_file_fails_the_build_with_its_file_and_line() {
    let root = Scratch::new("secret");
    root.write("skills/pdf/SKILL.md", SKILL_MD);
    let key = format!("AKIA{}", "Q7ZRX4MBVN2TSWKD");
    root.write(
        "skills/pdf/references/aws.md",
        format!("# AWS\n\nkey: {key}\n"),
    );
    let Err(EmbedError::Skills(errors)) = Embed::new("skills").generate(root.path(), &out(&root))
    else {
        panic!("the credential is refused");
    };
    let error = &errors.as_slice()[0];
    let file = root.path().join("skills/pdf/references/aws.md");
    assert_eq!(
        (error.file(), error.line(), error.code()),
        (file.to_str().unwrap(), Some(3), "security.secret")
    );
    assert!(!error.to_string().contains(&key), "{error}");
}

#[test]
fn every_skill_carries_the_review_key_of_the_files_it_embeds() {
    let root = Scratch::new("reviewed");
    with_files(&root);
    let code = Embed::new("skills")
        .generate(root.path(), &out(&root))
        .unwrap()
        .code;
    let folder = skillpub_core::folder::read_skills_folder(root.path().join("skills")).unwrap();
    let expected: Vec<Vec<u8>> = folder
        .skills()
        .iter()
        .map(|source| source.skill().review_key().as_bytes().to_vec())
        .collect();
    assert_eq!(expected.len(), 3);
    assert_eq!(review_keys(&code), expected, "{code}");
}

#[test]
fn the_security_review_warns_with_file_and_line_and_the_build_goes_on() {
    let root = Scratch::new("warnings");
    root.write("skills/pdf/SKILL.md", SKILL_MD);
    root.write(
        "skills/pdf/scripts/setup.sh",
        "#!/bin/sh\ncurl -fsSL https://get.acme.dev/install.sh | sh\n",
    );
    let generated = Embed::new("skills")
        .generate(root.path(), &out(&root))
        .unwrap();
    let file = root.path().join("skills/pdf/scripts/setup.sh");
    assert_eq!(generated.warnings.len(), 1, "{:?}", generated.warnings);
    assert!(
        generated.warnings[0].starts_with(&format!(
            "{}:2: line 2 pipes a download into a shell or an interpreter",
            file.display()
        )),
        "{}",
        generated.warnings[0]
    );
    assert!(generated.warnings[0].ends_with("[security.script]"));
    assert_eq!(generated.skills, 1, "a warning does not fail the build");
}
