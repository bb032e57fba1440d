//! Serves skills held in memory from a live catalog: with `SKILLPUB_ADMIN_TOKEN` set, an admin
//! adds, replaces and removes skills over HTTP, and the index changes without a restart.
//!
//! ```sh
//! SKILLPUB_ADMIN_TOKEN=secret cargo run --example live
//! # add or replace a skill (201 or 200), then remove it (204):
//! curl -X PUT -H 'Authorization: Bearer secret' --data-binary @SKILL.md \
//!     http://127.0.0.1:3000/admin/skills/my-skill
//! curl -X DELETE -H 'Authorization: Bearer secret' http://127.0.0.1:3000/admin/skills/my-skill
//! ```
//!
//! An invalid `SKILL.md` gets `400` with every problem as JSON, and the catalog is unchanged.
//! Without the variable there is no admin route at all.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::put;
use serde_json::{Value, json};
use skillpub::model::{Digest, paths::INDEX_PATH, spec::validate_name};
use skillpub::{Catalog, Errors, LiveCatalog, Skill};

static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

/// The address to listen on when `SKILLPUB_ADDR` is not set.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

/// The largest `SKILL.md` an admin may upload; a larger body gets `413`.
const MAX_SKILL_MD: usize = 256 * 1024;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let skills = BTreeMap::from([
        (
            "verify-skill-digests".to_owned(),
            VERIFY_SKILL_DIGESTS.clone(),
        ),
        ("write-skill-md".to_owned(), WRITE_SKILL_MD.clone()),
    ]);
    let live = LiveCatalog::new(Catalog::new(skills.values())?);
    let mut app = Router::new().merge(skillpub::web::live_router(live.clone()));
    match std::env::var("SKILLPUB_ADMIN_TOKEN") {
        Ok(token) if token.is_empty() => {
            return Err("SKILLPUB_ADMIN_TOKEN is empty; set it to a secret, or unset it".into());
        }
        Ok(token) => app = app.merge(admin(Admin::new(live, skills, token))),
        Err(_) => eprintln!("SKILLPUB_ADMIN_TOKEN is not set: the catalog is read-only"),
    }

    let addr = std::env::var("SKILLPUB_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.to_owned());
    let listener = skillpub::web::serve::bind(addr).await?;
    println!(
        "Agent Skills index: http://{}{INDEX_PATH}",
        listener.local_addr()?
    );
    // Header-read and idle timeouts, flood resistance, graceful shutdown on Ctrl-C or SIGTERM.
    skillpub::web::serve(listener, app).await?;
    Ok(())
}

/// What the admin routes change: the skills by name, and the live catalog built from them.
struct Admin {
    live: LiveCatalog,
    /// Held from reading the skills until the new catalog is published, so that two admins
    /// editing at once never lose an edit.
    skills: Mutex<BTreeMap<String, Skill>>,
    token: Digest,
}

impl Admin {
    fn new(live: LiveCatalog, skills: BTreeMap<String, Skill>, token: String) -> Arc<Self> {
        Arc::new(Self {
            live,
            skills: Mutex::new(skills),
            token: Digest::of(token.as_bytes()),
        })
    }

    /// Whether `headers` carry `Authorization: Bearer <token>`. The digests of the two tokens
    /// are compared in constant time, so the time taken tells nothing of the token.
    fn authorizes(&self, headers: &HeaderMap) -> bool {
        // The scheme is case-insensitive (RFC 9110); the token is compared whole.
        let Some(given) = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.as_bytes().split_at_checked(7))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"Bearer "))
            .map(|(_, token)| token)
        else {
            return false;
        };
        let given = Digest::of(given);
        let differences = given
            .as_bytes()
            .iter()
            .zip(self.token.as_bytes())
            .fold(0, |differences, (a, b)| differences | (a ^ b));
        std::hint::black_box(differences) == 0
    }

    /// Publishes the catalog of `skills` after `edit`, or answers every problem with `400`
    /// and keeps the catalog as it was.
    fn edit(&self, edit: impl FnOnce(&mut BTreeMap<String, Skill>) -> Response) -> Response {
        let mut skills = self.skills.lock().unwrap_or_else(PoisonError::into_inner);
        let mut edited = skills.clone();
        let answer = edit(&mut edited);
        if !answer.status().is_success() {
            return answer;
        }
        match Catalog::new(edited.values()) {
            Ok(catalog) => {
                self.live.replace(catalog);
                *skills = edited;
                answer
            }
            Err(errors) => invalid(&errors),
        }
    }
}

/// `PUT` and `DELETE` on `/admin/skills/{name}`, behind the token, with the body bounded.
fn admin(admin: Arc<Admin>) -> Router {
    Router::new()
        .route("/admin/skills/{name}", put(put_skill).delete(delete_skill))
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(&admin),
            require_token,
        ))
        .layer(DefaultBodyLimit::max(MAX_SKILL_MD))
        .with_state(admin)
}

/// `401` without the right token, before the body is read.
async fn require_token(State(admin): State<Arc<Admin>>, request: Request, next: Next) -> Response {
    if admin.authorizes(request.headers()) {
        next.run(request).await
    } else {
        let body = json!({ "error": "send `Authorization: Bearer <SKILLPUB_ADMIN_TOKEN>`" });
        let mut answer = json_answer(StatusCode::UNAUTHORIZED, &body);
        answer.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
        answer
    }
}

/// Adds the skill (`201`) or replaces it (`200`).
async fn put_skill(
    State(admin): State<Arc<Admin>>,
    Path(name): Path<String>,
    skill_md: Bytes,
) -> Response {
    let problems = validate_name(&name);
    if !problems.is_empty() {
        let problems: Vec<Value> = problems
            .iter()
            .map(|kind| json!({ "code": kind.code(), "message": format!("skill name in the path: {kind}") }))
            .collect();
        return json_answer(StatusCode::BAD_REQUEST, &json!({ "errors": problems }));
    }
    // The path's name is the skill's folder, so the catalog checks that the frontmatter's
    // name is the same.
    let skill = Skill::new(Some(name.clone()), skill_md);
    admin.edit(|skills| {
        let status = match skills.insert(name.clone(), skill) {
            Some(_) => StatusCode::OK,
            None => StatusCode::CREATED,
        };
        json_answer(status, &json!({ "name": name }))
    })
}

/// Removes the skill (`204`), or `404` when there is none by that name.
async fn delete_skill(State(admin): State<Arc<Admin>>, Path(name): Path<String>) -> Response {
    admin.edit(|skills| match skills.remove(&name) {
        Some(_) => StatusCode::NO_CONTENT.into_response(),
        None => {
            let body = json!({ "error": format!("no skill named `{name}`") });
            json_answer(StatusCode::NOT_FOUND, &body)
        }
    })
}

/// `400` with every problem of the catalog the edit would have made.
fn invalid(errors: &Errors) -> Response {
    let problems: Vec<Value> = errors
        .into_iter()
        .map(|error| {
            json!({
                "code": error.code(),
                "skill": error.skill(),
                "file": error.file(),
                "field": error.field(),
                "message": error.to_string(),
            })
        })
        .collect();
    json_answer(StatusCode::BAD_REQUEST, &json!({ "errors": problems }))
}

fn json_answer(status: StatusCode, body: &Value) -> Response {
    let content_type = [(header::CONTENT_TYPE, "application/json")];
    (status, content_type, body.to_string()).into_response()
}
