//! nginx as a shared cache (a CDN edge, a corporate proxy) in front of an origin on
//! 127.0.0.1, for the tests that ask what a client gets through caches while the origin
//! changes.
//!
//! The edge is one nginx with two servers. The front one, where clients connect, is the cache:
//! `proxy_cache` with `proxy_cache_revalidate on` (an expired answer is revalidated with its
//! validators, as CDNs do) and otherwise nginx's defaults, so that an answer the origin marks
//! `no-cache`, `no-store` or `private` is not stored. The back one, which the cache sends its
//! misses to, forwards them to the origin and logs each one: every line of that log is a
//! request the origin had to answer, which is what a cache policy costs. It also scales the
//! origin's `max-age` for [`Freshness::Honoured`], so that a test can run five minutes of
//! caching in seconds.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::nginx::{Nginx, free_port};
use crate::scratch::Scratch;

/// How long the edge keeps an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// As the origin's `Cache-Control` says (nginx honours `max-age`, `no-cache`, `no-store`,
    /// `private`, and `Expires` without them), with time running `speedup` times faster: each
    /// `max-age=N` becomes `max-age=N/speedup`, at least one second, before the cache sees it
    /// (so clients receive that too); every other directive (`no-cache`, `immutable`, ...)
    /// passes unchanged. `speedup` is 1, 10, 100, ...
    Honoured {
        /// How many times faster than the origin says the edge lets answers age.
        speedup: u32,
    },
    /// The origin's `Cache-Control` and `Expires` ignored, and every `200` kept for this long
    /// (`proxy_ignore_headers Cache-Control Expires` and `proxy_cache_valid 200`), as an
    /// edge configured to "cache everything" is. Whole seconds.
    Overridden(Duration),
}

/// nginx caching what `upstream` answers, on a free port of 127.0.0.1; stopped with its
/// workers when dropped.
///
/// # Example
///
/// An origin whose answers may be cached for five minutes, seen through an edge that runs a
/// hundred times faster (three seconds): the second request is answered from the cache.
///
/// ```
/// use skillpub_testkit::{Edge, Freshness, Nginx, Scratch, nginx_or_skip, request_blocking};
///
/// if let Some(binary) = nginx_or_skip("doc_example") {
///     let site = Scratch::new("doc-edge-site");
///     site.write("hello.txt", "hello\n");
///     let origin = Nginx::start(
///         &binary,
///         &format!("root {}; add_header Cache-Control \"public, max-age=300\";", site.arg()),
///     );
///     let edge = Edge::start(&binary, origin.addr(), Freshness::Honoured { speedup: 100 });
///     for _ in 0..2 {
///         let response = request_blocking(edge.addr(), "GET", "/hello.txt", &[]);
///         assert_eq!(response.body, b"hello\n");
///         assert_eq!(response.header("cache-control"), Some("public, max-age=3"));
///     }
///     assert_eq!(edge.origin_requests(), ["GET /hello.txt 200"]);
/// }
/// ```
#[derive(Debug)]
pub struct Edge {
    nginx: Nginx,
    /// The cache and the log of the requests sent to the origin.
    folder: Scratch,
}

/// The file, in the edge's folder, that logs the requests sent to the origin.
const ORIGIN_LOG: &str = "origin.log";

impl Edge {
    /// Starts nginx `binary` as a cache for `upstream` (`http://`), keeping answers as
    /// `freshness` says; waits until it listens.
    ///
    /// # Panics
    ///
    /// When nginx does not start (with its error log), or `speedup` is not a power of ten.
    #[track_caller]
    pub fn start(binary: &Path, upstream: SocketAddr, freshness: Freshness) -> Self {
        let folder = Scratch::new("edge");
        let dir = folder.arg();
        let back = free_port();
        let (front_ttl, back_headers) = match freshness {
            Freshness::Honoured { speedup } => (String::new(), scaled_max_age(speedup)),
            Freshness::Overridden(ttl) => (
                format!(
                    "proxy_ignore_headers Cache-Control Expires;\n    proxy_cache_valid 200 {}s;",
                    ttl.as_secs()
                ),
                String::new(),
            ),
        };
        let http = format!(
            "proxy_cache_path {dir}/cache levels=1:2 keys_zone=skillpub_edge:1m max_size=64m inactive=1h use_temp_path=off;\n  \
             log_format skillpub_origin '$request_method $request_uri $status';\n  \
             {back_headers}\n  \
             server {{\n    listen 127.0.0.1:{back};\n    access_log {dir}/{ORIGIN_LOG} skillpub_origin;\n    \
             location / {{\n      proxy_pass http://{upstream};\n{}    }}\n  }}\n",
            if back_headers.is_empty() {
                ""
            } else {
                "      proxy_hide_header Cache-Control;\n      add_header Cache-Control $skillpub_edge_cache_control always;\n"
            }
        );
        let server = format!(
            "location / {{\n      proxy_pass http://127.0.0.1:{back};\n      proxy_cache skillpub_edge;\n      proxy_cache_revalidate on;\n      add_header X-Cache $upstream_cache_status always;\n    {front_ttl}\n    }}"
        );
        let nginx = Nginx::start_with_http(binary, &http, &server);
        Self { nginx, folder }
    }

    /// Where clients connect.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.nginx.addr()
    }

    /// Every request the edge sent to the origin so far, in order, as
    /// `METHOD /path?query STATUS` (`GET /.well-known/agent-skills/index.json 304`).
    #[must_use]
    pub fn origin_requests(&self) -> Vec<String> {
        std::fs::read_to_string(self.folder.path().join(ORIGIN_LOG))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Stops nginx as [`Nginx::stop`] does; returns the pids that were still alive.
    pub fn stop(&mut self) -> Vec<u32> {
        self.nginx.stop()
    }
}

/// The `map` that rewrites the origin's `Cache-Control` for a cache running `speedup` times
/// faster: `max-age=N` becomes `max-age=N/speedup` (the last digits dropped), or `max-age=1`
/// when `N` has no more digits than those dropped.
#[track_caller]
fn scaled_max_age(speedup: u32) -> String {
    let digits = speedup.to_string();
    assert!(
        digits.starts_with('1') && digits[1..].bytes().all(|digit| digit == b'0'),
        "speedup {speedup} is not a power of ten"
    );
    let dropped = digits.len() - 1;
    if dropped == 0 {
        return "map $upstream_http_cache_control $skillpub_edge_cache_control { default $upstream_http_cache_control; }".to_owned();
    }
    format!(
        "map $upstream_http_cache_control $skillpub_edge_cache_control {{\n    \
         \"~*^(?<skillpub_before>.*max-age=)(?<skillpub_kept>[0-9]+)[0-9]{{{dropped}}}(?<skillpub_after>[^0-9].*)?$\" \"${{skillpub_before}}${{skillpub_kept}}${{skillpub_after}}\";\n    \
         \"~*^(?<skillpub_short>.*max-age=)[0-9]{{1,{dropped}}}(?<skillpub_rest>[^0-9].*)?$\" \"${{skillpub_short}}1${{skillpub_rest}}\";\n    \
         default $upstream_http_cache_control;\n  }}"
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{Edge, Freshness};
    use crate::{Nginx, nginx_or_skip, request_blocking};

    /// An origin answering `/<n>` with `Cache-Control` number `n` of `values`.
    fn origin(binary: &std::path::Path, values: &[&str]) -> Nginx {
        let locations: String = values
            .iter()
            .enumerate()
            .map(|(n, value)| {
                format!("location = /{n} {{ add_header Cache-Control \"{value}\"; return 200 \"{n}\"; }}\n    ")
            })
            .collect();
        Nginx::start(binary, &locations)
    }

    #[test]
    fn max_age_is_divided_by_the_speedup_and_other_directives_pass_unchanged() {
        let Some(binary) =
            nginx_or_skip("max_age_is_divided_by_the_speedup_and_other_directives_pass_unchanged")
        else {
            return;
        };
        let cases = [
            ("public, max-age=300", "public, max-age=3"),
            ("public, max-age=10", "public, max-age=1"),
            (
                "public, max-age=31536000, immutable",
                "public, max-age=315360, immutable",
            ),
            (
                "public, no-cache, no-transform",
                "public, no-cache, no-transform",
            ),
        ];
        let origin = origin(&binary, &cases.map(|(sent, _)| sent));
        let edge = Edge::start(&binary, origin.addr(), Freshness::Honoured { speedup: 100 });
        for (n, (sent, seen)) in cases.iter().enumerate() {
            let response = request_blocking(edge.addr(), "GET", &format!("/{n}"), &[]);
            assert_eq!(response.header("cache-control"), Some(*seen), "{sent}");
        }
        // The no-cache answer is not stored: asked again, only it reaches the origin again.
        for n in 0..cases.len() {
            let _ = request_blocking(edge.addr(), "GET", &format!("/{n}"), &[]);
        }
        assert_eq!(
            edge.origin_requests(),
            [
                "GET /0 200",
                "GET /1 200",
                "GET /2 200",
                "GET /3 200",
                "GET /3 200"
            ]
        );
    }

    #[test]
    fn an_overridden_freshness_caches_what_the_origin_forbids() {
        let Some(binary) = nginx_or_skip("an_overridden_freshness_caches_what_the_origin_forbids")
        else {
            return;
        };
        let origin = origin(&binary, &["no-store"]);
        let edge = Edge::start(
            &binary,
            origin.addr(),
            Freshness::Overridden(Duration::from_secs(60)),
        );
        for _ in 0..3 {
            let response = request_blocking(edge.addr(), "GET", "/0", &[]);
            assert_eq!(response.body, b"0");
        }
        assert_eq!(edge.origin_requests(), ["GET /0 200"]);
    }
}
