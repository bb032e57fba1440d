//! Serves the example skills at `/.well-known/agent-skills/` next to a route of the app's own.
//!
//! ```sh
//! cargo run --example basic
//! # or on another address:
//! SKILLPUB_ADDR=127.0.0.1:8080 cargo run --example basic
//! ```

use std::process::ExitCode;

use axum::{Router, routing::get};
use skillpub::model::INDEX_PATH;
use skillpub::{Catalog, Skill};

static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

/// The address to listen on when `SKILLPUB_ADDR` is not set.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

#[tokio::main]
async fn main() -> ExitCode {
    let catalog = match Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD]) {
        Ok(catalog) => catalog,
        Err(errors) => {
            eprintln!("{errors}");
            return ExitCode::FAILURE;
        }
    };
    let app = Router::new()
        .route(
            "/",
            get(|| async { "An app that publishes its Agent Skills.\n" }),
        )
        .merge(skillpub::web::router(catalog));

    let addr = std::env::var("SKILLPUB_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.to_owned());
    let listener = match skillpub::web::serve::bind(&addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("cannot listen on {addr}: {error}; set SKILLPUB_ADDR to a free HOST:PORT");
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(local) => println!("Agent Skills index: http://{local}{INDEX_PATH}"),
        Err(error) => eprintln!("listening, but the address is unknown: {error}"),
    }
    // Header-read and idle timeouts, flood resistance, graceful shutdown on Ctrl-C or SIGTERM.
    if let Err(error) = skillpub::web::serve(listener, app).await {
        eprintln!("server error: {error}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
