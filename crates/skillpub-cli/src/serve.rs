//! `skillpub serve SKILLS_DIR`: the folder served by the same router a Rust service mounts,
//! for authors; with `--watch` it rebuilds once a change has settled (see [`watched`]), publishes
//! the new catalog through the same [`LiveCatalog`] handle a Rust service uses, and keeps the
//! last good catalog while the folder is invalid.

mod watched;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use axum::Router;
use skillpub_core::{Catalog, Errors, LiveCatalog, paths::INDEX_PATH};
use skillpub_store::Store;

use crate::output::{say, unknown_fields_hint};
use watched::Folder;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A skill folder or a folder of skill folders.
    skills_dir: PathBuf,
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:3000")]
    addr: SocketAddr,
    /// Rebuild when a file changes (once the folder has been quiet for 300 ms); while the
    /// folder is invalid, keep serving the last good catalog and print the problems.
    #[arg(long)]
    watch: bool,
    /// Accept frontmatter fields beyond the Agent Skills ones (they are served as written).
    #[arg(long)]
    allow_unknown_fields: bool,
    /// A store every replica shares (a folder on a shared volume, or s3://bucket/prefix with
    /// the AWS_* variables): every artifact of a catalog is put there before its index is
    /// served, and addressed URLs this replica does not hold are read from it, verified.
    #[arg(long, value_name = "LOCATION")]
    store: Option<String>,
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

/// Reads the folder and builds its catalog, or every problem.
fn load(dir: &Path, allow_unknown_fields: bool) -> Result<Catalog, Errors> {
    skillpub_core::folder::read_skills_folder(dir)?
        .builder()
        .allow_unknown_fields(allow_unknown_fields)
        .build()
}

/// Says what the folder walk left out (hidden files, folders without `SKILL.md`).
fn warn_skipped(catalog: &Catalog) {
    for skipped in catalog.skipped() {
        eprintln!("skillpub serve: warning: {skipped}");
    }
}

/// The problems, and the flag that accepts unknown fields when one of them is such a field.
fn report(errors: &Errors) -> String {
    format!("{errors}{}", unknown_fields_hint(errors.into_iter()))
}

async fn serve(args: &Args) -> bool {
    let allow_unknown_fields = args.allow_unknown_fields;
    let loader = move |dir: &Path| load(dir, allow_unknown_fields);
    let dir = args.skills_dir.clone();
    // Followed from before the first load, so that a change made while starting is not missed.
    let mut seen = if args.watch {
        Folder::with_events(dir, loader)
    } else {
        Folder::new(dir, loader)
    };
    let initial = match seen.read() {
        Ok(catalog) => catalog,
        Err(errors) if args.watch => {
            eprintln!(
                "{}\nskillpub serve: serving no skills until the folder is valid",
                report(&errors)
            );
            Catalog::new(Vec::<skillpub_core::Skill>::new()).expect("an empty catalog is valid")
        }
        Err(errors) => {
            eprintln!("{}", report(&errors));
            return false;
        }
    };
    eprintln!(
        "skillpub serve: {} skills from {}",
        initial.skills().len(),
        args.skills_dir.display()
    );
    warn_skipped(&initial);
    let store = match args.store.as_deref().map(Store::open).transpose() {
        Ok(store) => store,
        Err(error) => {
            eprintln!("skillpub serve: --store: {error}");
            return false;
        }
    };
    if let Some(store) = &store
        && !publish(store, &initial).await
    {
        return false;
    }
    let live = LiveCatalog::new(initial);
    let mut builder = skillpub_axum::RouterBuilder::live(live.clone());
    if let Some(store) = &store {
        builder = builder.store(store.clone());
    }
    let app: Router = builder.build();
    let listener = match skillpub_axum::serve::bind(args.addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("skillpub serve: {error} (--addr sets the address)");
            return false;
        }
    };
    let local = listener.local_addr().unwrap_or(args.addr);
    say!("Agent Skills index: http://{local}{INDEX_PATH}");
    if args.watch {
        let runtime = tokio::runtime::Handle::current();
        watch(args.skills_dir.clone(), live, seen, store, runtime);
    }
    if let Err(error) = skillpub_axum::serve(listener, app).await {
        eprintln!("skillpub serve: {error}");
        return false;
    }
    true
}

/// Puts every artifact of `catalog` in `store`, before its index is served; says whether it
/// could.
async fn publish(store: &Store, catalog: &Catalog) -> bool {
    match store.publish(catalog).await {
        Ok(published) => {
            eprintln!(
                "skillpub serve: {} of {} artifacts put in {store} ({} bytes, {} requests)",
                published.uploaded, published.artifacts, published.bytes, published.requests
            );
            true
        }
        Err(error) => {
            eprintln!("skillpub serve: --store: {error}");
            false
        }
    }
}

/// Publishes each new valid catalog the folder settles on: the router prepares its answers
/// before the swap, and requests in flight finish with the catalog they started with. The
/// folder is followed on a thread of its own (waiting for events blocks), which ends with the
/// process.
fn watch(
    dir: PathBuf,
    live: LiveCatalog,
    mut seen: Folder<impl FnMut(&Path) -> Result<Catalog, Errors> + Send + 'static>,
    store: Option<Store>,
    runtime: tokio::runtime::Handle,
) {
    let follow = move || {
        loop {
            match seen.next() {
                Ok(catalog) => {
                    if let Some(store) = &store
                        && !runtime.block_on(publish(store, &catalog))
                    {
                        eprintln!(
                            "skillpub serve: keeping the last good catalog until the store takes the next change"
                        );
                        continue;
                    }
                    // Said once it is served, so that what follows the line sees it.
                    live.replace(catalog.clone());
                    eprintln!(
                        "skillpub serve: reloaded {}, {} skills",
                        dir.display(),
                        catalog.skills().len()
                    );
                    warn_skipped(&catalog);
                }
                Err(errors) => eprintln!(
                    "{}\nskillpub serve: keeping the last good catalog",
                    report(&errors)
                ),
            }
        }
    };
    if let Err(error) = std::thread::Builder::new()
        .name("skillpub-watch".to_owned())
        .spawn(follow)
    {
        eprintln!("skillpub serve: cannot start watching the folder: {error}");
    }
}
