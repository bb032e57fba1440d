//! Which catalog each host is served ([`Hosts`]), and how a request's host is read.
//!
//! A host is compared in one normal form, the same for the names given to [`Hosts::host`] and
//! for each request's host: ASCII lowercase, without the port, without one trailing dot
//! (`Docs.Example.com.:8443` is `docs.example.com`), IPv6 addresses as the address, in
//! brackets and in their canonical text (`[0:0:0:0:0:0:0:1]` is `[::1]`). [`Hosts`] says which
//! forms name the same host, and why. A request's host is the authority of its target when the
//! target has one (the absolute form of HTTP/1.1, which RFC 9112 says overrides `Host`, and
//! HTTP/2's `:authority`), else its one `Host` header; a request with no host, two `Host`
//! headers or one that is not text has no host, and gets the default catalog.

use std::borrow::{Borrow, Cow};
use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Write as _};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use axum::body::Body;
use http::Request;
use http::header::HOST;
use skillpub_core::LiveCatalog;

use crate::callers::{Choose, Visibility};

/// Hosts looked up on every request: foldhash, seeded per map, hashes several times faster
/// than the standard SipHash. The keys are the configured hosts, so a request can only make a
/// look-up miss, never grow the map.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// The catalogs of a router that serves several sites: an exact map of host names, and
/// optionally a catalog for every other host. A host with neither gets the `404` of the
/// policy on every path (and the preflight answer to `OPTIONS`), as an unpublished path does.
///
/// Each catalog can be live: give a [`LiveCatalog`] and replace it later, or a
/// [`Catalog`](skillpub_core::Catalog) that never changes. Names are matched exactly, in the
/// normal form described in [`Hosts::host`]; every port of a name gets the same catalog.
///
/// # Which forms name the same host
///
/// A request's host is what RFC 9110 (7.2) says `Host` carries: the host of a URI (RFC 3986,
/// 3.2.2), a registered name, an IPv4 address in dotted decimal, or an IPv6 address in
/// brackets. Two forms are the same host when they name the same thing under that grammar;
/// the forms the WHATWG URL parser (browsers, and the `url` crate) would read as an address
/// but RFC 3986 does not are never a configured host, since clients disagree about them.
///
/// | The request's host | Is served as | Because |
/// |---|---|---|
/// | `Docs.Example.COM`, `docs.example.com:8443` | `docs.example.com` | host names are case-insensitive, and every port of a name gets its catalog |
/// | `docs.example.com.`, `127.0.0.1.` | `docs.example.com`, `127.0.0.1` | one trailing dot is the DNS root (RFC 3986, 3.2.2, allows it after the last label); nginx drops it too, and the WHATWG IPv4 parser reads `127.0.0.1.` as `127.0.0.1` |
/// | `[0:0:0:0:0:0:0:1]`, `[::0001]`, `[0::1]:3000`, `[::FFFF:7F00:1]` | `[::1]`, `[::ffff:127.0.0.1]` | an IPv6 address has many texts (RFC 4291, 2.2; all in RFC 3986's grammar): it is compared as the address, as the WHATWG parser does |
/// | `[::ffff:127.0.0.1]` | not `127.0.0.1` | an IPv4-mapped IPv6 address is an IPv6 host, to the WHATWG parser too |
/// | `127.000.000.001`, `127.1`, `0x7f.0.0.1`, `2130706433` | the default catalog | not an IPv4 address in RFC 3986 (dotted decimal without leading zeros, 3.2.2 and 7.4) but a registered name, while the WHATWG parser and `inet_aton` read them as addresses, with a leading `0` as octal (`127.0.0.010` is `127.0.0.8`); browsers send the dotted decimal they parsed, and [`Hosts::host`] refuses such names |
/// | `[fe80::1%25eth0]`, `[v1.example]` | the default catalog | a zone (RFC 6874) and the future IP literals are no address [`Hosts::host`] accepts |
///
/// # Example
///
/// ```
/// use skillpub_axum::{Hosts, RouterBuilder};
/// use skillpub_core::{Catalog, LiveCatalog, Skill};
///
/// let docs = LiveCatalog::new(Catalog::new([Skill::from_static(
///     "---\nname: docs\ndescription: Answers questions from the docs.\n---\n",
/// )])?);
/// let shop = Catalog::new([Skill::from_static(
///     "---\nname: orders\ndescription: Looks up orders.\n---\n",
/// )])?;
/// let hosts = Hosts::new()
///     .host("docs.example.com", docs.clone())?
///     .host("shop.example.com", shop)?;
/// let app: axum::Router = RouterBuilder::hosts(hosts).build();
/// // Later: docs.example.com serves the new catalog, shop.example.com is unchanged.
/// docs.replace(Catalog::new(Vec::<Skill>::new())?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct Hosts {
    names: BTreeMap<HostName, LiveCatalog>,
    default: Option<LiveCatalog>,
}

impl Hosts {
    /// No host yet, and no default: every request gets the `404` of the policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `catalog` to requests for `name`.
    ///
    /// The name is a DNS name (`docs.example.com`, in ASCII: an internationalized name in its
    /// `xn--` form), an IPv4 address in dotted decimal, or an IPv6 address with or without
    /// brackets. It is compared in ASCII lowercase without a trailing dot, so
    /// `Docs.Example.COM.` names the same host, and an IPv6 address as the address, so
    /// `0:0:0:0:0:0:0:1` names `[::1]`; it has no port, since every port of a name gets its
    /// catalog. The [`Hosts`] docs list which request hosts each name is served to.
    ///
    /// # Errors
    ///
    /// A name that is empty, has a port, characters a host name cannot have, or that names a
    /// host given before; and a name that ends in a number but is not an IPv4 address in
    /// dotted decimal (`127.1`, `0x7f.0.0.1`, `127.000.000.001`, `example.123`), which URL
    /// parsers read as IPv4 addresses, each in its own way.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_axum::{Hosts, InvalidHost};
    /// use skillpub_core::Catalog;
    ///
    /// let catalog = Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let hosts = Hosts::new().host("Docs.Example.com.", catalog.clone())?;
    /// let again = hosts.host("docs.example.com", catalog.clone()).unwrap_err();
    /// assert_eq!(again, InvalidHost::Duplicate("docs.example.com".to_owned()));
    /// let port = Hosts::new().host("docs.example.com:8443", catalog.clone()).unwrap_err();
    /// assert!(port.to_string().contains("without the port"));
    /// let octal = Hosts::new().host("127.000.000.001", catalog).unwrap_err();
    /// assert_eq!(octal, InvalidHost::Numeric("127.000.000.001".to_owned()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn host(
        mut self,
        name: &str,
        catalog: impl Into<LiveCatalog>,
    ) -> Result<Self, InvalidHost> {
        let name = HostName::parse(name)?;
        if self.names.contains_key(&name) {
            return Err(InvalidHost::Duplicate(name.0.into()));
        }
        self.names.insert(name, catalog.into());
        Ok(self)
    }

    /// Serves `catalog` to every host not named with [`host`](Self::host), and to requests
    /// without a readable host.
    pub fn default_catalog(mut self, catalog: impl Into<LiveCatalog>) -> Self {
        self.default = Some(catalog.into());
        self
    }

    /// The hosts as a router chooses among them: the request's host is the key of
    /// [`Callers`](crate::Callers), every view of `visibility`.
    pub(crate) fn into_chooser(self, visibility: Visibility) -> Arc<dyn Choose> {
        let mut views = Vec::with_capacity(self.names.len() + 1);
        let mut index = FastMap::default();
        for (name, live) in self.names {
            index.insert(name, views.len());
            views.push((live, visibility));
        }
        let default = self.default.map(|live| {
            views.push((live, visibility));
            views.len() - 1
        });
        Arc::new(HostChooser {
            index,
            views,
            default,
        })
    }
}

/// [`Hosts`] numbered, as a router looks them up.
struct HostChooser {
    index: FastMap<HostName, usize>,
    views: Vec<(LiveCatalog, Visibility)>,
    default: Option<usize>,
}

impl fmt::Debug for HostChooser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostChooser")
            .field("hosts", &self.index.keys().collect::<Vec<_>>())
            .field("default", &self.default.is_some())
            .finish_non_exhaustive()
    }
}

impl Choose for HostChooser {
    fn views(&self) -> Vec<(LiveCatalog, Visibility)> {
        self.views.clone()
    }

    fn choose(&self, request: &mut Request<Body>) -> Option<usize> {
        HostName::of_request(request)
            .and_then(|host| self.index.get(host.as_ref()).copied())
            .or(self.default)
    }
}

/// A host name that [`Hosts::host`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidHost {
    /// The name is empty, or has characters no host name has.
    #[error(
        "`{0}` is not a host name: give a DNS name in ASCII (`docs.example.com`; an internationalized name in its `xn--` form), an IPv4 address or an IPv6 address"
    )]
    Syntax(String),
    /// The name has a port.
    #[error(
        "`{0}` has a port: give the host name without the port, since every port of a name is served the same catalog"
    )]
    Port(String),
    /// The name was given before (in the normal form: ASCII lowercase, no trailing dot, IPv6
    /// addresses in their canonical text).
    #[error("`{0}` is named twice: give each host one catalog")]
    Duplicate(String),
    /// The name ends in a number, but is not an IPv4 address in dotted decimal.
    #[error(
        "`{0}` ends in a number, so URL parsers read it as an IPv4 address, and not all alike (a leading 0 is octal to browsers): give an IPv4 address as four decimal numbers without leading zeros (`127.0.0.1`), or a DNS name whose last label is not a number"
    )]
    Numeric(String),
}

/// A host name in its normal form: ASCII lowercase, no port, no trailing dot, IPv6 addresses
/// in brackets and in their canonical text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct HostName(Box<str>);

impl HostName {
    /// Reads a name given to [`Hosts::host`].
    fn parse(given: &str) -> Result<Self, InvalidHost> {
        let syntax = || InvalidHost::Syntax(given.to_owned());
        let unbracketed = given
            .strip_prefix('[')
            .and_then(|inner| inner.strip_suffix(']'))
            .unwrap_or(given);
        if let Ok(ip) = unbracketed.parse::<Ipv6Addr>() {
            return Ok(Self(Ipv6Literal::of(ip).as_str().into()));
        }
        if given.starts_with('[') {
            return Err(if given.contains("]:") {
                InvalidHost::Port(given.to_owned())
            } else {
                syntax()
            });
        }
        if let Some((name, port)) = given.rsplit_once(':') {
            let is_port = !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit());
            return Err(if is_port && is_dns_name(name.trim_end_matches('.')) {
                InvalidHost::Port(given.to_owned())
            } else {
                syntax()
            });
        }
        let name = given.strip_suffix('.').unwrap_or(given);
        if let Ok(ip) = name.parse::<Ipv4Addr>() {
            return Ok(Self(ip.to_string().into()));
        }
        if ends_in_a_number(name) {
            return Err(InvalidHost::Numeric(given.to_owned()));
        }
        if !is_dns_name(name) {
            return Err(syntax());
        }
        Ok(Self(name.to_ascii_lowercase().into()))
    }

    /// The host a request is for, in the normal form, or `None` when it has none that can be
    /// read. Nothing is allocated unless the name has capitals.
    pub(crate) fn of_request<B>(request: &Request<B>) -> Option<RequestHost<'_>> {
        let authority = match request.uri().authority() {
            Some(authority) => authority.as_str(),
            None => {
                let mut values = request.headers().get_all(HOST).iter();
                let value = values.next()?;
                if values.next().is_some() {
                    return None;
                }
                value.to_str().ok()?
            }
        };
        let host = without_port(without_userinfo(authority));
        let ipv6 = host
            .strip_prefix('[')
            .and_then(|inner| inner.strip_suffix(']'))
            .and_then(|inner| inner.parse::<Ipv6Addr>().ok());
        Some(match ipv6 {
            Some(ip) => RequestHost::Ipv6(Ipv6Literal::of(ip)),
            None => RequestHost::Name(normal_form(host)),
        })
    }
}

/// A request's host in the normal form, to look up among the [`HostName`]s.
#[derive(Debug)]
pub(crate) enum RequestHost<'a> {
    /// A name or an IPv4 address: the request's text, lowercased if it had capitals.
    Name(Cow<'a, str>),
    /// An IPv6 address, in its canonical text.
    Ipv6(Ipv6Literal),
}

impl AsRef<str> for RequestHost<'_> {
    fn as_ref(&self) -> &str {
        match self {
            Self::Name(name) => name,
            Self::Ipv6(literal) => literal.as_str(),
        }
    }
}

/// An IPv6 address in brackets, in its canonical text: hexadecimal in lowercase, leading zeros
/// dropped, the longest run of zero groups as `::`, IPv4-mapped addresses ending in dotted
/// decimal (RFC 5952, as the standard library writes it). Kept inline, so that a request's
/// host is put in this form without allocating.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ipv6Literal {
    text: [u8; Ipv6Literal::LONGEST],
    len: usize,
}

impl Ipv6Literal {
    /// The longest canonical text in brackets: eight groups of four digits, 39 characters,
    /// and the brackets (`::ffff:255.255.255.255` is 22).
    const LONGEST: usize = 41;

    fn of(ip: Ipv6Addr) -> Self {
        let mut literal = Self {
            text: [0; Self::LONGEST],
            len: 0,
        };
        // It fits: see `LONGEST`.
        let _ = write!(literal, "[{ip}]");
        literal
    }

    fn as_str(&self) -> &str {
        // Only whole `str`s are written in.
        std::str::from_utf8(&self.text[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for Ipv6Literal {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.text
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl Borrow<str> for HostName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// Whether `name` is dot-separated labels of ASCII letters, digits, `-` and `_`, none empty.
fn is_dns_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// Whether the WHATWG URL parser reads `name`, without its trailing dot, as an IPv4 address
/// (its "ends in a number" check): its last label is decimal digits, or `0x` and hexadecimal
/// digits.
fn ends_in_a_number(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    let hex = last
        .strip_prefix("0x")
        .or_else(|| last.strip_prefix("0X"))
        .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_hexdigit()));
    hex || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()))
}

/// An authority without `user@` (clients do not send it; a target in absolute form may
/// carry it).
fn without_userinfo(authority: &str) -> &str {
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host)
}

/// A host without its port: `[::1]:8080` is `[::1]`, `example.com:8080` is `example.com`.
fn without_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    host.split_once(':').map_or(host, |(name, _)| name)
}

/// ASCII lowercase, without one trailing dot; borrowed when already so.
fn normal_form(host: &str) -> Cow<'_, str> {
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(host.to_ascii_lowercase())
    } else {
        Cow::Borrowed(host)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! names {
        ($($given:literal => $expected:expr),+ $(,)?) => {$(
            assert_eq!(HostName::parse($given).map(|n| n.0.into_string()), $expected, "{}", $given);
        )+};
    }

    #[test]
    fn names_given_are_read_in_their_normal_form_or_refused() {
        let syntax = |s: &str| Err(InvalidHost::Syntax(s.to_owned()));
        let port = |s: &str| Err(InvalidHost::Port(s.to_owned()));
        let numeric = |s: &str| Err(InvalidHost::Numeric(s.to_owned()));
        names! {
            "docs.example.com" => Ok("docs.example.com".to_owned()),
            "Docs.Example.COM." => Ok("docs.example.com".to_owned()),
            "localhost" => Ok("localhost".to_owned()),
            "_dmarc.example.com" => Ok("_dmarc.example.com".to_owned()),
            "xn--caf-dma.example" => Ok("xn--caf-dma.example".to_owned()),
            "127.0.0.1" => Ok("127.0.0.1".to_owned()),
            "::1" => Ok("[::1]".to_owned()),
            "[::1]" => Ok("[::1]".to_owned()),
            "[2001:DB8::1]" => Ok("[2001:db8::1]".to_owned()),
            "0:0:0:0:0:0:0:1" => Ok("[::1]".to_owned()),
            "[::0001]" => Ok("[::1]".to_owned()),
            "[::FFFF:7F00:1]" => Ok("[::ffff:127.0.0.1]".to_owned()),
            "[1111:2222:3333:4444:5555:6666:7777:8888]" => Ok("[1111:2222:3333:4444:5555:6666:7777:8888]".to_owned()),
            "127.0.0.1." => Ok("127.0.0.1".to_owned()),
            "127.000.000.001" => numeric("127.000.000.001"),
            "127.1" => numeric("127.1"),
            "0x7f.0.0.1" => numeric("0x7f.0.0.1"),
            "2130706433" => numeric("2130706433"),
            "256.0.0.1" => numeric("256.0.0.1"),
            "example.123" => numeric("example.123"),
            "example.0X1f." => numeric("example.0X1f."),
            "123.example" => Ok("123.example".to_owned()),
            "example.0x1g" => Ok("example.0x1g".to_owned()),
            "[::00001]" => syntax("[::00001]"),
            "[fe80::1%25eth0]" => syntax("[fe80::1%25eth0]"),
            "docs.example.com:8443" => port("docs.example.com:8443"),
            "[::1]:8443" => port("[::1]:8443"),
            "" => syntax(""),
            "." => syntax("."),
            "docs..example.com" => syntax("docs..example.com"),
            "café.example" => syntax("café.example"),
            "docs.example.com/" => syntax("docs.example.com/"),
            "user@docs.example.com" => syntax("user@docs.example.com"),
            "[docs]" => syntax("[docs]"),
            "docs:" => syntax("docs:"),
        }
    }

    macro_rules! requests {
        ($($uri:literal, $host:expr => $expected:expr),+ $(,)?) => {$(
            let mut request = Request::get($uri);
            for value in $host {
                request = request.header(HOST, *value);
            }
            let request = request.body(()).unwrap();
            let host = HostName::of_request(&request);
            assert_eq!(host.as_ref().map(AsRef::as_ref), $expected, "{} {:?}", $uri, $host);
        )+};
    }

    #[test]
    fn a_request_host_is_its_target_authority_or_its_one_host_header() {
        let none: &[&str] = &[];
        requests! {
            "/index.json", &["docs.example.com"] => Some("docs.example.com"),
            "/index.json", &["Docs.Example.com.:8443"] => Some("docs.example.com"),
            "/index.json", &["[::1]:3000"] => Some("[::1]"),
            "/index.json", &["127.0.0.1:3000"] => Some("127.0.0.1"),
            "http://Shop.Example.com/index.json", &["docs.example.com"] => Some("shop.example.com"),
            "http://user@shop.example.com:80/index.json", none => Some("shop.example.com"),
            "/index.json", none => None,
            "/index.json", &["docs.example.com", "shop.example.com"] => None,
        }
    }

    #[test]
    fn a_request_ipv6_host_is_read_as_its_address_and_other_hosts_as_text() {
        requests! {
            "/", &["[::1]"] => Some("[::1]"),
            "/", &["[0:0:0:0:0:0:0:1]"] => Some("[::1]"),
            "/", &["[::0001]:8080"] => Some("[::1]"),
            "/", &["[2001:DB8:0:0:0:0:0:1]"] => Some("[2001:db8::1]"),
            "/", &["[::ffff:7f00:1]"] => Some("[::ffff:127.0.0.1]"),
            "/", &["[1111:2222:3333:4444:5555:6666:7777:8888]:1"] => Some("[1111:2222:3333:4444:5555:6666:7777:8888]"),
            "http://[0:0::1]:3000/", &["docs.example.com"] => Some("[::1]"),
            "/", &["[::00001]"] => Some("[::00001]"),
            "/", &["[v1.Example]"] => Some("[v1.example]"),
            "/", &["127.000.000.001"] => Some("127.000.000.001"),
            "/", &["127.0.0.1."] => Some("127.0.0.1"),
        }
    }

    /// Which catalog a router serves each form of a host: the spec of the [`Hosts`] docs.
    #[tokio::test]
    async fn each_form_of_a_host_is_served_the_catalog_the_specs_give_it() {
        use tower::ServiceExt;

        let catalog = |name: &str| {
            let skill_md = format!("---\nname: {name}\ndescription: Serves {name}.\n---\n");
            skillpub_core::Catalog::new([skillpub_core::Skill::new(None, skill_md)]).unwrap()
        };
        let hosts = Hosts::new()
            .host("[::1]", catalog("ipv6-loopback"))
            .unwrap()
            .host("::ffff:127.0.0.1", catalog("ipv4-mapped"))
            .unwrap()
            .host("127.0.0.1", catalog("ipv4-loopback"))
            .unwrap()
            .host("docs.example.com", catalog("docs"))
            .unwrap()
            .default_catalog(catalog("fallback"));
        let app: axum::Router = crate::RouterBuilder::hosts(hosts).build();
        let served = async |host: &str| {
            let request = Request::get(skillpub_core::paths::INDEX_PATH)
                .header(HOST, host)
                .body(axum::body::Body::empty())
                .unwrap();
            let response = app.clone().oneshot(request).await.unwrap();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap();
            let index: serde_json::Value = serde_json::from_slice(&body).unwrap();
            index["skills"][0]["name"].as_str().unwrap().to_owned()
        };
        for (host, expected) in [
            ("docs.example.com", "docs"),
            ("Docs.Example.COM", "docs"),
            ("docs.example.com.:8443", "docs"),
            ("[::1]", "ipv6-loopback"),
            ("[0:0:0:0:0:0:0:1]", "ipv6-loopback"),
            ("[::0001]", "ipv6-loopback"),
            ("[0::1]:3000", "ipv6-loopback"),
            ("[::ffff:7f00:1]", "ipv4-mapped"),
            ("[::FFFF:127.0.0.1]", "ipv4-mapped"),
            ("127.0.0.1", "ipv4-loopback"),
            ("127.0.0.1:3000", "ipv4-loopback"),
            ("127.0.0.1.", "ipv4-loopback"),
            ("127.000.000.001", "fallback"),
            ("127.1", "fallback"),
            ("0x7f.0.0.1", "fallback"),
            ("2130706433", "fallback"),
            ("[::00001]", "fallback"),
            ("[fe80::1%25eth0]", "fallback"),
            ("[v1.example]", "fallback"),
            ("::1", "fallback"),
        ] {
            assert_eq!(served(host).await, expected, "Host: {host}");
        }
    }
}
