//! The pre-commit hook of `.pre-commit-hooks.yaml`, run by the `pre-commit` tool itself
//! (`pre-commit try-repo`) on a git repository of skills: a commit with a live key fails with
//! the finding, and passes once the key is gone. Needs `pre-commit` and `git` on PATH; skips
//! with one line without them, and fails under `SKILLPUB_REQUIRE_EXTERNAL=1` (`.ci/run`
//! installs `pre-commit` in a virtual environment).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use skillpub_testkit::{Scratch, find_program, skip_or_fail};

/// This repository, whose root holds `.pre-commit-hooks.yaml`.
const REPOSITORY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// A Stripe live key made at run time, so that no scanner finds one in this file.
fn live_key() -> String {
    format!("sk_live_{}", "51Hq8ZkLq2Wd9RtYvB3nX7cPfM0aJ4eU")
}

/// Runs `program args` in `dir`, with the built `skillpub` first on PATH, pre-commit's cache
/// in the scratch folder, and an identity for the commits `try-repo` makes.
fn run(program: &Path, args: &[&str], dir: &Path, home: &Path) -> Output {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_skillpub"));
    let mut path = vec![binary.parent().unwrap().to_path_buf()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(path).unwrap())
        .env("PRE_COMMIT_HOME", home)
        .env("GIT_AUTHOR_NAME", "skillpub test")
        .env("GIT_AUTHOR_EMAIL", "test@skillpub.invalid")
        .env("GIT_COMMITTER_NAME", "skillpub test")
        .env("GIT_COMMITTER_EMAIL", "test@skillpub.invalid")
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_hook_fails_a_commit_with_a_live_key_and_passes_it_without() {
    const TEST: &str = "the_hook_fails_a_commit_with_a_live_key_and_passes_it_without";
    let (Some(pre_commit), Some(git)) = (find_program("pre-commit", &[]), find_program("git", &[]))
    else {
        skip_or_fail(
            TEST,
            "`pre-commit` or `git` is not on PATH; install pre-commit (`python3 -m venv venv && venv/bin/pip install pre-commit`, then put venv/bin on PATH)",
        );
        return;
    };
    let repository = Path::new(REPOSITORY);
    if !repository.join(".pre-commit-hooks.yaml").is_file() || !repository.join(".git").exists() {
        skip_or_fail(
            TEST,
            "the crate is not in a git checkout of the skillpub repository",
        );
        return;
    }
    let dir = Scratch::new("pre-commit");
    let (work, home) = (dir.path().join("work"), dir.path().join("home"));
    std::fs::create_dir_all(&work).unwrap();
    let skill_md = "---\nname: pay\ndescription: Takes payments with Acme. Use when a user asks to pay an invoice.\n---\n# Pay\n\nSee [the API](references/api.md).\n";
    std::fs::create_dir_all(work.join("skills/pay/references")).unwrap();
    std::fs::write(work.join("skills/pay/SKILL.md"), skill_md).unwrap();
    let api = work.join("skills/pay/references/api.md");
    std::fs::write(&api, format!("# API\n\nKEY={}\n", live_key())).unwrap();
    assert!(
        run(&git, &["init", "-q", "."], &work, &home)
            .status
            .success()
    );
    assert!(run(&git, &["add", "-A"], &work, &home).status.success());

    let try_repo = ["try-repo", REPOSITORY, "skillpub-lint", "--all-files"];
    let refused = run(&pre_commit, &try_repo, &work, &home);
    let output = text(&refused);
    assert!(!refused.status.success(), "{output}");
    assert!(output.contains("skillpub lint"), "{output}");
    assert!(
        output.contains("skills/pay/references/api.md: line 3 holds a Stripe live secret key"),
        "{output}"
    );
    assert!(output.contains("[security.secret]"), "{output}");
    assert!(
        !output.contains(&live_key()[8..]),
        "never the key itself: {output}"
    );

    std::fs::write(&api, "# API\n\nKEY=$STRIPE_KEY\n").unwrap();
    assert!(run(&git, &["add", "-A"], &work, &home).status.success());
    let passed = run(&pre_commit, &try_repo, &work, &home);
    let output = text(&passed);
    assert!(passed.status.success(), "{output}");
    assert!(output.contains("Passed"), "{output}");
}
