//! Tools besides Rust that some tests need (nginx, Node.js): finding them, and the one rule
//! for when they are missing.

use std::io::Write as _;
use std::path::PathBuf;

/// The environment variable that, set to `1`, makes a test whose tool is missing fail instead
/// of skipping (CI sets it, so that a missing tool can never pass unseen).
pub const REQUIRE_EXTERNAL: &str = "SKILLPUB_REQUIRE_EXTERNAL";

/// What to do about a tool that `test` needs and that is missing: prints one line on stderr,
/// `<test>: skipped: <missing>`, and returns, so that the test returns early and passes; or,
/// when [`REQUIRE_EXTERNAL`] is `1`, panics with `missing`.
///
/// `missing` says what is missing and how to install it.
///
/// The line goes straight to the process's stderr, past the test harness's capture, so that
/// `cargo test` shows it for a test that passes.
///
/// # Example
///
/// The shape of a test that needs a tool:
///
/// ```
/// use skillpub_testkit::{find_program, skip_or_fail};
///
/// fn frobnicate_reads_the_export() {
///     let Some(frobnicate) = find_program("frobnicate", &[]) else {
///         skip_or_fail(
///             "frobnicate_reads_the_export",
///             "`frobnicate` is not on PATH; install it (Debian: `apt-get install frobnicate`)",
///         );
///         return;
///     };
///     // ... run `frobnicate` ...
/// #   drop(frobnicate);
/// }
/// ```
///
/// # Panics
///
/// When [`REQUIRE_EXTERNAL`] is `1`.
#[track_caller]
pub fn skip_or_fail(test: &str, missing: &str) {
    assert!(
        std::env::var_os(REQUIRE_EXTERNAL).is_none_or(|value| value != "1"),
        "{test}: {REQUIRE_EXTERNAL}=1 asks for every external tool, but {missing}"
    );
    let _ = writeln!(std::io::stderr(), "{test}: skipped: {missing}");
}

/// The program `name` in a folder of `PATH`, or else at the first of `places` that exists.
///
/// # Example
///
/// ```
/// use skillpub_testkit::find_program;
///
/// assert_eq!(find_program("no-such-program-here", &[]), None);
/// ```
#[must_use]
pub fn find_program(name: &str, places: &[&str]) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|folder| folder.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)));
    on_path
        .chain(places.iter().map(PathBuf::from))
        .find(|path| path.is_file())
}
