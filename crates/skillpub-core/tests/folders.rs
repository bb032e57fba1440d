//! Reading skills from disk: what is read, what is skipped and what is refused.

#![cfg(feature = "fs")]

use skillpub_core::{
    Catalog, ErrorKind, Errors, Skill, SkillFile,
    folder::{SkillsFolder, read_skills_folder},
    spec::PathProblem,
};
use skillpub_testkit::Scratch;

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name}.\n---\nSteps.\n")
}

fn kinds(errors: &Errors) -> Vec<ErrorKind> {
    errors.as_slice().iter().map(|e| e.kind().clone()).collect()
}

#[test]
fn a_folder_of_skills_is_read_with_every_file_sorted() {
    let dir = Scratch::new("folder-of-skills");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    dir.write("pdf/scripts/fill.py", "print(1)\n");
    dir.write("pdf/references/forms.md", "# Forms\n");
    dir.write("greeting/SKILL.md", skill_md("greeting"));
    dir.write("README.md", "ignored at the top\n");
    let folder = read_skills_folder(dir.path()).unwrap();
    let names: Vec<Option<&str>> = folder
        .skills()
        .iter()
        .map(|s| s.skill().folder_name())
        .collect();
    assert_eq!(names, [Some("greeting"), Some("pdf")]);
    let pdf = folder.skills()[1].skill();
    let paths: Vec<&str> = pdf.files().iter().map(SkillFile::path).collect();
    assert_eq!(paths, ["references/forms.md", "scripts/fill.py"]);
    assert_eq!(
        folder.skills()[1].file_sources()[1],
        dir.path().join("pdf/scripts/fill.py")
    );
    assert!(
        folder
            .folders()
            .contains(&dir.path().join("pdf/references"))
    );
}

#[test]
fn a_single_skill_folder_is_read_as_one_skill() {
    let dir = Scratch::new("single");
    let root = dir.path().join("pdf");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    let catalog = Catalog::from_dir(&root).unwrap();
    assert_eq!(catalog.skills().len(), 1);
}

#[test]
fn from_dir_gives_the_same_artifacts_as_skills_built_in_memory() {
    let dir = Scratch::new("same-bytes");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    dir.write("pdf/references/forms.md", "# Forms\n");
    let from_disk = Catalog::from_dir(dir.path()).unwrap();
    let in_memory =
        Catalog::new([
            Skill::new(Some("pdf".into()), skill_md("pdf")).with_files(vec![SkillFile::new(
                "references/forms.md",
                "# Forms\n",
                false,
            )]),
        ])
        .unwrap();
    let digests = |c: &Catalog| {
        c.artifacts()
            .map(|a| (a.path().to_owned(), a.digest()))
            .collect::<Vec<_>>()
    };
    assert_eq!(digests(&from_disk), digests(&in_memory));
}

#[test]
fn catalogs_from_memory_skip_nothing_and_builders_from_a_folder_keep_the_list() {
    let dir = Scratch::new("builder");
    dir.write(
        "pdf/SKILL.md",
        "---\nname: pdf\ndescription: d\nx-team: docs\n---\n",
    );
    dir.write("pdf/.DS_Store", "junk");
    let folder = read_skills_folder(dir.path()).unwrap();
    assert!(folder.catalog().is_err());
    let catalog = folder.builder().allow_unknown_fields(true).build().unwrap();
    assert_eq!(catalog.skipped(), folder.skipped());
    assert_eq!(catalog.skipped()[0].path, dir.path().join("pdf/.DS_Store"));
    let in_memory = Catalog::new([Skill::new(None, skill_md("pdf"))]).unwrap();
    assert!(in_memory.skipped().is_empty());
}

#[test]
fn hidden_files_and_folders_are_skipped_and_listed() {
    let dir = Scratch::new("hidden");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    dir.write("pdf/.DS_Store", "junk");
    dir.write("pdf/.git/config", "[core]");
    dir.write(".github/workflows/ci.yml", "on: push");
    let folder = read_skills_folder(dir.path()).unwrap();
    assert!(folder.skills()[0].skill().files().is_empty());
    let skipped: Vec<_> = folder.skipped().iter().map(|s| s.path.clone()).collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(skipped.contains(&dir.path().join("pdf/.DS_Store")));
}

#[cfg(unix)]
#[test]
fn the_executable_bit_is_kept() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("exec");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    let tool = dir.write("pdf/assets/tool", "#!/bin/sh\n");
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.write("pdf/assets/data.txt", "x");
    let folder = read_skills_folder(dir.path()).unwrap();
    let files = folder.skills()[0].skill().files();
    assert_eq!(
        (files[0].path(), files[0].mode()),
        ("assets/data.txt", 0o644)
    );
    assert_eq!((files[1].path(), files[1].mode()), ("assets/tool", 0o755));
}

#[cfg(unix)]
#[test]
fn links_inside_the_skill_are_read_as_files_and_links_outside_are_refused() {
    use std::os::unix::fs::symlink;
    let dir = Scratch::new("links");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    let target = dir.write("pdf/references/real.md", "# Real\n");
    symlink(&target, dir.path().join("pdf/references/alias.md")).unwrap();
    let folder = read_skills_folder(dir.path()).unwrap();
    let files = folder.skills()[0].skill().files();
    assert_eq!(files[0].path(), "references/alias.md");
    assert_eq!(files[0].bytes().as_ref(), b"# Real\n");

    let outside = dir.write("secret.txt", "password");
    symlink(&outside, dir.path().join("pdf/leak.txt")).unwrap();
    symlink(
        dir.path().join("pdf/references"),
        dir.path().join("pdf/refs"),
    )
    .unwrap();
    let errors = read_skills_folder(dir.path()).unwrap_err();
    let kinds = kinds(&errors);
    assert!(
        matches!(&kinds[0], ErrorKind::SymlinkOutside { target } if target.ends_with("secret.txt")),
        "{kinds:?}"
    );
    assert_eq!(kinds[1], ErrorKind::SymlinkedFolder);
    assert!(errors.as_slice()[0].file().ends_with("pdf/leak.txt"));
}

#[cfg(unix)]
#[test]
fn links_are_followed_by_the_walk_s_own_rules_and_only_inside_the_skill() {
    use std::os::unix::fs::symlink;
    let dir = Scratch::new("link-rules");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    dir.write("pdf/references/real.md", "# Real\n");
    // A chain, a link through a linked folder, and a way out and back in with `..`.
    symlink("real.md", dir.path().join("pdf/references/chain.md")).unwrap();
    symlink(
        "chain.md",
        dir.path().join("pdf/references/chain-of-two.md"),
    )
    .unwrap();
    symlink("references", dir.path().join("pdf/refs")).unwrap();
    symlink(
        "../refs/real.md",
        dir.path().join("pdf/references/through.md"),
    )
    .unwrap();
    symlink(
        "../../pdf/references/real.md",
        dir.path().join("pdf/references/back.md"),
    )
    .unwrap();
    let folder = SkillsFolder::read(dir.path().join("pdf"));
    let read: Vec<(&str, &[u8])> = folder.skills()[0]
        .skill()
        .files()
        .iter()
        .map(|file| (file.path(), file.bytes().as_ref()))
        .collect();
    assert_eq!(
        read,
        [
            ("references/back.md", &b"# Real\n"[..]),
            ("references/chain-of-two.md", b"# Real\n"),
            ("references/chain.md", b"# Real\n"),
            ("references/real.md", b"# Real\n"),
            ("references/through.md", b"# Real\n"),
        ]
    );
    assert_eq!(
        folder.skills()[0].file_sources()[0],
        dir.path().join("pdf/references/real.md"),
        "a link's source is the file it leads to"
    );
    let errors: Vec<&ErrorKind> = folder.errors().iter().map(|e| e.kind()).collect();
    assert_eq!(
        errors,
        [&ErrorKind::SymlinkedFolder],
        "the link to a folder itself"
    );

    // A loop, a way out that stays out, and a FIFO behind a link: refused, never waited on.
    std::fs::remove_file(dir.path().join("pdf/refs")).unwrap();
    symlink("loop-b.md", dir.path().join("pdf/references/loop-a.md")).unwrap();
    symlink("loop-a.md", dir.path().join("pdf/references/loop-b.md")).unwrap();
    dir.write("secret.md", "password");
    symlink("../../secret.md", dir.path().join("pdf/references/out.md")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pdf/references/pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    symlink("pipe", dir.path().join("pdf/references/to-pipe.md")).unwrap();
    let found = kinds(&read_skills_folder(dir.path().join("pdf")).unwrap_err());
    assert!(
        found.contains(&ErrorKind::BrokenSymlink {
            target: "loop-b.md".into()
        }),
        "{found:?}"
    );
    assert!(
        found.contains(&ErrorKind::BrokenSymlink {
            target: "loop-a.md".into()
        }),
        "{found:?}"
    );
    assert!(
        found.iter().any(|kind| matches!(kind, ErrorKind::SymlinkOutside { target } if target.ends_with("secret.md"))),
        "{found:?}"
    );
    assert_eq!(
        found
            .iter()
            .filter(|kind| **kind == ErrorKind::NotARegularFile)
            .count(),
        2,
        "the FIFO and the link to it: {found:?}"
    );
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_refused() {
    use std::os::unix::ffi::OsStrExt;
    let dir = Scratch::new("not-utf8");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
    std::fs::write(dir.path().join("pdf").join(name), "x").unwrap();
    let errors = read_skills_folder(dir.path()).unwrap_err();
    assert_eq!(kinds(&errors), [ErrorKind::NameNotUtf8]);
}

#[cfg(unix)]
#[test]
fn special_files_are_refused() {
    let dir = Scratch::new("fifo");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pdf/pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let errors = read_skills_folder(dir.path()).unwrap_err();
    assert_eq!(kinds(&errors), [ErrorKind::NotARegularFile]);
}

#[test]
fn paths_a_url_cannot_carry_are_read_then_refused_by_the_catalog_rule() {
    let dir = Scratch::new("bad-path");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    dir.write("pdf/my notes.md", "x");
    let folder = read_skills_folder(dir.path()).unwrap();
    let errors = folder.catalog().unwrap_err();
    assert!(matches!(
        &kinds(&errors)[..],
        [ErrorKind::FilePath {
            problem: PathProblem::Characters { .. }
        }]
    ));
    let file = errors.as_slice()[0].file();
    assert_eq!(file, format!("{}/pdf/my notes.md", dir.path().display()));
    assert_eq!(Catalog::from_dir(dir.path()).unwrap_err(), errors);
}

#[test]
fn subfolders_without_skill_md_are_skipped_but_a_wrong_case_is_an_error() {
    let dir = Scratch::new("missing");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    dir.write("shared/notes.md", "x");
    let folder = read_skills_folder(dir.path()).unwrap();
    assert_eq!(folder.skills().len(), 1);
    assert_eq!(folder.skipped()[0].path, dir.path().join("shared"));
    let catalog = Catalog::from_dir(dir.path()).unwrap();
    assert_eq!(
        catalog.skipped(),
        folder.skipped(),
        "from_dir reports it too"
    );
    assert_eq!(
        catalog.skipped()[0].to_string(),
        format!(
            "skipped {} (the folder has no SKILL.md, so it is not a skill)",
            dir.path().join("shared").display()
        )
    );

    dir.write("lower/skill.md", skill_md("lower"));
    let errors = read_skills_folder(dir.path()).unwrap_err();
    assert_eq!(
        kinds(&errors),
        [ErrorKind::SkillMdCase {
            found: "skill.md".into()
        }]
    );
}

#[cfg(unix)]
#[test]
fn skill_md_goes_through_the_same_checks_as_every_file() {
    use std::os::unix::fs::symlink;
    let dir = Scratch::new("skill-md-checks");
    let outside = dir.write("elsewhere/SKILL.md", skill_md("pdf"));
    std::fs::create_dir_all(dir.path().join("skills/pdf")).unwrap();
    symlink(&outside, dir.path().join("skills/pdf/SKILL.md")).unwrap();
    let errors = read_skills_folder(dir.path().join("skills")).unwrap_err();
    assert!(
        matches!(&kinds(&errors)[..], [ErrorKind::SymlinkOutside { .. }]),
        "{errors}"
    );

    std::fs::remove_file(dir.path().join("skills/pdf/SKILL.md")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("skills/pdf/SKILL.md"))
        .status()
        .unwrap();
    assert!(status.success());
    let errors = read_skills_folder(dir.path().join("skills")).unwrap_err();
    assert_eq!(
        kinds(&errors),
        [ErrorKind::NotARegularFile],
        "a FIFO is refused, not read"
    );
}

#[cfg(unix)]
#[test]
fn broken_links_links_to_hidden_files_and_linked_skill_folders_are_refused() {
    use std::os::unix::fs::symlink;
    let dir = Scratch::new("odd-links");
    dir.write("skills/pdf/SKILL.md", skill_md("pdf"));
    dir.write("skills/pdf/.env", "SECRET=1");
    symlink("missing.md", dir.path().join("skills/pdf/dangling.md")).unwrap();
    symlink(".env", dir.path().join("skills/pdf/env.txt")).unwrap();
    dir.write("real/other/SKILL.md", skill_md("other"));
    symlink(
        dir.path().join("real/other"),
        dir.path().join("skills/other"),
    )
    .unwrap();
    let errors = read_skills_folder(dir.path().join("skills")).unwrap_err();
    let found = kinds(&errors);
    assert!(found.contains(&ErrorKind::SymlinkedFolder), "{errors}");
    assert!(
        found.contains(&ErrorKind::BrokenSymlink {
            target: "missing.md".into()
        }),
        "{errors}"
    );
    assert!(
        found.contains(&ErrorKind::LinkToHidden {
            target: ".env".into()
        }),
        "{errors}"
    );
    assert_eq!(found.len(), 3, "{errors}");
}

#[cfg(unix)]
#[test]
fn a_skill_with_a_refused_file_is_still_read_for_linting() {
    let dir = Scratch::new("lint-partial");
    dir.write("pdf/SKILL.md", "---\nname: PDF\ndescription: d\n---\n");
    std::os::unix::fs::symlink("missing.md", dir.path().join("pdf/dangling.md")).unwrap();
    dir.write("pdf/good.md", "x");
    let folder = SkillsFolder::read(dir.path());
    assert_eq!(folder.errors().len(), 1);
    assert_eq!(folder.skills()[0].skill().files().len(), 1);
    let errors = folder.catalog().unwrap_err();
    assert!(matches!(
        errors.as_slice()[0].kind(),
        ErrorKind::NameUppercase { .. }
    ));
}

#[test]
fn a_missing_folder_or_a_file_is_an_error() {
    let dir = Scratch::new("not-a-folder");
    let file = dir.write("file.txt", "x");
    assert_eq!(
        kinds(&read_skills_folder(&file).unwrap_err()),
        [ErrorKind::NotAFolder]
    );
    let missing = read_skills_folder(dir.path().join("nope")).unwrap_err();
    assert!(matches!(kinds(&missing)[..], [ErrorKind::Io(_)]));
    #[cfg(unix)]
    {
        let pipe = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            kinds(&read_skills_folder(&pipe).unwrap_err()),
            [ErrorKind::NotAFolder],
            "a FIFO given as the folder is refused without waiting for a writer"
        );
    }
}

#[test]
fn the_file_limit_counts_skill_md() {
    let dir = Scratch::new("many");
    dir.write("pdf/SKILL.md", skill_md("pdf"));
    for at in 0..511 {
        dir.write(format!("pdf/f/{at}.txt"), "x");
    }
    assert!(
        read_skills_folder(dir.path()).is_ok(),
        "512 files with SKILL.md is the limit"
    );
    dir.write("pdf/f/one-more.txt", "x");
    let errors = read_skills_folder(dir.path()).unwrap_err();
    assert_eq!(
        kinds(&errors),
        [ErrorKind::TooManyFiles {
            count: 513,
            limit: 512
        }]
    );
}

#[test]
fn the_size_limit_counts_every_byte() {
    let dir = Scratch::new("large");
    let skill_md = skill_md("pdf");
    dir.write("pdf/SKILL.md", &skill_md);
    let limit = 16 * 1024 * 1024;
    dir.write("pdf/assets/big.bin", vec![0_u8; limit - skill_md.len()]);
    assert!(
        read_skills_folder(dir.path()).is_ok(),
        "exactly 16 MiB is allowed"
    );
    dir.write("pdf/assets/one.bin", "x");
    let errors = read_skills_folder(dir.path()).unwrap_err();
    assert_eq!(
        kinds(&errors),
        [ErrorKind::TooLarge {
            bytes: limit as u64 + 1,
            limit: limit as u64,
            largest: vec![
                ("assets/big.bin".into(), (limit - skill_md.len()) as u64),
                ("SKILL.md".into(), skill_md.len() as u64),
                ("assets/one.bin".into(), 1),
            ]
        }]
    );
    assert_eq!(errors.as_slice()[0].code(), "skill.too-large");
}

#[test]
fn a_skill_over_the_size_limit_is_refused_before_its_files_are_read() {
    let dir = Scratch::new("huge");
    let skill_md = skill_md("pdf");
    dir.write("pdf/SKILL.md", &skill_md);
    let huge = dir.write("pdf/assets/huge.bin", "");
    // A sparse gigabyte: no disk space, but reading it would take a gigabyte of memory.
    let gigabyte = 1 << 30;
    std::fs::File::options()
        .write(true)
        .open(&huge)
        .unwrap()
        .set_len(gigabyte)
        .unwrap();
    let folder = SkillsFolder::read(dir.path());
    let kinds: Vec<&ErrorKind> = folder
        .errors()
        .iter()
        .map(skillpub_core::Error::kind)
        .collect();
    assert!(
        matches!(kinds[..], [ErrorKind::TooLarge { bytes, .. }] if *bytes == gigabyte + skill_md.len() as u64),
        "{kinds:?}"
    );
    assert!(
        folder.skills()[0].skill().files().is_empty(),
        "only SKILL.md is read"
    );
}

#[test]
fn the_size_limit_names_the_largest_files_of_skills_built_in_memory() {
    let files = vec![
        SkillFile::new("assets/small.txt", vec![b'x'; 10], false),
        SkillFile::new("assets/a.bin", vec![0_u8; 9 * 1024 * 1024], false),
        SkillFile::new("assets/b.bin", vec![0_u8; 8 * 1024 * 1024], false),
        SkillFile::new("assets/c.bin", vec![0_u8; 100], false),
    ];
    let errors = Catalog::new([Skill::new(None, skill_md("pdf")).with_files(files)]).unwrap_err();
    let [ErrorKind::TooLarge { largest, .. }] = &kinds(&errors)[..] else {
        panic!("{errors}");
    };
    let paths: Vec<&str> = largest.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths, ["assets/a.bin", "assets/b.bin", "assets/c.bin"]);
}

#[test]
fn limits_hold_for_skills_built_in_memory_too() {
    let files: Vec<SkillFile> = (0..512)
        .map(|at| SkillFile::new(format!("f/{at}"), "x", false))
        .collect();
    let errors = Catalog::new([Skill::new(None, skill_md("pdf")).with_files(files)]).unwrap_err();
    assert_eq!(
        kinds(&errors),
        [ErrorKind::TooManyFiles {
            count: 513,
            limit: 512
        }]
    );
}

#[test]
fn duplicate_and_case_colliding_paths_are_refused() {
    let files = vec![
        SkillFile::new("a.md", "1", false),
        SkillFile::new("a.md", "2", false),
        SkillFile::new("A.md", "3", false),
        SkillFile::new("skill.md", "4", false),
        SkillFile::new("SKILL.md", "5", false),
    ];
    let errors = Catalog::new([Skill::new(Some("pdf".into()), skill_md("pdf")).with_files(files)])
        .unwrap_err();
    assert_eq!(
        kinds(&errors),
        [
            ErrorKind::DuplicateFile,
            ErrorKind::CaseCollision {
                other: "a.md".into()
            },
            ErrorKind::CaseCollision {
                other: "SKILL.md".into()
            },
            ErrorKind::FilePath {
                problem: PathProblem::SkillMd
            },
        ]
    );
    assert_eq!(errors.as_slice()[1].file(), "pdf/A.md");
}

#[test]
fn a_file_cannot_also_be_a_folder() {
    let files = vec![
        SkillFile::new("references", "x", false),
        SkillFile::new("references/a.md", "y", false),
    ];
    let errors = Catalog::new([Skill::new(None, skill_md("pdf")).with_files(files)]).unwrap_err();
    assert_eq!(
        kinds(&errors),
        [ErrorKind::FileUsedAsFolder {
            file: "references".into()
        }]
    );
}
