//! Passwords in URLs and connection strings: `scheme://user:password@host` for the schemes of
//! databases, queues, mail, directories, file transfer and the web, with a driver after a `+`
//! (SQLAlchemy's `postgresql+psycopg2://`, `mongodb+srv://`) and with the slashes escaped in a
//! JSON string (`postgres:\/\/`). A password that is a variable or a template (`$DB_PASSWORD`,
//! `${…}`, `{{password}}`, `<password>`), a placeholder
//! word or filler, or one for a host that only the machine itself or an example resolves
//! (`localhost`, `db`, `example.com`, `*.test`) is not a finding.

use super::credential::Credential;
use super::hit::Hit;
use super::placeholder::{contains_ignore_case, entropy, has_word, placeholder};

/// The schemes whose URLs carry credentials worth refusing.
const SCHEMES: [&str; 26] = [
    "postgres",
    "postgresql",
    "mysql",
    "mariadb",
    "mongodb",
    "redis",
    "rediss",
    "amqp",
    "amqps",
    "mssql",
    "sqlserver",
    "oracle",
    "cockroachdb",
    "clickhouse",
    "ftp",
    "ftps",
    "sftp",
    "smtp",
    "smtps",
    "imap",
    "imaps",
    "ldap",
    "ldaps",
    "http",
    "https",
    "ssh",
];

/// The longest user name and password read.
const MAX_PART: usize = 128;

/// The longest host name read.
const MAX_HOST: usize = 253;

/// Words that make a password a placeholder, beside [`placeholder`]'s; `x-oauth-basic` is
/// the fixed password of GitHub's `https://<token>:x-oauth-basic@github.com`, where the
/// token is the user name.
const PASSWORD_WORDS: [&str; 7] = [
    "pass",
    "pwd",
    "changeit",
    "admin",
    "root",
    "qwerty",
    "x-oauth-basic",
];

/// The separators between a scheme and its authority: `://`, and `:\/\/` in a JSON string.
pub(super) const SEPARATORS: [&str; 2] = ["://", ":\\/\\/"];

/// Whether `scheme` is one of [`SCHEMES`].
fn known(scheme: &[u8]) -> bool {
    SCHEMES
        .iter()
        .any(|name| scheme.eq_ignore_ascii_case(name.as_bytes()))
}

/// The password of the URL whose scheme is the run `text[start..end]`, followed by the
/// separator `separator` (one of [`SEPARATORS`]). A run after a `+` is a driver (or
/// `mongodb+srv`'s `srv`): the scheme is then the run before the `+`, and `run_to` gives
/// where a run ending at an offset starts.
pub(super) fn password(
    text: &[u8],
    start: usize,
    end: usize,
    separator: &str,
    run_to: impl Fn(usize) -> usize,
) -> Option<Hit> {
    let plus = start.checked_sub(1).filter(|&at| text[at] == b'+');
    let start = match plus.map(|plus| (run_to(plus), plus)) {
        Some((base, plus)) if base < plus && known(&text[base..plus]) => base,
        _ if known(&text[start..end]) => start,
        _ => return None,
    };
    let scheme = &text[start..end];
    let user_start = end + separator.len();
    let user_end = user_start + part(&text[user_start..]);
    if text.get(user_end) != Some(&b':') {
        return None;
    }
    let password_start = user_end + 1;
    // A `$` starts a variable only at the password's start (`$PW`, `${PW}`); inside, it is
    // one of the password's characters (`Xk9$mQ2p`).
    let password_end = match text.get(password_start) {
        Some(b'$') => return None,
        _ => password_start + part_or_dollar(&text[password_start..]),
    };
    if text.get(password_end) != Some(&b'@') {
        return None;
    }
    let host_start = password_end + 1;
    let host_length = text[host_start..]
        .iter()
        .take(MAX_HOST + 1)
        .take_while(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'_'))
        .count();
    let host = &text[host_start..host_start + host_length];
    let (user, secret) = (
        &text[user_start..user_end],
        &text[password_start..password_end],
    );
    if host_length > MAX_HOST || local(host) || !real_password(secret, user) {
        return None;
    }
    let shown = format!(
        "{}://{}:…@{}",
        String::from_utf8_lossy(scheme),
        String::from_utf8_lossy(user),
        String::from_utf8_lossy(host)
    );
    Some(Hit::shown(
        start,
        host_start + host_length,
        Credential::UrlPassword,
        shown,
    ))
}

/// How many bytes at the start of `rest` make up a password that does not start with `$`:
/// those of [`part`], and `$`.
fn part_or_dollar(rest: &[u8]) -> usize {
    let mut length = 0;
    while length <= MAX_PART {
        let more = part(&rest[length..]);
        length += more;
        if rest.get(length) != Some(&b'$') {
            break;
        }
        length += 1;
    }
    length.min(MAX_PART + 1)
}

/// How many bytes at the start of `rest` make up a user name or a password: letters, digits,
/// RFC 3986's unreserved marks, percent escapes and the sub-delimiters that cannot start a
/// variable or a template (no `$`, `{`, `<`, `[`, quotes or white space), at most
/// [`MAX_PART`] + 1 (one too many to be one).
fn part(rest: &[u8]) -> usize {
    rest.iter()
        .take(MAX_PART + 1)
        .take_while(|byte| {
            byte.is_ascii_alphanumeric()
                || matches!(
                    byte,
                    b'-' | b'.'
                        | b'_'
                        | b'~'
                        | b'%'
                        | b'!'
                        | b'*'
                        | b'+'
                        | b','
                        | b';'
                        | b'='
                        | b'&'
                        | b'^'
                )
        })
        .count()
}

/// Whether `secret` can be a real password: not empty or too long, not a placeholder word,
/// filler or counting, not the user name again (`admin:admin`), and not of too few distinct
/// characters.
fn real_password(secret: &[u8], user: &[u8]) -> bool {
    !secret.is_empty()
        && secret.len() <= MAX_PART
        && secret != user
        && !placeholder(secret)
        && !PASSWORD_WORDS
            .iter()
            .any(|word| contains_ignore_case(secret, word.as_bytes()))
        && entropy(secret) > 2.0
}

/// Whether `host` is one only the machine itself, a local network or a documentation
/// example resolves: a name of one label (`localhost`, `db`, a container's name), a loopback
/// or unspecified address, or a name under a suffix reserved for those.
fn local(host: &[u8]) -> bool {
    const SUFFIXES: [&str; 7] = [
        ".local",
        ".localhost",
        ".test",
        ".example",
        ".invalid",
        ".internal",
        ".lan",
    ];
    const EXAMPLES: [&str; 3] = ["example.com", "example.org", "example.net"];
    let host = host.to_ascii_lowercase();
    let under =
        |name: &str| host == name.as_bytes() || host.ends_with(format!(".{name}").as_bytes());
    !host.contains(&b'.')
        || host.starts_with(b"127.")
        || host == b"0.0.0.0"
        || SUFFIXES
            .iter()
            .any(|suffix| host.ends_with(suffix.as_bytes()))
        || EXAMPLES.iter().any(|name| under(name))
        || has_word(&host)
}
