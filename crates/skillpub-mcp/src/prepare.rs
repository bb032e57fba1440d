//! The preparation pass: every answer of a catalog worked out once, from the very bytes and
//! digests the HTTP routes serve (`skills/list`, `skills/get`, `resources/list`,
//! `resources/read`, `resources/directory/read`), and the surfaces for hosts without the
//! extension (prompts, tools, the instructions) in the same pass, from the same files.

use std::collections::{BTreeMap, HashMap};

use rmcp::model::{
    CacheScope, DIRECTORY_MIME_TYPE, Resource, Skill, SkillFrontmatter, SkillResource,
    SkillResources,
};
use skillpub_core::Catalog;

use crate::instructions;
use crate::options::{Options, Surfaces};
use crate::prompts::Prompts;
use crate::served::{File, ServedSkill, root_uri};
use crate::tools::Tools;

/// Every answer of one catalog, prepared once with checked options.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The entries of `skills/list`, sorted by URI.
    pub(crate) skills: Vec<Skill>,
    /// Every file, by URI.
    pub(crate) files: HashMap<String, File>,
    /// The entries of `resources/list`, sorted by URI.
    pub(crate) listed: Vec<Resource>,
    /// The children of every folder, by the folder's URI, sorted by URI.
    pub(crate) directories: BTreeMap<String, Vec<Resource>>,
    pub(crate) page_size: usize,
    pub(crate) ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
    pub(crate) surfaces: Surfaces,
    pub(crate) prompts: Prompts,
    pub(crate) tools: Tools,
    pub(crate) instructions: String,
}

impl Prepared {
    /// Prepares every answer of `catalog` with checked `options`.
    pub(crate) fn new(options: &Options, catalog: &Catalog) -> Self {
        let root_of = |name: &str| root_uri(&options.prefix, name);
        let surfaces = options.surfaces;
        let mut prepared = Prepared {
            skills: Vec::new(),
            files: HashMap::new(),
            listed: Vec::new(),
            directories: BTreeMap::new(),
            page_size: options.page_size,
            ttl_ms: options.ttl_ms,
            cache_scope: options.cache_scope,
            surfaces,
            prompts: Prompts::default(),
            tools: Tools::new(options),
            instructions: String::new(),
        };
        for skill in catalog.skills() {
            let served = ServedSkill::new(skill, &root_of(skill.name()));
            if surfaces.prompts {
                prepared.prompts.add(&served);
            }
            if surfaces.tools {
                prepared.tools.add(&served);
            }
            add_skill(&mut prepared, served);
        }
        prepared.skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        prepared.listed.sort_by(|a, b| a.uri.cmp(&b.uri));
        for children in prepared.directories.values_mut() {
            children.sort_by(|a, b| a.uri.cmp(&b.uri));
        }
        prepared.prompts.sort();
        prepared.tools.sort();
        prepared.instructions = instructions::render(&prepared.skills, surfaces, &options.prefix);
        prepared
    }
}

/// Adds one skill: its entry, its files, its folders.
fn add_skill(prepared: &mut Prepared, served: ServedSkill<'_>) {
    let root = served.root.as_str();
    let frontmatter = served.skill.frontmatter();
    let mut extra = frontmatter.json().clone();
    // `retain` keeps the authored order (`remove` would swap the last field into the gap).
    extra.retain(|key, _| key != "name" && key != "description");
    let mut entry_frontmatter =
        SkillFrontmatter::new(frontmatter.name(), frontmatter.description());
    entry_frontmatter.extra = extra;

    let mut manifest = Vec::new();
    prepared.directories.entry(root.to_owned()).or_default();
    for file in &served.files {
        manifest.push(SkillResource::new(&file.uri, &file.digest, file.size));
        // Every folder on the way gets its children: sub-folders once, the file itself.
        let mut parent = root.to_owned();
        let segments: Vec<&str> = file.path.split('/').collect();
        for folder in &segments[..segments.len() - 1] {
            let child = format!("{parent}/{folder}");
            let children = prepared.directories.entry(parent.clone()).or_default();
            if !children.iter().any(|r| r.uri == child) {
                children.push(Resource::new(&child, *folder).with_mime_type(DIRECTORY_MIME_TYPE));
            }
            prepared.directories.entry(child.clone()).or_default();
            parent = child;
        }
        prepared
            .directories
            .entry(parent)
            .or_default()
            .push(file.resource.clone());
        prepared.listed.push(file.resource.clone());
        prepared.files.insert(
            file.uri.clone(),
            File {
                bytes: file.bytes.clone(),
                mime_type: file.mime_type,
                digest: file.digest.clone(),
            },
        );
    }
    manifest.sort_by(|a, b| a.uri.cmp(&b.uri));
    prepared.skills.push(Skill::new(
        served.uri,
        entry_frontmatter,
        SkillResources::Files(manifest),
    ));
}
