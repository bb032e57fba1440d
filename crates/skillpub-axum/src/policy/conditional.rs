//! `If-Match` and `If-None-Match` (RFC 9110, 13.1.1 and 13.1.2): `*` or a list of entity
//! tags, parsed strictly, and the order in which a `GET` or `HEAD` evaluates them.
//!
//! RFC 9110 evaluates each field in three steps: `*`; a list of entity tags; "otherwise".
//! A field that is neither `*` nor a well-formed list (a tag followed by garbage included)
//! falls to "otherwise", which is false for `If-Match` (the client gets `412` rather than an
//! answer it did not ask for) and true for `If-None-Match` (the full answer, never a `304` on
//! a list the server could not read).

use http::header::{GetAll, IF_MATCH, IF_NONE_MATCH};
use http::{HeaderMap, HeaderName, HeaderValue};

/// What the conditional headers of a `GET` or `HEAD` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Condition {
    /// Send the representation.
    Send,
    /// `If-None-Match` matched: `304`.
    NotModified,
    /// `If-Match` did not match: `412`.
    Failed,
}

impl Condition {
    /// Evaluates `If-Match`, then `If-None-Match`, against the entity tag of the
    /// representation that would be sent, in the order of RFC 9110, 13.2.2.
    pub(super) fn of(request: &HeaderMap, etag: &[u8]) -> Self {
        if !IfMatch::of(request).passes(etag) {
            Self::Failed
        } else if IfNoneMatch::of(request).matches(etag) {
            Self::NotModified
        } else {
            Self::Send
        }
    }
}

/// The `If-Match` field of a request.
struct IfMatch<'a>(Field<'a>);

impl<'a> IfMatch<'a> {
    fn of(request: &'a HeaderMap) -> Self {
        Self(Field::of(request, IF_MATCH))
    }

    /// Whether the request may proceed: the field is absent, `*`, or a list that names `etag`
    /// with the strong comparison (a weak tag never matches). A malformed field does not.
    fn passes(&self, etag: &[u8]) -> bool {
        match &self.0 {
            Field::Absent | Field::Any => true,
            Field::Lines(lines) => named(lines, etag).is_ok_and(|named| named.strong),
        }
    }
}

/// The `If-None-Match` field of a request.
struct IfNoneMatch<'a>(Field<'a>);

impl<'a> IfNoneMatch<'a> {
    fn of(request: &'a HeaderMap) -> Self {
        Self(Field::of(request, IF_NONE_MATCH))
    }

    /// Whether the field asks for a `304`: `*`, or a list that names `etag` with the weak
    /// comparison (`W/"x"` matches `"x"`). Absent or malformed: no.
    fn matches(&self, etag: &[u8]) -> bool {
        match &self.0 {
            Field::Absent => false,
            Field::Any => true,
            Field::Lines(lines) => named(lines, etag).is_ok_and(|named| named.weak),
        }
    }
}

/// A conditional field as sent, every line of it.
enum Field<'a> {
    /// Not sent.
    Absent,
    /// `*`, alone on the field's only line: any current representation.
    Any,
    /// Anything else: lines that hold a list of entity tags, unless they are malformed.
    Lines(GetAll<'a, HeaderValue>),
}

impl<'a> Field<'a> {
    fn of(request: &'a HeaderMap, name: HeaderName) -> Self {
        let lines = request.get_all(name);
        let mut iter = lines.iter();
        match (iter.next(), iter.next()) {
            (None, _) => Self::Absent,
            (Some(only), None) if only.as_bytes().trim_ascii() == b"*" => Self::Any,
            _ => Self::Lines(lines),
        }
    }
}

/// Whether a well-formed list names an entity tag, with the strong comparison (RFC 9110,
/// 8.8.3.2) and with the weak one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Named {
    strong: bool,
    weak: bool,
}

/// Reads the lines of a list in one pass: every tag is checked, also after a match, so that
/// a malformed element anywhere makes the whole field malformed.
fn named(lines: &GetAll<'_, HeaderValue>, etag: &[u8]) -> Result<Named, Malformed> {
    let mut named = Named {
        strong: false,
        weak: false,
    };
    for line in lines {
        for tag in List(line.as_bytes()) {
            let tag = tag?;
            if tag.opaque == etag {
                named.weak = true;
                named.strong |= !tag.weak;
            }
        }
    }
    Ok(named)
}

/// `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`, the quotes kept in `opaque`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EntityTag<'a> {
    weak: bool,
    opaque: &'a [u8],
}

/// A malformed list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Malformed;

/// The tags of one line, `#entity-tag`: separated by commas with optional whitespace,
/// empty elements skipped (RFC 9110, 5.6.1.2). After an error it yields nothing more.
struct List<'a>(&'a [u8]);

impl<'a> Iterator for List<'a> {
    type Item = Result<EntityTag<'a>, Malformed>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut rest = self.0.trim_ascii_start();
        while let Some(after) = rest.strip_prefix(b",") {
            rest = after.trim_ascii_start();
        }
        self.0 = b"";
        if rest.is_empty() {
            return None;
        }
        let (weak, tag) = match rest.strip_prefix(b"W/") {
            Some(after) => (true, after),
            None => (false, rest),
        };
        let Some(inner) = tag.strip_prefix(b"\"") else {
            return Some(Err(Malformed));
        };
        let Some(length) = inner.iter().position(|b| *b == b'"') else {
            return Some(Err(Malformed));
        };
        // etagc: `!`, `#` to `~`, and obs-text: no space, no control, no DEL (the quote ends
        // the tag). Checked without an early exit, which lets the compiler vectorize it.
        let etagc = inner[..length]
            .iter()
            .fold(true, |ok, b| ok & (*b > b' ') & (*b != 0x7f));
        if !etagc {
            return Some(Err(Malformed));
        }
        let (opaque, after) = tag.split_at(length + 2);
        let after = after.trim_ascii_start();
        if !(after.is_empty() || after.starts_with(b",")) {
            return Some(Err(Malformed));
        }
        self.0 = after;
        Some(Ok(EntityTag { weak, opaque }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ETAG: &str = "\"sha256:ab\"";

    fn request(name: HeaderName, lines: &[&str]) -> HeaderMap {
        let mut request = HeaderMap::new();
        for line in lines {
            request.append(&name, HeaderValue::from_str(line).unwrap());
        }
        request
    }

    /// One line per case: the field's lines, then whether `If-Match` passes and whether
    /// `If-None-Match` matches, for the entity tag `"sha256:ab"`.
    macro_rules! conditions {
        ($($name:ident: [$($line:expr),*] => if_match $holds:expr, if_none_match $matches:expr,)+) => {$(
            #[test]
            fn $name() {
                let lines = [$($line),*];
                let if_match = request(IF_MATCH, &lines);
                assert_eq!(
                    IfMatch::of(&if_match).passes(ETAG.as_bytes()),
                    $holds,
                    "If-Match: {lines:?}"
                );
                let if_none_match = request(IF_NONE_MATCH, &lines);
                assert_eq!(
                    IfNoneMatch::of(&if_none_match).matches(ETAG.as_bytes()),
                    $matches,
                    "If-None-Match: {lines:?}"
                );
            }
        )+};
    }

    conditions! {
        absent: [] => if_match true, if_none_match false,
        the_tag: ["\"sha256:ab\""] => if_match true, if_none_match true,
        the_tag_weak: ["W/\"sha256:ab\""] => if_match false, if_none_match true,
        another_tag: ["\"sha256:cd\""] => if_match false, if_none_match false,
        star: ["*"] => if_match true, if_none_match true,
        star_with_spaces: [" * "] => if_match true, if_none_match true,
        the_tag_in_a_list: ["\"x\", \"sha256:ab\""] => if_match true, if_none_match true,
        the_tag_on_a_second_line: ["\"x\"", "\"sha256:ab\""] => if_match true, if_none_match true,
        empty_elements_are_skipped: [", ,\"x\",,\t\"sha256:ab\" ,"] => if_match true, if_none_match true,
        an_empty_list_names_nothing: [""] => if_match false, if_none_match false,
        a_comma_inside_quotes_does_not_split_the_tag: ["\"sha256:ab,x\""] => if_match false, if_none_match false,
        a_star_inside_quotes_is_a_tag: ["\"*\""] => if_match false, if_none_match false,
        garbage_after_the_tag: ["\"sha256:ab\" garbage"] => if_match false, if_none_match false,
        garbage_before_the_tag: ["garbage, \"sha256:ab\""] => if_match false, if_none_match false,
        garbage_on_another_line: ["\"sha256:ab\"", "garbage"] => if_match false, if_none_match false,
        an_unquoted_tag: ["sha256:ab"] => if_match false, if_none_match false,
        an_unclosed_quote: ["\"sha256:ab"] => if_match false, if_none_match false,
        two_tags_without_a_comma: ["\"x\"\"sha256:ab\""] => if_match false, if_none_match false,
        a_space_inside_a_tag: ["\"sha256:ab\", \"a b\""] => if_match false, if_none_match false,
        a_lowercase_weak_prefix: ["w/\"sha256:ab\""] => if_match false, if_none_match false,
        star_in_a_list: ["*, \"sha256:ab\""] => if_match false, if_none_match false,
        star_on_two_lines: ["*", "*"] => if_match false, if_none_match false,
        star_beside_a_tag_line: ["*", "\"sha256:ab\""] => if_match false, if_none_match false,
        a_bare_word: ["garbage"] => if_match false, if_none_match false,
    }

    #[test]
    fn a_tag_is_read_with_its_quotes_and_weakness() {
        let tags: Vec<_> = List(b" W/\"a\" ,\"b!#~\" ").collect();
        assert_eq!(
            tags,
            [
                Ok(EntityTag {
                    weak: true,
                    opaque: b"\"a\""
                }),
                Ok(EntityTag {
                    weak: false,
                    opaque: b"\"b!#~\""
                }),
            ]
        );
        // An element with garbage after its tag is malformed as a whole, and ends the list.
        let malformed: Vec<_> = List(b"\"a\", \"b\" x, \"c\"").collect();
        assert_eq!(
            malformed,
            [
                Ok(EntityTag {
                    weak: false,
                    opaque: b"\"a\""
                }),
                Err(Malformed)
            ]
        );
    }
}
