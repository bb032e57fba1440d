//! `skillpub export` keeps the addressed files of earlier exports for `--keep-for` after they
//! were replaced, and the last `--keep-generations` whatever their age, so that every file an
//! index replaced within the grace period names is still there, byte for byte; it records them
//! in its manifest, keeps only files whose bytes match their name, stops on a manifest it
//! cannot read, and survives a crash between the tree and the manifest. nginx with the
//! snippet serves every addressed file (this export's, before any reload, and the kept ones)
//! as immutable, and the index and the canonical files revalidated; `_headers` says the same
//! with one `Cache-Control` per path.
//!
//! The nginx test needs nginx (found on `PATH` or at the usual places); without it it says it
//! was skipped, or fails when `SKILLPUB_REQUIRE_EXTERNAL=1` is set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use skillpub_core::Digest;
use skillpub_testkit::{Cli, Nginx, Scratch, nginx_or_skip, request_blocking};

/// The binary under test.
const SKILLPUB: Cli = Cli::new(env!("CARGO_BIN_EXE_skillpub"));

const MANIFEST: &str = ".skillpub-export.json";
const INDEX: &str = ".well-known/agent-skills/index.json";
const DAY: u64 = 86_400;

/// A skills folder with `single` (one `SKILL.md`) and `bundle` (a `SKILL.md` and a file,
/// listed as an archive), each at revision 0.
fn skills() -> Scratch {
    let skills = Scratch::new("retention-skills");
    revise(&skills, "single", 0);
    revise(&skills, "bundle", 0);
    skills.write("bundle/reference.md", "# Reference\n");
    skills
}

/// Rewrites the `SKILL.md` of `name` at `revision`.
fn revise(skills: &Scratch, name: &str, revision: usize) {
    skills.write(
        format!("{name}/SKILL.md"),
        format!("---\nname: {name}\ndescription: Skill {name}.\n---\nRevision {revision}.\n"),
    );
}

/// Exports `skills` to `out` with `extra` options; panics with stderr when it fails.
fn export(skills: &Scratch, out: &Scratch, extra: &[&str]) -> String {
    let mut args = vec!["export", skills.arg(), out.arg()];
    args.extend_from_slice(extra);
    let outcome = SKILLPUB.run(&args);
    assert!(outcome.success, "{}", outcome.stderr);
    outcome.stderr
}

/// Every `url` of the index in `out` with its digest, as a path in the tree.
fn named(out: &Scratch) -> BTreeMap<PathBuf, String> {
    let text = std::fs::read_to_string(out.path().join(INDEX)).unwrap();
    let index: serde_json::Value = serde_json::from_str(&text).unwrap();
    index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let url = entry["url"].as_str().unwrap();
            assert!(url.contains("/sha256-"), "{url} is addressed");
            let digest = entry["digest"].as_str().unwrap().to_owned();
            (out.path().join(url.trim_start_matches('/')), digest)
        })
        .collect()
}

/// Asserts that every file `index` names is in the tree with its digest.
#[track_caller]
fn all_there(index: &BTreeMap<PathBuf, String>) {
    for (file, digest) in index {
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(
            &Digest::of(&bytes).to_string(),
            digest,
            "{}",
            file.display()
        );
    }
}

/// The files of `later` that are not in `earlier`: what changed.
fn changed(earlier: &BTreeMap<PathBuf, String>, later: &BTreeMap<PathBuf, String>) -> Vec<PathBuf> {
    earlier
        .keys()
        .filter(|file| !later.contains_key(*file))
        .cloned()
        .collect()
}

fn manifest(out: &Scratch) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.path().join(MANIFEST)).unwrap()).unwrap()
}

/// Rewrites every time of the manifest in `out` as `ago` seconds before now.
fn age_manifest(out: &Scratch, ago: u64) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut manifest = manifest(out);
    for generation in manifest["generations"].as_array_mut().unwrap() {
        for key in ["exported", "replaced"] {
            if generation.get(key).is_some() {
                generation[key] = (now - ago).into();
            }
        }
    }
    out.write(MANIFEST, manifest.to_string());
}

#[test]
fn every_file_an_index_replaced_within_keep_for_names_stays_byte_for_byte() {
    let (skills, out) = (skills(), Scratch::new("retention-out"));
    let mut indexes = Vec::new();
    for revision in 0..5 {
        revise(
            &skills,
            if revision % 2 == 0 {
                "single"
            } else {
                "bundle"
            },
            revision + 1,
        );
        // The count alone would keep one: the age keeps all five.
        export(&skills, &out, &["--keep-generations", "1"]);
        indexes.push(named(&out));
    }
    for index in &indexes {
        all_there(index);
    }
    let generations = manifest(&out)["generations"].as_array().unwrap().clone();
    assert_eq!(generations.len(), 5);
    assert!(generations[..4].iter().all(|g| g["replaced"].is_u64()));
    assert!(
        generations[4].get("replaced").is_none(),
        "the last is in place"
    );
}

#[test]
fn without_retention_the_replaced_files_go_and_the_unchanged_ones_stay() {
    let (skills, out) = (skills(), Scratch::new("retention-none"));
    export(&skills, &out, &[]);
    let first = named(&out);
    revise(&skills, "single", 1);
    export(
        &skills,
        &out,
        &["--keep-generations", "0", "--keep-for", "0"],
    );
    let second = named(&out);
    let gone = changed(&first, &second);
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert!(!gone[0].exists(), "{} is gone", gone[0].display());
    all_there(&second);
}

#[test]
fn a_generation_replaced_longer_ago_than_keep_for_goes_unless_the_count_keeps_it() {
    let (skills, out) = (skills(), Scratch::new("retention-age"));
    let mut indexes = Vec::new();
    for revision in 0..3 {
        revise(&skills, "single", revision + 1);
        export(&skills, &out, &[]);
        indexes.push(named(&out));
    }
    // Three days pass.
    age_manifest(&out, 3 * DAY);
    revise(&skills, "single", 9);
    let stderr = export(
        &skills,
        &out,
        &["--keep-generations", "1", "--keep-for", "1d"],
    );
    assert!(stderr.is_empty(), "{stderr}");
    let last = named(&out);
    // The one just replaced stays by count (and by age); the two before it go.
    all_there(&indexes[2]);
    for index in &indexes[..2] {
        let gone = changed(index, &last);
        assert!(gone.iter().all(|file| !file.exists()), "{gone:?}");
    }
    let generations = manifest(&out)["generations"].as_array().unwrap().len();
    assert_eq!(generations, 2);
}

#[test]
fn an_unreadable_manifest_stops_the_export_names_the_file_and_the_fix_and_changes_nothing() {
    let (skills, out) = (skills(), Scratch::new("retention-bad-manifest"));
    export(&skills, &out, &[]);
    let manifest = out.write(MANIFEST, "{\"skillpub-export\": 1, \"generat");
    let before = snapshot(out.path());
    revise(&skills, "single", 1);
    let outcome = SKILLPUB.run(&["export", skills.arg(), out.arg()]);
    assert!(!outcome.success);
    assert!(
        outcome.stderr.contains(&format!(
            "cannot read the export manifest `{}`: it is not JSON",
            manifest.display()
        )),
        "{}",
        outcome.stderr
    );
    assert!(
        outcome.stderr.contains("restore it, or remove it"),
        "{}",
        outcome.stderr
    );
    assert!(
        outcome.stderr.contains("Nothing was changed"),
        "{}",
        outcome.stderr
    );
    assert_eq!(snapshot(out.path()), before);
}

#[test]
fn without_a_manifest_every_addressed_file_in_the_tree_is_kept_and_recorded() {
    let (skills, out) = (skills(), Scratch::new("retention-no-manifest"));
    export(&skills, &out, &[]);
    let first = named(&out);
    std::fs::remove_file(out.path().join(MANIFEST)).unwrap();
    revise(&skills, "bundle", 1);
    export(&skills, &out, &[]);
    all_there(&first);
    all_there(&named(&out));
    assert_eq!(manifest(&out)["generations"].as_array().unwrap().len(), 2);
}

#[test]
fn a_manifest_one_export_behind_after_a_crash_still_keeps_the_tree_that_was_in_place() {
    let (skills, out) = (skills(), Scratch::new("retention-crash"));
    export(&skills, &out, &[]);
    let behind = std::fs::read(out.path().join(MANIFEST)).unwrap();
    revise(&skills, "single", 1);
    export(
        &skills,
        &out,
        &["--keep-generations", "0", "--keep-for", "0"],
    );
    let second = named(&out);
    // A crash between putting the tree in place and the manifest leaves the previous one.
    out.write(MANIFEST, behind);
    revise(&skills, "single", 2);
    export(
        &skills,
        &out,
        &["--keep-generations", "1", "--keep-for", "0"],
    );
    all_there(&second);
}

#[test]
fn a_kept_file_whose_bytes_changed_by_hand_is_dropped_with_a_warning() {
    let (skills, out) = (skills(), Scratch::new("retention-tampered"));
    export(&skills, &out, &[]);
    let first = named(&out);
    revise(&skills, "single", 1);
    export(&skills, &out, &[]);
    let replaced = changed(&first, &named(&out));
    assert_eq!(replaced.len(), 1);
    std::fs::write(&replaced[0], "not what the digest says").unwrap();
    revise(&skills, "single", 2);
    let stderr = export(&skills, &out, &[]);
    assert!(
        stderr.contains("skillpub export: warning: not kept: `")
            && stderr.contains("does not hold the bytes its name's digest says"),
        "{stderr}"
    );
    assert!(!replaced[0].exists());
}

/// Every file under `root` with its bytes, sorted by path.
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.push((path, bytes));
            }
        }
    }
    files.sort();
    files
}

/// The canonical path of the addressed path `addressed`: its `sha256-<hex>/` segment left out.
fn canonical_of(addressed: &str) -> String {
    let (folder, rest) = addressed.split_at("/.well-known/agent-skills/".len());
    let (_segment, tail) = rest.split_once('/').unwrap();
    format!("{folder}{tail}")
}

/// The values of `header` that `_headers` in `out` gives `path`: from every rule that matches
/// it (an exact path, or a prefix ending in `*`).
fn header_rules(out: &Scratch, path: &str, header: &str) -> Vec<String> {
    let text = std::fs::read_to_string(out.path().join("_headers")).unwrap();
    let mut values = Vec::new();
    let mut matches = false;
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        if line.starts_with("  ") {
            if matches
                && let Some(value) = line
                    .trim_start()
                    .strip_prefix(header)
                    .and_then(|rest| rest.strip_prefix(": "))
            {
                values.push(value.to_owned());
            }
        } else {
            matches = line == path
                || line
                    .strip_suffix('*')
                    .is_some_and(|prefix| path.starts_with(prefix));
        }
    }
    values
}

#[test]
fn headers_give_every_addressed_file_one_immutable_cache_control_and_its_canonical_link() {
    let (skills, out) = (skills(), Scratch::new("retention-headers"));
    export(&skills, &out, &[]);
    let first = named(&out);
    revise(&skills, "single", 1);
    revise(&skills, "bundle", 1);
    export(&skills, &out, &[]);
    let second = named(&out);
    let immutable = [skillpub_axum::ADDRESSED_CACHE_CONTROL.to_owned()];
    for file in first.keys().chain(second.keys()) {
        let path = format!("/{}", file.strip_prefix(out.path()).unwrap().display());
        assert_eq!(
            header_rules(&out, &path, "Cache-Control"),
            immutable,
            "{path}"
        );
        let link = format!("<{}>; rel=\"canonical\"", canonical_of(&path));
        assert_eq!(header_rules(&out, &path, "Link"), [link], "{path}");
    }
    let revalidated = [skillpub_axum::DEFAULT_CACHE_CONTROL.to_owned()];
    for path in [
        "/.well-known/agent-skills/index.json",
        "/.well-known/agent-skills/single/SKILL.md",
        "/.well-known/agent-skills/bundle.tar.gz",
    ] {
        assert_eq!(
            header_rules(&out, path, "Cache-Control"),
            revalidated,
            "{path}"
        );
    }
}

#[test]
fn nginx_serves_new_addressed_files_before_a_reload_and_kept_ones_after_as_immutable() {
    let Some(binary) = nginx_or_skip(
        "nginx_serves_new_addressed_files_before_a_reload_and_kept_ones_after_as_immutable",
    ) else {
        return;
    };
    let (skills, out) = (skills(), Scratch::new("retention-nginx"));
    export(&skills, &out, &[]);
    let first = named(&out);
    let mut nginx = Nginx::start(
        &binary,
        &format!(
            "root {};\n    include {}/skillpub.nginx.conf;",
            out.arg(),
            out.arg()
        ),
    );
    let url = |file: &PathBuf| format!("/{}", file.strip_prefix(out.path()).unwrap().display());
    let served = |nginx: &Nginx, index: &BTreeMap<PathBuf, String>| {
        for (file, digest) in index {
            let response = request_blocking(nginx.addr(), "GET", &url(file), &[]);
            assert_eq!(response.status, 200, "{}: {}", url(file), response.head);
            assert_eq!(&Digest::of(&response.body).to_string(), digest);
            assert_eq!(
                response.header("cache-control"),
                Some(skillpub_axum::ADDRESSED_CACHE_CONTROL),
                "{}",
                url(file)
            );
            let canonical = canonical_of(&url(file));
            let link = format!("<{canonical}>; rel=\"canonical\"");
            assert_eq!(response.header("link"), Some(link.as_str()));
        }
    };
    served(&nginx, &first);
    revise(&skills, "single", 1);
    revise(&skills, "bundle", 1);
    export(&skills, &out, &[]);
    let second = named(&out);
    // Before the reload: the new index already names new files, which nginx serves.
    served(&nginx, &second);
    served(&nginx, &first);
    nginx.reload();
    served(&nginx, &second);
    served(&nginx, &first);
    let single = second
        .keys()
        .map(url)
        .find(|u| u.ends_with("/single/SKILL.md"))
        .unwrap();
    let canonical = request_blocking(nginx.addr(), "GET", &canonical_of(&single), &[]);
    assert_eq!(canonical.header("content-location"), Some(single.as_str()));
    for path in [
        "/.well-known/agent-skills/index.json",
        "/.well-known/agent-skills/single/SKILL.md",
    ] {
        let response = request_blocking(nginx.addr(), "GET", path, &[]);
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(
            response.header("cache-control"),
            Some(skillpub_axum::DEFAULT_CACHE_CONTROL),
            "{path}"
        );
    }
    let unknown = format!(
        "/.well-known/agent-skills/sha256-{}/single/SKILL.md",
        Digest::of(b"never published").hex()
    );
    let missing = request_blocking(nginx.addr(), "GET", &unknown, &[]);
    assert_eq!(missing.status, 404, "{}", missing.head);
    assert_eq!(
        missing.header("cache-control"),
        Some(skillpub_axum::ADDRESSED_MISS_CACHE_CONTROL)
    );
    assert!(
        missing.body.starts_with(br#"{"error":"not_found""#),
        "{missing:?}"
    );
    assert_eq!(nginx.stop(), Vec::<u32>::new(), "nginx processes were left");
}
