//! Signed JSON Web Tokens: three base64url parts, of which the first two decode to JSON
//! objects, the header naming a signing algorithm. An unsigned token (`alg: none`, or no
//! signature), jwt.io's sample and tokens whose claims say they are examples are not
//! credentials; nor is a Supabase `anon` key, which is published by design, as a Stripe
//! publishable key is.

use serde_json::{Map, Value};

use super::credential::Credential;
use super::hit::{Hit, run_from};
use super::placeholder::{contains_ignore_case, regular};

/// The shortest signature read: an HMAC-SHA256 signature is 43 characters.
const MIN_SIGNATURE: usize = 20;

/// The claim values that mark a token as made up, in any letter case; so does a value of
/// counting or filler (`"sub": "1234567890"`).
const EXAMPLES: [&str; 6] = ["example", "john doe", "jane doe", "demo", "test", "sample"];

/// The token whose header is the run `text[start..end]` (which starts with `eyJ`, `{"` in
/// base64).
pub(super) fn token(text: &[u8], start: usize, end: usize) -> Option<Hit> {
    if text.get(end) != Some(&b'.') {
        return None;
    }
    let payload = run_from(text, end + 1);
    if text.get(payload.end) != Some(&b'.') || !text[payload.clone()].starts_with(b"ey") {
        return None;
    }
    let signature = run_from(text, payload.end + 1);
    let signature_text = &text[signature.clone()];
    if signature_text.len() < MIN_SIGNATURE || regular(signature_text) {
        return None;
    }
    let header = object(&text[start..end])?;
    let claims = object(&text[payload])?;
    let algorithm = header.get("alg").and_then(Value::as_str)?;
    let made_up = claims.values().filter_map(Value::as_str).any(|value| {
        let value = value.as_bytes();
        EXAMPLES
            .iter()
            .any(|word| contains_ignore_case(value, word.as_bytes()))
            || (value.len() >= 8 && regular(value))
    });
    let public = claims.get("role").and_then(Value::as_str) == Some("anon");
    if algorithm.eq_ignore_ascii_case("none") || made_up || public {
        return None;
    }
    let shown = format!("eyJ…{} (alg {algorithm})", tail(signature_text));
    Some(Hit::shown(start, signature.end, Credential::Jwt, shown))
}

/// The last four characters of a signature.
fn tail(signature: &[u8]) -> String {
    String::from_utf8_lossy(&signature[signature.len() - 4..]).into_owned()
}

/// The JSON object that `part` is the base64url encoding of.
fn object(part: &[u8]) -> Option<Map<String, Value>> {
    serde_json::from_slice(&base64url(part)?).ok()
}

/// Decodes unpadded base64url (`A-Z a-z 0-9 - _`); `None` for a length no encoding has.
fn base64url(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut bits = 0u32;
    let mut count = 0;
    for &byte in text {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_decodes_without_padding() {
        assert_eq!(base64url(b"eyJhIjoxfQ").unwrap(), br#"{"a":1}"#);
        assert_eq!(base64url(b"").unwrap(), b"");
        assert_eq!(base64url(b"a"), None);
        assert_eq!(base64url(b"ab+c"), None);
    }
}
