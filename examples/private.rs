//! Serves the example skills to everyone and an internal skill besides to callers with the
//! bearer token in `SKILLPUB_PRIVATE_TOKEN`, at `/.well-known/agent-skills/` and over MCP at
//! `/mcp`: the credentialed view under the private policy, browser pages of the origins in
//! `SKILLPUB_ALLOWED_ORIGINS` (comma-separated) allowed to send the token. Auth is the app's:
//! tower-http's `ValidateRequestHeaderLayer` with a check of its own, wrapped in skillpub's
//! `RefusalLayer` so that a wrong token gets `401` with the challenge.
//!
//! ```sh
//! SKILLPUB_PRIVATE_TOKEN=secret SKILLPUB_ALLOWED_ORIGINS=http://localhost:5173 \
//!     cargo run --example private --features mcp
//! curl http://127.0.0.1:3000/.well-known/agent-skills/index.json          # 2 skills
//! curl -H 'Authorization: Bearer secret' \
//!     http://127.0.0.1:3000/.well-known/agent-skills/index.json          # 3 skills
//! curl -i -H 'Authorization: Bearer wrong' \
//!     http://127.0.0.1:3000/.well-known/agent-skills/index.json          # 401
//! ```
//!
//! Without `SKILLPUB_PRIVATE_TOKEN` there is no credentialed view: everyone gets the example
//! skills, under the public policy.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use skillpub::mcp::{HttpOptions, McpCallers, McpSkills};
use skillpub::model::Digest;
use skillpub::model::paths::INDEX_PATH;
use skillpub::web::{Callers, Private, RefusalLayer, RouterBuilder, Visibility};
use skillpub::{Catalog, Skill};
use tower::ServiceBuilder;
use tower_http::validate_request::{ValidateRequest, ValidateRequestHeaderLayer};

static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

/// The skill only staff see.
static RELEASE_CHECKLIST: Skill = Skill::from_static_in(
    "skills/release-checklist",
    "---\nname: release-checklist\ndescription: Walks staff through the internal release checklist before a deploy.\n---\n\
     # Release checklist\n\n1. Announce the release in the staff channel.\n2. Run the internal smoke tests.\n3. Deploy, then watch the dashboards for ten minutes.\n",
);

/// The address to listen on when `SKILLPUB_ADDR` is not set.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

/// What the auth layer puts into the extensions of a request with the right token: the key of
/// the credentialed view, on the HTTP routes and over MCP.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Staff;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let everyone = Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD])?;
    let app = match std::env::var("SKILLPUB_PRIVATE_TOKEN") {
        Ok(token) if token.is_empty() => {
            return Err("SKILLPUB_PRIVATE_TOKEN is empty; set it to a secret, or unset it".into());
        }
        Ok(token) => with_staff(everyone, &token)?,
        Err(_) => {
            eprintln!("SKILLPUB_PRIVATE_TOKEN is not set: everyone gets the public skills");
            let mcp = surfaces(McpSkills::builder(everyone.clone()))?
                .streamable_http_service(HttpOptions::default())?;
            Router::new()
                .merge(skillpub::web::router(everyone))
                .nest_service("/mcp", mcp)
        }
    };

    let addr = std::env::var("SKILLPUB_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.to_owned());
    let listener = skillpub::web::serve::bind(addr).await?;
    let local = listener.local_addr()?;
    println!("Agent Skills index: http://{local}{INDEX_PATH}");
    println!("MCP endpoint: http://{local}/mcp");
    // Header-read and idle timeouts, flood resistance, graceful shutdown on Ctrl-C or SIGTERM.
    skillpub::web::serve(listener, app).await?;
    Ok(())
}

/// The app with a credentialed view: the public skills for everyone, the internal one
/// besides for `Authorization: Bearer <token>`.
fn with_staff(everyone: Catalog, token: &str) -> Result<Router, Box<dyn std::error::Error>> {
    let staff = Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD, &RELEASE_CHECKLIST])?;
    let origins: Vec<String> = std::env::var("SKILLPUB_ALLOWED_ORIGINS")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|origin| !origin.is_empty())
        .map(str::to_owned)
        .collect();
    let private = Private::new().allow_origins(origins.clone());

    let callers = Callers::by_extension::<Staff>()
        .catalog(Staff, Visibility::Private, staff.clone())
        .default_catalog(Visibility::Public, everyone.clone());
    let web = RouterBuilder::callers(callers)
        .private(private.clone())
        .try_build()?;

    let mut options = HttpOptions::default().with_private(true);
    if !origins.is_empty() {
        options = options.with_allowed_origins(origins);
    }
    let mcp = McpCallers::by_extension::<Staff>()
        .caller(Staff, surfaces(McpSkills::builder(staff))?)
        .default_skills(surfaces(McpSkills::builder(everyone))?)
        .streamable_http_service(options)?;

    // The refusal layer outside the auth: its 401 gets the challenge, the CORS headers of
    // an allowed origin and `private, no-store`.
    let auth = StaffToken(Digest::of(token.as_bytes()));
    Ok(Router::new().merge(web).nest_service("/mcp", mcp).layer(
        ServiceBuilder::new()
            .layer(RefusalLayer::new(&private)?)
            .layer(ValidateRequestHeaderLayer::custom(auth)),
    ))
}

/// The MCP surfaces for hosts without the skills extension: prompts, tools, instructions.
fn surfaces(
    builder: skillpub::mcp::McpSkillsBuilder,
) -> Result<McpSkills, Box<dyn std::error::Error>> {
    Ok(builder
        .prompts(true)
        .tools(true)
        .instructions(true)
        .build()?)
}

/// The app's auth, as tower-http's `ValidateRequest`: no `Authorization` is an anonymous
/// caller (the public view, and every CORS preflight, which never carries credentials);
/// `Bearer <token>` is staff; anything else is `401`. Holds the digest of the token: the
/// digests of the two tokens are compared in constant time.
#[derive(Clone)]
struct StaffToken(Digest);

impl ValidateRequest<Body> for StaffToken {
    type ResponseBody = Body;

    fn validate(&mut self, request: &mut Request<Body>) -> Result<(), Response<Body>> {
        let Some(value) = request.headers().get(header::AUTHORIZATION) else {
            return Ok(());
        };
        // The scheme is case-insensitive (RFC 9110); the token is compared whole.
        let given = value
            .as_bytes()
            .split_at_checked(7)
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"Bearer "))
            .map(|(_, given)| Digest::of(given));
        let matches = given.is_some_and(|given| {
            let differences = given
                .as_bytes()
                .iter()
                .zip(self.0.as_bytes())
                .fold(0, |differences, (a, b)| differences | (a ^ b));
            std::hint::black_box(differences) == 0
        });
        if matches {
            request.extensions_mut().insert(Staff);
            Ok(())
        } else {
            let mut refused = Response::new(Body::empty());
            *refused.status_mut() = StatusCode::UNAUTHORIZED;
            Err(refused)
        }
    }
}
