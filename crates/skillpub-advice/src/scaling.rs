//! Every rule of the advice takes time linear in its input, on the shapes that made rules
//! quadratic (issue 18) and on one shape per construct the rules read: each step (reading
//! the body, then each rule) is timed on a body of `n` repetitions and on one of `4 n`, the
//! least of several runs, and the ratio must stay under 8 (linear gives about 4, quadratic
//! about 16). Steps too fast to time are linear enough.
//!
//! The bodies are small (at most about 100 KB), so that both fit in the processor's caches
//! and a linear step is not slowed by memory on the larger one, and the time is the thread's
//! own CPU time where there is one, so that other processes on a loaded machine do not count.

use std::time::Duration;

use super::*;

/// A body of `n` repetitions of something the rules read, and the skill's files.
struct Shape {
    name: &'static str,
    body: fn(usize) -> String,
    files: &'static [&'static str],
    /// Repetitions in the smaller body: enough that a quadratic step takes milliseconds in
    /// a debug build.
    n: usize,
}

const REFERENCES: &[&str] = &["references/b.md"];

const SHAPES: &[Shape] = &[
    // The three of issue 18.
    Shape {
        name: "one line of code spans",
        body: |n| "`references/a.md` ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "one code span of paths",
        body: |n| format!("`{}`", "references/a.md ".repeat(n)),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "one fenced line of paths",
        body: |n| format!("```\n{}\n```\n", "x/a.md ".repeat(n)),
        files: REFERENCES,
        n: 1_000,
    },
    // The text before a path: an interpreter, an example, the skill's folder variable.
    Shape {
        name: "code spans of scripts without a scripts folder",
        body: |n| "python `scripts/a.py` ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "fenced scripts run by an interpreter",
        body: |n| format!("```sh\n{}\n```\n", "python scripts/a.py; ".repeat(n)),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "a long chain of options before scripts",
        body: |n| format!("`uv run {}scripts/a.py`", "--x ".repeat(n)),
        files: REFERENCES,
        n: 2_000,
    },
    Shape {
        name: "paths after an example",
        body: |n| format!("For example {}", "`references/a.md` ".repeat(n)),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "code spans with non-ASCII text",
        body: |n| "é `references/a.md` ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "code spans on many lines",
        body: |n| "`references/a.md`\n".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "distinct missing files",
        body: |n| {
            (0..n)
                .map(|i| format!("[a](references/a{i}.md)\n"))
                .collect()
        },
        files: REFERENCES,
        n: 1_000,
    },
    // Backticks.
    Shape {
        name: "unmatched runs of backticks before spans",
        body: |n| {
            let width = (n as f64).sqrt() as usize;
            let runs: String = (2..width).map(|length| "`".repeat(length) + " ").collect();
            format!("{runs}{}", "`a` ".repeat(n))
        },
        files: REFERENCES,
        n: 4_000,
    },
    Shape {
        name: "lone backticks",
        body: |n| "` ".repeat(n),
        files: REFERENCES,
        n: 4_000,
    },
    // Links.
    Shape {
        name: "links on one line",
        body: |n| "[a](references/a.md) ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed angle targets between links",
        body: |n| "[x](<a [x](b) ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed titles between links",
        body: |n| "[x](b \"t [x](c) ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed parenthesized titles between links",
        body: |n| "[x](b (t [x](c) ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed link texts before links",
        body: |n| "[a [b](c) ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed brackets before links",
        body: |n| "[a (b) [c](d) ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "nested brackets",
        body: |n| "[[a]".repeat(n),
        files: REFERENCES,
        n: 2_000,
    },
    Shape {
        name: "reference definitions",
        body: |n| "[a]: references/a.md\n".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "HTML links",
        body: |n| "<a href=\"references/a.md\">a</a> ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed HTML tags before links",
        body: |n| "<a x <a href=\"b\"> ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed HTML attributes",
        body: |n| "<img src=\"a ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "percent escapes",
        body: |n| format!("[a](references/{}.md)", "%41".repeat(n)),
        files: REFERENCES,
        n: 2_000,
    },
    Shape {
        name: "a deep path",
        body: |n| format!("[a](references/{}a.md)", "b/../".repeat(n)),
        files: REFERENCES,
        n: 2_000,
    },
    // What makes a skill call an API.
    Shape {
        name: "endpoints",
        body: |n| (0..n).map(|i| format!("GET /a{i} ")).collect(),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "commands without a URL",
        body: |n| format!("{}https://api.acme.io/a", "curl ".repeat(n)),
        files: REFERENCES,
        n: 2_000,
    },
    Shape {
        name: "commands with URLs",
        body: |n| {
            (0..n)
                .map(|i| format!("curl https://api.acme.io/a{i} "))
                .collect()
        },
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "client calls",
        body: |n| "fetch(\"https://api.acme.io/a\") ".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "base URL labels",
        body: |n| "Base URL: ".repeat(n),
        files: REFERENCES,
        n: 2_000,
    },
    // Headings, labels, fences, comments, line ends.
    Shape {
        name: "headings",
        body: |n| "# When to use\n".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "a long title",
        body: |n| format!("# Acme API {}\n", "build the ".repeat(n)),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "setext headings",
        body: |n| "Title\n===\n".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "bold labels",
        body: |n| "**Output:** x\n".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed bold",
        body: |n| "**a ".repeat(n),
        files: REFERENCES,
        n: 2_000,
    },
    Shape {
        name: "fences",
        body: |n| "```\nx/a.md\n```\n".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "comments",
        body: |n| "<!-- a -->".repeat(n),
        files: REFERENCES,
        n: 1_000,
    },
    Shape {
        name: "unclosed comments",
        body: |n| "<!-- ".repeat(n),
        files: REFERENCES,
        n: 2_000,
    },
    Shape {
        name: "carriage returns",
        body: |n| "a\r\n\r".repeat(n),
        files: REFERENCES,
        n: 2_000,
    },
    Shape {
        name: "words",
        body: |n| "word ".repeat(n),
        files: REFERENCES,
        n: 2_000,
    },
];

/// The description every shape's skill has: it names an API, so that the rule on sections
/// reads the whole body.
const DESCRIPTION: &str = "Calls the Acme REST API to look up orders. Use when a user asks.";

fn skill_md(body: &str) -> SkillMd {
    let text = format!("---\nname: shape\ndescription: {DESCRIPTION}\n---\n{body}");
    SkillMd::parse(text, None).unwrap()
}

/// Runs of each measurement; the least time is taken.
const RUNS: usize = 7;
/// Below this, at `4 n`, a step is too fast to time.
const FLOOR: Duration = Duration::from_millis(1);
/// Linear gives about 4, quadratic about 16.
const MOST: f64 = 8.0;

/// The CPU time this thread has used, where the system keeps one.
#[cfg(unix)]
fn now() -> Duration {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        time.tv_sec.unsigned_abs(),
        time.tv_nsec.unsigned_abs() as u32,
    )
}

/// The time since some fixed moment, elsewhere.
#[cfg(not(unix))]
fn now() -> Duration {
    static START: std::sync::LazyLock<std::time::Instant> =
        std::sync::LazyLock::new(std::time::Instant::now);
    START.elapsed()
}

/// The least time of [`RUNS`] runs of `step`.
fn least<T>(mut step: impl FnMut() -> T) -> Duration {
    (0..RUNS)
        .map(|_| {
            let started = now();
            std::hint::black_box(step());
            now().saturating_sub(started)
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn every_rule_is_linear_in_its_input() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for shape in SHAPES {
        let small = skill_md(&(shape.body)(shape.n));
        let large = skill_md(&(shape.body)(4 * shape.n));
        let read = |skill_md| Input::new(skill_md, shape.files, Clock::unlimited());
        let mut times = vec![("reading", least(|| read(&small)), least(|| read(&large)))];
        let (small, large) = (read(&small), read(&large));
        for rule in AdviceRule::ALL {
            let check = |input| {
                let mut out = Vec::new();
                super::check(*rule, input, &mut out);
                out
            };
            times.push((
                rule.code(),
                least(|| check(&small)),
                least(|| check(&large)),
            ));
        }
        for (step, small, large) in times {
            let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
            let line = format!(
                "{}: {step}: {small:?} -> {large:?} ({ratio:.1}x)",
                shape.name
            );
            if large >= FLOOR && ratio > MOST {
                failures.push(line.clone());
            }
            report.push(line);
        }
    }
    // Shown with `--nocapture`, or when the test fails.
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "steps more than {MOST} times slower on 4 times the input:\n{}",
        failures.join("\n")
    );
}
