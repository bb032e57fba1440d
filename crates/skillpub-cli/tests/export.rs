//! `skillpub export`: the tree is byte-identical to what the router serves; an export is put in
//! place all or nothing, configuration included, with `index.json` never missing, one export at
//! a time; and real nginx serves the tree so that `skillpub check` passes, while stock nginx
//! without the snippet fails.
//!
//! The nginx tests need nginx (found on `PATH` or at the usual places); without it they say
//! they were skipped, or fail when `SKILLPUB_REQUIRE_EXTERNAL=1` is set.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use skillpub_core::{Catalog, CatalogBuilder, Digest, SkillsFolder};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");

/// A scratch folder, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let path = std::env::temp_dir().join(format!(
            "skillpub-export-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn skillpub(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn export(skills: &str, out: &Path, extra: &[&str]) -> (bool, String, String) {
    let mut args = vec!["export", skills, out.to_str().unwrap()];
    args.extend_from_slice(extra);
    skillpub(&args)
}

/// The example skills exported with the default options into a fresh folder.
fn exported(name: &str) -> Scratch {
    let out = Scratch::new(name);
    let (ok, _, stderr) = export(EXAMPLES, &out.0, &[]);
    assert!(ok, "{stderr}");
    out
}

fn catalog(legacy: bool, api_catalog: bool) -> Catalog {
    let folder = SkillsFolder::read(EXAMPLES);
    let mut builder = CatalogBuilder::new();
    builder
        .skills(folder.skills().iter().map(|s| s.skill().clone()))
        .legacy_index(legacy)
        .api_catalog(api_catalog);
    builder.build().unwrap()
}

#[test]
fn the_tree_holds_every_artifact_byte_for_byte() {
    let out = Scratch::new("bytes");
    let (ok, _, stderr) = export(EXAMPLES, &out.0, &["--legacy", "--api-catalog"]);
    assert!(ok, "{stderr}");
    let catalog = catalog(true, true);
    let mut count = 0;
    for artifact in catalog.artifacts() {
        let file = out.0.join(artifact.path().trim_start_matches('/'));
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(bytes == artifact.bytes().as_ref(), "{}", artifact.path());
        assert_eq!(Digest::of(&bytes), artifact.digest(), "{}", artifact.path());
        count += 1;
    }
    // And what the router serves for the same folder, path by path.
    let router: axum::Router = skillpub_axum::router(catalog.clone());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for artifact in catalog.artifacts() {
        use tower::ServiceExt;
        let request = axum::http::Request::get(artifact.path())
            .body(axum::body::Body::empty())
            .unwrap();
        let response = runtime.block_on(router.clone().oneshot(request)).unwrap();
        let served = runtime
            .block_on(axum::body::to_bytes(response.into_body(), usize::MAX))
            .unwrap();
        let file = std::fs::read(out.0.join(artifact.path().trim_start_matches('/'))).unwrap();
        assert!(
            served == file,
            "{} differs from what the router serves",
            artifact.path()
        );
    }
    let on_disk = walk(&out.0.join(".well-known")).len();
    assert_eq!(on_disk, count, "nothing more, nothing less");
    assert!(out.0.join("skillpub.nginx.conf").is_file());
    let headers = std::fs::read_to_string(out.0.join("_headers")).unwrap();
    assert!(headers.contains("/.well-known/agent-skills/write-skill-md/SKILL.md\n  Content-Type: text/markdown; charset=utf-8"));
    assert!(headers.contains("/.well-known/agent-skills/*\n  cache-control: public, max-age=300"));
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path)
            } else {
                files.push(path)
            }
        }
    }
    files
}

#[test]
fn url_styles_and_origins_are_as_in_the_core_options() {
    let out = Scratch::new("styles");
    let (ok, _, stderr) = export(
        EXAMPLES,
        &out.0,
        &[
            "--url-style",
            "absolute",
            "--origin",
            "https://skills.example.com",
        ],
    );
    assert!(ok, "{stderr}");
    let index = std::fs::read_to_string(out.0.join(".well-known/agent-skills/index.json")).unwrap();
    assert!(index.contains("\"url\": \"https://skills.example.com/.well-known/agent-skills/write-skill-md/SKILL.md\""), "{index}");

    let (ok, _, stderr) = export(
        EXAMPLES,
        &out.0,
        &[
            "--url-style",
            "absolute",
            "--origin",
            "http://localhost:3000",
        ],
    );
    assert!(!ok);
    assert!(stderr.contains("local or private host"), "{stderr}");
}

#[test]
fn a_failed_export_leaves_the_previous_tree_in_place() {
    let out = exported("atomic");
    let before: Vec<(PathBuf, Vec<u8>)> = walk(&out.0)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();

    let broken = Scratch::new("broken-skills");
    std::fs::create_dir_all(broken.0.join("bad")).unwrap();
    std::fs::write(broken.0.join("bad/SKILL.md"), "---\nname: Bad\n---\n").unwrap();
    let (ok, _, stderr) = export(broken.0.to_str().unwrap(), &out.0, &[]);
    assert!(!ok);
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(stderr.contains("bad/SKILL.md"), "{stderr}");
    let after: Vec<(PathBuf, Vec<u8>)> = walk(&out.0)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    assert_eq!(before, after);
}

#[test]
fn a_new_export_replaces_the_old_one_and_leaves_other_files_alone() {
    let out = Scratch::new("replace");
    std::fs::create_dir_all(out.0.join(".well-known/agent-skills/gone")).unwrap();
    std::fs::write(out.0.join(".well-known/agent-skills/gone/SKILL.md"), "old").unwrap();
    std::fs::write(out.0.join(".well-known/security.txt"), "Contact: me").unwrap();
    std::fs::write(out.0.join("index.html"), "<h1>site</h1>").unwrap();
    let (ok, _, stderr) = export(EXAMPLES, &out.0, &[]);
    assert!(ok, "{stderr}");
    assert!(
        !out.0.join(".well-known/agent-skills/gone").exists(),
        "a removed skill is gone"
    );
    assert!(out.0.join(".well-known/security.txt").exists());
    assert!(out.0.join("index.html").exists());
    let leftovers: Vec<_> = std::fs::read_dir(out.0.join(".well-known"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("skillpub"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Every file under `root` with its bytes, sorted by path.
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = walk(root)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    files.sort();
    files
}

/// The staging folders in the export's `.well-known/`.
fn staging_folders(out: &Path) -> Vec<String> {
    std::fs::read_dir(out.join(".well-known"))
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".skillpub-staging-"))
        .collect()
}

/// A folder with one valid skill, `alpha`, unlike the examples.
fn alpha_skills() -> Scratch {
    let skills = Scratch::new("alpha");
    std::fs::create_dir_all(skills.0.join("alpha")).unwrap();
    std::fs::write(
        skills.0.join("alpha/SKILL.md"),
        "---\nname: alpha\ndescription: The first letter.\n---\nSay alpha.\n",
    )
    .unwrap();
    skills
}

#[test]
fn a_config_that_cannot_be_replaced_after_the_tree_leaves_the_previous_export_byte_for_byte() {
    let out = exported("config-fails");
    // `_headers` is put in place last, after the tree and the nginx snippet; a folder there
    // makes that last step fail.
    std::fs::remove_file(out.0.join("_headers")).unwrap();
    std::fs::create_dir(out.0.join("_headers")).unwrap();
    std::fs::write(out.0.join("_headers/mine"), "the site's own").unwrap();
    let before = snapshot(&out.0);

    let alpha = alpha_skills();
    let (ok, _, stderr) = export(alpha.0.to_str().unwrap(), &out.0, &[]);
    assert!(!ok);
    assert!(
        stderr.contains("_headers` is a folder, but the export writes a file there; move it away"),
        "{stderr}"
    );
    assert!(
        stderr.contains("move it away. The parts already in place (`")
            && stderr.contains(".well-known/agent-skills`, `")
            && stderr
                .contains("skillpub.nginx.conf`) were put back: the previous export is intact"),
        "{stderr}"
    );
    assert_eq!(snapshot(&out.0), before, "the previous export changed");
    assert_eq!(staging_folders(&out.0), Vec::<String>::new());
}

#[test]
fn index_json_is_never_missing_while_exports_run() {
    let out = exported("never-missing");
    let alpha = alpha_skills();
    let index = out.0.join(".well-known/agent-skills/index.json");
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let (mut reads, mut failed, mut first) = (0_u64, 0_u64, None);
            while !done.load(Ordering::Relaxed) {
                let problem = match std::fs::read_to_string(&index) {
                    Ok(text) if text.contains("\"$schema\"") && text.trim_end().ends_with('}') => {
                        None
                    }
                    Ok(text) => Some(format!("incomplete: {text}")),
                    Err(error) => Some(error.to_string()),
                };
                reads += 1;
                if let Some(problem) = problem {
                    failed += 1;
                    first.get_or_insert(problem);
                }
            }
            (reads, failed, first)
        })
    };
    for round in 0..20 {
        let skills = if round % 2 == 0 {
            alpha.0.to_str().unwrap()
        } else {
            EXAMPLES
        };
        let (ok, _, stderr) = export(skills, &out.0, &[]);
        assert!(ok, "{stderr}");
    }
    done.store(true, Ordering::Relaxed);
    let (reads, failed, first) = reader.join().unwrap();
    assert!(reads > 20, "the reader ran ({reads} reads)");
    assert_eq!(
        failed, 0,
        "{failed} of {reads} reads failed, the first: {first:?}"
    );
}

/// A folder of `count` valid skills named `{prefix}-{n}`.
fn many_skills(prefix: &str, count: usize) -> Scratch {
    let skills = Scratch::new(prefix);
    for n in 0..count {
        let name = format!("{prefix}-{n}");
        std::fs::create_dir_all(skills.0.join(&name)).unwrap();
        std::fs::write(
            skills.0.join(format!("{name}/SKILL.md")),
            format!("---\nname: {name}\ndescription: Skill {n} of {prefix}.\n---\nDo {n}.\n"),
        )
        .unwrap();
    }
    skills
}

#[test]
fn two_exports_at_once_never_mix_and_leave_no_staging_folder() {
    let out = Scratch::new("concurrent");
    // Large enough that the two runs overlap.
    let sets = [many_skills("alpha", 100), many_skills("beta", 100)];
    for _ in 0..6 {
        let runs: Vec<Child> = sets
            .iter()
            .map(|skills| {
                Command::new(env!("CARGO_BIN_EXE_skillpub"))
                    .args([
                        "export",
                        skills.0.to_str().unwrap(),
                        out.0.to_str().unwrap(),
                    ])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for run in runs {
            let output = run.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        // The tree and both configuration files name the same skills: all from one run.
        let parts = [
            ".well-known/agent-skills/index.json",
            "skillpub.nginx.conf",
            "_headers",
        ]
        .map(|part| std::fs::read_to_string(out.0.join(part)).unwrap());
        let alpha_won = parts[0].contains("/alpha-0/SKILL.md");
        for (part, text) in parts.iter().enumerate() {
            assert_eq!(
                text.contains("/alpha-99/SKILL.md"),
                alpha_won,
                "part {part}"
            );
            assert_eq!(text.contains("/beta-0/SKILL.md"), !alpha_won, "part {part}");
        }
        let folders = std::fs::read_dir(out.0.join(".well-known/agent-skills"))
            .unwrap()
            .flatten()
            .filter(|entry| entry.path().is_dir())
            .count();
        assert_eq!(folders, 100);
        assert_eq!(staging_folders(&out.0), Vec::<String>::new());
    }
}

#[test]
fn an_export_waits_while_another_holds_the_lock() {
    let out = exported("lock");
    let alpha = alpha_skills();
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(out.0.join(".skillpub-export.lock"))
        .expect("the export keeps its lock file");
    lock.lock().unwrap();
    let mut waiting = Command::new(env!("CARGO_BIN_EXE_skillpub"))
        .args(["export", alpha.0.to_str().unwrap(), out.0.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(waiting.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(
        line.contains("another export to")
            && line.ends_with("is running; waiting for it to finish\n"),
        "{line}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(waiting.try_wait().unwrap().is_none(), "it waits");
    assert!(!out.0.join(".well-known/agent-skills/alpha").exists());
    drop(lock);
    assert!(waiting.wait().unwrap().success());
    assert!(
        out.0
            .join(".well-known/agent-skills/alpha/SKILL.md")
            .is_file()
    );
}

#[test]
fn an_export_clears_what_a_crashed_export_left() {
    let out = exported("crashed");
    let leftover = out.0.join(".well-known/.skillpub-staging-4294967");
    std::fs::create_dir_all(leftover.join("agent-skills/gone")).unwrap();
    std::fs::write(leftover.join("agent-skills/gone/SKILL.md"), "half").unwrap();
    let (ok, _, stderr) = export(EXAMPLES, &out.0, &[]);
    assert!(ok, "{stderr}");
    assert_eq!(staging_folders(&out.0), Vec::<String>::new());
    assert!(!out.0.join(".well-known/agent-skills/gone").exists());
}

#[test]
fn unknown_frontmatter_fields_are_published_only_when_allowed() {
    let skills = Scratch::new("unknown-fields");
    std::fs::create_dir_all(skills.0.join("team")).unwrap();
    let text = "---\nname: team\ndescription: Our team's way.\nx-owner: docs\n---\nAsk docs.\n";
    std::fs::write(skills.0.join("team/SKILL.md"), text).unwrap();
    let out = Scratch::new("unknown-fields-out");

    let (ok, _, stderr) = export(skills.0.to_str().unwrap(), &out.0, &[]);
    assert!(!ok);
    assert!(
        stderr.contains("field `x-owner`: is not an Agent Skills field"),
        "{stderr}"
    );
    assert!(stderr.contains("pass --allow-unknown-fields"), "{stderr}");
    assert!(!out.0.join(".well-known/agent-skills").exists());

    let (ok, _, stderr) = export(
        skills.0.to_str().unwrap(),
        &out.0,
        &["--allow-unknown-fields"],
    );
    assert!(ok, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out.0.join(".well-known/agent-skills/team/SKILL.md")).unwrap(),
        text
    );
}

#[test]
fn a_subfolder_without_skill_md_is_skipped_with_a_warning() {
    let skills = alpha_skills();
    std::fs::create_dir_all(skills.0.join("drafts")).unwrap();
    std::fs::write(skills.0.join("drafts/notes.md"), "Ideas.\n").unwrap();
    let out = Scratch::new("skipped-out");

    let (ok, _, stderr) = export(skills.0.to_str().unwrap(), &out.0, &[]);
    assert!(ok, "{stderr}");
    let warning = stderr
        .lines()
        .find(|line| line.starts_with("skillpub export: warning: skipped "))
        .unwrap_or_else(|| panic!("no warning: {stderr}"));
    assert!(warning.contains("drafts"), "{warning}");
    assert!(
        out.0
            .join(".well-known/agent-skills/alpha/SKILL.md")
            .is_file()
    );
    assert!(!out.0.join(".well-known/agent-skills/drafts").exists());
}

/// Where nginx usually is when it is not on `PATH`.
const NGINX_PLACES: [&str; 5] = [
    "/usr/sbin/nginx",
    "/usr/local/sbin/nginx",
    "/usr/bin/nginx",
    "/usr/local/bin/nginx",
    "/opt/homebrew/bin/nginx",
];

/// nginx on `PATH` or at a usual place. Without it, prints one line saying that `test` is
/// skipped and how to install nginx, and returns `None`; with `SKILLPUB_REQUIRE_EXTERNAL=1`,
/// fails instead.
fn nginx_binary(test: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join("nginx"));
    let found = on_path
        .chain(NGINX_PLACES.iter().map(PathBuf::from))
        .find(|path| path.is_file());
    if found.is_none() {
        let missing = format!(
            "nginx is not on PATH nor in {}; install it (Debian: `apt-get install nginx`, macOS: `brew install nginx`)",
            NGINX_PLACES.join(", ")
        );
        assert!(
            std::env::var_os("SKILLPUB_REQUIRE_EXTERNAL").is_none_or(|value| value != "1"),
            "{test}: SKILLPUB_REQUIRE_EXTERNAL=1 asks for every external tool, but {missing}"
        );
        // Straight to the terminal: the test harness hides what a passing test prints.
        let _ = writeln!(std::io::stderr(), "{test}: skipped: {missing}");
    }
    found
}

/// nginx serving `root` on a free port of 127.0.0.1, with the snippet or without it: a master
/// process and one worker, stopped with a graceful quit so that the worker exits too.
struct Nginx {
    binary: PathBuf,
    master: Child,
    /// The worker's pid and start time (which tells it from a later process with its pid).
    workers: Vec<(u32, String)>,
    addr: SocketAddr,
    scratch: Scratch,
    stopped: bool,
}

impl Nginx {
    fn start(binary: PathBuf, root: &Path, with_snippet: bool) -> Self {
        let scratch = Scratch::new("nginx");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = scratch.0.display();
        let include = if with_snippet {
            format!("include {}/skillpub.nginx.conf;", root.display())
        } else {
            String::new()
        };
        let conf = format!(
            "worker_processes 1;\ndaemon off;\nmaster_process on;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\nevents {{ worker_connections 64; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {dir}/body;\n  proxy_temp_path {dir}/proxy;\n  fastcgi_temp_path {dir}/fastcgi;\n  uwsgi_temp_path {dir}/uwsgi;\n  scgi_temp_path {dir}/scgi;\n  include /etc/nginx/mime.types;\n  default_type application/octet-stream;\n\
             server {{\n    listen 127.0.0.1:{port};\n    root {};\n    {include}\n  }}\n}}\n",
            root.display()
        );
        std::fs::write(scratch.0.join("nginx.conf"), conf).unwrap();
        let master = Command::new(&binary)
            .args(nginx_args(&scratch.0))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut nginx = Self {
            binary,
            workers: Vec::new(),
            addr: format!("127.0.0.1:{port}").parse().unwrap(),
            master,
            scratch,
            stopped: false,
        };
        let started = Instant::now();
        while std::net::TcpStream::connect(nginx.addr).is_err() || nginx.workers.is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not start: {}",
                std::fs::read_to_string(nginx.scratch.0.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
            nginx.workers = children(nginx.master.id());
        }
        nginx
    }

    /// Quits gracefully and waits for the master, which waits for its worker; returns the
    /// processes of this nginx still alive afterwards (none, unless something is wrong).
    fn stop(&mut self) -> Vec<u32> {
        if self.stopped {
            return Vec::new();
        }
        self.stopped = true;
        let _ = Command::new(&self.binary)
            .args(nginx_args(&self.scratch.0))
            .args(["-s", "quit"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let started = Instant::now();
        while self.master.try_wait().ok().flatten().is_none()
            && started.elapsed() < Duration::from_secs(10)
        {
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

/// The command-line arguments that name this nginx's configuration and prefix.
fn nginx_args(prefix: &Path) -> [std::ffi::OsString; 4] {
    [
        "-c".into(),
        prefix.join("nginx.conf").into(),
        "-p".into(),
        prefix.into(),
    ]
}

/// When a process started (field 22 of `/proc/PID/stat`), or `None` once it is gone.
fn process_start(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    fields.get(19).map(|start| (*start).to_owned())
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
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            (fields.get(1)?.parse::<u32>().ok()? == parent).then(|| {
                (
                    pid,
                    fields.get(19).map(|s| (*s).to_owned()).unwrap_or_default(),
                )
            })
        })
        .collect()
}

#[test]
fn nginx_stops_with_its_workers() {
    let Some(binary) = nginx_binary("nginx_stops_with_its_workers") else {
        return;
    };
    let out = exported("nginx-stop");
    let mut server = Nginx::start(binary, &out.0, true);
    assert_eq!(server.workers.len(), 1, "one worker runs");
    assert_eq!(
        server.stop(),
        Vec::<u32>::new(),
        "nginx processes were left"
    );
    assert!(
        std::net::TcpStream::connect(server.addr).is_err(),
        "nothing listens on {} any more",
        server.addr
    );
}

#[test]
fn nginx_with_the_snippet_passes_every_check() {
    let Some(binary) = nginx_binary("nginx_with_the_snippet_passes_every_check") else {
        return;
    };
    let out = exported("nginx-snippet");
    let mut server = Nginx::start(binary, &out.0, true);
    let (passed, stdout, _) = skillpub(&["check", &format!("http://{}", server.addr)]);
    assert!(passed, "{stdout}");
    let (summary, checks) = stdout
        .trim_end()
        .lines()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(s, c)| (s.to_string(), c.to_vec()))
        .unwrap();
    assert!(
        checks
            .iter()
            .all(|line| line.starts_with("ok ") || line.starts_with("aiSiteReady ")),
        "{stdout}"
    );
    assert!(summary.ends_with("0 warnings, 0 failed"), "{stdout}");
    assert_eq!(
        server.stop(),
        Vec::<u32>::new(),
        "nginx processes were left"
    );
}

#[test]
fn stock_nginx_without_the_snippet_fails_on_the_markdown_type() {
    let Some(binary) = nginx_binary("stock_nginx_without_the_snippet_fails_on_the_markdown_type")
    else {
        return;
    };
    let out = exported("nginx-stock");
    let mut server = Nginx::start(binary, &out.0, false);
    let (passed, stdout, _) = skillpub(&["check", "--json", &format!("http://{}", server.addr)]);
    assert!(!passed, "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let failures: Vec<(&str, &str)> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|check| check["status"] == "fail")
        .map(|check| {
            (
                check["subject"].as_str().unwrap(),
                check["code"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        failures,
        [
            ("publish-agent-skills", "entry.media-type"),
            ("verify-skill-digests", "entry.media-type"),
            ("write-skill-md", "entry.media-type"),
        ],
        "stock nginx serves .md and .tar.gz as application/octet-stream: {stdout}"
    );
    assert_eq!(
        server.stop(),
        Vec::<u32>::new(),
        "nginx processes were left"
    );
}

#[test]
fn a_default_export_leaves_a_sites_own_api_catalog_and_legacy_folder_alone() {
    let out = Scratch::new("foreign");
    std::fs::create_dir_all(out.0.join(".well-known/skills")).unwrap();
    std::fs::write(out.0.join(".well-known/skills/index.json"), "mine").unwrap();
    std::fs::write(out.0.join(".well-known/api-catalog"), "mine too").unwrap();
    let (ok, _, stderr) = export(EXAMPLES, &out.0, &[]);
    assert!(ok, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out.0.join(".well-known/skills/index.json")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.0.join(".well-known/api-catalog")).unwrap(),
        "mine too"
    );
}

/// One raw request; returns the head (lowercased) and the body.
fn raw(addr: SocketAddr, method: &str, path: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: https://agent.example\r\nAccess-Control-Request-Method: GET\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (head.to_ascii_lowercase(), body.to_owned())
}

#[test]
fn nginx_answers_preflights_and_every_missing_path_like_the_router() {
    let Some(binary) =
        nginx_binary("nginx_answers_preflights_and_every_missing_path_like_the_router")
    else {
        return;
    };
    let out = exported("nginx-edges");
    let mut server = Nginx::start(binary, &out.0, true);

    let (head, _) = raw(
        server.addr,
        "OPTIONS",
        "/.well-known/agent-skills/write-skill-md/SKILL.md",
    );
    assert!(head.starts_with("http/1.1 204"), "{head}");
    assert!(
        head.contains("access-control-allow-methods: get, head, options"),
        "{head}"
    );

    let (head, body) = raw(server.addr, "GET", "/.well-known/agent-skills/nope.html");
    assert!(head.starts_with("http/1.1 404"), "{head}");
    assert!(head.contains("content-type: application/json"), "{head}");
    assert!(head.contains("cache-control: public, max-age=10"), "{head}");
    assert!(body.starts_with(r#"{"error":"not_found""#), "{body}");

    // A listed file that disappears (until the next export and reload) is the JSON 404 too.
    std::fs::remove_file(
        out.0
            .join(".well-known/agent-skills/write-skill-md/SKILL.md"),
    )
    .unwrap();
    let (head, body) = raw(
        server.addr,
        "GET",
        "/.well-known/agent-skills/write-skill-md/SKILL.md",
    );
    assert!(head.starts_with("http/1.1 404"), "{head}");
    assert!(body.starts_with(r#"{"error":"not_found""#), "{body}");
    assert_eq!(
        server.stop(),
        Vec::<u32>::new(),
        "nginx processes were left"
    );
}
