//! Serves a skills folder from a live catalog, at `/.well-known/agent-skills/` and over MCP at
//! `/mcp`: on SIGHUP it reads the folder again and swaps the new catalog in, and connected
//! MCP clients are told (`notifications/resources/list_changed` on a session's stream for
//! clients before 2026-07-28, on their `subscriptions/listen` stream for 2026-07-28 ones).
//!
//! ```sh
//! cargo run --example live_mcp --features mcp
//! # another folder or address; then edit it and reload:
//! SKILLPUB_SKILLS=path/to/skills SKILLPUB_ADDR=127.0.0.1:8080 cargo run --example live_mcp --features mcp
//! kill -HUP <pid>
//! ```

use axum::Router;
use skillpub::mcp::{HttpOptions, McpSkills};
use skillpub::model::paths::INDEX_PATH;
use skillpub::{Catalog, LiveCatalog};

/// The address to listen on when `SKILLPUB_ADDR` is not set.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

/// The folder served when `SKILLPUB_SKILLS` is not set: the example skills.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = std::env::var("SKILLPUB_SKILLS").unwrap_or_else(|_| DEFAULT_SKILLS.to_owned());
    let live = LiveCatalog::new(Catalog::from_dir(&folder)?);
    let mcp = McpSkills::live(live.clone())
        .build()?
        // Sessions for clients before 2026-07-28, so that both eras are told of changes.
        .streamable_http_service(HttpOptions::default().with_stateful(true))?;
    let app = Router::new()
        .merge(skillpub::web::live_router(live.clone()))
        .nest_service("/mcp", mcp);
    #[cfg(unix)]
    tokio::spawn(reload_on_hangup(live, folder));

    let addr = std::env::var("SKILLPUB_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.to_owned());
    let listener = skillpub::web::serve::bind(addr).await?;
    let local = listener.local_addr()?;
    println!("Agent Skills index: http://{local}{INDEX_PATH}");
    println!("MCP endpoint: http://{local}/mcp");
    // Header-read and idle timeouts, flood resistance, graceful shutdown on Ctrl-C or SIGTERM.
    skillpub::web::serve(listener, app).await?;
    Ok(())
}

/// Reads `folder` again on each SIGHUP, off the async workers (the walk reads the disk); a
/// folder that no longer reads keeps the catalog served.
#[cfg(unix)]
async fn reload_on_hangup(live: LiveCatalog, folder: String) -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};

    let mut hangups = signal(SignalKind::hangup())?;
    while hangups.recv().await.is_some() {
        let walked = {
            let folder = folder.clone();
            tokio::task::spawn_blocking(move || Catalog::from_dir(folder)).await
        };
        match walked {
            Ok(Ok(catalog)) => {
                live.replace(catalog);
                eprintln!("reloaded {folder}");
            }
            Ok(Err(errors)) => eprintln!("{folder} not reloaded:\n{errors}"),
            Err(panicked) => eprintln!("{folder} not reloaded: {panicked}"),
        }
    }
    Ok(())
}
