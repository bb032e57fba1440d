//! Credentials for a private catalog: headers sent with every request to the origin (scheme,
//! host and port) of the site being fetched, and to no other.
//!
//! A catalog served only to callers who log in needs its requests to carry an
//! `Authorization` header, a cookie or an API key. Such a header is a secret of the site it
//! was issued by, so [`Credentials`] are bound to one origin when they are made, and the
//! client adds them to a request only when its URL is on that origin:
//!
//! - a redirect to another origin drops them for the rest of its chain (as the Fetch
//!   standard drops `Authorization` on a cross-origin redirect), even when a later hop comes
//!   back: the other origin chose that hop;
//! - an artifact `url` on another origin (an absolute URL in the index, a CDN) and an index
//!   that a page's `Link` names on another origin are fetched without them;
//! - `https://example.com` and `http://example.com` are two origins (a downgrade to plain
//!   HTTP drops them), as are two ports of one host.
//!
//! No value is ever shown: the `Debug` of [`Credentials`], [`Header`] and [`BearerToken`]
//! prints the header names only, `Display` of a token prints `Bearer <redacted>`, and a
//! [`CredentialError`] names the header but never its value.
//!
//! # Example
//!
//! ```
//! use skillpub_client::credentials::{BearerToken, Credentials};
//! use url::Url;
//!
//! let token = BearerToken::new("s3cr3t-t0ken")?;
//! let credentials = Credentials::new(&Url::parse("https://skills.example.com/tenant")?)?
//!     .with_bearer(&token)
//!     .with_header("X-Tenant: acme".parse()?);
//! assert!(credentials.applies_to(&Url::parse("https://skills.example.com/a/SKILL.md")?));
//! assert!(!credentials.applies_to(&Url::parse("https://cdn.example.com/a/SKILL.md")?));
//! assert!(!credentials.applies_to(&Url::parse("http://skills.example.com/a/SKILL.md")?));
//! assert!(!format!("{credentials:?}{token:?}{token}").contains("s3cr3t"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use http::HeaderName;
use url::{Origin, Url};

/// What a redacted value is shown as.
const REDACTED: &str = "<redacted>";

/// Header names that are not credentials: they frame the message or the connection, and a
/// value given by hand would break the request (RFC 9110 7.2, 7.6.1, 8.6, 6.6.2; RFC 9112
/// 6.1). They are refused, with the reason.
const FRAMING: [&str; 9] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
];

/// Why a credential cannot be used. A message names the header (or the environment variable
/// the caller read the token from) and never shows a value.
///
/// # Example
///
/// ```
/// use skillpub_client::credentials::{CredentialError, Header};
///
/// let error = "Authorization Bearer s3cr3t".parse::<Header>().unwrap_err();
/// assert_eq!(error, CredentialError::NoColon);
/// assert!(!error.to_string().contains("s3cr3t"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialError {
    /// The site is not an http or https URL with a host, so it has no origin to bind to.
    #[error("`{0}` has no http or https origin to send credentials to")]
    NoOrigin(String),
    /// A header line without a `:` between name and value.
    #[error(
        "a header is `Name: value`, with a colon after the name; this one has none (its text is not shown, since it may hold a secret)"
    )]
    NoColon,
    /// A header name that is not an HTTP token (RFC 9110 5.1).
    #[error(
        "`{0}` is not a header name: use letters, digits and `!#$%&'*+-.^_`|~`, with no spaces"
    )]
    BadName(String),
    /// A header name with a space in it: most likely the colon after the name is missing, so
    /// the text may be a value, and is not shown.
    #[error(
        "a header name has no spaces; is the colon after the name missing? (the text is not shown, since it may hold a secret)"
    )]
    SpaceInName,
    /// A header value with a control character or a byte outside printable ASCII (RFC 9110
    /// 5.5 allows no control characters; this client sends ASCII only).
    #[error(
        "the value of header `{0}` holds a control character or a non-ASCII byte; use printable ASCII"
    )]
    BadValue(String),
    /// A header that frames the message or the connection, not a credential.
    #[error("header `{0}` frames the request or the connection and cannot be set as a credential")]
    Framing(String),
    /// An empty bearer token.
    #[error("the bearer token is empty")]
    EmptyToken,
    /// A bearer token outside RFC 6750's `b64token` syntax.
    #[error(
        "the bearer token is not a b64token (RFC 6750 2.1): use letters, digits and `-._~+/`, then optional `=` (a trailing newline or a space is a common cause)"
    )]
    BadToken,
}

/// One header to send as a credential: a name and a value, checked once when it is made. Its
/// `Debug` shows the name, never the value.
///
/// It parses from `Name: value`, as `curl -H` and `skillpub check --header` take it; the
/// space around the value is trimmed (RFC 9110 5.5).
///
/// # Example
///
/// ```
/// use skillpub_client::credentials::Header;
///
/// let header: Header = "X-Api-Key:  k-123 ".parse()?;
/// assert_eq!(header.name().as_str(), "x-api-key");
/// assert_eq!(format!("{header:?}"), "Header { name: \"x-api-key\", value: \"<redacted>\" }");
/// assert!("Host: example.com".parse::<Header>().is_err());
/// # Ok::<(), skillpub_client::credentials::CredentialError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Header {
    name: HeaderName,
    value: String,
}

impl Header {
    /// A header with this name and value.
    ///
    /// # Errors
    ///
    /// [`CredentialError::BadName`], [`CredentialError::SpaceInName`],
    /// [`CredentialError::BadValue`] or [`CredentialError::Framing`].
    pub fn new(name: &str, value: &str) -> Result<Self, CredentialError> {
        let name = name.trim();
        if name.contains(char::is_whitespace) {
            return Err(CredentialError::SpaceInName);
        }
        let parsed = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| CredentialError::BadName(name.to_owned()))?;
        if FRAMING.contains(&parsed.as_str()) {
            return Err(CredentialError::Framing(parsed.to_string()));
        }
        let value = value.trim_matches([' ', '\t']);
        if !value
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
        {
            return Err(CredentialError::BadValue(parsed.to_string()));
        }
        Ok(Self {
            name: parsed,
            value: value.to_owned(),
        })
    }

    /// The name, lowercase.
    #[must_use]
    pub fn name(&self) -> &HeaderName {
        &self.name
    }
}

impl FromStr for Header {
    type Err = CredentialError;

    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let (name, value) = line.split_once(':').ok_or(CredentialError::NoColon)?;
        Self::new(name, value)
    }
}

impl fmt::Debug for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Header")
            .field("name", &self.name.as_str())
            .field("value", &REDACTED)
            .finish()
    }
}

/// A bearer token (RFC 6750), sent as `Authorization: Bearer <token>`. Its `Debug` and
/// `Display` never show it.
///
/// # Example
///
/// ```
/// use skillpub_client::credentials::{BearerToken, CredentialError};
///
/// let token = BearerToken::new("abc.DEF-123_~+/==")?;
/// assert_eq!(token.to_string(), "Bearer <redacted>");
/// assert_eq!(format!("{token:?}"), "BearerToken(<redacted>)");
/// assert_eq!(BearerToken::new("two words"), Err(CredentialError::BadToken));
/// assert_eq!(BearerToken::new(""), Err(CredentialError::EmptyToken));
/// # Ok::<(), CredentialError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// A token, checked against RFC 6750's `b64token`:
    /// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
    ///
    /// # Errors
    ///
    /// [`CredentialError::EmptyToken`] or [`CredentialError::BadToken`].
    pub fn new(token: &str) -> Result<Self, CredentialError> {
        if token.is_empty() {
            return Err(CredentialError::EmptyToken);
        }
        let body = token.trim_end_matches('=');
        let allowed = |b: u8| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b);
        if body.is_empty() || !body.bytes().all(allowed) {
            return Err(CredentialError::BadToken);
        }
        Ok(Self(token.to_owned()))
    }

    /// The `Authorization` header that carries it.
    fn header(&self) -> Header {
        Header {
            name: http::header::AUTHORIZATION,
            value: format!("Bearer {}", self.0),
        }
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BearerToken({REDACTED})")
    }
}

impl fmt::Display for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bearer {REDACTED}")
    }
}

/// Headers sent with every request to one origin and to no other; see the
/// [module docs](self). Its `Debug` shows the origin and the header names, never a value.
///
/// # Example
///
/// ```
/// use skillpub_client::credentials::{BearerToken, Credentials};
/// use url::Url;
///
/// let site = Url::parse("https://skills.example.com:8443/tenant")?;
/// let credentials = Credentials::new(&site)?.with_bearer(&BearerToken::new("t0ken")?);
/// assert_eq!(credentials.origin(), "https://skills.example.com:8443");
/// let names: Vec<&str> = credentials.names().map(|name| name.as_str()).collect();
/// assert_eq!(names, ["authorization"]);
/// assert_eq!(
///     format!("{credentials:?}"),
///     "Credentials { origin: \"https://skills.example.com:8443\", headers: [\"authorization\"] }"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    origin: Origin,
    headers: Vec<Header>,
}

impl Credentials {
    /// Credentials for the origin of `site` (its scheme, host and port), with no header yet.
    ///
    /// # Errors
    ///
    /// [`CredentialError::NoOrigin`] when `site` is not an http or https URL with a host.
    pub fn new(site: &Url) -> Result<Self, CredentialError> {
        if !matches!(site.scheme(), "http" | "https") || site.host_str().is_none() {
            return Err(CredentialError::NoOrigin(site.to_string()));
        }
        Ok(Self {
            origin: site.origin(),
            headers: Vec::new(),
        })
    }

    /// Adds a header; one of the same name given before is replaced.
    #[must_use]
    pub fn with_header(mut self, header: Header) -> Self {
        self.headers.retain(|known| known.name != header.name);
        self.headers.push(header);
        self
    }

    /// Adds `Authorization: Bearer <token>`, replacing any `Authorization` given before.
    #[must_use]
    pub fn with_bearer(self, token: &BearerToken) -> Self {
        self.with_header(token.header())
    }

    /// The origin they are sent to, as `scheme://host[:port]`.
    #[must_use]
    pub fn origin(&self) -> String {
        self.origin.ascii_serialization()
    }

    /// The names of the headers, lowercase, in the order given: what a private answer must
    /// name in `Vary`.
    pub fn names(&self) -> impl Iterator<Item = &HeaderName> {
        self.headers.iter().map(Header::name)
    }

    /// Whether there is no header to send.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.headers.is_empty()
    }

    /// Whether a request to `url` carries them: `url` is on their origin.
    #[must_use]
    pub fn applies_to(&self, url: &Url) -> bool {
        url.origin() == self.origin
    }

    /// The headers as `(name, value)`, for a transport.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers
            .iter()
            .map(|header| (header.name.as_str(), header.value.as_str()))
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.names().map(HeaderName::as_str).collect();
        f.debug_struct("Credentials")
            .field("origin", &self.origin())
            .field("headers", &names)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cr3t";

    #[test]
    fn no_error_and_no_debug_shows_a_value() {
        let lines = [
            format!("Authorization Bearer {SECRET}"),
            format!("Authorization Basic user {SECRET}:x"),
            format!("Bad Name: {SECRET}"),
            format!("X-Key: {SECRET}\u{7}"),
            format!("X-Key: {SECRET}\u{e9}"),
            format!("Host: {SECRET}"),
        ];
        for line in &lines {
            let error = line.parse::<Header>().unwrap_err();
            assert!(!error.to_string().contains(SECRET), "{line}: {error}");
            assert!(!format!("{error:?}").contains(SECRET), "{line}: {error:?}");
        }
        for token in [
            format!("{SECRET} x"),
            format!("{SECRET}\n"),
            "==".to_owned(),
        ] {
            let error = BearerToken::new(&token).unwrap_err();
            assert_eq!(error, CredentialError::BadToken, "{token:?}");
        }
        let header: Header = format!("Cookie: session={SECRET}").parse().unwrap();
        let token = BearerToken::new(SECRET).unwrap();
        let site = Url::parse("https://example.com").unwrap();
        let credentials = Credentials::new(&site)
            .unwrap()
            .with_header(header.clone())
            .with_bearer(&token);
        for shown in [
            format!("{header:?}"),
            format!("{token:?}"),
            token.to_string(),
            format!("{credentials:?}"),
            format!("{credentials:#?}"),
        ] {
            assert!(!shown.contains(SECRET), "{shown}");
        }
    }

    #[test]
    fn a_header_is_trimmed_checked_and_replaced_by_name() {
        let header: Header = "  X-Api-Key :\t k 1 \t".parse().unwrap();
        assert_eq!(
            (header.name().as_str(), header.value.as_str()),
            ("x-api-key", "k 1")
        );
        for framing in [
            "Host",
            "content-length",
            "Transfer-Encoding",
            "TE",
            "Upgrade",
        ] {
            let error = Header::new(framing, "x").unwrap_err();
            assert!(matches!(error, CredentialError::Framing(_)), "{framing}");
        }
        let site = Url::parse("http://example.com:8080/a").unwrap();
        let credentials = Credentials::new(&site)
            .unwrap()
            .with_header("Authorization: Basic one".parse().unwrap())
            .with_bearer(&BearerToken::new("two").unwrap());
        let pairs: Vec<_> = credentials.pairs().collect();
        assert_eq!(pairs, [("authorization", "Bearer two")]);
    }

    #[test]
    fn credentials_apply_to_their_origin_only() {
        let site = Url::parse("https://example.com/tenant/").unwrap();
        let credentials = Credentials::new(&site).unwrap();
        for (url, applies) in [
            ("https://example.com/other/SKILL.md", true),
            ("https://EXAMPLE.com:443/x", true),
            ("http://example.com/x", false),
            ("https://example.com:8443/x", false),
            ("https://cdn.example.com/x", false),
            ("https://example.com.evil.test/x", false),
        ] {
            let url = Url::parse(url).unwrap();
            assert_eq!(credentials.applies_to(&url), applies, "{url}");
        }
        for site in ["file:///etc/passwd", "data:text/plain,x"] {
            let site = Url::parse(site).unwrap();
            let error = Credentials::new(&site).unwrap_err();
            assert!(matches!(error, CredentialError::NoOrigin(_)), "{site}");
        }
    }
}
