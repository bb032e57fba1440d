//! Private keys in PEM and OpenSSH form: a `-----BEGIN … PRIVATE KEY-----` line, a body of
//! base64 (possibly after a few RFC 1421 header lines, and possibly with its line ends escaped
//! as `\n` inside a JSON or YAML string), and the matching `-----END` line. A header quoted in
//! prose, a regex that matches one, or a body of `...` is not a key.

use super::credential::Credential;
use super::hit::Hit;
use super::placeholder::entropy_of;

/// How a PEM block begins.
pub(super) const BEGIN: &[u8] = b"-----BEGIN";

/// The longest label read (`SSH2 ENCRYPTED PRIVATE KEY` is 26 characters).
const MAX_LABEL: usize = 40;

/// The longest body read: an 8,192-bit RSA key is about 6.5 KB of base64, a PGP secret key
/// with subkeys some more.
const MAX_BODY: usize = 64 * 1024;

/// The fewest base64 characters of a key's body (an Ed25519 OpenSSH key has about 400).
const MIN_BODY: usize = 64;

/// How many header lines (`Proc-Type:`, `DEK-Info:`, `Comment:`, `Version:`) may open the body.
const MAX_HEADERS: usize = 4;

/// The private key whose `-----BEGIN` is at `begin`, if its body is key material and its
/// `-----END` line matches.
///
/// The body ends at the first byte that is neither base64, white space nor an escaped line
/// end, so no two blocks' bodies overlap but for their few header lines: the scan stays
/// linear.
pub(super) fn private_key(text: &[u8], begin: usize) -> Option<Hit> {
    let after = begin + BEGIN.len();
    let label_start = after + 1;
    if text.get(after) != Some(&b' ') {
        return None;
    }
    let label_length = text[label_start..]
        .iter()
        .take(MAX_LABEL + 1)
        .take_while(|byte| byte.is_ascii_uppercase() || byte.is_ascii_digit() || **byte == b' ')
        .count();
    let label = &text[label_start..label_start + label_length];
    let private = label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK");
    let body_start = label_start + label_length + 5;
    if !private
        || label_length > MAX_LABEL
        || !text[label_start + label_length..].starts_with(b"-----")
    {
        return None;
    }
    let (body_end, counts, lines) = body(text, body_start)?;
    let end = text[body_end..].strip_prefix(b"-----END ")?;
    let closing = end.strip_prefix(label)?.starts_with(b"-----");
    let material: u32 = counts.iter().sum();
    // A body of one or two repeated characters (`AAAA…`) is filler; base64 of key material
    // has about six bits of entropy per character.
    if !closing || (material as usize) < MIN_BODY || entropy_of(&counts) <= 4.0 {
        return None;
    }
    let end = body_end + b"-----END ".len() + label.len() + 5;
    let shown = format!(
        "-----BEGIN {}----- … ({lines} lines of key material)",
        String::from_utf8_lossy(label)
    );
    Some(Hit::shown(begin, end, Credential::PrivateKey, shown))
}

/// Reads a body from `start` to the byte before `-----END`: how many of each base64
/// character it holds, and its lines. `None` when a byte that is not key material comes
/// first, when key material comes before the first line end, or when the body runs past
/// [`MAX_BODY`].
///
/// Header lines are read only at the start of a line and at most [`MAX_HEADERS`] of them, so
/// a line is read by at most that many blocks besides its own.
fn body(text: &[u8], start: usize) -> Option<(usize, [u32; 128], u32)> {
    let mut counts = [0u32; 128];
    let mut lines = 0;
    let mut headers = 0;
    // Whether a line end has been read, whether the last byte read ended a line, and whether
    // the line being read holds key material.
    let (mut broken, mut line_start, mut material) = (false, false, false);
    let mut at = start;
    let limit = text.len().min(start + MAX_BODY);
    while at < limit {
        let byte = text[at];
        if line_start && headers < MAX_HEADERS && header(&text[at..]) {
            headers += 1;
            at += text[at..limit]
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(limit - at);
            continue;
        }
        let line_end = match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' | b'=' => {
                if !broken {
                    return None;
                }
                counts[usize::from(byte)] += 1;
                (material, line_start) = (true, false);
                at += 1;
                false
            }
            b'\n' => {
                at += 1;
                true
            }
            b' ' | b'\t' | b'\r' => {
                at += 1;
                false
            }
            // A line end escaped in a JSON or YAML string: `\n`, `\r`, `\\n`.
            b'\\' => {
                let escaped = text[at + 1..limit]
                    .iter()
                    .take_while(|&&b| b == b'\\')
                    .count();
                let code = text.get(at + 1 + escaped).copied();
                at += escaped + 2;
                match code {
                    Some(b'n') => true,
                    Some(b'r') => false,
                    _ => return None,
                }
            }
            b'-' => return Some((at, counts, lines + u32::from(material))),
            _ => return None,
        };
        if line_end {
            lines += u32::from(material);
            (broken, line_start, material) = (true, true, false);
        }
    }
    None
}

/// Whether `rest` opens an RFC 1421 or OpenPGP armour header line.
fn header(rest: &[u8]) -> bool {
    [&b"Proc-Type:"[..], b"DEK-Info:", b"Comment:", b"Version:"]
        .iter()
        .any(|name| rest.starts_with(name))
}
