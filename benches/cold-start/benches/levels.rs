//! What the archives' deflate level costs and saves: the compressed parts of both archives of
//! every skill (the tar stream of the `.tar.gz`, each file of the `.zip`) deflated again at
//! several levels of miniz_oxide, for the example skills, for the 1,000-skill corpus (generated
//! text) and for one skill made of this repository's own Markdown and Rust sources (real text).
//! It prints the sizes (and which level the catalog's own archives match), then times each
//! level on the corpus and on the sources, on one thread.
//!
//! ```sh
//! cargo bench -p skillpub-cold-start --bench levels
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use miniz_oxide::deflate::compress_to_vec;
use miniz_oxide::inflate::decompress_to_vec;
use skillpub::model::index::ArchiveFormat;
use skillpub::{Catalog, Skill, SkillFile};
use skillpub_cold_start::corpus_dir;

/// The levels compared: fastest, the usual defaults, best.
const LEVELS: [u8; 6] = [1, 3, 5, 6, 8, 9];

/// The gzip header and trailer around the deflate stream of a `.tar.gz`.
const GZIP_FRAMING: usize = 18;

/// A zip's bytes besides the deflated files: a local and a central header per entry, each
/// with the name, and the end record.
fn zip_framing(names: &[&str]) -> usize {
    names
        .iter()
        .map(|name| 30 + 46 + 2 * name.len())
        .sum::<usize>()
        + 22
}

/// What both archives of every skill compress.
struct Inputs {
    /// The tar stream of each `.tar.gz`.
    tars: Vec<Vec<u8>>,
    /// Each file of each `.zip`.
    files: Vec<Vec<u8>>,
    /// Bytes of the zips that are not deflated files.
    zip_framing: usize,
    /// The catalog's own archives, both formats.
    built: usize,
}

impl Inputs {
    fn of(catalog: &Catalog) -> Self {
        let mut inputs = Self {
            tars: Vec::new(),
            files: Vec::new(),
            zip_framing: 0,
            built: 0,
        };
        for skill in catalog.skills() {
            let (Some(tar_gz), Some(zip)) = (
                skill.archive(ArchiveFormat::TarGz),
                skill.archive(ArchiveFormat::Zip),
            ) else {
                continue;
            };
            let stream = &tar_gz.bytes()[10..tar_gz.len() - 8];
            inputs.tars.push(decompress_to_vec(stream).unwrap());
            let names: Vec<&str> = skill.all_files().map(|f| f.relative_path()).collect();
            inputs.zip_framing += zip_framing(&names);
            inputs
                .files
                .extend(skill.all_files().map(|f| f.artifact().bytes().to_vec()));
            inputs.built += tar_gz.len() + zip.len();
        }
        inputs
    }

    /// Both archives of every skill at `level`, in bytes: (all `.tar.gz`, all `.zip`).
    fn sizes(&self, level: u8) -> (usize, usize) {
        let tar_gz = self
            .tars
            .iter()
            .map(|tar| compress_to_vec(tar, level).len() + GZIP_FRAMING)
            .sum();
        let zip = self
            .files
            .iter()
            .map(|file| compress_to_vec(file, level).len())
            .sum::<usize>()
            + self.zip_framing;
        (tar_gz, zip)
    }

    fn compress(&self, level: u8) {
        for input in self.tars.iter().chain(&self.files) {
            black_box(compress_to_vec(input, level));
        }
    }

    fn input_bytes(&self) -> usize {
        self.tars.iter().chain(&self.files).map(Vec::len).sum()
    }
}

/// Prints one table: the size of the archives at each level, against level 9.
fn print_sizes(title: &str, inputs: &Inputs) {
    eprintln!("\n{title}: both archives of every skill, by deflate level");
    eprintln!("| level | .tar.gz | .zip | both | against level 9 |");
    eprintln!("|---|---|---|---|---|");
    let (best_tar_gz, best_zip) = inputs.sizes(9);
    let best = best_tar_gz + best_zip;
    for level in LEVELS {
        let (tar_gz, zip) = inputs.sizes(level);
        let both = tar_gz + zip;
        let change = (both as f64 / best as f64 - 1.0) * 100.0;
        let built = if both == inputs.built {
            " (the catalog's)"
        } else {
            ""
        };
        eprintln!("| {level}{built} | {tar_gz} | {zip} | {both} | {change:+.1} % |");
    }
}

/// One skill whose files are the repository's Markdown and Rust sources, sorted.
fn sources() -> Catalog {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut files = skillpub_testkit::rust_and_markdown_files(&root.join("crates"));
    files.extend(["README.md", "SECURITY.md"].map(|top| root.join(top)));
    files.sort();
    let files = files
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(root).unwrap().to_str().unwrap();
            SkillFile::new(relative, std::fs::read(path).unwrap(), false)
        })
        .collect();
    let skill_md = "---\nname: sources\ndescription: The sources of skillpub.\n---\n";
    Catalog::new([Skill::new(None, skill_md).with_files(files)]).unwrap()
}

fn levels(c: &mut Criterion) {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");
    print_sizes(
        "examples/skills",
        &Inputs::of(&Catalog::from_dir(examples).unwrap()),
    );
    let corpus = Inputs::of(&Catalog::from_dir(corpus_dir(true, 1_000)).unwrap());
    print_sizes("the 1,000-skill corpus", &corpus);
    let sources = Inputs::of(&sources());
    print_sizes("the repository's sources", &sources);

    let mut group = c.benchmark_group("levels");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    for (name, inputs) in [("corpus_1000", &corpus), ("sources", &sources)] {
        group.throughput(Throughput::Bytes(inputs.input_bytes() as u64));
        for level in LEVELS {
            group.bench_with_input(BenchmarkId::new(name, level), &level, |b, &level| {
                b.iter(|| inputs.compress(level))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, levels);
criterion_main!(benches);
