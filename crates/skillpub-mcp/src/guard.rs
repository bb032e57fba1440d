//! [`Guard`]: who may call the endpoint, checked once, at its front, before anything else is
//! done for a request (its body read, its session looked up or refreshed): the `Host` it is
//! addressed to, against DNS rebinding, and the browser `Origin` it comes from.
//!
//! The rules are rmcp's (`validate_dns_rebinding_headers`), so that every request is judged
//! the same whether skillpub or rmcp answers it; rmcp checks again what it answers, and the
//! unit tests compare both on a table of forms, so that a difference (an rmcp upgrade that
//! changes a rule) fails loudly. Unlike rmcp, the allowlists are read once, when the service
//! is made, and an entry that can never match is an error then.
//!
//! - `Host`: the header, or the URI's authority when there is none (HTTP/2 and
//!   `axum::Router::nest` may leave only that); a value that is not a valid authority is
//!   `400`. It matches an allowed entry of the same host (case and IPv6 brackets aside) and,
//!   when the entry has a port, the same port; an empty allowlist allows every host.
//! - `Origin`: a request without one passes. `null` matches `null`; otherwise scheme and host
//!   must be equal, and the port too when the entry has one (the scheme's default port stands
//!   for a missing one: `https://a.example` is `https://a.example:443`); an entry's `:*`, or
//!   no port, allows any. Anything else is `403`, and so is every `Origin` when none is allowed.

use std::net::Ipv6Addr;

use http::uri::Authority;
use http::{HeaderMap, Uri, header};

use crate::answers::{self, BoxResponse};
use crate::config::ConfigError;

/// The `Host` and `Origin` allowlists of an endpoint, read.
#[derive(Debug)]
pub(crate) struct Guard {
    /// `None`: every host is allowed (an empty allowlist, as rmcp reads it).
    hosts: Option<Vec<Address>>,
    origins: Vec<AllowedOrigin>,
}

/// A host and maybe a port, the host in lower case without IPv6 brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Address {
    host: String,
    port: Option<u16>,
}

/// An `Origin` as sent.
#[derive(Debug, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

/// An entry of the origin allowlist.
#[derive(Debug, PartialEq, Eq)]
enum AllowedOrigin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Port,
    },
}

/// Why a request was refused, with rmcp's status and text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `400`: a `Host` that cannot be read.
    BadHost(&'static str),
    /// `403`: a `Host` or `Origin` that is not allowed.
    Forbidden(&'static str),
}

impl Refusal {
    pub(crate) fn answer(self) -> BoxResponse {
        match self {
            Self::BadHost(text) => answers::bad_host(text),
            Self::Forbidden(text) => answers::forbidden(text),
        }
    }
}

/// The ports an allowed origin matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Port {
    /// `:*`, or no port (which rmcp still reads as any port).
    Any,
    Exactly(u16),
}

impl Guard {
    /// Reads the allowlists: every entry must be one that can match a request.
    pub(crate) fn new<'a>(
        hosts: impl IntoIterator<Item = &'a str>,
        origins: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, ConfigError> {
        let hosts = hosts
            .into_iter()
            .map(|entry| allowed_host(entry).ok_or_else(|| ConfigError::AllowedHost(entry.into())))
            .collect::<Result<Vec<_>, _>>()?;
        let origins = origins
            .into_iter()
            .map(|entry| {
                allowed_origin(entry).ok_or_else(|| ConfigError::AllowedOrigin(entry.into()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            hosts: (!hosts.is_empty()).then_some(hosts),
            origins,
        })
    }

    /// `Ok` when the request may be answered.
    pub(crate) fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = request_host(uri, headers)?;
        let allowed = self.hosts.as_ref().is_none_or(|hosts| {
            hosts.iter().any(|allowed| {
                allowed.host == host.host && allowed.port.is_none_or(|port| host.port == Some(port))
            })
        });
        if !allowed {
            return Err(Refusal::Forbidden("Forbidden: Host header is not allowed"));
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let origin = origin
            .to_str()
            .map_err(|_| Refusal::Forbidden("Forbidden: Invalid Origin header encoding"))?;
        let origin =
            origin_of(origin).ok_or(Refusal::Forbidden("Forbidden: Invalid Origin header"))?;
        if !self.origins.iter().any(|allowed| allowed.matches(&origin)) {
            return Err(Refusal::Forbidden(
                "Forbidden: Origin header is not allowed",
            ));
        }
        Ok(())
    }
}

impl AllowedOrigin {
    fn matches(&self, origin: &Origin) -> bool {
        match (self, origin) {
            (Self::Null, Origin::Null) => true,
            (
                Self::Tuple { scheme, host, port },
                Origin::Tuple {
                    scheme: sent_scheme,
                    host: sent_host,
                    port: sent_port,
                },
            ) => {
                scheme == sent_scheme
                    && host == sent_host
                    && match port {
                        Port::Any => true,
                        Port::Exactly(port) => {
                            sent_port.or_else(|| default_port(sent_scheme)) == Some(*port)
                        }
                    }
            }
            _ => false,
        }
    }
}

/// The host a request is addressed to.
fn request_host(uri: &Uri, headers: &HeaderMap) -> Result<Address, Refusal> {
    let Some(host) = headers.get(header::HOST) else {
        let authority = uri
            .authority()
            .ok_or(Refusal::BadHost("Bad Request: missing Host header"))?;
        return Ok(address(authority));
    };
    let host = host
        .to_str()
        .map_err(|_| Refusal::BadHost("Bad Request: Invalid Host header encoding"))?;
    let authority = Authority::try_from(host)
        .map_err(|_| Refusal::BadHost("Bad Request: Invalid Host header"))?;
    Ok(address(&authority))
}

fn address(authority: &Authority) -> Address {
    Address {
        host: host_name(authority.host()),
        port: authority.port_u16(),
    }
}

/// A host as compared: in lower case, without the brackets of an IPv6 literal.
fn host_name(host: &str) -> String {
    host.trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

/// An entry of the host allowlist: an authority (`name`, `name:port`, `[::1]:port`), or a
/// bare IPv6 address (`::1`), which is not an authority and is matched as a host alone.
fn allowed_host(entry: &str) -> Option<Address> {
    let entry = entry.trim();
    if let Ok(authority) = Authority::try_from(entry) {
        return Some(address(&authority));
    }
    entry.parse::<Ipv6Addr>().ok().map(|_| Address {
        host: host_name(entry),
        port: None,
    })
}

/// An `Origin` value: `null`, or a URI with a scheme and an authority.
fn origin_of(value: &str) -> Option<Origin> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    if value.eq_ignore_ascii_case("null") {
        return Some(Origin::Null);
    }
    let uri = Uri::try_from(value).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    Some(Origin::Tuple {
        scheme,
        host: host_name(authority.host()),
        port: authority.port_u16(),
    })
}

/// An entry of the origin allowlist: an origin, with `:*` for any port.
fn allowed_origin(entry: &str) -> Option<AllowedOrigin> {
    let entry = entry.trim();
    if let Some(base) = entry.strip_suffix(":*") {
        return match origin_of(base)? {
            Origin::Tuple {
                scheme,
                host,
                port: None,
            } => Some(AllowedOrigin::Tuple {
                scheme,
                host,
                port: Port::Any,
            }),
            _ => None,
        };
    }
    Some(match origin_of(entry)? {
        Origin::Null => AllowedOrigin::Null,
        Origin::Tuple { scheme, host, port } => AllowedOrigin::Tuple {
            scheme,
            host,
            port: port.map_or(Port::Any, Port::Exactly),
        },
    })
}

/// The port an origin without one has (RFC 6454: the scheme's default is left out).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
