//! The private policy: what every answer of a view for callers with credentials carries
//! ([`Private`], checked once into [`Rules`]), and the CORS headers each such answer gets
//! from the request's `Origin`.
//!
//! RFC 9111 (3.5) lets a shared cache reuse an answer to a request with `Authorization` only
//! when the answer says `public`, `s-maxage` or `must-revalidate`; a private view says none of
//! them, and says `private` (or `no-store`) besides, so no shared cache keeps it at all.
//! Browsers refuse `Access-Control-Allow-Origin: *` together with credentials (Fetch,
//! "CORS check"), so a private answer names the request's origin when it is allowed, and
//! nothing otherwise: the browser then withholds the answer from the page.

use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_ORIGIN, AUTHORIZATION, COOKIE,
    HeaderName, ORIGIN,
};
use http::{HeaderMap, HeaderValue};

/// Default `Cache-Control` of a private view's index, canonical paths and preflights (`200`,
/// `304`, `204`): only the caller's own cache may store them, and it must ask the origin
/// before each use, as [`DEFAULT_CACHE_CONTROL`](crate::DEFAULT_CACHE_CONTROL) says for every
/// cache.
///
/// # Example
///
/// ```
/// assert_eq!(skillpub_axum::PRIVATE_CACHE_CONTROL, "private, no-cache, no-transform");
/// ```
pub const PRIVATE_CACHE_CONTROL: &str = "private, no-cache, no-transform";

/// Default `Cache-Control` of a private view's addressed paths (`200`, `304`): the bytes
/// never change, so the caller's own cache may keep them for a year.
///
/// # Example
///
/// ```
/// assert_eq!(
///     skillpub_axum::PRIVATE_ADDRESSED_CACHE_CONTROL,
///     "private, max-age=31536000, immutable, no-transform",
/// );
/// ```
pub const PRIVATE_ADDRESSED_CACHE_CONTROL: &str =
    "private, max-age=31536000, immutable, no-transform";

/// Default `Cache-Control` of a private view's errors and of the `401` and `403` a
/// [`RefusalLayer`](crate::RefusalLayer) passes: stored by no cache, since a cached refusal
/// would outlive a login and a cached `404` a grant.
///
/// # Example
///
/// ```
/// assert_eq!(skillpub_axum::PRIVATE_ERROR_CACHE_CONTROL, "private, no-store");
/// ```
pub const PRIVATE_ERROR_CACHE_CONTROL: &str = "private, no-store";

/// Default `WWW-Authenticate` challenge of a `401` (RFC 9110, 11.6.1 and 15.5.2, which
/// requires one; RFC 6750 for `Bearer`).
///
/// # Example
///
/// ```
/// assert_eq!(skillpub_axum::DEFAULT_CHALLENGE, "Bearer realm=\"agent-skills\"");
/// ```
pub const DEFAULT_CHALLENGE: &str = "Bearer realm=\"agent-skills\"";

/// Default credential headers: the ones a private view's answers vary on, and that its
/// preflight allows a page to send (`Cookie` is never sent by a page's script, so only
/// `Authorization` is listed there).
///
/// # Example
///
/// ```
/// assert_eq!(skillpub_axum::DEFAULT_CREDENTIAL_HEADERS, ["Authorization", "Cookie"]);
/// ```
pub const DEFAULT_CREDENTIAL_HEADERS: [&str; 2] = ["Authorization", "Cookie"];

/// The settings of the private policy: which browser origins may send credentials, which
/// headers carry credentials, the challenge of a `401`, and how long a private answer may be
/// kept (by the caller's own cache only). Given to
/// [`RouterBuilder::private`](crate::RouterBuilder::private) and to
/// [`RefusalLayer::new`](crate::RefusalLayer::new); checked when the router is built.
///
/// # Example
///
/// ```
/// use http::HeaderValue;
/// use skillpub_axum::Private;
///
/// let private = Private::new()
///     .allow_origins(["https://app.example.com", "http://localhost:5173"])
///     .challenge(HeaderValue::from_static("Bearer realm=\"staff\""))
///     .cache_control(HeaderValue::from_static("private, max-age=60"));
/// assert!(private.check().is_ok());
/// let leaky = Private::new().cache_control(HeaderValue::from_static("public, max-age=60"));
/// assert!(leaky.check().unwrap_err().to_string().contains("`public`"));
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Private {
    origins: Vec<String>,
    credential_headers: Vec<HeaderName>,
    challenge: HeaderValue,
    cache_control: HeaderValue,
    addressed_cache_control: HeaderValue,
    error_cache_control: HeaderValue,
}

impl Default for Private {
    fn default() -> Self {
        Self {
            origins: Vec::new(),
            credential_headers: vec![AUTHORIZATION, COOKIE],
            challenge: HeaderValue::from_static(DEFAULT_CHALLENGE),
            cache_control: HeaderValue::from_static(PRIVATE_CACHE_CONTROL),
            addressed_cache_control: HeaderValue::from_static(PRIVATE_ADDRESSED_CACHE_CONTROL),
            error_cache_control: HeaderValue::from_static(PRIVATE_ERROR_CACHE_CONTROL),
        }
    }
}

impl Private {
    /// The defaults: no browser origin may send credentials, the credential headers are
    /// [`DEFAULT_CREDENTIAL_HEADERS`], the challenge is [`DEFAULT_CHALLENGE`], and the
    /// `Cache-Control` values are [`PRIVATE_CACHE_CONTROL`],
    /// [`PRIVATE_ADDRESSED_CACHE_CONTROL`] and [`PRIVATE_ERROR_CACHE_CONTROL`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The browser origins whose pages may read a private answer (`https://app.example.com`,
    /// `http://127.0.0.1:8080`: a scheme, a host and an optional port, nothing after),
    /// replacing the list. A request from one of them gets
    /// `Access-Control-Allow-Origin: <that origin>` and
    /// `Access-Control-Allow-Credentials: true`; a request from any other origin gets no
    /// `Access-Control-Allow-Origin` from a private view, so the browser keeps the answer
    /// from the page. Default: none. Compared in ASCII lowercase; `*` and `null` are refused,
    /// since any page could then read what its visitor's credentials unlock.
    pub fn allow_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The headers that carry credentials, replacing the list (default
    /// [`DEFAULT_CREDENTIAL_HEADERS`]): every answer of a router with private views varies on
    /// them, and a preflight allows a page to send them (all but `Cookie`). At least one.
    pub fn credential_headers(mut self, names: impl IntoIterator<Item = HeaderName>) -> Self {
        self.credential_headers = names.into_iter().collect();
        self
    }

    /// The `WWW-Authenticate` a [`RefusalLayer`](crate::RefusalLayer) gives a `401` that has
    /// none (default [`DEFAULT_CHALLENGE`]).
    pub fn challenge(mut self, challenge: HeaderValue) -> Self {
        self.challenge = challenge;
        self
    }

    /// `Cache-Control` of a private view's `200`, `304` and preflight answers at every path
    /// but the addressed ones (default [`PRIVATE_CACHE_CONTROL`]). It must say `private` or
    /// `no-store`, and never `public`, `s-maxage` or `must-revalidate`, each of which lets a
    /// shared cache reuse an answer to a request with `Authorization` (RFC 9111, 3.5).
    pub fn cache_control(mut self, value: HeaderValue) -> Self {
        self.cache_control = value;
        self
    }

    /// `Cache-Control` of a private view's `200` and `304` at the addressed paths (default
    /// [`PRIVATE_ADDRESSED_CACHE_CONTROL`]); the same rule as
    /// [`cache_control`](Self::cache_control).
    pub fn addressed_cache_control(mut self, value: HeaderValue) -> Self {
        self.addressed_cache_control = value;
        self
    }

    /// `Cache-Control` of a private view's errors and of the refusals a
    /// [`RefusalLayer`](crate::RefusalLayer) passes (default
    /// [`PRIVATE_ERROR_CACHE_CONTROL`]); the same rule as
    /// [`cache_control`](Self::cache_control).
    pub fn error_cache_control(mut self, value: HeaderValue) -> Self {
        self.error_cache_control = value;
        self
    }

    /// Checks every setting, as [`RouterBuilder::try_build`](crate::RouterBuilder::try_build)
    /// and [`RefusalLayer::new`](crate::RefusalLayer::new) do.
    ///
    /// # Errors
    ///
    /// An origin that is not `scheme://host[:port]`, or is `*` or `null`; no credential
    /// header; a `Cache-Control` value that says `public`, `s-maxage` or `must-revalidate`,
    /// or says neither `private` nor `no-store`.
    pub fn check(&self) -> Result<(), PrivateError> {
        self.rules().map(drop)
    }

    /// The settings, checked, as answers use them.
    pub(crate) fn rules(&self) -> Result<Rules, PrivateError> {
        let origins = self
            .origins
            .iter()
            .map(|origin| parse_origin(origin))
            .collect::<Result<Vec<_>, _>>()?;
        if self.credential_headers.is_empty() {
            return Err(PrivateError::NoCredentialHeader);
        }
        for (knob, value) in [
            ("cache_control", &self.cache_control),
            ("addressed_cache_control", &self.addressed_cache_control),
            ("error_cache_control", &self.error_cache_control),
        ] {
            check_private(knob, value)?;
        }
        let names: Vec<String> = self.credential_headers.iter().map(header_case).collect();
        let sendable: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|name| *name != "Cookie")
            .collect();
        let invalid = |_| PrivateError::NoCredentialHeader;
        Ok(Rules {
            origins,
            vary: Vary::of(&names.join(", ")).map_err(invalid)?,
            sendable: sendable.join(", "),
            challenge: self.challenge.clone(),
            cache_control: self.cache_control.clone(),
            addressed_cache_control: self.addressed_cache_control.clone(),
            error_cache_control: self.error_cache_control.clone(),
        })
    }
}

/// A setting of [`Private`] that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PrivateError {
    /// An allowed origin that no browser sends.
    #[error(
        "`{0}` is not an origin a browser sends: give `scheme://host` or `scheme://host:port` (such as `https://app.example.com`), without a path or a trailing `/`; `*` and `null` are refused, since any page could then read what credentials unlock"
    )]
    Origin(String),
    /// No credential header.
    #[error(
        "no credential header: name at least one (the default is `Authorization` and `Cookie`), since a router with private views varies on them"
    )]
    NoCredentialHeader,
    /// A `Cache-Control` value that lets a shared cache keep a private answer.
    #[error(
        "`{knob}` of the private policy is `{value}`, which {why}: a shared cache could hand one caller's answer to the next; use `private` (as in `private, no-cache`) or `no-store`"
    )]
    CacheControl {
        /// The setting.
        knob: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A `Cache-Control` value given to [`RouterBuilder`](crate::RouterBuilder) for a router
    /// whose every view is private.
    #[error(
        "`{0}` of `RouterBuilder` is for public views, and this router has none: set it on `Private` instead"
    )]
    PublicKnob(&'static str),
    /// A shared store ([`RouterBuilder::store`](crate::RouterBuilder::store)) on a router
    /// with private or per-caller views: the store would serve any addressed artifact to
    /// anyone who names its digest, whatever view they are allowed.
    #[error(
        "a shared store serves every addressed artifact it holds to anyone who asks for it, so it is for a router of one public catalog (`RouterBuilder::new` or `RouterBuilder::live`, without `private`): remove `store`, or serve the private and per-caller views from a router of their own"
    )]
    StoreBesideViews,
}

/// `value` as a `Cache-Control` of the private policy, or why not. `private` and `no-store`
/// count only without an argument: `private="Set-Cookie"` keeps the named fields out of a
/// shared cache and lets it store the rest (RFC 9111 5.2.2.7).
fn check_private(knob: &'static str, value: &HeaderValue) -> Result<(), PrivateError> {
    let text = value.to_str().unwrap_or_default();
    let directives = directives(text);
    let has = |name: &str| directives.iter().any(|(d, _)| d == name);
    let bare = |name: &str| directives.iter().any(|(d, argued)| d == name && !argued);
    let why = if has("public") {
        Some("says `public`")
    } else if has("s-maxage") {
        Some("says `s-maxage`")
    } else if has("must-revalidate") {
        Some("says `must-revalidate`")
    } else if !bare("private") && !bare("no-store") {
        Some("says neither `private` nor `no-store` without an argument")
    } else {
        None
    };
    match why {
        Some(why) => Err(PrivateError::CacheControl {
            knob,
            value: text.to_owned(),
            why,
        }),
        None => Ok(()),
    }
}

/// The directives of a `Cache-Control` value, each its lowercase name and whether it has an
/// argument; a comma inside a quoted argument separates nothing.
fn directives(text: &str) -> Vec<(String, bool)> {
    let mut directives = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (at, character) in text.char_indices().chain([(text.len(), ',')]) {
        match character {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                let directive = &text[start..at];
                let (name, argued) = match directive.split_once('=') {
                    Some((name, _)) => (name, true),
                    None => (directive, false),
                };
                directives.push((name.trim().to_ascii_lowercase(), argued));
                start = at + 1;
            }
            _ => {}
        }
    }
    directives
}

/// An allowed origin in the form browsers send it: lowercase `scheme://host[:port]`.
fn parse_origin(given: &str) -> Result<HeaderValue, PrivateError> {
    let refuse = || PrivateError::Origin(given.to_owned());
    let lower = given.to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://").ok_or_else(refuse)?;
    let scheme_ok = !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    let host_ok = !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]_".contains(&b))
        && !rest.starts_with(':')
        && !rest.ends_with(':');
    if !scheme_ok || !host_ok {
        return Err(refuse());
    }
    // Browsers leave the scheme's default port out of `Origin`; so does the allow-list, or
    // `https://app.example.com:443` would never match.
    let default_port = match scheme {
        "https" => Some(":443"),
        "http" => Some(":80"),
        _ => None,
    };
    let origin = match default_port {
        Some(port) if rest.ends_with(port) => &lower[..lower.len() - port.len()],
        _ => &lower,
    };
    HeaderValue::from_str(origin).map_err(|_| refuse())
}

/// A header name as it is usually written (`Authorization`, `X-Api-Key`): `http` stores names
/// in lowercase, and `Vary` reads them case-insensitively, but people read them capitalized.
fn header_case(name: &HeaderName) -> String {
    name.as_str()
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The private policy, checked: what answers of private views (and the refusals of a
/// [`RefusalLayer`](crate::RefusalLayer)) are made with.
#[derive(Debug, Clone)]
pub(crate) struct Rules {
    /// The allowed origins, lowercase.
    origins: Vec<HeaderValue>,
    /// The `Vary` values, prepared.
    vary: Vary,
    /// The credential headers a page may send, as a list (empty when `Cookie` is the only
    /// one): the preflight allows them.
    pub(crate) sendable: String,
    pub(crate) challenge: HeaderValue,
    pub(crate) cache_control: HeaderValue,
    pub(crate) addressed_cache_control: HeaderValue,
    pub(crate) error_cache_control: HeaderValue,
}

/// `Access-Control-Allow-Credentials: true`.
const TRUE: HeaderValue = HeaderValue::from_static("true");

impl Rules {
    /// The request's `Origin` when it is one of the allowed origins.
    pub(crate) fn allowed_origin(&self, request: &HeaderMap) -> Option<HeaderValue> {
        let origin = request.get(ORIGIN)?;
        let bytes = origin.as_bytes();
        self.origins
            .iter()
            .any(|allowed| allowed.as_bytes().eq_ignore_ascii_case(bytes))
            .then(|| origin.clone())
    }

    /// The `Vary` of an answer that also varies on `Origin`, and on `Accept-Encoding` when
    /// `coded`.
    pub(crate) fn vary_with_origin(&self, coded: bool) -> HeaderValue {
        let [plain, with_coding] = &self.vary.with_origin;
        if coded { with_coding } else { plain }.clone()
    }

    /// The `Vary` of a public answer beside private views, with `Accept-Encoding` when
    /// `coded`.
    pub(crate) fn vary(&self, coded: bool) -> HeaderValue {
        let [plain, with_coding] = &self.vary.credentials;
        if coded { with_coding } else { plain }.clone()
    }
}

/// The four `Vary` values of a router with private views: the credential headers, with and
/// without `Accept-Encoding`, with and without `Origin`.
#[derive(Debug, Clone)]
struct Vary {
    credentials: [HeaderValue; 2],
    with_origin: [HeaderValue; 2],
}

impl Vary {
    fn of(credentials: &str) -> Result<Self, http::header::InvalidHeaderValue> {
        let value = |text: String| HeaderValue::from_str(&text);
        Ok(Self {
            credentials: [
                value(credentials.to_owned())?,
                value(format!("Accept-Encoding, {credentials}"))?,
            ],
            with_origin: [
                value(format!("Origin, {credentials}"))?,
                value(format!("Accept-Encoding, Origin, {credentials}"))?,
            ],
        })
    }
}

/// Puts the CORS headers of a credentialed answer for `origin` (an allowed origin) in place:
/// `Access-Control-Allow-Origin: <origin>`, `Access-Control-Allow-Credentials: true`.
pub(crate) fn allow_credentials(headers: &mut HeaderMap, origin: HeaderValue) {
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(ACCESS_CONTROL_ALLOW_CREDENTIALS, TRUE);
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! cache_controls {
        ($($value:literal => $ok:expr),+ $(,)?) => {$(
            let checked = check_private("cache_control", &HeaderValue::from_static($value));
            assert_eq!(checked.is_ok(), $ok, "{}: {:?}", $value, checked);
        )+};
    }

    #[test]
    fn a_private_cache_control_says_private_or_no_store_and_never_public_or_s_maxage() {
        cache_controls! {
            "private, no-cache, no-transform" => true,
            "no-store" => true,
            "Private, Max-Age=60" => true,
            "private, max-age=31536000, immutable" => true,
            "public, max-age=60" => false,
            "private, PUBLIC" => false,
            "private, s-maxage=60" => false,
            "private, s-maxage" => false,
            "private, must-revalidate" => false,
            "private=\"Set-Cookie\", max-age=600" => false,
            "no-store=\"x\"" => false,
            "private=\"a\", no-store" => true,
            "no-cache=\"a, public\", private" => true,
            "max-age=60" => false,
            "no-cache" => false,
            "" => false,
        }
    }

    macro_rules! origins {
        ($($given:literal => $expected:expr),+ $(,)?) => {$(
            let parsed = parse_origin($given).map(|v| v.to_str().unwrap().to_owned()).ok();
            assert_eq!(parsed.as_deref(), $expected, "{}", $given);
        )+};
    }

    #[test]
    fn allowed_origins_are_scheme_host_and_port_in_lowercase() {
        origins! {
            "https://app.example.com" => Some("https://app.example.com"),
            "HTTP://127.0.0.1:8080" => Some("http://127.0.0.1:8080"),
            "https://app.example.com:443" => Some("https://app.example.com"),
            "http://localhost:80" => Some("http://localhost"),
            "http://localhost:8080" => Some("http://localhost:8080"),
            "http://[::1]:3000" => Some("http://[::1]:3000"),
            "https://app.example.com/" => None,
            "https://app.example.com/path" => None,
            "app.example.com" => None,
            "*" => None,
            "null" => None,
            "https://" => None,
            "https://app.example.com:" => None,
        }
    }

    #[test]
    fn only_an_allowed_origin_is_echoed() {
        let rules = Private::new()
            .allow_origins(["http://127.0.0.1:8080"])
            .rules()
            .unwrap();
        let mut request = HeaderMap::new();
        assert_eq!(rules.allowed_origin(&request), None);
        request.insert(ORIGIN, HeaderValue::from_static("http://127.0.0.1:8081"));
        assert_eq!(rules.allowed_origin(&request), None);
        request.insert(ORIGIN, HeaderValue::from_static("http://127.0.0.1:8080"));
        assert_eq!(
            rules.allowed_origin(&request).unwrap(),
            "http://127.0.0.1:8080"
        );
        assert_eq!(rules.vary(false), "Authorization, Cookie");
        assert_eq!(
            rules.vary_with_origin(true),
            "Accept-Encoding, Origin, Authorization, Cookie"
        );
        assert_eq!(rules.sendable, "Authorization");
    }
}
