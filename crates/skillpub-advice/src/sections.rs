//! `body.missing-section`: a skill that tells an agent how to call a site or an API should
//! have the five sections of the aiSiteReady guide. Only such skills are held to it, and they
//! are recognised strictly (an API named in the description, a remote HTTP interface named
//! concretely in the body, not a skill that teaches writing one); the sections are matched
//! loosely, so that "Quick start" or "Troubleshooting" count.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use regex::Regex;

use crate::advice::Advice;
use crate::clock::Clock;
use crate::input::Input;
use crate::rule::AdviceRule;

/// One of the five sections that the aiSiteReady guide asks of a skill that calls a site or
/// an API, in the guide's order; `skillpub new` writes them as headings.
///
/// # Example
///
/// ```
/// use skillpub_advice::Section;
///
/// let titles: Vec<&str> = Section::ALL.iter().map(|section| section.title()).collect();
/// assert_eq!(titles, ["When to use", "How to invoke", "Output", "Errors and limits", "Scope and safety"]);
/// assert_eq!(Section::Output.guidance(), "The shape of the result, so the agent invents no fields.");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// The situations to use the skill in, in the user's own words.
    WhenToUse,
    /// The exact endpoints, methods and parameters, with a sample request.
    HowToInvoke,
    /// The shape of the result.
    Output,
    /// Each failure with the next step, and the rate limits.
    ErrorsAndLimits,
    /// What the skill will not do; no secrets.
    ScopeAndSafety,
}

impl Section {
    /// The five, in the guide's order.
    pub const ALL: [Self; 5] = [
        Self::WhenToUse,
        Self::HowToInvoke,
        Self::Output,
        Self::ErrorsAndLimits,
        Self::ScopeAndSafety,
    ];

    /// The heading, as the guide writes it.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Self::WhenToUse => "When to use",
            Self::HowToInvoke => "How to invoke",
            Self::Output => "Output",
            Self::ErrorsAndLimits => "Errors and limits",
            Self::ScopeAndSafety => "Scope and safety",
        }
    }

    /// What goes in it, in one sentence.
    #[must_use]
    pub fn guidance(self) -> &'static str {
        match self {
            Self::WhenToUse => "The situations to use this skill in, in the user's own words.",
            Self::HowToInvoke => {
                "The exact endpoints, methods and parameters, with a sample request."
            }
            Self::Output => "The shape of the result, so the agent invents no fields.",
            Self::ErrorsAndLimits => {
                "Each failure and the next step to take, and the rate limits, so the agent does not retry in a loop."
            }
            Self::ScopeAndSafety => {
                "What this skill will not do; never ask for secrets or send user data elsewhere."
            }
        }
    }

    /// Whether a heading or label names this section, loosely: "Quick start" is how to
    /// invoke, "Troubleshooting" is errors.
    fn matches(self, label: &str, clock: &Clock) -> bool {
        static WHEN_TO_USE: LazyLock<Regex> = lazy_regex!(
            r"(?i)\bwhen\b|\buse[- ]?cases?\b|\btriggers?\b|\bscenarios?\b|\bapplicab|\bpurpose\b|\bshould (?:i|you) use\b|\bwhy use\b|\bwhat (?:it|this skill) (?:is )?for\b"
        );
        static HOW_TO_INVOKE: LazyLock<Regex> = lazy_regex!(
            r"(?i)\bhow to\b|\busage\b|\busing\b|\binvo(?:ke|king|cation)\b|\bquick ?start\b|\bgetting started\b|\bendpoints?\b|\bapi\b|\brequests?\b|\bcall(?:s|ing)?\b|\bmethods?\b|\boperations?\b|\bcommands?\b|\bworkflows?\b|\bsteps?\b|\binstructions\b|\bexamples?\b|\bcurl\b|\bsdk\b|\bauth(?:entication|orization)?\b|\bbase url\b|\bprocedure\b|\bparameters?\b|\boptions\b|\breference\b|\bcore\b|\bsetup\b|\bset up\b|\bcli\b|\bprocess\b"
        );
        static OUTPUT: LazyLock<Regex> = lazy_regex!(
            r"(?i)\boutputs?\b|\bresponses?\b|\bresults?\b|\breturns?\b|\breturned\b|\bformats?\b|\bschemas?\b|\bfields?\b|\bwhat you get\b|\bdata model\b|\bdeliverables?\b|\breport\b|\bpayload\b"
        );
        static ERRORS_AND_LIMITS: LazyLock<Regex> = lazy_regex!(
            r"(?i)\berrors?\b|\blimits?\b|\blimitations?\b|\brate[- ]?limit|\btroubleshoot|\bpitfalls?\b|\bgotchas?\b|\bfail(?:s|ed|ures?|ing)?\b|\bretr(?:y|ies|ying)\b|\bstatus codes?\b|\bcaveats?\b|\bknown issues\b|\bcommon (?:mistakes|issues|problems)\b|\bquotas?\b|\btimeouts?\b|\bdebug|\bexceptions?\b|\bfallbacks?\b|\bwhat can go wrong\b"
        );
        static SCOPE_AND_SAFETY: LazyLock<Regex> = lazy_regex!(
            r"(?i)\bscope\b|\bsafety\b|\bsafe\b|\bsecurity\b|\bsecure\b|\bguardrails?\b|\brestrictions?\b|\bpermissions?\b|\bprivacy\b|\bconstraints?\b|\bboundar(?:y|ies)\b|\bdon['’]?t\b|\bdo not\b|\bnever\b|\bwon['’]?t\b|\bnot for\b|\bwhen not\b|\brules\b|\blimitations?\b|\bresponsible\b|\bethic|\bcompliance\b|\bsecrets?\b|\bcredentials?\b|\bcontent polic|\bcaution\b|\bwarnings?\b|\bimportant\b|\bconsent\b"
        );
        let pattern = match self {
            Self::WhenToUse => &WHEN_TO_USE,
            Self::HowToInvoke => &HOW_TO_INVOKE,
            Self::Output => &OUTPUT,
            Self::ErrorsAndLimits => &ERRORS_AND_LIMITS,
            Self::ScopeAndSafety => &SCOPE_AND_SAFETY,
        };
        clock.is_match(pattern, label)
    }
}

/// The description or the first title names an API or a site.
static NAMES_AN_API: LazyLock<Regex> = lazy_regex!(
    r"(?i)\b(?:APIs?|REST|RESTful|HTTP|endpoints?|web ?services?|websites?|web ?site|webhooks?|GraphQL)\b"
);
/// The skill teaches building, reviewing or deploying code that serves an API...
static AUTHORING: LazyLock<Regex> = lazy_regex!(
    r"(?i)\b(?:build|create|generate|scaffold|implement|add|write|review|audit|design|document|deploy|migrate|configure|set up|develop)\w*\s+(?:an?\s+|the\s+|your\s+|new\s+|complete\s+)*(?:[\w.+#-]+\s+){0,3}(?:APIs?|endpoints?|servers?|routes?|services?|apps?|applications?|backends?|plugins?|connectors?|integrations?)\b"
);
/// ... or integrating a library into an app.
static INTEGRATE_INTO: LazyLock<Regex> = lazy_regex!(
    r"(?i)\bintegrat\w*\s+[^.;]{0,60}?\binto\s+(?:(?:an?|the|your|any|existing|new)\s+)*(?:[\w/.+#-]+\s+){0,3}(?:apps?|applications?|projects?|codebases?|code|products?)\b"
);
/// `GET /path` or `POST https://...`, anywhere in the body.
static ENDPOINT: LazyLock<Regex> = lazy_regex!(
    r#"(?:^|[^\w-])(GET|POST|PUT|PATCH|DELETE)\s+`?(https?://[^\s`'")]+|/[\w{}:.$~%/@-]*)"#
);
/// The URL of a command line that sends a request (`curl`, `wget`, `xh`, `http POST`).
static COMMAND_CALL: LazyLock<Regex> = lazy_regex!(
    r#"(?i)(?:\b(?:curl|wget|xh)\b|\bhttps?\s+(?:GET|POST|PUT|PATCH|DELETE)\b)(?:[^\n]|\\\n)*?(https?://[^\s'"`)\\]+)"#
);
/// The URL of an HTTP client call in code (`fetch(`, `requests.get(`, `axios.post(`).
static CLIENT_CALL: LazyLock<Regex> = lazy_regex!(
    r#"\b(?:fetch|requests\.(?:get|post|put|patch|delete|request)|httpx\.(?:get|post|put|patch|delete)|axios(?:\.(?:get|post|put|patch|delete))?|http\.(?:get|post)|urllib\.request\.urlopen)\s*\(\s*[fr]?["'`](https?://[^"'`\s]+)"#
);
/// A base URL stated in prose: "Base URL: `https://...`", "the API base is https://...", or
/// a "Base URL" heading with the URL on a following line.
static BASE_URL: LazyLock<Regex> = lazy_regex!(
    r"(?i)\b(?:base[ _-]?url|api[ _-]?base(?:[ _-]?url)?|api[ _-]?root|api[ _-]?endpoint|service[ _-]?url|api[ _-]?host)\b(?:\*\*|__)?\s*(?:[:=]|is|→|->)?\s*(?:\*\*|__)?[ \t]*\n?(?:[ \t]*\n)?[ \t]*(?:[-*+][ \t]+)?[`<\[]?(https?://[^\s`>\])]+)"
);
/// The hosts that are no remote service, as alternatives of a pattern.
macro_rules! local_hosts {
    () => {
        r"localhost|127\.|0\.0\.0\.0|\[::1\]|example\.(?:com|org|net)|[\w.-]*\.example\b"
    };
}
/// A host that is no remote service.
static LOOPBACK: LazyLock<Regex> = lazy_regex!(concat!(r"(?i)^https?://(?:", local_hosts!(), ")"));
/// A host that is no remote service, or a placeholder for one.
static LOCAL_OR_PLACEHOLDER: LazyLock<Regex> = lazy_regex!(concat!(
    r"(?i)^https?://(?:",
    local_hosts!(),
    r"|your[-\w.]*|<)"
));
/// A URL that is fetched to install or read something, not to call a service.
static NOT_A_CALL: LazyLock<Regex> = lazy_regex!(
    r"(?i)install|/docs?(?:/|$)|llms(?:-full)?\.txt|\.(?:md|txt|html?)$|(?:install|setup|get)[\w.-]*\.(?:sh|ps1|py)\b|\.(?:tar\.gz|tgz|zip|deb|rpm|whl|dmg|exe|msi|AppImage|gz|xz|bz2|jar)\b|raw\.githubusercontent\.com|github\.com/[^/]+/[^/]+/(?:releases|archive|raw)|/releases/download/|sh\.rustup\.rs|get\.docker\.com|bun\.sh/install|deb\.nodesource"
);
static HOST: LazyLock<Regex> = lazy_regex!(r"^https?://([^/:?#]+)");

/// What makes a skill one that calls a remote HTTP interface.
#[derive(Debug, Default)]
struct Evidence {
    /// Distinct (method, path) pairs.
    endpoints: BTreeSet<(String, String)>,
    /// Distinct request URLs.
    requests: BTreeSet<String>,
    /// The first base URL stated in prose.
    base_url: Option<String>,
}

impl Evidence {
    fn of(input: &Input<'_>) -> Self {
        let body = input.body.text();
        let mut evidence = Self::default();
        let clock = &input.clock;
        for endpoint in clock.captures_iter(&ENDPOINT, body) {
            let path = &endpoint[2];
            if (path.starts_with("http") && clock.is_match(&LOCAL_OR_PLACEHOLDER, path))
                || path.len() < 2
            {
                continue;
            }
            let path = path.trim_end_matches(['`', '.', ',', ';', ':']);
            evidence
                .endpoints
                .insert((endpoint[1].to_owned(), path.to_owned()));
        }
        for call in clock
            .captures_iter(&COMMAND_CALL, body)
            .chain(clock.captures_iter(&CLIENT_CALL, body))
        {
            let url = &call[1];
            if !clock.is_match(&LOCAL_OR_PLACEHOLDER, url) && !clock.is_match(&NOT_A_CALL, url) {
                let url = url.trim_end_matches(['.', ',', ';', ':']);
                evidence.requests.insert(url.to_owned());
            }
        }
        evidence.base_url = clock
            .captures_iter(&BASE_URL, input.body.prose())
            .map(|base| base[1].to_owned())
            .find(|url| !clock.is_match(&LOOPBACK, url));
        let explicit: Vec<String> = evidence
            .endpoints
            .iter()
            .map(|(_, path)| path)
            .filter(|path| path.starts_with("http") && !clock.is_match(&NOT_A_CALL, path))
            .cloned()
            .collect();
        evidence.requests.extend(explicit);
        evidence
    }

    /// Whether the body names a remote HTTP interface concretely: a base URL, three
    /// endpoints, three request URLs or two on one host, or an endpoint and a request.
    fn is_concrete(&self, clock: &Clock) -> bool {
        let urls = self.requests.iter().chain(
            self.endpoints
                .iter()
                .map(|(_, path)| path)
                .filter(|path| path.starts_with("http")),
        );
        let mut per_host: HashMap<String, BTreeSet<&str>> = HashMap::new();
        for url in urls {
            if let Some(host) = clock.captures(&HOST, url) {
                per_host
                    .entry(host[1].to_lowercase())
                    .or_default()
                    .insert(url);
            }
        }
        let most_on_one_host = per_host.values().map(BTreeSet::len).max().unwrap_or(0);
        self.base_url.is_some()
            || self.endpoints.len() >= 3
            || self.requests.len() >= 3
            || most_on_one_host >= 2
            || (!self.endpoints.is_empty() && !self.requests.is_empty())
    }

    /// What was found, for the message: `base URL https://...`, `3 endpoints`, ...
    fn summary(&self) -> String {
        let plural =
            |count: usize, one: &str| format!("{count} {one}{}", if count == 1 { "" } else { "s" });
        let mut parts = Vec::new();
        if let Some(url) = &self.base_url {
            parts.push(format!("base URL {url}"));
        }
        if !self.endpoints.is_empty() {
            parts.push(plural(self.endpoints.len(), "endpoint"));
        }
        if !self.requests.is_empty() {
            parts.push(plural(self.requests.len(), "request URL"));
        }
        parts.join(", ")
    }
}

/// `body.missing-section`: for a skill that calls a site or an API, the sections of the
/// guide that no heading or bold label names.
pub(super) fn missing_section(input: &Input<'_>) -> Option<Advice> {
    let headings = input.body.headings(&input.clock);
    let title = headings
        .iter()
        .find(|(level, _)| *level == 1)
        .map_or("", |(_, text)| text);
    let about = format!("{} {title}", input.description);
    let clock = &input.clock;
    if !clock.is_match(&NAMES_AN_API, &about) {
        return None;
    }
    let evidence = Evidence::of(input);
    let teaches_code =
        clock.is_match(&AUTHORING, &about) || clock.is_match(&INTEGRATE_INTO, &about);
    if (teaches_code && evidence.base_url.is_none()) || !evidence.is_concrete(clock) {
        return None;
    }
    let labels: Vec<&str> = headings
        .iter()
        .map(|(_, text)| *text)
        .chain(input.body.bold_labels(&input.clock))
        .collect();
    let missing: Vec<&str> = Section::ALL
        .into_iter()
        .filter(|section| !labels.iter().any(|label| section.matches(label, clock)))
        .map(Section::title)
        .collect();
    if missing.is_empty() {
        return None;
    }
    let all: Vec<&str> = Section::ALL.into_iter().map(Section::title).collect();
    Some(Advice::new(
        AdviceRule::BodyMissingSection,
        format!(
            "this skill describes how to call an API ({}) but has no section for: {}; the guide's sections are {}",
            evidence.summary(),
            missing.join(", "),
            all.join(", ")
        ),
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::tests::input_with_body;
    use super::*;

    /// The sections reported missing for a description and a body, or `None` when the rule
    /// is quiet.
    fn missing(description: &str, body: &str) -> Option<String> {
        let input = input_with_body(description, body);
        missing_section(&input).map(|advice| {
            let message = advice.message();
            let start = message.find("no section for: ").unwrap() + 16;
            let end = message.find("; the guide's").unwrap();
            message[start..end].to_owned()
        })
    }

    const API: &str = "Calls the Acme REST API to look up orders.";
    const CURLS: &str = "```sh\ncurl https://api.acme.io/v1/orders/1\ncurl -X POST https://api.acme.io/v1/orders\n```\n";

    #[test]
    fn a_skill_with_the_guide_s_headings_is_complete() {
        let body = format!(
            "# Acme\n## When to use\n## How to invoke\n{CURLS}## Output\n## Errors and limits\n## Scope and safety\n"
        );
        assert_eq!(missing(API, &body), None);
    }

    #[test]
    fn loose_headings_and_bold_labels_count() {
        let body = format!(
            "## Use cases\n## Quick start\n{CURLS}**Response format:** JSON\n## Troubleshooting\n- **Guardrails**: read only\n"
        );
        assert_eq!(missing(API, &body), None);
    }

    #[test]
    fn every_missing_section_is_named_once() {
        let body =
            format!("# Acme API\n## How to Use This Skill\n## Base URL\n{CURLS}## Resources\n");
        assert_eq!(
            missing(API, &body).as_deref(),
            Some("When to use, Output, Errors and limits, Scope and safety")
        );
    }

    #[test]
    fn bold_words_in_running_text_are_no_sections() {
        let body =
            format!("## How to invoke\n{CURLS}- **Goals** → list goals\nThe **Output** is JSON.\n");
        assert_eq!(
            missing(API, &body).as_deref(),
            Some("When to use, Output, Errors and limits, Scope and safety")
        );
    }

    macro_rules! api_skill {
        ($name:ident, $description:expr, $body:expr, $is_api:expr) => {
            #[test]
            fn $name() {
                assert_eq!(
                    missing($description, $body).is_some(),
                    $is_api,
                    "{:?}",
                    $body
                );
            }
        };
    }

    api_skill!(
        base_url_in_prose,
        API,
        "**Base URL:** `https://foundry-api.acme.io/v1`\n",
        true
    );
    api_skill!(
        base_url_heading_then_the_url,
        API,
        "## Base URL\n\n`https://api.acme.io`\n",
        true
    );
    api_skill!(
        three_endpoints,
        API,
        "- `GET /orders`\n- `GET /orders/{id}`\n- `POST /orders`\n",
        true
    );
    api_skill!(two_requests_on_one_host, API, CURLS, true);
    api_skill!(
        an_endpoint_and_a_request,
        API,
        "`GET /orders`\n\n    curl https://api.acme.io/v1/orders\n",
        true
    );
    api_skill!(
        a_client_call,
        API,
        "```js\nfetch(\"https://api.acme.io/a\")\nfetch('https://api.acme.io/b')\n```\n",
        true
    );
    api_skill!(
        explicit_get_urls,
        API,
        "GET https://prices.acme.io/api/retail/prices\nGET https://prices.acme.io/api/retail/other\n",
        true
    );
    api_skill!(no_api_in_the_description, "Looks up orders.", CURLS, false);
    api_skill!(
        one_request_is_not_enough,
        API,
        "curl https://api.acme.io/v1/orders\n",
        false
    );
    api_skill!(
        a_base_url_in_code,
        API,
        "```py\nclient = OpenAI(base_url=\"https://openrouter.ai/api/v1\")\n```\n",
        false
    );
    api_skill!(
        a_local_base_url,
        API,
        "Base URL: http://localhost:8080\n",
        false
    );
    api_skill!(
        installers_are_no_calls,
        API,
        "curl -fsSL https://acme.io/install.sh | sh\ncurl https://acme.io/llms.txt\ncurl https://aka.ms/InstallAzureCLIDeb\n",
        false
    );
    api_skill!(
        local_requests_are_no_calls,
        API,
        "curl http://localhost:3000/a\ncurl http://localhost:3000/b\n",
        false
    );
    api_skill!(
        a_skill_that_builds_an_api,
        "Build a REST API server with Express and deploy it to Azure.",
        CURLS,
        false
    );
    api_skill!(
        a_skill_that_integrates_an_sdk,
        "Integrate the Microsoft Graph SDK into any project to call its REST API.",
        CURLS,
        false
    );
    api_skill!(
        a_builder_with_a_stated_base_url,
        "Build a REST API client for Acme orders.",
        "Base URL: https://api.acme.io\n",
        true
    );

    #[test]
    fn the_message_says_what_made_it_an_api_skill() {
        let input = input_with_body(API, "**Base URL:** https://api.acme.io/v1\n`GET /orders`\n");
        let advice = missing_section(&input).unwrap();
        assert!(
            advice.message().starts_with("this skill describes how to call an API (base URL https://api.acme.io/v1, 1 endpoint) but has no section for: When to use,"),
            "{advice}"
        );
    }

    #[test]
    fn every_section_matches_its_own_title() {
        for section in Section::ALL {
            assert!(
                section.matches(section.title(), &Clock::unlimited()),
                "{section:?}"
            );
            assert!(!section.guidance().is_empty());
        }
    }
}
