//! `skillpub check URL`.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use skillpub_check::{CheckOptions, Progress, check};
use skillpub_client::fetch::{DEFAULT_MAX_BODY, MAX_TIMEOUT};
use skillpub_client::{Client, HostPolicy, HttpTransport, Limits};

use crate::output::Format;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// An origin (`https://example.com`), an origin with the path the skills are mounted under
    /// (`https://example.com/tenant`), a page whose `Link` names the index
    /// (`https://example.com/docs`), or an index URL (a path ending in `.json`).
    url: String,
    /// Read the URL as a page, whatever its path: follow its `Link` with `rel="agent-skills"`
    /// and compare it with the origin's well-known index. Without it, a URL with a path is a
    /// page only when its answer has such a `Link`, and a path prefix otherwise.
    #[arg(long)]
    page: bool,
    /// Print one JSON report instead of lines; each check has its stable `code`.
    #[arg(long)]
    json: bool,
    /// Seconds each request may take, body included (each redirect hop is a request).
    #[arg(long, value_name = "SECONDS", default_value = "15", value_parser = seconds)]
    timeout: Duration,
    /// Seconds the whole run may take, every request, the unpacking and the authoring advice
    /// included; checks not done by then fail.
    #[arg(long, value_name = "SECONDS", default_value = "120", value_parser = seconds)]
    max_time: Duration,
    /// Largest response body accepted, and largest unpacked archive, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY, value_parser = bytes)]
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
        .and_then(|url| url.host_str().map(skillpub_core::origin::is_local_host))
        .unwrap_or(false);
    let limits = Limits {
        max_body: args.max_size,
        max_unpacked: args.max_size,
        ..Limits::default()
    };
    let allow_private = args.allow_private || local_target;
    let deadline = Instant::now().checked_add(args.max_time);
    let transport = if allow_private {
        HttpTransport::allowing_private(args.timeout)
    } else {
        HttpTransport::new(args.timeout)
    };
    let policy = HostPolicy {
        allow_private,
        allowlist: None,
    };
    let mut client = Client::new(transport)
        .with_policy(policy)
        .with_limits(limits);
    if let Some(deadline) = deadline {
        client = client.with_deadline(deadline);
    }
    let show_progress = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize, url: &str| {
        let mut stderr = std::io::stderr();
        let _ = write!(stderr, "\r\x1b[2Kdownloading {}/{total} {url}", done + 1);
        let _ = stderr.flush();
    };
    let options = CheckOptions {
        progress: show_progress.then_some(&progress as Progress<'_>),
        page: args.page,
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

/// A whole number of seconds, at least 1; more than [`MAX_TIMEOUT`] (about 136 years) is
/// taken as that.
fn seconds(text: &str) -> Result<Duration, String> {
    match whole_number(text)? {
        0 => Err("0 seconds would stop every request at once; give at least 1".to_owned()),
        seconds => Ok(Duration::from_secs(seconds).min(MAX_TIMEOUT)),
    }
}

/// A whole number of bytes; more than `u64::MAX` is taken as that.
fn bytes(text: &str) -> Result<u64, String> {
    whole_number(text)
}

/// A whole number, saturated at `u64::MAX`.
fn whole_number(text: &str) -> Result<u64, String> {
    let digits = text.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{text}` is not a whole number"));
    }
    Ok(digits.parse().unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_saturate_and_nonsense_is_refused() {
        assert_eq!(seconds("15"), Ok(Duration::from_secs(15)));
        assert_eq!(seconds("18446744073709551615"), Ok(MAX_TIMEOUT));
        assert_eq!(seconds("99999999999999999999999999"), Ok(MAX_TIMEOUT));
        assert!(seconds("0").unwrap_err().contains("at least 1"));
        for bad in ["", "-1", "1.5", "ten", "+3"] {
            assert!(
                seconds(bad).unwrap_err().contains("not a whole number"),
                "{bad}"
            );
        }
        assert_eq!(bytes("99999999999999999999999999"), Ok(u64::MAX));
        assert_eq!(bytes("0"), Ok(0));
    }
}
