//! A real client against this example: the npm `skills` installer (1.7.4) installs the
//! multi-file skill from its archive with its `references/` and `scripts/`, every file
//! byte-identical to the source folder and to the bytes served.
//!
//! Needs `npx` as the workspace's `tests/npm_skills.rs` says: without it the test prints one
//! line and passes, unless `SKILLPUB_REQUIRE_EXTERNAL=1` is set.

use std::path::Path;
use std::process::Command;

use skillpub::model::paths::{INDEX_PATH, WELL_KNOWN_PATH};
use skillpub_testkit::{Running, Scratch, SkillsCli};

const EXAMPLE_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../skills");

#[tokio::test(flavor = "multi_thread")]
async fn the_skills_cli_installs_the_multi_file_skill_with_its_references_and_scripts() {
    let Some(skills) = SkillsCli::or_skip(
        "the_skills_cli_installs_the_multi_file_skill_with_its_references_and_scripts",
    ) else {
        return;
    };
    let (_demo, announced) = Running::demo(&mut Command::new(env!(
        "CARGO_BIN_EXE_skillpub-example-multi-file"
    )));
    assert_eq!(announced.path, INDEX_PATH, "the printed URL is the index");
    let names = [
        "publish-agent-skills",
        "verify-skill-digests",
        "write-skill-md",
    ];
    let scratch = Scratch::new("npm-multi-file");
    let installed = skills
        .install_every_skill_as_served(&announced, WELL_KNOWN_PATH, &names, &scratch)
        .await;
    assert_eq!(
        installed.files,
        [
            "publish-agent-skills/SKILL.md",
            "publish-agent-skills/references/http-checklist.md",
            "publish-agent-skills/references/index-format.md",
            "publish-agent-skills/scripts/check-index.sh",
            "verify-skill-digests/SKILL.md",
            "write-skill-md/SKILL.md",
        ],
        "the installed files"
    );
    for file in installed
        .files
        .iter()
        .filter(|file| file.starts_with("publish-agent-skills/"))
    {
        assert!(
            std::fs::read(installed.folder.join(file)).unwrap()
                == std::fs::read(Path::new(EXAMPLE_SKILLS).join(file)).unwrap(),
            "{file} differs from the source"
        );
    }
}
