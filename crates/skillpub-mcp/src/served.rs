//! A skill as MCP serves it: the URI, media type, digest, size and resource entry of each of
//! its files, worked out once from the catalog for every surface (the skills extension,
//! prompts, tools), and the served bytes of each file.

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use rmcp::model::{Resource, ResourceContents};
use skillpub_core::{catalog::PublishedSkill, media::essence, paths::SKILL_MD};

/// The URI scheme of skill resources.
pub const SCHEME: &str = "skill://";

/// The `mimeType` of `SKILL.md` resources.
const MARKDOWN: &str = "text/markdown";

/// One served file.
#[derive(Debug)]
pub(crate) struct File {
    pub(crate) bytes: bytes::Bytes,
    pub(crate) mime_type: &'static str,
    pub(crate) digest: String,
}

impl File {
    /// The file as MCP resource contents: text when its media type is text and its bytes are
    /// UTF-8 without NUL, a base64 blob otherwise; the same for `resources/read` and the
    /// `read_skill_file` tool.
    pub(crate) fn contents(&self, uri: &str) -> ResourceContents {
        let text = skillpub_core::media::is_text(self.mime_type)
            .then_some(&self.bytes)
            .filter(|bytes| !bytes.contains(&0))
            .and_then(|bytes| std::str::from_utf8(bytes).ok());
        let contents = match text {
            Some(text) => ResourceContents::text(text, uri),
            None => ResourceContents::blob(BASE64_STANDARD.encode(&self.bytes), uri),
        };
        contents.with_mime_type(self.mime_type)
    }
}

/// One file of a skill as MCP serves it, worked out once for every surface.
#[derive(Debug)]
pub(crate) struct ServedFile<'a> {
    /// The path in the skill's folder, such as `references/api.md`.
    pub(crate) path: &'a str,
    pub(crate) uri: String,
    pub(crate) mime_type: &'static str,
    pub(crate) digest: String,
    pub(crate) size: u64,
    /// Its entry in `resources/list`, and its link in a prompt.
    pub(crate) resource: Resource,
    pub(crate) bytes: &'a bytes::Bytes,
}

/// One skill as MCP serves it: its catalog entry and its files, `SKILL.md` included, sorted
/// by path.
#[derive(Debug)]
pub(crate) struct ServedSkill<'a> {
    pub(crate) skill: &'a PublishedSkill,
    /// The URI of its folder, such as `skill://acme/refunds`.
    pub(crate) root: String,
    /// The URI of its `SKILL.md`.
    pub(crate) uri: String,
    pub(crate) files: Vec<ServedFile<'a>>,
}

impl ServedSkill<'_> {
    /// The `SKILL.md` as text: its exact bytes, since the catalog refuses a `SKILL.md` that
    /// is not UTF-8.
    pub(crate) fn skill_md(&self) -> std::borrow::Cow<'_, str> {
        let bytes = self.skill.skill_md().bytes();
        // `from_utf8` checks a word at a time, several times faster than the lossy
        // conversion, which is only a fallback here.
        std::str::from_utf8(bytes).map_or_else(
            |_| String::from_utf8_lossy(bytes),
            std::borrow::Cow::Borrowed,
        )
    }

    /// Its files other than `SKILL.md`.
    pub(crate) fn supporting_files(&self) -> impl Iterator<Item = &ServedFile<'_>> {
        self.files.iter().filter(|file| file.path != SKILL_MD)
    }
}

/// The URI of a skill's folder: `skill://[prefix/]name`.
pub(crate) fn root_uri(prefix: &str, name: &str) -> String {
    match prefix {
        "" => format!("{SCHEME}{name}"),
        prefix => format!("{SCHEME}{prefix}/{name}"),
    }
}

impl<'a> ServedSkill<'a> {
    /// Works out a skill's URIs, media types, digests and resource entries once, for every
    /// surface; `root` is the URI of its folder.
    pub(crate) fn new(skill: &'a PublishedSkill, root: &str) -> Self {
        let files = skill
            .all_files()
            .map(|file| {
                let path = file.relative_path();
                let uri = format!("{root}/{path}");
                let artifact = file.artifact();
                let size = artifact.len() as u64;
                let mime_type = if path == SKILL_MD {
                    MARKDOWN
                } else {
                    essence(artifact.media_type())
                };
                let resource = if path == SKILL_MD {
                    Resource::new(&uri, skill.name())
                        .with_description(skill.frontmatter().description())
                } else {
                    Resource::new(&uri, path.rsplit('/').next().unwrap_or(path))
                }
                .with_mime_type(mime_type)
                .with_size(size);
                ServedFile {
                    path,
                    uri,
                    mime_type,
                    digest: artifact.digest().to_string(),
                    size,
                    resource,
                    bytes: artifact.bytes(),
                }
            })
            .collect();
        Self {
            skill,
            root: root.to_owned(),
            uri: format!("{root}/{SKILL_MD}"),
            files,
        }
    }
}
