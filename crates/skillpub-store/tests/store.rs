//! The shared store and the export, against a folder and a real S3-compatible server
//! (`moto_server`, skipped with a line when it is missing unless SKILLPUB_REQUIRE_EXTERNAL=1).
#![cfg_attr(
    not(feature = "s3"),
    allow(unused_imports, reason = "the S3 tests need the feature s3")
)]

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use skillpub_core::{Catalog, Skill, SkillFile};
use skillpub_store::{Retention, Store, StoreError};
use skillpub_testkit::{S3Server, Scratch, request_blocking, s3_server_or_skip};
use tower::ServiceExt;

/// Two skills at `revision`: `pdf` with a supporting file (so an archive) and `notes`.
fn catalog(revision: usize, with_notes: bool) -> Catalog {
    let pdf = Skill::new(
        None,
        format!("---\nname: pdf\ndescription: Fills PDF forms.\n---\nRevision {revision}.\n"),
    )
    .with_files(vec![SkillFile::new(
        "forms.md",
        format!("# Forms {revision}\n"),
        false,
    )]);
    let notes = Skill::new(
        None,
        "---\nname: notes\ndescription: Takes notes.\n---\nWrite.\n",
    );
    let skills = if with_notes {
        vec![pdf, notes]
    } else {
        vec![pdf]
    };
    Catalog::new(skills).unwrap()
}

fn addressed(catalog: &Catalog) -> Vec<(String, bytes::Bytes)> {
    catalog
        .artifacts()
        .filter_map(|a| Some((a.addressed_path()?.to_owned(), a.bytes().clone())))
        .collect()
}

/// The addressed path of `pdf`'s `SKILL.md` in `catalog`.
fn pdf_skill_md_address(catalog: &Catalog) -> String {
    let skill_md = catalog.get("pdf").unwrap().skill_md();
    skill_md.addressed_path().unwrap().to_owned()
}

/// The router of a replica that still serves `serving`, with `store`: what it answers at
/// `path`.
async fn replica_answer(serving: Catalog, store: &Store, path: &str) -> (StatusCode, Vec<u8>) {
    let app: axum::Router = skillpub_axum::RouterBuilder::new(serving)
        .store(store.clone())
        .build();
    let response = app
        .oneshot(Request::get(path).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, body.to_vec())
}

/// What every store does: publish, serve another replica's artifacts, never replace,
/// prune only when asked.
async fn behaves(store: Store) {
    let (v1, v2) = (catalog(1, true), catalog(2, true));
    let first = store.publish(&v1).await.unwrap();
    assert_eq!(first.artifacts, addressed(&v1).len());
    assert_eq!(first.uploaded, first.artifacts);
    let again = store.publish(&v1).await.unwrap();
    assert_eq!(
        (again.uploaded, again.bytes),
        (0, 0),
        "a second publication puts nothing"
    );
    assert_eq!(again.requests, 2, "a listing and the generation's record");
    tokio::time::sleep(Duration::from_millis(20)).await;
    let second = store.publish(&v2).await.unwrap();
    let changed = addressed(&v2)
        .iter()
        .filter(|a| !addressed(&v1).contains(a))
        .count();
    assert!(changed >= 2, "pdf's SKILL.md and archive changed");
    assert_eq!(second.uploaded, changed);
    // A replica that still serves v1 answers every URL of v2's index from the store, and
    // one that serves v2 answers v1's: byte for byte.
    for (path, bytes) in addressed(&v2) {
        assert_eq!(
            replica_answer(v1.clone(), &store, &path).await,
            (StatusCode::OK, bytes.to_vec()),
            "{path}"
        );
    }
    for (path, bytes) in addressed(&v1) {
        assert_eq!(
            replica_answer(v2.clone(), &store, &path).await,
            (StatusCode::OK, bytes.to_vec()),
            "{path}"
        );
    }
    // Pruning keeps the last replaced generation, then removes it by age.
    let keep = Retention {
        generations: 1,
        keep_for: Duration::ZERO,
    };
    let pruned = store.prune(keep).await.unwrap();
    assert_eq!((pruned.kept, pruned.removed, pruned.files), (2, 0, 0));
    let drop_old = Retention {
        generations: 0,
        keep_for: Duration::ZERO,
    };
    let pruned = store.prune(drop_old).await.unwrap();
    assert_eq!((pruned.kept, pruned.removed, pruned.files), (1, 1, changed));
    let old_skill_md = pdf_skill_md_address(&v1);
    let (status, _) = replica_answer(v2.clone(), &store, &old_skill_md).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "pruned");
    for (path, bytes) in addressed(&v2) {
        assert_eq!(
            replica_answer(v1.clone(), &store, &path).await.1,
            bytes.to_vec(),
            "{path} stays"
        );
    }
    // An artifact younger than keep_for stays, whatever names it.
    store.publish(&catalog(3, true)).await.unwrap();
    let young = Retention {
        generations: 0,
        keep_for: Duration::from_secs(600),
    };
    assert_eq!(store.prune(young).await.unwrap().files, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_store_serves_every_replica_and_prunes_only_when_asked() {
    let folder = Scratch::new("store-folder");
    behaves(Store::open(folder.arg()).unwrap()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_bytes_in_the_store_are_never_served_nor_replaced() {
    let folder = Scratch::new("store-tampered");
    let store = Store::open(folder.arg()).unwrap();
    let v2 = catalog(2, false);
    let path = pdf_skill_md_address(&v2);
    folder.write(path.trim_start_matches('/'), "tampered\n");
    store.publish(&v2).await.unwrap();
    assert_eq!(
        std::fs::read(folder.path().join(path.trim_start_matches('/'))).unwrap(),
        b"tampered\n"
    );
    let (status, body) = replica_answer(catalog(1, false), &store, &path).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(!body.starts_with(b"tampered"));
}

#[test]
fn a_location_that_is_no_store_is_refused_with_the_fix() {
    for (location, says) in [
        ("s3://", "names no bucket"),
        ("s3://bucket/a//b", "empty"),
        ("/no/such/folder/here", "not a folder that exists"),
    ] {
        let error = Store::open(location).unwrap_err();
        assert!(error.to_string().contains(says), "{location}: {error}");
    }
}

#[cfg(feature = "s3")]
/// moto on a free port with a bucket `skills`, or `None` (skipped).
fn moto(test: &str) -> Option<(S3Server, Vec<(&'static str, String)>)> {
    let binary = s3_server_or_skip(test)?;
    let server = S3Server::start(&binary);
    server.create_bucket("skills");
    let env = server.env().to_vec();
    Some((server, env))
}

#[cfg(feature = "s3")]
fn open_s3(location: &str, env: &[(&'static str, String)]) -> Store {
    let settings: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Store::open_with(location, &settings).unwrap()
}

#[cfg(feature = "s3")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_s3_store_serves_every_replica_and_prunes_only_when_asked() {
    let Some((_server, env)) = moto("an_s3_store_serves_every_replica_and_prunes_only_when_asked")
    else {
        return;
    };
    behaves(open_s3("s3://skills/replicas", &env)).await;
}

#[cfg(feature = "s3")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_to_s3_puts_the_tree_with_its_headers_index_last_and_uploads_nothing_twice() {
    let Some((server, env)) =
        moto("an_export_to_s3_puts_the_tree_with_its_headers_index_last_and_uploads_nothing_twice")
    else {
        return;
    };
    let store = open_s3("s3://skills/site", &env);
    let keep = Retention {
        generations: 3,
        keep_for: Duration::from_secs(86_400),
    };
    let v1 = catalog(1, true);
    let first = store.export(&v1, keep).await.unwrap();
    assert_eq!(first.uploaded, first.files);
    let again = store.export(&v1, keep).await.unwrap();
    assert_eq!((again.uploaded, again.bytes), (0, 0), "{again:?}");
    let object =
        |path: &str| request_blocking(server.addr(), "GET", &format!("/skills/site{path}"), &[]);
    for (path, artifact) in v1.served() {
        let answer = object(path);
        assert_eq!(answer.status, 200, "{path}: {}", answer.head);
        assert_eq!(answer.body, artifact.bytes().to_vec(), "{path}");
        assert_eq!(
            answer.header("content-type"),
            Some(artifact.media_type()),
            "{path}"
        );
        let cache_control = if artifact.addressed_path() == Some(path) {
            skillpub_axum::ADDRESSED_CACHE_CONTROL
        } else {
            skillpub_axum::DEFAULT_CACHE_CONTROL
        };
        assert_eq!(
            answer.header("cache-control"),
            Some(cache_control),
            "{path}"
        );
    }
    // The next export: a skill removed, one changed. The old addressed files stay, the
    // removed skill's canonical path goes.
    let v2 = catalog(2, false);
    let second = store.export(&v2, keep).await.unwrap();
    assert_eq!(second.removed, 1, "{second:?}");
    assert_eq!(
        object("/.well-known/agent-skills/index.json").body,
        v2.index().bytes().to_vec()
    );
    assert_eq!(
        object("/.well-known/agent-skills/notes/SKILL.md").status,
        404
    );
    for (path, bytes) in addressed(&v1) {
        assert_eq!(
            object(&path).body,
            bytes.to_vec(),
            "{path} of the earlier export stays"
        );
    }
    // A missing bucket is said plainly, and nothing is written.
    let error = open_s3("s3://no-such-bucket/site", &env)
        .export(&v2, keep)
        .await
        .unwrap_err();
    assert!(matches!(error, StoreError::NoBucket { .. }), "{error}");
    assert!(error.to_string().contains("does not exist"), "{error}");
}
