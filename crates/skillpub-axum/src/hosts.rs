//! Which catalog each host is served ([`Hosts`]), and how a request's host is read.
//!
//! A host name is compared in one normal form: ASCII lowercase, without the port, without one
//! trailing dot (`Docs.Example.com.:8443` is `docs.example.com`), IPv6 addresses in brackets
//! (`[::1]`). A request's host is the authority of its target when the target has one (the
//! absolute form of HTTP/1.1, which RFC 9112 says overrides `Host`, and HTTP/2's
//! `:authority`), else its one `Host` header; a request with no host, two `Host` headers or
//! one that is not text has no host, and gets the default catalog.

use std::borrow::{Borrow, Cow};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, Ipv6Addr};

use http::Request;
use http::header::HOST;
use skillpub_core::LiveCatalog;

/// The catalogs of a router that serves several sites: an exact map of host names, and
/// optionally a catalog for every other host. A host with neither gets the `404` of the
/// policy on every path (and the preflight answer to `OPTIONS`), as an unpublished path does.
///
/// Each catalog can be live: give a [`LiveCatalog`] and replace it later, or a
/// [`Catalog`](skillpub_core::Catalog) that never changes. Names are matched exactly, in the
/// normal form described in [`Hosts::host`]; every port of a name gets the same catalog.
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
    /// `xn--` form), an IPv4 address, or an IPv6 address with or without brackets. It is
    /// compared in ASCII lowercase without a trailing dot, so `Docs.Example.COM.` names the
    /// same host; it has no port, since every port of a name gets its catalog.
    ///
    /// # Errors
    ///
    /// A name that is empty, has a port, characters a host name cannot have, or that names a
    /// host given before.
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
    /// let port = Hosts::new().host("docs.example.com:8443", catalog).unwrap_err();
    /// assert!(port.to_string().contains("without the port"));
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

    /// Every catalog, named ones first; for the routes a router needs.
    pub(crate) fn catalogs(&self) -> impl Iterator<Item = &LiveCatalog> {
        self.names.values().chain(&self.default)
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = (&HostName, &LiveCatalog)> {
        self.names.iter()
    }

    pub(crate) fn default_live(&self) -> Option<&LiveCatalog> {
        self.default.as_ref()
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
    /// The name was given before (in the normal form: ASCII lowercase, no trailing dot).
    #[error("`{0}` is named twice: give each host one catalog")]
    Duplicate(String),
}

/// A host name in its normal form: ASCII lowercase, no port, no trailing dot, IPv6 addresses
/// in brackets.
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
            return Ok(Self(format!("[{ip}]").into()));
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
        if !is_dns_name(name) {
            return Err(syntax());
        }
        Ok(Self(name.to_ascii_lowercase().into()))
    }

    /// The host a request is for, in the normal form, or `None` when it has none that can be
    /// read.
    pub(crate) fn of_request<B>(request: &Request<B>) -> Option<Cow<'_, str>> {
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
        Some(normal_form(without_port(without_userinfo(authority))))
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
            assert_eq!(HostName::of_request(&request).as_deref(), $expected, "{} {:?}", $uri, $host);
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
}
