//! Start-up at scale: building the catalog of 10, 100 and 1,000 generated skills (see
//! `build.rs`), a `SKILL.md` alone or with three supporting files, embedded by
//! `skillpub-build` and read from a folder, next to the floor: hashing every byte the catalog
//! serves once, on one thread; the embedded ones also with their router, as an app's `main`
//! builds both. A catalog is built and not dropped within the time measured, as at start-up.
//!
//! ```sh
//! cargo bench -p skillpub-cold-start --bench cold_start
//! cargo bench -p skillpub-cold-start --bench cold_start -- '/1000'   # one size
//! ```

use std::hint::black_box;
use std::num::NonZeroUsize;
use std::path::Path;
use std::time::Duration;

use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main, measurement::WallTime,
};
use skillpub::model::{Digest, SkillMd, folder::read_skills_folder};
use skillpub::{Catalog, Skill};
use skillpub_cold_start::corpus::COUNTS;
use skillpub_cold_start::{ARCHIVE_SKILLS, SKILL_MD_SKILLS, corpus_dir};

/// Every byte a catalog serves, one artifact at a time: what the floor hashes.
fn served(catalog: &Catalog) -> Vec<Vec<u8>> {
    catalog.artifacts().map(|a| a.bytes().to_vec()).collect()
}

fn hash_all(served: &[Vec<u8>]) {
    for bytes in served {
        black_box(Digest::of(bytes));
    }
}

fn group<'a>(c: &'a mut Criterion, name: &str, samples: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(samples);
    group.warm_up_time(Duration::from_secs(1));
    group
}

/// A catalog of these skills, on at most `threads` threads.
fn build(skills: &[Skill], threads: NonZeroUsize) -> Catalog {
    let mut builder = Catalog::builder();
    builder.skills(skills).threads(threads);
    builder.build().unwrap()
}

/// A catalog of a folder, on at most `threads` threads.
fn build_folder(dir: &Path, threads: NonZeroUsize) -> Catalog {
    let folder = read_skills_folder(dir).unwrap();
    folder.builder().threads(threads).build().unwrap()
}

/// The embedded skills: `Catalog::new` on the statics that `skillpub-build` generated, and
/// the floor of the same bytes.
fn embedded(c: &mut Criterion) {
    let mut group = group(c, "embedded", 20);
    for (kind, all) in [
        ("skill_md", &SKILL_MD_SKILLS[..]),
        ("archive", &ARCHIVE_SKILLS[..]),
    ] {
        for count in COUNTS {
            let skills: &[Skill] = &all[..count];
            let served = served(&Catalog::new(skills).unwrap());
            let bytes: usize = served.iter().map(Vec::len).sum();
            group.throughput(Throughput::Bytes(bytes as u64));
            group.bench_with_input(BenchmarkId::new(kind, count), skills, |b, skills| {
                b.iter_with_large_drop(|| Catalog::new(skills).unwrap())
            });
            // What an app's `main` builds before it can answer: the catalog and its router.
            let routed = format!("{kind}_with_router");
            group.bench_with_input(BenchmarkId::new(routed, count), skills, |b, skills| {
                b.iter_with_large_drop(|| {
                    skillpub::web::router::<()>(Catalog::new(skills).unwrap())
                })
            });
            let floor = format!("{kind}_hash_floor");
            group.bench_with_input(BenchmarkId::new(floor, count), &served, |b, served| {
                b.iter(|| hash_all(served))
            });
        }
    }
    group.finish();
}

/// The same skills read from a folder on disk (in the page cache after the first read), on
/// every core and on one.
fn folder(c: &mut Criterion) {
    let mut group = group(c, "folder", 10);
    for (kind, with_files) in [("skill_md", false), ("archive", true)] {
        for count in COUNTS {
            let dir = corpus_dir(with_files, count);
            group.bench_with_input(BenchmarkId::new(kind, count), &dir, |b, dir| {
                b.iter_with_large_drop(|| Catalog::from_dir(dir).unwrap())
            });
            let one_thread = format!("{kind}_one_thread");
            group.bench_with_input(BenchmarkId::new(one_thread, count), &dir, |b, dir| {
                b.iter_with_large_drop(|| build_folder(dir, NonZeroUsize::MIN))
            });
        }
    }
    group.finish();
}

/// Where the time of 1,000 skills goes: the YAML of every frontmatter parsed (what the
/// catalog does without `skillpub-build`), every rule checked on the frontmatters that
/// `skillpub-build` parsed, the embedded catalogs on one thread, and reading the folder.
fn parts(c: &mut Criterion) {
    let mut group = group(c, "parts", 20);
    let skills = &SKILL_MD_SKILLS[..];
    group.bench_function("parse_yaml/1000", |b| {
        b.iter(|| {
            for skill in skills {
                black_box(SkillMd::parse(skill.skill_md().clone(), skill.folder()).unwrap());
            }
        })
    });
    group.bench_function("check/1000", |b| {
        b.iter(|| {
            let mut builder = Catalog::builder();
            builder.skills(skills);
            builder.check().unwrap();
        })
    });
    for (kind, all) in [("skill_md", skills), ("archive", &ARCHIVE_SKILLS[..])] {
        let name = format!("embedded_{kind}_one_thread/1000");
        group.bench_function(name, |b| {
            b.iter_with_large_drop(|| build(all, NonZeroUsize::MIN))
        });
    }
    let dir = corpus_dir(true, 1_000);
    group.bench_function("read_folder_archive/1000", |b| {
        b.iter_with_large_drop(|| read_skills_folder(&dir).unwrap())
    });
    group.finish();
}

criterion_group!(benches, embedded, folder, parts);
criterion_main!(benches);
