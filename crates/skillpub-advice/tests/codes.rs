//! The advice's codes beside the core's problem codes: no rule has the code of an error, so a
//! script that matches codes never takes advice for an error. The core's table of codes
//! (`skillpub-core/src/docs/codes.md`, which its tests hold to every `ErrorKind`) is read from
//! the workspace, so this test is not in the package.

use std::collections::HashSet;

use skillpub_advice::AdviceRule;

/// The codes of a Markdown table whose rows start with a code in backticks.
fn codes(table: &str) -> HashSet<&str> {
    table
        .lines()
        .filter_map(|row| Some(row.strip_prefix("| `")?.split_once('`')?.0))
        .collect()
}

#[test]
fn no_rule_has_the_code_of_an_error() {
    let errors = codes(include_str!("../../skillpub-core/src/docs/codes.md"));
    assert!(
        errors.contains("name.uppercase"),
        "the core's table is read"
    );
    for rule in AdviceRule::ALL {
        assert!(!errors.contains(rule.code()), "{rule} is an error's code");
    }
}
