//! Where the resident memory of a served catalog goes (Linux: it reads `/proc/self/status`):
//! the anonymous memory after reading the 1,000-skill folders, after building their catalogs
//! and after building their routers, against the bytes the catalog serves. Each corpus is
//! measured in a process of its own (the bench runs itself again), so that no memory freed by
//! one is counted for the other. Not a criterion bench: it prints one line per corpus.
//!
//! ```sh
//! cargo bench -p skillpub-cold-start --bench memory
//! ```

use skillpub::model::folder::read_skills_folder;
use skillpub_cold_start::corpus_dir;

/// The anonymous resident memory of this process, in KiB.
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("RssAnon:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Set to `archive` or `skill-md` in the process that measures that corpus.
const CORPUS: &str = "SKILLPUB_MEMORY_CORPUS";

fn main() {
    match std::env::var(CORPUS) {
        Ok(kind) => measure(&kind),
        Err(_) if std::env::args().any(|arg| arg == "--list") => {}
        Err(_) => {
            let me = std::env::current_exe().unwrap();
            for kind in ["skill-md", "archive"] {
                let status = std::process::Command::new(&me)
                    .env(CORPUS, kind)
                    .status()
                    .unwrap();
                assert!(status.success(), "measuring {kind} failed");
            }
        }
    }
}

fn measure(kind: &str) {
    let with_files = kind == "archive";
    let start = resident_kib();
    let folder = read_skills_folder(corpus_dir(with_files, 1_000)).unwrap();
    let read = resident_kib();
    let catalog = folder.catalog().unwrap();
    drop(folder);
    let built = resident_kib();
    let served: usize = catalog.artifacts().map(|a| a.len()).sum();
    let artifacts = catalog.artifacts().count();
    let router = skillpub::web::router::<()>(catalog);
    let routed = resident_kib();
    let served = served as u64 / 1024;
    let ratio = |kib: u64| kib as f64 / served as f64;
    println!(
        "{kind}-1000: serves {served} KiB in {artifacts} artifacts; resident (anonymous): \
         folder read {} KiB, catalog {} KiB ({:.2}x served), with the router {} KiB ({:.2}x)",
        read - start,
        built - start,
        ratio(built - start),
        routed - start,
        ratio(routed - start),
    );
    drop(router);
}
