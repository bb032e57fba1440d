//! What a target given to `check` is, by its URL alone: an index URL, an origin, a URL with a
//! path (a prefix or a page, told apart later by its answer), or a page, as the caller said;
//! and where an origin's well-known index is.

use skillpub_client::{ClientError, index_url};
use skillpub_core::paths::INDEX_PATH;
use url::Url;

/// A target given to `check`, once classified (see [`check`](crate::check)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// An index URL, or the well-known index of an origin: checked as it is.
    Index(Url),
    /// A URL with a path: a page when its answer names an index in a `Link`, else the prefix
    /// whose index is `index`.
    Path {
        /// The URL as given.
        url: Url,
        /// The index under its path.
        index: Url,
    },
    /// A page, as the caller said.
    Page(Url),
}

impl Target {
    /// Classifies a target by its URL alone; a path is told apart from a page later, by its
    /// answer.
    pub(crate) fn parse(target: &str, page: bool) -> Result<Self, ClientError> {
        let index = index_url(target)?;
        let mut url = Url::parse(target).map_err(|_| ClientError::BadTarget(target.to_owned()))?;
        url.set_fragment(None);
        Ok(if page {
            Self::Page(url)
        } else if index == url || url.path() == "/" {
            Self::Index(index)
        } else {
            Self::Path { url, index }
        })
    }
}

/// The well-known index of the origin of `url`.
pub(crate) fn well_known(url: &Url) -> Url {
    let mut index = url.clone();
    index.set_path(INDEX_PATH);
    index.set_query(None);
    index.set_fragment(None);
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    /// `target!(name, given, page flag => expected)`.
    macro_rules! target {
        ($name:ident, $given:expr, $page:expr => $expected:expr) => {
            #[test]
            fn $name() {
                assert_eq!(Target::parse($given, $page), $expected);
            }
        };
    }

    const INDEX: &str = "https://example.com/.well-known/agent-skills/index.json";

    target!(an_origin_is_its_well_known_index, "https://example.com", false
        => Ok(Target::Index(url(INDEX))));
    target!(an_origin_with_a_slash_too, "https://example.com/#top", false
        => Ok(Target::Index(url(INDEX))));
    target!(an_index_url_is_taken_as_is, "https://example.com/v1/skills.json", false
        => Ok(Target::Index(url("https://example.com/v1/skills.json"))));
    target!(a_path_is_a_prefix_or_a_page, "https://example.com/docs/", false
    => Ok(Target::Path {
        url: url("https://example.com/docs/"),
        index: url("https://example.com/docs/.well-known/agent-skills/index.json"),
    }));
    target!(the_page_flag_makes_any_url_a_page, "https://example.com/v1/skills.json", true
        => Ok(Target::Page(url("https://example.com/v1/skills.json"))));
    target!(an_origin_can_be_a_page_too, "https://example.com", true
        => Ok(Target::Page(url("https://example.com/"))));
    target!(a_bad_target_is_refused, "example.com/docs", true
        => Err(ClientError::BadTarget("example.com/docs".into())));

    #[test]
    fn the_well_known_index_is_at_the_root_of_the_origin() {
        assert_eq!(
            well_known(&url("https://example.com:8443/docs/a?x=1#y")).as_str(),
            "https://example.com:8443/.well-known/agent-skills/index.json"
        );
    }
}
