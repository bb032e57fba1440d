//! The corpus of the security review, as a table: unsafe skills, each with the codes it must
//! get, and safe-but-suspicious ones (security lessons that quote attacks, placeholder keys,
//! verified downloads, cleanup of a `mktemp` folder, a token from the user's environment) with
//! the codes they must not get. The codes are the advice's `security.` warnings and the core's
//! `security.secret`, which the catalog refuses.
//!
//! With `SKILLPUB_SECURITY_CORPUS=<folder>`, the test also writes every case there as a skill
//! folder, and `cases.json` with what each must and must not get, for
//! `benches/security/compare.py`, which runs Cisco's scanner on the same folders. Credentials
//! are made at run time (checksums computed), so that this file holds nothing that looks like
//! a live key to another scanner.

use std::path::Path;

mod first;
mod second;
mod third;

use skillpub_advice::{FileText, advise};
use skillpub_core::{Catalog, Skill, SkillFile, SkillMd};

pub(crate) const SECRET: &str = "security.secret";
pub(crate) const HIDDEN: &str = "security.hidden-text";
pub(crate) const INJECTION: &str = "security.injection";
pub(crate) const EXFILTRATION: &str = "security.exfiltration";
pub(crate) const SCRIPT: &str = "security.script";
pub(crate) const OBFUSCATION: &str = "security.obfuscation";
pub(crate) const ALL: [&str; 6] = [SECRET, HIDDEN, INJECTION, EXFILTRATION, SCRIPT, OBFUSCATION];

/// One skill of the corpus.
pub(crate) struct Case {
    pub(crate) name: &'static str,
    /// The body of its `SKILL.md`.
    pub(crate) body: String,
    pub(crate) files: Vec<(&'static str, Vec<u8>)>,
    pub(crate) must: &'static [&'static str],
    pub(crate) must_not: &'static [&'static str],
}

pub(crate) fn case(
    name: &'static str,
    body: impl Into<String>,
    files: Vec<(&'static str, String)>,
    must: &'static [&'static str],
    must_not: &'static [&'static str],
) -> Case {
    Case {
        name,
        body: body.into(),
        files: files
            .into_iter()
            .map(|(path, text)| (path, text.into_bytes()))
            .collect(),
        must,
        must_not,
    }
}

impl Case {
    fn skill_md(&self) -> String {
        format!(
            "---\nname: {}\ndescription: Runs the Acme tool for a task. Use when a user asks to run Acme.\n---\n# Acme tool\n\n{}",
            self.name, self.body
        )
    }

    /// Every `security.` code the skill gets: the advice's, and the catalog's refusal.
    fn codes(&self) -> Vec<&'static str> {
        let text = self.skill_md();
        let skill_md = SkillMd::parse(text.clone(), Some(self.name)).expect("a valid SKILL.md");
        let files: Vec<FileText<'_>> = self
            .files
            .iter()
            .map(|(path, bytes)| FileText::new(path, bytes))
            .collect();
        let mut codes: Vec<&'static str> = advise(&skill_md, files)
            .iter()
            .map(|advice| advice.code())
            .filter(|code| code.starts_with("security."))
            .collect();
        let files = self
            .files
            .iter()
            .map(|(path, bytes)| SkillFile::new(*path, bytes.clone(), false));
        let skill =
            Skill::new(Some(format!("cases/{}", self.name)), text).with_files(files.collect());
        if let Err(errors) = Catalog::new([skill]) {
            codes.extend(
                errors
                    .as_slice()
                    .iter()
                    .map(|error| error.code())
                    .filter(|code| *code == SECRET),
            );
        }
        codes.sort_unstable();
        codes.dedup();
        codes
    }

    fn write(&self, root: &Path) {
        let folder = root.join(self.name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("SKILL.md"), self.skill_md()).unwrap();
        for (path, bytes) in &self.files {
            let file = folder.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, bytes).unwrap();
        }
    }
}

/// `length` characters of `alphabet`, the same for the same seed, random-looking.
pub(crate) fn random(seed: u64, length: usize, alphabet: &[u8]) -> String {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005) ^ 0x5eed_5eed;
    (0..length)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            char::from(alphabet[((state >> 33) % alphabet.len() as u64) as usize])
        })
        .collect()
}

pub(crate) const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
pub(crate) const BASE64: &[u8] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub(crate) const BASE32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// A GitHub token: 30 random base62 characters and their CRC-32 in six base62 digits.
pub(crate) fn github_token() -> String {
    let random = random(1, 30, BASE62);
    let mut crc = u64::from(crc32fast::hash(random.as_bytes()));
    let mut check = [b'0'; 6];
    for digit in check.iter_mut().rev() {
        *digit = BASE62[(crc % 62) as usize];
        crc /= 62;
    }
    format!("ghp_{random}{}", String::from_utf8_lossy(&check))
}

/// `text` in Unicode tag characters: invisible, and read by a model as the ASCII it spells.
pub(crate) fn tags(text: &str) -> String {
    text.chars()
        .map(|c| char::from_u32(0xE0000 + u32::from(c)).unwrap())
        .collect()
}

/// Standard base64.
pub(crate) fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
        for at in 0..4 {
            out.push(if at <= chunk.len() {
                char::from(BASE64[((n >> (18 - 6 * at)) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

pub(crate) fn file(path: &'static str, text: impl Into<String>) -> (&'static str, String) {
    (path, text.into())
}

/// Every case: the first corpus, written with the review; the second, written for its second
/// pass by someone who had not read the rules; the third, written after it by someone who had
/// read neither the rules nor the corpus.
fn cases() -> Vec<Case> {
    let mut cases = first::cases();
    cases.extend(second::cases());
    cases.extend(third::cases());
    cases
}

#[test]
fn every_case_gets_the_codes_it_must_and_none_it_must_not() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in &cases {
        let codes = case.codes();
        for code in case.must {
            if !codes.contains(code) {
                failures.push(format!("{}: {code} missing (got {codes:?})", case.name));
            }
        }
        for code in case.must_not {
            if codes.contains(code) {
                failures.push(format!("{}: {code} found (got {codes:?})", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if let Some(root) = std::env::var_os("SKILLPUB_SECURITY_CORPUS") {
        let root = Path::new(&root);
        let listed: Vec<serde_json::Value> = cases
            .iter()
            .map(|case| {
                case.write(root);
                serde_json::json!({"name": case.name, "safe": case.must.is_empty(), "must": case.must, "must_not": case.must_not})
            })
            .collect();
        std::fs::write(
            root.join("cases.json"),
            serde_json::to_string_pretty(&listed).unwrap(),
        )
        .unwrap();
    }
}

#[test]
fn the_corpus_has_unsafe_cases_of_every_family_and_safe_ones() {
    let cases = cases();
    for code in ALL {
        assert!(cases.iter().any(|case| case.must.contains(&code)), "{code}");
    }
    assert!(cases.iter().filter(|case| case.must.is_empty()).count() >= 10);
}
