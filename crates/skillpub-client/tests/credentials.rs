//! Credentials over real TCP: two servers on two ports of 127.0.0.1 are two origins. The
//! site's server sees the credentials on every request to it; the other server never sees
//! them, whether the index names an artifact there, a redirect leads there, or a redirect
//! from there leads back.

#![cfg(feature = "http")]

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Response, StatusCode, header};
use http::Method;
use skillpub_client::credentials::{BearerToken, Credentials, Header};
use skillpub_client::{Client, HostPolicy, HttpTransport};
use skillpub_core::{Digest, index::SCHEMA_URI};
use skillpub_testkit::serve_recording;
use url::Url;

const TOKEN: &str = "t0p-s3cr3t";
const SKILL_MD: &str = "---\nname: here\ndescription: Served by the site.\n---\nHello.\n";
const THERE_MD: &str = "---\nname: there\ndescription: Served elsewhere.\n---\nHello.\n";

fn redirect(to: String) -> Response<Body> {
    Response::builder()
        .status(StatusCode::FOUND)
        .header(header::LOCATION, to)
        .body(Body::empty())
        .unwrap()
}

fn markdown(text: &'static str) -> Response<Body> {
    Response::builder()
        .header(header::CONTENT_TYPE, "text/markdown; charset=utf-8")
        .body(Body::from(text))
        .unwrap()
}

/// The site: an index with one artifact here and one on the other server, and redirects.
fn site(path: &str, other: SocketAddr) -> Response<Body> {
    match path {
        "/.well-known/agent-skills/index.json" => {
            let entry = |name: &str, url: &str, bytes: &str| {
                let digest = Digest::of(bytes.as_bytes());
                format!(
                    r#"{{"name":"{name}","type":"skill-md","description":"d","url":"{url}","digest":"{digest}"}}"#
                )
            };
            let here = entry("here", "/here/SKILL.md", SKILL_MD);
            let there = entry("there", &format!("http://{other}/there/SKILL.md"), THERE_MD);
            let body = format!(r#"{{"$schema":"{SCHEMA_URI}","skills":[{here},{there}]}}"#);
            Response::builder()
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(body))
                .unwrap()
        }
        "/here/SKILL.md" => markdown(SKILL_MD),
        "/away" => redirect(format!("http://{other}/away")),
        "/round-trip" => redirect(format!("http://{other}/bounce")),
        "/hop" => redirect("/landing".to_owned()),
        _ => Response::new(Body::from("landed")),
    }
}

/// The other origin: an artifact, a landing page, and a redirect back to the site.
fn elsewhere(path: &str, site: SocketAddr) -> Response<Body> {
    match path {
        "/there/SKILL.md" => markdown(THERE_MD),
        "/bounce" => redirect(format!("http://{site}/landing")),
        _ => Response::new(Body::from("elsewhere")),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn credentials_reach_the_site_and_never_another_origin() {
    let (site_addr, elsewhere_addr) = (Arc::new(OnceLock::new()), Arc::new(OnceLock::new()));
    let (a, at_site) =
        serve_recording(elsewhere_addr.clone(), ["authorization", "x-tenant"], site).await;
    let (b, at_elsewhere) =
        serve_recording(site_addr.clone(), ["authorization", "x-tenant"], elsewhere).await;
    site_addr.set(a).unwrap();
    elsewhere_addr.set(b).unwrap();
    let origin = Url::parse(&format!("http://{a}")).unwrap();
    let credentials = Credentials::new(&origin)
        .unwrap()
        .with_bearer(&BearerToken::new(TOKEN).unwrap())
        .with_header("X-Tenant: acme".parse::<Header>().unwrap());
    let client = Client::new(HttpTransport::allowing_private(Duration::from_secs(5)))
        .with_policy(HostPolicy {
            allow_private: true,
            allowlist: None,
        })
        .with_credentials(credentials);
    let fetched = tokio::task::spawn_blocking(move || {
        let index = client.discover(origin.as_str()).unwrap();
        let names: Vec<_> = index.entries().iter().map(|e| e.name.clone()).collect();
        assert_eq!(names, ["here", "there"]);
        for entry in index.entries() {
            client.fetch(entry).unwrap();
        }
        // Whether the answer's own request carried them: not after leaving the origin.
        for (path, credentialed) in [("/away", false), ("/round-trip", false), ("/hop", true)] {
            let url = origin.join(path).unwrap();
            let answer = client.request(&Method::GET, &url, &[]).unwrap();
            assert_eq!(answer.status, StatusCode::OK, "{path}");
            assert_eq!(answer.credentialed, credentialed, "{path}");
        }
        index.entries().len()
    })
    .await
    .unwrap();
    assert_eq!(fetched, 2);
    let bearer = Some(format!("Bearer {TOKEN}"));
    let tenant = Some("acme".to_owned());
    let at_site = at_site.lock().unwrap().clone();
    let with = |path: &str| (path.to_owned(), bearer.clone(), tenant.clone());
    let without = |path: &str| (path.to_owned(), None, None);
    assert_eq!(
        at_site,
        [
            with("/.well-known/agent-skills/index.json"),
            with("/here/SKILL.md"),
            with("/away"),
            with("/round-trip"),
            // Back from the other origin: that origin chose this hop, so no credentials.
            without("/landing"),
            with("/hop"),
            // A redirect within the origin keeps them.
            with("/landing"),
        ]
    );
    let at_elsewhere = at_elsewhere.lock().unwrap().clone();
    assert_eq!(
        at_elsewhere,
        [
            without("/there/SKILL.md"),
            without("/away"),
            without("/bounce")
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_host_on_another_port_is_another_origin() {
    let nowhere = Arc::new(OnceLock::new());
    let (a, at_a) =
        serve_recording(nowhere.clone(), ["authorization", "x-tenant"], elsewhere).await;
    let (b, at_b) =
        serve_recording(nowhere.clone(), ["authorization", "x-tenant"], elsewhere).await;
    nowhere.set(a).unwrap();
    let site = Url::parse(&format!("http://{a}/")).unwrap();
    let credentials = Credentials::new(&site)
        .unwrap()
        .with_bearer(&BearerToken::new(TOKEN).unwrap());
    let client = Client::new(HttpTransport::allowing_private(Duration::from_secs(5)))
        .with_policy(HostPolicy {
            allow_private: true,
            allowlist: None,
        })
        .with_credentials(credentials);
    tokio::task::spawn_blocking(move || {
        for addr in [a, b] {
            let url = Url::parse(&format!("http://{addr}/page")).unwrap();
            client.request(&Method::GET, &url, &[]).unwrap();
        }
    })
    .await
    .unwrap();
    let bearer = Some(format!("Bearer {TOKEN}"));
    assert_eq!(at_a.lock().unwrap()[0].1, bearer);
    assert_eq!(at_b.lock().unwrap()[0].1, None);
}
