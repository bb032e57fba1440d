//! `Accept-Encoding` (RFC 9110, 12.5.3): the content codings a request accepts, and in which
//! order the router tries them.

use std::cmp::Reverse;

use http::HeaderMap;
use http::header::ACCEPT_ENCODING;

use crate::coding::Coding;

/// A weight in thousandths: `q=0.5` is 500 (RFC 9110, 12.4.2: 0 to 1, three decimals at most).
type Weight = u16;

/// The weight of a coding that is listed without `q`.
const FULL: Weight = 1000;

/// The weight of `identity` when the field neither lists it nor has `*`: acceptable (RFC
/// 9110, 12.5.3), but after every coding the client listed, so that `gzip;q=0.5` gets gzip.
const IMPLICIT_IDENTITY: Weight = 1;

/// What a request's `Accept-Encoding` fields say about the codings the router can send.
/// Members that do not parse (an unknown parameter, `q=2`) are ignored, as are codings the
/// router does not make (`deflate`, `zstd`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AcceptEncoding {
    brotli: Option<Weight>,
    gzip: Option<Weight>,
    identity: Option<Weight>,
    any: Option<Weight>,
}

impl AcceptEncoding {
    /// Reads every `Accept-Encoding` field of a request; `None` when it has none.
    pub(crate) fn of(request: &HeaderMap) -> Option<Self> {
        let mut fields = request.get_all(ACCEPT_ENCODING).iter().peekable();
        fields.peek()?;
        let mut accept = Self::default();
        for field in fields {
            for member in field.as_bytes().split(|byte| *byte == b',') {
                if let Some((name, weight)) = member_of(member) {
                    accept.note(name, weight);
                }
            }
        }
        Some(accept)
    }

    /// Records one member; a coding listed twice keeps its highest weight.
    fn note(&mut self, name: Name, weight: Weight) {
        let slot = match name {
            Name::Coding(Coding::Brotli) => &mut self.brotli,
            Name::Coding(Coding::Gzip) => &mut self.gzip,
            Name::Coding(Coding::Identity) => &mut self.identity,
            Name::Any => &mut self.any,
        };
        *slot = Some(slot.map_or(weight, |old| old.max(weight)));
    }

    /// The weight of a coding: its own, else that of `*`, else 0 (not acceptable), except
    /// that `identity` stays acceptable unless refused.
    fn weight(&self, coding: Coding) -> Weight {
        let listed = match coding {
            Coding::Brotli => self.brotli,
            Coding::Gzip => self.gzip,
            Coding::Identity => self.identity,
        };
        match (listed, self.any, coding) {
            (Some(weight), _, _) | (None, Some(weight), _) => weight,
            (None, None, Coding::Identity) => IMPLICIT_IDENTITY,
            (None, None, _) => 0,
        }
    }

    /// The acceptable codings (weight above 0), the heaviest first; ties go to the server's
    /// order: brotli, gzip, identity (smallest bytes first).
    pub(crate) fn preferred(&self) -> impl Iterator<Item = Coding> + use<> {
        let mut ranked = [Coding::Brotli, Coding::Gzip, Coding::Identity]
            .map(|coding| (coding, self.weight(coding)));
        // A stable sort keeps the server's order among equal weights.
        ranked.sort_by_key(|(_, weight)| Reverse(*weight));
        ranked
            .into_iter()
            .filter(|(_, weight)| *weight > 0)
            .map(|(coding, _)| coding)
    }
}

/// The name of an `Accept-Encoding` member that the router acts on.
#[derive(Debug, Clone, Copy)]
enum Name {
    Coding(Coding),
    /// `*`: every coding not listed.
    Any,
}

/// One member, `coding [ OWS ";" OWS "q=" qvalue ]`, or `None` when it is empty, malformed
/// or names a coding the router does not make. Names are case-insensitive (RFC 9110, 8.4.1),
/// and `x-gzip` is `gzip` (8.4.1.3).
fn member_of(member: &[u8]) -> Option<(Name, Weight)> {
    let mut parts = member.split(|byte| *byte == b';');
    let name = parts.next()?.trim_ascii();
    let weight = match (parts.next(), parts.next()) {
        (None, _) => FULL,
        (Some(parameter), None) => weight_of(parameter.trim_ascii())?,
        (Some(_), Some(_)) => return None,
    };
    let name = if name == b"*" {
        Name::Any
    } else if name.eq_ignore_ascii_case(b"br") {
        Name::Coding(Coding::Brotli)
    } else if name.eq_ignore_ascii_case(b"gzip") || name.eq_ignore_ascii_case(b"x-gzip") {
        Name::Coding(Coding::Gzip)
    } else if name.eq_ignore_ascii_case(b"identity") {
        Name::Coding(Coding::Identity)
    } else {
        return None;
    };
    Some((name, weight))
}

/// `q=` followed by `0[.ddd]` or `1[.000]` (RFC 9110, 12.4.2), in thousandths.
fn weight_of(parameter: &[u8]) -> Option<Weight> {
    let value = parameter
        .strip_prefix(b"q=")
        .or_else(|| parameter.strip_prefix(b"Q="))?;
    let (units, decimals) = match value.split_first()? {
        (b'0', rest) => (0, rest),
        (b'1', rest) => (FULL, rest),
        _ => return None,
    };
    let decimals = match decimals.split_first() {
        None => &[][..],
        Some((b'.', digits)) if digits.len() <= 3 => digits,
        Some(_) => return None,
    };
    let mut fraction: Weight = 0;
    for (at, digit) in decimals.iter().enumerate() {
        if !digit.is_ascii_digit() || (units == FULL && *digit != b'0') {
            return None;
        }
        fraction += Weight::from(digit - b'0') * [100, 10, 1][at];
    }
    Some(units + fraction)
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;
    use crate::coding::Coding::{Brotli, Gzip, Identity};

    fn preferred(fields: &[&str]) -> Vec<Coding> {
        let mut request = HeaderMap::new();
        for field in fields {
            request.append(ACCEPT_ENCODING, HeaderValue::from_str(field).unwrap());
        }
        AcceptEncoding::of(&request).unwrap().preferred().collect()
    }

    /// One line per case: the `Accept-Encoding` fields, then the codings in the order the
    /// router tries them (an empty list: nothing is acceptable, the answer is `406`).
    macro_rules! negotiates {
        ($($name:ident: [$($field:expr),*] => [$($coding:expr),*],)+) => {$(
            #[test]
            fn $name() {
                let expected: Vec<Coding> = vec![$($coding),*];
                assert_eq!(preferred(&[$($field),*]), expected);
            }
        )+};
    }

    negotiates! {
        a_browser_gets_brotli_first: ["gzip, deflate, br, zstd"] => [Brotli, Gzip, Identity],
        node_fetch_gets_brotli_first: ["gzip, deflate, br"] => [Brotli, Gzip, Identity],
        gzip_alone_is_gzip: ["gzip"] => [Gzip, Identity],
        brotli_alone_is_brotli: ["br"] => [Brotli, Identity],
        equal_weights_follow_the_server_order: ["gzip, br"] => [Brotli, Gzip, Identity],
        a_higher_weight_wins: ["br;q=0.5, gzip"] => [Gzip, Brotli, Identity],
        weights_order_every_coding: ["br;q=0.2, gzip;q=0.3, identity;q=0.4"] => [Identity, Gzip, Brotli],
        q_zero_excludes_a_coding: ["br;q=0, gzip"] => [Gzip, Identity],
        identity_q_zero_refuses_plain_bytes: ["identity;q=0, gzip"] => [Gzip],
        identity_q_zero_alone_accepts_nothing: ["identity;q=0"] => [],
        star_accepts_every_coding: ["*"] => [Brotli, Gzip, Identity],
        star_gives_its_weight_to_unlisted_codings: ["gzip;q=0.5, *;q=0.6"] => [Brotli, Identity, Gzip],
        a_listed_coding_beats_a_lighter_star: ["gzip;q=0.5, *;q=0.4"] => [Gzip, Brotli, Identity],
        star_q_zero_refuses_identity_too: ["*;q=0"] => [],
        star_q_zero_with_identity_listed: ["*;q=0, identity"] => [Identity],
        star_q_zero_keeps_listed_codings: ["gzip, *;q=0"] => [Gzip],
        an_empty_field_asks_for_identity: [""] => [Identity],
        identity_alone_is_identity: ["identity"] => [Identity],
        unknown_codings_leave_identity: ["deflate, zstd"] => [Identity],
        names_are_case_insensitive: ["GZIP;Q=0.5, Br"] => [Brotli, Gzip, Identity],
        x_gzip_is_gzip: ["x-gzip"] => [Gzip, Identity],
        whitespace_around_members_and_weights: [" gzip ; q=0.8 ,\tbr ;\tq=0.9 "] => [Brotli, Gzip, Identity],
        empty_members_are_skipped: [",, gzip ,,"] => [Gzip, Identity],
        fields_on_several_lines_are_one_list: ["gzip;q=0.2", "br;q=0.1"] => [Gzip, Brotli, Identity],
        a_coding_listed_twice_keeps_its_highest_weight: ["gzip;q=0, gzip;q=0.3"] => [Gzip, Identity],
        three_decimals_are_allowed: ["gzip;q=0.001"] => [Gzip, Identity],
        one_with_zero_decimals_is_full: ["gzip;q=0.999, br;q=1.000"] => [Brotli, Gzip, Identity],
        four_decimals_ignore_the_member: ["gzip;q=0.0001"] => [Identity],
        a_weight_above_one_ignores_the_member: ["gzip;q=1.001, br;q=2"] => [Identity],
        an_empty_weight_ignores_the_member: ["gzip;q="] => [Identity],
        a_negative_weight_ignores_the_member: ["gzip;q=-1"] => [Identity],
        another_parameter_ignores_the_member: ["gzip;level=9, br;q=1;x=y"] => [Identity],
        a_weight_without_a_dot_ignores_the_member: ["gzip;q=05"] => [Identity],
    }

    #[test]
    fn no_field_is_not_an_empty_field() {
        assert_eq!(AcceptEncoding::of(&HeaderMap::new()), None);
    }
}
