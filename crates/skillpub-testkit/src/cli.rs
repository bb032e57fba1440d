//! Running the `skillpub` command-line tool as a user would: a real process, its exit status,
//! what it printed.

use std::ffi::OsStr;
use std::process::{Command, Output, Stdio};

/// The `skillpub` binary and the environment changes to run it with.
///
/// Cargo names the binary only to the tests of its own package, as
/// `env!("CARGO_BIN_EXE_skillpub")`; that is the path to give.
///
/// # Example
///
/// ```
/// # #[cfg(unix)] {
/// use skillpub_testkit::Cli;
///
/// // Any program runs the same way; a test passes env!("CARGO_BIN_EXE_skillpub").
/// let outcome = Cli::new("sh").env("GREETING", Some("hello")).run(&["-c", "echo $GREETING"]);
/// assert!(outcome.success);
/// assert_eq!(outcome.stdout, "hello\n");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Cli {
    binary: &'static str,
    env: Vec<(String, Option<String>)>,
}

impl Cli {
    /// The binary at `binary`, run with the test's own environment.
    #[must_use]
    pub const fn new(binary: &'static str) -> Self {
        Self {
            binary,
            env: Vec::new(),
        }
    }

    /// Sets the variable `name` to `value` for every run, or removes it when `None`.
    #[must_use]
    pub fn env(mut self, name: &str, value: Option<&str>) -> Self {
        self.env.push((name.to_owned(), value.map(str::to_owned)));
        self
    }

    /// A command for the binary with `args` and the environment changes, standard input
    /// closed; for a test that spawns it itself (several runs at once, a server).
    #[must_use]
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new(self.binary);
        command.args(args).stdin(Stdio::null());
        for (name, value) in &self.env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        command
    }

    /// Runs the binary with `args` to the end.
    ///
    /// # Panics
    ///
    /// When the binary cannot be started.
    #[track_caller]
    pub fn run(&self, args: &[&str]) -> Outcome {
        let mut command = self.command(args);
        let output = command
            .output()
            .unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
        Outcome::from(output)
    }

    /// [`Cli::run`] in a tokio test: the runtime keeps serving while the binary runs (it is
    /// killed if the test is dropped first).
    ///
    /// # Example
    ///
    /// ```
    /// # #[cfg(unix)] {
    /// use skillpub_testkit::Cli;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let outcome = Cli::new("sh").run_async(&["-c", "echo oops >&2; exit 2"]).await;
    /// assert!(!outcome.success);
    /// assert_eq!(outcome.stderr, "oops\n");
    /// # });
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// When the binary cannot be started.
    pub async fn run_async(&self, args: &[&str]) -> Outcome {
        let mut command = tokio::process::Command::from(self.command(args));
        command.kill_on_drop(true);
        let output = command
            .output()
            .await
            .unwrap_or_else(|error| panic!("cannot run {} {args:?}: {error}", self.binary));
        Outcome::from(output)
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Whether it exited with status 0.
    pub success: bool,
    /// Its standard output, invalid UTF-8 replaced.
    pub stdout: String,
    /// Its standard error, invalid UTF-8 replaced.
    pub stderr: String,
}

impl From<Output> for Outcome {
    fn from(output: Output) -> Self {
        Self {
            success: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}
