//! No skill lost across replicas. Three `skillpub serve` replicas behind a real nginx
//! round-robin upstream (no stickiness, the next upstream on an error), restarted one by one
//! for every deploy while installers read the index and every artifact it names through
//! nginx and verify each digest: with a shared store (`--store`) no install is lost; without
//! one the same run loses installs to `404`s for addressed URLs that another replica's index
//! named, which is what the store is for. Then an export to a real S3-compatible server
//! (`moto_server`) behind nginx, exported again while readers install.
//!
//! The nginx tests say they were skipped without nginx (or moto_server), or fail when
//! `SKILLPUB_REQUIRE_EXTERNAL=1` is set.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use skillpub_core::Digest;
use skillpub_testkit::{
    Cli, Edge, Freshness, Nginx, Running, S3Server, Scratch, nginx_or_skip, request_blocking,
    s3_server_or_skip,
};

const SKILLPUB: Cli = Cli::new(env!("CARGO_BIN_EXE_skillpub"));
const INDEX: &str = "/.well-known/agent-skills/index.json";
const REPLICAS: usize = 3;
/// How many deploys each rolling run makes, and the pause between two replicas' restarts.
const DEPLOYS: usize = 20;
const BETWEEN_REPLICAS: Duration = Duration::from_millis(400);

/// `revision` of a folder of three skills: `single`, `bundle` (an archive) and `steady`.
fn write_skills(dir: &Scratch, revision: usize) {
    dir.write(
        "single/SKILL.md",
        format!("---\nname: single\ndescription: One file.\n---\nRevision {revision}.\n"),
    );
    dir.write(
        "bundle/SKILL.md",
        "---\nname: bundle\ndescription: With a reference.\n---\nRead reference.md.\n",
    );
    dir.write("bundle/reference.md", format!("# Reference {revision}\n"));
    dir.write(
        "steady/SKILL.md",
        "---\nname: steady\ndescription: Never changes.\n---\nStay.\n",
    );
}

/// How a deploy reaches a replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deploy {
    /// The folder changed, then the replica stopped (SIGTERM) and started again.
    Restart,
    /// The folder changed under `serve --watch`, which reloads it.
    Watch,
}

/// `skillpub serve DIR` on `addr`, with `--store` when given and `--watch` for that mode.
fn serve_as(
    dir: &Scratch,
    addr: &str,
    store: Option<&str>,
    deploy: Deploy,
) -> (Running, SocketAddr) {
    let mut args = vec!["serve", dir.arg(), "--addr", addr];
    if deploy == Deploy::Watch {
        args.push("--watch");
    }
    if let Some(store) = store {
        args.extend(["--store", store]);
    }
    let mut command = SKILLPUB.command(args);
    command.stderr(Stdio::null());
    let (running, announced) = Running::announced(&mut command);
    (running, announced.addr)
}

fn serve(dir: &Scratch, addr: &str, store: Option<&str>) -> (Running, SocketAddr) {
    serve_as(dir, addr, store, Deploy::Restart)
}

/// What the installers saw.
#[derive(Debug, Default)]
struct Tally {
    installs: usize,
    lost: Vec<String>,
}

/// An install through `front`: the index, then every artifact it names, each verified. The
/// skills it dropped, with why; 502s (every replica down at once) are sent again.
fn install(front: SocketAddr) -> Vec<String> {
    let get = |path: &str| loop {
        let response = request_blocking(front, "GET", path, &[]);
        if ![502, 504].contains(&response.status) {
            return response;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let index = get(INDEX);
    assert_eq!(index.status, 200, "{}", index.head);
    let parsed: serde_json::Value = serde_json::from_slice(&index.body).expect("an index");
    let mut dropped = Vec::new();
    for entry in parsed["skills"].as_array().expect("skills") {
        let url = entry["url"].as_str().expect("a url");
        let artifact = get(url);
        let digest = entry["digest"].as_str().expect("a digest");
        match artifact.status {
            200 if Digest::of(&artifact.body).to_string() == digest => {}
            200 => dropped.push(format!("{url}: digest mismatch")),
            status => dropped.push(format!("{url}: {status}")),
        }
    }
    dropped
}

/// Installers through `front` until `stop`.
fn installers(
    front: SocketAddr,
    tally: &Arc<Mutex<Tally>>,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..2)
        .map(|_| {
            let (tally, stop) = (Arc::clone(tally), Arc::clone(stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let dropped = install(front);
                    let mut tally = tally.lock().unwrap();
                    tally.installs += 1;
                    if !dropped.is_empty() {
                        tally.lost.push(dropped.join(", "));
                    }
                    drop(tally);
                    std::thread::sleep(Duration::from_millis(50));
                }
            })
        })
        .collect()
}

/// Three replicas, each on a folder of its own, behind nginx round-robin (and an nginx cache
/// honouring the headers in front of it, with `edge`); `DEPLOYS` rolling deploys, each folder
/// changed and its replica brought to it as `deploy` says, one by one. Returns the tally.
fn rolling(nginx: &std::path::Path, store: Option<&str>, deploy: Deploy, edge: bool) -> Tally {
    let folders: Vec<Scratch> = (0..REPLICAS)
        .map(|n| Scratch::new(&format!("replica-{n}")))
        .collect();
    let mut replicas: Vec<(Running, SocketAddr)> = folders
        .iter()
        .map(|dir| {
            write_skills(dir, 0);
            serve_as(dir, "127.0.0.1:0", store, deploy)
        })
        .collect();
    let servers: String = replicas
        .iter()
        .map(|(_, addr)| format!("server {addr} max_fails=0;"))
        .collect();
    let mut front = Nginx::start_with_http(
        nginx,
        &format!("upstream skillpub_replicas {{ {servers} }}"),
        "location / {\n      proxy_pass http://skillpub_replicas;\n      proxy_next_upstream error timeout http_502;\n    }",
    );
    let mut cache =
        edge.then(|| Edge::start(nginx, front.addr(), Freshness::Honoured { speedup: 100 }));
    let clients = cache.as_ref().map_or(front.addr(), Edge::addr);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let running = installers(clients, &tally, &stop);
    for revision in 1..=DEPLOYS {
        for (dir, replica) in folders.iter().zip(&mut replicas) {
            let before = request_blocking(replica.1, "GET", INDEX, &[]).body;
            write_skills(dir, revision);
            let addr = replica.1.to_string();
            match deploy {
                Deploy::Restart => {
                    replica.0.signal("-TERM");
                    assert!(replica.0.wait_within(Duration::from_secs(10)).is_some());
                    *replica = serve_as(dir, &addr, store, deploy);
                }
                Deploy::Watch => {
                    let started = Instant::now();
                    while request_blocking(replica.1, "GET", INDEX, &[]).body == before {
                        assert!(
                            started.elapsed() < Duration::from_secs(10),
                            "the watch did not reload"
                        );
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            }
            std::thread::sleep(BETWEEN_REPLICAS);
        }
    }
    stop.store(true, Ordering::Relaxed);
    for installer in running {
        installer.join().expect("an installer panicked");
    }
    if let Some(cache) = &mut cache {
        assert_eq!(cache.stop(), Vec::<u32>::new(), "nginx processes were left");
    }
    assert_eq!(front.stop(), Vec::<u32>::new(), "nginx processes were left");
    Arc::try_unwrap(tally).unwrap().into_inner().unwrap()
}

/// The same rolling run with and without a store: none lost with it, some without (the
/// control, or the run proves nothing).
fn with_and_without(test: &str, deploy: Deploy, edge: bool) {
    let Some(nginx) = nginx_or_skip(test) else {
        return;
    };
    let store = Scratch::new("replicas-store");
    let with = rolling(&nginx, Some(store.arg()), deploy, edge);
    let without = rolling(&nginx, None, deploy, edge);
    eprintln!(
        "replicas: {REPLICAS} replicas ({deploy:?}{}) behind nginx round-robin, {DEPLOYS} rolling deploys: with --store {} of {} installs lost; without {} of {} lost (first: {:?})",
        if edge {
            ", an nginx cache in front"
        } else {
            ""
        },
        with.lost.len(),
        with.installs,
        without.lost.len(),
        without.installs,
        without.lost.first()
    );
    assert!(
        with.installs > 2 * DEPLOYS,
        "too few installs to tell: {}",
        with.installs
    );
    assert!(
        with.lost.is_empty(),
        "{} of {} lost: {:?}",
        with.lost.len(),
        with.installs,
        &with.lost[..with.lost.len().min(3)]
    );
    assert!(
        !without.lost.is_empty(),
        "without a store none of {} installs was lost: the run did not straddle the deploys",
        without.installs
    );
}

#[test]
fn no_install_is_lost_across_restarted_replicas_with_a_shared_store() {
    with_and_without(
        "no_install_is_lost_across_restarted_replicas_with_a_shared_store",
        Deploy::Restart,
        false,
    );
}

#[test]
fn no_install_is_lost_across_watching_replicas_with_a_shared_store() {
    with_and_without(
        "no_install_is_lost_across_watching_replicas_with_a_shared_store",
        Deploy::Watch,
        false,
    );
}

#[test]
fn no_install_is_lost_through_a_cache_in_front_of_replicas_with_a_shared_store() {
    with_and_without(
        "no_install_is_lost_through_a_cache_in_front_of_replicas_with_a_shared_store",
        Deploy::Restart,
        true,
    );
}

#[test]
fn a_replica_serves_the_artifacts_another_replica_put_in_the_store() {
    let (old, new) = (Scratch::new("replica-old"), Scratch::new("replica-new"));
    write_skills(&old, 1);
    write_skills(&new, 2);
    let store = Scratch::new("replica-store");
    let (_a, a) = serve(&old, "127.0.0.1:0", Some(store.arg()));
    let (_b, b) = serve(&new, "127.0.0.1:0", Some(store.arg()));
    let index: serde_json::Value =
        serde_json::from_slice(&request_blocking(b, "GET", INDEX, &[]).body).unwrap();
    for entry in index["skills"].as_array().unwrap() {
        let url = entry["url"].as_str().unwrap();
        let answer = request_blocking(a, "GET", url, &[]);
        assert_eq!(answer.status, 200, "{url}: {}", answer.head);
        assert_eq!(
            Digest::of(&answer.body).to_string(),
            entry["digest"].as_str().unwrap()
        );
        assert_eq!(
            answer.header("cache-control"),
            Some(skillpub_axum::ADDRESSED_CACHE_CONTROL)
        );
    }
    // Without the store, the old replica has no such bytes: a 404 that no cache keeps.
    let (_c, c) = serve(&old, "127.0.0.1:0", None);
    let url = index["skills"][0]["url"].as_str().unwrap().to_owned();
    let single = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "single")
        .unwrap();
    let single = single["url"].as_str().unwrap();
    let missing = request_blocking(c, "GET", single, &[]);
    assert_eq!(missing.status, 404, "{url}");
    assert_eq!(missing.header("cache-control"), Some("no-store"));
    // A store that is not there is refused at start.
    let refused = SKILLPUB.run(&[
        "serve",
        old.arg(),
        "--addr",
        "127.0.0.1:0",
        "--store",
        "/no/such/store",
    ]);
    assert!(!refused.success);
    assert!(
        refused.stderr.contains("not a folder that exists"),
        "{}",
        refused.stderr
    );
}

#[test]
#[ignore = "needs skillpub-store's feature s3, off until its TLS provider no longer breaks the workspace's other reqwest clients (issue 27)"]
fn an_export_to_s3_behind_nginx_loses_no_install_while_it_is_exported_again() {
    let test = "an_export_to_s3_behind_nginx_loses_no_install_while_it_is_exported_again";
    let Some(nginx) = nginx_or_skip(test) else {
        return;
    };
    let Some(moto) = s3_server_or_skip(test) else {
        return;
    };
    let server = S3Server::start(&moto);
    server.create_bucket("skills");
    let mut cli = SKILLPUB;
    for (name, value) in server.env() {
        cli = cli.env(name, Some(&value));
    }
    let skills = Scratch::new("s3-export-skills");
    write_skills(&skills, 0);
    let export = |cli: &Cli| {
        let outcome = cli.run(&["export", skills.arg(), "s3://skills/site"]);
        assert!(outcome.success, "{}", outcome.stderr);
        outcome.stdout
    };
    let first = export(&cli);
    assert!(
        first.contains("error-caching TTL of 0"),
        "the CDN settings are printed: {first}"
    );
    let again = export(&cli);
    assert!(
        again.contains(" 0 uploaded (0 bytes)"),
        "a second run uploads nothing: {again}"
    );
    // nginx in front of the bucket, as a CDN's origin is: the prefix is the site root.
    let mut front = Nginx::start(
        &nginx,
        &format!(
            "location / {{\n      proxy_pass http://{}/skills/site/;\n    }}",
            server.addr()
        ),
    );
    let tally = Arc::new(Mutex::new(Tally::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let running = installers(front.addr(), &tally, &stop);
    let started = Instant::now();
    for revision in 1..=DEPLOYS {
        write_skills(&skills, revision);
        export(&cli);
    }
    let took = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    for installer in running {
        installer.join().expect("an installer panicked");
    }
    assert_eq!(front.stop(), Vec::<u32>::new(), "nginx processes were left");
    let tally = Arc::try_unwrap(tally).unwrap().into_inner().unwrap();
    eprintln!(
        "replicas: export to S3 behind nginx, {DEPLOYS} exports in {:.1} s: {} of {} installs lost",
        took.as_secs_f64(),
        tally.lost.len(),
        tally.installs
    );
    assert!(
        tally.installs > DEPLOYS,
        "too few installs: {}",
        tally.installs
    );
    assert!(
        tally.lost.is_empty(),
        "{:?}",
        &tally.lost[..tally.lost.len().min(3)]
    );
    // A bucket that does not exist: a clear error, and the site's index untouched.
    let missing = cli.run(&["export", skills.arg(), "s3://no-such-bucket/site"]);
    assert!(!missing.success);
    assert!(
        missing.stderr.contains("does not exist"),
        "{}",
        missing.stderr
    );
}
