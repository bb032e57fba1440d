//! Processes a test starts: the binaries cargo built next to it, a child that is stopped when
//! the test is done, and the address a server prints when it is ready.

use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A binary that cargo built into the same profile folder as the running test, such as
/// `examples/basic` (an example of the test's package, built before its tests run) or
/// `examples/private` in a test of `skillpub-cli` (another package's example, there only when
/// `cargo test --workspace` built that package's tests too).
///
/// A test of a package's own binary has `env!("CARGO_BIN_EXE_<name>")`; this is for the
/// binaries it does not have that for.
///
/// # Panics
///
/// When the binary is missing, with the command that builds it.
#[must_use]
#[track_caller]
pub fn built_binary(relative: &str) -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    // target/<profile>/deps/<test> -> target/<profile>
    let profile = test
        .parent()
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps");
    let binary = profile.join(format!("{relative}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.exists(),
        "{} is missing; run `cargo test --workspace`, which builds it",
        binary.display()
    );
    binary
}

/// A child process that is killed and reaped when dropped, so that a failing test leaves no
/// process behind.
///
/// # Example
///
/// ```
/// # #[cfg(unix)] {
/// use std::process::Command;
/// use std::time::Duration;
/// use skillpub_testkit::Running;
///
/// let mut running = Running::spawn(Command::new("sh").args(["-c", "exit 3"]));
/// let status = running.wait_within(Duration::from_secs(10)).expect("it exits");
/// assert_eq!(status.code(), Some(3));
/// # }
/// ```
#[derive(Debug)]
pub struct Running {
    child: Child,
}

impl Running {
    /// Starts `command`.
    ///
    /// # Panics
    ///
    /// When it cannot be started.
    #[track_caller]
    pub fn spawn(command: &mut Command) -> Self {
        let child = command
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {command:?}: {error}"));
        Self { child }
    }

    /// Starts a server that prints, as the first line on its standard output, the URL it
    /// serves (the last word of the line: `Agent Skills index: http://127.0.0.1:PORT/...`), as
    /// the demos and `skillpub serve` do; waits for that line.
    ///
    /// # Example
    ///
    /// ```
    /// # #[cfg(unix)] {
    /// use std::process::Command;
    /// use skillpub_testkit::Running;
    ///
    /// let mut command = Command::new("sh");
    /// command.args(["-c", "echo 'Listening on: http://127.0.0.1:9/index.json'; sleep 60"]);
    /// let (_server, announced) = Running::announced(&mut command);
    /// assert_eq!(announced.addr.port(), 9);
    /// assert_eq!(announced.origin(), "http://127.0.0.1:9");
    /// assert_eq!(announced.path, "/index.json");
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// When it cannot be started, or its first line ends in no `http://` URL.
    #[track_caller]
    pub fn announced(command: &mut Command) -> (Self, Announced) {
        let mut running = Self::spawn(command.stdout(Stdio::piped()));
        let stdout = running.child.stdout.take().expect("a piped stdout");
        let mut line = String::new();
        let mut stdout = BufReader::new(stdout);
        let read = stdout.read_line(&mut line);
        // Whatever it prints next (the MCP demos print a second URL) is read and dropped: a
        // closed pipe would make its next `println!` panic.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let announced = read
            .ok()
            .and_then(|_| Announced::parse(&line))
            .unwrap_or_else(|| panic!("{command:?} printed {line:?}, not its URL"));
        (running, announced)
    }

    /// Starts a demo, a binary that listens on the address in `SKILLPUB_ADDR`, on a free port
    /// of 127.0.0.1: sets `SKILLPUB_ADDR=127.0.0.1:0` on `command`, then waits for the URL it
    /// prints, as [`Running::announced`] does. A wrapper such as `sh -c '... exec "$0"'` passes
    /// the variable on to the binary it runs.
    ///
    /// # Example
    ///
    /// ```
    /// # #[cfg(unix)] {
    /// use std::process::Command;
    /// use skillpub_testkit::Running;
    ///
    /// let script = "echo \"Agent Skills index: http://$SKILLPUB_ADDR/index.json\"; sleep 60";
    /// let (_demo, announced) = Running::demo(Command::new("sh").args(["-c", script]));
    /// assert_eq!(announced.origin(), "http://127.0.0.1:0");
    /// assert_eq!(announced.path, "/index.json");
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// As [`Running::announced`].
    #[track_caller]
    pub fn demo(command: &mut Command) -> (Self, Announced) {
        Self::announced(command.env("SKILLPUB_ADDR", "127.0.0.1:0"))
    }

    /// The child, to take its pipes or ask for its id.
    #[must_use]
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Sends `signal` (such as `-TERM` or `-INT`) with `kill`.
    ///
    /// # Panics
    ///
    /// When `kill` fails.
    #[track_caller]
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(
            status.success(),
            "kill {signal} {}: {status}",
            self.child.id()
        );
    }

    /// Whether it has not exited yet.
    #[must_use]
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits up to `limit` for it to exit; its exit status, or `None` when it still runs.
    pub fn wait_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        let started = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if started.elapsed() < limit => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(None) | Err(_) => return None,
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Already gone when it exited by itself; nothing else to do if it cannot be killed.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where a server said it listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announced {
    /// The host and port of the URL.
    pub addr: SocketAddr,
    /// The path of the URL, from its `/`.
    pub path: String,
}

impl Announced {
    /// The `http://host:port` the URL starts with.
    #[must_use]
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn parse(line: &str) -> Option<Self> {
        let url = line.split_whitespace().last()?;
        let rest = url.strip_prefix("http://")?;
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        Some(Self {
            addr: host.parse().ok()?,
            path: path.to_owned(),
        })
    }
}
