//! The credentials that go on past their first run of token characters (`SG.` and two more
//! parts, a routable GitLab token's `.` and checksum, a Slack webhook's path, an Azure
//! `AccountKey=`) or that only their name makes one (an AWS secret access key is 40 base64
//! characters like any other). Each reads a bounded number of bytes from where `scan.rs`
//! found its anchor.

use std::ops::Range;

use super::credential::Credential;
use super::hit::{Hit, run_from};
use super::placeholder::{contains_ignore_case, placeholder, random};

/// The routable GitLab token that starts with the long run `text[start..end]`, if any.
pub(super) fn routable(text: &[u8], start: usize, end: usize) -> Option<Hit> {
    let run = &text[start..end];
    (text.get(end) == Some(&b'.') && run.starts_with(b"glpat-"))
        .then(|| gitlab_routable(text, start, end))?
}

/// SendGrid's keys: `SG.` (at `start`), 22 characters, `.`, 43 characters.
pub(super) fn sendgrid(text: &[u8], start: usize) -> Option<Hit> {
    let end = start + 2;
    let first = run_from(text, end + 1);
    let second = run_from(text, first.end + 1);
    let key = first.len() == 22
        && text.get(first.end) == Some(&b'.')
        && second.len() == 43
        && random(&text[first.start..second.end], 3.0);
    key.then(|| Hit::new(start, second.end, Credential::SendGridKey, 3, text))
}

/// Azure storage account keys: `AccountKey=` (at `start`) and 88 base64 characters (64
/// bytes), other than the Azurite emulator's development key, which is published.
pub(super) fn azure(text: &[u8], start: usize) -> Option<Hit> {
    let end = start + b"AccountKey".len();
    const AZURITE: &[u8] = b"Eby8vdM02xNOcqFlqUwJ";
    let value = end + 1;
    let length = text[value..]
        .iter()
        .take(89)
        .take_while(|&&byte| base64(byte) || byte == b'=')
        .count();
    let key = &text[value..value + length];
    let valid =
        length == 88 && key.ends_with(b"==") && !key.starts_with(AZURITE) && random(key, 4.0);
    valid.then(|| Hit::new(start, value + length, Credential::AzureStorageKey, 11, text))
}

/// GitLab's routable tokens: `glpat-`, 27 to 300 base64url characters, `.`, then two and seven
/// lower-case base36 characters (a version, and a CRC-32).
fn gitlab_routable(text: &[u8], start: usize, end: usize) -> Option<Hit> {
    let body = &text[start + 6..end];
    let tail = run_from(text, end + 1);
    let base36 = |byte: &u8| byte.is_ascii_lowercase() || byte.is_ascii_digit();
    let token = (27..=300).contains(&body.len())
        && tail.len() == 9
        && text[tail.clone()].iter().all(base36)
        && random(body, 4.0);
    token.then(|| Hit::new(start, tail.end, Credential::GitLabToken, 6, text))
}

/// Slack's incoming webhooks: `hooks.slack.com/services/` (at `start`), a workspace ID, a
/// channel ID and a 24-character secret; `/workflows/` and `/triggers/` URLs, 43 to 56
/// characters of base64 in any number of segments.
pub(super) fn slack_webhook(text: &[u8], start: usize) -> Option<Hit> {
    let kind = run_from(text, start + b"hooks.slack.com/".len());
    if text.get(kind.end) != Some(&b'/') {
        return None;
    }
    let path = kind.end + 1;
    let hook = match &text[kind.clone()] {
        b"services" => services(text, path),
        b"workflows" | b"triggers" => {
            let length = text[path..]
                .iter()
                .take(57)
                .take_while(|&&byte| base64(byte))
                .count();
            let tail = &text[path..path + length];
            let last = tail.rsplit(|&byte| byte == b'/').next().unwrap_or_default();
            ((43..=56).contains(&length) && random(last, 3.0)).then_some(path + length)
        }
        _ => None,
    }?;
    Some(Hit::new(
        start,
        hook,
        Credential::SlackWebhook,
        path - start,
        text,
    ))
}

/// The end of `T…/B…/secret` at `at`, the path of a `services` webhook.
fn services(text: &[u8], at: usize) -> Option<usize> {
    let workspace = run_from(text, at);
    let channel = run_from(text, workspace.end + 1);
    let secret = run_from(text, channel.end + 1);
    let id = |run: &Range<usize>, letter: u8| {
        let id = &text[run.clone()];
        id.first() == Some(&letter)
            && (9..=13).contains(&id.len())
            && id
                .iter()
                .all(|byte| byte.is_ascii_uppercase() || byte.is_ascii_digit())
            && !placeholder(&id[1..])
    };
    let secret_text = &text[secret.clone()];
    let hook = id(&workspace, b'T')
        && text.get(workspace.end) == Some(&b'/')
        && id(&channel, b'B')
        && text.get(channel.end) == Some(&b'/')
        && secret_text.len() == 24
        && secret_text.iter().all(u8::is_ascii_alphanumeric)
        && random(secret_text, 3.0);
    hook.then_some(secret.end)
}

fn base64(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'+' || byte == b'/'
}

/// How far an assignment may sit from its name: quotes, spaces and the operator.
const ASSIGNMENT: usize = 8;

/// AWS secret access keys: 40 base64 characters of both letter cases and digits, assigned to
/// a name that says so (`aws_secret_access_key`, `AWS_SECRET_KEY`, `SecretAccessKey`), other
/// than the documentation's (ending in `EXAMPLEKEY`).
pub(super) fn aws_secret(text: &[u8], start: usize, end: usize) -> Option<Hit> {
    let value = assigned(text, end)?;
    let name = &text[start..end];
    if !(9..=64).contains(&name.len()) || !secret_name(name) {
        return None;
    }
    let length = text[value..]
        .iter()
        .take(41)
        .take_while(|&&byte| base64(byte))
        .count();
    let key = &text[value..value + length];
    let terminated = text.get(value + length) != Some(&b'=');
    let valid = length == 40
        && terminated
        && key.iter().any(u8::is_ascii_uppercase)
        && key.iter().any(u8::is_ascii_lowercase)
        && key.iter().any(u8::is_ascii_digit)
        && !key.ends_with(b"EXAMPLEKEY")
        && random(key, 4.0);
    valid.then(|| {
        Hit::new(
            value,
            value + length,
            Credential::AwsSecretAccessKey,
            0,
            text,
        )
    })
}

/// Whether a name says it holds an AWS secret key: with `_` and `-` removed, it holds
/// `secretaccesskey`, or both `aws` and `secret`.
fn secret_name(name: &[u8]) -> bool {
    let mut squeezed = [0u8; 64];
    let mut length = 0;
    for &byte in name.iter().filter(|&&byte| byte != b'_' && byte != b'-') {
        squeezed[length] = byte;
        length += 1;
    }
    let name = &squeezed[..length];
    contains_ignore_case(name, b"secretaccesskey")
        || (contains_ignore_case(name, b"aws") && contains_ignore_case(name, b"secret"))
}

/// Where the value assigned to the name ending at `end` starts: after an optional closing
/// quote, white space, `=`, `:`, `:=` or `=>`, white space and an optional opening quote.
fn assigned(text: &[u8], end: usize) -> Option<usize> {
    let window = &text[end..text.len().min(end + ASSIGNMENT)];
    let mut at = 0;
    let skip = |at: &mut usize, set: &[u8]| {
        while window.get(*at).is_some_and(|byte| set.contains(byte)) {
            *at += 1;
        }
    };
    skip(&mut at, b"\"'`");
    skip(&mut at, b" \t");
    let operator = at;
    skip(&mut at, b"=:>");
    if at == operator || at - operator > 2 {
        return None;
    }
    skip(&mut at, b" \t");
    skip(&mut at, b"\"'`");
    let value = end + at;
    text.get(value)
        .is_some_and(|&byte| base64(byte))
        .then_some(value)
}
