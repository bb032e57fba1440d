//! Every check of `skillpub check` and every message it prints, in one table.
//!
//! A code is `<subject>.<problem>`, lowercase and hyphenated: the subject is what the check
//! is about (`target`, `discovery`, `fetch`, `auth`, `index`, `entry`, `archive`, `skill`,
//! `site`, `private`, `cache`, `encoding`, `run`), the problem what it finds wrong (`archive.traversal`) or the property that must
//! hold (`index.status`), so that `FAIL entry.digest` reads "the entry's digest is wrong".
//! The codes are public API: changing or removing one breaks the scripts that read them, so
//! it is a breaking change; adding one is not.
//!
//! Adding a check is a line in `kinds` (and a message in `messages` when none fits), then a
//! call where the check runs; `docs/checks.md` is rewritten from this table by
//! `SKILLPUB_BLESS=1 cargo test -p skillpub-check`, and a test fails until it is.
//!
//! A problem that a typed error already describes (a failed request, a refused archive, a
//! skipped entry) takes the error's own message, which its enum declares once; the functions
//! below the table pick the code for each of its variants. The client's error enums are
//! `#[non_exhaustive]`, so each `match` ends with a catch-all arm, the most general code of its
//! family: a variant added to the client gets its own code here in the same change.

use http::StatusCode;
use skillpub_advice::{Advice, AdviceDeadline};
use skillpub_core::{
    Digest, ErrorKind, index::SCHEMA_URI, paths::SKILL_MD, security::Credential, spec::Severity,
};
use url::Url;

use skillpub_client::index::{EntryError, IndexError};
use skillpub_client::unpack::{UnpackError, UnpackNote};
use skillpub_client::{ClientError, FetchError};

use crate::link::Malformed;
use crate::outcome::{Cause, Status};

checks! {
    /// What a line of a `skillpub check` report is about: one kind per check, each with a
    /// stable [`code`](Self::code).
    ///
    /// The codes are public API: a CI script can rely on them, and changing or removing one
    /// is a breaking change. Every line of a [`Report`](crate::Report) carries one, in the text
    /// and in the JSON output. A problem line's code says what is wrong; an `ok` line's code
    /// says what was checked (the `ok` lines of `entry.fields`, `archive.unpack` and
    /// `skill.frontmatter` stand for the checks of their group that report only problems).
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_check::CheckKind;
    /// use skillpub_core::spec::Severity;
    ///
    /// let kind: CheckKind = "entry.digest".parse().unwrap();
    /// assert_eq!(kind, CheckKind::EntryDigest);
    /// assert_eq!(kind.severity(), Severity::Error);
    /// assert!(CheckKind::ALL.iter().all(|kind| kind.code().parse() == Ok(*kind)));
    /// ```
    kinds {
        TargetUrl = "target.url", Fail,
            "the target is an http or https URL",
            "Give an origin (`https://example.com`), an origin with the path the skills are mounted under, a page, or an index URL.";

        DiscoveryLink = "discovery.link", Warn,
            "a page sends one well-formed `Link` with `rel=\"agent-skills\"` (RFC 8288)",
            "Send `Link: </.well-known/agent-skills/index.json>; rel=\"agent-skills\"; type=\"application/json\"` on your pages (skillpub: `AgentSkillsLinkLayer`); the convention is optional, the draft does not require it. To check a page that has none, pass `--page`.";
        DiscoveryLinkMismatch = "discovery.link-mismatch", Warn,
            "the page's `Link` and its origin's `/.well-known/agent-skills/index.json` lead to the same index",
            "Serve the index at `/.well-known/agent-skills/index.json` and point the `Link` there: clients that follow the draft, and the aiSiteReady scanner, read only the well-known path.";

        FetchScheme = "fetch.scheme", Fail,
            "every request and redirect stays on http or https",
            "Redirect only to http or https URLs.";
        FetchPrivateHost = "fetch.private-host", Fail,
            "no request goes to a local or private host, by name or by address",
            "Publish on a public host; to check a server on this machine or network, pass `--allow-private`.";
        FetchNotAllowed = "fetch.not-allowed", Fail,
            "no request leaves the client's allowed origins",
            "Serve from an allowed origin, or add the origin to the client's allowlist.";
        FetchRedirect = "fetch.redirect", Fail,
            "redirects end within 10 hops, each with a valid `Location`",
            "Fix the redirect chain: no loop, at most 10 hops, a valid `Location` on each.";
        FetchTooLarge = "fetch.too-large", Fail,
            "every body is within the size limit (`--max-size`)",
            "Make the file smaller, or raise `--max-size` if it is meant to be that large.";
        FetchTimeout = "fetch.timeout", Fail,
            "every request answers within the timeout (`--timeout`)",
            "Make the server answer sooner, or raise `--timeout`.";
        FetchTransport = "fetch.transport", Fail,
            "every request completes: DNS, TCP, TLS and HTTP framing",
            "Check that the host resolves, accepts connections and speaks HTTP; the message has the details.";

        AuthRequired = "auth.required", Fail,
            "the index answers without asking the caller to log in (no `401`)",
            "The index answered 401, \"log in\": pass credentials the site accepts, `--bearer-env VAR` (a bearer token read from the environment variable) or `--header 'Name: value'`; the line shows the server's `WWW-Authenticate` challenge, which says what it expects.";
        AuthForbidden = "auth.forbidden", Fail,
            "the index does not refuse the caller (no `403`)",
            "The index answered 403, \"not allowed\": the credentials sent (or none) are not allowed this catalog; use credentials that are.";
        AuthChallenge = "auth.challenge", Fail,
            "a `401` carries a `WWW-Authenticate` challenge (RFC 9110 15.5.2)",
            "Send `WWW-Authenticate` with every 401 (such as `Bearer realm=\"agent-skills\"`), so that a client can tell how to log in; tower-http's bearer validation sends none.";

        IndexStatus = "index.status", Fail,
            "the index answers `200`",
            "Serve the index at `.well-known/agent-skills/index.json` under the URL given (or at the index URL given), with status 200.";
        IndexMediaType = "index.media-type", Fail,
            "the index is served as `application/json`",
            "Send `Content-Type: application/json` with the index.";
        IndexHeadParity = "index.head-parity", Fail,
            "`HEAD` on the index answers like `GET`: same status, same representation headers",
            "Answer `HEAD` with the status and headers of `GET`, and no body.";
        IndexJson = "index.json", Fail,
            "the index is a JSON object",
            "Serve a JSON object with `$schema` and `skills`.";
        IndexSchema = "index.schema", Fail,
            "`$schema` is the 0.2.0 URI",
            "Set `$schema` to `https://schemas.agentskills.io/discovery/0.2.0/schema.json`, exactly; an index without it is read as 0.1.0, one with another value is ignored.";
        IndexSkills = "index.skills", Fail,
            "`skills` is a list with at least one usable entry",
            "List each skill with `name`, `type`, `description`, `url` and `digest`; the lines of the entries say what is wrong with them.";
        IndexEmpty = "index.empty", Warn,
            "`skills` is not empty",
            "Publish at least one skill, or no index: most clients treat an empty list as no index.";

        EntryFields = "entry.fields", Fail,
            "each entry is an object whose `name`, `type`, `description`, `url` and `digest` are strings",
            "Give every entry these five fields, as strings.";
        EntryType = "entry.type", Warn,
            "each entry's `type` is `skill-md` or `archive`",
            "Use `skill-md` for a single `SKILL.md` and `archive` for a `.tar.gz` or `.zip`; clients skip other types.";
        EntryName = "entry.name", Fail,
            "each entry's `name` follows the Agent Skills name rule",
            "Use 1 to 64 characters `a-z`, `0-9` and `-`, with no hyphen at either end or twice in a row.";
        EntryDescription = "entry.description", Fail,
            "each entry's `description` has 1 to 1,024 characters",
            "Write a description of 1 to 1,024 characters (the frontmatter's).";
        EntryUrl = "entry.url", Fail,
            "each entry's `url` resolves to an http or https URL",
            "Give a relative or path-absolute `url` (resolved against the index URL) or an absolute http(s) one.";
        EntryLocalUrl = "entry.local-url", Fail,
            "no entry's `url` is on a local host or a development port other than the index's",
            "Use a path-absolute `url` (`/.well-known/agent-skills/...`) or the public origin, not the publisher's `localhost`.";
        EntryDigestFormat = "entry.digest-format", Fail,
            "each entry's `digest` is `sha256:` and 64 lowercase hex digits",
            "Write the SHA-256 of the served bytes as `sha256:` and 64 lowercase hex digits.";
        EntryFiles = "entry.files", Fail,
            "each 0.1.0 entry lists safe relative `files`, `SKILL.md` among them",
            "List relative paths without `..`, `SKILL.md` among them; better, publish a 0.2.0 index.";
        EntryStatus = "entry.status", Fail,
            "each artifact answers `200`",
            "Serve the file at the entry's `url` with status 200.";
        EntryMediaType = "entry.media-type", Fail,
            "each `SKILL.md` is served as `text/markdown` (or `text/plain`), each archive as `application/gzip` or `application/zip`",
            "Send the media type of the artifact's type.";
        EntryHeadParity = "entry.head-parity", Fail,
            "`HEAD` on each artifact answers like `GET`: same status, same representation headers",
            "Answer `HEAD` with the status and headers of `GET`, and no body.";
        EntryDigest = "entry.digest", Fail,
            "the served bytes hash to the entry's `digest`",
            "Generate the index from the bytes you serve; clients drop a skill whose digest does not match.";

        ArchiveUnpack = "archive.unpack", Fail,
            "the archive is a `.tar.gz` or `.zip` that reads to its end",
            "Build the archive with `tar -czf` or `zip` and serve its bytes unchanged.";
        ArchiveSkillMd = "archive.skill-md", Fail,
            "the archive has `SKILL.md` at its root",
            "Archive the contents of the skill folder, not the folder itself.";
        ArchiveTraversal = "archive.traversal", Fail,
            "no entry path is absolute or has a drive letter, a backslash or `..`",
            "Archive relative paths inside the skill folder only.";
        ArchiveLink = "archive.link", Fail,
            "every link stays inside the skill folder, and no path goes through a link",
            "Replace the links with the files they point to.";
        ArchivePathLength = "archive.path-length", Fail,
            "entry paths and link targets are at most 4,096 bytes",
            "Shorten the paths.";
        ArchiveSpecialFile = "archive.special-file", Fail,
            "the archive holds no device, pipe or other special file",
            "Archive regular files, folders and links only.";
        ArchiveEncrypted = "archive.encrypted", Fail,
            "no entry of the archive is encrypted",
            "Build the archive without a password.";
        ArchiveDuplicate = "archive.duplicate", Fail,
            "no path appears twice in the archive",
            "Add each file once.";
        ArchiveTooLarge = "archive.too-large", Fail,
            "the archive unpacks within the size limit (`--max-size`)",
            "Move large assets out, or raise `--max-size` if the skill is meant to be that large.";
        ArchiveTooManyFiles = "archive.too-many-files", Fail,
            "the archive has at most the client's number of entries (1,000 by default)",
            "Move files out or split the skill.";
        ArchiveDotPrefix = "archive.dot-prefix", Warn,
            "entry paths do not start with `./`",
            "Archive the files by name (`tar -czf skill.tar.gz SKILL.md references`), not `.`; skills 1.7.4 refuses such archives.";
        ArchiveLinkSkipped = "archive.link-skipped", Warn,
            "the archive holds no links",
            "Replace the links with the files they point to; clients do not unpack links.";

        SkillFrontmatter = "skill.frontmatter", Fail,
            "the fetched `SKILL.md` passes the Agent Skills rules",
            "Fix what the message says; `skillpub lint` shows the same problems on the skill folder.";
        SkillName = "skill.name", Fail,
            "the frontmatter `name` equals the entry's `name`",
            "Make the two equal; generate the index from the skills.";
        SkillDescription = "skill.description", Warn,
            "the entry's `description` equals the frontmatter's",
            "Generate both from one source.";

        SiteNotFoundProbe = "site.not-found-probe", Fail,
            "a skill path that does not exist, beside the index, answers `404`",
            "Answer unknown paths under `/.well-known/agent-skills/` with 404, not with a catch-all page.";
        SiteCacheControl = "site.cache-control", Warn,
            "the index has `Cache-Control`",
            "Send `Cache-Control` with the index, as the draft says servers SHOULD.";
        SiteCors = "site.cors", Warn,
            "the index has `Access-Control-Allow-Origin`",
            "Send `Access-Control-Allow-Origin: *`, so that browser-based agents can read the skills.";
        SiteEtag = "site.etag", Warn,
            "the index has an `ETag`",
            "Send a strong `ETag`, so that clients can revalidate the index cheaply.";
        SiteNotModified = "site.not-modified", Fail,
            "`If-None-Match` with the index's `ETag` answers `304`",
            "Answer a matching `If-None-Match` with 304, or send no `ETag`.";

        PrivatePublic = "private.public", Fail,
            "no answer of the private view says `public` or `s-maxage` in `Cache-Control`",
            "Serve the answers to credentialed requests with `Cache-Control: private` (skillpub: the router's private policy): with `public` or `s-maxage` a shared cache stores one caller's catalog and hands it to the next (RFC 9111 3.5).";
        PrivateCacheControl = "private.cache-control", Fail,
            "every answer of the private view says `private` (for the whole answer, not `private=\"field\"`) or `no-store` in `Cache-Control`",
            "Send `Cache-Control: private, no-cache` on the index and canonical paths, `private, max-age=31536000, immutable` on addressed paths, `private, no-store` on errors, 401 and 403.";
        PrivateVary = "private.vary", Fail,
            "every answer of the private view names the credential headers sent (`Authorization` when none was) in `Vary`, and `Origin` when its `Access-Control-Allow-Origin` names an origin",
            "Add the credential headers (`Authorization`, `Cookie`, your API key's) to `Vary` on every answer, and `Origin` on an answer whose CORS depends on it, so that a cache never hands one caller's answer to another.";
        PrivateCors = "private.cors", Fail,
            "no answer of the private view allows credentials with `Access-Control-Allow-Origin: *` or for an origin outside its allow-list (the check's probe, `https://skillpub-check.invalid`)",
            "Answer a credentialed request from a listed origin with that origin in `Access-Control-Allow-Origin` (and `Vary: Origin`), and any other origin with none; browsers refuse `*` with credentials, and reflecting every `Origin` lets any page read the caller's catalog.";

        CacheMismatchWindow = "cache.mismatch-window", Warn,
            "no cache may pair the index with other bytes than its digests name: every artifact `url` names its digest, or neither the index nor the artifacts may be cached",
            "Put each artifact's digest in the path of its `url` and cache those answers as `immutable` (skillpub's index names `sha256-<hex>/<name>/SKILL.md`), and send the index with `Cache-Control: no-cache` and an `ETag`; failing that, purge the index and every artifact together on each deploy.";

        EncodingEtagReused = "encoding.etag-reused", Fail,
            "a content-coded answer does not share its strong `ETag` with other bytes",
            "Give each coding its own `ETag`; a compression layer in front of fixed `ETag`s causes this.";
        EncodingArchiveEncoded = "encoding.archive-encoded", Fail,
            "archives arrive without a `Content-Encoding`",
            "Keep compression layers off archives: a client that does not remove the coding hashes other bytes.";
        EncodingUnsupported = "encoding.unsupported", Fail,
            "every `Content-Encoding` is gzip, deflate or br, at most two of them",
            "Use gzip, deflate or br.";
        EncodingCorrupt = "encoding.corrupt", Fail,
            "every content-coded body decodes",
            "Fix the encoder, or send the bytes without a coding.";

        RunMaxTime = "run.max-time", Fail,
            "the whole run ends within its time limit (`--max-time`)",
            "Raise `--max-time`, or make the site answer sooner.";
        RunNotRun = "run.not-run", Warn,
            "every check ran",
            "The checks that need the index did not run, since it could not be read (the lines before say why); make it readable to this caller and run again.";

        SkillAdvice = "skill.advice", Warn,
            "the fetched skill follows the authoring advice and passes the security review of its `SKILL.md` and every file of its archive (a `warn` line per warning, its rule's code in brackets and as `rule` in `--json`; an `ok` line per info)",
            "Change what the message says; `skillpub lint` gives the same advice on the skill folder, and skillpub-advice's table of rules explains each one.";
        SkillSecret = "skill.secret", Fail,
            "no file of the fetched skill holds a credential (`security.secret`: an API key or token, a private key, a signed JWT, a password in a URL, by its published format)",
            "Revoke the credential at once (the site has published it to every agent that fetched the skill), remove it, and have the skill read it from an environment variable the user sets; `skillpub lint` refuses it on the skill folder.";
    }
    messages {
        ok link_names(target: &Url) => "Link rel=\"agent-skills\" names {target}";
        problem several_links(targets: &str, first: &Url) =>
            "the page sends several Links with rel=\"agent-skills\" ({targets}); agents take the first, {first}; send one";
        problem link_malformed(malformed: &Malformed) =>
            "{malformed}; agents that read Link headers may miss the index";
        problem link_unresolvable(target: &str, error: &url::ParseError) =>
            "the Link target `{target}` with rel=\"agent-skills\" does not resolve against the page: {error}";
        problem no_link(page: &Url, status: StatusCode) =>
            "{page} answered {status} with no Link rel=\"agent-skills\"; agents that read Link headers do not find the index from it";
        problem read_as_prefix(page: &Url, shown: &str, index: &Url) =>
            "{page} answered 200 ({shown}) with no Link rel=\"agent-skills\", so it was read as a path prefix whose index is {index}; if it is a page, `skillpub check --page {page}` checks its origin's well-known index";
        problem index_under_the_path(index: &Url) =>
            "where the page's Link leads there is no index, but the URL given has one under it, {index} (checked below), so it was read as a path prefix; point the Link there";
        ok same_index(index: &Url) => "the Link and the well-known path name the same index, {index}";
        problem two_indexes(link: &Url, index: &Url) =>
            "the Link names {link}, another index than the well-known {index}: clients that follow the draft, and the aiSiteReady scanner, read the well-known one (checked below), agents that follow the Link read the other (`skillpub check {link}` checks it); point the Link at the well-known index";
        problem only_link(link: &Url, index: &Url, found: &str, client: &str) =>
            "only the Link leads to an index, {link} (checked below): the well-known {index} {found}, so clients that follow the draft, and the aiSiteReady scanner, find no skills on this origin; serve the index there too, or give clients {client}";
        problem only_well_known(link: &Url, found: &str, index: &Url) =>
            "the Link names {link}, which {found}, so agents that follow it find no skills; the well-known {index} has the index (checked below); point the Link there";
        problem no_index(link: &Url, at_link: &str, index: &Url, at_index: &str) =>
            "neither the Link's {link} ({at_link}) nor the well-known {index} ({at_index}) leads to an index";

        problem login_required(url: &Url, status: StatusCode, sent: &str, challenge: &str) =>
            "GET {url} answered {status} (log in) {sent}; WWW-Authenticate: {challenge}";
        problem login_without_challenge(url: &Url, status: StatusCode, sent: &str) =>
            "GET {url} answered {status} (log in) {sent}, with no WWW-Authenticate challenge";
        problem no_challenge(url: &Url) =>
            "GET {url} answered 401 without WWW-Authenticate, which RFC 9110 15.5.2 requires: a client cannot tell how to log in";
        problem forbidden(url: &Url, status: StatusCode, sent: &str) =>
            "GET {url} answered {status} (not allowed) {sent}";
        problem not_run(status: StatusCode) =>
            "the checks of the index, its entries and the site (index.*, entry.*, archive.*, skill.*, site.*, cache.*, encoding.*) did not run: the index answered {status}";

        ok answered(status: StatusCode) => "GET {status}";
        problem not_ok(url: &Url, status: StatusCode) => "GET {url} answered {status}, not 200";
        ok served_as(shown: &str) => "Content-Type: {shown}";
        problem wrong_media_type(shown: &str, expected: &str) =>
            "GET 200 but served as {shown}; it must be {expected}";
        ok head_like_get(status: u16) => "HEAD {status} with the same headers as GET";
        problem head_status(head: StatusCode, get: StatusCode) =>
            "HEAD answered {head}, GET {get}; servers must support HEAD with the same answer";
        problem head_headers(differences: &str) => "HEAD headers differ from GET: {differences}";

        ok schema_current() => "`$schema` is the 0.2.0 URI";
        problem schema_missing() =>
            "no `$schema`: clients read this as a legacy 0.1.0 index with no digests; publish `$schema: {SCHEMA_URI}` with `type`, `url` and `digest` entries";
        ok usable_entries(count: usize) => "`skills` has {count} usable entries";
        problem no_usable_entry() =>
            "no entry of `skills` is usable, so clients see no skills (the lines below say why)";
        problem empty_skills() => "`skills` is empty; most clients treat that as no index";

        ok entry_valid(kind: &str, url: &Url) => "entry is valid ({kind}, url resolves to {url})";
        problem local_url(url: &Url) =>
            "url {url} is on a local host or a development port other than the index's, which clients cannot reach; use a path-absolute url or the public origin";
        ok digest_matches(digest: &Digest) => "digest {digest} matches the served bytes";
        problem digest_drift(expected: &Digest, actual: &Digest) =>
            "digest drift: the index says {expected}, the served bytes are {actual}; clients drop this skill";
        ok unpacked(more: usize) =>
            "archive unpacks safely: {SKILL_MD} at the root and {more} more files";
        ok skill_valid() => "{SKILL_MD} is valid and its frontmatter name matches the entry";
        problem invalid_skill_md(problem: &ErrorKind) => "{SKILL_MD}: {problem}";
        problem invalid_field(field: &str, problem: &ErrorKind) =>
            "{SKILL_MD}: field `{field}`: {problem}";
        problem name_differs(found: &str, name: &str) =>
            "the {SKILL_MD} frontmatter name `{found}` differs from the index name `{name}`";
        ok same_description() => "the index description equals the frontmatter description";
        problem description_differs() =>
            "the index description differs from the {SKILL_MD} frontmatter description; it SHOULD match (generate both from one source)";

        ok missing_is_404() => "a skill that does not exist answers 404";
        problem missing_answers(status: StatusCode, shown: &str) =>
            "a skill that does not exist answers {status} ({shown}), not 404; a catch-all route is hiding missing files";
        ok header(name: &str, value: &str) => "{name}: {value}";
        problem no_cache_control() =>
            "the index has no Cache-Control; the draft says servers SHOULD set it";
        problem no_cors() =>
            "no Access-Control-Allow-Origin; browser-based agents cannot read the skills";
        ok no_cors_private() =>
            "no Access-Control-Allow-Origin on a request without Origin, as a private view may answer (credentialed CORS names each allowed origin)";

        ok never_public(total: usize) =>
            "none of the {total} answers of the private view says `public` or `s-maxage`";
        problem served_public(count: usize, total: usize, examples: &str) =>
            "{count} of {total} answers of the private view say `public` or `s-maxage`, so a shared cache may hand this caller's catalog to the next caller (RFC 9111 3.5): {examples}";
        ok kept_private(total: usize) =>
            "all {total} answers of the private view say `private` or `no-store`";
        ok others_private(judged: usize) =>
            "the {judged} answers of the private view that do not say `public` say `private` or `no-store`";
        problem not_private(count: usize, judged: usize, examples: &str) =>
            "{count} of the {judged} answers of the private view that do not say `public` say neither `private` nor `no-store`, so a cache may store them for other callers: {examples}";
        ok varies_on(total: usize, names: &str) =>
            "all {total} answers of the private view name {names} in Vary";
        problem no_vary(count: usize, total: usize, names: &str, examples: &str) =>
            "{count} of {total} answers of the private view do not name {names} in Vary, so a cache may hand one caller's answer to another: {examples}";
        ok credentialed_cors(total: usize) =>
            "none of the {total} answers of the private view allows credentials with Access-Control-Allow-Origin: * or for an unlisted origin";
        problem wildcard_credentials(count: usize, total: usize, examples: &str) =>
            "{count} of {total} answers of the private view allow credentials with Access-Control-Allow-Origin: * (which browsers refuse) or for an unlisted origin (which lets any page read the caller's catalog): {examples}";
        problem no_etag() => "the index has no ETag, so clients cannot revalidate it cheaply";
        ok revalidates(etag: &str) => "ETag {etag} revalidates with 304";
        problem not_revalidated(etag: &str, status: StatusCode) =>
            "the index sends ETag {etag} but answers {status} to If-None-Match with it, not 304";

        ok addressed_urls(count: usize) =>
            "every artifact url ({count}) names its digest, so no cache can pair the index with other bytes";
        ok nothing_cached() =>
            "neither the index nor the artifacts may be cached (no-cache, no-store, or no lifetime given), so no cache pairs them with other bytes";
        problem mismatch_window(seconds: u64, index: u64, artifacts: usize, longest: u64) =>
            "for up to {seconds} s after a deploy a cache can pair an index with other bytes than its digests name, and clients drop the skill: the index may be cached for {index} s, and {artifacts} artifacts whose url does not name their digest for up to {longest} s";

        ok own_etag(coding: &str, etag: &str) => "Content-Encoding {coding} with its own ETag {etag}";
        ok no_strong_etag(coding: &str) => "Content-Encoding {coding}, with no strong ETag to share";
        problem etag_reused(coding: &str, etag: &str) =>
            "the {coding}-encoded answer and the answer without Accept-Encoding carry the same strong ETag {etag} on different bytes; caches and If-None-Match then mix them up; give each encoding its own ETag (a compression layer that keeps the route's ETag causes this)";
        problem archive_encoded(codings: &str) =>
            "the archive arrives with Content-Encoding: {codings}; an archive must be sent as it is (a client that does not remove the coding hashes other bytes and drops the skill, and caches mix the two): keep compression layers off archives";

        problem not_started(left_out: usize, total: usize) =>
            "the deadline passed before {left_out} of {total} downloads started, so they were not checked; allow more time (skillpub check --max-time)";

        ok follows_advice() => "the skill has no authoring or security warnings";
        ok no_secret(files: &str) => "no credential in the skill's {files}";
        problem secret(file: &str, line: u64, credential: Credential, shown: &str) =>
            "{file} line {line} publishes {credential} (`{shown}`) to every agent that fetches the skill; revoke it and remove it";
    }
}

/// What one check found: its kind, its outcome, the message, and the typed error behind it.
#[derive(Debug)]
pub(crate) struct Finding {
    pub(crate) kind: CheckKind,
    pub(crate) status: Status,
    pub(crate) message: String,
    pub(crate) cause: Option<Cause>,
}

impl Finding {
    fn new(kind: CheckKind, status: Status, message: String) -> Self {
        Self {
            kind,
            status,
            message,
            cause: None,
        }
    }

    /// The same finding, with the error behind it.
    pub(crate) fn because(mut self, cause: impl Into<Cause>) -> Self {
        self.cause = Some(cause.into());
        self
    }

    /// A problem whose message is its error's, under `kind`'s code.
    fn problem(kind: CheckKind, error: impl std::fmt::Display + Into<Cause>) -> Self {
        Self::new(kind, kind.severity().into(), error.to_string()).because(error)
    }

    /// A request that failed (`request` says which: `GET`, `HEAD`...).
    pub(crate) fn failed(request: &str, error: FetchError) -> Self {
        let kind = fetch_kind(&error);
        let status = kind.severity().into();
        Self::new(kind, status, format!("{request} failed: {error}")).because(error)
    }

    /// A target that is not an index URL or an origin.
    pub(crate) fn target(error: ClientError) -> Self {
        Self::problem(CheckKind::TargetUrl, error)
    }

    /// An index that cannot be used at all.
    pub(crate) fn index(error: IndexError) -> Self {
        let kind = match error {
            IndexError::NotJson(_) | IndexError::NotAnObject => CheckKind::IndexJson,
            IndexError::UnknownSchema(_) => CheckKind::IndexSchema,
            IndexError::NoSkills => CheckKind::IndexSkills,
            _ => CheckKind::IndexJson,
        };
        Self::problem(kind, error)
    }

    /// An entry of the index that clients skip.
    pub(crate) fn entry(error: EntryError) -> Self {
        let kind = match error {
            EntryError::NotAnObject | EntryError::MissingField(_) | EntryError::NotAString(_) => {
                CheckKind::EntryFields
            }
            EntryError::UnknownType(_) => CheckKind::EntryType,
            EntryError::Name(_) => CheckKind::EntryName,
            EntryError::DescriptionLength(_) => CheckKind::EntryDescription,
            EntryError::EmptyUrl
            | EntryError::UrlUnresolvable { .. }
            | EntryError::UrlScheme(_) => CheckKind::EntryUrl,
            EntryError::Digest(_) => CheckKind::EntryDigestFormat,
            EntryError::NoFiles
            | EntryError::FilesNotStrings
            | EntryError::UnsafeFile(_)
            | EntryError::FileOutside { .. }
            | EntryError::NoSkillMd => CheckKind::EntryFiles,
            _ => CheckKind::EntryFields,
        };
        Self::problem(kind, error)
    }

    /// An archive that must not be unpacked.
    pub(crate) fn unpack(error: UnpackError) -> Self {
        let kind = match error {
            UnpackError::Corrupt(_) => CheckKind::ArchiveUnpack,
            UnpackError::Traversal(_) => CheckKind::ArchiveTraversal,
            UnpackError::LinkOutside { .. } | UnpackError::ThroughLink(_) => CheckKind::ArchiveLink,
            UnpackError::SpecialFile(_) => CheckKind::ArchiveSpecialFile,
            UnpackError::Encrypted(_) => CheckKind::ArchiveEncrypted,
            UnpackError::Duplicate(_) => CheckKind::ArchiveDuplicate,
            UnpackError::TooLarge(_) => CheckKind::ArchiveTooLarge,
            UnpackError::TooManyFiles(_) => CheckKind::ArchiveTooManyFiles,
            UnpackError::NoSkillMd => CheckKind::ArchiveSkillMd,
            UnpackError::PathTooLong { .. } | UnpackError::LinkTooLong { .. } => {
                CheckKind::ArchivePathLength
            }
            UnpackError::Deadline => CheckKind::RunMaxTime,
            _ => CheckKind::ArchiveUnpack,
        };
        Self::problem(kind, error)
    }

    /// Something unpacking tolerated.
    pub(crate) fn note(note: &UnpackNote) -> Self {
        let kind = match note {
            UnpackNote::DotPrefix => CheckKind::ArchiveDotPrefix,
            UnpackNote::LinkSkipped { .. } | UnpackNote::MoreLinksSkipped(_) => {
                CheckKind::ArchiveLinkSkipped
            }
            _ => CheckKind::ArchiveLinkSkipped,
        };
        Self::new(kind, kind.severity().into(), note.to_string())
    }

    /// One piece of the authoring advice on a fetched skill, its rule's code in brackets: a
    /// warning is a `warn` line, an info an `ok` line. A finding in a supporting file names
    /// it first.
    pub(crate) fn advice(advice: Advice) -> Self {
        let message = match advice.file() {
            SKILL_MD => format!("{advice} [{}]", advice.code()),
            file => format!("{file}: {advice} [{}]", advice.code()),
        };
        Self::new(CheckKind::SkillAdvice, advice.severity().into(), message).because(advice)
    }

    /// The deadline passed while the authoring advice ran on a fetched `SKILL.md`: none of
    /// it is given, and the run says so under `run.max-time`.
    pub(crate) fn advice_deadline(error: AdviceDeadline) -> Self {
        let kind = CheckKind::RunMaxTime;
        let message = format!("{error} (skillpub check --max-time); {SKILL_MD} got no advice");
        Self::new(kind, kind.severity().into(), message).because(error)
    }

    /// A fetched artifact that cannot be used, other than for the skill's rules (the caller
    /// reports those one by one).
    pub(crate) fn client(error: ClientError) -> Self {
        match error {
            ClientError::Fetch(error) => Self::failed("GET", error),
            ClientError::Unpack { error, .. } => Self::unpack(error),
            ClientError::Index { error, .. } => Self::index(error),
            error @ ClientError::DigestMismatch {
                expected, actual, ..
            } => Self::digest_drift(CheckKind::EntryDigest, &expected, &actual).because(error),
            ClientError::BadTarget(_) => Self::target(error),
            ClientError::Status { .. } => Self::problem(CheckKind::EntryStatus, error),
            ClientError::UnknownArchive { .. } => Self::problem(CheckKind::ArchiveUnpack, error),
            ClientError::Invalid { .. } => Self::problem(CheckKind::SkillFrontmatter, error),
            _ => Self::problem(CheckKind::FetchTransport, error),
        }
    }
}

/// The code of a failed request.
fn fetch_kind(error: &FetchError) -> CheckKind {
    match error {
        FetchError::Scheme(_) => CheckKind::FetchScheme,
        FetchError::PrivateHost(_) | FetchError::PrivateAddress { .. } => {
            CheckKind::FetchPrivateHost
        }
        FetchError::NotAllowed(_) => CheckKind::FetchNotAllowed,
        FetchError::TooManyRedirects { .. } | FetchError::BadRedirect(_) => {
            CheckKind::FetchRedirect
        }
        FetchError::TooLarge { .. } => CheckKind::FetchTooLarge,
        FetchError::Timeout(_) => CheckKind::FetchTimeout,
        FetchError::Deadline(_) => CheckKind::RunMaxTime,
        FetchError::Encoding { .. } => CheckKind::EncodingUnsupported,
        FetchError::CorruptEncoding { .. } => CheckKind::EncodingCorrupt,
        FetchError::Transport { .. } => CheckKind::FetchTransport,
        _ => CheckKind::FetchTransport,
    }
}

/// A code that names no check.
///
/// # Example
///
/// ```
/// use skillpub_check::CheckKind;
///
/// let error = "entry.digets".parse::<CheckKind>().unwrap_err();
/// assert_eq!(error.to_string(), "`entry.digets` is not a code of `skillpub check`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a code of `skillpub check`")]
pub struct UnknownCode(pub String);

impl std::str::FromStr for CheckKind {
    type Err = UnknownCode;

    fn from_str(code: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|kind| kind.code() == code)
            .ok_or_else(|| UnknownCode(code.to_owned()))
    }
}

/// The code.
impl std::fmt::Display for CheckKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}
