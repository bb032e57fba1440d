//! The public path prefix a router is mounted under (axum's `nest("/tenant", ..)`), and the
//! rule that keeps it a plain URL path.
//!
//! The prefix goes into every URL the catalog writes for clients (the index entries, the API
//! catalog, [`Catalog::index_url`](crate::Catalog::index_url)), never into the paths the
//! router serves: `nest` strips it before the router sees a request.
//!
//! It is checked once, where it is given: [`BasePath::new`] (or the catalog's build, for
//! [`CatalogBuilder::base_path`](crate::CatalogBuilder::base_path)) applies the rule, and
//! whatever takes a [`BasePath`] afterwards (the catalog's URLs, skillpub-axum's `Link` layer)
//! uses it as it is.

use std::fmt;
use std::str::FromStr;

/// Why a base path cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BasePathProblem {
    /// It does not start with `/`.
    #[error(
        "does not start with `/`; write the path the router is nested under, such as `/tenant`"
    )]
    Relative,
    /// It ends with `/` (this includes `/` alone).
    #[error(
        "ends with `/`; write it without the final slash, such as `/tenant` (for the site root, set no base path)"
    )]
    TrailingSlash,
    /// It has an empty segment (`//`).
    #[error("has an empty segment (`//`); write one `/` between segments")]
    EmptySegment,
    /// It has a `.` or `..` segment.
    #[error(
        "has a `.` or `..` segment, which clients would resolve away; write the path without it"
    )]
    DotSegment,
    /// It has a `%`, as in a percent-encoded character.
    #[error(
        "contains `%`; write the path decoded, with only ASCII letters, digits, `-`, `.`, `_` and `~` between the slashes"
    )]
    PercentEncoded,
    /// Characters a URL or a `Link` header cannot carry unchanged.
    #[error(
        "contains {characters}; use only ASCII letters, digits, `-`, `.`, `_` and `~` between the slashes, so that it works unchanged in every URL and header"
    )]
    Characters {
        /// The offending characters, quoted and separated by commas.
        characters: String,
    },
}

/// A base path that follows the rule of [`validate_base_path`]: empty for the site root, or
/// `/` and segments of ASCII letters, digits, `-`, `.`, `_` and `~`. Made once, where the path
/// is given; [`Catalog::base_path`](crate::Catalog::base_path) is one, checked when the
/// catalog was built.
///
/// # Example
///
/// ```
/// use skillpub_core::paths::{BasePath, BasePathProblem};
///
/// let tenant = BasePath::new("/tenant")?;
/// assert_eq!(tenant.as_str(), "/tenant");
/// assert_eq!(BasePath::default(), "");
///
/// let error = BasePath::new("/tenant/").unwrap_err();
/// assert_eq!(error.path(), "/tenant/");
/// assert_eq!(error.problem(), &BasePathProblem::TrailingSlash);
/// assert!(error.to_string().starts_with("the base path `/tenant/` ends with `/`"));
/// # Ok::<(), skillpub_core::paths::InvalidBasePath>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct BasePath(String);

impl BasePath {
    /// The base path `path`, once it follows the rule.
    ///
    /// # Errors
    ///
    /// [`InvalidBasePath`], with the path and the first rule it breaks.
    pub fn new(path: impl Into<String>) -> Result<Self, InvalidBasePath> {
        let path = path.into();
        match validate_base_path(&path) {
            Ok(()) => Ok(Self(path)),
            Err(problem) => Err(InvalidBasePath { path, problem }),
        }
    }

    /// The path, such as `/tenant`; empty for the site root.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The same as [`BasePath::new`].
impl FromStr for BasePath {
    type Err = InvalidBasePath;

    fn from_str(path: &str) -> Result<Self, Self::Err> {
        Self::new(path)
    }
}

/// The path.
impl fmt::Display for BasePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for BasePath {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for BasePath {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// A base path that breaks the rule: the path as given, and the first rule it breaks. The
/// message is the one of the catalog's problem `base-path.invalid`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the base path `{path}` {problem}")]
pub struct InvalidBasePath {
    path: String,
    problem: BasePathProblem,
}

impl InvalidBasePath {
    /// The path as given.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The rule it breaks.
    #[must_use]
    pub fn problem(&self) -> &BasePathProblem {
        &self.problem
    }
}

/// Checks a base path: empty (the site root), or `/` followed by segments of ASCII letters,
/// digits, `-`, `.`, `_` and `~` (RFC 3986's unreserved characters), separated by single `/`,
/// none of them `.` or `..`, and no `/` at the end.
///
/// [`BasePath::new`] applies it, and so does the build of a catalog given a
/// [`CatalogBuilder::base_path`](crate::CatalogBuilder::base_path).
///
/// # Example
///
/// ```
/// use skillpub_core::paths::{BasePathProblem, validate_base_path};
///
/// assert_eq!(validate_base_path("/tenant"), Ok(()));
/// assert_eq!(validate_base_path("tenant"), Err(BasePathProblem::Relative));
/// assert_eq!(validate_base_path("/tenant/"), Err(BasePathProblem::TrailingSlash));
/// ```
///
/// # Errors
///
/// The first rule the path breaks.
pub fn validate_base_path(path: &str) -> Result<(), BasePathProblem> {
    if path.is_empty() {
        return Ok(());
    }
    let Some(segments) = path.strip_prefix('/') else {
        return Err(BasePathProblem::Relative);
    };
    if path.ends_with('/') {
        return Err(BasePathProblem::TrailingSlash);
    }
    let segments: Vec<&str> = segments.split('/').collect();
    if segments.iter().any(|segment| segment.is_empty()) {
        return Err(BasePathProblem::EmptySegment);
    }
    if segments
        .iter()
        .any(|segment| matches!(*segment, "." | ".."))
    {
        return Err(BasePathProblem::DotSegment);
    }
    if path.contains('%') {
        return Err(BasePathProblem::PercentEncoded);
    }
    let mut invalid: Vec<char> = Vec::new();
    for c in path.chars() {
        let allowed = c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '/');
        if !allowed && !invalid.contains(&c) {
            invalid.push(c);
        }
    }
    if invalid.is_empty() {
        Ok(())
    } else {
        let quoted: Vec<String> = invalid.iter().map(|c| format!("{c:?}")).collect();
        Err(BasePathProblem::Characters {
            characters: quoted.join(", "),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! accepts {
        ($name:ident, $path:expr) => {
            #[test]
            fn $name() {
                assert_eq!(validate_base_path($path), Ok(()));
            }
        };
    }

    macro_rules! refuses {
        ($name:ident, $path:expr, $problem:pat) => {
            #[test]
            fn $name() {
                let result = validate_base_path($path);
                assert!(matches!(result, Err($problem)), "{result:?}");
            }
        };
    }

    accepts!(none_is_the_root, "");
    accepts!(one_segment, "/tenant");
    accepts!(several_segments, "/acme/skills-v2");
    accepts!(unreserved_characters, "/a.b_c~d-E9");
    accepts!(dots_inside_a_segment, "/v1.2/...");

    refuses!(relative, "tenant", BasePathProblem::Relative);
    refuses!(relative_dot, "./tenant", BasePathProblem::Relative);
    refuses!(root_slash, "/", BasePathProblem::TrailingSlash);
    refuses!(trailing_slash, "/tenant/", BasePathProblem::TrailingSlash);
    refuses!(double_slash, "//tenant", BasePathProblem::EmptySegment);
    refuses!(inner_double_slash, "/a//b", BasePathProblem::EmptySegment);
    refuses!(dot_segment, "/a/./b", BasePathProblem::DotSegment);
    refuses!(dot_dot_segment, "/a/..", BasePathProblem::DotSegment);
    refuses!(percent_encoded, "/a%2Fb", BasePathProblem::PercentEncoded);
    refuses!(encoded_dot_dot, "/%2e%2e", BasePathProblem::PercentEncoded);
    refuses!(space, "/my tenant", BasePathProblem::Characters { .. });
    refuses!(query, "/tenant?x=1", BasePathProblem::Characters { .. });
    refuses!(
        fragment_and_angle_bracket,
        "/t#a>",
        BasePathProblem::Characters { .. }
    );
    refuses!(backslash, "/a\\b", BasePathProblem::Characters { .. });
    refuses!(non_ascii, "/café", BasePathProblem::Characters { .. });

    #[test]
    fn characters_are_listed_once_each() {
        assert_eq!(
            validate_base_path("/a b c?"),
            Err(BasePathProblem::Characters {
                characters: "' ', '?'".into()
            })
        );
    }
}
