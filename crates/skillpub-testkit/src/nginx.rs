//! Real nginx on 127.0.0.1, for the tests that serve an export with it: found on `PATH` or at
//! the usual places, configured in a scratch folder, and stopped with its workers.
//!
//! Watching the workers reads `/proc`, so it needs Linux.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::external::{find_program, skip_or_fail};
use crate::scratch::Scratch;

/// Where nginx usually is when it is not on `PATH`.
pub const NGINX_PLACES: [&str; 5] = [
    "/usr/sbin/nginx",
    "/usr/local/sbin/nginx",
    "/usr/bin/nginx",
    "/usr/local/bin/nginx",
    "/opt/homebrew/bin/nginx",
];

/// How long nginx may take to start listening, or to quit.
const WITHIN: Duration = Duration::from_secs(10);

/// nginx on `PATH` or at one of [`NGINX_PLACES`]. Without it, `test` is skipped or fails as
/// [`skip_or_fail`] says, and this returns `None`.
///
/// # Panics
///
/// When nginx is missing and `SKILLPUB_REQUIRE_EXTERNAL=1`.
#[must_use]
#[track_caller]
pub fn nginx_or_skip(test: &str) -> Option<PathBuf> {
    let found = find_program("nginx", &NGINX_PLACES);
    if found.is_none() {
        skip_or_fail(
            test,
            &format!(
                "nginx is not on PATH nor in {}; install it (Debian: `apt-get install nginx`, macOS: `brew install nginx`)",
                NGINX_PLACES.join(", ")
            ),
        );
    }
    found
}

/// nginx on a free port of 127.0.0.1: a master process and one worker, configured and logging
/// in a scratch folder of its own, stopped with a graceful quit (so that the worker exits too)
/// by [`Nginx::stop`] or when dropped.
///
/// # Example
///
/// ```
/// use skillpub_testkit::{Nginx, Scratch, nginx_or_skip, request_blocking};
///
/// if let Some(binary) = nginx_or_skip("doc_example") {
///     let site = Scratch::new("doc-nginx-site");
///     site.write("hello.txt", "hello\n");
///     let mut nginx = Nginx::start(&binary, &format!("root {};", site.arg()));
///     assert_eq!(nginx.workers().len(), 1);
///     let response = request_blocking(nginx.addr(), "GET", "/hello.txt", &[]);
///     assert_eq!(response.body, b"hello\n");
///     assert_eq!(nginx.stop(), Vec::<u32>::new(), "no process of nginx is left");
/// }
/// ```
#[derive(Debug)]
pub struct Nginx {
    binary: PathBuf,
    master: Child,
    /// Each worker's pid and start time (which tells it from a later process with its pid).
    workers: Vec<(u32, String)>,
    addr: SocketAddr,
    prefix: Scratch,
    stopped: bool,
}

impl Nginx {
    /// Starts `binary` with one `server` block that listens on a free port of 127.0.0.1 and
    /// holds `server` (directives such as `root /srv/site; include snippet.conf;`), in an
    /// `http` block with Debian's `/etc/nginx/mime.types` and `application/octet-stream` for
    /// anything else; waits until it listens and its worker runs.
    ///
    /// # Panics
    ///
    /// When nginx does not start within ten seconds (with its error log).
    #[track_caller]
    pub fn start(binary: &Path, server: &str) -> Self {
        Self::start_with_http(binary, "", server)
    }

    /// [`Nginx::start`] with `http` too: directives for the `http` block, before the `server`
    /// block (such as `proxy_cache_path`, a `map`, or a second `server` on a port of its own,
    /// which [`free_port`] gives).
    ///
    /// # Panics
    ///
    /// As [`Nginx::start`].
    #[track_caller]
    pub fn start_with_http(binary: &Path, http: &str, server: &str) -> Self {
        let prefix = Scratch::new("nginx");
        let port = free_port();
        let dir = prefix.arg();
        let conf = format!(
            "worker_processes 1;\ndaemon off;\nmaster_process on;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\nevents {{ worker_connections 256; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {dir}/body;\n  proxy_temp_path {dir}/proxy;\n  fastcgi_temp_path {dir}/fastcgi;\n  uwsgi_temp_path {dir}/uwsgi;\n  scgi_temp_path {dir}/scgi;\n  include /etc/nginx/mime.types;\n  default_type application/octet-stream;\n\
             {http}\n  server {{\n    listen 127.0.0.1:{port};\n    {server}\n  }}\n}}\n"
        );
        prefix.write("nginx.conf", conf);
        let master = Command::new(binary)
            .args(arguments(prefix.path()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", binary.display()));
        let mut nginx = Self {
            binary: binary.to_owned(),
            master,
            workers: Vec::new(),
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            prefix,
            stopped: false,
        };
        let started = Instant::now();
        while std::net::TcpStream::connect(nginx.addr).is_err() || nginx.workers.is_empty() {
            assert!(
                started.elapsed() < WITHIN,
                "nginx did not start: {}",
                std::fs::read_to_string(nginx.prefix.path().join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
            nginx.workers = children(nginx.master.id());
        }
        nginx
    }

    /// Where it listens.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The pids of its workers, as started.
    #[must_use]
    pub fn workers(&self) -> Vec<u32> {
        self.workers.iter().map(|(pid, _)| *pid).collect()
    }

    /// Reloads the configuration (`nginx -s reload`, as after an export) and waits until every
    /// worker of the previous configuration has exited and a new one runs, so that every request
    /// sent after this returns is answered with the new configuration.
    ///
    /// # Panics
    ///
    /// When that takes more than ten seconds (an invalid configuration keeps the old workers),
    /// with the error log.
    #[track_caller]
    pub fn reload(&mut self) {
        let status = Command::new(&self.binary)
            .args(arguments(self.prefix.path()))
            .args(["-s", "reload"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|error| panic!("cannot run {}: {error}", self.binary.display()));
        assert!(status.success(), "nginx -s reload: {status}");
        let started = Instant::now();
        loop {
            let now = children(self.master.id());
            let old_left = self.workers.iter().any(|worker| now.contains(worker));
            if !old_left && !now.is_empty() {
                self.workers = now;
                return;
            }
            assert!(
                started.elapsed() < WITHIN,
                "nginx did not reload: {}",
                std::fs::read_to_string(self.prefix.path().join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Quits gracefully and waits (up to ten seconds) for the master, which waits for its
    /// workers; kills whatever is still running then. Returns the pids of the processes of
    /// this nginx that were still alive: none, unless something is wrong, which is what a test
    /// asserts. Stopping twice does nothing the second time.
    pub fn stop(&mut self) -> Vec<u32> {
        if self.stopped {
            return Vec::new();
        }
        self.stopped = true;
        let _ = Command::new(&self.binary)
            .args(arguments(self.prefix.path()))
            .args(["-s", "quit"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let started = Instant::now();
        while self.master.try_wait().ok().flatten().is_none() && started.elapsed() < WITHIN {
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut left = Vec::new();
        if self.master.try_wait().ok().flatten().is_none() {
            left.push(self.master.id());
            let _ = self.master.kill();
            let _ = self.master.wait();
        }
        for (pid, start) in &self.workers {
            if process_start(*pid).as_ref() == Some(start) {
                left.push(*pid);
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
        left
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A port of 127.0.0.1 that was free a moment ago (the system picked it), for a server to
/// listen on.
///
/// # Panics
///
/// When no port can be bound.
#[must_use]
#[track_caller]
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port of 127.0.0.1")
        .port()
}

/// The command-line arguments that name an nginx's configuration and prefix.
fn arguments(prefix: &Path) -> [std::ffi::OsString; 4] {
    [
        "-c".into(),
        prefix.join("nginx.conf").into(),
        "-p".into(),
        prefix.into(),
    ]
}

/// The fields of `/proc/PID/stat` after the command name (which is in parentheses and may
/// hold spaces), or `None` once the process is gone.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(
        stat.rsplit_once(')')?
            .1
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
    )
}

/// When a process started (field 22 of `/proc/PID/stat`), or `None` once it is gone.
fn process_start(pid: u32) -> Option<String> {
    stat_fields(pid)?.get(19).cloned()
}

/// The children of `parent`, each with its start time.
fn children(parent: u32) -> Vec<(u32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let fields = stat_fields(pid)?;
            (fields.get(1)?.parse::<u32>().ok()? == parent)
                .then(|| (pid, fields.get(19).cloned().unwrap_or_default()))
        })
        .collect()
}
