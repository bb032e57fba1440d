//! Serves the example skills at `/.well-known/agent-skills/` and over MCP at `/mcp`, from one
//! catalog: the same bytes and digests on both. Over MCP, hosts with the skills extension
//! (SEP-2640) call `skills/list`; every other host finds each skill as a prompt, through the
//! tools `list_skills`, `load_skill` and `read_skill_file`, and in a catalog summary in the
//! server's instructions.
//!
//! ```sh
//! cargo run --example mcp --features mcp
//! # or on another address:
//! SKILLPUB_ADDR=127.0.0.1:8080 cargo run --example mcp --features mcp
//! ```

use axum::Router;
use skillpub::Catalog;
use skillpub::mcp::{HttpOptions, McpSkills};
use skillpub::model::paths::INDEX_PATH;

/// The address to listen on when `SKILLPUB_ADDR` is not set.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");
    let catalog = Catalog::from_dir(skills)?;
    // The folder walk skips hidden files and folders without a SKILL.md; say so.
    for skipped in catalog.skipped() {
        eprintln!("warning: {skipped}");
    }
    let mcp = McpSkills::builder(catalog.clone())
        .prompts(true)
        .tools(true)
        .instructions(true)
        .build()?
        .streamable_http_service(HttpOptions::default())?;
    let app = Router::new()
        .merge(skillpub::web::router(catalog))
        .nest_service("/mcp", mcp);

    let addr = std::env::var("SKILLPUB_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.to_owned());
    let listener = skillpub::web::serve::bind(addr).await?;
    let local = listener.local_addr()?;
    println!("Agent Skills index: http://{local}{INDEX_PATH}");
    println!("MCP endpoint: http://{local}/mcp");
    // Header-read and idle timeouts, flood resistance, graceful shutdown on Ctrl-C or SIGTERM.
    skillpub::web::serve(listener, app).await?;
    Ok(())
}
