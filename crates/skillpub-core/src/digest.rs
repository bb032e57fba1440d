//! `sha256:<hex>` digests, the form the discovery index and SEP-2640 use.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest as _, Sha256};

/// The prefix of every digest string.
pub const DIGEST_PREFIX: &str = "sha256:";

/// A SHA-256 digest of an artifact's exact bytes.
///
/// It displays as `sha256:` followed by 64 lowercase hex digits, and parses only that form.
///
/// # Example
///
/// ```
/// use skillpub_core::Digest;
///
/// let digest = Digest::of(b"abc");
/// assert_eq!(
///     digest.to_string(),
///     "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// );
/// assert_eq!(digest.to_string().parse::<Digest>(), Ok(digest));
/// assert!("sha256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"
///     .parse::<Digest>()
///     .is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest([u8; 32]);

impl Digest {
    /// Hashes `bytes`.
    #[must_use]
    pub fn of(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }

    /// The digest whose raw bytes are these.
    pub(crate) const fn from_raw(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The 32 raw bytes of the hash.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64 lowercase hex digits, without the `sha256:` prefix.
    #[must_use]
    pub fn hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Whether `hex` is exactly 64 lowercase hex digits, the form of [`hex`](Self::hex).
    pub(crate) fn is_hex(hex: &str) -> bool {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    }

    /// The digest whose 64 lowercase hex digits are `hex`; `None` for anything else.
    pub(crate) fn from_hex(hex: &str) -> Option<Self> {
        Self::is_hex(hex).then(|| Self::from_checked_hex(hex))
    }

    /// The digest of `hex`, which [`is_hex`](Self::is_hex) accepted.
    pub(crate) fn from_checked_hex(hex: &str) -> Self {
        let digit = |b: u8| match b {
            b'0'..=b'9' => b - b'0',
            _ => b.wrapping_sub(b'a') + 10,
        };
        let mut bytes = [0; 32];
        for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
            *byte = digit(pair[0]) << 4 | digit(pair[1]);
        }
        Self(bytes)
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{DIGEST_PREFIX}{}", self.hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

/// Why a string is not a digest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DigestParseError {
    /// The string does not start with `sha256:`.
    #[error("digest `{0}` must start with `sha256:`")]
    MissingPrefix(String),
    /// The hex part is not 64 characters long.
    #[error("digest `{digest}` must have 64 hex digits after `sha256:`, found {found}")]
    WrongLength {
        /// The whole string.
        digest: String,
        /// How many characters follow the prefix.
        found: usize,
    },
    /// The hex part holds something other than `0-9a-f`.
    #[error("digest `{0}` must use lowercase hex digits 0-9 and a-f only")]
    NotLowercaseHex(String),
}

impl FromStr for Digest {
    type Err = DigestParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let Some(hex) = text.strip_prefix(DIGEST_PREFIX) else {
            return Err(DigestParseError::MissingPrefix(text.to_owned()));
        };
        let found = hex.chars().count();
        if found != 64 {
            return Err(DigestParseError::WrongLength {
                digest: text.to_owned(),
                found,
            });
        }
        Self::from_hex(hex).ok_or_else(|| DigestParseError::NotLowercaseHex(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY: &str = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    #[test]
    fn empty_input_has_the_standard_digest() {
        assert_eq!(Digest::of(b"").to_string(), EMPTY);
    }

    #[test]
    fn parsing_round_trips() {
        assert_eq!(EMPTY.parse::<Digest>().unwrap(), Digest::of(b""));
    }

    #[test]
    fn parsing_is_exact() {
        let hex = &EMPTY[7..];
        assert!(matches!(
            hex.parse::<Digest>(),
            Err(DigestParseError::MissingPrefix(_))
        ));
        assert!(matches!(
            format!("SHA256:{hex}").parse::<Digest>(),
            Err(DigestParseError::MissingPrefix(_))
        ));
        assert!(matches!(
            format!("sha256:{}", &hex[1..]).parse::<Digest>(),
            Err(DigestParseError::WrongLength { found: 63, .. })
        ));
        assert!(matches!(
            format!("{EMPTY}0").parse::<Digest>(),
            Err(DigestParseError::WrongLength { found: 65, .. })
        ));
        assert!(matches!(
            EMPTY
                .to_uppercase()
                .replace("SHA256", "sha256")
                .parse::<Digest>(),
            Err(DigestParseError::NotLowercaseHex(_))
        ));
        assert!(matches!(
            format!("sha256:{}g", &hex[1..]).parse::<Digest>(),
            Err(DigestParseError::NotLowercaseHex(_))
        ));
        assert!(matches!(
            format!(" {EMPTY}").parse::<Digest>(),
            Err(DigestParseError::MissingPrefix(_))
        ));
        assert!(matches!(
            format!("{EMPTY}\n").parse::<Digest>(),
            Err(DigestParseError::WrongLength { .. })
        ));
    }

    #[test]
    fn a_multibyte_digit_is_not_hex() {
        let text = format!("sha256:{}é", "a".repeat(63));
        assert!(matches!(
            text.parse::<Digest>(),
            Err(DigestParseError::NotLowercaseHex(_))
        ));
    }
}
