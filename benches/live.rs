//! What a live catalog costs: a request through a live router next to the same request
//! through the static router, in the same run and on the same catalog, in process
//! (`live_vs_static/*`) and over HTTP on 127.0.0.1 (`http/*`); and a swap of a 1,000-skill
//! catalog next to building it (`swap_1000/*`).
//!
//! ```sh
//! cargo bench --bench live --features mcp
//! # briefly, as the figures in BENCHMARKS.md were measured:
//! cargo bench --bench live --features mcp -- --warm-up-time 1 --measurement-time 3
//! ```

use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};

use axum::Router;
use axum::body::Body;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use http::Request;
use skillpub::{Catalog, LiveCatalog, Skill, SkillFile};
use tower::ServiceExt;

static VERIFY_SKILL_DIGESTS: Skill = skillpub::skill!("examples/skills/verify-skill-digests");
static WRITE_SKILL_MD: Skill = skillpub::skill!("examples/skills/write-skill-md");

fn catalog() -> Catalog {
    Catalog::new([&VERIFY_SKILL_DIGESTS, &WRITE_SKILL_MD]).unwrap()
}

/// The same requests through both routers. `get_added_skill_md` asks for a skill the live
/// router's first catalog did not have, so it is answered by path rather than by an exact
/// route; the static router has it from the start.
const CASES: [(&str, &str); 4] = [
    ("get_index", skillpub::model::paths::INDEX_PATH),
    (
        "get_skill_md",
        "/.well-known/agent-skills/write-skill-md/SKILL.md",
    ),
    ("not_found", "/.well-known/agent-skills/nope/SKILL.md"),
    (
        "get_added_skill_md",
        "/.well-known/agent-skills/verify-skill-digests/SKILL.md",
    ),
];

fn requests(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let fixed: Router = skillpub::web::router(catalog());
    let handle = LiveCatalog::new(Catalog::new([&WRITE_SKILL_MD]).unwrap());
    let live: Router = skillpub::web::live_router(handle.clone());
    handle.replace(catalog());
    let mut group = c.benchmark_group("live_vs_static");
    for (name, path) in CASES {
        for (router, app) in [("static", &fixed), ("live", &live)] {
            group.bench_function(format!("{name}/{router}"), |b| {
                b.iter(|| {
                    let request = Request::get(path).body(Body::empty()).unwrap();
                    black_box(runtime.block_on(app.clone().oneshot(request)).unwrap())
                });
            });
        }
    }
    group.finish();
}

/// A keep-alive connection that sends GETs and reads each whole answer.
struct Connection {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    line: String,
    body: Vec<u8>,
}

impl Connection {
    fn open(addr: SocketAddr) -> Self {
        let writer = TcpStream::connect(addr).unwrap();
        writer.set_nodelay(true).unwrap();
        let reader = BufReader::new(writer.try_clone().unwrap());
        Self {
            writer,
            reader,
            line: String::new(),
            body: Vec::new(),
        }
    }

    /// GETs `path`; returns the status and the length of the body read.
    fn get(&mut self, path: &str) -> (u16, usize) {
        write!(self.writer, "GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n").unwrap();
        let mut status = 0;
        let mut length = 0;
        loop {
            self.line.clear();
            self.reader.read_line(&mut self.line).unwrap();
            let line = self.line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(rest) = line.strip_prefix("HTTP/1.1 ") {
                status = rest[..3].parse().unwrap();
            } else if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        self.body.resize(length, 0);
        self.reader.read_exact(&mut self.body).unwrap();
        (status, length)
    }
}

/// The same requests over HTTP/1.1 keep-alive connections on 127.0.0.1, to both routers
/// served by `skillpub::web::serve` in one runtime: what the live router costs next to a whole
/// request.
fn http(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let handle = LiveCatalog::new(Catalog::new([&WRITE_SKILL_MD]).unwrap());
    let routers: [(&str, Router); 2] = [
        ("static", skillpub::web::router(catalog())),
        ("live", skillpub::web::live_router(handle.clone())),
    ];
    handle.replace(catalog());
    let addrs: Vec<(&str, SocketAddr)> = routers
        .into_iter()
        .map(|(name, app)| {
            let listener = runtime
                .block_on(skillpub::web::serve::bind("127.0.0.1:0"))
                .unwrap();
            let addr = listener.local_addr().unwrap();
            runtime.spawn(async move { skillpub::web::serve(listener, app).await });
            (name, addr)
        })
        .collect();
    let mut group = c.benchmark_group("http");
    for (name, path) in CASES {
        for &(router, addr) in &addrs {
            let mut connection = Connection::open(addr);
            let expected = if name == "not_found" { 404 } else { 200 };
            assert_eq!(connection.get(path).0, expected, "{router} {path}");
            group.bench_function(format!("{name}/{router}"), |b| {
                b.iter(|| black_box(connection.get(path)));
            });
        }
    }
    group.finish();
}

/// A catalog of `count` skills, one in ten with a supporting file (and so an archive), whose
/// bytes all name `version`.
fn many(count: usize, version: u32) -> Vec<Skill> {
    (0..count)
        .map(|i| {
            let name = format!("skill-{i:04}");
            let skill_md = format!(
                "---\nname: {name}\ndescription: Does task {i} of the service, version {version}.\n---\n{}",
                "Follow these steps, check the result, and report what changed.\n".repeat(16)
            );
            let skill = Skill::new(Some(name), skill_md);
            if i % 10 == 0 {
                let notes = format!("# Notes for task {i}, version {version}\n").repeat(32);
                skill.with_files(vec![SkillFile::new("references/notes.md", notes, false)])
            } else {
                skill
            }
        })
        .collect()
}

fn swaps(c: &mut Criterion) {
    let skills = [many(1_000, 0), many(1_000, 1)];
    let catalogs = [
        Catalog::new(skills[0].clone()).unwrap(),
        Catalog::new(skills[1].clone()).unwrap(),
    ];
    let mut group = c.benchmark_group("swap_1000");
    group.sample_size(20);
    group.bench_function("build_catalog", |b| {
        b.iter_batched(
            || skills[0].clone(),
            |skills| black_box(Catalog::new(skills).unwrap()),
            BatchSize::LargeInput,
        );
    });
    group.bench_function("build_router", |b| {
        b.iter(|| black_box(skillpub::web::router::<()>(catalogs[0].clone())));
    });
    // Every artifact changes at every swap (the two catalogs alternate), so nothing is reused.
    let handle = LiveCatalog::new(catalogs[0].clone());
    let _router: Router = skillpub::web::live_router(handle.clone());
    let mut next = 1;
    group.bench_function("replace_router", |b| {
        b.iter(|| {
            black_box(handle.replace(catalogs[next].clone()));
            next = 1 - next;
        });
    });
    #[cfg(feature = "mcp")]
    for (surfaces, on) in [("mcp", false), ("mcp_prompts_tools", true)] {
        // What a restart builds for MCP, next to what a swap prepares for it.
        let mcp = |catalog: Catalog| {
            skillpub::mcp::McpSkills::builder(catalog)
                .prompts(on)
                .tools(on)
                .build()
                .unwrap()
        };
        group.bench_function(format!("build_{surfaces}"), |b| {
            b.iter(|| black_box(mcp(catalogs[0].clone())));
        });
        let handle = LiveCatalog::new(catalogs[0].clone());
        let _router: Router = skillpub::web::live_router(handle.clone());
        let _mcp = skillpub::mcp::McpSkills::live(handle.clone())
            .prompts(on)
            .tools(on)
            .build()
            .unwrap();
        let mut next = 1;
        group.bench_function(format!("replace_router_and_{surfaces}"), |b| {
            b.iter(|| {
                black_box(handle.replace(catalogs[next].clone()));
                next = 1 - next;
            });
        });
    }
    group.finish();
}

criterion_group!(benches, requests, http, swaps);
criterion_main!(benches);
