//! Live catalogs over real TCP on 127.0.0.1: catalogs swapped while many requests run (none
//! fails, and every answer's bytes, `ETag` and index come from one catalog), one catalog per
//! host (the exact map, the default, and the `404` of the policy for any other host), and the
//! memory of a replaced catalog, freed at once except for the bytes of an answer still being
//! sent, which are freed when that answer ends.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::body::Bytes;
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
    // The canonical paths, which every catalog serves.
    let paths: Arc<Vec<String>> = Arc::new(
        versions[0]
            .keys()
            .filter(|path| AddressedPath::parse(path).is_none())
            .cloned()
            .collect(),
    );
    let live = LiveCatalog::new(catalogs[0].clone());
    let addr = serve(skillpub::web::live_router(live.clone())).await;

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
    let live = LiveCatalog::new(first);
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
