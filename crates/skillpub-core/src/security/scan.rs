//! Two kinds of pass over the bytes, each linear. Every credential that fills a whole run of
//! token characters (ASCII letters, digits, `_` and `-`) is at least [`LONG`] characters long,
//! so the first pass looks only at such long runs, and finds them 64 bytes at a time with a
//! test that compiles to vector instructions; words of prose never reach a format. The
//! credentials that start with a short word (`SG.`, `AccountKey=`, `-----BEGIN`, a URL's
//! scheme, the name an AWS secret key is assigned to) are found by their anchors, each
//! searched for with `memchr`'s `memmem`, and read from there within a bounded number of
//! bytes.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::context;
use super::hit::{Hit, is_token, run_from};
use super::jwt;
use super::pem;
use super::tokens;
use super::url;

/// The start of the run of at most `most` token characters that ends at `end`.
fn run_to(text: &[u8], end: usize, most: usize) -> usize {
    let back = text[..end]
        .iter()
        .rev()
        .take(most + 1)
        .take_while(|&&byte| is_token(byte))
        .count();
    end - back
}

/// Every credential in `text`, in order; of two that overlap (a token inside a URL's
/// password), the first.
pub(super) fn scan(text: &[u8]) -> Vec<Hit> {
    let mut hits = long_runs(text);
    for anchor in ANCHORS.iter() {
        for at in anchor.finder.find_iter(text) {
            hits.extend((anchor.read)(text, at));
        }
    }
    hits.sort_by_key(|hit| (hit.start, std::cmp::Reverse(hit.end)));
    let mut end = 0;
    hits.retain(|hit| {
        let apart = hit.start >= end;
        end = end.max(hit.end);
        apart
    });
    hits
}

/// The shortest credential that fills a run: an AWS access key ID has 20 characters, a JWT
/// header at least 19.
const LONG: usize = 16;

/// Which bytes are token characters, as 0 or 1.
const TOKEN: [u8; 256] = {
    let mut table = [0; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = is_token(byte as u8) as u8;
        byte += 1;
    }
    table
};

/// The credentials that fill a run of at least [`LONG`] token characters.
///
/// Such a run holds at least one whole 8-byte block at an offset that is a multiple of 8, so
/// the pass reads the text 8 bytes at a time, each block's bytes looked up at once and
/// without a branch between them, and reads the run around a block only when the whole block
/// is token characters (in prose, a few blocks in a hundred, inside the longer words).
fn long_runs(text: &[u8]) -> Vec<Hit> {
    let mut hits = Vec::new();
    // Everything before `done` has been read.
    let (mut at, mut done) = (0, 0);
    while at + 8 <= text.len() {
        let block = &text[at..at + 8];
        let all = block
            .iter()
            .fold(1, |all, &byte| all & TOKEN[usize::from(byte)]);
        if all == 0 {
            at += 8;
            continue;
        }
        let floor = done.max(at.saturating_sub(LONG));
        let back = text[floor..at]
            .iter()
            .rev()
            .take_while(|&&byte| is_token(byte))
            .count();
        let (start, end) = (at - back, run_from(text, at).end);
        done = end;
        if end - start >= LONG
            && let Some(hit) = credential(text, start, end)
        {
            done = done.max(hit.end);
            hits.push(hit);
        }
        at = done.next_multiple_of(8);
    }
    hits
}

/// The credential that the long run `text[start..end]` is, or starts.
fn credential(text: &[u8], start: usize, end: usize) -> Option<Hit> {
    let value = &text[start..end];
    if value.starts_with(b"eyJ") {
        return jwt::token(text, start, end);
    }
    if let Some((credential, prefix)) = tokens::token(value) {
        return Some(Hit::new(start, end, credential, prefix, text));
    }
    context::routable(text, start, end)
}

/// A string that marks where a credential may be, and what reads it from there.
struct Anchor {
    finder: Finder<'static>,
    read: fn(&[u8], usize) -> Option<Hit>,
}

/// The longest name an AWS secret key is assigned to, and the longest URL scheme read.
const LONGEST_NAME: usize = 64;

/// Every anchor: its string and its reader, given the offset of the string.
static ANCHORS: LazyLock<[Anchor; 8]> = LazyLock::new(|| {
    let anchor = |needle: &'static str, read| Anchor {
        finder: Finder::new(needle.as_bytes()),
        read,
    };
    [
        anchor("-----BEGIN ", pem::private_key),
        anchor(url::SEPARATORS[0], |text, at| {
            let scheme = run_to(text, at, LONGEST_NAME);
            url::password(text, scheme, at, url::SEPARATORS[0], |end| {
                run_to(text, end, LONGEST_NAME)
            })
        }),
        anchor(url::SEPARATORS[1], |text, at| {
            let scheme = run_to(text, at, LONGEST_NAME);
            url::password(text, scheme, at, url::SEPARATORS[1], |end| {
                run_to(text, end, LONGEST_NAME)
            })
        }),
        anchor("SG.", |text, at| {
            word_at(text, at).then(|| context::sendgrid(text, at))?
        }),
        anchor("AccountKey=", |text, at| {
            word_at(text, at).then(|| context::azure(text, at))?
        }),
        anchor("hooks.slack.com/", |text, at| {
            word_at(text, at).then(|| context::slack_webhook(text, at))?
        }),
        // The names of AWS secret keys: `secret` in one letter case or another.
        anchor("ecret", aws_name),
        anchor("ECRET", aws_name),
    ]
});

/// Whether a word starts at `at`: no token character comes before it.
fn word_at(text: &[u8], at: usize) -> bool {
    at == 0 || !is_token(text[at - 1])
}

/// The AWS secret key assigned to the name around `text[at..]`.
fn aws_name(text: &[u8], at: usize) -> Option<Hit> {
    let start = run_to(text, at, LONGEST_NAME);
    let length = text[at..]
        .iter()
        .take(LONGEST_NAME + 1)
        .take_while(|&&byte| is_token(byte))
        .count();
    context::aws_secret(text, start, at + length)
}
