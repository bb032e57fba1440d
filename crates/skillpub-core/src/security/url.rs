//! Passwords in URLs and connection strings: `scheme://user:password@host` for the schemes of
//! databases, queues, mail, directories, file transfer and the web. A password that is a
//! variable or a template (`$DB_PASSWORD`, `${…}`, `{{password}}`, `<password>`), a placeholder
//! word or filler, or one for a host that only the machine itself or an example resolves
//! (`localhost`, `db`, `example.com`, `*.test`) is not a finding.

use super::credential::Credential;
use super::hit::Hit;
use super::placeholder::{contains_ignore_case, entropy, has_word, placeholder};

/// The schemes whose URLs carry credentials worth refusing.
const SCHEMES: [&str; 27] = [
    "postgres",
    "postgresql",
    "mysql",
    "mariadb",
    "mongodb",
    "srv",
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

/// Words that make a password a placeholder, beside [`placeholder`]'s.
const PASSWORD_WORDS: [&str; 6] = ["pass", "pwd", "changeit", "admin", "root", "qwerty"];

/// The password of the URL whose scheme is the run `text[start..end]`, followed by `://`.
pub(super) fn password(text: &[u8], start: usize, end: usize) -> Option<Hit> {
    let scheme = &text[start..end];
    let known = SCHEMES
        .iter()
        .any(|name| scheme.eq_ignore_ascii_case(name.as_bytes()));
    if !known || (scheme.eq_ignore_ascii_case(b"srv") && !text[..start].ends_with(b"mongodb+")) {
        return None;
    }
    let user_start = end + 3;
    let user_end = user_start + part(&text[user_start..]);
    if text.get(user_end) != Some(&b':') {
        return None;
    }
    let password_start = user_end + 1;
    let password_end = password_start + part(&text[password_start..]);
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
