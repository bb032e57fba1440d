//! `skillpub export`: the tree is byte-identical to what the router serves; an export is put in
//! place all or nothing, configuration included, with `index.json` never missing, one export at
//! a time; and real nginx serves the tree so that `skillpub check` passes, while stock nginx
//! without the snippet fails.
//!
//! The nginx tests need nginx (found on `PATH` or at the usual places); without it they say
//! they were skipped, or fail when `SKILLPUB_REQUIRE_EXTERNAL=1` is set.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use skillpub_core::{Catalog, CatalogBuilder, Digest, folder::SkillsFolder};
use skillpub_testkit::{Cli, Nginx, Response, Scratch, nginx_or_skip, request_blocking};

#[expect(
    dead_code,
    reason = "these tests read only the failures of a report; check.rs reads the rest"
)]
mod common;
use common::Report;

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");

/// The binary under test.
const SKILLPUB: Cli = Cli::new(env!("CARGO_BIN_EXE_skillpub"));

fn skillpub(args: &[&str]) -> (bool, String, String) {
    let outcome = SKILLPUB.run(args);
    (outcome.success, outcome.stdout, outcome.stderr)
}

fn export(skills: &str, out: &Path, extra: &[&str]) -> (bool, String, String) {
    let mut args = vec!["export", skills, out.to_str().unwrap()];
    args.extend_from_slice(extra);
    skillpub(&args)
}

/// The example skills exported with the default options into a fresh folder.
fn exported(name: &str) -> Scratch {
    let out = Scratch::new(name);
    let (ok, _, stderr) = export(EXAMPLES, out.path(), &[]);
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
    let (ok, _, stderr) = export(EXAMPLES, out.path(), &["--legacy", "--api-catalog"]);
    assert!(ok, "{stderr}");
    let catalog = catalog(true, true);
    let mut count = 0;
    for (path, artifact) in catalog.served() {
        let file = out.path().join(path.trim_start_matches('/'));
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(bytes == artifact.bytes().as_ref(), "{path}");
        assert_eq!(Digest::of(&bytes), artifact.digest(), "{path}");
        count += 1;
    }
    // And what the router serves for the same folder, path by path.
    let router: axum::Router = skillpub_axum::router(catalog.clone());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for (path, _) in catalog.served() {
        use tower::ServiceExt;
        let request = axum::http::Request::get(path)
            .body(axum::body::Body::empty())
            .unwrap();
        let response = runtime.block_on(router.clone().oneshot(request)).unwrap();
        let served = runtime
            .block_on(axum::body::to_bytes(response.into_body(), usize::MAX))
            .unwrap();
        let file = std::fs::read(out.path().join(path.trim_start_matches('/'))).unwrap();
        assert!(served == file, "{path} differs from what the router serves");
    }
    let on_disk = walk(&out.path().join(".well-known")).len();
    assert_eq!(on_disk, count, "nothing more, nothing less");
    assert!(out.path().join("skillpub.nginx.conf").is_file());
    let headers = std::fs::read_to_string(out.path().join("_headers")).unwrap();
    assert!(headers.contains("/.well-known/agent-skills/write-skill-md/SKILL.md\n  Content-Type: text/markdown; charset=utf-8\n  Cache-Control: public, no-cache, no-transform\n"), "{headers}");
    assert!(
        headers.contains("/.well-known/agent-skills/*\n  access-control-allow-origin: *\n"),
        "{headers}"
    );
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
        out.path(),
        &[
            "--url-style",
            "absolute",
            "--origin",
            "https://skills.example.com",
        ],
    );
    assert!(ok, "{stderr}");
    let index =
        std::fs::read_to_string(out.path().join(".well-known/agent-skills/index.json")).unwrap();
    let hex = catalog(false, false)
        .get("write-skill-md")
        .unwrap()
        .skill_md()
        .digest()
        .hex();
    assert!(index.contains(&format!("\"url\": \"https://skills.example.com/.well-known/agent-skills/sha256-{hex}/write-skill-md/SKILL.md\"")), "{index}");

    let (ok, _, stderr) = export(
        EXAMPLES,
        out.path(),
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
    let before = snapshot(out.path());

    let broken = Scratch::new("broken-skills");
    broken.write("bad/SKILL.md", "---\nname: Bad\n---\n");
    let (ok, _, stderr) = export(broken.arg(), out.path(), &[]);
    assert!(!ok);
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(stderr.contains("bad/SKILL.md"), "{stderr}");
    let after = snapshot(out.path());
    assert_eq!(before, after);
}

#[test]
fn a_new_export_replaces_the_old_one_and_leaves_other_files_alone() {
    let out = Scratch::new("replace");
    out.write(".well-known/agent-skills/gone/SKILL.md", "old");
    out.write(".well-known/security.txt", "Contact: me");
    out.write("index.html", "<h1>site</h1>");
    let (ok, _, stderr) = export(EXAMPLES, out.path(), &[]);
    assert!(ok, "{stderr}");
    assert!(
        !out.path().join(".well-known/agent-skills/gone").exists(),
        "a removed skill is gone"
    );
    assert!(out.path().join(".well-known/security.txt").exists());
    assert!(out.path().join("index.html").exists());
    let leftovers: Vec<_> = std::fs::read_dir(out.path().join(".well-known"))
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
    skills.write(
        "alpha/SKILL.md",
        "---\nname: alpha\ndescription: The first letter.\n---\nSay alpha.\n",
    );
    skills
}

#[test]
fn a_config_that_cannot_be_replaced_after_the_tree_leaves_the_previous_export_byte_for_byte() {
    let out = exported("config-fails");
    // `_headers` is put in place last, after the tree and the nginx snippet; a folder there
    // makes that last step fail.
    std::fs::remove_file(out.path().join("_headers")).unwrap();
    std::fs::create_dir(out.path().join("_headers")).unwrap();
    out.write("_headers/mine", "the site's own");
    let before = snapshot(out.path());

    let alpha = alpha_skills();
    let (ok, _, stderr) = export(alpha.arg(), out.path(), &[]);
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
    assert_eq!(snapshot(out.path()), before, "the previous export changed");
    assert_eq!(staging_folders(out.path()), Vec::<String>::new());
}

#[test]
fn index_json_is_never_missing_while_exports_run() {
    let out = exported("never-missing");
    let alpha = alpha_skills();
    let index = out.path().join(".well-known/agent-skills/index.json");
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
            alpha.arg()
        } else {
            EXAMPLES
        };
        let (ok, _, stderr) = export(skills, out.path(), &[]);
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
        skills.write(
            format!("{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: Skill {n} of {prefix}.\n---\nDo {n}.\n"),
        );
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
                SKILLPUB
                    .command(["export", skills.arg(), out.arg()])
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
        // The tree and both configuration files name the same skills: all from one run. (The
        // addressed files the earlier run published are kept, and `_headers` lists them; the
        // canonical paths and the index are this run's alone.)
        let index = std::fs::read_to_string(out.path().join(".well-known/agent-skills/index.json"))
            .unwrap();
        let alpha_won = index.contains("\"name\": \"alpha-0\"");
        assert_eq!(
            index.contains("\"name\": \"beta-0\""),
            !alpha_won,
            "{index}"
        );
        for part in ["skillpub.nginx.conf", "_headers"] {
            let text = std::fs::read_to_string(out.path().join(part)).unwrap();
            let canonical = |name: &str| {
                let path = format!("/.well-known/agent-skills/{name}/SKILL.md");
                text.contains(&format!("{path} {{")) || text.contains(&format!("{path}\n"))
            };
            assert_eq!(canonical("alpha-99"), alpha_won, "{part}");
            assert_eq!(canonical("beta-0"), !alpha_won, "{part}");
        }
        let (addressed, skills): (Vec<_>, Vec<_>) =
            std::fs::read_dir(out.path().join(".well-known/agent-skills"))
                .unwrap()
                .flatten()
                .filter(|entry| entry.path().is_dir())
                .partition(|entry| entry.file_name().to_string_lossy().starts_with("sha256-"));
        assert_eq!(skills.len(), 100);
        assert_eq!(
            addressed.len(),
            200,
            "one addressed SKILL.md per skill of both runs: the earlier run's are kept"
        );
        assert_eq!(staging_folders(out.path()), Vec::<String>::new());
    }
}

#[test]
fn an_export_waits_while_another_holds_the_lock() {
    let out = exported("lock");
    let alpha = alpha_skills();
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(out.path().join(".skillpub-export.lock"))
        .expect("the export keeps its lock file");
    lock.lock().unwrap();
    let mut waiting = SKILLPUB
        .command(["export", alpha.arg(), out.arg()])
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
    assert!(!out.path().join(".well-known/agent-skills/alpha").exists());
    drop(lock);
    assert!(waiting.wait().unwrap().success());
    assert!(
        out.path()
            .join(".well-known/agent-skills/alpha/SKILL.md")
            .is_file()
    );
}

#[test]
fn an_export_clears_what_a_crashed_export_left() {
    let out = exported("crashed");
    let leftover = out.path().join(".well-known/.skillpub-staging-4294967");
    std::fs::create_dir_all(leftover.join("agent-skills/gone")).unwrap();
    std::fs::write(leftover.join("agent-skills/gone/SKILL.md"), "half").unwrap();
    let (ok, _, stderr) = export(EXAMPLES, out.path(), &[]);
    assert!(ok, "{stderr}");
    assert_eq!(staging_folders(out.path()), Vec::<String>::new());
    assert!(!out.path().join(".well-known/agent-skills/gone").exists());
}

#[test]
fn unknown_frontmatter_fields_are_published_only_when_allowed() {
    let skills = Scratch::new("unknown-fields");
    let text = "---\nname: team\ndescription: Our team's way.\nx-owner: docs\n---\nAsk docs.\n";
    skills.write("team/SKILL.md", text);
    let out = Scratch::new("unknown-fields-out");

    let (ok, _, stderr) = export(skills.arg(), out.path(), &[]);
    assert!(!ok);
    assert!(
        stderr.contains("field `x-owner`: is not an Agent Skills field"),
        "{stderr}"
    );
    assert!(stderr.contains("pass --allow-unknown-fields"), "{stderr}");
    assert!(!out.path().join(".well-known/agent-skills").exists());

    let (ok, _, stderr) = export(skills.arg(), out.path(), &["--allow-unknown-fields"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out.path().join(".well-known/agent-skills/team/SKILL.md")).unwrap(),
        text
    );
}

#[test]
fn a_subfolder_without_skill_md_is_skipped_with_a_warning() {
    let skills = alpha_skills();
    skills.write("drafts/notes.md", "Ideas.\n");
    let out = Scratch::new("skipped-out");

    let (ok, _, stderr) = export(skills.arg(), out.path(), &[]);
    assert!(ok, "{stderr}");
    let warning = stderr
        .lines()
        .find(|line| line.starts_with("skillpub export: warning: skipped "))
        .unwrap_or_else(|| panic!("no warning: {stderr}"));
    assert!(warning.contains("drafts"), "{warning}");
    assert!(
        out.path()
            .join(".well-known/agent-skills/alpha/SKILL.md")
            .is_file()
    );
    assert!(!out.path().join(".well-known/agent-skills/drafts").exists());
}

/// nginx serving `root` on a free port of 127.0.0.1, with the snippet or without it.
fn nginx(binary: &Path, root: &Scratch, with_snippet: bool) -> Nginx {
    let include = if with_snippet {
        format!("include {}/skillpub.nginx.conf;", root.arg())
    } else {
        String::new()
    };
    Nginx::start(binary, &format!("root {};\n    {include}", root.arg()))
}

#[test]
fn nginx_stops_with_its_workers() {
    let Some(binary) = nginx_or_skip("nginx_stops_with_its_workers") else {
        return;
    };
    let out = exported("nginx-stop");
    let mut server = nginx(&binary, &out, true);
    assert_eq!(server.workers().len(), 1, "one worker runs");
    assert_eq!(
        server.stop(),
        Vec::<u32>::new(),
        "nginx processes were left"
    );
    assert!(
        std::net::TcpStream::connect(server.addr()).is_err(),
        "nothing listens on {} any more",
        server.addr()
    );
}

#[test]
fn nginx_with_the_snippet_passes_every_check() {
    let Some(binary) = nginx_or_skip("nginx_with_the_snippet_passes_every_check") else {
        return;
    };
    let out = exported("nginx-snippet");
    let mut server = nginx(&binary, &out, true);
    let (passed, stdout, _) = skillpub(&["check", &format!("http://{}", server.addr())]);
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
            .all(|line| ["ok ", "aiSiteReady ", "isitagentready "]
                .iter()
                .any(|start| line.starts_with(start))),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nisitagentready agentSkills: pass ("),
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
    let Some(binary) = nginx_or_skip("stock_nginx_without_the_snippet_fails_on_the_markdown_type")
    else {
        return;
    };
    let out = exported("nginx-stock");
    let mut server = nginx(&binary, &out, false);
    let (passed, stdout, _) = skillpub(&["check", "--json", &format!("http://{}", server.addr())]);
    assert!(!passed, "{stdout}");
    let report = Report::parse(&stdout);
    let failures = report.failures();
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
    out.write(".well-known/skills/index.json", "mine");
    out.write(".well-known/api-catalog", "mine too");
    let (ok, _, stderr) = export(EXAMPLES, out.path(), &[]);
    assert!(ok, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out.path().join(".well-known/skills/index.json")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join(".well-known/api-catalog")).unwrap(),
        "mine too"
    );
}

/// One raw request with the headers of a CORS preflight.
fn raw(addr: std::net::SocketAddr, method: &str, path: &str) -> Response {
    let preflight = [
        ("Origin", "https://agent.example"),
        ("Access-Control-Request-Method", "GET"),
    ];
    request_blocking(addr, method, path, &preflight)
}

#[test]
fn nginx_answers_preflights_and_every_missing_path_like_the_router() {
    let Some(binary) =
        nginx_or_skip("nginx_answers_preflights_and_every_missing_path_like_the_router")
    else {
        return;
    };
    let out = exported("nginx-edges");
    let mut server = nginx(&binary, &out, true);

    let preflight = raw(
        server.addr(),
        "OPTIONS",
        "/.well-known/agent-skills/write-skill-md/SKILL.md",
    );
    assert_eq!(preflight.status, 204, "{}", preflight.head);
    assert_eq!(
        preflight.header("access-control-allow-methods"),
        Some("GET, HEAD, OPTIONS"),
        "{}",
        preflight.head
    );

    let missing = raw(server.addr(), "GET", "/.well-known/agent-skills/nope.html");
    assert_eq!(missing.status, 404, "{}", missing.head);
    assert_eq!(missing.header("content-type"), Some("application/json"));
    assert_eq!(
        missing.header("cache-control"),
        Some("public, max-age=10"),
        "{}",
        missing.head
    );
    assert!(
        missing.body.starts_with(br#"{"error":"not_found""#),
        "{missing:?}"
    );

    // A listed file that disappears (until the next export and reload) is the JSON 404 too.
    std::fs::remove_file(
        out.path()
            .join(".well-known/agent-skills/write-skill-md/SKILL.md"),
    )
    .unwrap();
    let gone = raw(
        server.addr(),
        "GET",
        "/.well-known/agent-skills/write-skill-md/SKILL.md",
    );
    assert_eq!(gone.status, 404, "{}", gone.head);
    assert!(
        gone.body.starts_with(br#"{"error":"not_found""#),
        "{gone:?}"
    );
    assert_eq!(gone.header("cache-control"), Some("public, max-age=10"));

    // An addressed file the tree does not hold (yet) is a 404 that no cache keeps.
    let unheld = format!(
        "/.well-known/agent-skills/sha256-{}/write-skill-md/SKILL.md",
        "0".repeat(64)
    );
    let unheld = raw(server.addr(), "GET", &unheld);
    assert_eq!(unheld.status, 404, "{}", unheld.head);
    assert_eq!(
        unheld.header("cache-control"),
        Some("no-store"),
        "{}",
        unheld.head
    );
    assert!(
        unheld.body.starts_with(br#"{"error":"not_found""#),
        "{unheld:?}"
    );
    assert_eq!(
        server.stop(),
        Vec::<u32>::new(),
        "nginx processes were left"
    );
}
