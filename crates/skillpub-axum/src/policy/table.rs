//! Every path a catalog serves, to the answers of its artifact: one table per catalog (per
//! snapshot of a live one), looked up by the path of each request, in place of a route per
//! artifact.
//!
//! A canonical path is a key of the table. An addressed path is not: it is read back
//! ([`AddressedPath::parse`]) and the canonical path it addresses is looked up, which answers
//! it if that artifact is addressed and its digest is the one the path names. So both paths
//! of an artifact share one entry and one [`Resource`], and the extra addresses cost no key.
//! An addressed path that the catalog does not serve is looked up last among the artifacts
//! retained from replaced catalogs ([`Retained`]), each until the end of its grace period;
//! anything else is unpublished (`404`), never other bytes.
//!
//! Paths that serve the same bytes as the same type (the legacy layout, a file shared by
//! several skills, an artifact that a new catalog keeps, a retained one) share one
//! [`Resource`], so each encoded variant is made once; a new table takes the answers of the
//! previous one for every artifact it keeps.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use http::HeaderValue;
use skillpub_core::live::Retained;
use skillpub_core::paths::{AddressedPath, WELL_KNOWN_PATH};
use skillpub_core::{Catalog, catalog::Artifact};

use super::address::{self, Address, Faces};
use super::resource::{self, Resource};
use super::settings::Policy;

/// Maps looked up on every request by path: foldhash, seeded per map, hashes a path several
/// times faster than the standard SipHash. The keys are the catalog's paths, so a request can
/// only make a look-up miss, never grow a map.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// The answers of every path of one catalog, and of the artifacts retained from the catalogs
/// it replaced.
#[derive(Debug, Default)]
pub(crate) struct Table {
    /// Every artifact, by canonical path.
    paths: FastMap<Box<str>, Entry>,
    /// Every retained artifact, by addressed path.
    retained: FastMap<Box<str>, Kept>,
}

/// The answers of an artifact of the catalog.
#[derive(Debug)]
struct Entry {
    resource: Arc<Resource>,
    /// For an addressed artifact, the headers that tie its two paths together.
    faces: Option<Box<Faces>>,
}

/// The answers of a retained artifact, at its addressed path only.
#[derive(Debug)]
struct Kept {
    resource: Arc<Resource>,
    link: HeaderValue,
    /// The end of its grace period.
    until: Instant,
}

/// What a request's path is served: the answers of an artifact, at one of its addresses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit<'a> {
    pub(super) resource: &'a Arc<Resource>,
    pub(super) address: Address<&'a HeaderValue>,
}

/// Room for the canonical path an addressed path names: the folder, a skill name (at most 64
/// characters) and `/SKILL.md`, `.tar.gz` or `.zip`, with room to spare.
const CANONICAL_ROOM: usize = 128;

impl Table {
    /// The answers at `path` (without the base path, as the router sees it); `None` where
    /// nothing is published.
    pub(crate) fn get(&self, path: &str) -> Option<Hit<'_>> {
        // An addressed path is never a canonical one: its first segment is longer than any
        // skill name.
        if let Some(addressed) = AddressedPath::parse(path) {
            return self.addressed(path, addressed);
        }
        let entry = self.paths.get(path)?;
        let address = match &entry.faces {
            Some(faces) => Address::Canonical(&faces.content_location),
            None => Address::Plain,
        };
        Some(Hit {
            resource: &entry.resource,
            address,
        })
    }

    /// The answers at the addressed `path`: the artifact of the catalog at the canonical path
    /// it addresses, if that one is addressed and has its digest, else a retained one.
    fn addressed(&self, path: &str, addressed: AddressedPath<'_>) -> Option<Hit<'_>> {
        let mut room = [0; CANONICAL_ROOM];
        if let Some(canonical) = canonical_path(&mut room, addressed.relative())
            && let Some(entry) = self.paths.get(canonical)
            && let Some(faces) = &entry.faces
            && entry.resource.hex() == addressed.hex().as_bytes()
        {
            return Some(Hit {
                resource: &entry.resource,
                address: Address::Addressed(&faces.link),
            });
        }
        let kept = self.retained.get(path)?;
        (Instant::now() < kept.until).then_some(Hit {
            resource: &kept.resource,
            address: Address::Addressed(&kept.link),
        })
    }

    /// The answers of `catalog` and of what is `retained`, under `policy`, taking those of
    /// `previous` for every artifact they have already.
    pub(crate) fn new(
        policy: &Policy,
        catalog: &Catalog,
        retained: &Retained,
        previous: Option<&Self>,
    ) -> Self {
        let mut known = Known::of(previous);
        let base_path = catalog.base_path().as_str();
        let paths = catalog
            .artifacts()
            .map(|artifact| {
                let entry = Entry {
                    resource: known.resource(policy, artifact),
                    faces: Faces::of(artifact, base_path).map(Box::new),
                };
                (Box::from(artifact.path()), entry)
            })
            .collect();
        let retained = retained
            .artifacts()
            .filter_map(|(artifact, until)| {
                let kept = Kept {
                    resource: known.resource(policy, artifact),
                    link: address::link(artifact, base_path)?,
                    until,
                };
                Some((Box::from(artifact.addressed_path()?), kept))
            })
            .collect();
        Self { paths, retained }
    }

    /// Every resource of the table.
    fn resources(&self) -> impl Iterator<Item = &Arc<Resource>> {
        let paths = self.paths.values().map(|entry| &entry.resource);
        paths.chain(self.retained.values().map(|kept| &kept.resource))
    }
}

/// `/.well-known/agent-skills/{relative}` in `room`; `None` if it does not fit, which no
/// addressed artifact's path does not.
fn canonical_path<'a>(room: &'a mut [u8; CANONICAL_ROOM], relative: &str) -> Option<&'a str> {
    let length = WELL_KNOWN_PATH.len() + relative.len();
    let path = room.get_mut(..length)?;
    let (folder, rest) = path.split_at_mut(WELL_KNOWN_PATH.len());
    folder.copy_from_slice(WELL_KNOWN_PATH.as_bytes());
    rest.copy_from_slice(relative.as_bytes());
    std::str::from_utf8(path).ok()
}

/// The resources made so far for a table, by what identifies them: the entity tag of their
/// bytes and their type.
struct Known(FastMap<(HeaderValue, HeaderValue), Arc<Resource>>);

impl Known {
    /// The resources of `previous`, to take again.
    fn of(previous: Option<&Table>) -> Self {
        let resources = previous.into_iter().flat_map(Table::resources);
        Self(
            resources
                .map(|resource| (resource.key(), Arc::clone(resource)))
                .collect(),
        )
    }

    /// The answers for `artifact`: the ones made already for the same bytes and type, or new
    /// ones.
    fn resource(&mut self, policy: &Policy, artifact: &Artifact) -> Arc<Resource> {
        let etag = resource::entity_tag(artifact.digest());
        let content_type = HeaderValue::from_static(artifact.media_type());
        let resource = self
            .0
            .entry((etag.clone(), content_type.clone()))
            .or_insert_with(|| {
                let body = artifact.bytes().clone();
                Arc::new(policy.resource(content_type, body, etag))
            });
        Arc::clone(resource)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use skillpub_core::{LiveCatalog, Skill, SkillFile, live::Retention};

    use super::*;

    fn catalog(body: &str) -> Catalog {
        let skill_md = format!("---\nname: pdf\ndescription: Reads PDFs.\n---\n{body}\n");
        let files = vec![SkillFile::new("references/forms.md", "# Forms\n", false)];
        Catalog::builder()
            .skill(Skill::new(None, skill_md).with_files(files))
            .legacy_index(true)
            .base_path("/tenant")
            .build()
            .unwrap()
    }

    fn header(value: &HeaderValue) -> &str {
        value.to_str().unwrap()
    }

    #[test]
    fn both_paths_of_an_artifact_share_one_entry_and_name_each_other() {
        let catalog = catalog("v1");
        let table = Table::new(&Policy::default(), &catalog, &Retained::default(), None);
        let tar_gz = catalog
            .get("pdf")
            .unwrap()
            .archive(Default::default())
            .unwrap();
        let addressed = tar_gz.addressed_path().unwrap();
        let canonical = table.get(tar_gz.path()).unwrap();
        let by_digest = table.get(addressed).unwrap();
        assert!(Arc::ptr_eq(canonical.resource, by_digest.resource));
        assert_eq!(
            canonical.address.map(header),
            Address::Canonical(format!("/tenant{addressed}").as_str())
        );
        assert_eq!(
            by_digest.address.map(header),
            Address::Addressed("</tenant/.well-known/agent-skills/pdf.tar.gz>; rel=\"canonical\"")
        );
        assert_eq!(
            table.paths.len(),
            catalog.artifacts().count(),
            "no key per address"
        );
    }

    #[test]
    fn an_address_is_served_only_with_the_digest_it_names() {
        let catalog = catalog("v1");
        let table = Table::new(&Policy::default(), &catalog, &Retained::default(), None);
        let pdf = catalog.get("pdf").unwrap();
        let other = skillpub_core::Digest::of(b"other bytes");
        let wrong = skillpub_core::paths::addressed_path(pdf.skill_md().path(), other).unwrap();
        assert!(table.get(&wrong).is_none());
        // A supporting file, the index and the legacy copies have no address.
        let forms = &pdf.files()[0].artifact();
        let forms = skillpub_core::paths::addressed_path(forms.path(), forms.digest()).unwrap();
        assert!(table.get(&forms).is_none());
        let index = catalog.index();
        let index = skillpub_core::paths::addressed_path(index.path(), index.digest()).unwrap();
        assert!(table.get(&index).is_none());
        let legacy = table.get("/.well-known/skills/pdf/SKILL.md").unwrap();
        assert_eq!(legacy.address, Address::Plain);
        let canonical = table.get(pdf.skill_md_path()).unwrap();
        assert!(
            Arc::ptr_eq(legacy.resource, canonical.resource),
            "the same bytes share"
        );
    }

    #[test]
    fn retained_artifacts_answer_their_address_until_their_grace_period_ends() {
        let live = LiveCatalog::with_retention(
            catalog("v1"),
            Retention::new(Duration::from_millis(300), 4),
        );
        let old = live.catalog();
        let previous = Table::new(&Policy::default(), &old, &live.retained(), None);
        live.replace(catalog("v2"));
        let table = Table::new(
            &Policy::default(),
            &live.catalog(),
            &live.retained(),
            Some(&previous),
        );
        let old_skill_md = old.get("pdf").unwrap().skill_md();
        let hit = table.get(old_skill_md.addressed_path().unwrap()).unwrap();
        assert_eq!(&hit.resource.identity.body, old_skill_md.bytes());
        let old_resource = previous.get(old_skill_md.path()).unwrap().resource;
        assert!(
            Arc::ptr_eq(hit.resource, old_resource),
            "its answers are taken again"
        );
        assert_eq!(
            hit.address.map(header),
            Address::Addressed(
                "</tenant/.well-known/agent-skills/pdf/SKILL.md>; rel=\"canonical\""
            )
        );
        let forms = &old.get("pdf").unwrap().files()[0];
        let now_forms = table.get(forms.artifact().path()).unwrap();
        let old_forms = previous.get(forms.artifact().path()).unwrap();
        assert!(
            Arc::ptr_eq(now_forms.resource, old_forms.resource),
            "a file kept keeps its answers"
        );
        std::thread::sleep(Duration::from_millis(350));
        assert!(table.get(old_skill_md.addressed_path().unwrap()).is_none());
    }

    #[test]
    fn a_skill_whose_name_starts_like_an_address_is_served_at_both_paths() {
        let skill =
            Skill::from_static("---\nname: sha256-tools\ndescription: Hashes files.\n---\n");
        let catalog = Catalog::new([skill]).unwrap();
        let table = Table::new(&Policy::default(), &catalog, &Retained::default(), None);
        let skill_md = catalog.get("sha256-tools").unwrap().skill_md();
        let canonical = table
            .get("/.well-known/agent-skills/sha256-tools/SKILL.md")
            .unwrap();
        assert!(matches!(canonical.address, Address::Canonical(_)));
        let addressed = table.get(skill_md.addressed_path().unwrap()).unwrap();
        assert!(Arc::ptr_eq(canonical.resource, addressed.resource));
    }

    #[test]
    fn a_canonical_path_too_long_for_an_address_is_not_found() {
        let long = format!(
            "{WELL_KNOWN_PATH}sha256-{}/{}/SKILL.md",
            skillpub_core::Digest::of(b"").hex(),
            "a".repeat(200)
        );
        let table = Table::new(
            &Policy::default(),
            &catalog("v1"),
            &Retained::default(),
            None,
        );
        assert!(table.get(&long).is_none());
    }
}
