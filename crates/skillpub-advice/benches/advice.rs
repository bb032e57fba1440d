//! What the authoring advice costs on the bodies that made it quadratic before issue 18 (one
//! line of `` `references/a.md` `` repeated, one code span of paths, one fenced line of
//! `x/a.md`), at 8,000, 32,000 and 128,000 repetitions and at 16 MiB, the most a skill may
//! publish; and on a 16 MiB body of ordinary Markdown. Linear: each row grows with the text.
//!
//! ```sh
//! cargo bench -p skillpub-advice --bench advice
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skillpub_advice::advise;
use skillpub_core::{SkillMd, spec::MAX_BYTES_PER_SKILL};

/// The frontmatter of every body.
const HEAD: &str = "---\nname: shape\ndescription: Reads the shape files. Use when a test needs a large SKILL.md.\n---\n# Shape\n\n";

/// A body of `n` repetitions of one shape.
type Shape = fn(usize) -> String;

/// The three shapes of issue 18.
const SHAPES: [(&str, Shape); 3] = [
    ("span_lines", |n| "`references/a.md` ".repeat(n) + "\n"),
    ("one_span", |n| {
        format!("`{}`\n", "references/a.md ".repeat(n))
    }),
    ("fenced", |n| format!("```\n{}\n```\n", "x/a.md ".repeat(n))),
];

/// A few kilobytes of an ordinary skill: headings, prose, links, code spans and fenced code.
const ORDINARY: &str = "## How to invoke\n\nCall `GET /v1/orders/{id}` with the token; see [the reference](references/api.md) and `references/errors.md`.\n\n```sh\ncurl -s https://api.acme.io/v1/orders/42 -H \"Authorization: Bearer $TOKEN\"\npython scripts/report.py --since 2024-01-01\n```\n\n- **Output**: JSON with `id`, `status` and `items`.\n- Retries: wait 2 s after a 429, at most three times.\n\n";

fn skill_md(body: &str) -> SkillMd {
    SkillMd::parse(format!("{HEAD}{body}"), None).unwrap()
}

/// The repetitions that make `shape` fill `bytes`.
fn repetitions(shape: Shape, bytes: usize) -> usize {
    let one = shape(1).len() - shape(0).len();
    (bytes - HEAD.len() - shape(0).len()) / one
}

fn shapes(c: &mut Criterion) {
    let files = ["references/b.md"];
    let mut group = c.benchmark_group("advise");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500));
    for (name, shape) in SHAPES {
        for n in [8_000, 32_000, 128_000] {
            let skill_md = skill_md(&shape(n));
            group.throughput(Throughput::Bytes(skill_md.bytes().len() as u64));
            group.bench_with_input(BenchmarkId::new(name, n), &skill_md, |b, skill_md| {
                b.iter(|| black_box(advise(skill_md, files)));
            });
        }
    }
    group.finish();
}

fn sixteen_mib(c: &mut Criterion) {
    let files = ["references/api.md", "scripts/report.py"];
    let most = MAX_BYTES_PER_SKILL as usize;
    let mut group = c.benchmark_group("advise_16_mib");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Bytes(most as u64));
    for (name, shape) in SHAPES {
        let skill_md = skill_md(&shape(repetitions(shape, most)));
        group.bench_function(name, |b| b.iter(|| black_box(advise(&skill_md, files))));
    }
    let ordinary = skill_md(&ORDINARY.repeat((most - HEAD.len()) / ORDINARY.len()));
    group.bench_function("ordinary", |b| {
        b.iter(|| black_box(advise(&ordinary, files)))
    });
    group.finish();
}

criterion_group!(benches, shapes, sixteen_mib);
criterion_main!(benches);
