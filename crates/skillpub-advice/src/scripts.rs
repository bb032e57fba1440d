//! `scripts.present`: files a client does not run by default.

use crate::advice::Advice;
use crate::input::Input;
use crate::rule::AdviceRule;

/// The folder whose files clients do not run by default.
const SCRIPTS: &str = "scripts";

/// `scripts.present`: files under `scripts/` at the skill's root.
pub(crate) fn scripts_present(input: &Input<'_>) -> Option<Advice> {
    let count = input.files.count_under(SCRIPTS);
    (count > 0).then(|| {
        Advice::new(
            AdviceRule::ScriptsPresent,
            format!(
                "the skill has {count} file{} under {SCRIPTS}/; clients do not run scripts by default, so a website skill should not depend on them",
                if count == 1 { "" } else { "s" }
            ),
            None,
        )
    })
}
