//! Many entries on a slow site: fetched a few at a time, reported in index order, and the
//! whole run bounded by its deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode};
use skillpub_check::Status;

use crate::site::{INDEX, Lines, Run, SKILL_MD, at, check_app, entry, index};

/// A site whose index lists `count` `skill-md` entries `s0`, `s1`, ...; each GET or HEAD of
/// a skill waits `delay(position)` before answering (forever when `None`). Returns the app
/// and the most requests for skills that were in flight at once.
fn slow_site(
    count: usize,
    delay: impl Fn(usize) -> Option<Duration> + Send + Sync + 'static,
) -> (Router, Arc<AtomicUsize>) {
    let skill_md = |at: usize| SKILL_MD.replace("greeting", &format!("s{at}"));
    let entries: Vec<String> = (0..count)
        .map(|at| {
            entry(
                &format!("s{at}"),
                "skill-md",
                "Greets the user by name.",
                &format!("/.well-known/agent-skills/s{at}/SKILL.md"),
                skill_md(at).as_bytes(),
            )
        })
        .collect();
    let index = index(&entries.join(","));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let delay = Arc::new(delay);
    let (flying, highest) = (in_flight.clone(), most.clone());
    let app = Router::new().fallback(move |request: Request<Body>| {
        let (index, delay, flying, highest) = (
            index.clone(),
            delay.clone(),
            flying.clone(),
            highest.clone(),
        );
        async move {
            let path = request.uri().path().to_owned();
            let head = request.method() == Method::HEAD;
            let answer = |content_type: &'static str, body: String| {
                let length = body.len();
                let mut response =
                    Response::new(Body::from(if head { String::new() } else { body }));
                let headers = response.headers_mut();
                headers.insert("content-type", HeaderValue::from_static(content_type));
                headers.insert("content-length", HeaderValue::from(length));
                response
            };
            if path == INDEX {
                return answer("application/json", index);
            }
            let skill = path
                .strip_prefix("/.well-known/agent-skills/s")
                .and_then(|rest| rest.strip_suffix("/SKILL.md"))
                .and_then(|at| at.parse::<usize>().ok());
            let Some(at) = skill else {
                let mut response = answer("text/plain", "not found".into());
                *response.status_mut() = StatusCode::NOT_FOUND;
                return response;
            };
            let now = flying.fetch_add(1, Ordering::SeqCst) + 1;
            highest.fetch_max(now, Ordering::SeqCst);
            match delay(at) {
                Some(delay) => tokio::time::sleep(delay).await,
                None => std::future::pending::<()>().await,
            }
            flying.fetch_sub(1, Ordering::SeqCst);
            answer(
                "text/markdown; charset=utf-8",
                SKILL_MD.replace("greeting", &format!("s{at}")),
            )
        }
    });
    (app, most)
}

#[tokio::test(flavor = "multi_thread")]
async fn max_time_bounds_a_run_of_stalled_entries() {
    let (app, _) = slow_site(20, |_| None);
    let started = std::time::Instant::now();
    let run = Run {
        max_time: Some(Duration::from_secs(4)),
        ..Run::default()
    };
    let report = run.check(app, &at("/")).await;
    let took = started.elapsed();
    assert!(!report.passed());
    // Twenty stalled entries fetched one after the other took 20 x the timeout of a request
    // (40 s with `skillpub check --timeout 2`).
    assert!(took < Duration::from_secs(15), "{took:?}\n{report}");
    // Over HTTP the first entries run out of the timeout of a request, later ones of the run's;
    // in process a request has no timeout of its own, so all of them run out of the run's.
    let s0 = report
        .failed()
        .into_iter()
        .find(|(subject, _)| *subject == "s0");
    assert!(
        matches!(s0, Some((_, "fetch.timeout" | "run.max-time"))),
        "{s0:?}"
    );
    report.line(Status::Fail, "site", "run.max-time");
}

#[tokio::test(flavor = "multi_thread")]
async fn entries_are_fetched_a_few_at_a_time_and_reported_in_index_order() {
    // The first entries answer last.
    let count = 12;
    let (app, most) = slow_site(count, move |at| {
        Some(Duration::from_millis(50 * (count - at) as u64))
    });
    let report = check_app(app, "/").await;
    assert!(report.passed(), "{report}");
    let most = most.load(Ordering::SeqCst);
    assert!(
        (2..=skillpub_check::CONCURRENT_FETCHES).contains(&most),
        "{most} requests at once"
    );
    let subjects: Vec<&str> = report.checks.iter().map(|c| c.subject.as_str()).collect();
    let order: Vec<&str> = report
        .lines("entry.fields")
        .into_iter()
        .map(|c| c.subject.as_str())
        .collect();
    let expected: Vec<String> = (0..count).map(|at| format!("s{at}")).collect();
    assert_eq!(order, expected);
    let first_of_s1 = subjects.iter().position(|s| *s == "s1").unwrap();
    let last_of_s0 = subjects.iter().rposition(|s| *s == "s0").unwrap();
    assert!(
        last_of_s0 < first_of_s1,
        "the lines of one entry stay together: {subjects:?}"
    );
}
