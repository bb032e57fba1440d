//! What the commands share in what they print: the output format, how a line reaches standard
//! output, and the hint that points to `--allow-unknown-fields`.

use std::fmt;
use std::io::{self, Write as _};

use clap::ValueEnum;
use skillpub_core::{Error, ErrorKind};

/// How results are printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// One line per result.
    #[default]
    Text,
    /// One JSON document.
    Json,
}

/// A line naming `--allow-unknown-fields` (which `export` and `serve` take) when one of the
/// problems is a field it accepts (the core's message names the library's option); empty
/// otherwise.
pub(crate) fn unknown_fields_hint<'a>(mut errors: impl Iterator<Item = &'a Error>) -> &'static str {
    if errors.any(|error| matches!(error.kind(), ErrorKind::UnknownField)) {
        "\nTo publish fields beyond the Agent Skills ones as they are, pass --allow-unknown-fields."
    } else {
        ""
    }
}

/// Prints a line to standard output, as `println!` does, except that a reader that has gone
/// (`skillpub lint skills/ | head`) is no error: the rest of the output is dropped and the
/// command still ends with its own exit status. Any other write error (a full disk behind a
/// redirection) ends the process with status 2 and says so on standard error.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::write_line(format_args!($($arg)*))
    };
}
pub(crate) use say;

/// The line `say!` formats, written to standard output.
pub(crate) fn write_line(line: fmt::Arguments<'_>) {
    let written = writeln!(io::stdout().lock(), "{line}");
    if let Err(error) = written
        && error.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("skillpub: cannot write to standard output: {error}");
        std::process::exit(2);
    }
}

/// A runtime on the calling thread, for a command that waits on one store at a time; `None`
/// (said on stderr, for `command`) if it cannot start.
pub(crate) fn current_thread(command: &str) -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => Some(runtime),
        Err(error) => {
            eprintln!("skillpub {command}: cannot start: {error}");
            None
        }
    }
}
