//! A target with a path, told apart by its answer (a page with a `Link`, or a path prefix), and
//! for a page, its `Link` with `rel="agent-skills"` against its origin's well-known index.
//!
//! The discovery draft makes `/.well-known/agent-skills/index.json` the place publishers MUST
//! serve and clients read; the `Link` header is a convention outside it, which some agents and
//! scanners read and neither the draft nor the aiSiteReady scanner does. So when both lead to
//! an index, the well-known one is what clients use, and a `Link` that names another is a
//! warning; when only the `Link` leads to one (skills nested under a prefix), that index is
//! checked, with a warning that clients which only read the well-known path find nothing.

use http::{Method, StatusCode};
use serde_json::Value;
use skillpub_client::{FetchError, Fetched, Transport};
use skillpub_core::paths::INDEX_PATH;
use url::Url;

use crate::link::Advertised;
use crate::report::Lines;
use crate::run::{CODED, Run, Scanners};
use crate::table::{CheckKind, Finding};
use crate::target::well_known;

/// Whether an answer is an index a client would read: `200` with a JSON object.
fn is_index(answer: &Result<Fetched, FetchError>) -> bool {
    answer.as_ref().is_ok_and(|answer| {
        answer.status == StatusCode::OK
            && serde_json::from_slice::<Value>(&answer.body).is_ok_and(|json| json.is_object())
    })
}

/// What an answer that is not an index is, in a few words.
fn describe(answer: &Result<Fetched, FetchError>) -> String {
    match answer {
        Ok(answer) if answer.status == StatusCode::OK => {
            let shown = answer.header("content-type").unwrap_or("no Content-Type");
            format!("answers 200 with {shown}, not a JSON object")
        }
        Ok(answer) => format!("answers {}", answer.status),
        Err(error) => format!("cannot be fetched ({error})"),
    }
}

/// The URL a client is given to find an index: its prefix when it is a well-known index, the
/// index URL otherwise.
fn client_url(index: &Url) -> String {
    match index.as_str().strip_suffix(INDEX_PATH) {
        Some(prefix) if index.query().is_none() => prefix.to_owned(),
        _ => index.to_string(),
    }
}

impl<T: Transport + Sync> Run<'_, T> {
    /// A target with a path: a page when its answer names an index in a `Link`, else a
    /// prefix, checked as before.
    pub(crate) fn path(&self, out: &mut Lines, url: &Url, prefix_index: &Url) -> Scanners {
        let page = self.request(&Method::GET, url, CODED);
        if let Ok(page) = &page {
            let advertised = Advertised::read(&page.headers, &page.url);
            if advertised.names_an_index() {
                return self.linked_path(out, page, &advertised, prefix_index);
            }
        }
        let answer = self.request(&Method::GET, prefix_index, CODED);
        let grade = self.scanners(prefix_index, answer.as_ref());
        if let Ok(page) = &page
            && page.status == StatusCode::OK
            && !is_index(&answer)
        {
            let shown = page.header("content-type").unwrap_or("no Content-Type");
            let finding =
                Finding::read_as_prefix(CheckKind::DiscoveryLink, url, shown, prefix_index);
            out.push("page", finding);
        }
        self.index(out, answer);
        grade
    }

    /// A path whose page names an index in a `Link`: followed as a page, unless neither the
    /// `Link` nor the well-known path leads to an index while there is one under the path;
    /// then it is read as that prefix after all, so that a misleading `Link` does not hide a
    /// working prefix.
    fn linked_path(
        &self,
        out: &mut Lines,
        page: &Fetched,
        advertised: &Advertised,
        prefix_index: &Url,
    ) -> Scanners {
        let (grade, chosen) = self.follow(out, &page.url, page.status, advertised);
        let compared =
            *prefix_index == well_known(&page.url) || advertised.targets.contains(prefix_index);
        if !is_index(&chosen) && !compared {
            let answer = self.request(&Method::GET, prefix_index, CODED);
            if is_index(&answer) {
                let finding = Finding::index_under_the_path(CheckKind::DiscoveryLink, prefix_index);
                out.push("page", finding);
                let grade = self.scanners(prefix_index, answer.as_ref());
                self.index(out, answer);
                return grade;
            }
        }
        self.index(out, chosen);
        grade
    }

    /// A page, as the caller said: its `Link`, if any, and its origin's well-known index.
    pub(crate) fn page(&self, out: &mut Lines, url: &Url) -> Scanners {
        let (grade, chosen) = match self.request(&Method::GET, url, CODED) {
            Ok(page) => {
                let advertised = Advertised::read(&page.headers, &page.url);
                self.follow(out, &page.url, page.status, &advertised)
            }
            Err(error) => {
                out.push("page", Finding::failed("GET", error));
                let index = well_known(url);
                let answer = self.request(&Method::GET, &index, CODED);
                (self.scanners(&index, answer.as_ref()), answer)
            }
        };
        self.index(out, chosen);
        grade
    }

    /// Reports what the page's `Link` says and how it compares with the well-known index;
    /// returns what the scanners say of the well-known index and the answer of the index a
    /// client would use, to be checked in full.
    fn follow(
        &self,
        out: &mut Lines,
        page: &Url,
        status: StatusCode,
        advertised: &Advertised,
    ) -> (Scanners, Result<Fetched, FetchError>) {
        let kind = CheckKind::DiscoveryLink;
        for malformed in &advertised.malformed {
            out.push("page", Finding::link_malformed(kind, malformed));
        }
        for (target, error) in &advertised.unresolvable {
            out.push("page", Finding::link_unresolvable(kind, target, error));
        }
        match advertised.targets.as_slice() {
            [] if advertised.malformed.is_empty() && advertised.unresolvable.is_empty() => {
                out.push("page", Finding::no_link(kind, page, status));
            }
            [] => {}
            [target] => out.push("page", Finding::link_names(kind, target)),
            [first, ..] => {
                let targets: Vec<&str> = advertised.targets.iter().map(Url::as_str).collect();
                let finding = Finding::several_links(kind, &targets.join(", "), first);
                out.push("page", finding);
            }
        }
        let index = well_known(page);
        let answer = self.request(&Method::GET, &index, CODED);
        let grade = self.scanners(&index, answer.as_ref());
        let chosen = match advertised.targets.first() {
            None => answer,
            Some(link) => self.compare(out, link, &index, answer),
        };
        (grade, chosen)
    }

    /// Compares the index the `Link` names with the well-known one; returns the answer of the
    /// one to check in full.
    fn compare(
        &self,
        out: &mut Lines,
        link: &Url,
        index: &Url,
        answer: Result<Fetched, FetchError>,
    ) -> Result<Fetched, FetchError> {
        let kind = CheckKind::DiscoveryLinkMismatch;
        if link == index {
            out.push("page", Finding::same_index(kind, index));
            return answer;
        }
        let linked = self.request(&Method::GET, link, CODED);
        let same = matches!((&answer, &linked), (Ok(a), Ok(b)) if a.url == b.url);
        if same {
            out.push("page", Finding::same_index(kind, index));
            return answer;
        }
        match (is_index(&answer), is_index(&linked)) {
            (true, true) => {
                out.push("page", Finding::two_indexes(kind, link, index));
                answer
            }
            (false, true) => {
                let (found, client) = (describe(&answer), client_url(link));
                let finding = Finding::only_link(kind, link, index, &found, &client);
                out.push("page", finding);
                linked
            }
            (true, false) => {
                let finding = Finding::only_well_known(kind, link, &describe(&linked), index);
                out.push("page", finding);
                answer
            }
            (false, false) => {
                let (at_link, at_index) = (describe(&linked), describe(&answer));
                let finding = Finding::no_index(kind, link, &at_link, index, &at_index);
                out.push("page", finding);
                answer
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn a_client_is_given_the_prefix_of_a_well_known_index() {
        assert_eq!(
            client_url(&url(
                "https://example.com/tenant/.well-known/agent-skills/index.json"
            )),
            "https://example.com/tenant"
        );
        assert_eq!(
            client_url(&url("https://example.com/v1/skills.json")),
            "https://example.com/v1/skills.json"
        );
    }
}
