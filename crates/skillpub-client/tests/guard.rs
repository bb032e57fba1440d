//! The host guard: by default the HTTP transport refuses to connect to local or private
//! addresses, whatever name or literal leads there; the policy refuses local names and
//! origins outside an allowlist before any request.

#![cfg(feature = "http")]

use std::time::Duration;

use http::Method;
use skillpub_client::fetch::send;
use skillpub_client::{FetchError, HostPolicy, HttpTransport, Limits, Transport};
use url::Url;

#[test]
fn the_default_transport_refuses_local_addresses_at_connect_time() {
    let transport = HttpTransport::new(Duration::from_secs(2));
    for url in [
        "http://127.0.0.1:9/",
        "http://[::1]:9/",
        "http://10.0.0.1:9/",
    ] {
        let url = Url::parse(url).unwrap();
        let error = transport
            .send_once(&Method::GET, &url, &[], 1000, None)
            .unwrap_err();
        assert!(
            matches!(&error, FetchError::PrivateAddress { host, .. } if Some(host.as_str()) == url.host_str()),
            "{url}: {error}"
        );
    }
}

#[test]
fn the_policy_refuses_local_names_and_foreign_origins_before_any_request() {
    let transport = HttpTransport::allowing_private(Duration::from_secs(2));
    let limits = Limits::default();
    let strict = HostPolicy::default();
    for url in [
        "http://localhost:9/",
        "http://intranet/",
        "http://metadata.google.internal/",
    ] {
        let url = Url::parse(url).unwrap();
        let error = send(&transport, &strict, &limits, &Method::GET, &url, &[], None).unwrap_err();
        assert!(
            matches!(error, FetchError::PrivateHost(_)),
            "{url}: {error}"
        );
    }
    let allowlisted = HostPolicy {
        allow_private: true,
        allowlist: Some(vec!["https://Skills.Example.com:443/".to_owned()]),
    };
    let foreign = Url::parse("http://127.0.0.1:9/x").unwrap();
    let error = send(
        &transport,
        &allowlisted,
        &limits,
        &Method::GET,
        &foreign,
        &[],
        None,
    )
    .unwrap_err();
    assert!(matches!(error, FetchError::NotAllowed(_)), "{error}");
    assert!(
        allowlisted
            .permit(&Url::parse("https://skills.example.com/a").unwrap())
            .is_ok()
    );
}
