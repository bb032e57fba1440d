//! The credentials that are one token: a fixed prefix, a body of a fixed alphabet and length,
//! and a checksum where the format has one. Each reads one run of token characters (ASCII
//! letters, digits, `_` and `-`, see `scan.rs`), whole: a run longer or shorter than the format
//! is some other string. A run holds only those characters, so a body of base64url is any
//! run; the formats of narrower alphabets check theirs.

use super::credential::Credential;
use super::placeholder::{entropy, placeholder, random, regular};

/// A credential that fills a whole run: what it is, and how many of its first bytes are its
/// prefix (shown in the report; the rest is hidden).
pub(super) type Token = (Credential, usize);

/// The credential that `run` is, if it is one.
pub(super) fn token(run: &[u8]) -> Option<Token> {
    match run.first()? {
        b'A' => aws_key_id(run).or_else(|| google(run)).or_else(|| age(run)),
        b'g' => github(run).or_else(|| gitlab(run)),
        b'G' => gitlab_runner(run),
        b'x' => slack(run),
        b's' => stripe(run)
            .or_else(|| anthropic(run))
            .or_else(|| openai(run))
            .or_else(|| shopify(run)),
        b'r' => stripe(run),
        b'n' => npm(run),
        b'p' => pypi(run),
        b'h' | b'a' => hugging_face(run),
        b'd' => digitalocean(run),
        _ => None,
    }
}

fn base62(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
}

fn hex(byte: u8) -> bool {
    byte.is_ascii_hexdigit()
}

fn every(bytes: &[u8], class: fn(u8) -> bool) -> bool {
    bytes.iter().all(|&byte| class(byte))
}

/// `run` with one of `prefixes`, and the body after it.
fn after<'a>(run: &'a [u8], prefixes: &[&str]) -> Option<(&'a [u8], usize)> {
    prefixes.iter().find_map(|prefix| {
        run.strip_prefix(prefix.as_bytes())
            .map(|body| (body, prefix.len()))
    })
}

/// AWS access key IDs: a four-letter prefix of a credential (not `AIDA`, `AROA` and the other
/// unique IDs, which name a user or a role) and 16 upper-case base32 characters; the
/// documentation's keys end in `EXAMPLE`.
fn aws_key_id(run: &[u8]) -> Option<Token> {
    if run.len() != 20 || run.ends_with(b"EXAMPLE") {
        return None;
    }
    let base32 = |byte: u8| byte.is_ascii_uppercase() || (b'2'..=b'7').contains(&byte);
    let prefix = match &run[..4] {
        b"AKIA" | b"ASIA" | b"ABIA" | b"ACCA" => true,
        [b'A', b'3', b'T', fourth] => fourth.is_ascii_uppercase() || fourth.is_ascii_digit(),
        _ => false,
    };
    let body = &run[4..];
    (prefix && every(body, base32) && !placeholder(body) && entropy(run) > 3.0)
        .then_some((Credential::AwsAccessKeyId, 4))
}

/// Google API keys: `AIza` and 35 base64url characters.
fn google(run: &[u8]) -> Option<Token> {
    let (body, prefix) = after(run, &["AIza"])?;
    (body.len() == 35 && !placeholder(body) && entropy(run) > 4.0)
        .then_some((Credential::GoogleApiKey, prefix))
}

/// age secret keys: `AGE-SECRET-KEY-1` and 58 upper-case bech32 characters.
fn age(run: &[u8]) -> Option<Token> {
    const BECH32: &[u8] = b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";
    let (body, prefix) = after(run, &["AGE-SECRET-KEY-1"])?;
    (body.len() == 58 && body.iter().all(|byte| BECH32.contains(byte)) && random(body, 3.0))
        .then_some((Credential::AgeSecretKey, prefix))
}

/// GitHub's tokens: `gh` and a type letter and `_`, then 30 random base62 characters and the
/// CRC-32 of those 30 in six base62 digits, which a made-up token fails; and the fine-grained
/// personal access tokens, `github_pat_` and 22 and 59 base62 characters, which have no
/// published checksum.
fn github(run: &[u8]) -> Option<Token> {
    if let Some((body, prefix)) = after(run, &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) {
        return (body.len() == 36 && every(body, base62) && checksum(body) && !regular(body))
            .then_some((Credential::GitHubToken, prefix));
    }
    let (body, prefix) = after(run, &["github_pat_"])?;
    let fine = body.len() == 82
        && every(&body[..22], base62)
        && body[22] == b'_'
        && every(&body[23..], base62)
        && random(body, 3.0);
    fine.then_some((Credential::GitHubFineGrainedToken, prefix))
}

/// npm's access tokens: `npm_` and the same 30 random characters and CRC-32 as GitHub's.
fn npm(run: &[u8]) -> Option<Token> {
    let (body, prefix) = after(run, &["npm_"])?;
    (body.len() == 36 && every(body, base62) && checksum(body) && !regular(body))
        .then_some((Credential::NpmToken, prefix))
}

/// Whether the last six characters of a 36-character body are the CRC-32 (IEEE) of the first
/// 30, in base62 (`0-9A-Za-z`), most significant digit first.
fn checksum(body: &[u8]) -> bool {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let (random, check) = body.split_at(30);
    let mut crc = u64::from(crc32fast::hash(random));
    let mut encoded = [b'0'; 6];
    for digit in encoded.iter_mut().rev() {
        *digit = DIGITS[(crc % 62) as usize];
        crc /= 62;
    }
    encoded == check
}

/// GitLab's tokens: a `gl…-` prefix and a body of a fixed length (the routable tokens, which
/// go on past a `.`, are read in `context.rs`).
fn gitlab(run: &[u8]) -> Option<Token> {
    const FIXED: [(&str, usize); 9] = [
        ("glpat-", 20),
        ("gldt-", 20),
        ("glrt-", 20),
        ("glft-", 20),
        ("glsoat-", 20),
        ("glffct-", 20),
        ("glimt-", 25),
        ("glagent-", 50),
        ("gloas-", 64),
    ];
    for (prefix, length) in FIXED {
        if let Some(body) = run.strip_prefix(prefix.as_bytes()) {
            return (body.len() == length && random(body, 3.0))
                .then_some((Credential::GitLabToken, prefix.len()));
        }
    }
    if let Some((body, prefix)) = after(run, &["glptt-"]) {
        return (body.len() == 40 && every(body, hex) && random(body, 3.0))
            .then_some((Credential::GitLabToken, prefix));
    }
    let (body, prefix) = after(run, &["glcbt-"])?;
    let split = body.iter().position(|&byte| byte == b'_')?;
    let (id, secret) = (&body[..split], &body[split + 1..]);
    let job = (1..=5).contains(&id.len())
        && every(id, base62)
        && secret.len() == 20
        && random(secret, 3.0);
    job.then_some((Credential::GitLabToken, prefix + split + 1))
}

/// GitLab runner registration tokens: `GR1348941` and 20 or more characters.
fn gitlab_runner(run: &[u8]) -> Option<Token> {
    let (body, prefix) = after(run, &["GR1348941"])?;
    ((20..=64).contains(&body.len()) && random(body, 3.0))
        .then_some((Credential::GitLabToken, prefix))
}

/// Slack's tokens: `xox` and a type letter, groups of digits, then the secret part; and the
/// app-level tokens, `xapp-`, a digit, an ID, digits, then a long secret.
fn slack(run: &[u8]) -> Option<Token> {
    let kind = run.get(3).copied();
    if run.starts_with(b"xox")
        && matches!(kind, Some(b'a' | b'b' | b'e' | b'o' | b'p' | b'r' | b's'))
    {
        let body = run.get(5..).filter(|_| run.get(4) == Some(&b'-'))?;
        let mut parts = body.split(|&byte| byte == b'-');
        let secret = parts.next_back()?;
        let mut groups = 0;
        for group in parts {
            if group.is_empty() || group.len() > 14 || !group.iter().all(u8::is_ascii_digit) {
                return None;
            }
            groups += 1;
        }
        let token = groups >= 1
            && (18..=200).contains(&secret.len())
            && every(secret, base62)
            && random(secret, 3.0);
        return token.then_some((Credential::SlackToken, 5));
    }
    let body = run.strip_prefix(b"xapp-")?;
    let parts: Vec<&[u8]> = body.split(|&byte| byte == b'-').collect();
    let app = parts.len() == 4
        && parts[0].len() == 1
        && parts[0][0].is_ascii_digit()
        && !parts[1].is_empty()
        && every(parts[1], |b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && !parts[2].is_empty()
        && parts[2].iter().all(u8::is_ascii_digit)
        && parts[3].len() >= 32
        && every(parts[3], base62)
        && random(parts[3], 3.0);
    app.then_some((Credential::SlackToken, 5))
}

/// Stripe's live secret and restricted keys (test keys reach test data only, and publishable
/// keys are meant for browsers: neither is refused).
fn stripe(run: &[u8]) -> Option<Token> {
    let (body, prefix) = after(run, &["sk_live_", "rk_live_", "sk_prod_", "rk_prod_"])?;
    ((24..=247).contains(&body.len()) && every(body, base62) && random(body, 3.0))
        .then_some((Credential::StripeLiveKey, prefix))
}

/// OpenAI's keys: `sk-` (`sk-proj-`, `sk-svcacct-`, `sk-admin-`) with the marker `T3BlbkFJ`
/// (base64 of `OpenAI`) and at least 20 characters on each side of it. A `sk-` without the
/// marker belongs to some other service, or to nobody.
fn openai(run: &[u8]) -> Option<Token> {
    const MARKER: &[u8] = b"T3BlbkFJ";
    let body = run.strip_prefix(b"sk-")?;
    let at = body
        .windows(MARKER.len())
        .position(|window| window == MARKER)?;
    let (left, right) = (&body[..at], &body[at + MARKER.len()..]);
    let prefix = ["proj-", "svcacct-", "admin-"]
        .iter()
        .find(|kind| left.starts_with(kind.as_bytes()))
        .map_or(3, |kind| 3 + kind.len());
    let key = left.len() >= 20
        && right.len() >= 20
        && !placeholder(left)
        && !placeholder(right)
        && entropy(body) > 3.0;
    key.then_some((Credential::OpenAiKey, prefix))
}

/// Anthropic's keys: `sk-ant-`, a kind and version (`api03`, `admin01`), `-`, 93 base64url
/// characters and `AA`.
fn anthropic(run: &[u8]) -> Option<Token> {
    let body = run.strip_prefix(b"sk-ant-")?;
    let dash = body.iter().position(|&byte| byte == b'-')?;
    let (kind, key) = (&body[..dash], &body[dash + 1..]);
    let letters = kind
        .iter()
        .take_while(|byte| byte.is_ascii_lowercase())
        .count();
    let kind_ok = (1..=8).contains(&letters)
        && kind.len() == letters + 2
        && kind[letters..].iter().all(u8::is_ascii_digit);
    let key_ok = key.len() == 95 && key.ends_with(b"AA") && !placeholder(&key[..93]);
    (kind_ok && key_ok).then_some((Credential::AnthropicKey, 7 + dash + 1))
}

/// Shopify's access tokens and shared secrets: a prefix and 32 hexadecimal digits.
fn shopify(run: &[u8]) -> Option<Token> {
    let (body, prefix) = after(run, &["shpat_", "shpca_", "shppa_", "shpss_"])?;
    (body.len() == 32 && every(body, hex) && random(body, 3.0))
        .then_some((Credential::ShopifyToken, prefix))
}

/// PyPI's tokens: `pypi-` and a macaroon whose header names pypi.org (or test.pypi.org).
fn pypi(run: &[u8]) -> Option<Token> {
    let (body, prefix) = after(
        run,
        &["pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"],
    )?;
    (body.len() >= 50 && random(body, 3.0)).then_some((Credential::PyPiToken, prefix))
}

/// Hugging Face's tokens: `hf_` (or `api_org_`) and 34 letters of both cases.
fn hugging_face(run: &[u8]) -> Option<Token> {
    let (body, prefix) = after(run, &["hf_", "api_org_"])?;
    let token = body.len() == 34
        && every(body, |byte| byte.is_ascii_alphabetic())
        && body.iter().any(u8::is_ascii_uppercase)
        && body.iter().any(u8::is_ascii_lowercase)
        && random(body, 3.0);
    token.then_some((Credential::HuggingFaceToken, prefix))
}

/// DigitalOcean's tokens: a prefix and 64 lower-case hexadecimal digits.
fn digitalocean(run: &[u8]) -> Option<Token> {
    let (body, prefix) = after(run, &["dop_v1_", "doo_v1_", "dor_v1_"])?;
    let lower_hex = |byte: u8| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte);
    (body.len() == 64 && every(body, lower_hex) && random(body, 3.0))
        .then_some((Credential::DigitalOceanToken, prefix))
}
