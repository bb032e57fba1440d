//! Serves every skill in `examples/skills/`, embedded by `skillpub-build` in `build.rs`: the
//! multi-file `publish-agent-skills` as an archive (with its `references/` and `scripts/`),
//! the others as single `SKILL.md` files.
//!
//! ```sh
//! cargo run -p skillpub-example-multi-file
//! # or on another address:
//! SKILLPUB_ADDR=127.0.0.1:8080 cargo run -p skillpub-example-multi-file
//! ```

use std::process::ExitCode;

use axum::{Router, routing::get};
use skillpub::Catalog;
use skillpub::model::INDEX_PATH;

skillpub::include_skills!();

/// The address to listen on when `SKILLPUB_ADDR` is not set.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

#[tokio::main]
async fn main() -> ExitCode {
    let catalog = match Catalog::new(&SKILLS) {
        Ok(catalog) => catalog,
        Err(errors) => {
            eprintln!("{errors}");
            return ExitCode::FAILURE;
        }
    };
    let app = Router::new()
        .route(
            "/",
            get(|| async { "An app that publishes a folder of Agent Skills.\n" }),
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
