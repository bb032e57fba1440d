//! Live catalogs over real TCP on 127.0.0.1: catalogs swapped while many requests run (none
//! fails, every answer's bytes, `ETag` and index come from one catalog, and every addressed
//! URL of every catalog answers its own bytes), one catalog per host (the exact map, the
//! default, and the `404` of the policy for any other host), the memory of a replaced
//! catalog, freed at once except for the bytes of an answer still being sent, which are freed
//! when that answer ends, and the retention of replaced catalogs' addressed artifacts: served
//! for the grace period, the canonical paths serving the new bytes, then freed.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use skillpub::model::live::Retention;
use skillpub::model::{
    Digest,
    paths::{AddressedPath, INDEX_PATH, WELL_KNOWN_PATH},
};
use skillpub::web::{Hosts, RouterBuilder};
use skillpub::{Catalog, LiveCatalog, Skill, SkillFile};
use skillpub_testkit::{Response, finish_response, read_response, request, send_get, serve};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpSocket, TcpStream};

/// How many catalogs the swap test rotates through.
const VERSIONS: usize = 4;

/// A skill whose text says which version of the catalog it belongs to.
fn skill(name: &str, version: usize) -> Skill {
    Skill::new(
        Some(name.to_owned()),
        format!(
            "---\nname: {name}\ndescription: Does {name}, version {version}.\n---\nStep {version}.\n"
        ),
    )
}

/// Version `version` of a catalog with a multi-file skill (a file and an archive) and a
/// single-file one: every artifact's bytes differ from one version to the next.
fn versioned(version: usize) -> Catalog {
    let notes = SkillFile::new(
        "references/notes.md",
        format!("# Notes, version {version}\n"),
        false,
    );
    Catalog::new([
        skill("alpha", version).with_files(vec![notes]),
        skill("beta", version),
    ])
    .unwrap()
}

/// Every path a catalog publishes, with its bytes.
fn published(catalog: &Catalog) -> HashMap<String, Bytes> {
    catalog
        .served()
        .map(|(path, artifact)| (path.to_owned(), artifact.bytes().clone()))
        .collect()
}

/// Asserts that `answer` is a whole answer of one of `versions` at `path`: its bytes are that
/// catalog's, and its `ETag` is their digest. Returns which catalog.
fn version_of(versions: &[HashMap<String, Bytes>], path: &str, answer: &Response) -> usize {
    assert_eq!(answer.status, 200, "{path}: {}", answer.head);
    assert_eq!(
        answer.header("etag"),
        Some(format!("\"{}\"", Digest::of(&answer.body)).as_str()),
        "{path}: the ETag names the bytes sent"
    );
    versions
        .iter()
        .position(|paths| {
            paths
                .get(path)
                .is_some_and(|bytes| bytes[..] == answer.body[..])
        })
        .unwrap_or_else(|| panic!("{path}: bytes of no catalog: {}", answer.text()))
}

/// Asserts that an index lists, for every skill, the digest of the same catalog's files.
fn assert_index_of_one_catalog(catalog: &Catalog, index: &[u8]) {
    let index: serde_json::Value = serde_json::from_slice(index).unwrap();
    let paths = published(catalog);
    for entry in index["skills"].as_array().unwrap() {
        let url = entry["url"].as_str().unwrap();
        let digest = entry["digest"].as_str().unwrap();
        let bytes = &paths[url];
        assert_eq!(digest, Digest::of(bytes).to_string(), "{url}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn swaps_during_a_stream_of_requests_fail_none_and_each_answer_is_from_one_catalog() {
    let catalogs: Vec<Catalog> = (0..VERSIONS).map(versioned).collect();
    let versions: Arc<Vec<_>> = Arc::new(catalogs.iter().map(published).collect());
    // The canonical paths, which every catalog serves, and the addressed paths of every
    // catalog, which one serves and the others retain.
    let mut paths: Vec<String> = versions[0]
        .keys()
        .filter(|path| AddressedPath::parse(path).is_none())
        .cloned()
        .collect();
    for version in versions.iter() {
        paths.extend(
            version
                .keys()
                .filter(|path| AddressedPath::parse(path).is_some())
                .cloned(),
        );
    }
    let paths = Arc::new(paths);
    let live = LiveCatalog::new(catalogs[0].clone());
    let addr = serve(skillpub::web::live_router(live.clone())).await;
    // Every catalog published once, so that each is current or retained from the start.
    for catalog in catalogs[1..].iter().chain(&catalogs[..1]) {
        live.replace(catalog.clone());
    }

    let done = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (done, swaps, catalogs) = (Arc::clone(&done), Arc::clone(&swaps), catalogs.clone());
        std::thread::spawn(move || {
            let mut next = 1;
            while !done.load(Ordering::Relaxed) {
                live.replace(catalogs[next % VERSIONS].clone());
                swaps.fetch_add(1, Ordering::Relaxed);
                next += 1;
                std::thread::sleep(Duration::from_micros(200));
            }
        })
    };

    // Clients on fresh connections and on keep-alive ones, over every path, while the
    // catalogs rotate; each remembers which catalogs it was answered from.
    let mut clients = Vec::new();
    for client in 0..8 {
        let (versions, paths) = (Arc::clone(&versions), Arc::clone(&paths));
        clients.push(tokio::spawn(async move {
            let mut seen = [false; VERSIONS];
            let mut stream = TcpStream::connect(addr).await.unwrap();
            for round in 0..60 {
                let path = &paths[(client + round) % paths.len()];
                let answer = if client % 2 == 0 {
                    request(addr, "GET", path, &[]).await
                } else {
                    send_get(&mut stream, path).await;
                    read_response(&mut stream).await
                };
                let version = version_of(&versions, path, &answer);
                seen[version] = true;
                if path == INDEX_PATH {
                    assert_index_of_one_catalog(&versioned(version), &answer.body);
                }
            }
            seen
        }));
    }
    let mut seen = [false; VERSIONS];
    for client in clients {
        for (version, was) in client.await.unwrap().into_iter().enumerate() {
            seen[version] |= was;
        }
    }
    done.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(
        swaps.load(Ordering::Relaxed) > VERSIONS,
        "the catalogs rotated while the requests ran"
    );
    assert!(
        seen.iter().filter(|was| **was).count() > 1,
        "answers came from several catalogs: {seen:?}"
    );
}

/// `GET path` with this `Host`.
async fn get_as(addr: SocketAddr, host: &str, path: &str) -> Response {
    request(addr, "GET", path, &[("Host", host)]).await
}

/// The names of the skills in the index a host is served.
async fn names_for(addr: SocketAddr, host: &str) -> Vec<String> {
    let answer = get_as(addr, host, INDEX_PATH).await;
    assert_eq!(answer.status, 200, "{host}: {}", answer.head);
    answer.skill_names()
}

fn catalog_of(names: &[&str]) -> Catalog {
    Catalog::new(names.iter().map(|name| skill(name, 0))).unwrap()
}

#[tokio::test]
async fn each_host_is_served_its_own_catalog_and_an_unknown_host_the_default() {
    let docs = LiveCatalog::new(catalog_of(&["docs"]));
    let hosts = Hosts::new()
        .host("docs.example.com", docs.clone())
        .unwrap()
        .host("shop.example.com", catalog_of(&["orders"]))
        .unwrap()
        .default_catalog(catalog_of(&["fallback"]));
    let addr = serve(RouterBuilder::hosts(hosts).build()).await;

    assert_eq!(names_for(addr, "docs.example.com").await, ["docs"]);
    assert_eq!(
        names_for(addr, "Docs.Example.COM.:8443").await,
        ["docs"],
        "one normal form: any case, a trailing dot, any port"
    );
    assert_eq!(names_for(addr, "shop.example.com").await, ["orders"]);
    assert_eq!(names_for(addr, "elsewhere.example.com").await, ["fallback"]);
    let skill_md = format!("{WELL_KNOWN_PATH}orders/SKILL.md");
    assert_eq!(
        get_as(addr, "shop.example.com", &skill_md).await.status,
        200
    );
    assert_eq!(
        get_as(addr, "docs.example.com", &skill_md).await.status,
        404,
        "a host sees only its own catalog"
    );

    docs.replace(catalog_of(&["docs", "faq"]));
    assert_eq!(names_for(addr, "docs.example.com").await, ["docs", "faq"]);
    assert_eq!(names_for(addr, "shop.example.com").await, ["orders"]);
    assert_eq!(names_for(addr, "elsewhere.example.com").await, ["fallback"]);
}

#[tokio::test]
async fn without_a_default_an_unknown_host_gets_the_404_of_the_policy_on_every_path() {
    let hosts = Hosts::new()
        .host("docs.example.com", catalog_of(&["docs"]))
        .unwrap();
    let addr = serve(RouterBuilder::hosts(hosts).build()).await;
    let unpublished = get_as(addr, "docs.example.com", "/.well-known/agent-skills/nope").await;
    assert_eq!(unpublished.status, 404);
    for path in [INDEX_PATH, "/.well-known/agent-skills/docs/SKILL.md"] {
        let answer = get_as(addr, "unknown.example.com", path).await;
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(answer.body, unpublished.body, "{path}: the same JSON body");
        for header in [
            "content-type",
            "cache-control",
            "access-control-allow-origin",
        ] {
            assert_eq!(
                answer.header(header),
                unpublished.header(header),
                "{path}: {header}"
            );
        }
    }
    let preflight = request(
        addr,
        "OPTIONS",
        INDEX_PATH,
        &[
            ("Host", "unknown.example.com"),
            ("Origin", "https://app.example.com"),
            ("Access-Control-Request-Method", "GET"),
        ],
    )
    .await;
    assert_eq!(preflight.header("access-control-allow-origin"), Some("*"));
}

/// Bytes that say when they are freed.
struct Observed {
    bytes: Vec<u8>,
    freed: Arc<AtomicBool>,
}

impl AsRef<[u8]> for Observed {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Observed {
    fn drop(&mut self) {
        self.freed.store(true, Ordering::SeqCst);
    }
}

/// `bytes` as [`Bytes`], and the flag set when the last copy of them is dropped.
fn observed(bytes: Vec<u8>) -> (Bytes, Arc<AtomicBool>) {
    let freed = Arc::new(AtomicBool::new(false));
    let owner = Observed {
        bytes,
        freed: Arc::clone(&freed),
    };
    (Bytes::from_owner(owner), freed)
}

/// Waits, within a generous bound, until `flag` is set.
async fn until_set(flag: &AtomicBool, what: &str) {
    let started = Instant::now();
    while !flag.load(Ordering::SeqCst) {
        assert!(started.elapsed() < Duration::from_secs(10), "{what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_catalog_is_freed_once_the_last_answer_from_it_ends() {
    // A file larger than the socket buffers can hold, so that its answer stays in flight
    // until the client reads it; and a SKILL.md that no request holds.
    let large: Vec<u8> = (0..12 * 1024 * 1024)
        .map(|i: u32| (i % 251) as u8)
        .collect();
    let (large_bytes, large_freed) = observed(large.clone());
    let (skill_md, skill_md_freed) = observed(
        b"---\nname: data\ndescription: Reads the data set.\n---\nSee assets/data.bin.\n".to_vec(),
    );
    let first = Catalog::new([Skill::new(Some("data".to_owned()), skill_md)
        .with_files(vec![SkillFile::new("assets/data.bin", large_bytes, false)])])
    .unwrap();
    // Without retention: this test is about what an answer in flight keeps.
    let live = LiveCatalog::with_retention(first, Retention::none());
    let addr = serve(skillpub::web::live_router(live.clone())).await;
    let path = format!("{WELL_KNOWN_PATH}data/assets/data.bin");

    // A request for the large file, whose answer the client reads only in part, through a
    // small receive buffer (which also turns off the kernel's growing it).
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    send_get(&mut stream, &path).await;
    let mut start = vec![0; 64 * 1024];
    stream.read_exact(&mut start).await.unwrap();

    let previous = live.replace(catalog_of(&["other"]));
    drop(previous);
    until_set(
        &skill_md_freed,
        "the replaced catalog is freed at once, but for the answer in flight",
    )
    .await;
    assert!(
        !large_freed.load(Ordering::SeqCst),
        "the bytes of the answer in flight are kept until it ends"
    );
    assert_eq!(
        request(addr, "GET", &path, &[]).await.status,
        404,
        "new requests are answered from the new catalog"
    );

    // The client reads the rest: the answer is whole, and its bytes are then freed.
    let answer = finish_response(&mut stream, start).await;
    assert_eq!(answer.status, 200);
    assert!(answer.body == large, "the whole file, as it was");
    drop(stream);
    until_set(&large_freed, "freed once the last answer from it ends").await;
}

/// The grace period of the retention tests: long enough for a few requests on a loaded
/// machine, short enough to wait for.
const GRACE: Duration = Duration::from_millis(1500);

/// A catalog of the skill `data` whose `SKILL.md` and supporting file are `skill_md` and
/// `file`.
fn data_catalog(skill_md: Bytes, file: Bytes) -> Catalog {
    Catalog::new([
        Skill::new(Some("data".to_owned()), skill_md).with_files(vec![SkillFile::new(
            "references/data.md",
            file,
            false,
        )]),
    ])
    .unwrap()
}

fn data_skill_md(version: &str) -> Vec<u8> {
    format!("---\nname: data\ndescription: Reads the data set.\n---\nVersion {version}.\n")
        .into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_catalogs_addresses_answer_its_bytes_for_the_grace_period_then_are_freed() {
    let (skill_md, skill_md_freed) = observed(data_skill_md("1"));
    let (file, file_freed) = observed(b"# Data, version 1\n".to_vec());
    let first = data_catalog(skill_md, file);
    let old = first.get("data").unwrap();
    let (old_skill_md, old_archive) = (
        old.skill_md().clone(),
        old.archive(Default::default()).unwrap().clone(),
    );
    let live = LiveCatalog::with_retention(first, Retention::new(GRACE, 4));
    let addr = serve(skillpub::web::live_router(live.clone())).await;
    let old_index = request(addr, "GET", INDEX_PATH, &[]).await;

    let replaced = Instant::now();
    live.replace(data_catalog(
        Bytes::from(data_skill_md("2")),
        Bytes::from_static(b"# Data, version 2\n"),
    ));
    until_set(&file_freed, "a file no address names is freed at once").await;
    assert!(
        !skill_md_freed.load(Ordering::SeqCst),
        "the old SKILL.md is retained"
    );

    // Every URL the old index named still answers its bytes, and the canonical paths the
    // new ones.
    let index: serde_json::Value = serde_json::from_slice(&old_index.body).unwrap();
    let url = index["skills"][0]["url"].as_str().unwrap();
    assert_eq!(url, old_archive.addressed_path().unwrap());
    for artifact in [&old_skill_md, &old_archive] {
        let addressed = artifact.addressed_path().unwrap();
        let answer = request(addr, "GET", addressed, &[]).await;
        assert_eq!(answer.status, 200, "{addressed}");
        assert!(
            answer.body == artifact.bytes().as_ref(),
            "{addressed}: its own bytes"
        );
        assert_eq!(
            answer.header("cache-control"),
            Some(skillpub::web::ADDRESSED_CACHE_CONTROL)
        );
        assert_eq!(
            answer.header("link"),
            Some(format!("<{}>; rel=\"canonical\"", artifact.path()).as_str())
        );
        let canonical = request(addr, "GET", artifact.path(), &[]).await;
        assert_eq!(canonical.status, 200);
        assert!(canonical.body != artifact.bytes().as_ref(), "the new bytes");
        let current = live.catalog();
        let now = current
            .addressed(canonical.header("content-location").unwrap())
            .unwrap();
        assert_eq!(
            now.bytes().as_ref(),
            &canonical.body[..],
            "named by its own address"
        );
    }
    assert!(
        replaced.elapsed() < GRACE,
        "the machine was too slow to check within the grace period; raise GRACE"
    );

    // After the grace period: a 404, and the bytes are freed without another replacement.
    tokio::time::sleep(GRACE.saturating_sub(replaced.elapsed())).await;
    for artifact in [&old_skill_md, &old_archive] {
        let addressed = artifact.addressed_path().unwrap();
        let answer = request(addr, "GET", addressed, &[]).await;
        assert_eq!(answer.status, 404, "{addressed}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
    }
    drop((old_skill_md, old_archive));
    until_set(
        &skill_md_freed,
        "the retained SKILL.md is freed after the grace period",
    )
    .await;
    assert_eq!(live.generation(), 1);
}

#[tokio::test]
async fn a_host_of_a_per_host_router_retains_its_replaced_addresses() {
    let docs = LiveCatalog::with_retention(catalog_of(&["docs"]), Retention::new(GRACE, 4));
    let old = docs.catalog();
    let old_skill_md = old.get("docs").unwrap().skill_md();
    let hosts = Hosts::new()
        .host("docs.example.com", docs.clone())
        .unwrap()
        .host("shop.example.com", catalog_of(&["orders"]))
        .unwrap();
    let addr = serve(RouterBuilder::hosts(hosts).build()).await;
    let replaced = Instant::now();
    docs.replace(Catalog::new([skill("docs", 2)]).unwrap());
    let addressed = old_skill_md.addressed_path().unwrap();
    let answer = get_as(addr, "docs.example.com", addressed).await;
    assert_eq!(answer.status, 200);
    assert!(answer.body == old_skill_md.bytes().as_ref());
    assert_eq!(
        get_as(addr, "shop.example.com", addressed).await.status,
        404,
        "another host's catalog never answers it"
    );
    assert!(
        replaced.elapsed() < GRACE,
        "too slow to check within the grace period"
    );
    tokio::time::sleep(GRACE.saturating_sub(replaced.elapsed())).await;
    assert_eq!(
        get_as(addr, "docs.example.com", addressed).await.status,
        404
    );
}
