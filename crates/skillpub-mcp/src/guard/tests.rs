//! The guard against rmcp's own checks: for each allowlist and each form of `Host` and
//! `Origin`, the guard's decision and answer must be rmcp's, so that a difference (or an rmcp
//! upgrade that changes a rule) fails here.

use bytes::Bytes;
use http::{HeaderValue, Method, Request, StatusCode};
use http_body_util::{BodyExt, Empty};

use super::Guard;
use crate::HttpOptions;
use crate::http::rmcp_transport;

/// What a request gets: `None` when it may be answered, or its refusal's status and text.
type Decision = Option<(StatusCode, Bytes)>;

fn request(uri: &str, headers: &[(&str, &[u8])]) -> Request<Empty<Bytes>> {
    let mut request = Request::new(Empty::new());
    *request.method_mut() = Method::GET;
    *request.uri_mut() = uri.parse().unwrap();
    for (name, value) in headers {
        let name = http::HeaderName::from_bytes(name.as_bytes()).unwrap();
        let value = HeaderValue::from_bytes(value).unwrap();
        request.headers_mut().append(name, value);
    }
    request
}

async fn ours(guard: &Guard, request: &Request<Empty<Bytes>>) -> Decision {
    match guard.check(request.uri(), request.headers()) {
        Ok(()) => None,
        Err(refused) => {
            let refused = refused.answer();
            let status = refused.status();
            Some((
                status,
                refused.into_body().collect().await.unwrap().to_bytes(),
            ))
        }
    }
}

/// rmcp's decision: its stateless transport answers a `GET` it lets through with `405`.
async fn rmcps(options: &HttpOptions, request: Request<Empty<Bytes>>) -> Decision {
    let answer = rmcp_transport(options).handle(request).await;
    if answer.status() == StatusCode::METHOD_NOT_ALLOWED {
        return None;
    }
    let status = answer.status();
    Some((
        status,
        answer.into_body().collect().await.unwrap().to_bytes(),
    ))
}

/// The forms of `Host` (with the request's URI) tried against every allowlist.
const HOSTS: &[(&str, &[u8])] = &[
    ("/mcp", b"localhost"),
    ("/mcp", b"LocalHost"),
    ("/mcp", b"localhost:3000"),
    ("/mcp", b"127.0.0.1"),
    ("/mcp", b"127.0.0.1:8080"),
    ("/mcp", b"[::1]"),
    ("/mcp", b"[::1]:8080"),
    ("/mcp", b"[0:0:0:0:0:0:0:1]"),
    ("/mcp", b"::1"),
    ("/mcp", b"skills.example.com"),
    ("/mcp", b"SKILLS.example.com:8443"),
    ("/mcp", b"skills.example.com:443"),
    ("/mcp", b"skills.example.com."),
    ("/mcp", b"evil.example"),
    ("/mcp", b"localhost.evil.example"),
    ("/mcp", b"user@localhost"),
    ("/mcp", b"localhost:99999"),
    ("/mcp", b"localhost:"),
    ("/mcp", b""),
    ("/mcp", b" "),
    ("/mcp", b"local host"),
    ("/mcp", b"http://localhost"),
    ("/mcp", b"caf\xc3\xa9.example"),
    ("/mcp", b"\xff"),
];

/// Requests without `Host`: the URI's authority stands for it, or there is none.
const WITHOUT_HOST: &[&str] = &[
    "http://localhost:3000/mcp",
    "http://skills.example.com/mcp",
    "http://evil.example/mcp",
    "/mcp",
];

/// The forms of `Origin` tried against every allowlist.
const ORIGINS: &[&[u8]] = &[
    b"http://localhost:5173",
    b"http://localhost",
    b"http://LOCALHOST:80",
    b"https://localhost:5173",
    b"http://127.0.0.1:6274",
    b"http://[::1]:3000",
    b"http://[::1]",
    b"https://app.example.com",
    b"https://app.example.com:443",
    b"https://app.example.com:8443",
    b"HTTPS://App.Example.Com",
    b"http://app.example.com",
    b"http://dev.example.com:1234",
    b"ws://dev.example.com:1234",
    b"http://localhost.evil.example:5173",
    b"https://evil.example",
    b"null",
    b"NULL",
    b"",
    b" ",
    b"localhost:5173",
    b"app.example.com",
    b"file:///etc/passwd",
    b"http://",
    b"\xff",
];

/// Allowlists: the default (loopback), a public one with each kind of entry, and empty ones.
fn options() -> Vec<HttpOptions> {
    vec![
        HttpOptions::default(),
        HttpOptions::default()
            .with_allowed_hosts(["skills.example.com", "skills.example.com:8443", "[::1]"])
            .with_allowed_origins([
                "https://app.example.com",
                "https://app.example.com:8443",
                "http://dev.example.com:*",
                "null",
            ]),
        HttpOptions::default().with_allowed_hosts(["localhost:3000", "::1", "127.0.0.1:*"]),
        HttpOptions::default().with_allowed_hosts(Vec::<String>::new()),
        HttpOptions::default()
            .with_allowed_hosts(["skills.example.com"])
            .with_allowed_origins(Vec::<String>::new()),
    ]
}

#[tokio::test]
async fn the_guard_decides_every_host_and_origin_as_rmcp_does() {
    let mut compared = 0;
    for options in options() {
        let guard = Guard::new(options.allowed_hosts(), options.allowed_origins()).unwrap();
        let mut requests = Vec::new();
        for (uri, host) in HOSTS {
            requests.push(request(uri, &[("host", host)]));
            for origin in ORIGINS {
                requests.push(request(uri, &[("host", host), ("origin", origin)]));
            }
        }
        for uri in WITHOUT_HOST {
            requests.push(request(uri, &[]));
            requests.push(request(uri, &[("origin", b"https://app.example.com")]));
        }
        // Headers given twice: the first counts, for both.
        requests.push(request(
            "/mcp",
            &[("host", b"localhost"), ("host", b"evil.example")],
        ));
        requests.push(request(
            "/mcp",
            &[("host", b"evil.example"), ("host", b"localhost")],
        ));
        requests.push(request(
            "/mcp",
            &[
                ("host", b"localhost"),
                ("origin", b"http://localhost:1"),
                ("origin", b"https://evil.example"),
            ],
        ));
        for request in requests {
            let seen = format!(
                "{:?} {:?} with {options:?}",
                request.uri(),
                request.headers()
            );
            let mine = ours(&guard, &request).await;
            assert_eq!(mine, rmcps(&options, request).await, "{seen}");
            compared += 1;
        }
    }
    assert!(compared > 600, "{compared}");
}

#[test]
fn entries_that_can_never_match_are_refused_with_the_knob_named() {
    let hosts = |hosts: &[&str]| {
        Guard::new(hosts.iter().copied(), [])
            .err()
            .map(|e| e.to_string())
    };
    for entry in [
        "",
        " ",
        "http://skills.example.com",
        "skills example",
        "[::1",
    ] {
        let error = hosts(&[entry]).unwrap_or_else(|| panic!("{entry:?} accepted"));
        assert!(
            error.starts_with(&format!("`allowed_hosts` entry `{entry}`")),
            "{error}"
        );
    }
    for entry in [
        "localhost",
        "LOCALHOST:3000",
        "::1",
        "[::1]:8080",
        "10.0.0.1",
        "localhost:*",
    ] {
        assert_eq!(hosts(&[entry]), None, "{entry}");
    }
    let origins = |origins: &[&str]| {
        Guard::new([], origins.iter().copied())
            .err()
            .map(|e| e.to_string())
    };
    for entry in [
        "",
        "app.example.com",
        "https://",
        "null:*",
        "https://a.example:443:*",
        "*",
    ] {
        let error = origins(&[entry]).unwrap_or_else(|| panic!("{entry:?} accepted"));
        assert!(
            error.starts_with(&format!("`allowed_origins` entry `{entry}`")),
            "{error}"
        );
    }
    for entry in [
        "https://app.example.com",
        "http://localhost:*",
        "http://[::1]:3000",
        "null",
    ] {
        assert_eq!(origins(&[entry]), None, "{entry}");
    }
}
