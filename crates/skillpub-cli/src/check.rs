//! `skillpub check URL`.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use skillpub_client::{CheckOptions, Client, HttpTransport, Limits, Policy, Progress, check};

use crate::Format;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// An origin (`https://example.com`) or an index URL.
    url: String,
    /// Print one JSON report instead of lines.
    #[arg(long)]
    json: bool,
    /// Seconds each request may take, body included (each redirect hop is a request).
    #[arg(long, default_value_t = 15)]
    timeout: u64,
    /// Largest response body accepted, and largest unpacked archive, in bytes.
    #[arg(long, default_value_t = skillpub_client::DEFAULT_MAX_BODY)]
    max_size: u64,
    /// Allow local and private hosts (on by default when the URL itself is on one, such as
    /// `http://127.0.0.1:3000`).
    #[arg(long)]
    allow_private: bool,
}

/// Runs the checks, prints the report, and says whether everything passed.
pub(crate) fn run(args: &Args) -> bool {
    let local_target = url::Url::parse(&args.url)
        .ok()
        .and_then(|url| url.host_str().map(skillpub_core::is_local_host))
        .unwrap_or(false);
    let limits = Limits {
        max_body: args.max_size,
        max_unpacked: args.max_size,
        ..Limits::default()
    };
    let allow_private = args.allow_private || local_target;
    let timeout = Duration::from_secs(args.timeout);
    let transport = if allow_private {
        HttpTransport::allowing_private(timeout)
    } else {
        HttpTransport::new(timeout)
    };
    let policy = Policy {
        allow_private,
        allowlist: None,
    };
    let client = Client::new(transport)
        .with_policy(policy)
        .with_limits(limits);
    let show_progress = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize, url: &str| {
        let mut stderr = std::io::stderr();
        let _ = write!(stderr, "\r\x1b[2Kdownloading {}/{total} {url}", done + 1);
        let _ = stderr.flush();
    };
    let options = CheckOptions {
        progress: show_progress.then_some(&progress as Progress<'_>),
    };
    let report = check(&client, &args.url, &options);
    if show_progress {
        eprint!("\r\x1b[2K");
    }
    let format = if args.json {
        Format::Json
    } else {
        Format::Text
    };
    match format {
        Format::Json => println!("{}", report.to_json()),
        Format::Text => println!("{report}"),
    }
    report.passed()
}
