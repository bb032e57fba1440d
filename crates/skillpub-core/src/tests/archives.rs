//! Archives: what is inside, in which order, with which metadata, and that the bytes are the
//! same on every build.

use std::io::Read;

use crate::{Catalog, CatalogBuilder, Digest, Skill, SkillFile, index::ArchiveFormat};

const SKILL_MD: &str =
    "---\nname: pdf\ndescription: Reads PDF files.\n---\nSee references/forms.md.\n";
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";

/// The files, deliberately out of order.
fn files() -> Vec<SkillFile> {
    vec![
        SkillFile::new("scripts/fill.py", "print('fill')\n", false),
        SkillFile::new("references/forms.md", "# Forms\n", false),
        SkillFile::new("assets/logo.png", PNG, false),
        SkillFile::new("assets/tool", "#!/bin/sh\n", true),
        SkillFile::new("references/api.md", "# API\n", false),
    ]
}

fn skill(files: Vec<SkillFile>) -> Skill {
    Skill::new(Some("skills/pdf".into()), SKILL_MD).with_files(files)
}

fn catalog() -> Catalog {
    Catalog::new([skill(files())]).unwrap()
}

/// (path, mode, bytes) in archive order.
type Listing = Vec<(String, u32, Vec<u8>)>;

fn expected() -> Listing {
    vec![
        ("SKILL.md".into(), 0o644, SKILL_MD.as_bytes().to_vec()),
        ("assets/logo.png".into(), 0o644, PNG.to_vec()),
        ("assets/tool".into(), 0o755, b"#!/bin/sh\n".to_vec()),
        ("references/api.md".into(), 0o644, b"# API\n".to_vec()),
        ("references/forms.md".into(), 0o644, b"# Forms\n".to_vec()),
        ("scripts/fill.py".into(), 0o755, b"print('fill')\n".to_vec()),
    ]
}

fn untar(bytes: &[u8]) -> Listing {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let mut listing = Vec::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let header = entry.header();
        assert_eq!(header.entry_type(), tar::EntryType::Regular);
        assert_eq!(header.mtime().unwrap(), 0);
        assert_eq!((header.uid().unwrap(), header.gid().unwrap()), (0, 0));
        assert!(header.as_ustar().is_some(), "ustar headers");
        let path = entry.path().unwrap().to_str().unwrap().to_owned();
        let mode = entry.header().mode().unwrap();
        let mut content = Vec::new();
        entry.read_to_end(&mut content).unwrap();
        listing.push((path, mode, content));
    }
    listing
}

fn unzip(bytes: &[u8]) -> Listing {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut listing = Vec::new();
    for at in 0..archive.len() {
        let mut file = archive.by_index(at).unwrap();
        assert!(file.is_file());
        assert_eq!(file.last_modified(), Some(zip::DateTime::default()));
        let path = file.enclosed_name().unwrap().to_str().unwrap().to_owned();
        assert_eq!(path, file.name().unwrap(), "no normalisation needed");
        let mode = file.unix_mode().unwrap() & 0o777;
        let mut content = Vec::new();
        file.read_to_end(&mut content).unwrap();
        listing.push((path, mode, content));
    }
    listing
}

#[test]
fn the_tar_gz_holds_every_file_at_the_root_sorted_with_fixed_metadata() {
    let catalog = catalog();
    let archive = catalog
        .get("pdf")
        .unwrap()
        .archive(ArchiveFormat::TarGz)
        .unwrap();
    assert_eq!(archive.path(), "/.well-known/agent-skills/pdf.tar.gz");
    assert_eq!(archive.media_type(), "application/gzip");
    assert_eq!(&archive.bytes()[..2], b"\x1f\x8b");
    assert_eq!(&archive.bytes()[4..8], &[0, 0, 0, 0], "gzip mtime is zero");
    assert_eq!(untar(archive.bytes()), expected());
}

#[test]
fn the_zip_holds_every_file_at_the_root_sorted_with_fixed_metadata() {
    let catalog = catalog();
    let archive = catalog
        .get("pdf")
        .unwrap()
        .archive(ArchiveFormat::Zip)
        .unwrap();
    assert_eq!(archive.path(), "/.well-known/agent-skills/pdf.zip");
    assert_eq!(archive.media_type(), "application/zip");
    assert_eq!(unzip(archive.bytes()), expected());
}

#[test]
fn archives_are_the_same_bytes_whatever_the_order_of_the_files() {
    let mut reversed = files();
    reversed.reverse();
    let a = catalog();
    let b = Catalog::new([skill(reversed)]).unwrap();
    for format in [ArchiveFormat::TarGz, ArchiveFormat::Zip] {
        assert_eq!(
            a.get("pdf").unwrap().archive(format),
            b.get("pdf").unwrap().archive(format)
        );
    }
}

/// Recorded once; a change means every published digest changes on upgrade, so it must be a
/// deliberate decision (a new compressor version, a new layout), never an accident.
#[test]
fn archive_digests_are_pinned() {
    let catalog = catalog();
    let skill = catalog.get("pdf").unwrap();
    let digest = |format| skill.archive(format).unwrap().digest().to_string();
    assert_eq!(
        digest(ArchiveFormat::TarGz),
        "sha256:86f8368f41fb2921d1a75e2442891cd961674a0aa0ec1229b23667ea292acad3"
    );
    assert_eq!(
        digest(ArchiveFormat::Zip),
        "sha256:a8e64883a66d03a0c250638fe8161f734a23014be8290a5912f4a2022f86bce6"
    );
}

/// The same for a text long enough that every deflate level gives other bytes, so that the
/// level is pinned too (the fixture above is too small to tell levels apart).
#[test]
fn archive_digests_of_a_longer_text_are_pinned() {
    let guide: String = (0..2_000)
        .map(|line| format!("Line {line}: step {} of {}.\n", line * 7 % 13, line % 97))
        .collect();
    let catalog = Catalog::new([skill(vec![SkillFile::new(
        "references/guide.md",
        guide,
        false,
    )])])
    .unwrap();
    let skill = catalog.get("pdf").unwrap();
    let digest = |format| skill.archive(format).unwrap().digest().to_string();
    assert_eq!(
        digest(ArchiveFormat::TarGz),
        "sha256:b9c487f39813993d93a3fae7ecc5863987d9da8b8dbe2a2e1f30ea645200d1a9"
    );
    assert_eq!(
        digest(ArchiveFormat::Zip),
        "sha256:d31ec75192e6656b9e9bad5c232d30a517a2f7fb49cd23457690deb747405796"
    );
}

#[test]
fn a_multi_file_skill_is_listed_as_an_archive() {
    let catalog = catalog();
    let index: serde_json::Value = serde_json::from_slice(catalog.index().bytes()).unwrap();
    let entry = &index["skills"][0];
    let tar_gz = catalog
        .get("pdf")
        .unwrap()
        .archive(ArchiveFormat::TarGz)
        .unwrap();
    assert_eq!(entry["type"], "archive");
    assert_eq!(
        entry["url"],
        format!(
            "/.well-known/agent-skills/sha256-{}/pdf.tar.gz",
            tar_gz.digest().hex()
        )
    );
    assert_eq!(entry["url"], tar_gz.addressed_path().unwrap());
    assert_eq!(entry["digest"], tar_gz.digest().to_string());
    assert_eq!(tar_gz.digest(), Digest::of(tar_gz.bytes()));

    let zip_listed = CatalogBuilder::new()
        .skill(skill(files()))
        .archive_format(ArchiveFormat::Zip)
        .build()
        .unwrap();
    let index: serde_json::Value = serde_json::from_slice(zip_listed.index().bytes()).unwrap();
    let zip = zip_listed
        .get("pdf")
        .unwrap()
        .archive(ArchiveFormat::Zip)
        .unwrap();
    assert_eq!(
        index["skills"][0]["url"],
        format!(
            "/.well-known/agent-skills/sha256-{}/pdf.zip",
            zip.digest().hex()
        )
    );
    assert_eq!(index["skills"][0]["digest"], zip.digest().to_string());
}

#[test]
fn the_skill_md_of_an_archive_skill_is_still_served_alone() {
    let catalog = catalog();
    let skill = catalog.get("pdf").unwrap();
    assert_eq!(
        skill.skill_md().path(),
        "/.well-known/agent-skills/pdf/SKILL.md"
    );
    assert_eq!(skill.skill_md().bytes().as_ref(), SKILL_MD.as_bytes());
    let paths: Vec<&str> = skill.files().iter().map(|f| f.artifact().path()).collect();
    assert_eq!(
        paths,
        [
            "/.well-known/agent-skills/pdf/assets/logo.png",
            "/.well-known/agent-skills/pdf/assets/tool",
            "/.well-known/agent-skills/pdf/references/api.md",
            "/.well-known/agent-skills/pdf/references/forms.md",
            "/.well-known/agent-skills/pdf/scripts/fill.py",
        ]
    );
    let types: Vec<&str> = skill
        .files()
        .iter()
        .map(|f| f.artifact().media_type())
        .collect();
    assert_eq!(
        types,
        [
            "image/png",
            "text/plain; charset=utf-8",
            "text/markdown; charset=utf-8",
            "text/markdown; charset=utf-8",
            "text/plain; charset=utf-8",
        ]
    );
}

#[test]
fn a_skill_md_only_skill_has_no_archive() {
    let catalog = Catalog::new([Skill::from_static(SKILL_MD)]).unwrap();
    let skill = catalog.get("pdf").unwrap();
    assert_eq!(skill.kind().as_str(), "skill-md");
    assert!(skill.archive(ArchiveFormat::TarGz).is_none());
    assert_eq!(skill.artifacts().count(), 1);
}
