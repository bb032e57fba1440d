//! The archives of a multi-file skill, downloaded over real TCP and unpacked by the system's
//! `tar` and `unzip` and by the tar and zip crates: every file equals the source folder's.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use axum::Router;
use skillpub::Catalog;
use skillpub::model::{Digest, paths::INDEX_PATH};
use skillpub_testkit::{Scratch, request, serve};

const SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");
const SKILL: &str = "publish-agent-skills";

/// Every file under `root`, by `/`-separated relative path.
fn files_under(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap().to_string_lossy().starts_with('.') {
                continue; // not published, such as a .DS_Store left by an editor
            }
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .replace('\\', "/");
                files.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn source() -> BTreeMap<String, Vec<u8>> {
    let files = files_under(&Path::new(SKILLS).join(SKILL));
    assert!(
        files.contains_key("references/index-format.md")
            && files.contains_key("scripts/check-index.sh")
    );
    files
}

/// Downloads `path` and checks its digest against the index entry or the catalog.
async fn download(path: &str) -> Vec<u8> {
    let catalog = Catalog::from_dir(SKILLS).unwrap();
    let addr = serve(Router::new().merge(skillpub::web::router(catalog))).await;
    let wire = request(addr, "GET", path, &[]).await;
    assert_eq!(wire.status, 200, "{path}");
    assert_eq!(
        wire.header("etag"),
        Some(format!("\"{}\"", Digest::of(&wire.body)).as_str())
    );
    wire.body
}

fn run(command: &mut Command) {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} cannot run: {e}"));
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn the_index_digest_is_the_digest_of_the_served_tar_gz() {
    let catalog = Catalog::from_dir(SKILLS).unwrap();
    let addr = serve(Router::new().merge(skillpub::web::router(catalog))).await;
    let index: serde_json::Value =
        serde_json::from_slice(&request(addr, "GET", INDEX_PATH, &[]).await.body).unwrap();
    let entry = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == SKILL)
        .unwrap();
    assert_eq!(entry["type"], "archive");
    let url = entry["url"].as_str().unwrap();
    let hex = entry["digest"]
        .as_str()
        .unwrap()
        .trim_start_matches("sha256:");
    assert_eq!(
        url,
        format!("/.well-known/agent-skills/sha256-{hex}/{SKILL}.tar.gz")
    );
    let wire = request(addr, "GET", url, &[]).await;
    assert_eq!(wire.header("content-type"), Some("application/gzip"));
    assert_eq!(entry["digest"], Digest::of(&wire.body).to_string());
    let canonical = format!("/.well-known/agent-skills/{SKILL}.tar.gz");
    let canonical = request(addr, "GET", &canonical, &[]).await;
    assert_eq!(
        canonical.body, wire.body,
        "the canonical path serves the same bytes"
    );
}

#[tokio::test]
async fn system_tar_unpacks_the_served_tar_gz_into_the_source_files() {
    let archive = download(&format!("/.well-known/agent-skills/{SKILL}.tar.gz")).await;
    let scratch = Scratch::new("system-tar");
    let file = scratch.path().join("skill.tar.gz");
    std::fs::write(&file, archive).unwrap();
    let out = scratch.path().join("out");
    std::fs::create_dir(&out).unwrap();
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&file)
        .arg("-C")
        .arg(&out));
    assert_eq!(files_under(&out), source());
    assert_executable(&out.join("scripts/check-index.sh"));
}

#[tokio::test]
async fn system_unzip_unpacks_the_served_zip_into_the_source_files() {
    let archive = download(&format!("/.well-known/agent-skills/{SKILL}.zip")).await;
    let scratch = Scratch::new("system-unzip");
    let file = scratch.path().join("skill.zip");
    std::fs::write(&file, archive).unwrap();
    let out = scratch.path().join("out");
    run(Command::new("unzip")
        .arg("-q")
        .arg(&file)
        .arg("-d")
        .arg(&out));
    assert_eq!(files_under(&out), source());
    assert_executable(&out.join("scripts/check-index.sh"));
}

#[tokio::test]
async fn the_tar_and_zip_crates_read_the_source_files_from_the_archives() {
    let tar_gz = download(&format!("/.well-known/agent-skills/{SKILL}.tar.gz")).await;
    let mut unpacked = BTreeMap::new();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&tar_gz[..]));
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let path = entry.path().unwrap().to_str().unwrap().to_owned();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        unpacked.insert(path, bytes);
    }
    assert_eq!(unpacked, source());

    let zip = download(&format!("/.well-known/agent-skills/{SKILL}.zip")).await;
    let mut unpacked = BTreeMap::new();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    for at in 0..archive.len() {
        let mut file = archive.by_index(at).unwrap();
        let path = file.enclosed_name().unwrap().to_str().unwrap().to_owned();
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).unwrap();
        unpacked.insert(path, bytes);
    }
    assert_eq!(unpacked, source());
}

#[tokio::test]
async fn every_file_is_also_served_alone_byte_for_byte() {
    for (path, bytes) in source() {
        let served = download(&format!("/.well-known/agent-skills/{SKILL}/{path}")).await;
        assert!(served == bytes, "{path}");
    }
}

#[test]
fn two_builds_of_the_folder_give_the_same_archives() {
    let digests = || -> Vec<(String, Digest)> {
        let catalog = Catalog::from_dir(SKILLS).unwrap();
        catalog
            .artifacts()
            .map(|a| (a.path().to_owned(), a.digest()))
            .collect()
    };
    assert_eq!(digests(), digests());
}

#[cfg(unix)]
fn assert_executable(path: &PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0o111, "{} is executable", path.display());
}

#[cfg(not(unix))]
fn assert_executable(_: &PathBuf) {}
