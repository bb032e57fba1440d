//! Reading a page's `Link` header fields (RFC 8288) for `rel="agent-skills"`, the convention
//! skillpub's `AgentSkillsLinkLayer` follows:
//! `Link: </.well-known/agent-skills/index.json>; rel="agent-skills"; type="application/json"`.
//!
//! The grammar is RFC 8288, section 3, with RFC 9110's list and token rules:
//!
//! ```text
//! Link       = #link-value                      ; commas between links, empty elements allowed
//! link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
//! link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
//! ```
//!
//! Several links may share a field and several fields may be sent; each field is parsed on its
//! own, so one malformed field does not hide the links of another. Parameter names are
//! compared without case; only the first `rel` of a link counts (RFC 8288, 3.3), and its value
//! is a space-separated list of relation types, also compared without case. Targets are
//! resolved against the URL of the page that sent them (RFC 3986, section 5).

use std::fmt;

use http::HeaderMap;
use http::header::LINK;
use url::Url;

/// The relation type that names an Agent Skills index.
pub(crate) const AGENT_SKILLS_REL: &str = "agent-skills";

/// What a page's `Link` fields say about its skills index.
#[derive(Debug, Default)]
pub(crate) struct Advertised {
    /// The distinct targets of the links with `rel` `agent-skills`, resolved, in field order.
    pub(crate) targets: Vec<Url>,
    /// The targets of such links that do not resolve, with why.
    pub(crate) unresolvable: Vec<(String, url::ParseError)>,
    /// The fields that do not parse.
    pub(crate) malformed: Vec<Malformed>,
}

impl Advertised {
    /// Reads every `Link` field of an answer from `base` (its URL after redirects).
    pub(crate) fn read(headers: &HeaderMap, base: &Url) -> Self {
        let mut advertised = Self::default();
        for field in headers.get_all(LINK) {
            let field = field.as_bytes();
            let links = match parse(field) {
                Ok(links) => links,
                Err(malformed) => {
                    advertised.malformed.push(malformed);
                    continue;
                }
            };
            for link in links.iter().filter(|link| link.has_rel(AGENT_SKILLS_REL)) {
                match base.join(&link.target) {
                    Ok(target) if !advertised.targets.contains(&target) => {
                        advertised.targets.push(target);
                    }
                    Ok(_) => {}
                    Err(error) => advertised.unresolvable.push((link.target.clone(), error)),
                }
            }
        }
        advertised
    }

    /// Whether the fields name an index, or may: a link with `rel` `agent-skills`, or a
    /// malformed field that mentions `agent-skills`.
    pub(crate) fn names_an_index(&self) -> bool {
        !self.targets.is_empty()
            || !self.unresolvable.is_empty()
            || self.malformed.iter().any(Malformed::mentions_agent_skills)
    }
}

/// One link of a field: its target as written, and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    /// The URI reference between `<` and `>`.
    pub(crate) target: String,
    /// Each parameter: its name lowercased, its value unquoted (`None` for a bare name).
    pub(crate) params: Vec<(String, Option<String>)>,
}

impl Link {
    /// The relation types of the first `rel` parameter; later ones are ignored, as RFC 8288
    /// says.
    pub(crate) fn rels(&self) -> impl Iterator<Item = &str> {
        self.params
            .iter()
            .find(|(name, _)| name == "rel")
            .and_then(|(_, value)| value.as_deref())
            .into_iter()
            .flat_map(|value| value.split_ascii_whitespace())
    }

    /// Whether `rel` lists `relation`, compared without case.
    pub(crate) fn has_rel(&self, relation: &str) -> bool {
        self.rels().any(|rel| rel.eq_ignore_ascii_case(relation))
    }
}

/// A `Link` field that does not parse: the field, where it goes wrong and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed {
    /// The field as sent (bytes that are not UTF-8 replaced).
    pub(crate) field: String,
    /// The byte offset of the problem.
    pub(crate) at: usize,
    /// What the grammar expects there.
    pub(crate) expected: &'static str,
}

impl Malformed {
    /// Whether the field mentions `agent-skills`, so that it may have been meant to name an
    /// index.
    pub(crate) fn mentions_agent_skills(&self) -> bool {
        self.field.to_ascii_lowercase().contains(AGENT_SKILLS_REL)
    }
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`Link: {}` does not parse (RFC 8288): {} at byte {}",
            self.field, self.expected, self.at
        )
    }
}

/// Parses one `Link` field into its links.
pub(crate) fn parse(field: &[u8]) -> Result<Vec<Link>, Malformed> {
    let mut parser = Parser { field, at: 0 };
    let mut links = Vec::new();
    loop {
        parser.skip(|b| is_ows(b) || b == b',');
        if parser.done() {
            return Ok(links);
        }
        links.push(parser.link_value()?);
    }
}

struct Parser<'a> {
    field: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn done(&self) -> bool {
        self.at >= self.field.len()
    }

    fn peek(&self) -> Option<u8> {
        self.field.get(self.at).copied()
    }

    fn skip(&mut self, what: impl Fn(u8) -> bool) {
        while self.peek().is_some_and(&what) {
            self.at += 1;
        }
    }

    fn fail<T>(&self, expected: &'static str) -> Result<T, Malformed> {
        Err(Malformed {
            field: String::from_utf8_lossy(self.field).into_owned(),
            at: self.at,
            expected,
        })
    }

    /// `"<" URI-Reference ">" *( OWS ";" OWS link-param )`, up to the `,` or the end.
    fn link_value(&mut self) -> Result<Link, Malformed> {
        if self.peek() != Some(b'<') {
            return self.fail("expected `<` to open a link target");
        }
        self.at += 1;
        let start = self.at;
        self.skip(|b| b != b'>' && is_uri_char(b));
        if self.peek() != Some(b'>') {
            return self.fail("expected `>` to close the link target (URI characters only)");
        }
        let target = String::from_utf8_lossy(&self.field[start..self.at]).into_owned();
        self.at += 1;
        let mut params = Vec::new();
        loop {
            self.skip(is_ows);
            match self.peek() {
                None => break,
                Some(b',') => {
                    self.at += 1;
                    break;
                }
                Some(b';') => {
                    self.at += 1;
                    self.skip(is_ows);
                    params.push(self.link_param()?);
                }
                Some(_) => {
                    return self.fail("expected `;` before a parameter or `,` between links");
                }
            }
        }
        Ok(Link { target, params })
    }

    /// `token BWS [ "=" BWS ( token / quoted-string ) ]`.
    fn link_param(&mut self) -> Result<(String, Option<String>), Malformed> {
        let name = self.token();
        if name.is_empty() {
            return self.fail("expected a parameter name");
        }
        let name = name.to_ascii_lowercase();
        self.skip(is_ows);
        if self.peek() != Some(b'=') {
            return Ok((name, None));
        }
        self.at += 1;
        self.skip(is_ows);
        if self.peek() == Some(b'"') {
            return Ok((name, Some(self.quoted_string()?)));
        }
        let value = self.token();
        if value.is_empty() {
            return self.fail("expected a token or a quoted string after `=`");
        }
        Ok((name, Some(value)))
    }

    fn token(&mut self) -> String {
        let start = self.at;
        self.skip(is_tchar);
        String::from_utf8_lossy(&self.field[start..self.at]).into_owned()
    }

    /// `DQUOTE *( qdtext / quoted-pair ) DQUOTE`, unescaped.
    fn quoted_string(&mut self) -> Result<String, Malformed> {
        self.at += 1;
        let mut value = Vec::new();
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(String::from_utf8_lossy(&value).into_owned());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.peek() {
                        Some(b) if is_qdtext(b) || b == b'"' || b == b'\\' => value.push(b),
                        _ => return self.fail("expected a character after `\\`"),
                    }
                }
                Some(b) if is_qdtext(b) => value.push(b),
                _ => return self.fail("expected `\"` to close the quoted string"),
            }
            self.at += 1;
        }
    }
}

/// Optional white space: space or horizontal tab.
fn is_ows(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A token character (RFC 9110, 5.6.2).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A character of a quoted string other than `"` and `\` (RFC 9110, 5.6.4), tab, space and
/// bytes beyond ASCII included.
fn is_qdtext(b: u8) -> bool {
    b == b'\t' || b == b' ' || ((0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\') || b >= 0x80
}

/// A character that may appear in a URI reference (RFC 3986): visible ASCII other than
/// `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|` and `}`.
fn is_uri_char(b: u8) -> bool {
    (0x21..=0x7e).contains(&b) && !b"\"<>\\^`{|}".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `links!(name, field => [(target, [rels]), ...])`: the field parses into links with
    /// these targets and relation types.
    macro_rules! links {
        ($name:ident, $field:expr => [$(($target:expr, [$($rel:expr),*])),*]) => {
            #[test]
            fn $name() {
                let links = parse($field.as_bytes()).unwrap();
                let seen: Vec<(&str, Vec<&str>)> = links
                    .iter()
                    .map(|link| (link.target.as_str(), link.rels().collect()))
                    .collect();
                let expected: Vec<(&str, Vec<&str>)> = vec![$(($target, vec![$($rel),*])),*];
                assert_eq!(seen, expected, "{}", $field);
            }
        };
    }

    /// `malformed!(name, field, at, expected)`: the field fails at this byte.
    macro_rules! malformed {
        ($name:ident, $field:expr, $at:expr, $expected:expr) => {
            #[test]
            fn $name() {
                let error = parse($field.as_bytes()).unwrap_err();
                assert_eq!((error.at, error.expected), ($at, $expected), "{}", $field);
            }
        };
    }

    links!(what_skillpub_sends,
        r#"</.well-known/agent-skills/index.json>; rel="agent-skills"; type="application/json""#
        => [("/.well-known/agent-skills/index.json", ["agent-skills"])]);
    links!(an_unquoted_rel, "</i.json>;rel=agent-skills" => [("/i.json", ["agent-skills"])]);
    links!(several_links_in_one_field,
        r#"</style.css>; rel=preload; as=style, <https://cdn.example.com/i.json>; rel="agent-skills""#
        => [("/style.css", ["preload"]), ("https://cdn.example.com/i.json", ["agent-skills"])]);
    links!(a_rel_list, r#"<i.json>; rel="describedby  Agent-Skills""#
        => [("i.json", ["describedby", "Agent-Skills"])]);
    links!(only_the_first_rel_counts, "<a>; rel=next; rel=agent-skills" => [("a", ["next"])]);
    links!(upper_case_parameter_names, "<a>; REL=agent-skills" => [("a", ["agent-skills"])]);
    links!(white_space_around_equals_and_empty_elements,
        " , <a> ;  rel = \"agent-skills\" ,, <b>\t;\ttitle*=UTF-8'de'n%c3%a4chstes ,"
        => [("a", ["agent-skills"]), ("b", [])]);
    links!(escapes_in_a_quoted_string, r#"<a>; title="say \"hi\"; then, go"; rel=x"#
        => [("a", ["x"])]);
    links!(a_bare_parameter, "<a>; crossorigin; rel=x" => [("a", ["x"])]);
    links!(an_empty_field, "" => []);

    malformed!(
        no_angle_brackets,
        "/index.json; rel=agent-skills",
        0,
        "expected `<` to open a link target"
    );
    malformed!(
        an_unclosed_target,
        r#"</index.json; rel="agent-skills""#,
        13,
        "expected `>` to close the link target (URI characters only)"
    );
    malformed!(
        a_space_in_the_target,
        "</a b>; rel=x",
        3,
        "expected `>` to close the link target (URI characters only)"
    );
    malformed!(
        a_missing_semicolon,
        "<a> rel=x",
        4,
        "expected `;` before a parameter or `,` between links"
    );
    malformed!(
        an_unclosed_quote,
        r#"<a>; rel="agent-skills"#,
        22,
        "expected `\"` to close the quoted string"
    );
    malformed!(
        a_parameter_without_a_name,
        "<a>; =x",
        5,
        "expected a parameter name"
    );
    malformed!(a_trailing_semicolon, "<a>;", 4, "expected a parameter name");
    malformed!(
        an_empty_value,
        "<a>; rel=",
        9,
        "expected a token or a quoted string after `=`"
    );

    #[test]
    fn targets_resolve_against_the_page_and_fields_are_read_one_by_one() {
        let mut headers = HeaderMap::new();
        for field in [
            "</broken; rel=agent-skills",
            r#"<../.well-known/agent-skills/index.json>; rel="agent-skills", </style.css>; rel=preload"#,
            "</.well-known/agent-skills/index.json>; rel=AGENT-SKILLS",
            "<http://[::1>; rel=agent-skills",
        ] {
            headers.append(LINK, field.parse().unwrap());
        }
        let base = Url::parse("https://example.com/docs/page").unwrap();
        let advertised = Advertised::read(&headers, &base);
        let targets: Vec<&str> = advertised.targets.iter().map(Url::as_str).collect();
        assert_eq!(
            targets,
            ["https://example.com/.well-known/agent-skills/index.json"],
            "the same index twice is one target"
        );
        assert_eq!(advertised.malformed.len(), 1);
        assert!(advertised.malformed[0].mentions_agent_skills());
        assert_eq!(advertised.unresolvable.len(), 1);
        assert!(advertised.names_an_index());
    }

    #[test]
    fn links_of_other_relations_name_no_index() {
        let mut headers = HeaderMap::new();
        headers.append(LINK, "</style.css>; rel=preload".parse().unwrap());
        headers.append(LINK, "</a.css; rel=stylesheet".parse().unwrap());
        let base = Url::parse("https://example.com/docs").unwrap();
        let advertised = Advertised::read(&headers, &base);
        assert!(!advertised.names_an_index());
        assert_eq!(advertised.malformed.len(), 1);
        assert!(
            Advertised::read(&HeaderMap::new(), &base)
                .targets
                .is_empty()
        );
    }
}
