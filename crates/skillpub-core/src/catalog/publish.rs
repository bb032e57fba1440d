//! The build pipeline's second half: checked skills made servable, each file hashed as an
//! artifact, the archives built (or taken from `skillpub-build` when they were built from
//! these very files), then the index, the legacy 0.1.0 layout and the API catalog rendered.

use bytes::Bytes;

use super::builder::{CatalogBuilder, Checked, secrets_unless_reviewed};
use super::model::{Artifact, PublishedFile, PublishedSkill};
use crate::api_catalog;
use crate::archive;
use crate::digest::Digest;
use crate::error::{Error, ErrorKind, Errors};
use crate::file::SKILL_MD_MODE;
use crate::index;
use crate::legacy;
use crate::media;
use crate::parallel;
use crate::paths::{
    self, API_CATALOG_PATH, INDEX_PATH, LEGACY_INDEX_PATH, LEGACY_PATH, SKILL_MD, TAR_GZ_SUFFIX,
    WELL_KNOWN_PATH, ZIP_SUFFIX,
};
use crate::skill::{BuiltArchives, Skill};

impl CatalogBuilder {
    pub(super) fn publish_all(
        &self,
        checked: Vec<Checked<'_>>,
    ) -> Result<Vec<PublishedSkill>, Errors> {
        let mut skills = Vec::with_capacity(checked.len());
        let mut errors = Vec::new();
        let threads = self.threads_for(checked.iter().map(|c| publish_work(c.skill)).sum());
        for published in parallel::map(checked, threads, |checked| self.publish(checked)) {
            match published {
                Ok(published) => skills.push(published),
                Err(problems) => errors.extend(problems),
            }
        }
        if errors.is_empty() {
            Ok(skills)
        } else {
            Err(Errors::new(errors))
        }
    }

    /// Makes a checked skill servable: its files as artifacts, its archives when it has
    /// supporting files, and the `url` the index gives.
    fn publish(&self, checked: Checked<'_>) -> Result<PublishedSkill, Errors> {
        let (skill, reviewed) = (checked.skill, checked.reviewed);
        let built = skill.built().archives;
        let mut published = published_skill(checked);
        if reviewed.is_some() {
            let digests = published
                .all_files()
                .map(|file| (file.relative.as_str(), file.artifact.digest()));
            let frontmatter = &published.frontmatter;
            let secrets =
                secrets_unless_reviewed(skill, reviewed, frontmatter, &published.file, digests);
            if !secrets.is_empty() {
                return Err(Errors::new(secrets));
            }
        }
        published.archives = archives(&published, built)?;
        published.url = self.url(&published).into_boxed_str();
        Ok(published)
    }

    /// The `url` the index gives a skill: the addressed path of its archive or of its
    /// `SKILL.md` (or their canonical path without addressed URLs), in the URL style.
    fn url(&self, skill: &PublishedSkill) -> String {
        let listed = self.listed(skill);
        let path = match listed.addressed_path() {
            Some(addressed) if self.addressed_urls => addressed,
            _ => listed.path(),
        };
        // Every listed artifact is under the folder: its path is the folder and a relative
        // path.
        let relative = path.strip_prefix(WELL_KNOWN_PATH).unwrap_or(path);
        self.url_style.url_under(&self.base_path, relative)
    }

    /// The rendered `index.json`.
    pub(super) fn index(&self, skills: &[PublishedSkill]) -> Artifact {
        let entries: Vec<index::Entry<'_>> = skills
            .iter()
            .map(|skill| index::Entry {
                name: skill.name(),
                kind: skill.kind().as_str(),
                description: skill.frontmatter.description(),
                url: &skill.url,
                digest: self.listed(skill).digest().to_string(),
            })
            .collect();
        Artifact::new(
            INDEX_PATH.to_owned(),
            media::JSON,
            Bytes::from(index::render(&entries)),
        )
    }

    /// The legacy 0.1.0 index and files, and the API catalog, when enabled.
    pub(super) fn extra(&self, skills: &[PublishedSkill]) -> Vec<Artifact> {
        let mut extra = Vec::new();
        if self.legacy_index {
            extra.extend(legacy_artifacts(skills));
        }
        if self.api_catalog {
            let bytes = Bytes::from(api_catalog::render(&self.url_style, &self.base_path));
            extra.push(Artifact::new(
                API_CATALOG_PATH.to_owned(),
                media::LINKSET,
                bytes,
            ));
        }
        extra
    }

    /// The artifact the index lists for a skill.
    fn listed<'a>(&self, skill: &'a PublishedSkill) -> &'a Artifact {
        skill
            .archive(self.archive_format)
            .unwrap_or(&skill.skill_md.artifact)
    }
}

/// Deflating a byte costs about as much as hashing this many.
const DEFLATE_WORK: usize = 32;

/// The work of publishing a skill: hashing every file, and its archives, which are hashed when
/// they were built ahead of time and else deflated from every file.
fn publish_work(skill: &Skill) -> usize {
    let files: usize = skill.files().iter().map(|file| file.bytes().len()).sum();
    let all = files + skill.skill_md().len();
    let archives = match skill.built().archives {
        _ if skill.files().is_empty() => 0,
        Some(built) => built.tar_gz.len() + built.zip.len(),
        None => 2 * DEFLATE_WORK * all,
    };
    all + archives
}

/// The 0.1.0 index and every file of every skill under `/.well-known/skills/`.
fn legacy_artifacts(skills: &[PublishedSkill]) -> Vec<Artifact> {
    let entries: Vec<legacy::Entry<'_>> = skills
        .iter()
        .map(|skill| {
            let mut files = vec![SKILL_MD];
            files.extend(skill.files.iter().map(|f| f.relative.as_str()));
            legacy::Entry {
                name: skill.name(),
                description: skill.frontmatter.description(),
                files,
            }
        })
        .collect();
    let index = Bytes::from(legacy::render(&entries));
    let mut artifacts = vec![Artifact::new(
        LEGACY_INDEX_PATH.to_owned(),
        media::JSON,
        index,
    )];
    for skill in skills {
        for file in skill.all_files() {
            let path = format!("{LEGACY_PATH}{}/{}", skill.name(), file.relative);
            artifacts.push(file.artifact.published_at(path));
        }
    }
    artifacts
}

/// A checked skill's `SKILL.md` and supporting files (sorted) as artifacts; no archive or
/// `url` yet.
fn published_skill(checked: Checked<'_>) -> PublishedSkill {
    let Checked {
        skill,
        skill_md,
        skill_md_digest,
        file,
        ..
    } = checked;
    let name = skill_md.name();
    let bytes = skill_md.bytes().clone();
    // The parser has read it as UTF-8 (or its digest is that of a file read so at build time),
    // so it is Markdown text.
    let digest = skill_md_digest.unwrap_or_else(|| Digest::of(&bytes));
    let skill_md_file = PublishedFile {
        relative: SKILL_MD.to_owned(),
        mode: SKILL_MD_MODE,
        artifact: Artifact::hashed(paths::skill_md_path(name), media::MARKDOWN, bytes, digest)
            .addressed(),
    };
    let mut files: Vec<PublishedFile> = skill
        .files()
        .iter()
        .map(|f| published_file(name, f.path(), f.mode(), f.bytes().clone()))
        .collect();
    files.sort_by(|a, b| a.relative.cmp(&b.relative));
    PublishedSkill {
        frontmatter: skill_md.into_frontmatter(),
        skill_md: skill_md_file,
        files,
        archives: None,
        url: Box::default(),
        file,
    }
}

fn published_file(name: &str, relative: &str, mode: u32, bytes: Bytes) -> PublishedFile {
    PublishedFile {
        relative: relative.to_owned(),
        mode,
        artifact: Artifact::new(
            format!("{WELL_KNOWN_PATH}{name}/{relative}"),
            media::media_type(relative, &bytes),
            bytes,
        ),
    }
}

/// The archives of a skill with supporting files; none for a skill that is only a `SKILL.md`.
/// Archives built ahead of time are served when they were built from these very files.
fn archives(
    skill: &PublishedSkill,
    built: Option<BuiltArchives>,
) -> Result<Option<[Artifact; 2]>, Errors> {
    if skill.files.is_empty() {
        return Ok(None);
    }
    if let Some(built) = built {
        let key = archive::key(
            skill
                .all_files()
                .map(|f| (f.relative.as_str(), f.mode, f.artifact.digest())),
        );
        if *key.as_bytes() == built.key {
            let bytes = [built.tar_gz, built.zip].map(Bytes::from_static);
            return Ok(Some(archive_artifacts(skill.name(), bytes)));
        }
    }
    build_archives(skill).map(Some).map_err(|message| {
        let kind = ErrorKind::Archive { message };
        Errors::new(vec![Error::new(skill.name(), &skill.file, None, kind)])
    })
}

/// Builds the `.tar.gz` and `.zip` of a skill's files.
fn build_archives(skill: &PublishedSkill) -> Result<[Artifact; 2], String> {
    let entries: Vec<archive::Entry<'_>> = skill
        .all_files()
        .map(|file| archive::Entry {
            path: &file.relative,
            bytes: file.artifact.bytes(),
            mode: file.mode,
        })
        .collect();
    let tar_gz = archive::tar_gz(&entries).map_err(|e| e.to_string())?;
    let zip = archive::zip(&entries).map_err(|e| e.to_string())?;
    Ok(archive_artifacts(
        skill.name(),
        [Bytes::from(tar_gz), Bytes::from(zip)],
    ))
}

/// The `.tar.gz` and `.zip` of the skill `name`, as artifacts.
fn archive_artifacts(name: &str, [tar_gz, zip]: [Bytes; 2]) -> [Artifact; 2] {
    [
        Artifact::new(
            format!("{WELL_KNOWN_PATH}{name}{}", TAR_GZ_SUFFIX),
            media::GZIP,
            tar_gz,
        )
        .addressed(),
        Artifact::new(
            format!("{WELL_KNOWN_PATH}{name}{}", ZIP_SUFFIX),
            media::ZIP,
            zip,
        )
        .addressed(),
    ]
}
