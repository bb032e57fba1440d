//! A real client against the basic demo: the npm `skills` installer (1.7.4) lists every skill
//! and installs files byte-identical to the ones served. (The multi-file demo's install, with
//! its archive unpacked, is tested by its own package: `examples/multi-file/tests/`.)
//!
//! Needs `npx` (Node.js and npm) and the npm registry; `npx -p node@22` brings the Node 22
//! that skills 1.7.4 requires. Without `npx` the test prints one line saying so and passes,
//! unless `SKILLPUB_REQUIRE_EXTERNAL=1` is set (as `.ci/run` does), which makes it fail instead.
//! `.ci/run` installs Node.js when missing and warms the npm cache.

use std::process::Command;

use skillpub::model::paths::{INDEX_PATH, WELL_KNOWN_PATH};
use skillpub_testkit::{Running, Scratch, SkillsCli, built_binary};

#[tokio::test(flavor = "multi_thread")]
async fn the_skills_cli_installs_every_skill_of_the_basic_demo_byte_for_byte() {
    let Some(skills) =
        SkillsCli::or_skip("the_skills_cli_installs_every_skill_of_the_basic_demo_byte_for_byte")
    else {
        return;
    };
    // examples/basic is this package's example, built before its tests run.
    let (_demo, announced) = Running::demo(&mut Command::new(built_binary("examples/basic")));
    assert_eq!(announced.path, INDEX_PATH, "the printed URL is the index");
    let names = ["verify-skill-digests", "write-skill-md"];
    let scratch = Scratch::new("npm-basic");
    let installed = skills
        .install_every_skill_as_served(&announced, WELL_KNOWN_PATH, &names, &scratch)
        .await;
    assert_eq!(
        installed.files,
        ["verify-skill-digests/SKILL.md", "write-skill-md/SKILL.md"],
        "the installed files"
    );
}
