//! A credential found, and the runs of token characters that every pass reads.

use std::ops::Range;

use super::credential::Credential;

/// Whether `byte` belongs to a run: an ASCII letter, a digit, `_` or `-`.
pub(super) const fn is_token(byte: u8) -> bool {
    (byte | 0x20).wrapping_sub(b'a') < 26
        || byte.wrapping_sub(b'0') < 10
        || byte == b'_'
        || byte == b'-'
}

/// The run of token characters that starts at `at` (empty when `text[at]` is not one).
pub(super) fn run_from(text: &[u8], at: usize) -> Range<usize> {
    let start = at.min(text.len());
    let length = text[start..]
        .iter()
        .take_while(|&&byte| is_token(byte))
        .count();
    start..start + length
}

/// How many characters at the end of a credential a report shows, after its prefix.
const SHOWN: usize = 4;

/// A credential found: where it is, what it is, and how the report shows it.
#[derive(Debug)]
pub(super) struct Hit {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) credential: Credential,
    /// The credential with all but its prefix and its last few characters hidden.
    pub(super) shown: String,
}

impl Hit {
    /// The credential `text[start..end]`, whose first `prefix` bytes are its format's prefix.
    pub(super) fn new(
        start: usize,
        end: usize,
        credential: Credential,
        prefix: usize,
        text: &[u8],
    ) -> Self {
        let value = &text[start..end];
        let prefix = &value[..prefix.min(value.len())];
        let hidden = value.len() - prefix.len();
        // A value too short to spare its last characters shows none of them.
        let tail = if hidden >= 4 * SHOWN {
            &value[value.len() - SHOWN..]
        } else {
            &[][..]
        };
        let shown = format!(
            "{}…{}",
            String::from_utf8_lossy(prefix),
            String::from_utf8_lossy(tail)
        );
        Self::shown(start, end, credential, shown)
    }

    /// The credential `text[start..end]`, shown as `shown`.
    pub(super) fn shown(start: usize, end: usize, credential: Credential, shown: String) -> Self {
        Self {
            start,
            end,
            credential,
            shown,
        }
    }
}
