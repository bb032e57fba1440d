//! The helpers every skillpub test shares, written once: scratch folders, servers on
//! 127.0.0.1, a raw HTTP/1.1 client, running the `skillpub` binary and other processes, nginx,
//! Node.js, and the one rule for tests whose tool is missing.
//!
//! This crate is not published. Every crate of the workspace may list it under
//! `[dev-dependencies]` (as `skillpub-testkit = { workspace = true }`) and never under
//! `[dependencies]`: it has no version, so `cargo package` leaves it out of the published
//! manifests, and a published crate's tests that use it are left out of its package.
//!
//! # What is here
//!
//! | Need | Helper |
//! | --- | --- |
//! | A folder for one test, removed at the end | [`Scratch`] (with [`Scratch::write`], [`Scratch::folder`]) |
//! | An axum app on a free port of 127.0.0.1 | [`serve`] |
//! | A server that misbehaves on purpose (silent, slow, malformed) | [`serve_raw`] |
//! | One request as bytes on the wire, and the answer as received | [`request`], [`request_with_body`], [`request_blocking`], [`Response`] |
//! | GET and HEAD alike on the wire | [`get_and_head`] |
//! | Keep-alive connections, timeouts, partial reads | [`send_get`], [`read_response`], [`finish_response`], [`closed_within`], [`still_open`] |
//! | The bytes behind a `Content-Encoding` | [`decode`] |
//! | The skill names of an index answer | [`Response::skill_names`] |
//! | The `skillpub` binary, blocking or in a tokio test | [`Cli`], [`Outcome`] |
//! | A child process stopped at the end; a server that prints its URL | [`Running`], [`Running::announced`], [`Announced`] |
//! | A demo binary on a free port (`SKILLPUB_ADDR=127.0.0.1:0`), with the URL it printed | [`Running::demo`] |
//! | A binary cargo built for another package or an example | [`built_binary`] |
//! | nginx: found, configured, reloaded, stopped with its workers | [`nginx_or_skip`], [`Nginx`], [`free_port`] |
//! | nginx as a shared cache in front of an origin, counting what reaches the origin | [`Edge`], [`Freshness`] |
//! | Node.js's `npx` | [`npx_or_skip`] |
//! | The npm `skills` installer, and its installed files against the served bytes | [`SkillsCli`], [`Installed`] |
//! | A tool that is missing: one line, or a failure in CI | [`skip_or_fail`], [`REQUIRE_EXTERNAL`], [`find_program`] |
//! | The proptest settings of every property test | [`property_config`] |
//! | Real Rust and Markdown text for a benchmark, or megabytes of varied text | [`rust_and_markdown_files`], [`varied_markdown`] |
//!
//! Helpers panic with a message that says what went wrong: they are for tests, where a panic
//! is a failure with its reason. Everything a helper starts is stopped when the value that
//! holds it is dropped, so a failing test leaves no process or folder behind.
//!
//! # Example
//!
//! A router served over real TCP and read as bytes, as `tests/http_tcp.rs` does:
//!
//! ```
//! use axum::{Router, routing::get};
//! use skillpub_testkit::{get_and_head, serve};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let app = Router::new().route("/hello.txt", get(|| async { "hello" }));
//! let addr = serve(app).await;
//! let get = get_and_head(addr, "/hello.txt", &[]).await;
//! assert_eq!(get.status, 200);
//! assert_eq!(get.header("content-type"), Some("text/plain; charset=utf-8"));
//! assert_eq!(get.body, b"hello");
//! # });
//! ```
//!
//! # Tools besides Rust
//!
//! `cargo test --workspace` passes with Rust alone. A test that needs nginx or Node.js asks
//! for it with [`nginx_or_skip`] or [`npx_or_skip`] and returns when it gets `None`: the helper
//! printed one line saying what is missing and how to install it. With
//! `SKILLPUB_REQUIRE_EXTERNAL=1` (as in `.ci/run`) the helper fails the test instead. A test
//! for another tool finds it with [`find_program`] and calls [`skip_or_fail`] the same way.

#[cfg(unix)]
mod chromium;
mod cli;
mod edge;
mod external;
mod nginx;
mod node;
mod process;
mod property;
mod s3;
mod scratch;
mod server;
mod skills_cli;
mod sources;
mod wire;

#[cfg(unix)]
pub use chromium::headless_dom;
pub use cli::{Cli, Outcome};
pub use edge::{Edge, Freshness};
pub use external::{REQUIRE_EXTERNAL, find_program, skip_or_fail};
pub use nginx::{NGINX_PLACES, Nginx, free_port, nginx_or_skip};
pub use node::npx_or_skip;
pub use process::{Announced, Running, built_binary};
pub use property::property_config;
pub use s3::{S3Server, s3_server_or_skip};
pub use scratch::Scratch;
pub use server::{Seen, serve, serve_raw, serve_recording};
pub use skills_cli::{Installed, SkillsCli};
pub use sources::{rust_and_markdown_files, varied_markdown};
pub use wire::{
    ANSWER_WITHIN, Response, closed_within, decode, finish_response, get_and_head, read_response,
    request, request_blocking, request_with_body, send_get, still_open,
};
