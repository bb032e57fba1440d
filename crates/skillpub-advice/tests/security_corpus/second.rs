//! The second corpus: cases written fresh for the review's second pass (phrased, split and
//! encoded injection and exfiltration), by someone who had not read the rules.

use super::*;

pub(crate) fn cases() -> Vec<Case> {
    vec![]
}
