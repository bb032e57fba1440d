//! The media types of a request, read as rmcp reads them, so that the endpoint and the
//! transport never disagree on what a request accepts or carries: `Accept` is a list whose
//! entries (and their parameters) may hold delimiters inside quoted strings, and an entry
//! weighted `q=0` is not accepted; `Content-Type` is the first header's essence.

use http::{HeaderMap, header};
use rmcp::transport::common::http_header::{EVENT_STREAM_MIME_TYPE, JSON_MIME_TYPE};

/// Whether the request's `Accept` accepts `media` (an essence such as `text/event-stream`).
pub(crate) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| unquoted_pieces(value, ','))
        .filter(|entry| !weighs_zero(entry))
        .any(|entry| essence_of(entry).eq_ignore_ascii_case(media))
}

/// Whether the (first) `Content-Type` of `headers` is `media`.
pub(crate) fn content_type_is(headers: &HeaderMap, media: &str) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| skillpub_core::media::essence(value).eq_ignore_ascii_case(media))
}

/// Whether a `POST` carries JSON and accepts both kinds of answer, as the transport requires:
/// rmcp refuses any other with `406` or `415` before it reads the body.
pub(crate) fn is_json_post(headers: &HeaderMap) -> bool {
    accepts(headers, JSON_MIME_TYPE)
        && accepts(headers, EVENT_STREAM_MIME_TYPE)
        && content_type_is(headers, JSON_MIME_TYPE)
}

/// Whether `headers` (of a response) say its body is an event stream.
pub(crate) fn is_event_stream(headers: &HeaderMap) -> bool {
    content_type_is(headers, EVENT_STREAM_MIME_TYPE)
}

/// The media range of an `Accept` entry, without its parameters.
fn essence_of(entry: &str) -> &str {
    unquoted_pieces(entry, ';')
        .next()
        .unwrap_or_default()
        .trim()
}

/// Whether an `Accept` entry has a weight of exactly zero (`q=0`, `q=0.0`, up to three
/// zeros after the point). A weight that breaks RFC 9110's grammar is ignored, not read as
/// zero, so that a client that spells it oddly is still served.
fn weighs_zero(entry: &str) -> bool {
    unquoted_pieces(entry, ';').skip(1).any(|parameter| {
        let Some((name, value)) = parameter.split_once('=') else {
            return false;
        };
        if !name.trim().eq_ignore_ascii_case("q") {
            return false;
        }
        let (whole, fraction) = value.trim().split_once('.').unwrap_or((value.trim(), ""));
        whole == "0" && fraction.len() <= 3 && fraction.bytes().all(|digit| digit == b'0')
    })
}

/// The pieces of `text` between the `delimiter`s that are not inside a quoted string (where
/// a backslash escapes the next character).
fn unquoted_pieces(text: &str, delimiter: char) -> impl Iterator<Item = &str> {
    let (mut quoted, mut escaped) = (false, false);
    text.split(move |character| {
        if escaped {
            escaped = false;
            return false;
        }
        match character {
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            _ => return !quoted && character == delimiter,
        }
        false
    })
}

#[cfg(test)]
mod tests;
