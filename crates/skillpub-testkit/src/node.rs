//! Node.js, for the tests that run real JavaScript clients through `npx`.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::external::{find_program, skip_or_fail};

/// How to install what [`npx_or_skip`] looks for.
const INSTALL: &str =
    "install Node.js and npm (Debian: `apt-get install nodejs npm`, or https://nodejs.org)";

/// `npx` (from Node.js and npm) on `PATH`, once `npx --version` has run. Without it, `test`
/// is skipped or fails as [`skip_or_fail`] says, and this returns `None`.
///
/// # Example
///
/// ```
/// use skillpub_testkit::npx_or_skip;
///
/// if let Some(npx) = npx_or_skip("doc_example") {
///     let version = std::process::Command::new(npx).arg("--version").output().unwrap();
///     assert!(version.status.success());
/// }
/// ```
///
/// # Panics
///
/// When `npx` is missing and `SKILLPUB_REQUIRE_EXTERNAL=1`.
#[must_use]
#[track_caller]
pub fn npx_or_skip(test: &str) -> Option<PathBuf> {
    let problem = match find_program("npx", &[]) {
        None => "`npx` (Node.js) is not on PATH".to_owned(),
        Some(npx) => match Command::new(&npx)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(status) if status.success() => return Some(npx),
            Ok(status) => format!("`npx --version` failed ({status})"),
            Err(error) => format!("`npx` cannot be run ({error})"),
        },
    };
    skip_or_fail(test, &format!("{problem}; {INSTALL}"));
    None
}
