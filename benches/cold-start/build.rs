//! Generates the benchmark corpora in `OUT_DIR/corpus/` and embeds the largest two with
//! `skillpub-build`, as an application would embed its own skills.
//!
//! Every skill is made from a fixed seed, so every build and every machine gets the same bytes:
//! a `SKILL.md` of about 4 KB (a frontmatter with `name`, a `description` of two sentences,
//! `license` and `metadata`, then Markdown), and in the archive corpora three supporting files
//! (`references/guide.md` about 9 KB, `references/api.md` about 7 KB and `scripts/run.py`
//! about 5 KB): about 25 KB a skill, 25 MB for 1,000. Sizes vary from skill to skill, and the
//! text is drawn from a vocabulary of a few hundred words, so it compresses about as well as
//! English prose.

use std::path::Path;

#[expect(
    unreachable_pub,
    reason = "public in the library, which shares this module"
)]
#[path = "src/corpus.rs"]
mod corpus;

use corpus::{COUNTS, folder_name};

fn main() {
    let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let corpus = Path::new(&out_dir).join("corpus");
    for count in COUNTS {
        for with_files in [false, true] {
            let folder = corpus.join(folder_name(with_files, count));
            for at in 0..count {
                write_skill(&folder, at, with_files);
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/corpus.rs");
    let largest = COUNTS[COUNTS.len() - 1];
    skillpub_build::Embed::new(corpus.join(folder_name(false, largest)))
        .static_name("SKILL_MD_SKILLS")
        .run();
    skillpub_build::Embed::new(corpus.join(folder_name(true, largest)))
        .static_name("ARCHIVE_SKILLS")
        .run();
}

/// Writes skill number `at`; the same number gives the same files in every corpus.
fn write_skill(folder: &Path, at: usize, with_files: bool) {
    let name = format!("skill-{at:04}");
    let dir = folder.join(&name);
    let mut text = Text::new(at as u64);
    let description = format!(
        "{} Use it when {}",
        text.sentences(2),
        text.sentences(1).to_lowercase()
    );
    let skill_md = format!(
        "---\nname: {name}\ndescription: {description:?}\nlicense: MIT\nmetadata:\n  author: bench\n  version: \"1.{}\"\n---\n{}",
        at % 10,
        text.markdown(4_000),
    );
    write(&dir.join("SKILL.md"), &skill_md);
    if with_files {
        write(&dir.join("references/guide.md"), &text.markdown(9_000));
        write(&dir.join("references/api.md"), &text.markdown(7_000));
        write(&dir.join("scripts/run.py"), &text.python(5_000));
    }
}

/// Writes a file unless it already holds these bytes, so that a rebuild leaves the corpus (and
/// the build script's own change detection) alone.
fn write(path: &Path, text: &str) {
    if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return;
    }
    std::fs::create_dir_all(path.parent().expect("a file in a folder"))
        .expect("the corpus folder can be created");
    std::fs::write(path, text).expect("the corpus can be written");
}

/// Deterministic text: SplitMix64 over a fixed vocabulary.
struct Text {
    state: u64,
    words: Vec<&'static str>,
}

/// The vocabulary, separated by spaces.
const WORDS: &str = "\
    the a an and or of to in on for with from by at as is are be it this that each every \
    when then if not skill skills agent file files folder index digest archive client server \
    request response header body bytes hash cache build release deploy version name \
    description field value key table list page form report invoice customer order account \
    payment document section paragraph sentence word letter number date time user team \
    project task step check test error warning message log trace metric query database \
    record column row schema migration backup restore upload download fetch parse render \
    format convert extract merge split sort filter search replace validate verify sign \
    encrypt compress publish subscribe notify schedule retry timeout limit budget score \
    grade review approve reject draft final quickly carefully always never only also first \
    last next before after until while because so but however instead otherwise small large \
    new old same other exact whole clear short long plain strict safe local remote public \
    private shared single multiple open close read write send receive keep drop use make \
    give take find show tell ask answer spreadsheet presentation diagram chart image \
    screenshot template contract policy ticket incident runbook pipeline container cluster";

impl Text {
    fn new(seed: u64) -> Self {
        Self {
            state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5eed,
            words: WORDS.split_whitespace().collect(),
        }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `low..high`.
    fn between(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low) as u64) as usize
    }

    fn word(&mut self) -> &'static str {
        let at = self.between(0, self.words.len());
        self.words[at]
    }

    fn sentence(&mut self) -> String {
        let count = self.between(6, 18);
        let mut words: Vec<String> = (0..count).map(|_| self.word().to_owned()).collect();
        words[0][..1].make_ascii_uppercase();
        format!("{}.", words.join(" "))
    }

    fn sentences(&mut self, count: usize) -> String {
        (0..count)
            .map(|_| self.sentence())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Markdown of about `size` bytes (half to one and a half times it): headings, paragraphs,
    /// lists and a code block.
    fn markdown(&mut self, size: usize) -> String {
        let target = self.between(size / 2, size * 3 / 2);
        let mut out = format!("# {}\n", self.sentence().trim_end_matches('.'));
        while out.len() < target {
            match self.between(0, 6) {
                0 => out.push_str(&format!("\n## {}\n", self.sentence().trim_end_matches('.'))),
                1 => {
                    out.push('\n');
                    for _ in 0..self.between(2, 6) {
                        out.push_str(&format!("- {}\n", self.sentence()));
                    }
                }
                2 => out.push_str(&format!(
                    "\n```sh\nskillpub {} --{} {}\n```\n",
                    self.word(),
                    self.word(),
                    self.word()
                )),
                _ => {
                    let count = self.between(2, 6);
                    out.push_str(&format!("\n{}\n", self.sentences(count)));
                }
            }
        }
        out
    }

    /// A Python script of about `size` bytes (half to one and a half times it).
    fn python(&mut self, size: usize) -> String {
        let target = self.between(size / 2, size * 3 / 2);
        let mut out = String::from("#!/usr/bin/env python3\n\"\"\"A generated helper.\"\"\"\n");
        let mut at = 0;
        while out.len() < target {
            let (a, b) = (self.word(), self.word());
            out.push_str(&format!(
                "\n\ndef {a}_{b}_{at}(value):\n    # {}\n    if value is None:\n        return \"{}\"\n    return value.{b}()\n",
                self.sentence(),
                self.word(),
            ));
            at += 1;
        }
        out
    }
}
