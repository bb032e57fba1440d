//! What a [`LiveCatalog`](crate::LiveCatalog) keeps of the catalogs it replaced: the
//! artifacts they published at addressed paths that the current catalog does not, each for a
//! grace period, within a count of replaced catalogs ([`Retention`]); what a snapshot holds
//! of them ([`Retained`]).

use std::time::{Duration, Instant};

use crate::catalog::{Artifact, Catalog};

/// How long, and for how many replacements, a [`LiveCatalog`](crate::LiveCatalog) keeps
/// serving the addressed artifacts of the catalogs it replaced.
///
/// An index names [addressed](crate::catalog::Artifact::addressed_path) URLs, so a client (or
/// a cache) that fetched the index just before a replacement asks for artifacts the new
/// catalog may no longer have. For the grace period after a catalog is replaced, every
/// `SKILL.md` and archive it published at an addressed path and the new catalog does not is
/// still answered there, with its own bytes; then it is freed. Only those cost memory: an
/// artifact the new catalog also has is served from the new catalog, and the bytes of the
/// retained ones are the replaced catalog's own (`Bytes`, never copied).
///
/// Two bounds apply, and the first one reached ends an artifact's retention: the grace period
/// from the moment its catalog was replaced, and the count of replaced catalogs kept (those
/// that left artifacts to keep: a replacement that changes nothing keeps nothing). So the
/// count wins when catalogs are replaced faster than one per grace period divided by the
/// count (with the defaults, more than 16 replacements in an hour), and memory stays
/// bounded by the count whatever the rate: at most that many catalogs' `SKILL.md`s and
/// archives besides the current one.
///
/// The grace period should outlast how long any cache may keep an index: with this crate's
/// router the index is `no-cache`, so that is how long a client may hold an index before it
/// fetches the artifacts it lists, plus whatever an edge that overrides `Cache-Control` adds.
///
/// # Example
///
/// ```
/// use std::time::Duration;
///
/// use skillpub_core::live::Retention;
///
/// let default = Retention::default();
/// assert_eq!(default.grace_period(), Duration::from_secs(3600));
/// assert_eq!(default.generations(), 16);
/// let short = Retention::new(Duration::from_secs(60), 4);
/// assert_eq!((short.grace_period(), short.generations()), (Duration::from_secs(60), 4));
/// assert!(Retention::none().is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Retention {
    grace_period: Duration,
    generations: usize,
}

impl Retention {
    /// The default grace period: one hour.
    pub const DEFAULT_GRACE_PERIOD: Duration = Duration::from_secs(3600);

    /// The default count of replaced catalogs kept: 16.
    pub const DEFAULT_GENERATIONS: usize = 16;

    /// Keeps the addressed artifacts of at most `generations` replaced catalogs, each for
    /// `grace_period` after it was replaced.
    #[must_use]
    pub const fn new(grace_period: Duration, generations: usize) -> Self {
        Self {
            grace_period,
            generations,
        }
    }

    /// Keeps nothing: an addressed URL of a replaced catalog is a `404` at once.
    #[must_use]
    pub const fn none() -> Self {
        Self::new(Duration::ZERO, 0)
    }

    /// How long after its catalog is replaced an artifact is still served.
    #[must_use]
    pub const fn grace_period(self) -> Duration {
        self.grace_period
    }

    /// How many replaced catalogs are kept at most.
    #[must_use]
    pub const fn generations(self) -> usize {
        self.generations
    }

    /// Whether nothing is kept (no grace period, or no generation).
    #[must_use]
    pub const fn is_none(self) -> bool {
        self.generations == 0 || self.grace_period.is_zero()
    }
}

impl Default for Retention {
    /// One hour, 16 replaced catalogs.
    fn default() -> Self {
        Self::new(Self::DEFAULT_GRACE_PERIOD, Self::DEFAULT_GENERATIONS)
    }
}

/// The artifacts of replaced catalogs that a [`Snapshot`](super::Snapshot) still serves at
/// their addressed paths, each until the end of its grace period ([`Retention`]). Cheap to
/// share: every view of one replacement holds the same.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, LiveCatalog, Skill};
///
/// let first = Catalog::new([Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\nv1\n")])?;
/// let old = first.get("pdf").unwrap().skill_md().clone();
/// let live = LiveCatalog::new(first);
/// live.replace(Catalog::new([Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\nv2\n")])?);
///
/// let retained = live.retained();
/// let path = old.addressed_path().unwrap();
/// assert_eq!(retained.get(path, std::time::Instant::now()), Some(&old));
/// assert_eq!(retained.len(), 1, "the index and the new SKILL.md are the current catalog's");
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Retained {
    /// Newest first; none empty.
    generations: Vec<Generation>,
}

/// What one replaced catalog left.
#[derive(Debug, Clone)]
struct Generation {
    /// When its grace period ends.
    until: Instant,
    /// Sorted by addressed path; each has one.
    artifacts: Vec<Artifact>,
}

impl Generation {
    fn get(&self, path: &str) -> Option<&Artifact> {
        self.artifacts
            .binary_search_by(|artifact| artifact.addressed_path().unwrap_or_default().cmp(path))
            .ok()
            .map(|at| &self.artifacts[at])
    }
}

impl Retained {
    /// The artifact retained at the addressed path `path`, if its grace period has not ended
    /// at `now`.
    #[must_use]
    pub fn get(&self, path: &str, now: Instant) -> Option<&Artifact> {
        self.generations
            .iter()
            .filter(|generation| now < generation.until)
            .find_map(|generation| generation.get(path))
    }

    /// Every artifact retained, newest catalog first, with the end of its grace period. An
    /// addressed path appears once.
    pub fn artifacts(&self) -> impl Iterator<Item = (&Artifact, Instant)> {
        self.generations.iter().flat_map(|generation| {
            let until = generation.until;
            generation
                .artifacts
                .iter()
                .map(move |artifact| (artifact, until))
        })
    }

    /// How many artifacts are retained.
    #[must_use]
    pub fn len(&self) -> usize {
        self.generations.iter().map(|g| g.artifacts.len()).sum()
    }

    /// Whether nothing is retained.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.generations.is_empty()
    }

    /// When the next grace period ends, if anything is retained.
    pub(super) fn next_end(&self) -> Option<Instant> {
        self.generations.iter().map(|g| g.until).min()
    }

    /// What is retained once `replaced` has been replaced by `current` at `now`: what
    /// `replaced` published at addressed paths and `current` does not, for the grace period,
    /// then what was retained before and neither `current` nor the newer generation has, all
    /// within the count and without what has ended.
    pub(super) fn after(
        &self,
        replaced: &Catalog,
        current: &Catalog,
        retention: Retention,
        now: Instant,
    ) -> Self {
        if retention.is_none() {
            return Self::default();
        }
        let mut left: Vec<Artifact> = replaced
            .artifacts()
            .filter(|artifact| {
                artifact
                    .addressed_path()
                    .is_some_and(|path| current.addressed(path).is_none())
            })
            .cloned()
            .collect();
        left.sort_by(|a, b| a.addressed_path().cmp(&b.addressed_path()));
        let newest = Generation {
            until: now + retention.grace_period,
            artifacts: left,
        };
        let mut generations = vec![newest];
        for older in &self.generations {
            if older.until <= now {
                continue;
            }
            let artifacts: Vec<Artifact> = older
                .artifacts
                .iter()
                .filter(|artifact| {
                    let path = artifact.addressed_path().unwrap_or_default();
                    current.addressed(path).is_none()
                        && generations.iter().all(|newer| newer.get(path).is_none())
                })
                .cloned()
                .collect();
            generations.push(Generation {
                until: older.until,
                artifacts,
            });
        }
        generations.retain(|generation| !generation.artifacts.is_empty());
        generations.truncate(retention.generations);
        Self { generations }
    }

    /// The same without the generations whose grace period has ended at `now`; `None` when
    /// none has.
    pub(super) fn pruned(&self, now: Instant) -> Option<Self> {
        if self.generations.iter().all(|g| now < g.until) {
            return None;
        }
        let generations = self
            .generations
            .iter()
            .filter(|g| now < g.until)
            .cloned()
            .collect();
        Some(Self { generations })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Skill, SkillFile};

    /// A catalog with `pdf`, a `SKILL.md` whose body is `pdf`, and `forms`, with a supporting
    /// file whose text is `forms` (so an archive).
    fn catalog(pdf: &str, forms: &str) -> Catalog {
        let skill_md = |name: &str, body: &str| {
            format!("---\nname: {name}\ndescription: Does {name}.\n---\n{body}\n")
        };
        Catalog::new([
            Skill::new(None, skill_md("pdf", pdf)),
            Skill::new(None, skill_md("forms", "")).with_files(vec![SkillFile::new(
                "references/a.md",
                forms.to_owned(),
                false,
            )]),
        ])
        .unwrap()
    }

    fn paths(retained: &Retained) -> Vec<String> {
        retained
            .artifacts()
            .map(|(artifact, _)| artifact.path().to_owned())
            .collect()
    }

    const KEEP: Retention = Retention::new(Duration::from_secs(60), 3);

    #[test]
    fn only_the_addressed_artifacts_the_new_catalog_lacks_are_kept() {
        let (one, two) = (catalog("v1", "a"), catalog("v2", "a"));
        let now = Instant::now();
        let retained = Retained::default().after(&one, &two, KEEP, now);
        assert_eq!(paths(&retained), ["/.well-known/agent-skills/pdf/SKILL.md"]);
        let old = one.get("pdf").unwrap().skill_md();
        let (kept, until) = retained.artifacts().next().unwrap();
        assert_eq!(kept, old);
        assert!(
            kept.bytes().as_ptr() == old.bytes().as_ptr(),
            "the same bytes, not a copy"
        );
        assert_eq!(until, now + Duration::from_secs(60));
    }

    #[test]
    fn an_archive_changes_with_its_files_and_is_kept_in_both_formats() {
        let retained =
            Retained::default().after(&catalog("v", "a"), &catalog("v", "b"), KEEP, Instant::now());
        let mut paths = paths(&retained);
        paths.sort();
        assert_eq!(
            paths,
            [
                "/.well-known/agent-skills/forms.tar.gz",
                "/.well-known/agent-skills/forms.zip"
            ]
        );
    }

    #[test]
    fn an_artifact_that_comes_back_is_served_from_the_current_catalog_only() {
        let now = Instant::now();
        let (one, two) = (catalog("v1", "a"), catalog("v2", "a"));
        let retained = Retained::default().after(&one, &two, KEEP, now);
        let back = catalog("v1", "a");
        let retained = retained.after(&two, &back, KEEP, now);
        assert_eq!(
            paths(&retained),
            ["/.well-known/agent-skills/pdf/SKILL.md"],
            "v2 is kept, v1 is current again"
        );
        let v2 = two.get("pdf").unwrap().skill_md();
        assert_eq!(retained.artifacts().next().unwrap().0, v2);
    }

    #[test]
    fn the_count_bounds_the_catalogs_kept_and_the_newest_are_kept() {
        let now = Instant::now();
        let mut retained = Retained::default();
        let mut previous = catalog("v0", "a");
        for version in 1..=5 {
            let next = catalog(&format!("v{version}"), "a");
            retained = retained.after(&previous, &next, KEEP, now);
            previous = next;
        }
        assert_eq!(retained.len(), 3, "three generations of one SKILL.md");
        let digests: Vec<_> = retained.artifacts().map(|(a, _)| a.digest()).collect();
        let expected: Vec<_> = ["v4", "v3", "v2"]
            .map(|v| catalog(v, "a").get("pdf").unwrap().skill_md().digest())
            .into();
        assert_eq!(digests, expected);
    }

    #[test]
    fn a_replacement_that_changes_nothing_keeps_nothing_and_counts_for_nothing() {
        let now = Instant::now();
        let one = catalog("v1", "a");
        let two = catalog("v2", "a");
        let mut retained = Retained::default().after(&one, &two, KEEP, now);
        for _ in 0..10 {
            retained = retained.after(&two, &catalog("v2", "a"), KEEP, now);
        }
        assert_eq!(retained.len(), 1);
    }

    #[test]
    fn the_grace_period_ends_retention() {
        let start = Instant::now();
        let retained =
            Retained::default().after(&catalog("v1", "a"), &catalog("v2", "a"), KEEP, start);
        let path = catalog("v1", "a")
            .get("pdf")
            .unwrap()
            .skill_md()
            .addressed_path()
            .unwrap()
            .to_owned();
        let later = start + Duration::from_secs(59);
        assert!(retained.get(&path, later).is_some());
        assert!(retained.pruned(later).is_none(), "nothing ended yet");
        let ended = start + Duration::from_secs(60);
        assert!(retained.get(&path, ended).is_none());
        assert!(retained.pruned(ended).unwrap().is_empty());
        assert_eq!(retained.next_end(), Some(ended));
    }

    #[test]
    fn no_retention_keeps_nothing() {
        for retention in [
            Retention::none(),
            Retention::new(Duration::ZERO, 3),
            Retention::new(Duration::from_secs(1), 0),
        ] {
            let retained = Retained::default().after(
                &catalog("v1", "a"),
                &catalog("v2", "b"),
                retention,
                Instant::now(),
            );
            assert!(retained.is_empty(), "{retention:?}");
        }
    }
}
