//! Media types: the `Content-Type` of every artifact a catalog serves, chosen once when the
//! catalog is built (by extension, and text only for UTF-8 bytes), and the helpers that read a
//! media type back.
//!
//! # Example
//!
//! ```
//! use skillpub_core::media::{self, MARKDOWN};
//!
//! let catalog = skillpub_core::Catalog::new([skillpub_core::Skill::from_static(
//!     "---\nname: pdf\ndescription: Reads PDFs.\n---\n",
//! )])?;
//! assert_eq!(catalog.get("pdf").unwrap().skill_md().media_type(), MARKDOWN);
//! assert_eq!(media::essence(MARKDOWN), "text/markdown");
//! assert!(media::is_text(MARKDOWN));
//! # Ok::<(), skillpub_core::Errors>(())
//! ```

/// `Content-Type` of `SKILL.md` and other Markdown files.
pub const MARKDOWN: &str = "text/markdown; charset=utf-8";
/// `Content-Type` of the index and other JSON files.
pub const JSON: &str = "application/json";
/// `Content-Type` of `.tar.gz` archives.
pub const GZIP: &str = "application/gzip";
/// `Content-Type` of `.zip` archives.
pub const ZIP: &str = "application/zip";
/// `Content-Type` of text files that have no more specific type.
pub const PLAIN_TEXT: &str = "text/plain; charset=utf-8";
/// `Content-Type` of everything else.
pub const OCTET_STREAM: &str = "application/octet-stream";
/// `Content-Type` of the RFC 9727 API catalog: a JSON linkset (RFC 9264) with the API catalog
/// profile.
pub const LINKSET: &str =
    "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"";

/// Extensions served as UTF-8 plain text (scripts, configuration and source code).
const TEXT_EXTENSIONS: [&str; 34] = [
    "txt", "text", "py", "sh", "bash", "zsh", "fish", "ps1", "js", "mjs", "cjs", "ts", "rb", "go",
    "rs", "java", "kt", "c", "h", "cpp", "hpp", "cs", "php", "pl", "sql", "toml", "yaml", "yml",
    "ini", "cfg", "conf", "csv", "tsv", "template",
];

/// The media type of a file, from its extension. Text types are only given to UTF-8 bytes.
/// A file with no known extension is `text/plain` when it is UTF-8 without NUL bytes, and
/// `application/octet-stream` otherwise.
///
/// # Example
///
/// ```
/// use skillpub_core::media::media_type;
///
/// assert_eq!(media_type("references/api.md", b"# API"), "text/markdown; charset=utf-8");
/// assert_eq!(media_type("scripts/run.py", b"print(1)"), "text/plain; charset=utf-8");
/// assert_eq!(media_type("assets/logo.png", b"\x89PNG"), "image/png");
/// assert_eq!(media_type("notes.txt", b"\xff\xfe"), "application/octet-stream");
/// assert_eq!(media_type("assets/data.bin", b"\x00\x01"), "application/octet-stream");
/// assert_eq!(media_type("LICENSE", b"MIT License"), "text/plain; charset=utf-8");
/// ```
#[must_use]
pub fn media_type(path: &str, bytes: &[u8]) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => extension.to_ascii_lowercase(),
        _ => String::new(),
    };
    let text = |media_type| {
        if std::str::from_utf8(bytes).is_ok() {
            media_type
        } else {
            OCTET_STREAM
        }
    };
    match extension.as_str() {
        "md" | "markdown" => text(MARKDOWN),
        "json" => text(JSON),
        // HTML is shown as text: a skill's page must not run scripts on the publishing site.
        "html" | "htm" => text(PLAIN_TEXT),
        "css" => text("text/css; charset=utf-8"),
        "xml" => text("application/xml"),
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        "gz" | "tgz" => GZIP,
        "zip" => ZIP,
        other if TEXT_EXTENSIONS.contains(&other) => text(PLAIN_TEXT),
        // No known extension (LICENSE, Makefile, scripts/deploy): text if it reads as text.
        _ if std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0) => PLAIN_TEXT,
        _ => OCTET_STREAM,
    }
}

/// Whether a media type is served as text (MCP sends these as text, others as base64 blobs).
#[must_use]
pub fn is_text(media_type: &str) -> bool {
    media_type.starts_with("text/") || media_type == JSON || media_type == "application/xml"
}

/// A media type without its parameters, trimmed: the type itself, as MCP's `mimeType` and a
/// comparison of types want it. The case is kept; lowercase the result to compare a type a
/// server sent.
///
/// # Example
///
/// ```
/// use skillpub_core::media::{MARKDOWN, essence};
///
/// assert_eq!(essence(MARKDOWN), "text/markdown");
/// assert_eq!(essence(" Text/Plain ; charset=utf-8"), "Text/Plain");
/// assert_eq!(essence("image/png"), "image/png");
/// ```
#[must_use]
pub fn essence(media_type: &str) -> &str {
    media_type.split(';').next().unwrap_or(media_type).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_case_insensitive() {
        assert_eq!(media_type("README.MD", b"x"), MARKDOWN);
    }

    #[test]
    fn a_dot_file_name_has_no_extension() {
        assert_eq!(media_type("a/.md", b"x"), PLAIN_TEXT);
        assert_eq!(media_type("a/.md", b"\xff"), OCTET_STREAM);
        assert_eq!(media_type("Makefile", b"all:\n"), PLAIN_TEXT);
        assert_eq!(media_type("tool", b"\x7fELF\x00"), OCTET_STREAM);
    }

    #[test]
    fn text_types_are_text() {
        assert!(is_text(MARKDOWN) && is_text(PLAIN_TEXT) && is_text(JSON));
        assert!(!is_text(OCTET_STREAM) && !is_text("image/png") && !is_text(GZIP));
    }
}
