//! Every rule of the advice does work linear in its input, on the shapes of
//! [`shapes::SHAPES`]: each rule runs on a body of `n` repetitions and on one of `2 n`, and
//! doubling the body may at most about double the work: the work may grow at most [`MOST`]
//! times as much as the body's bytes (linear gives at most 1, quadratic about 2).
//!
//! The work is what the run's [`Clock`] counts: every line and item a rule reads and every
//! byte each of its searches may read (clippy refuses a search that does not go through the
//! clock). It is the same on every machine and under any load, so the bodies can be small and
//! the bound tight. What the count cannot see, the time the regex crate takes within one
//! search and the reading of the body before the rules, `benches/scaling.rs` times.

mod shapes;

use super::*;
use shapes::{SHAPES, skill_md};

/// How much more than the body's bytes a rule's work may grow.
const MOST: f64 = 1.1;

/// The work of each rule on `skill_md`, in the order of [`AdviceRule::ALL`].
fn work(skill_md: &SkillMd, files: &[&str]) -> Vec<u64> {
    let input = Input::new(skill_md, files, Clock::unlimited());
    AdviceRule::ALL
        .iter()
        .map(|rule| {
            let before = input.clock.spent();
            super::check(*rule, &input, &mut Vec::new());
            input.clock.spent() - before
        })
        .collect()
}

#[test]
fn every_rule_is_linear_in_its_input() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for shape in SHAPES {
        let (small, large) = ((shape.body)(shape.n), (shape.body)(2 * shape.n));
        let grown = large.len() as f64 / small.len() as f64;
        let small = work(&skill_md(&small), shape.files);
        let large = work(&skill_md(&large), shape.files);
        for ((rule, small), large) in AdviceRule::ALL.iter().zip(small).zip(large) {
            let ratio = large as f64 / small.max(1) as f64;
            let line = format!(
                "{}: {rule}: {small} -> {large} ({ratio:.2}x, the body {grown:.2}x)",
                shape.name
            );
            if ratio > MOST * grown {
                failures.push(line.clone());
            }
            report.push(line);
        }
    }
    // Shown with `--nocapture`, or when the test fails.
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "rules whose work grew more than {MOST} times as much as the body:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_work_of_a_rule_grows_with_what_it_reads() {
    let one = work(&skill_md("[a](references/a.md)\n"), &[]);
    let many = work(&skill_md(&"[a](references/a.md)\n".repeat(10)), &[]);
    let links = AdviceRule::ALL
        .iter()
        .position(|rule| *rule == AdviceRule::LinkMissingFile)
        .unwrap();
    assert!(one[links] > 0);
    assert!(many[links] >= 10 * one[links] / 2, "{one:?} {many:?}");
}
