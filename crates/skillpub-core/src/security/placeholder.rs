//! What tells a placeholder from a credential: the words that announce one, filler, counting
//! and repeated patterns, and too little entropy. Each test reads the candidate value alone,
//! never the rest of its line or file, so no word elsewhere can switch a finding off.

/// Words that, anywhere in a value (in any letter case), say that it stands for a credential
/// rather than being one: `YOUR_API_KEY`, `sk_live_EXAMPLE...`, `ghp_REDACTED...`. A random
/// body of 36 base62 characters holds one of these four- to eleven-letter words by chance about
/// once in 30,000 tokens.
const WORDS: [&str; 15] = [
    "example",
    "sample",
    "dummy",
    "fake",
    "placeholder",
    "redacted",
    "your",
    "xxxx",
    "changeme",
    "replace",
    "insert",
    "test",
    "demo",
    "secret",
    "token",
];

/// Whether `value` announces itself as a placeholder, or is too regular to be random: a word
/// of [`WORDS`], or a pattern that [`regular`] finds.
pub(super) fn placeholder(value: &[u8]) -> bool {
    has_word(value) || regular(value)
}

/// Whether `value` holds one of [`WORDS`], in any letter case.
pub(super) fn has_word(value: &[u8]) -> bool {
    WORDS
        .iter()
        .any(|word| contains_ignore_case(value, word.as_bytes()))
}

/// Whether `needle` (lower-case ASCII) occurs in `haystack`, in any letter case.
pub(super) fn contains_ignore_case(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.len() >= needle.len()
        && haystack
            .windows(needle.len())
            .any(|window| window.eq_ignore_ascii_case(needle))
}

/// Whether at least 60 % of the characters of `value` repeat or count on from one a few
/// places before them: a repeated character (`xxxx`, `0000`), a repeated group (`abc1abc1`),
/// counting (`123456`, `abcdef`) or counting in two interleaved rows (`A1B2C3`). In a random
/// value each character does one of these by chance about one time in ten (62 letters) to one
/// in five (32 letters, an AWS key ID's), so a random value of 16 characters reaches 60 % about
/// once in a million.
pub(super) fn regular(value: &[u8]) -> bool {
    if value.len() < 8 {
        return true;
    }
    let regular = (1..value.len())
        .filter(|&at| {
            let c = value[at];
            (1..=4).any(|back| at >= back && value[at - back] == c)
                || (1..=2).any(|back| at >= back && value[at - back].wrapping_add(1) == c)
        })
        .count();
    regular * 10 >= (value.len() - 1) * 6
}

/// The Shannon entropy of `value` in bits per character.
pub(super) fn entropy(value: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &byte in value {
        counts[usize::from(byte)] += 1;
    }
    entropy_of(&counts)
}

/// The Shannon entropy, in bits per character, of a text with these counts of each character.
pub(super) fn entropy_of(counts: &[u32]) -> f64 {
    let length: f64 = counts.iter().map(|&count| f64::from(count)).sum();
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = f64::from(count) / length;
            -p * p.log2()
        })
        .sum()
}

/// Whether `value` looks random enough for a credential: not a placeholder, and of entropy
/// above `floor` bits per character (gitleaks' floors per format).
pub(super) fn random(value: &[u8], floor: f64) -> bool {
    !placeholder(value) && entropy(value) > floor
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_words_filler_and_counting() {
        for value in [
            "YOUR_API_KEY_GOES_HERE_0000",
            "A1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q",
            "1234567890abcdefghijklmnopqrstuvwxyz",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "abc123abc123abc123abc123",
            "EXAMPLEKEY0123456789",
            "short",
        ] {
            assert!(placeholder(value.as_bytes()), "{value}");
        }
        for value in [
            "Zq8vR2mLx7Tn4WcK9pBd3HsJ6yFgA1eU0oNi",
            "f3a91c07d2b84e6599ac10fe7b3d2a48",
        ] {
            assert!(!placeholder(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn entropy_counts_bits_per_character() {
        assert_eq!(entropy(b""), 0.0);
        assert_eq!(entropy(b"aaaa"), 0.0);
        assert!((entropy(b"abcd") - 2.0).abs() < 1e-9);
        assert!(!random(b"abababababababab", 1.0));
    }
}
