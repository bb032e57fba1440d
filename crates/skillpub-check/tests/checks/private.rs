//! Private catalogs: an index that asks to log in (`401`) or refuses (`403`) gets a result of
//! its own and the checks that need it are one "not run" line; with credentials sent, every
//! answer of the private view is judged by the private policy (`private.*`), a catalog that
//! follows it passes and one served `public` fails with its own code; credentials never go to
//! another origin, even when a page's `Link` names an index there.

use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use skillpub_check::{CheckOptions, Report, Status, check};
use skillpub_client::credentials::{BearerToken, Credentials};
use skillpub_client::{Client, ServiceTransport};
use skillpub_core::{Catalog, Skill};
use tower::ServiceExt;
use url::Url;

use crate::site::{INDEX, Lines, ORIGIN, Site, WELL_WRITTEN, answer, ok};

const TOKEN: &str = "t0p-s3cr3t";
const CHALLENGE: &str = "Bearer realm=\"agent-skills\"";

/// How the hand-made auth in front of the catalog answers, and what it adds to every answer.
#[derive(Clone, Copy)]
struct Policy {
    /// `WWW-Authenticate` on a 401.
    challenge: bool,
    /// Answer 403 instead of 401 to a caller without the token.
    forbid: bool,
    /// `Cache-Control` put on every answer, replacing the catalog's.
    cache_control: Option<&'static str>,
    /// `Vary` added to every answer.
    vary: Option<&'static str>,
    /// What becomes of the catalog's `Access-Control-Allow-Origin: *`.
    cors: Cors,
}

/// The CORS of the private view in front of a public router.
#[derive(Clone, Copy)]
enum Cors {
    /// Removed: a request without an `Origin` from the allow-list gets none.
    Removed,
    /// Kept, with `Access-Control-Allow-Credentials: true`, which browsers refuse.
    WildcardCredentials,
    /// Any `Origin` reflected with `Access-Control-Allow-Credentials: true` (and `Vary:
    /// Origin`): every page may read the caller's catalog.
    Reflected,
}

/// The contract of a private view.
const PRIVATE: Policy = Policy {
    challenge: true,
    forbid: false,
    cache_control: Some("private, no-cache, no-transform"),
    vary: Some("Authorization, Cookie"),
    cors: Cors::Removed,
};

/// skillpub's router with one skill, behind a bearer check, every answer (401 included)
/// rewritten as `policy` says.
fn guarded(policy: Policy) -> Router {
    let catalog = Catalog::new([Skill::from_static(WELL_WRITTEN)]).unwrap();
    let inner: Router = skillpub_axum::router(catalog);
    Router::new().fallback(move |request: Request<Body>| {
        let inner = inner.clone();
        async move {
            let expected = format!("Bearer {TOKEN}");
            let authorized = request.headers().get(header::AUTHORIZATION)
                == Some(&HeaderValue::from_str(&expected).unwrap());
            let origin = request.headers().get(header::ORIGIN).cloned();
            let mut response = if authorized {
                inner.oneshot(request).await.unwrap()
            } else {
                let (status, text) = if policy.forbid {
                    (StatusCode::FORBIDDEN, "not allowed")
                } else {
                    (StatusCode::UNAUTHORIZED, "log in")
                };
                let mut response = Response::new(Body::from(text));
                *response.status_mut() = status;
                if policy.challenge && !policy.forbid {
                    let challenge = HeaderValue::from_static(CHALLENGE);
                    response
                        .headers_mut()
                        .insert(header::WWW_AUTHENTICATE, challenge);
                }
                response
            };
            let headers = response.headers_mut();
            if let Some(value) = policy.cache_control {
                headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
            }
            if let Some(value) = policy.vary {
                headers.append(header::VARY, HeaderValue::from_static(value));
            }
            match policy.cors {
                Cors::Removed => {
                    headers.remove(header::ACCESS_CONTROL_ALLOW_ORIGIN);
                }
                Cors::Reflected => {
                    headers.remove(header::ACCESS_CONTROL_ALLOW_ORIGIN);
                    headers.append(header::VARY, HeaderValue::from_static("Origin"));
                    if let Some(origin) = origin {
                        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
                        let yes = HeaderValue::from_static("true");
                        headers.insert(header::ACCESS_CONTROL_ALLOW_CREDENTIALS, yes);
                    }
                }
                Cors::WildcardCredentials => {
                    let any = HeaderValue::from_static("*");
                    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, any);
                    let yes = HeaderValue::from_static("true");
                    headers.insert(header::ACCESS_CONTROL_ALLOW_CREDENTIALS, yes);
                }
            }
            response
        }
    })
}

/// Checks `app` at the test origin, sending `token` as a bearer token when there is one.
async fn check_with(app: Router, token: Option<&str>, private: bool) -> Report {
    let runtime = tokio::runtime::Handle::current();
    let token = token.map(|token| BearerToken::new(token).unwrap());
    tokio::task::spawn_blocking(move || {
        let mut client = Client::new(ServiceTransport::new(app, runtime));
        if let Some(token) = &token {
            let site = Url::parse(ORIGIN).unwrap();
            client = client.with_credentials(Credentials::new(&site).unwrap().with_bearer(token));
        }
        let options = CheckOptions {
            private,
            ..CheckOptions::default()
        };
        check(&client, ORIGIN, &options)
    })
    .await
    .unwrap()
}

/// The codes of the report's lines, in order.
fn codes(report: &Report) -> Vec<&'static str> {
    report.checks.iter().map(|check| check.code()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_401_is_its_own_result_with_the_challenge_and_the_rest_is_not_run() {
    let report = check_with(guarded(PRIVATE), None, false).await;
    assert_eq!(codes(&report), ["auth.required", "run.not-run"], "{report}");
    assert_eq!(report.failed(), [("index", "auth.required")]);
    let message = report.message(Status::Fail, "index", "auth.required");
    assert_eq!(
        message,
        format!(
            "GET {ORIGIN}{INDEX} answered 401 Unauthorized (log in) and no credentials were sent (skillpub check --bearer-env VAR or --header 'Name: value'); WWW-Authenticate: {CHALLENGE}"
        )
    );
    let not_run = report.message(Status::Warn, "site", "run.not-run");
    assert!(
        not_run.ends_with("did not run: the index answered 401 Unauthorized"),
        "{not_run}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_401_without_www_authenticate_breaks_rfc_9110() {
    let policy = Policy {
        challenge: false,
        ..PRIVATE
    };
    let report = check_with(guarded(policy), None, false).await;
    assert_eq!(
        report.failed(),
        [("index", "auth.required"), ("index", "auth.challenge")],
        "{report}"
    );
    let message = report.message(Status::Fail, "index", "auth.challenge");
    assert!(message.contains("RFC 9110 15.5.2"), "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_403_is_not_allowed_and_a_wrong_token_is_told_apart_from_none() {
    let policy = Policy {
        forbid: true,
        ..PRIVATE
    };
    let report = check_with(guarded(policy), Some("wrong-token"), false).await;
    assert_eq!(report.failed(), [("index", "auth.forbidden")], "{report}");
    let message = report.message(Status::Fail, "index", "auth.forbidden");
    assert_eq!(
        message,
        format!("GET {ORIGIN}{INDEX} answered 403 Forbidden (not allowed) to the credentials sent")
    );
    // The refusal is an answer of the private view too: it is judged, and it is private.
    for code in ["private.public", "private.cache-control", "private.vary"] {
        let line = report.message(Status::Ok, "site", code);
        assert!(line.contains(" 1 answers"), "{line}");
    }
    assert!(!report.to_string().contains("wrong-token"), "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_catalog_that_follows_the_contract_passes() {
    let report = check_with(guarded(PRIVATE), Some(TOKEN), false).await;
    assert!(report.passed(), "{report}");
    assert_eq!(report.count(Status::Warn), 0, "{report}");
    let public = report.message(Status::Ok, "site", "private.public");
    let total: usize = public
        .split(' ')
        .nth(3)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{public}"));
    // The index, its HEAD and 304, the SKILL.md, its HEAD, the 404 probe, the CORS probes.
    assert!(total >= 8, "{report}");
    assert_eq!(
        report.message(Status::Ok, "site", "private.vary"),
        format!("all {total} answers of the private view name authorization in Vary")
    );
    let cors = report.message(Status::Ok, "site", "site.cors");
    assert!(
        cors.starts_with("no Access-Control-Allow-Origin on a request without Origin"),
        "{cors}"
    );
    assert!(!report.to_string().contains(TOKEN));
    assert!(!report.to_json().to_string().contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_catalog_served_public_fails_with_its_own_code() {
    // skillpub's router as it is (public, max-age) behind the bearer check.
    let policy = Policy {
        cache_control: None,
        ..PRIVATE
    };
    let report = check_with(guarded(policy), Some(TOKEN), false).await;
    assert_eq!(report.failed(), [("site", "private.public")], "{report}");
    let message = report.message(Status::Fail, "site", "private.public");
    assert!(
        message.contains("answers of the private view say `public` or `s-maxage`, so a shared cache may hand this caller's catalog to the next caller (RFC 9111 3.5)"),
        "{message}"
    );
    assert!(message.contains("(Cache-Control: public"), "{message}");
    // Every answer says `public`: no private.cache-control line claims they are private.
    assert!(report.lines("private.cache-control").is_empty(), "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_part_of_the_policy_fails_on_its_own() {
    for (policy, code) in [
        (
            Policy {
                vary: Some("Cookie"),
                ..PRIVATE
            },
            "private.vary",
        ),
        (
            Policy {
                cache_control: Some("max-age=60"),
                ..PRIVATE
            },
            "private.cache-control",
        ),
        (
            Policy {
                cors: Cors::WildcardCredentials,
                ..PRIVATE
            },
            "private.cors",
        ),
        (
            Policy {
                cors: Cors::Reflected,
                ..PRIVATE
            },
            "private.cors",
        ),
    ] {
        let report = check_with(guarded(policy), Some(TOKEN), false).await;
        assert_eq!(report.failed(), [("site", code)], "{report}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_private_switch_is_checked_without_credentials() {
    let everyone = Policy {
        cache_control: Some("private, no-cache"),
        vary: Some("Authorization"),
        ..PRIVATE
    };
    let open = |policy: Policy| {
        let catalog = Catalog::new([Skill::from_static(WELL_WRITTEN)]).unwrap();
        let inner: Router = skillpub_axum::router(catalog);
        inner.layer(axum::middleware::map_response(
            move |mut response: Response<Body>| async move {
                let headers = response.headers_mut();
                if let Some(value) = policy.cache_control {
                    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
                }
                if let Some(value) = policy.vary {
                    headers.append(header::VARY, HeaderValue::from_static(value));
                }
                response
            },
        ))
    };
    let report = check_with(open(everyone), None, true).await;
    assert!(report.passed(), "{report}");
    assert_eq!(report.lines("private.public")[0].status, Status::Ok);
    let public = Policy {
        cache_control: None,
        vary: None,
        ..PRIVATE
    };
    let report = check_with(open(public), None, true).await;
    assert_eq!(
        report.failed(),
        [("site", "private.public"), ("site", "private.vary")],
        "{report}"
    );
    // Without the expectation and without credentials, nothing is judged.
    let report = check_with(open(public), None, false).await;
    assert!(report.lines("private.public").is_empty(), "{report}");
}

/// What a service was asked: (host, `Authorization`), per request.
type Asked = Arc<Mutex<Vec<(String, Option<String>)>>>;

#[tokio::test(flavor = "multi_thread")]
async fn credentials_never_follow_a_link_to_another_origin() {
    let other = "http://other.test";
    let site = Site::new(vec![
        (
            "/docs",
            ok("text/html", "<html>docs</html>")
                .with("link", &format!("<{other}{INDEX}>; rel=\"agent-skills\"")),
        ),
        (INDEX, answer(StatusCode::NOT_FOUND, "text/plain", "none")),
    ]);
    let asked = Asked::default();
    let seen = asked.clone();
    let inner = site.router();
    let app = Router::new().fallback(move |request: Request<Body>| {
        let text = |name| {
            let value = request.headers().get(name)?;
            value.to_str().ok().map(str::to_owned)
        };
        let entry = (
            text(header::HOST).unwrap_or_default(),
            text(header::AUTHORIZATION),
        );
        seen.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(entry);
        let inner = inner.clone();
        async move { inner.oneshot(request).await.unwrap() }
    });
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let site = Url::parse(ORIGIN).unwrap();
        let token = BearerToken::new(TOKEN).unwrap();
        let client = Client::new(ServiceTransport::new(app, runtime))
            .with_credentials(Credentials::new(&site).unwrap().with_bearer(&token));
        check(&client, &format!("{ORIGIN}/docs"), &CheckOptions::default())
    })
    .await
    .unwrap();
    let asked = asked.lock().unwrap().clone();
    let bearer = Some(format!("Bearer {TOKEN}"));
    assert!(
        asked.iter().any(|(host, _)| host == "other.test"),
        "{asked:?}"
    );
    for (host, authorization) in &asked {
        let expected = if host == "skillpub.test" {
            &bearer
        } else {
            &None
        };
        assert_eq!(authorization, expected, "{host}: {asked:?}");
    }
}
