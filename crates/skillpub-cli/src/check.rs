//! `skillpub check URL`.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use clap::error::ErrorKind;
use skillpub_check::{CheckOptions, Progress, check};
use skillpub_client::credentials::{BearerToken, CredentialError, Credentials, Header};
use skillpub_client::fetch::{DEFAULT_MAX_BODY, MAX_TIMEOUT};
use skillpub_client::{Client, HostPolicy, HttpTransport, Limits};

use crate::output::{Format, say};

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
    /// Send this header with every request to the URL's origin, and to no other (not after a
    /// redirect elsewhere, not to a `Link`-named index or an artifact on another origin);
    /// repeatable. Its value is in the process list: for a token, use `--bearer-env`.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Send `Authorization: Bearer <token>`, the token read from the environment variable
    /// VAR, with every request to the URL's origin and to no other; it never appears in the
    /// process list or the output. Replaces an `Authorization` given with `--header`.
    #[arg(long, value_name = "VAR")]
    bearer_env: Option<String>,
    /// Expect the private policy of every answer from the URL's origin, as a router built
    /// with the private switch serves it, even without credentials. With credentials it is
    /// expected of every answer to a request that carried them.
    #[arg(long)]
    private: bool,
}

/// Runs the checks, prints the report, and says whether everything passed. A malformed
/// `--header`, an unusable `--bearer-env` or a URL with a password is a usage error (exit 2),
/// whose message never shows a value.
pub(crate) fn run(args: &Args) -> bool {
    if url::Url::parse(&args.url).is_ok_and(|url| url.password().is_some()) {
        let message = "invalid value for '<URL>': it holds a password, which the report would \
            print; send it with --header 'Authorization: Basic ...', or a token with --bearer-env\n";
        clap::Error::raw(ErrorKind::ValueValidation, message).exit();
    }
    let credentials = credentials(args, |name| std::env::var_os(name))
        .unwrap_or_else(|message| clap::Error::raw(ErrorKind::ValueValidation, message).exit());
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
    if let Some(credentials) = credentials {
        client = client.with_credentials(credentials);
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
        private: args.private,
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
        Format::Json => say!("{}", report.to_json()),
        Format::Text => say!("{report}"),
    }
    report.passed()
}

/// The credentials of `--header` and `--bearer-env` for the URL's origin (none without
/// either flag, or when the URL is not one: the report says so), the variable read through
/// `var`. The message of an error names the flag and the header or variable, never a value.
fn credentials(
    args: &Args,
    var: impl Fn(&str) -> Option<OsString>,
) -> Result<Option<Credentials>, String> {
    if args.headers.is_empty() && args.bearer_env.is_none() {
        return Ok(None);
    }
    let mut headers = Vec::with_capacity(args.headers.len());
    for line in &args.headers {
        let header = line
            .parse::<Header>()
            .map_err(|error| format!("invalid value for '--header <NAME: VALUE>': {error}\n"))?;
        headers.push(header);
    }
    let token = match &args.bearer_env {
        None => None,
        Some(name) => {
            let problem = |what: &str| format!("--bearer-env {name}: {what}\n");
            let value = var(name).ok_or_else(|| {
                problem(&format!(
                    "the environment variable {name} is not set; export the token in it"
                ))
            })?;
            let value = value.into_string().map_err(|_| {
                problem(&format!(
                    "the environment variable {name} is not valid UTF-8"
                ))
            })?;
            let token = BearerToken::new(&value).map_err(|error| match error {
                CredentialError::EmptyToken => {
                    problem(&format!("the environment variable {name} is empty"))
                }
                error => problem(&format!("the token in {name}: {error}")),
            })?;
            Some(token)
        }
    };
    let Ok(site) = url::Url::parse(&args.url) else {
        return Ok(None);
    };
    let Ok(mut credentials) = Credentials::new(&site) else {
        return Ok(None);
    };
    for header in headers {
        credentials = credentials.with_header(header);
    }
    if let Some(token) = &token {
        credentials = credentials.with_bearer(token);
    }
    Ok(Some(credentials))
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
