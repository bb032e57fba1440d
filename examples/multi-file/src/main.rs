//! Serves every skill in `examples/skills/`, embedded by `skillpub-build` in `build.rs`: the
//! multi-file `publish-agent-skills` as an archive (with its `references/` and `scripts/`),
//! the others as single `SKILL.md` files.
//!
//! ```sh
//! cargo run -p skillpub-example-multi-file
//! # or on another address:
//! SKILLPUB_ADDR=127.0.0.1:8080 cargo run -p skillpub-example-multi-file
//! ```

use axum::{Router, routing::get};
use skillpub::Catalog;
use skillpub::model::paths::INDEX_PATH;

skillpub::include_skills!();

/// The address to listen on when `SKILLPUB_ADDR` is not set.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `SKILLS`, from `include_skills!`: every skill of the folder, checked when it was embedded
    // at build time; the catalog hashes the embedded bytes and builds no archive at start-up.
    let catalog = Catalog::new(&SKILLS)?;
    let app = Router::new()
        .route(
            "/",
            get(|| async { "An app that publishes a folder of Agent Skills.\n" }),
        )
        .merge(skillpub::web::router(catalog));

    let addr = std::env::var("SKILLPUB_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.to_owned());
    let listener = skillpub::web::serve::bind(addr).await?;
    let local = listener.local_addr()?;
    println!("Agent Skills index: http://{local}{INDEX_PATH}");
    // Header-read and idle timeouts, flood resistance, graceful shutdown on Ctrl-C or SIGTERM.
    skillpub::web::serve(listener, app).await?;
    Ok(())
}
