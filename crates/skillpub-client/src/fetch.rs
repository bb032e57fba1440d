//! Fetching: the transport a client or a check runs on, the limits every request obeys, and
//! what a fetch returns.

use std::io::Read;
use std::time::{Duration, Instant};

use http::{HeaderMap, Method, StatusCode};
use skillpub_core::{Digest, media::essence};
use url::Url;

use crate::credentials::Credentials;
use crate::source::SourceError;

/// Default cap on one response body, after any `Content-Encoding` is removed: 50 MiB.
pub const DEFAULT_MAX_BODY: u64 = 50 * 1024 * 1024;
/// Default cap on the total size of an unpacked archive: 50 MiB.
pub const DEFAULT_MAX_UNPACKED: u64 = 50 * 1024 * 1024;
/// Default cap on the number of files in an archive.
pub const DEFAULT_MAX_FILES: usize = 1_000;
/// Default timeout of one request (each redirect hop is one request).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// Most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 10;
/// Longest timeout or time limit honoured (about 136 years): longer ones, `Duration::MAX`
/// included, are cut to it, so that adding one to the clock cannot overflow.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(u32::MAX as u64);
/// The `Accept-Encoding` a client sends: every coding it removes, as Node's `fetch` sends.
pub const ACCEPT_ENCODING: &str = "gzip, deflate, br";
/// Most content codings removed from one body (`Content-Encoding: gzip, br` is two).
pub const MAX_CODINGS: usize = 2;

/// Limits on what a fetch may cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest response body accepted (default [`DEFAULT_MAX_BODY`]).
    pub max_body: u64,
    /// Largest unpacked archive accepted (default [`DEFAULT_MAX_UNPACKED`]).
    pub max_unpacked: u64,
    /// Most entries accepted in an archive (default [`DEFAULT_MAX_FILES`]).
    pub max_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body: DEFAULT_MAX_BODY,
            max_unpacked: DEFAULT_MAX_UNPACKED,
            max_files: DEFAULT_MAX_FILES,
        }
    }
}

/// A response as a strict client uses it: the body is complete, within the limit, and any
/// `Content-Encoding` has been removed, so it is the representation the digest covers.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The URL that answered, after redirects.
    pub url: Url,
    /// The status.
    pub status: StatusCode,
    /// The headers, as sent (including `Content-Encoding` if there was one).
    pub headers: HeaderMap,
    /// The body, decoded (empty for `HEAD`).
    pub body: Vec<u8>,
    /// The SHA-256 of the body as it came over the wire, when a content coding was removed;
    /// `None` when `body` is as sent. See [`wire_digest`](Self::wire_digest).
    pub encoded_digest: Option<Digest>,
    /// Whether the request that got this answer (the last hop) carried the client's
    /// [`Credentials`]: an answer of the private view, which must never be `public`.
    pub credentialed: bool,
}

impl Fetched {
    /// The content codings the server applied, lowercased and in order, `identity` left out
    /// (it is no coding): empty when the body came as it is.
    ///
    /// # Example
    ///
    /// ```
    /// use http::{HeaderMap, HeaderValue, StatusCode};
    /// use skillpub_client::Fetched;
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("content-encoding", HeaderValue::from_static("identity"));
    /// let fetched = Fetched {
    ///     url: "https://example.com/".parse().unwrap(),
    ///     status: StatusCode::OK,
    ///     headers,
    ///     body: Vec::new(),
    ///     encoded_digest: None,
    ///     credentialed: false,
    /// };
    /// assert!(fetched.codings().is_empty());
    /// ```
    #[must_use]
    pub fn codings(&self) -> Vec<String> {
        codings(&self.headers)
    }

    /// The SHA-256 of the body as it came over the wire, before any content coding was
    /// removed: two answers under one strong `ETag` must have the same.
    ///
    /// # Example
    ///
    /// ```
    /// use http::{HeaderMap, StatusCode};
    /// use skillpub_client::Fetched;
    /// use skillpub_core::Digest;
    ///
    /// let fetched = Fetched {
    ///     url: "https://example.com/".parse().unwrap(),
    ///     status: StatusCode::OK,
    ///     headers: HeaderMap::new(),
    ///     body: b"abc".to_vec(),
    ///     encoded_digest: None,
    ///     credentialed: false,
    /// };
    /// assert_eq!(fetched.wire_digest(), Digest::of(b"abc"));
    /// ```
    #[must_use]
    pub fn wire_digest(&self) -> Digest {
        self.encoded_digest
            .unwrap_or_else(|| Digest::of(&self.body))
    }

    /// A header as text, when present and printable.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The media type without parameters, lowercased (`text/markdown` for
    /// `text/markdown; charset=utf-8`).
    #[must_use]
    pub fn media_type(&self) -> Option<String> {
        let value = self.header("content-type")?;
        Some(essence(value).to_ascii_lowercase())
    }
}

/// Why a request produced no usable response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL is not `http` or `https`.
    #[error("`{0}` is not an http or https URL")]
    Scheme(String),
    /// The host is local or private and such hosts are not allowed.
    #[error("`{0}` is on a local or private host; allow private hosts to fetch it")]
    PrivateHost(String),
    /// The host's name resolves only to local or private addresses, and such hosts are not
    /// allowed: an internal name, or DNS rebinding.
    #[error(
        "`{url}`: {host} resolves only to local or private addresses, which are not allowed; allow private hosts to fetch it"
    )]
    PrivateAddress {
        /// The URL.
        url: String,
        /// The host name.
        host: String,
    },
    /// The origin is not in the allowlist.
    #[error("`{0}` is not on an allowed origin")]
    NotAllowed(String),
    /// More redirects than allowed, or a loop.
    #[error(
        "`{url}` redirects more than {MAX_REDIRECTS} times (last to `{last}`); fix the redirect chain"
    )]
    TooManyRedirects {
        /// The first URL.
        url: String,
        /// The last location.
        last: String,
    },
    /// A redirect without a usable `Location`.
    #[error("`{0}` redirects without a valid Location header")]
    BadRedirect(String),
    /// The body is larger than the limit.
    #[error(
        "`{url}` sent more than {limit} bytes; raise the limit if the file is meant to be that large"
    )]
    TooLarge {
        /// The URL.
        url: String,
        /// The limit.
        limit: u64,
    },
    /// No answer in time.
    #[error("`{0}` did not answer in time")]
    Timeout(String),
    /// The deadline of the call or the run passed before the answer was complete.
    #[error("`{0}` was not complete before the deadline; allow more time")]
    Deadline(String),
    /// A `Content-Encoding` the client does not remove, or more codings than
    /// [`MAX_CODINGS`].
    #[error("`{url}` uses Content-Encoding `{encoding}`, which this client does not decode")]
    Encoding {
        /// The URL.
        url: String,
        /// The encoding.
        encoding: String,
    },
    /// A content-coded body that does not decode.
    #[error("`{url}` sent a corrupt {encoding} body: {error}")]
    CorruptEncoding {
        /// The URL.
        url: String,
        /// The coding that failed.
        encoding: String,
        /// What the decoder said.
        #[source]
        error: SourceError,
    },
    /// Anything else on the way: DNS, TCP, TLS, HTTP framing.
    #[error("`{url}` could not be fetched: {error}")]
    Transport {
        /// The URL.
        url: String,
        /// What the HTTP stack said.
        #[source]
        error: SourceError,
    },
}

/// One answer as a transport returns it: status, headers, and the body as sent.
pub type RawAnswer = (StatusCode, HeaderMap, Vec<u8>);

/// How requests reach a server: over HTTP with `HttpTransport` (feature `http`), or in process
/// with `ServiceTransport` (feature `tower`).
///
/// A transport sends exactly one request and does not follow redirects; [`send`] does.
pub trait Transport {
    /// Sends one request and returns the raw answer: status, headers and the body as sent
    /// (at most `limit` bytes; more is [`FetchError::TooLarge`]), complete before `deadline`
    /// when there is one (after it, [`FetchError::Deadline`]).
    ///
    /// # Errors
    ///
    /// Anything that stops the request from completing.
    fn send_once(
        &self,
        method: &Method,
        url: &Url,
        headers: &[(&str, &str)],
        limit: u64,
        deadline: Option<Instant>,
    ) -> Result<RawAnswer, FetchError>;
}

/// The time left before `deadline`, or [`FetchError::Deadline`] for `url` when none is.
///
/// # Errors
///
/// [`FetchError::Deadline`] when the deadline has passed.
pub(crate) fn time_left(deadline: Instant, url: &Url) -> Result<Duration, FetchError> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(FetchError::Deadline(url.to_string()));
    }
    Ok(left)
}

/// Who may be fetched from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostPolicy {
    /// Whether local and private hosts may be fetched (default `false`).
    pub allow_private: bool,
    /// When set, only these origins (`https://example.com`) may be fetched, redirects included.
    /// They are compared as origins: `https://Example.com:443` is `https://example.com`.
    pub allowlist: Option<Vec<String>>,
}

impl HostPolicy {
    /// Checks a URL against the policy.
    ///
    /// # Errors
    ///
    /// [`FetchError::Scheme`], [`FetchError::PrivateHost`] or [`FetchError::NotAllowed`].
    pub fn permit(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Scheme(url.to_string()));
        }
        let host = url.host_str().unwrap_or_default();
        if !self.allow_private && skillpub_core::origin::is_local_host(host) {
            return Err(FetchError::PrivateHost(url.to_string()));
        }
        if let Some(allowlist) = &self.allowlist {
            let origin = url.origin();
            let allowed = allowlist
                .iter()
                .filter_map(|allowed| Url::parse(allowed).ok())
                .any(|allowed| allowed.origin() == origin);
            if !allowed {
                return Err(FetchError::NotAllowed(url.to_string()));
            }
        }
        Ok(())
    }
}

/// Sends a request, following up to [`MAX_REDIRECTS`] redirects (each hop checked against
/// `policy`), all of it before `deadline` when there is one, and removes any
/// `Content-Encoding` from the body within `limits.max_body`.
///
/// # Errors
///
/// See [`FetchError`].
pub fn send(
    transport: &impl Transport,
    policy: &HostPolicy,
    limits: &Limits,
    method: &Method,
    url: &Url,
    headers: &[(&str, &str)],
    deadline: Option<Instant>,
) -> Result<Fetched, FetchError> {
    let request = Outgoing {
        method,
        url,
        headers,
        credentials: None,
    };
    send_as(transport, policy, limits, &request, deadline)
}

/// One request as [`send_as`] takes it: what [`send`] takes, and the credentials to add
/// while the request stays on their origin.
pub(crate) struct Outgoing<'a> {
    pub(crate) method: &'a Method,
    pub(crate) url: &'a Url,
    pub(crate) headers: &'a [(&'a str, &'a str)],
    pub(crate) credentials: Option<&'a Credentials>,
}

/// [`send`], with credentials added to each hop while the chain stays on their origin: from
/// the first hop on another origin they are dropped for good, since that origin chose where
/// the chain goes next. A header of the request with a credential's name gives way to the
/// credential.
pub(crate) fn send_as(
    transport: &impl Transport,
    policy: &HostPolicy,
    limits: &Limits,
    request: &Outgoing<'_>,
    deadline: Option<Instant>,
) -> Result<Fetched, FetchError> {
    let (method, url) = (request.method, request.url);
    let mut credentials = request.credentials;
    let mut current = url.clone();
    for _ in 0..=MAX_REDIRECTS {
        policy.permit(&current)?;
        if let Some(deadline) = deadline {
            time_left(deadline, &current)?;
        }
        credentials = credentials.filter(|credentials| credentials.applies_to(&current));
        let headers: Vec<(&str, &str)> = match credentials {
            None => request.headers.to_vec(),
            Some(credentials) => request
                .headers
                .iter()
                .copied()
                .filter(|(name, _)| {
                    !credentials
                        .names()
                        .any(|own| own.as_str().eq_ignore_ascii_case(name))
                })
                .chain(credentials.pairs())
                .collect(),
        };
        let (status, response_headers, body) =
            transport.send_once(method, &current, &headers, limits.max_body, deadline)?;
        if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
            let location = response_headers
                .get(http::header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .ok_or_else(|| FetchError::BadRedirect(current.to_string()))?;
            current = current
                .join(location)
                .map_err(|_| FetchError::BadRedirect(current.to_string()))?;
            continue;
        }
        // A HEAD, 204 or 304 answer has no body to decode, whatever its Content-Encoding says.
        let bodiless = method == Method::HEAD
            || matches!(status, StatusCode::NO_CONTENT | StatusCode::NOT_MODIFIED)
            || body.is_empty();
        let coded = !bodiless && !codings(&response_headers).is_empty();
        let encoded_digest = coded.then(|| Digest::of(&body));
        let body = if coded {
            decode(&current, &response_headers, body, limits.max_body)?
        } else {
            body
        };
        return Ok(Fetched {
            url: current,
            status,
            headers: response_headers,
            body,
            encoded_digest,
            credentialed: credentials.is_some(),
        });
    }
    Err(FetchError::TooManyRedirects {
        url: url.to_string(),
        last: current.to_string(),
    })
}

/// The codings of a `Content-Encoding` header, lowercased, in the order they were applied,
/// without `identity`.
fn codings(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(http::header::CONTENT_ENCODING)
        .iter()
        .flat_map(|value| value.to_str().unwrap_or("?").split(','))
        .map(|coding| coding.trim().to_ascii_lowercase())
        .filter(|coding| !coding.is_empty() && coding != "identity")
        .collect()
}

/// Removes every content coding (`gzip` or `x-gzip`, `deflate`, `br`), last applied first,
/// each output bounded by `limit`; `identity` is nothing to remove.
fn decode(
    url: &Url,
    headers: &HeaderMap,
    body: Vec<u8>,
    limit: u64,
) -> Result<Vec<u8>, FetchError> {
    let codings = codings(headers);
    if codings.len() > MAX_CODINGS {
        return Err(FetchError::Encoding {
            url: url.to_string(),
            encoding: codings.join(", "),
        });
    }
    codings.into_iter().rev().try_fold(body, |body, coding| {
        let reader: Box<dyn Read + '_> = match coding.as_str() {
            "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(&body[..])),
            // RFC 9110 says zlib; some servers send raw deflate, which browsers accept too.
            "deflate" if is_zlib(&body) => Box::new(flate2::read::ZlibDecoder::new(&body[..])),
            "deflate" => Box::new(flate2::read::DeflateDecoder::new(&body[..])),
            "br" => Box::new(brotli_decompressor::Decompressor::new(&body[..], 4096)),
            _ => {
                return Err(FetchError::Encoding {
                    url: url.to_string(),
                    encoding: coding,
                });
            }
        };
        read_limited(reader, limit).map_err(|error| match error {
            Limited::Over => FetchError::TooLarge {
                url: url.to_string(),
                limit,
            },
            Limited::Io(error) => FetchError::CorruptEncoding {
                url: url.to_string(),
                encoding: coding,
                error: SourceError::new(error),
            },
        })
    })
}

/// Whether a body starts with a zlib header (RFC 1950: deflate method, check bits).
fn is_zlib(body: &[u8]) -> bool {
    match body {
        [cmf, flg, ..] => cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0,
        _ => false,
    }
}

/// Why [`read_limited`] stopped.
pub(crate) enum Limited {
    /// More than the limit.
    Over,
    /// A read error.
    Io(std::io::Error),
}

/// Reads at most `limit` bytes; one more is an error, so a bomb stops at the limit.
pub(crate) fn read_limited(reader: impl Read, limit: u64) -> Result<Vec<u8>, Limited> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Limited::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Limited::Over);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"---\nname: a\ndescription: d\n---\nSome text, some text, some text.\n";

    fn headers(encoding: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            http::header::CONTENT_ENCODING,
            encoding.parse().expect("a header value"),
        );
        headers
    }

    fn url() -> Url {
        Url::parse("https://example.com/a/SKILL.md").expect("a URL")
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).expect("in memory");
        encoder.finish().expect("in memory")
    }

    fn brotli(bytes: &[u8]) -> Vec<u8> {
        let mut encoded = Vec::new();
        let mut encoder = brotli::CompressorWriter::new(&mut encoded, 4096, 5, 22);
        encoder.write_all(bytes).expect("in memory");
        drop(encoder);
        encoded
    }

    #[test]
    fn every_accepted_coding_is_removed() {
        let deflate = |zlib: bool| {
            let mut out = Vec::new();
            if zlib {
                let mut e = flate2::write::ZlibEncoder::new(&mut out, flate2::Compression::fast());
                e.write_all(TEXT).expect("in memory");
                e.finish().expect("in memory");
            } else {
                let mut e =
                    flate2::write::DeflateEncoder::new(&mut out, flate2::Compression::fast());
                e.write_all(TEXT).expect("in memory");
                e.finish().expect("in memory");
            }
            out
        };
        for (encoding, body) in [
            ("gzip", gzip(TEXT)),
            ("x-gzip", gzip(TEXT)),
            ("br", brotli(TEXT)),
            ("deflate", deflate(true)),
            ("deflate", deflate(false)),
            ("identity", TEXT.to_vec()),
            ("Identity, BR", brotli(TEXT)),
            ("gzip, br", brotli(&gzip(TEXT))),
        ] {
            let decoded = decode(&url(), &headers(encoding), body, 1 << 20);
            assert_eq!(decoded.as_deref(), Ok(TEXT), "{encoding}");
        }
    }

    #[test]
    fn a_brotli_bomb_stops_at_the_limit() {
        let zeros = vec![0_u8; 4 << 20];
        let bomb = brotli(&zeros);
        assert!(bomb.len() < 1000, "{}", bomb.len());
        assert_eq!(
            decode(&url(), &headers("br"), bomb, 1 << 20),
            Err(FetchError::TooLarge {
                url: url().to_string(),
                limit: 1 << 20
            })
        );
    }

    #[test]
    fn a_corrupt_body_keeps_the_decoder_error_as_its_source() {
        let error = decode(
            &url(),
            &headers("gzip"),
            b"\x1f\x8bnot gzip".to_vec(),
            1 << 20,
        )
        .unwrap_err();
        assert!(
            matches!(&error, FetchError::CorruptEncoding { encoding, .. } if encoding == "gzip"),
            "{error}"
        );
        let source = std::error::Error::source(&error)
            .and_then(|source| source.downcast_ref::<SourceError>())
            .and_then(SourceError::downcast_ref::<std::io::Error>);
        assert!(source.is_some(), "{error:?}");
    }

    #[test]
    fn unknown_and_too_many_codings_are_refused() {
        for encoding in ["zstd", "gzip, gzip, gzip", "compress"] {
            let result = decode(&url(), &headers(encoding), b"x".to_vec(), 1 << 20);
            assert!(
                matches!(result, Err(FetchError::Encoding { .. })),
                "{encoding}: {result:?}"
            );
        }
    }
}
