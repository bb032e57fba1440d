//! `skillpub`: check a site's Agent Skills like a strict client, lint skill folders, export
//! them as a static tree, serve them locally.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod check;
mod export;
mod lint;
mod serve;

/// Publish-side tools for Agent Skills (agentskills.io, discovery draft 0.2.0).
#[derive(Debug, Parser)]
#[command(name = "skillpub", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a live site's /.well-known/agent-skills/ like a strict client; exit 1 on any failure.
    Check(check::Args),
    /// Validate skill folders (or folders of skill folders); exit 1 on any error.
    Lint(lint::Args),
    /// Write the skills as a static tree under OUT_DIR/.well-known/, with nginx and _headers
    /// configuration, byte-identical to what the router serves.
    Export(export::Args),
    /// Serve a skills folder locally with the same router a Rust service mounts.
    Serve(serve::Args),
}

/// How results are printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One line per result.
    #[default]
    Text,
    /// One JSON document.
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let passed = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Serve(args) => serve::run(&args),
    };
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
