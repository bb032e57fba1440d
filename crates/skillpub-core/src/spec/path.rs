//! The rules a supporting file's path follows, so that every path works unchanged as a URL
//! and as an archive entry.

use crate::paths::SKILL_MD;

/// Why a file path cannot be published.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathProblem {
    /// The path is empty, absolute, or has an empty, `.` or `..` segment.
    #[error("is not a plain relative path; use `folder/file.ext` with no empty, `.` or `..` parts")]
    NotRelative,
    /// A segment starts with `.`.
    #[error(
        "is hidden (a part starts with `.`); hidden files are not published, so rename or remove it"
    )]
    Hidden,
    /// Characters a URL cannot carry without encoding, or that some systems cannot store.
    #[error(
        "contains {characters}; use only ASCII letters, digits, `-`, `_`, `.` and `~` in file and folder names, so that the path works as a URL and in every archive"
    )]
    Characters {
        /// The offending characters, quoted and separated by commas.
        characters: String,
    },
    /// Too long for a ustar archive header.
    #[error(
        "is too long for a tar archive (at most 100 bytes for the file name and 155 for its folders); shorten it"
    )]
    TooLong,
    /// `SKILL.md` is given apart from the supporting files.
    #[error("is `SKILL.md`, which is given as the skill's main file, not as a supporting file")]
    SkillMd,
}

/// Checks a supporting file's path: relative, `/`-separated, not hidden, made of URL-safe
/// characters (`A-Z a-z 0-9 - _ . ~`) and short enough for a ustar header.
///
/// # Example
///
/// ```
/// use skillpub_core::spec::{PathProblem, validate_file_path};
///
/// assert_eq!(validate_file_path("references/api.md"), Ok(()));
/// assert_eq!(validate_file_path("../secret"), Err(PathProblem::NotRelative));
/// assert_eq!(validate_file_path("assets/.DS_Store"), Err(PathProblem::Hidden));
/// assert!(matches!(validate_file_path("my notes.md"), Err(PathProblem::Characters { .. })));
/// ```
pub fn validate_file_path(path: &str) -> Result<(), PathProblem> {
    if path == SKILL_MD {
        return Err(PathProblem::SkillMd);
    }
    let segments: Vec<&str> = path.split('/').collect();
    if segments
        .iter()
        .any(|s| s.is_empty() || *s == "." || *s == "..")
    {
        return Err(PathProblem::NotRelative);
    }
    let mut invalid: Vec<char> = Vec::new();
    for c in path.chars() {
        let allowed = c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '/');
        if !allowed && !invalid.contains(&c) {
            invalid.push(c);
        }
    }
    if !invalid.is_empty() {
        let quoted: Vec<String> = invalid.iter().map(|c| format!("{c:?}")).collect();
        return Err(PathProblem::Characters {
            characters: quoted.join(", "),
        });
    }
    if segments.iter().any(|s| s.starts_with('.')) {
        return Err(PathProblem::Hidden);
    }
    if !fits_ustar(path) {
        return Err(PathProblem::TooLong);
    }
    Ok(())
}

/// Whether a ustar header can hold the path: the name in 100 bytes, or split at a `/` into a
/// prefix of at most 155 bytes and a name of at most 100.
fn fits_ustar(path: &str) -> bool {
    path.len() <= 100
        || path
            .match_indices('/')
            .any(|(at, _)| at <= 155 && path.len() - at - 1 <= 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! path {
        ($name:ident, $path:expr, $result:pat) => {
            #[test]
            fn $name() {
                let result = validate_file_path(&$path);
                assert!(matches!(result, $result), "{result:?}");
            }
        };
    }

    path!(plain_file, "notes.txt", Ok(()));
    path!(nested_file, "references/deep/api.md", Ok(()));
    path!(tilde_and_underscore, "a_b/c~d.md", Ok(()));
    path!(skill_md_itself, "SKILL.md", Err(PathProblem::SkillMd));
    path!(nested_skill_md_is_fine, "examples/SKILL.md", Ok(()));
    path!(empty, "", Err(PathProblem::NotRelative));
    path!(absolute, "/etc/passwd", Err(PathProblem::NotRelative));
    path!(trailing_slash, "references/", Err(PathProblem::NotRelative));
    path!(double_slash, "a//b", Err(PathProblem::NotRelative));
    path!(dot_segment, "./a", Err(PathProblem::NotRelative));
    path!(dot_dot, "a/../b", Err(PathProblem::NotRelative));
    path!(hidden_file, ".env", Err(PathProblem::Hidden));
    path!(hidden_folder, ".git/config", Err(PathProblem::Hidden));
    path!(space, "my file.md", Err(PathProblem::Characters { .. }));
    path!(backslash, "a\\b", Err(PathProblem::Characters { .. }));
    path!(drive_letter, "C:/x", Err(PathProblem::Characters { .. }));
    path!(percent, "100%.md", Err(PathProblem::Characters { .. }));
    path!(question_mark, "a?.md", Err(PathProblem::Characters { .. }));
    path!(hash, "a#b.md", Err(PathProblem::Characters { .. }));
    path!(non_ascii, "résumé.md", Err(PathProblem::Characters { .. }));
    path!(control, "a\nb", Err(PathProblem::Characters { .. }));
    path!(name_of_100_bytes, "a".repeat(100), Ok(()));
    path!(
        name_of_101_bytes,
        "a".repeat(101),
        Err(PathProblem::TooLong)
    );
    path!(
        long_path_split_at_a_slash,
        format!("{}/{}", "d".repeat(150), "f".repeat(100)),
        Ok(())
    );
    path!(
        long_path_with_too_long_prefix,
        format!("{}/{}", "d".repeat(156), "f".repeat(10)),
        Err(PathProblem::TooLong)
    );
}
