//! `skillpub`: check a site's Agent Skills like a strict client, lint skill folders, export
//! them as a static tree, serve them locally.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;
mod export;
mod lint;
mod new;
mod output;
mod prune;
mod serve;

/// What `skillpub`, `skillpub -h` and `skillpub --help` print above the usage: every command,
/// one line each, so that a first run without arguments shows what the tool does.
const ABOUT: &str = "\
Publish and check Agent Skills (agentskills.io, discovery draft 0.2.0).

  skillpub check https://example.com   check a live site like a strict client
  skillpub lint skills/                validate skill folders before they are published
  skillpub new order-status            start a skill: frontmatter and the five sections to fill in
  skillpub export skills/ public/      write them as a static tree for nginx or a CDN
  skillpub serve skills/ --watch       serve them locally, rebuilt as files change
  skillpub prune s3://bucket/skills    remove what replaced generations left in a store";

/// The `skillpub` command line.
#[derive(Debug, Parser)]
#[command(name = "skillpub", version, about = ABOUT, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a live site's /.well-known/agent-skills/ like a strict client; exit 1 on any failure.
    Check(check::Args),
    /// Validate skill folders (or folders of skill folders) and give authoring advice; exit 1
    /// on any error (or warning, with --deny-warnings).
    Lint(lint::Args),
    /// Create NAME/SKILL.md with valid frontmatter and the five sections of a website skill.
    New(new::Args),
    /// Write the skills as a static tree under OUT_DIR/.well-known/, with nginx and _headers
    /// configuration, byte-identical to what the router serves.
    Export(export::Args),
    /// Serve a skills folder locally with the same router a Rust service mounts.
    Serve(serve::Args),
    /// Remove from a replicas' store (or an export to object storage) the files that only
    /// generations replaced longer than --keep-for ago name.
    Prune(prune::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let passed = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::New(args) => new::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Prune(args) => prune::run(&args),
    };
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    use super::Cli;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn running_without_arguments_shows_every_command_with_an_example() {
        let error = Cli::command()
            .try_get_matches_from(["skillpub"])
            .unwrap_err();
        assert_eq!(
            error.kind(),
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        );
        let help = error.render().to_string();
        for line in [
            "skillpub check https://example.com",
            "skillpub lint skills/",
            "skillpub new order-status",
            "skillpub export skills/ public/",
            "skillpub serve skills/ --watch",
            "skillpub prune s3://bucket/skills",
        ] {
            assert!(help.contains(line), "`{line}` is missing from:\n{help}");
        }
    }

    #[test]
    fn long_help_shows_the_same_commands() {
        let help = Cli::command().render_long_help().to_string();
        for command in ["check", "lint", "new", "export", "serve", "prune"] {
            assert!(
                help.contains(&format!("  skillpub {command} ")),
                "`skillpub {command}` is missing from:\n{help}"
            );
        }
    }
}
