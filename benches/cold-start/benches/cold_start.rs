//! Start-up at scale: building the catalog of 10, 100 and 1,000 generated skills (see
//! `build.rs`), a `SKILL.md` alone or with three supporting files, embedded by
//! `skillpub-build` and read from a folder, next to the floor: hashing every byte the catalog
//! serves once, on one thread.
//!
//! ```sh
//! cargo bench -p skillpub-cold-start
//! cargo bench -p skillpub-cold-start -- 'embedded/.*/1000'   # one size
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use skillpub::model::{Digest, SkillMd, read_skills_folder};
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

/// The embedded skills: `Catalog::new` on the statics that `skillpub-build` generated.
fn embedded(c: &mut Criterion) {
    let mut group = c.benchmark_group("embedded");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(20);
    group.warm_up_time(Duration::from_secs(1));
    for (kind, all) in [
        ("skill_md", &SKILL_MD_SKILLS[..]),
        ("archive", &ARCHIVE_SKILLS[..]),
    ] {
        for count in COUNTS {
            let skills: &[Skill] = &all[..count];
            let served = served(&Catalog::new(skills).unwrap());
            let bytes: usize = served.iter().map(|b| b.len()).sum();
            group.throughput(Throughput::Bytes(bytes as u64));
            group.bench_with_input(BenchmarkId::new(kind, count), skills, |b, skills| {
                b.iter(|| black_box(Catalog::new(skills).unwrap()))
            });
            let floor = format!("{kind}_hash_floor");
            group.bench_with_input(BenchmarkId::new(floor, count), &served, |b, served| {
                b.iter(|| hash_all(served))
            });
        }
    }
    group.finish();
}

/// The same skills read from a folder on disk (in the page cache after the first read).
fn folder(c: &mut Criterion) {
    let mut group = c.benchmark_group("folder");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    for (kind, with_files) in [("skill_md", false), ("archive", true)] {
        for count in COUNTS {
            let dir = corpus_dir(with_files, count);
            group.bench_with_input(BenchmarkId::new(kind, count), &dir, |b, dir| {
                b.iter(|| black_box(Catalog::from_dir(dir).unwrap()))
            });
        }
    }
    group.finish();
}

/// Where the time of a `SKILL.md`-only catalog goes: every frontmatter parsed and checked
/// alone, and every rule of the catalog without digests, archives or index.
fn parts(c: &mut Criterion) {
    let mut group = c.benchmark_group("parts");
    group.sample_size(20);
    let skills = &SKILL_MD_SKILLS[..];
    group.bench_function("parse_skill_md/1000", |b| {
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
    let dir = corpus_dir(true, 1_000);
    group.bench_function("read_folder_archive/1000", |b| {
        b.iter(|| black_box(read_skills_folder(&dir).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, embedded, folder, parts);
criterion_main!(benches);
