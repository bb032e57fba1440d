//! One skill served as an archive: bombs, traversal, links that escape, a wrong media type,
//! and hostile archives refused at once.

use std::io::Write;
use std::time::Duration;

use skillpub_check::Report;

use crate::site::{INDEX, Lines, Run, SKILL_MD, Site, at, check_site, entry, index, ok, tar_gz};

/// A site serving one archive skill with these bytes.
fn archive_site(archive: Vec<u8>, content_type: &'static str, suffix: &str) -> Site {
    let url = format!("/.well-known/agent-skills/greeting{suffix}");
    let index = index(&entry(
        "greeting",
        "archive",
        "Greets the user by name.",
        &url,
        &archive,
    ));
    let mut site = Site::new(vec![(INDEX, ok("application/json", index))]);
    site.routes.push((url, ok(content_type, archive)));
    site
}

#[tokio::test(flavor = "multi_thread")]
async fn a_gzip_bomb_fails() {
    let zeros = vec![0_u8; 8 * 1024 * 1024];
    let bomb = tar_gz(
        &[
            ("SKILL.md", SKILL_MD.as_bytes()),
            ("assets/zeros.bin", &zeros),
        ],
        None,
    );
    assert!(bomb.len() < 100_000, "{}", bomb.len());
    let site = archive_site(bomb, "application/gzip", ".tar.gz");
    let run = Run {
        max_size: Some(1_048_576),
        ..Run::default()
    };
    let report = run.check(site.router(), &at("/")).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "archive.too-large")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_zip_slip_archive_fails() {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("SKILL.md", options).unwrap();
    zip.write_all(SKILL_MD.as_bytes()).unwrap();
    zip.start_file("../../evil.sh", options).unwrap();
    zip.write_all(b"rm -rf ~").unwrap();
    let archive = zip.finish().unwrap().into_inner();
    let site = archive_site(archive, "application/zip", ".zip");
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "archive.traversal")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_that_escapes_fails() {
    let archive = tar_gz(
        &[("SKILL.md", SKILL_MD.as_bytes())],
        Some(("references/passwd", "../../../etc/passwd")),
    );
    let site = archive_site(archive, "application/gzip", ".tar.gz");
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "archive.link")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_good_archive_served_as_octet_stream_fails_on_the_type_only() {
    let archive = tar_gz(
        &[
            ("SKILL.md", SKILL_MD.as_bytes()),
            ("references/a.md", b"# A\n"),
        ],
        None,
    );
    let site = archive_site(archive, "application/octet-stream", ".tar.gz");
    let report = check_site(site).await;
    assert!(!report.passed());
    assert_eq!(report.failed(), [("greeting", "entry.media-type")]);
}

/// Serves a site whose only entry is this archive and checks it within a deadline of 60 s;
/// returns the report, once it has checked that the run took well under a minute.
async fn check_hostile(archive: Vec<u8>, content_type: &'static str, suffix: &str) -> Report {
    let site = archive_site(archive, content_type, suffix);
    let started = std::time::Instant::now();
    let run = Run {
        max_time: Some(Duration::from_secs(60)),
        ..Run::default()
    };
    let report = run.check(site.router(), &at("/")).await;
    assert!(!report.passed(), "{report}");
    // Checked in one pass, the archive is refused at once; the quadratic checks took minutes.
    assert!(started.elapsed() < Duration::from_secs(30), "{report}");
    report
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_target_of_a_million_segments_is_refused_at_once() {
    let gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gzip);
    let mut header = tar::Header::new_gnu();
    header.set_size(SKILL_MD.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "SKILL.md", SKILL_MD.as_bytes())
        .unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Symlink);
    header.set_size(0);
    tar.append_link(&mut header, "references/l", "a/".repeat(1_000_000))
        .unwrap();
    let archive = tar.into_inner().unwrap().finish().unwrap();
    assert!(archive.len() < 10_000, "{}", archive.len());
    let report = check_hostile(archive, "application/gzip", ".tar.gz").await;
    assert_eq!(report.failed(), [("greeting", "archive.path-length")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_path_of_a_million_segments_behind_a_link_is_refused_at_once() {
    let gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gzip);
    let file = |tar: &mut tar::Builder<_>, path: &str, bytes: &[u8]| {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, bytes).unwrap();
    };
    file(&mut tar, "SKILL.md", SKILL_MD.as_bytes());
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Symlink);
    header.set_size(0);
    tar.append_link(&mut header, "x", "SKILL.md").unwrap();
    file(&mut tar, &format!("{}f.md", "a/".repeat(1_000_000)), b"x");
    let archive = tar.into_inner().unwrap().finish().unwrap();
    assert!(archive.len() < 10_000, "{}", archive.len());
    let report = check_hostile(archive, "application/gzip", ".tar.gz").await;
    assert_eq!(report.failed(), [("greeting", "archive.path-length")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_zip_of_deep_paths_behind_a_link_is_refused_at_once() {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("SKILL.md", options).unwrap();
    zip.write_all(SKILL_MD.as_bytes()).unwrap();
    zip.add_symlink("x", "SKILL.md", options).unwrap();
    for at in 0..20 {
        zip.start_file(format!("{}f{at}.md", "a/".repeat(32_000)), options)
            .unwrap();
        zip.write_all(b"x").unwrap();
    }
    let archive = zip.finish().unwrap().into_inner();
    let report = check_hostile(archive, "application/zip", ".zip").await;
    assert_eq!(report.failed(), [("greeting", "archive.path-length")]);
}
