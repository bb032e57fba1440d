//! The private policy: what every answer of a private view (a catalog served to callers that
//! presented credentials) must say, so that no cache hands one caller's answer to another.
//!
//! With credentials sent, or with [`CheckOptions::private`](crate::CheckOptions::private),
//! every answer the run gets from the private view is judged, whatever its status (200, 304,
//! 404, 401...):
//!
//! - `private.public`: its `Cache-Control` never says `public` or `s-maxage`, which let a
//!   shared cache store an answer to a request with `Authorization` and hand it to the next
//!   caller (RFC 9111 3.5);
//! - `private.cache-control`: it says `private` or `no-store` (judged on the answers that
//!   do not say `public`, which have their own line);
//! - `private.vary`: its `Vary` names each credential header sent (`Authorization` when none
//!   was, as with the private switch alone), and `Origin` when its
//!   `Access-Control-Allow-Origin` names an origin, or is `*`;
//! - `private.cors`: it never pairs `Access-Control-Allow-Origin: *` with
//!   `Access-Control-Allow-Credentials: true`, which browsers refuse (Fetch standard, CORS
//!   check): a credentialed answer names the one origin it allows, and only an origin of its
//!   allow-list. The run sends a `GET` and a preflight (`OPTIONS`) of the index from
//!   [`PROBE_ORIGIN`], which no allow-list holds: an answer that allows it with credentials
//!   allows every origin to read the caller's catalog.
//!
//! Each is one line for the whole run: `ok` with the number of answers judged, or a failure
//! with how many broke it and the first few of them.

use std::sync::{Mutex, PoisonError};

use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_ORIGIN, AUTHORIZATION, CACHE_CONTROL,
    VARY,
};
use http::{HeaderMap, Method};
use skillpub_client::Fetched;
use skillpub_client::credentials::Credentials;
use url::{Origin, Url};

use crate::report::Lines;
use crate::table::{CheckKind, Finding};

/// The `Origin` of the run's CORS probes: a reserved name (RFC 6761, `.invalid`) that no
/// allow-list holds, so an answer that allows it with credentials allows any origin.
pub(crate) const PROBE_ORIGIN: &str = "https://skillpub-check.invalid";

/// How many answers a failing line names (each once); the count says how many there are.
const SHOWN: usize = 3;

/// The checks of the private policy, in the order of their lines.
const KINDS: [CheckKind; 4] = [
    CheckKind::PrivatePublic,
    CheckKind::PrivateCacheControl,
    CheckKind::PrivateVary,
    CheckKind::PrivateCors,
];

/// What the private view must say, and what it said so far.
pub(crate) struct Private {
    /// The origin of the private view: the credentials', or the target's.
    origin: Origin,
    /// Whether credentials are sent: then only the answers to requests that carried them are
    /// judged (the rest are the public view's).
    credentialed: bool,
    /// The headers `Vary` must name, lowercase.
    vary: Vec<String>,
    /// How many answers were judged, and each problem as (kind, what was seen).
    seen: Mutex<(usize, Vec<(CheckKind, String)>)>,
}

impl Private {
    /// The expectation of a run: with credentials, their origin and names; without, the
    /// target's origin and `Authorization`, when `expected`; otherwise none.
    pub(crate) fn of(
        credentials: Option<&Credentials>,
        target: &str,
        expected: bool,
    ) -> Option<Self> {
        let (origin, vary) = match credentials {
            Some(credentials) if !credentials.is_empty() => {
                let site = Url::parse(&credentials.origin()).ok()?;
                let names = credentials.names().map(|name| name.as_str().to_owned());
                (site.origin(), names.collect())
            }
            _ if expected => {
                let site = Url::parse(target).ok()?;
                (site.origin(), vec![AUTHORIZATION.as_str().to_owned()])
            }
            _ => return None,
        };
        Some(Self {
            origin,
            credentialed: credentials.is_some_and(|credentials| !credentials.is_empty()),
            vary,
            seen: Mutex::new((0, Vec::new())),
        })
    }

    /// Judges one answer, when it is the private view's.
    pub(crate) fn observe(&self, method: &Method, answer: &Fetched) {
        let ours = if self.credentialed {
            answer.credentialed
        } else {
            answer.url.origin() == self.origin
        };
        if !ours {
            return;
        }
        let request = format!("{method} {} {}", answer.url, answer.status);
        let problems = judge(&answer.headers, &self.vary);
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.0 += 1;
        for (kind, shown) in problems {
            seen.1.push((kind, format!("{request} ({shown})")));
        }
    }

    /// One line per check of the policy, once the run is over; none when no answer was the
    /// private view's.
    pub(crate) fn lines(&self, out: &mut Lines) {
        let (total, problems) = &*self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let total = *total;
        if total == 0 {
            return;
        }
        let names = self.vary.join(", ");
        let public = problems
            .iter()
            .filter(|(kind, _)| *kind == CheckKind::PrivatePublic)
            .count();
        for kind in KINDS {
            let mut seen: Vec<&str> = problems
                .iter()
                .filter(|(of, _)| *of == kind)
                .map(|(_, shown)| shown.as_str())
                .collect();
            let count = seen.len();
            seen.sort_unstable();
            seen.dedup();
            let examples = seen[..seen.len().min(SHOWN)].join("; ");
            let finding = match (kind, count) {
                (CheckKind::PrivatePublic, 0) => Finding::never_public(kind, total),
                (CheckKind::PrivatePublic, _) => {
                    Finding::served_public(kind, count, total, &examples)
                }
                // An answer that says `public` has its line above, not this one too.
                (CheckKind::PrivateCacheControl, _) if public == total => continue,
                (CheckKind::PrivateCacheControl, 0) if public > 0 => {
                    Finding::others_private(kind, total - public)
                }
                (CheckKind::PrivateCacheControl, 0) => Finding::kept_private(kind, total),
                (CheckKind::PrivateCacheControl, _) => {
                    Finding::not_private(kind, count, total - public, &examples)
                }
                (CheckKind::PrivateVary, 0) => Finding::varies_on(kind, total, &names),
                (CheckKind::PrivateVary, _) => {
                    Finding::no_vary(kind, count, total, &names, &examples)
                }
                (_, 0) => Finding::credentialed_cors(kind, total),
                (_, _) => Finding::wildcard_credentials(kind, count, total, &examples),
            };
            out.push("site", finding);
        }
    }
}

/// The values of a header, joined as one list (RFC 9110 5.3), or `absent`.
fn shown(headers: &HeaderMap, name: &http::HeaderName) -> String {
    let values: Vec<&str> = headers
        .get_all(name)
        .iter()
        .map(|value| value.to_str().unwrap_or("?"))
        .collect();
    if values.is_empty() {
        "absent".to_owned()
    } else {
        values.join(", ")
    }
}

/// The members of a list header, lowercase, each with whether it has an argument
/// (`max-age=60`, `private="Set-Cookie"`).
fn members(headers: &HeaderMap, name: &http::HeaderName) -> Vec<(String, bool)> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|member| match member.split_once('=') {
            Some((name, _)) => (name.trim().to_ascii_lowercase(), true),
            None => (member.trim().to_ascii_lowercase(), false),
        })
        .filter(|(member, _)| !member.is_empty())
        .collect()
}

/// What is wrong with one answer of the private view: (kind, the header as seen).
fn judge(headers: &HeaderMap, vary: &[String]) -> Vec<(CheckKind, String)> {
    let mut problems = Vec::new();
    let directives = members(headers, &CACHE_CONTROL);
    let has = |directive: &str| directives.iter().any(|(seen, _)| seen == directive);
    // `private="Set-Cookie"` keeps only the fields it names from shared caches (RFC 9111
    // 5.2.2.7): the rest of the answer may be stored for everyone.
    let whole = |directive: &str| {
        directives
            .iter()
            .any(|(seen, argument)| seen == directive && !argument)
    };
    let cache_control = || format!("Cache-Control: {}", shown(headers, &CACHE_CONTROL));
    if has("public") || has("s-maxage") {
        problems.push((CheckKind::PrivatePublic, cache_control()));
    } else if !whole("private") && !whole("no-store") {
        problems.push((CheckKind::PrivateCacheControl, cache_control()));
    }
    let varies: Vec<String> = members(headers, &VARY)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let wildcard = varies.iter().any(|name| name == "*");
    let origin = headers
        .get(ACCESS_CONTROL_ALLOW_ORIGIN)
        .map(|v| v.as_bytes());
    // An answer that names one origin depends on the request's `Origin` (Fetch standard,
    // CORS protocol and HTTP caches): a cache must not hand it to another origin.
    let per_origin = origin.is_some_and(|origin| origin != b"*");
    let missing = vary
        .iter()
        .map(String::as_str)
        .chain(per_origin.then_some("origin"))
        .any(|name| !wildcard && !varies.iter().any(|seen| seen == name));
    if missing {
        let mut seen = format!("Vary: {}", shown(headers, &VARY));
        if per_origin {
            seen.push_str(", with Access-Control-Allow-Origin naming an origin");
        }
        problems.push((CheckKind::PrivateVary, seen));
    }
    let credentials = headers
        .get(ACCESS_CONTROL_ALLOW_CREDENTIALS)
        .map(|v| v.as_bytes());
    if credentials == Some(b"true") {
        if origin == Some(b"*") {
            let seen = "Access-Control-Allow-Origin: *, Access-Control-Allow-Credentials: true";
            problems.push((CheckKind::PrivateCors, seen.to_owned()));
        } else if origin == Some(PROBE_ORIGIN.as_bytes()) {
            let seen = format!(
                "Access-Control-Allow-Origin: {PROBE_ORIGIN}, an origin no allow-list holds, with Access-Control-Allow-Credentials: true"
            );
            problems.push((CheckKind::PrivateCors, seen));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;
    use crate::outcome::Status;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    /// The lines of a private view (credentials for `https://example.com`) that gave these
    /// answers, as (code, status, message).
    fn lines_of(
        answers: &[&[(&'static str, &'static str)]],
    ) -> Vec<(&'static str, Status, String)> {
        let site = Url::parse("https://example.com").unwrap();
        let token = skillpub_client::credentials::BearerToken::new("t").unwrap();
        let credentials = Credentials::new(&site).unwrap().with_bearer(&token);
        let private = Private::of(Some(&credentials), site.as_str(), false).unwrap();
        for (at, answer) in answers.iter().enumerate() {
            let fetched = Fetched {
                url: site.join(&format!("/{at}")).unwrap(),
                status: http::StatusCode::OK,
                headers: headers(answer),
                body: Vec::new(),
                encoded_digest: None,
                credentialed: true,
            };
            private.observe(&Method::GET, &fetched);
        }
        let uncredentialed = Fetched {
            url: site.join("/elsewhere").unwrap(),
            status: http::StatusCode::OK,
            headers: headers(&[("cache-control", "public")]),
            body: Vec::new(),
            encoded_digest: None,
            credentialed: false,
        };
        private.observe(&Method::GET, &uncredentialed);
        let mut out = Lines::default();
        private.lines(&mut out);
        out.0
            .into_iter()
            .map(|check| (check.kind.code(), check.status, check.message))
            .collect()
    }

    #[test]
    fn each_answer_counts_once_and_public_ones_are_not_judged_twice() {
        let lines = lines_of(&[
            &[("cache-control", "public"), ("vary", "Authorization")],
            &[("cache-control", "max-age=60"), ("vary", "Authorization")],
            &[("cache-control", "private"), ("vary", "Authorization")],
        ]);
        let shown: Vec<(&str, Status)> = lines
            .iter()
            .map(|(code, status, _)| (*code, *status))
            .collect();
        assert_eq!(
            shown,
            [
                ("private.public", Status::Fail),
                ("private.cache-control", Status::Fail),
                ("private.vary", Status::Ok),
                ("private.cors", Status::Ok),
            ]
        );
        assert!(
            lines[0]
                .2
                .starts_with("1 of 3 answers of the private view say `public`"),
            "{}",
            lines[0].2
        );
        assert!(
            lines[0]
                .2
                .ends_with("GET https://example.com/0 200 OK (Cache-Control: public)"),
            "{}",
            lines[0].2
        );
        assert!(
            lines[1]
                .2
                .starts_with("1 of the 2 answers of the private view that do not say `public`"),
            "{}",
            lines[1].2
        );
        assert_eq!(
            lines[2].2,
            "all 3 answers of the private view name authorization in Vary"
        );
        let all_public = lines_of(&[&[("cache-control", "public"), ("vary", "Authorization")]]);
        let codes: Vec<&str> = all_public.iter().map(|(code, _, _)| *code).collect();
        assert_eq!(codes, ["private.public", "private.vary", "private.cors"]);
        assert!(lines_of(&[]).is_empty());
    }

    /// `judged!(name, [headers] => [kinds])`: one answer of the private view, with
    /// `Vary` required to name `Authorization`.
    macro_rules! judged {
        ($name:ident, [$($header:expr),*] => [$($kind:ident),*]) => {
            #[test]
            fn $name() {
                let vary = ["authorization".to_owned()];
                let kinds: Vec<CheckKind> =
                    judge(&headers(&[$($header),*]), &vary).into_iter().map(|(k, _)| k).collect();
                let expected: Vec<CheckKind> = vec![$(CheckKind::$kind),*];
                assert_eq!(kinds, expected);
            }
        };
    }

    judged!(the_contract_passes, [("cache-control", "private, no-cache, no-transform"), ("vary", "Accept-Encoding, Authorization, Cookie")] => []);
    judged!(no_store_is_private_enough, [("cache-control", "no-store"), ("vary", "authorization")] => []);
    judged!(vary_star_names_everything, [("cache-control", "private"), ("vary", "*")] => []);
    judged!(vary_over_two_fields_counts, [("cache-control", "private"), ("vary", "Accept-Encoding"), ("vary", "Authorization")] => []);
    judged!(public_fails_as_its_own_code, [("cache-control", "public, max-age=300"), ("vary", "Authorization")] => [PrivatePublic]);
    judged!(s_maxage_is_public_too, [("cache-control", "private, s-maxage=60"), ("vary", "Authorization")] => [PrivatePublic]);
    judged!(no_cache_control_is_not_private, [("vary", "Authorization")] => [PrivateCacheControl]);
    judged!(max_age_alone_is_not_private, [("cache-control", "max-age=60"), ("vary", "Authorization")] => [PrivateCacheControl]);
    judged!(private_naming_fields_keeps_the_rest_shared, [("cache-control", "private=\"Set-Cookie, Authorization\", max-age=60"), ("vary", "Authorization")] => [PrivateCacheControl]);
    judged!(a_directive_named_like_private_is_not_private, [("cache-control", "private-ish"), ("vary", "Authorization")] => [PrivateCacheControl]);
    judged!(vary_without_the_credential_header_fails, [("cache-control", "private"), ("vary", "Accept-Encoding, Cookie")] => [PrivateVary]);
    judged!(no_vary_fails, [("cache-control", "private")] => [PrivateVary]);
    judged!(wildcard_with_credentials_fails, [("cache-control", "private"), ("vary", "Authorization, Origin"), ("access-control-allow-origin", "*"), ("access-control-allow-credentials", "true")] => [PrivateCors]);
    judged!(wildcard_without_credentials_passes, [("cache-control", "private"), ("vary", "Authorization"), ("access-control-allow-origin", "*")] => []);
    judged!(an_answer_for_one_origin_must_vary_on_origin, [("cache-control", "private"), ("vary", "Authorization"), ("access-control-allow-origin", "https://app.example.com")] => [PrivateVary]);
    judged!(a_listed_origin_with_credentials_passes, [("cache-control", "private"), ("vary", "Authorization, Origin"), ("access-control-allow-origin", "https://app.example.com"), ("access-control-allow-credentials", "true")] => []);
    judged!(reflecting_any_origin_with_credentials_fails, [("cache-control", "private"), ("vary", "Authorization, Origin"), ("access-control-allow-origin", PROBE_ORIGIN), ("access-control-allow-credentials", "true")] => [PrivateCors]);
    judged!(everything_wrong_is_three_lines, [("cache-control", "public"), ("access-control-allow-origin", "*"), ("access-control-allow-credentials", "true")] => [PrivatePublic, PrivateVary, PrivateCors]);
}
