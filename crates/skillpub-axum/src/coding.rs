//! Content codings: which artifacts get compressed variants, and how those bytes are made.
//!
//! Only text is encoded (JSON, Markdown, `text/*`, XML and SVG); archives, images and other
//! binaries are always sent as they are. The encoders are pinned (gzip through
//! [`skillpub_core::archive::gzip`], the archives' own compressor; brotli at a fixed quality and
//! window), so every replica makes the same bytes for the same file, which its strong `ETag`
//! promises.

use bytes::Bytes;

/// The brotli quality of the `br` variants (0 to 11). At 5, brotli beats gzip at level 9 on
/// text (about 10 % smaller) in about the same time; 11 gains another 10 % but takes about 50
/// times longer, too slow for the first request of a large file.
pub const BROTLI_QUALITY: u8 = 5;

/// The brotli window of the `br` variants, as a power of two: 22 (4 MiB), brotli's default.
pub const BROTLI_WINDOW: u8 = 22;

/// A content coding the router can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    /// `br` (RFC 7932).
    Brotli,
    /// `gzip` (RFC 1952).
    Gzip,
    /// No coding: the bytes the digest covers.
    Identity,
}

impl Coding {
    /// The token in `Accept-Encoding` and `Content-Encoding`.
    pub(crate) fn token(self) -> &'static str {
        match self {
            Self::Brotli => "br",
            Self::Gzip => "gzip",
            Self::Identity => "identity",
        }
    }

    /// The bytes of `plain` in this coding; `None` for identity, which has no encoded form.
    pub(crate) fn encode(self, plain: &[u8]) -> Option<Bytes> {
        match self {
            Self::Brotli => brotli(plain).map(Bytes::from),
            Self::Gzip => Some(Bytes::from(skillpub_core::archive::gzip(plain))),
            Self::Identity => None,
        }
    }
}

/// Whether artifacts of this media type get encoded variants: text, which compresses well
/// and is hashed as text. Archives are compressed already and must reach the client exactly
/// as hashed; images and other binaries gain little. Text is what [`skillpub_core::media::is_text`]
/// says, in any case, plus the `+json` and `+xml` types (such as SVG).
pub(crate) fn is_encoded(media_type: &str) -> bool {
    let essence = skillpub_core::media::essence(media_type).to_ascii_lowercase();
    skillpub_core::media::is_text(&essence)
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
}

/// Brotli with the pinned settings; `None` if the encoder fails (it writes to memory, so it
/// does not), and the artifact is then sent without this coding.
fn brotli(plain: &[u8]) -> Option<Vec<u8>> {
    let params = brotli::enc::BrotliEncoderParams {
        quality: i32::from(BROTLI_QUALITY),
        lgwin: i32::from(BROTLI_WINDOW),
        // The size lets the encoder size its tables; it is the input's, so still deterministic.
        size_hint: plain.len(),
        mode: brotli::enc::backward_references::BrotliEncoderMode::BROTLI_MODE_TEXT,
        ..Default::default()
    };
    let mut encoded = Vec::with_capacity(plain.len() / 2);
    brotli::BrotliCompress(&mut &plain[..], &mut encoded, &params).ok()?;
    Some(encoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# Forms\n\nFill in every field of the form, then sign it.\n";

    fn decode(coding: Coding, bytes: &[u8]) -> Vec<u8> {
        skillpub_testkit::decode(Some(coding.token()), bytes)
    }

    #[test]
    fn every_coding_decodes_to_the_plain_bytes() {
        let plain = TEXT.repeat(40);
        for coding in [Coding::Brotli, Coding::Gzip] {
            let encoded = coding.encode(plain.as_bytes()).unwrap();
            assert!(encoded.len() < plain.len() / 4, "{coding:?}");
            assert_eq!(decode(coding, &encoded), plain.as_bytes(), "{coding:?}");
        }
    }

    #[test]
    fn tiny_and_empty_files_are_encoded_too() {
        for coding in [Coding::Brotli, Coding::Gzip] {
            for plain in [&b"tiny"[..], b""] {
                let encoded = coding.encode(plain).unwrap();
                assert_eq!(decode(coding, &encoded), plain, "{coding:?}");
            }
        }
        assert_eq!(Coding::Identity.encode(b"tiny"), None);
    }

    /// The encoders are pinned: a dependency update that changes their output changes every
    /// derived `ETag`'s bytes, so it must be noticed here and released on purpose.
    #[test]
    fn the_encoded_bytes_are_pinned() {
        let plain = TEXT.repeat(40);
        let digests: Vec<String> = [Coding::Brotli, Coding::Gzip]
            .map(|coding| {
                skillpub_core::Digest::of(&coding.encode(plain.as_bytes()).unwrap()).to_string()
            })
            .into();
        assert_eq!(
            digests,
            [
                "sha256:b213e16283cd5296dd63ab326087c94ff0599bb5d1cec0a41ce44484ea35ddbd",
                "sha256:958ddf6cfa22f6065d2aaa12dd9620d5f7a6b048630a6cee465c3d8e34a856d7",
            ]
        );
    }

    macro_rules! encoded {
        ($($media_type:expr => $encoded:expr,)+) => {$(
            assert_eq!(is_encoded($media_type), $encoded, "{}", $media_type);
        )+};
    }

    #[test]
    fn text_is_encoded_and_archives_and_binaries_are_not() {
        encoded! {
            skillpub_core::media::JSON => true,
            skillpub_core::media::MARKDOWN => true,
            skillpub_core::media::PLAIN_TEXT => true,
            skillpub_core::media::LINKSET => true,
            "text/css; charset=utf-8" => true,
            "application/xml" => true,
            "image/svg+xml" => true,
            "Text/Markdown" => true,
            skillpub_core::media::GZIP => false,
            skillpub_core::media::ZIP => false,
            skillpub_core::media::OCTET_STREAM => false,
            "image/png" => false,
            "application/pdf" => false,
            "application/jsonl" => false,
        }
    }
}
