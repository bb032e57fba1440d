//! The private policy and catalogs per caller, over real TCP on 127.0.0.1: every answer of a
//! private view (200, 304, 404, 405, 406, 412, preflight) is never `public`, varies on the
//! credential headers, and allows credentialed CORS for the listed origins only; public views
//! beside private ones keep the public policy and vary on the credential headers; each caller
//! gets its own catalog; the app's 401 and 403, through `RefusalLayer`, carry the challenge,
//! the CORS headers and `private, no-store`.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response as AxumResponse;
use http::{HeaderValue, StatusCode, header};
use skillpub_axum::{
    Callers, FORBIDDEN_TEXT, Hosts, Private, PrivateError, RefusalLayer, RouterBuilder,
    UNAUTHORIZED_TEXT, Visibility,
};
use skillpub_core::{Catalog, Skill, SkillFile};
use skillpub_testkit::{Response, request, serve};
use tower::ServiceBuilder;
use tower_http::validate_request::ValidateRequestHeaderLayer;

const INDEX: &str = "/.well-known/agent-skills/index.json";
const ALLOWED: &str = "http://127.0.0.1:5173";
const OTHER: &str = "http://127.0.0.1:5174";

fn public_catalog() -> Catalog {
    Catalog::new([Skill::from_static(
        "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
    )])
    .unwrap()
}

/// The staff catalog: the public skill, and an internal one with a supporting file (so it
/// has an archive and an addressed path).
fn staff_catalog() -> Catalog {
    let internal = Skill::new(
        None,
        "---\nname: deploy\ndescription: Deploys the internal services.\n---\nRead steps.md first.\n"
            .to_owned(),
    )
    .with_files(vec![SkillFile::new("steps.md", "# Steps\n\nDeploy.\n", false)]);
    Catalog::new([
        Skill::from_static(
            "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
        ),
        internal,
    ])
    .unwrap()
}

/// What the test's auth puts into the extensions of a request it let in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Team {
    Staff,
    Contractors,
}

/// The test's auth: `Bearer staff` and `Bearer contractor` are callers, no `Authorization`
/// is anonymous, anything else is `401`; `Bearer banned` is `403`.
#[expect(
    clippy::result_large_err,
    reason = "tower-http's ValidateRequest refuses with a whole response"
)]
fn authorize(request: &mut Request<Body>) -> Result<(), http::Response<Body>> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return Ok(());
    };
    let team = match value.as_bytes() {
        b"Bearer staff" => Team::Staff,
        b"Bearer contractor" => Team::Contractors,
        b"Bearer banned" => {
            return Err(http::Response::builder()
                .status(StatusCode::FORBIDDEN)
                .body(Body::empty())
                .unwrap());
        }
        _ => {
            return Err(http::Response::builder()
                .status(StatusCode::UNAUTHORIZED)
                .body(Body::empty())
                .unwrap());
        }
    };
    request.extensions_mut().insert(team);
    Ok(())
}

fn private() -> Private {
    Private::new().allow_origins([ALLOWED])
}

/// The app: staff get a private view, contractors none (the 404 of the policy), everyone
/// else the public one; behind the test's auth and a `RefusalLayer`.
async fn app() -> SocketAddr {
    let callers = Callers::by_extension::<Team>()
        .catalog(Team::Staff, Visibility::Private, staff_catalog())
        .default_catalog(Visibility::Public, public_catalog());
    let skills: Router = RouterBuilder::callers(callers)
        .private(private())
        .try_build()
        .unwrap();
    serve(
        skills.layer(
            ServiceBuilder::new()
                .layer(RefusalLayer::new(&private()).unwrap())
                .layer(ValidateRequestHeaderLayer::custom(authorize)),
        ),
    )
    .await
}

/// Asserts what every private answer carries: `Cache-Control` with `private` or `no-store`
/// and without `public` or `s-maxage`, `Vary` naming the credential headers and `Origin`,
/// CORS for `origin` only when it is allowed, and never `*`.
#[track_caller]
fn assert_private(answer: &Response, origin: Option<&str>) {
    let what = answer.status_line().to_owned();
    let cache = answer.header("cache-control").expect("Cache-Control");
    assert!(
        cache.contains("private") || cache.contains("no-store"),
        "{what}: {cache}"
    );
    assert!(
        !cache.contains("public") && !cache.contains("s-maxage"),
        "{what}: {cache}"
    );
    let vary = answer.header("vary").expect("Vary");
    for name in ["Authorization", "Cookie", "Origin"] {
        assert!(vary.contains(name), "{what}: Vary {vary}");
    }
    match origin {
        Some(origin) if origin == ALLOWED => {
            assert_eq!(answer.header("access-control-allow-origin"), Some(ALLOWED));
            assert_eq!(
                answer.header("access-control-allow-credentials"),
                Some("true")
            );
        }
        _ => {
            assert_eq!(answer.header("access-control-allow-origin"), None, "{what}");
            assert_eq!(answer.header("access-control-allow-credentials"), None);
        }
    }
}

#[tokio::test]
async fn each_caller_gets_its_own_index_and_artifacts() {
    let addr = app().await;
    let anonymous = request(addr, "GET", INDEX, &[]).await;
    assert_eq!(anonymous.skill_names(), ["greeting"]);
    let staff = request(addr, "GET", INDEX, &[("authorization", "Bearer staff")]).await;
    assert_eq!(staff.skill_names(), ["deploy", "greeting"]);

    let catalog = staff_catalog();
    let deploy = catalog.get("deploy").unwrap();
    for path in [
        deploy.skill_md().path(),
        deploy.url(),
        "/.well-known/agent-skills/deploy/steps.md",
    ] {
        let theirs = request(addr, "GET", path, &[("authorization", "Bearer staff")]).await;
        assert_eq!(theirs.status, 200, "{path}");
        assert_private(&theirs, None);
        let not_theirs = request(addr, "GET", path, &[]).await;
        assert_eq!(not_theirs.status, 404, "{path}: {}", not_theirs.text());
    }
    // A caller whose key has no catalog of its own gets the default one.
    let contractor = request(
        addr,
        "GET",
        INDEX,
        &[("authorization", "Bearer contractor")],
    )
    .await;
    assert_eq!(contractor.skill_names(), ["greeting"]);
}

/// `credentials`, `Origin: origin` if any, and `more`.
fn with_origin<'a>(
    credentials: (&'a str, &'a str),
    origin: Option<&'a str>,
    more: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![credentials];
    headers.extend(origin.map(|o| ("origin", o)));
    headers.extend_from_slice(more);
    headers
}

#[tokio::test]
async fn every_answer_of_a_private_view_is_private_and_credentialed_for_allowed_origins_only() {
    let addr = app().await;
    let catalog = staff_catalog();
    let deploy = catalog.get("deploy").unwrap();
    let etag = format!("\"{}\"", deploy.skill_md().digest());
    let etag = etag.as_str();
    let staff = ("authorization", "Bearer staff");
    for origin in [Some(ALLOWED), Some(OTHER), None] {
        let with = |more| with_origin(staff, origin, more);
        let cases = [
            ("GET", INDEX, with(&[]), 200),
            ("GET", deploy.url(), with(&[]), 200),
            (
                "GET",
                deploy.skill_md().path(),
                with(&[("if-none-match", etag)]),
                304,
            ),
            (
                "GET",
                "/.well-known/agent-skills/nothing/SKILL.md",
                with(&[]),
                404,
            ),
            ("POST", INDEX, with(&[]), 405),
            (
                "GET",
                deploy.skill_md().path(),
                with(&[("accept-encoding", "*;q=0")]),
                406,
            ),
            (
                "GET",
                deploy.skill_md().path(),
                with(&[("if-match", "\"other\"")]),
                412,
            ),
            ("HEAD", deploy.url(), with(&[]), 200),
        ];
        for (method, path, headers, status) in cases {
            let answer = request(addr, method, path, &headers).await;
            assert_eq!(answer.status, status, "{method} {path} {origin:?}");
            assert_private(&answer, origin);
        }
    }
    let addressed = request(addr, "GET", deploy.url(), &[staff]).await;
    assert_eq!(
        addressed.header("cache-control"),
        Some("private, max-age=31536000, immutable, no-transform")
    );
    let not_found = request(
        addr,
        "GET",
        "/.well-known/agent-skills/x/SKILL.md",
        &[staff],
    )
    .await;
    assert_eq!(not_found.header("cache-control"), Some("private, no-store"));
}

#[tokio::test]
async fn public_views_beside_private_ones_stay_public_and_vary_on_the_credential_headers() {
    let addr = app().await;
    for origin in [ALLOWED, OTHER] {
        let index = request(addr, "GET", INDEX, &[("origin", origin)]).await;
        assert_eq!(
            index.header("cache-control"),
            Some("public, no-cache, no-transform")
        );
        assert_eq!(index.header("access-control-allow-origin"), Some("*"));
        assert_eq!(
            index.header("vary"),
            Some("Accept-Encoding, Authorization, Cookie")
        );
        let missing = request(addr, "GET", "/.well-known/agent-skills/x/SKILL.md", &[]).await;
        assert_eq!(missing.header("vary"), Some("Authorization, Cookie"));
    }
    // A router without private views is unchanged: no `Vary` on credentials.
    let plain = serve(skillpub_axum::router(public_catalog())).await;
    let index = request(plain, "GET", INDEX, &[]).await;
    assert_eq!(index.header("vary"), Some("Accept-Encoding"));
}

/// A CORS preflight of the index from `origin`, for a `GET` that sends `Authorization`.
async fn preflight(addr: SocketAddr, origin: &str) -> Response {
    let headers = [
        ("origin", origin),
        ("access-control-request-method", "GET"),
        ("access-control-request-headers", "authorization"),
    ];
    request(addr, "OPTIONS", INDEX, &headers).await
}

#[tokio::test]
async fn a_preflight_allows_authorization_and_names_an_allowed_origin_back() {
    let addr = app().await;
    let allowed = preflight(addr, ALLOWED).await;
    assert_eq!(allowed.status, 204);
    assert_eq!(
        allowed.header("access-control-allow-headers"),
        Some("If-None-Match, If-Match, Authorization")
    );
    assert_eq!(allowed.header("access-control-allow-origin"), Some(ALLOWED));
    assert_eq!(
        allowed.header("access-control-allow-credentials"),
        Some("true")
    );
    assert_eq!(
        allowed.header("vary"),
        Some("Origin, Authorization, Cookie")
    );
    // It names an origin with credentials, so it is not `public` either.
    assert_eq!(
        allowed.header("cache-control"),
        Some("private, no-cache, no-transform")
    );
    // Another origin may still read the public view without credentials.
    let other = preflight(addr, OTHER).await;
    assert_eq!(other.header("access-control-allow-origin"), Some("*"));
    assert_eq!(other.header("access-control-allow-credentials"), None);

    // On a router whose every view is private, no origin but the allowed one gets any.
    let private_only: Router = RouterBuilder::new(staff_catalog())
        .private(private())
        .try_build()
        .unwrap();
    let addr = serve(private_only).await;
    let other = request(
        addr,
        "OPTIONS",
        INDEX,
        &[("origin", OTHER), ("access-control-request-method", "GET")],
    )
    .await;
    assert_private(&other, Some(OTHER));
    assert_eq!(
        other.header("access-control-allow-headers"),
        Some("If-None-Match, If-Match, Authorization")
    );
}

#[tokio::test]
async fn a_refusal_says_log_in_or_not_allowed_with_the_challenge_and_the_cors_headers() {
    let addr = app().await;
    let unauthorized = request(
        addr,
        "GET",
        INDEX,
        &[("authorization", "Bearer wrong"), ("origin", ALLOWED)],
    )
    .await;
    assert_eq!(unauthorized.status, 401);
    assert_eq!(
        unauthorized.header("www-authenticate"),
        Some("Bearer realm=\"agent-skills\"")
    );
    assert_eq!(
        unauthorized.header("access-control-expose-headers"),
        Some("WWW-Authenticate")
    );
    assert_private(&unauthorized, Some(ALLOWED));
    assert_eq!(
        unauthorized.header("cache-control"),
        Some("private, no-store")
    );
    assert_eq!(unauthorized.text(), UNAUTHORIZED_TEXT);

    let forbidden = request(addr, "GET", INDEX, &[("authorization", "Bearer banned")]).await;
    assert_eq!(forbidden.status, 403);
    assert_eq!(forbidden.header("www-authenticate"), None);
    assert_private(&forbidden, None);
    assert_eq!(forbidden.text(), FORBIDDEN_TEXT);
}

#[tokio::test]
async fn a_refusal_keeps_the_apps_own_challenge_and_body() {
    async fn own(_: Request, _: Next) -> AxumResponse {
        http::Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .header(header::WWW_AUTHENTICATE, "Basic realm=\"staff\"")
            .body(Body::from("use your staff password"))
            .unwrap()
    }
    let app = Router::new()
        .route("/", axum::routing::get(|| async { "never" }))
        .layer(middleware::from_fn(own))
        .layer(RefusalLayer::new(&private()).unwrap());
    let addr = serve(app).await;
    let answer = request(addr, "GET", "/", &[]).await;
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.header("www-authenticate"),
        Some("Basic realm=\"staff\"")
    );
    assert_eq!(answer.text(), "use your staff password");
    assert_eq!(answer.header("cache-control"), Some("private, no-store"));
    // Other answers pass untouched.
    let ok = serve(
        Router::new()
            .route("/", axum::routing::get(|| async { "fine" }))
            .layer(RefusalLayer::new(&private()).unwrap()),
    )
    .await;
    let answer = request(ok, "GET", "/", &[]).await;
    assert_eq!(answer.header("cache-control"), None);
    assert_eq!(answer.text(), "fine");
}

#[test]
fn a_private_view_refuses_at_build_any_cache_control_a_shared_cache_may_reuse() {
    let build = |private: Private| {
        RouterBuilder::new(staff_catalog())
            .private(private)
            .try_build::<()>()
            .map(drop)
    };
    let leaky = |value: &'static str| Private::new().cache_control(HeaderValue::from_static(value));
    assert!(build(Private::new()).is_ok());
    for value in ["public, max-age=60", "private, s-maxage=60", "max-age=60"] {
        let error = build(leaky(value)).unwrap_err();
        assert!(
            matches!(
                &error,
                PrivateError::CacheControl {
                    knob: "cache_control",
                    ..
                }
            ),
            "{value}: {error}"
        );
    }
    let addressed = Private::new()
        .addressed_cache_control(HeaderValue::from_static("public, max-age=31536000"));
    assert!(build(addressed).is_err());
    let error = Private::new().error_cache_control(HeaderValue::from_static("public, max-age=10"));
    assert!(build(error).is_err());
    assert_eq!(
        build(Private::new().allow_origins(["*"])).unwrap_err(),
        PrivateError::Origin("*".to_owned())
    );
    assert_eq!(
        build(Private::new().credential_headers([])).unwrap_err(),
        PrivateError::NoCredentialHeader
    );
    let public_knob = RouterBuilder::new(staff_catalog())
        .error_cache_control(HeaderValue::from_static("no-store"))
        .private(Private::new())
        .try_build::<()>()
        .map(drop);
    assert_eq!(
        public_knob.unwrap_err(),
        PrivateError::PublicKnob("error_cache_control")
    );
    // `build` panics with the same message.
    let panicked = std::panic::catch_unwind(|| {
        RouterBuilder::new(staff_catalog())
            .private(leaky("public"))
            .build::<()>()
    });
    assert!(panicked.is_err());
}

#[tokio::test]
async fn a_key_from_a_closure_over_the_parts_picks_the_view_and_a_key_without_one_gets_a_private_404()
 {
    let callers = Callers::by(|parts| {
        let tenant = parts.headers.get("x-tenant")?.to_str().ok()?;
        Some(tenant.to_owned())
    })
    .catalog("acme".to_owned(), Visibility::Private, staff_catalog());
    let skills: Router = RouterBuilder::callers(callers).try_build().unwrap();
    let addr = serve(skills).await;
    let acme = request(addr, "GET", INDEX, &[("x-tenant", "acme")]).await;
    assert_eq!(acme.skill_names(), ["deploy", "greeting"]);
    assert_private(&acme, None);
    for headers in [&[("x-tenant", "globex")][..], &[]] {
        let nobody = request(addr, "GET", INDEX, headers).await;
        assert_eq!(nobody.status, 404);
        assert_private(&nobody, None);
    }
}

#[tokio::test]
async fn a_per_host_router_with_the_private_policy_is_private_on_every_host() {
    let hosts = Hosts::new()
        .host("staff.example.com", staff_catalog())
        .unwrap()
        .default_catalog(public_catalog());
    let skills: Router = RouterBuilder::hosts(hosts)
        .private(private())
        .try_build()
        .unwrap();
    let addr = serve(skills).await;
    let staff = request(
        addr,
        "GET",
        INDEX,
        &[("host", "staff.example.com"), ("origin", ALLOWED)],
    )
    .await;
    assert_eq!(staff.skill_names(), ["deploy", "greeting"]);
    assert_private(&staff, Some(ALLOWED));
    let other = request(addr, "GET", INDEX, &[("host", "www.example.com")]).await;
    assert_eq!(other.skill_names(), ["greeting"]);
    assert_private(&other, None);
}

/// An auth layer that refuses every request without the token, as tower-http's
/// `ValidateRequestHeaderLayer::bearer` does, refuses every CORS preflight too (a browser
/// sends none with credentials): `RefusalLayer` answers such a refused preflight as a
/// private view's, so a page of an allowed origin can still send the token, and the others
/// still cannot.
#[tokio::test]
async fn a_preflight_refused_by_an_auth_that_wants_a_token_everywhere_is_answered_as_private() {
    #[expect(
        deprecated,
        reason = "tower-http's bearer validation is the auth the issue names; it refuses every request without the token, preflights included"
    )]
    let bearer = ValidateRequestHeaderLayer::bearer("staff");
    let skills: Router = RouterBuilder::new(staff_catalog())
        .private(private())
        .try_build()
        .unwrap();
    let addr = serve(
        skills.layer(
            ServiceBuilder::new()
                .layer(RefusalLayer::new(&private()).unwrap())
                .layer(bearer),
        ),
    )
    .await;
    for origin in [ALLOWED, OTHER] {
        let answer = preflight(addr, origin).await;
        assert_eq!(answer.status, 204, "{origin}");
        assert_private(&answer, Some(origin));
        assert_eq!(
            answer.header("access-control-allow-headers"),
            Some("If-None-Match, If-Match, Authorization")
        );
        assert_eq!(
            answer.header("access-control-allow-methods"),
            Some("GET, HEAD, OPTIONS")
        );
    }
    // What is not a preflight keeps its refusal, and the token still opens the view.
    let plain = request(addr, "OPTIONS", INDEX, &[("origin", ALLOWED)]).await;
    assert_eq!(plain.status, 401);
    let refused = request(addr, "GET", INDEX, &[("origin", ALLOWED)]).await;
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.header("www-authenticate"),
        Some("Bearer realm=\"agent-skills\"")
    );
    let staff = [("origin", ALLOWED), ("authorization", "Bearer staff")];
    let index = request(addr, "GET", INDEX, &staff).await;
    assert_eq!(index.status, 200);
    assert_private(&index, Some(ALLOWED));
}
