//! No skill lost through a shared cache across deploys. nginx `proxy_cache` (an edge, a CDN
//! stand-in) sits in front of each way of publishing skills: `skillpub serve --watch` with
//! edits, an exported tree served by an nginx origin and exported again, and `skillpub serve`
//! restarted on a changed folder. Through 20 deploys (one `SKILL.md` or one supporting file
//! changed each time, the archive skill as often as the single file), update checks read the
//! index every 0.5 s (as the npm `skills` installer's check does) and installers read the index,
//! then every `SKILL.md` and archive it names, and verify every digest. An install is lost when
//! it drops a skill: a digest that does not match the bytes, or a 404 for a URL the index named.
//!
//! The edge honours the origin's headers, with time running a hundred times faster (the default
//! five minutes are three seconds), and a fourth edge overrides them (every `200` kept for
//! four seconds, well within the live retention's grace period). Every figure is printed on one
//! line per scenario; the origin requests are those the edge sent on, which is what the index's
//! cache policy costs.
//!
//! The tests need nginx (found on `PATH` or at the usual places); without it they say they
//! were skipped, or fail when `SKILLPUB_REQUIRE_EXTERNAL=1` is set.

use std::collections::HashSet;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use skillpub_core::Digest;
use skillpub_testkit::{
    Cli, Edge, Freshness, Nginx, Response, Running, Scratch, nginx_or_skip, request_blocking,
};

/// The binary under test.
const SKILLPUB: Cli = Cli::new(env!("CARGO_BIN_EXE_skillpub"));

const INDEX: &str = "/.well-known/agent-skills/index.json";
/// How many deploys each scenario makes.
const DEPLOYS: usize = 20;
/// The time from one deploy to the next.
const DEPLOY_EVERY: Duration = Duration::from_millis(1200);
/// How much faster than the origin says the honouring edge lets answers age: the default
/// `max-age=300` lasts three seconds, longer than two deploys.
const SPEEDUP: u32 = 100;
/// What the overriding edge keeps every `200` for.
const OVERRIDDEN: Duration = Duration::from_secs(4);
/// How often each update checker reads the index.
const CHECK_EVERY: Duration = Duration::from_millis(500);
/// The update checkers and the installers running at once.
const CHECKERS: usize = 2;
const INSTALLERS: usize = 2;
/// An installer waits between 0.5 and 2.5 s before its next install: installs are rarer
/// than update checks, as they are in use.
const INSTALL_PAUSE_MS: (u64, u64) = (500, 2500);
/// How long the caches are warmed before the first deploy.
const WARM: Duration = Duration::from_secs(1);
/// How long the edge may take, after the last deploy, to give an install of the last deploy:
/// beyond any freshness of these edges.
const CONVERGE_WITHIN: Duration = Duration::from_secs(15);
/// How long a request may keep getting 502 (the origin restarting) before the test fails.
const ORIGIN_BACK_WITHIN: Duration = Duration::from_secs(10);

/// A skills folder of three skills: `single` (one `SKILL.md`), `bundle` (a `SKILL.md` and a
/// supporting file, so listed as an archive) and `steady` (never changed).
struct Skills {
    dir: Scratch,
}

impl Skills {
    fn new() -> Self {
        let dir = Scratch::new("caches-skills");
        let skills = Self { dir };
        skills.write_single(0);
        skills.write_bundle_skill_md(0);
        skills.write_reference(0);
        skills.dir.write(
            "steady/SKILL.md",
            "---\nname: steady\ndescription: A skill that never changes.\n---\nStay.\n",
        );
        skills
    }

    fn write_single(&self, revision: usize) {
        self.dir.write(
            "single/SKILL.md",
            format!(
                "---\nname: single\ndescription: A skill in one file.\n---\nRevision {revision}.\n"
            ),
        );
    }

    fn write_bundle_skill_md(&self, revision: usize) {
        self.dir.write(
            "bundle/SKILL.md",
            format!(
                "---\nname: bundle\ndescription: A skill with a reference file.\n---\nRead reference.md (revision {revision}).\n"
            ),
        );
    }

    fn write_reference(&self, revision: usize) {
        self.dir.write(
            "bundle/reference.md",
            format!("# Reference\n\nRevision {revision}.\n"),
        );
    }

    /// The change of deploy `n` (from 1): `single/SKILL.md` on odd deploys, `bundle`'s
    /// `SKILL.md` and `reference.md` in turn on even ones, so that the archive changes as
    /// often as the single file.
    fn change(&self, n: usize) {
        match n % 4 {
            1 | 3 => self.write_single(n),
            2 => self.write_bundle_skill_md(n),
            _ => self.write_reference(n),
        }
    }
}

/// A way of publishing the skills folder, put behind the edge.
trait Origin {
    /// Where the edge sends its misses.
    fn addr(&self) -> SocketAddr;
    /// Publishes the folder as it now is; returns once the origin serves it.
    fn deploy(&mut self, skills: &Skills);
}

/// `skillpub serve` on `addr` (`127.0.0.1:0` for a free port): the process and its address.
fn serve(dir: &Scratch, addr: &str, extra: &[&str]) -> (Running, SocketAddr) {
    let mut command = SKILLPUB.command(["serve", dir.arg(), "--addr", addr]);
    command.args(extra).stderr(Stdio::null());
    let (running, announced) = Running::announced(&mut command);
    (running, announced.addr)
}

/// The index as the origin serves it now, asked directly (not through the edge).
fn origin_index(addr: SocketAddr) -> Vec<u8> {
    let response = request_blocking(addr, "GET", INDEX, &[]);
    assert_eq!(response.status, 200, "{}", response.head);
    response.body
}

/// (a) `skillpub serve --watch`: a deploy is an edit of the folder, served once the watch
/// has reloaded it.
struct Watched {
    _running: Running,
    addr: SocketAddr,
}

impl Watched {
    fn start(skills: &Skills) -> Self {
        let (running, addr) = serve(&skills.dir, "127.0.0.1:0", &["--watch"]);
        Self {
            _running: running,
            addr,
        }
    }
}

impl Origin for Watched {
    fn addr(&self) -> SocketAddr {
        self.addr
    }

    fn deploy(&mut self, _skills: &Skills) {
        let before = origin_index(self.addr);
        let started = Instant::now();
        while origin_index(self.addr) == before {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the watch did not reload the edit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// (b) An exported tree served by nginx with the export's snippet: a deploy is an export to
/// the same folder and a reload of nginx.
struct Exported {
    nginx: Nginx,
    out: Scratch,
}

impl Exported {
    fn start(binary: &Path, skills: &Skills) -> Self {
        let out = Scratch::new("caches-export");
        export(skills, &out);
        let nginx = Nginx::start(
            binary,
            &format!(
                "root {};\n    include {}/skillpub.nginx.conf;",
                out.arg(),
                out.arg()
            ),
        );
        Self { nginx, out }
    }
}

fn export(skills: &Skills, out: &Scratch) {
    let outcome = SKILLPUB.run(&["export", skills.dir.arg(), out.arg()]);
    assert!(outcome.success, "{}", outcome.stderr);
}

impl Origin for Exported {
    fn addr(&self) -> SocketAddr {
        self.nginx.addr()
    }

    fn deploy(&mut self, skills: &Skills) {
        export(skills, &self.out);
        self.nginx.reload();
    }
}

/// (c) `skillpub serve` without `--watch`: a deploy stops it (SIGTERM, which lets answers in
/// flight finish) and starts it again on the same port, so every generation it held in memory
/// is gone.
struct Restarted {
    running: Running,
    addr: SocketAddr,
}

impl Restarted {
    fn start(skills: &Skills) -> Self {
        let (running, addr) = serve(&skills.dir, "127.0.0.1:0", &[]);
        Self { running, addr }
    }
}

impl Origin for Restarted {
    fn addr(&self) -> SocketAddr {
        self.addr
    }

    fn deploy(&mut self, skills: &Skills) {
        self.running.signal("-TERM");
        let status = self.running.wait_within(Duration::from_secs(10));
        assert!(
            status.is_some_and(|status| status.success()),
            "skillpub serve did not stop on SIGTERM: {status:?}"
        );
        let (running, addr) = serve(&skills.dir, &self.addr.to_string(), &[]);
        assert_eq!(addr, self.addr);
        self.running = running;
    }
}

/// What the clients saw.
#[derive(Debug, Default)]
struct Tally {
    checks: usize,
    installs: usize,
    /// One line per lost install: the skills it dropped and why.
    lost: Vec<String>,
    /// Installs that dropped a skill for a digest that did not match, and for a 404.
    mismatched: usize,
    missing: usize,
    /// Requests answered 502 or 504 (the origin restarting) and sent again.
    retried: usize,
    /// Every index an install was given.
    generations: HashSet<Vec<u8>>,
}

/// GET `path` through the edge, sent again while the origin is down (502 or 504, between a
/// stop and a start).
fn get(edge: SocketAddr, path: &str, tally: &Mutex<Tally>) -> Response {
    let started = Instant::now();
    loop {
        let response = request_blocking(edge, "GET", path, &[]);
        if ![502, 504].contains(&response.status) {
            assert_ne!(
                response.header("transfer-encoding"),
                Some("chunked"),
                "{path}: the edge sent a chunked body"
            );
            return response;
        }
        tally.lock().unwrap().retried += 1;
        assert!(
            started.elapsed() < ORIGIN_BACK_WITHIN,
            "{path}: the origin did not come back: {}",
            response.head
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The path of an index `url` on the edge: path-absolute as it is, an absolute URL's path,
/// a relative one under the index's folder.
fn path_of(url: &str) -> String {
    if url.starts_with('/') {
        url.to_owned()
    } else if let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    {
        rest[rest.find('/').unwrap_or(rest.len())..].to_owned()
    } else {
        format!("/.well-known/agent-skills/{url}")
    }
}

/// An update check: the index alone.
fn check(edge: SocketAddr, tally: &Mutex<Tally>) {
    let index = get(edge, INDEX, tally);
    assert_eq!(index.status, 200, "{}", index.head);
    let _ = index.skill_names();
    tally.lock().unwrap().checks += 1;
}

/// An install: the index, then every artifact it names, each verified against its digest.
/// Returns the index it was given and the skills it dropped (with why).
fn install(edge: SocketAddr, tally: &Mutex<Tally>) -> (Vec<u8>, Vec<(String, Loss)>) {
    let index = get(edge, INDEX, tally);
    assert_eq!(index.status, 200, "{}", index.head);
    let parsed: serde_json::Value = serde_json::from_slice(&index.body).expect("an index");
    let mut dropped = Vec::new();
    for entry in parsed["skills"].as_array().expect("a skills list") {
        let name = entry["name"].as_str().expect("a name").to_owned();
        let url = entry["url"].as_str().expect("a url");
        let digest = entry["digest"].as_str().expect("a digest");
        let artifact = get(edge, &path_of(url), tally);
        match artifact.status {
            200 if Digest::of(&artifact.body).to_string() == digest => {}
            200 => dropped.push((name, Loss::Mismatch(url.to_owned()))),
            404 => dropped.push((name, Loss::NotFound(url.to_owned()))),
            _ => panic!("{url}: {}", artifact.head),
        }
    }
    (index.body, dropped)
}

/// Why an install dropped a skill.
#[derive(Debug)]
enum Loss {
    /// The bytes at this URL do not have the index's digest.
    Mismatch(String),
    /// This URL was answered 404.
    NotFound(String),
}

impl std::fmt::Display for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Mismatch(url) => write!(f, "digest mismatch at {url}"),
            Self::NotFound(url) => write!(f, "404 for {url}"),
        }
    }
}

/// A small deterministic generator for the installers' pauses.
fn pauses(seed: u64) -> impl FnMut() -> Duration {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let (low, high) = INSTALL_PAUSE_MS;
        Duration::from_millis(low + state % (high - low))
    }
}

/// The checkers and installers, running until `stop`.
fn clients(
    edge: SocketAddr,
    tally: &Arc<Mutex<Tally>>,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<()>> {
    let checkers = (0..CHECKERS).map(|n| {
        let (tally, stop) = (Arc::clone(tally), Arc::clone(stop));
        std::thread::spawn(move || {
            // Spread over the interval, as independent clients are.
            std::thread::sleep(
                CHECK_EVERY * u32::try_from(n).unwrap() / u32::try_from(CHECKERS).unwrap(),
            );
            while !stop.load(Ordering::Relaxed) {
                check(edge, &tally);
                std::thread::sleep(CHECK_EVERY);
            }
        })
    });
    let installers = (0..INSTALLERS).map(|n| {
        let (tally, stop) = (Arc::clone(tally), Arc::clone(stop));
        std::thread::spawn(move || {
            let mut pause = pauses(n as u64 + 1);
            while !stop.load(Ordering::Relaxed) {
                let (index, dropped) = install(edge, &tally);
                let mut tally = tally.lock().unwrap();
                tally.installs += 1;
                tally.generations.insert(index);
                if !dropped.is_empty() {
                    if dropped
                        .iter()
                        .any(|(_, why)| matches!(why, Loss::Mismatch(_)))
                    {
                        tally.mismatched += 1;
                    }
                    if dropped
                        .iter()
                        .any(|(_, why)| matches!(why, Loss::NotFound(_)))
                    {
                        tally.missing += 1;
                    }
                    let line = dropped
                        .iter()
                        .map(|(name, why)| format!("{name}: {why}"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    tally.lost.push(line);
                }
                drop(tally);
                std::thread::sleep(pause());
            }
        })
    });
    checkers.chain(installers).collect()
}

/// What a scenario measured.
#[derive(Debug)]
struct Figures {
    tally: Tally,
    /// The requests the edge sent to the origin: for the index, and for everything else.
    origin_index: usize,
    origin_other: usize,
    /// Of those, the ones answered 304 (a revalidation).
    origin_not_modified: usize,
    /// How long it took, after the last deploy, until an install through the edge was given
    /// the origin's index.
    converged_after: Duration,
}

/// Runs one scenario: the origin behind an edge keeping answers as `freshness` says, clients
/// running, [`DEPLOYS`] deploys; prints the figures and asserts that no install was lost.
fn scenario(
    name: &str,
    nginx: &Path,
    freshness: Freshness,
    start: impl FnOnce(&Skills) -> Box<dyn Origin>,
) -> Figures {
    let skills = Skills::new();
    let mut origin = start(&skills);
    let mut edge = Edge::start(nginx, origin.addr(), freshness);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let running = clients(edge.addr(), &tally, &stop);
    std::thread::sleep(WARM);
    let first = Instant::now();
    for n in 1..=DEPLOYS {
        skills.change(n);
        origin.deploy(&skills);
        let next = first + DEPLOY_EVERY * u32::try_from(n).unwrap();
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let last = Instant::now();
    let current = origin_index(origin.addr());
    loop {
        let (index, _) = install(edge.addr(), &tally);
        if index == current {
            break;
        }
        assert!(
            last.elapsed() < CONVERGE_WITHIN,
            "{name}: the edge still gives an older index {:?} after the last deploy",
            last.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let converged_after = last.elapsed();
    stop.store(true, Ordering::Relaxed);
    for client in running {
        client.join().expect("a client thread panicked");
    }
    let requests = edge.origin_requests();
    assert_eq!(edge.stop(), Vec::<u32>::new(), "nginx processes were left");
    drop(origin);
    let tally = Arc::try_unwrap(tally)
        .expect("the clients are done")
        .into_inner()
        .unwrap();
    let origin_index = requests
        .iter()
        .filter(|line| line.contains(&format!(" {INDEX} ")))
        .count();
    let figures = Figures {
        origin_index,
        origin_other: requests.len() - origin_index,
        origin_not_modified: requests
            .iter()
            .filter(|line| line.ends_with(" 304"))
            .count(),
        converged_after,
        tally,
    };
    let Figures { tally, .. } = &figures;
    let _ = writeln!(
        std::io::stderr(),
        "caches: {name}: {DEPLOYS} deploys, {} installs, {} lost ({} with a digest mismatch, {} with a 404), {} update checks, {} index generations installed; {} origin requests through the edge ({} for the index, {} for artifacts, {} answered 304); {} requests sent again while the origin restarted; the edge gave the last deploy {:.1} s after it",
        tally.installs,
        tally.lost.len(),
        tally.mismatched,
        tally.missing,
        tally.checks,
        tally.generations.len(),
        figures.origin_index + figures.origin_other,
        figures.origin_index,
        figures.origin_other,
        figures.origin_not_modified,
        tally.retried,
        figures.converged_after.as_secs_f64(),
    );
    // The clients saw the deploys: an edge that never let a new index through would lose
    // nothing, and prove nothing.
    assert!(
        tally.generations.len() > 3,
        "{name}: installs were given only {} indexes across {DEPLOYS} deploys",
        tally.generations.len()
    );
    assert!(
        tally.lost.is_empty(),
        "{name}: {} of {} installs lost a skill; the first: {:?}",
        tally.lost.len(),
        tally.installs,
        &tally.lost[..tally.lost.len().min(5)]
    );
    figures
}

#[test]
fn no_install_is_lost_through_an_edge_in_front_of_serve_watch() {
    let Some(nginx) = nginx_or_skip("no_install_is_lost_through_an_edge_in_front_of_serve_watch")
    else {
        return;
    };
    scenario(
        "serve --watch, edge honouring the origin (100x faster)",
        &nginx,
        Freshness::Honoured { speedup: SPEEDUP },
        |skills| Box::new(Watched::start(skills)),
    );
}

#[test]
fn no_install_is_lost_through_an_edge_that_overrides_the_ttl_within_the_grace_period() {
    let Some(nginx) = nginx_or_skip(
        "no_install_is_lost_through_an_edge_that_overrides_the_ttl_within_the_grace_period",
    ) else {
        return;
    };
    scenario(
        "serve --watch, edge keeping every 200 for 4 s",
        &nginx,
        Freshness::Overridden(OVERRIDDEN),
        |skills| Box::new(Watched::start(skills)),
    );
}

#[test]
fn no_install_is_lost_through_an_edge_in_front_of_an_export_served_by_nginx() {
    let Some(nginx) =
        nginx_or_skip("no_install_is_lost_through_an_edge_in_front_of_an_export_served_by_nginx")
    else {
        return;
    };
    let origin_nginx: PathBuf = nginx.clone();
    scenario(
        "export served by nginx, edge honouring the origin (100x faster)",
        &nginx,
        Freshness::Honoured { speedup: SPEEDUP },
        move |skills| Box::new(Exported::start(&origin_nginx, skills)),
    );
}

#[test]
fn no_install_is_lost_through_an_edge_in_front_of_serve_restarted() {
    let Some(nginx) =
        nginx_or_skip("no_install_is_lost_through_an_edge_in_front_of_serve_restarted")
    else {
        return;
    };
    scenario(
        "serve restarted, edge honouring the origin (100x faster)",
        &nginx,
        Freshness::Honoured { speedup: SPEEDUP },
        |skills| Box::new(Restarted::start(skills)),
    );
}
