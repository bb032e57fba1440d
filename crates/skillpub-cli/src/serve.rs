//! `skillpub serve SKILLS_DIR`: the folder served by the same router a Rust service mounts,
//! for authors; with `--watch` it rebuilds when a file changes and keeps the last good catalog
//! while the folder is invalid.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime};

use axum::Router;
use skillpub_core::{Catalog, Errors, INDEX_PATH};
use tower::ServiceExt;

/// How often `--watch` looks at the folder.
const POLL: Duration = Duration::from_millis(300);

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A skill folder or a folder of skill folders.
    skills_dir: PathBuf,
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:3000")]
    addr: SocketAddr,
    /// Rebuild when a file changes; while the folder is invalid, keep serving the last good
    /// catalog and print the problems.
    #[arg(long)]
    watch: bool,
}

/// Serves until interrupted; says whether it could start.
pub(crate) fn run(args: &Args) -> bool {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("skillpub serve: cannot start: {error}");
            return false;
        }
    };
    runtime.block_on(serve(args))
}

fn load(dir: &Path) -> Result<Catalog, Errors> {
    skillpub_core::read_skills_folder(dir)?.catalog()
}

async fn serve(args: &Args) -> bool {
    // Taken before the first load, so that a change made while starting is not missed.
    let seen = fingerprint(&args.skills_dir);
    let initial = match load(&args.skills_dir) {
        Ok(catalog) => catalog,
        Err(errors) if args.watch => {
            eprintln!("{errors}\nskillpub serve: serving no skills until the folder is valid");
            Catalog::new(Vec::<skillpub_core::Skill>::new()).expect("an empty catalog is valid")
        }
        Err(errors) => {
            eprintln!("{errors}");
            return false;
        }
    };
    eprintln!(
        "skillpub serve: {} skills from {}",
        initial.skills().len(),
        args.skills_dir.display()
    );
    let current = Arc::new(RwLock::new(skillpub_axum::router::<()>(initial)));
    let app = {
        let current = Arc::clone(&current);
        Router::new().fallback_service(tower::service_fn(move |request| {
            // A swap is one assignment, so even a poisoned lock holds a whole router.
            let router = current
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            router.oneshot(request)
        }))
    };
    let listener = match skillpub_axum::serve::bind(args.addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!(
                "skillpub serve: cannot listen on {}: {error}; use --addr with a free HOST:PORT",
                args.addr
            );
            return false;
        }
    };
    let local = listener.local_addr().unwrap_or(args.addr);
    println!("Agent Skills index: http://{local}{INDEX_PATH}");
    if args.watch {
        tokio::spawn(watch(args.skills_dir.clone(), current, seen));
    }
    if let Err(error) = skillpub_axum::serve(listener, app).await {
        eprintln!("skillpub serve: {error}");
        return false;
    }
    true
}

/// Rebuilds the catalog whenever the folder's files change.
async fn watch(dir: PathBuf, current: Arc<RwLock<Router>>, mut seen: Fingerprint) {
    loop {
        tokio::time::sleep(POLL).await;
        let walked = dir.clone();
        let Ok(now) = tokio::task::spawn_blocking(move || fingerprint(&walked)).await else {
            continue;
        };
        if now == seen {
            continue;
        }
        seen = now;
        let loaded = dir.clone();
        let Ok(result) = tokio::task::spawn_blocking(move || load(&loaded)).await else {
            continue;
        };
        match result {
            Ok(catalog) => {
                eprintln!(
                    "skillpub serve: reloaded, {} skills",
                    catalog.skills().len()
                );
                *current.write().unwrap_or_else(PoisonError::into_inner) =
                    skillpub_axum::router(catalog);
            }
            Err(errors) => eprintln!("{errors}\nskillpub serve: keeping the last good catalog"),
        }
    }
}

/// Every file and folder under a skills folder with its size and modification time.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// Every file and folder under `dir` with its size and modification time, sorted.
fn fingerprint(dir: &Path) -> Fingerprint {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                pending.push(path.clone());
            }
            found.push((path, meta.len(), meta.modified().ok()));
        }
    }
    found.sort();
    found
}
