//! Origins for absolute index URLs, and the rule that keeps development hosts out of them.

use std::fmt;
use std::net::IpAddr;

/// Ports that local development servers use; an index published with one is a mistake.
pub const DEV_PORTS: [u16; 14] = [
    3000, 3001, 4000, 4200, 4321, 5000, 5173, 5174, 8000, 8008, 8080, 8081, 8888, 9000,
];

/// A public `http` or `https` origin, such as `https://skills.example.com`.
///
/// Parsing refuses anything that is not a bare origin (a path, a query, a fragment, user
/// information) and any origin that only works on the publisher's machine or network: the
/// name `localhost` and its subdomains, loopback, unspecified, private and link-local
/// addresses, and the ports in [`DEV_PORTS`]. An index that points there would fail for
/// every client.
///
/// # Example
///
/// ```
/// use skillpub_core::origin::{Origin, OriginError};
///
/// let origin: Origin = "https://Skills.Example.com/".parse()?;
/// assert_eq!(origin.as_str(), "https://skills.example.com");
/// assert!(matches!("http://localhost:3000".parse::<Origin>(), Err(OriginError::NotPublic { .. })));
/// assert!(matches!("https://example.com:5173".parse::<Origin>(), Err(OriginError::DevPort { .. })));
/// # Ok::<(), OriginError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin(String);

/// Why a string is not a usable public origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OriginError {
    /// Not of the form `http://host` or `https://host`, with an optional port.
    #[error(
        "`{0}` is not an origin; write the scheme and host only, such as `https://skills.example.com`"
    )]
    Malformed(String),
    /// The host only answers on the publisher's own machine or network.
    #[error(
        "`{origin}` is not reachable by clients: `{host}` is a local or private host; use the public domain the site is served from"
    )]
    NotPublic {
        /// The origin as given.
        origin: String,
        /// The offending host.
        host: String,
    },
    /// The port is one that development servers use.
    #[error(
        "`{origin}` uses port {port}, a development server port; use the public origin, usually without a port"
    )]
    DevPort {
        /// The origin as given.
        origin: String,
        /// The port.
        port: u16,
    },
}

impl Origin {
    /// The origin, lowercased and without a trailing slash.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for Origin {
    type Err = OriginError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || OriginError::Malformed(text.to_owned());
        let lower = text.to_ascii_lowercase();
        let (scheme, rest) = lower.split_once("://").ok_or_else(malformed)?;
        if scheme != "http" && scheme != "https" {
            return Err(malformed());
        }
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.is_empty() || authority.contains(['/', '?', '#', '@', '\\']) {
            return Err(malformed());
        }
        let (host, port) = split_port(authority).ok_or_else(malformed)?;
        if !is_host(host) {
            return Err(malformed());
        }
        if is_local_host(host) {
            return Err(OriginError::NotPublic {
                origin: text.to_owned(),
                host: host.to_owned(),
            });
        }
        if let Some(port) = port
            && DEV_PORTS.contains(&port)
        {
            return Err(OriginError::DevPort {
                origin: text.to_owned(),
                port,
            });
        }
        Ok(Self(format!("{scheme}://{authority}")))
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Splits `host[:port]` (with `[v6]` hosts); `None` when the port is not a number.
fn split_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (inside, after) = v6.split_once(']')?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        (inside, port)
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(port) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            Some(port.parse().ok()?)
        }
        Some(_) => return None,
        None => None,
    };
    Some((host, port))
}

/// A host is an IP address or a DNS name of non-empty labels of letters, digits and inner
/// hyphens. A name whose last label is numeric must be a full dotted IPv4 address: browsers
/// read `127.1`, `2130706433` or `0x7f000001` as IPv4 addresses too, so accepting them as
/// names would let a loopback address through.
fn is_host(host: &str) -> bool {
    if host.parse::<IpAddr>().is_ok() {
        return true;
    }
    let labels: Vec<&str> = host.split('.').collect();
    let is_label = |label: &&str| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    let last = labels.last().copied().unwrap_or_default();
    let numeric = last.bytes().all(|b| b.is_ascii_digit()) || last.starts_with("0x");
    labels.iter().all(is_label) && !numeric
}

/// Whether `host` names this machine or a private network rather than a public site: the
/// name `localhost` and its subdomains, single-label names and the private-use suffixes
/// `.local`, `.internal`, `.lan`, `.home.arpa`; loopback, unspecified, private, shared,
/// link-local, broadcast and multicast IPv4 addresses; loopback, unspecified, unique-local,
/// link-local, site-local and multicast IPv6 addresses, and IPv6 forms that embed a local IPv4
/// address (mapped, compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`).
///
/// # Example
///
/// ```
/// use skillpub_core::origin::is_local_host;
///
/// assert!(is_local_host("localhost"));
/// assert!(is_local_host("127.0.0.1"));
/// assert!(is_local_host("192.168.1.20"));
/// assert!(is_local_host("::1"));
/// assert!(is_local_host("intranet"));
/// assert!(!is_local_host("example.com"));
/// ```
#[must_use]
pub fn is_local_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    match host.parse::<IpAddr>() {
        Ok(ip) => is_local_ip(ip),
        Err(_) => {
            const PRIVATE_SUFFIXES: [&str; 5] =
                [".localhost", ".local", ".internal", ".lan", ".home.arpa"];
            host == "localhost"
                || !host.contains('.')
                || PRIVATE_SUFFIXES.iter().any(|s| host.ends_with(s))
        }
    }
}

/// Whether an address belongs to this machine or a private network; see [`is_local_host`].
#[must_use]
pub fn is_local_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            let [first, second, ..] = ip.octets();
            let this_network = first == 0;
            let shared = first == 100 && second & 0xc0 == 64;
            ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_broadcast()
                || ip.is_multicast()
                || this_network
                || shared
        }
        IpAddr::V6(ip) => {
            let segments = ip.segments();
            let site_local = segments[0] & 0xffc0 == 0xfec0;
            let embedded = if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                // NAT64: the last 32 bits are the IPv4 address.
                let [.., a, b, c, d] = ip.octets();
                Some(std::net::Ipv4Addr::new(a, b, c, d))
            } else if segments[0] == 0x2002 {
                // 6to4: bits 16 to 48 are the IPv4 address.
                let octets = ip.octets();
                Some(std::net::Ipv4Addr::new(
                    octets[2], octets[3], octets[4], octets[5],
                ))
            } else {
                ip.to_ipv4()
            };
            ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_unique_local()
                || ip.is_unicast_link_local()
                || ip.is_multicast()
                || site_local
                || embedded.is_some_and(|v4| is_local_ip(IpAddr::V4(v4)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! accepts {
        ($name:ident, $text:expr, $origin:expr) => {
            #[test]
            fn $name() {
                assert_eq!($text.parse::<Origin>().map(|o| o.0), Ok($origin.to_owned()));
            }
        };
    }

    macro_rules! refuses {
        ($name:ident, $text:expr, $pattern:pat) => {
            #[test]
            fn $name() {
                let result = $text.parse::<Origin>();
                assert!(matches!(result, Err($pattern)), "{result:?}");
            }
        };
    }

    accepts!(https_domain, "https://example.com", "https://example.com");
    accepts!(
        trailing_slash_dropped,
        "https://example.com/",
        "https://example.com"
    );
    accepts!(
        uppercase_lowered,
        "HTTPS://Example.COM",
        "https://example.com"
    );
    accepts!(
        explicit_https_port,
        "https://example.com:8443",
        "https://example.com:8443"
    );
    accepts!(public_ipv4, "http://93.184.216.34", "http://93.184.216.34");
    accepts!(
        public_ipv6,
        "https://[2606:2800:220:1::1]",
        "https://[2606:2800:220:1::1]"
    );

    refuses!(localhost, "http://localhost", OriginError::NotPublic { .. });
    refuses!(
        localhost_subdomain,
        "http://app.localhost",
        OriginError::NotPublic { .. }
    );
    refuses!(
        loopback_v4,
        "http://127.0.0.1:8443",
        OriginError::NotPublic { .. }
    );
    refuses!(loopback_v6, "http://[::1]", OriginError::NotPublic { .. });
    refuses!(unspecified, "http://0.0.0.0", OriginError::NotPublic { .. });
    refuses!(
        private_range,
        "https://10.1.2.3",
        OriginError::NotPublic { .. }
    );
    refuses!(
        link_local,
        "https://169.254.1.1",
        OriginError::NotPublic { .. }
    );
    refuses!(
        vite_port,
        "https://example.com:5173",
        OriginError::DevPort { port: 5173, .. }
    );
    refuses!(
        node_port,
        "https://example.com:3000",
        OriginError::DevPort { port: 3000, .. }
    );
    refuses!(no_scheme, "example.com", OriginError::Malformed(_));
    refuses!(ftp_scheme, "ftp://example.com", OriginError::Malformed(_));
    refuses!(
        with_path,
        "https://example.com/skills",
        OriginError::Malformed(_)
    );
    refuses!(
        with_query,
        "https://example.com?x",
        OriginError::Malformed(_)
    );
    refuses!(
        with_user,
        "https://me@example.com",
        OriginError::Malformed(_)
    );
    refuses!(empty_host, "https://", OriginError::Malformed(_));
    refuses!(
        bad_port,
        "https://example.com:http",
        OriginError::Malformed(_)
    );
    refuses!(
        port_out_of_range,
        "https://example.com:70000",
        OriginError::Malformed(_)
    );
    refuses!(
        space_in_host,
        "https://exa mple.com",
        OriginError::Malformed(_)
    );

    accepts!(
        hyphenated_subdomain,
        "https://my-site.example.co.uk",
        "https://my-site.example.co.uk"
    );
    accepts!(
        digits_in_a_name,
        "https://123.example.com",
        "https://123.example.com"
    );
    refuses!(short_ipv4, "http://127.1", OriginError::Malformed(_));
    refuses!(decimal_ipv4, "http://2130706433", OriginError::Malformed(_));
    refuses!(hex_ipv4, "http://0x7f000001", OriginError::Malformed(_));
    refuses!(zero_host, "http://0", OriginError::Malformed(_));
    refuses!(dot_host, "https://.", OriginError::Malformed(_));
    refuses!(hyphen_host, "https://-", OriginError::Malformed(_));
    refuses!(empty_label, "https://a..com", OriginError::Malformed(_));
    refuses!(
        ipv4_compatible_loopback,
        "http://[::127.0.0.1]",
        OriginError::NotPublic { .. }
    );
    refuses!(
        ipv4_mapped_private,
        "http://[::ffff:192.168.0.1]",
        OriginError::NotPublic { .. }
    );
    refuses!(
        this_network,
        "http://0.1.2.3",
        OriginError::NotPublic { .. }
    );
    refuses!(
        shared_address_space,
        "http://100.64.0.1",
        OriginError::NotPublic { .. }
    );
    refuses!(
        single_label,
        "https://intranet",
        OriginError::NotPublic { .. }
    );
    refuses!(
        internal_suffix,
        "https://metadata.google.internal",
        OriginError::NotPublic { .. }
    );
    refuses!(
        nat64_metadata,
        "http://[64:ff9b::a9fe:a9fe]",
        OriginError::NotPublic { .. }
    );
    refuses!(
        six_to_four_loopback,
        "http://[2002:7f00:1::]",
        OriginError::NotPublic { .. }
    );
    refuses!(
        site_local_v6,
        "http://[fec0::1]",
        OriginError::NotPublic { .. }
    );
    refuses!(
        broadcast,
        "http://255.255.255.255",
        OriginError::NotPublic { .. }
    );
}
