//! Serves the example skills at `/.well-known/agent-skills/` next to a route of the app's own.
//!
//! ```sh
//! cargo run --example basic
//! # or on another address:
//! SKILLPUB_ADDR=127.0.0.1:8080 cargo run --example basic
//! ```

use axum::{Router, routing::get};
use skillpub::model::paths::INDEX_PATH;
use skillpub::{Catalog, Skill};

static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

/// The address to listen on when `SKILLPUB_ADDR` is not set.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Every error here prints as a readable message out of `main`: each invalid skill with the
    // file, the field and the fix; an address in use with what to do about it.
    let catalog = Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD])?;
    let app = Router::new()
        .route(
            "/",
            get(|| async { "An app that publishes its Agent Skills.\n" }),
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
