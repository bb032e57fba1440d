//! Addressed paths the catalog does not serve, answered from a shared store.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;

use super::*;
use crate::store::{ArtifactStore, STORED_ARTIFACT_LIMIT, StoreFetch, StoreRefusal};
use crate::{Private, PrivateError};

/// A store in memory that counts its reads and records what the router refused.
#[derive(Debug, Default)]
struct Memory {
    objects: HashMap<String, Result<Bytes, String>>,
    reads: Mutex<Vec<String>>,
    refused: Mutex<Vec<String>>,
}

impl ArtifactStore for std::sync::Arc<Memory> {
    fn fetch(&self, path: &str, limit: usize) -> StoreFetch {
        assert_eq!(limit, STORED_ARTIFACT_LIMIT);
        self.reads.lock().unwrap().push(path.to_owned());
        let found = self.objects.get(path).cloned();
        Box::pin(async move {
            match found {
                None => Ok(None),
                Some(Ok(bytes)) => Ok(Some(bytes)),
                Some(Err(error)) => Err(error.into()),
            }
        })
    }

    fn refused(&self, path: &str, refusal: &StoreRefusal<'_>) {
        self.refused
            .lock()
            .unwrap()
            .push(format!("{path}: {refusal}"));
    }
}

/// The next revision of `greeting`, which another replica serves: its addressed path and bytes.
fn next_revision() -> (String, Bytes) {
    let next = Catalog::new([Skill::from_static(
        "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello, then wave.\n",
    )])
    .unwrap();
    let skill_md = next.get("greeting").unwrap().skill_md();
    (
        skill_md.addressed_path().unwrap().to_owned(),
        skill_md.bytes().clone(),
    )
}

fn app_with(store: &std::sync::Arc<Memory>) -> Router {
    RouterBuilder::new(catalog())
        .store(std::sync::Arc::clone(store))
        .build()
}

#[tokio::test]
async fn an_artifact_of_another_replica_is_served_from_the_store_once_verified() {
    let (path, bytes) = next_revision();
    let store = std::sync::Arc::new(Memory {
        objects: HashMap::from([(path.clone(), Ok(bytes.clone()))]),
        ..Memory::default()
    });
    let app = app_with(&store);
    let answer = send(app.clone(), Method::GET, &path, &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, bytes);
    assert_eq!(
        header(&answer, CONTENT_TYPE),
        "text/markdown; charset=utf-8"
    );
    assert_eq!(
        header(&answer, CACHE_CONTROL),
        crate::ADDRESSED_CACHE_CONTROL
    );
    assert_eq!(header(&answer, ETAG), format!("\"{}\"", Digest::of(&bytes)));
    assert_eq!(
        header(&answer, http::header::LINK),
        "</.well-known/agent-skills/greeting/SKILL.md>; rel=\"canonical\""
    );
    assert_common_headers(&answer);
    let head = send(app.clone(), Method::HEAD, &path, &[]).await;
    assert_eq!(head.status, StatusCode::OK);
    assert_eq!(head.headers, answer.headers);
    assert!(head.body.is_empty());
    let etag = header(&answer, ETAG).to_owned();
    let revalidated = send(app.clone(), Method::GET, &path, &[("if-none-match", &etag)]).await;
    assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED);
    let brotli = send(app, Method::GET, &path, &[("accept-encoding", "br")]).await;
    assert_eq!(brotli.status, StatusCode::OK);
    assert_eq!(
        header(&brotli, ETAG),
        format!("\"{}-br\"", Digest::of(&bytes))
    );
    assert_eq!(store.reads.lock().unwrap().len(), 1, "read once, then kept");
    assert!(store.refused.lock().unwrap().is_empty());
}

#[tokio::test]
async fn other_bytes_too_many_bytes_and_a_failing_store_are_never_served() {
    let (path, bytes) = next_revision();
    let archive = path.replace("/greeting/SKILL.md", "/greeting.tar.gz");
    let zip = path.replace("/greeting/SKILL.md", "/greeting.zip");
    let store = std::sync::Arc::new(Memory {
        objects: HashMap::from([
            (path.clone(), Ok(Bytes::from_static(b"tampered\n"))),
            (
                archive.clone(),
                Ok(Bytes::from(vec![0; STORED_ARTIFACT_LIMIT + 1])),
            ),
            (zip.clone(), Err("connection reset".to_owned())),
        ]),
        ..Memory::default()
    });
    let app = app_with(&store);
    for asked in [&path, &archive, &zip] {
        let answer = send(app.clone(), Method::GET, asked, &[]).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{asked}");
        assert_eq!(header(&answer, CACHE_CONTROL), "no-store", "{asked}");
        assert_common_headers(&answer);
    }
    let refused = store.refused.lock().unwrap().clone();
    assert_eq!(refused.len(), 3, "{refused:?}");
    assert!(refused[0].contains("other bytes"), "{refused:?}");
    assert!(refused[1].contains("more than"), "{refused:?}");
    assert!(refused[2].contains("connection reset"), "{refused:?}");
    // Nothing refused is kept: the next request reads again.
    let _ = send(app, Method::GET, &path, &[]).await;
    assert_eq!(store.reads.lock().unwrap().len(), 4);
    assert_ne!(Digest::of(&bytes), Digest::of(b"tampered\n"));
}

#[tokio::test]
async fn only_unserved_addressed_skill_md_and_archives_are_looked_for() {
    let store = std::sync::Arc::new(Memory::default());
    let app = app_with(&store);
    let catalog = catalog();
    let served = catalog
        .get("greeting")
        .unwrap()
        .skill_md()
        .addressed_path()
        .unwrap()
        .to_owned();
    assert_eq!(
        send(app.clone(), Method::GET, &served, &[]).await.status,
        StatusCode::OK
    );
    let unknown = Digest::of(b"x").hex();
    for path in [
        format!("/.well-known/agent-skills/sha256-{unknown}/greeting/forms.md"),
        format!("/.well-known/agent-skills/sha256-{unknown}/Greeting/SKILL.md"),
        "/.well-known/agent-skills/nope/SKILL.md".to_owned(),
    ] {
        assert_eq!(
            send(app.clone(), Method::GET, &path, &[]).await.status,
            StatusCode::NOT_FOUND
        );
    }
    let absent = format!("/.well-known/agent-skills/sha256-{unknown}/greeting/SKILL.md");
    let answer = send(app.clone(), Method::DELETE, &absent, &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(
        store.reads.lock().unwrap().is_empty(),
        "only GET and HEAD read"
    );
    let answer = send(app, Method::GET, &absent, &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(header(&answer, CACHE_CONTROL), "no-store");
    assert_eq!(*store.reads.lock().unwrap(), [absent]);
}

#[test]
fn a_store_beside_private_or_per_host_views_is_refused() {
    let store = std::sync::Arc::new(Memory::default());
    let private = RouterBuilder::new(catalog())
        .private(Private::new())
        .store(std::sync::Arc::clone(&store))
        .try_build::<()>();
    assert_eq!(private.unwrap_err(), PrivateError::StoreBesideViews);
    let hosts = crate::Hosts::new()
        .host("a.example.com", catalog())
        .unwrap();
    let per_host = RouterBuilder::hosts(hosts).store(store).try_build::<()>();
    assert_eq!(per_host.unwrap_err(), PrivateError::StoreBesideViews);
}
