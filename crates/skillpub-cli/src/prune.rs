//! `skillpub prune LOCATION`: removes from a replicas' store (or an export to object storage)
//! the addressed files that only generations replaced long enough ago name. Nothing else
//! prunes a store: a start or a deploy of a replica never does.

use std::time::Duration;

use skillpub_store::Store;

use crate::export::{DEFAULT_KEEP_FOR, DEFAULT_KEEP_GENERATIONS, duration};
use crate::output::say;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The store: a folder, or s3://bucket/prefix (endpoint, region and keys from the AWS_*
    /// variables).
    location: String,
    /// How long a replaced generation keeps its files (s, m, h or d: `90m`, `1d`); at least as
    /// long as any cache or client may hold its index. A file written less than this long
    /// ago stays too.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_KEEP_FOR, value_parser = duration)]
    keep_for: Duration,
    /// How many of the last replaced generations keep their files, whatever their age.
    #[arg(long, value_name = "N", default_value = DEFAULT_KEEP_GENERATIONS)]
    keep_generations: usize,
}

/// Prunes the store; says whether it could.
pub(crate) fn run(args: &Args) -> bool {
    let Some(runtime) = crate::output::current_thread("prune") else {
        return false;
    };
    let retention = skillpub_store::Retention {
        generations: args.keep_generations,
        keep_for: args.keep_for,
    };
    match Store::open(&args.location).and_then(|store| runtime.block_on(store.prune(retention))) {
        Ok(pruned) => {
            say!(
                "pruned {}: removed {} files of {} replaced generations, kept {} generations",
                args.location,
                pruned.files,
                pruned.removed,
                pruned.kept
            );
            true
        }
        Err(error) => {
            eprintln!("skillpub prune: {error}");
            false
        }
    }
}
