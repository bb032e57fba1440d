//! What the commands share in what they print: the output format, and the hint that points to
//! `--allow-unknown-fields`.

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
