//! The client a host uses: discover an index, fetch an entry's artifact, verify it before
//! anything else, unpack it safely and validate the skill.

use std::time::Instant;

use http::{Method, StatusCode};
use skillpub_core::{
    Digest, Errors, Frontmatter, SkillMd,
    index::ArtifactKind,
    media::JSON,
    paths::{INDEX_PATH, SKILL_MD},
};
use url::Url;

use crate::credentials::Credentials;
use crate::fetch::{
    ACCEPT_ENCODING, FetchError, Fetched, HostPolicy, Limits, Outgoing, Transport, send_as,
};
use crate::index::{self, Entry, Index, IndexError};
use crate::unpack::{self, UnpackError, UnpackNote, UnpackedFile};

/// A strict discovery client over a transport.
///
/// Cloning is cheap when the transport's is ([`HttpTransport`](crate::HttpTransport) shares
/// its connection pool), so a client with a deadline for one call is a clone away:
///
/// ```no_run
/// use std::time::{Duration, Instant};
/// use skillpub_client::{Client, HttpTransport};
///
/// let client = Client::new(HttpTransport::new(Duration::from_secs(10)));
/// // Everything this call does, redirects, downloads and unpacking included, ends in 30 s.
/// let index = client
///     .clone()
///     .with_deadline(Instant::now() + Duration::from_secs(30))
///     .discover("https://example.com")?;
/// # Ok::<(), skillpub_client::ClientError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Client<T> {
    transport: T,
    policy: HostPolicy,
    limits: Limits,
    deadline: Option<Instant>,
    credentials: Option<Credentials>,
}

/// Why a skill or an index could not be used. Each names what it is about.
///
/// The message is complete on its own, for people; a variant that wraps a lower error also
/// returns it from [`Error::source`](std::error::Error::source), for code that inspects it
/// (the [`FetchError`], [`UnpackError`], [`IndexError`] or the core's validation [`Errors`]).
///
/// # Example
///
/// ```
/// use std::error::Error;
/// use std::time::Duration;
/// use skillpub_client::{Client, ClientError, FetchError, HttpTransport};
///
/// let client = Client::new(HttpTransport::new(Duration::from_secs(10)));
/// let error = client.discover("http://127.0.0.1:8080").unwrap_err();
/// let source = error.source().and_then(|source| source.downcast_ref::<FetchError>());
/// assert!(matches!(source, Some(FetchError::PrivateHost(_))));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The target is not a URL.
    #[error("`{0}` is not a URL; give an origin such as https://example.com or an index URL")]
    BadTarget(String),
    /// A request failed.
    #[error("{0}")]
    Fetch(#[from] FetchError),
    /// The server did not answer `200`.
    #[error("`{url}` answered {status}, not 200")]
    Status {
        /// The URL.
        url: String,
        /// The status.
        status: StatusCode,
    },
    /// The index cannot be used.
    #[error("{url}: {error}")]
    Index {
        /// The index URL.
        url: String,
        /// Why.
        #[source]
        error: IndexError,
    },
    /// The served bytes do not hash to the index's digest: they must not be used.
    #[error(
        "skill `{skill}`: the index says {expected}, but the bytes served at {url} are {actual}"
    )]
    DigestMismatch {
        /// The skill.
        skill: String,
        /// The URL.
        url: String,
        /// The digest in the index.
        expected: Digest,
        /// The digest of the served bytes.
        actual: Digest,
    },
    /// An archive of unknown format.
    #[error(
        "skill `{skill}`: {url} is not a .tar.gz or .zip archive (Content-Type, extension and bytes say neither)"
    )]
    UnknownArchive {
        /// The skill.
        skill: String,
        /// The URL.
        url: String,
    },
    /// An archive that must not be unpacked.
    #[error("skill `{skill}`: {error}")]
    Unpack {
        /// The skill.
        skill: String,
        /// Why.
        #[source]
        error: UnpackError,
    },
    /// The skill does not pass the Agent Skills rules.
    #[error("skill `{skill}` is invalid:\n{errors}")]
    Invalid {
        /// The skill.
        skill: String,
        /// Every problem.
        #[source]
        errors: Errors,
    },
}

/// A fetched, verified and validated skill.
#[derive(Debug, Clone)]
pub struct FetchedSkill {
    /// The response that carried the artifact.
    pub response: Fetched,
    /// The frontmatter of its `SKILL.md`.
    pub frontmatter: Frontmatter,
    /// The `SKILL.md` bytes.
    pub skill_md: Vec<u8>,
    /// The supporting files (archives only).
    pub files: Vec<UnpackedFile>,
    /// Things tolerated while unpacking.
    pub notes: Vec<UnpackNote>,
}

impl<T: Transport> Client<T> {
    /// A client with the default limits that refuses local and private hosts.
    pub fn new(transport: T) -> Self {
        Self {
            transport,
            policy: HostPolicy::default(),
            limits: Limits::default(),
            deadline: None,
            credentials: None,
        }
    }

    /// Sets a deadline for everything done through this client: every request and redirect
    /// hop, every body read and every archive unpacked ends by then, or fails with
    /// [`FetchError::Deadline`] or [`UnpackError::Deadline`] (skillpub-check's `check` also
    /// stops its authoring advice on a fetched `SKILL.md` at it). Without one (the default),
    /// each request is bounded by the transport's timeout only.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use skillpub_client::{Client, ClientError, FetchError, HttpTransport};
    ///
    /// let client = Client::new(HttpTransport::new(Duration::from_secs(10)))
    ///     .with_deadline(Instant::now());
    /// let error = client.discover("https://example.com").unwrap_err();
    /// assert!(matches!(error, ClientError::Fetch(FetchError::Deadline(_))));
    /// ```
    #[must_use]
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The deadline in force, if any.
    #[must_use]
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Replaces the host policy (private hosts, origin allowlist).
    #[must_use]
    pub fn with_policy(mut self, policy: HostPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Replaces the limits.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits in force.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Sends `credentials` with every request to their origin, and with no other request:
    /// not after a redirect to another origin (for the rest of that chain), not to an artifact
    /// or an index on another origin. See [`credentials`](crate::credentials).
    ///
    /// # Example
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use skillpub_client::credentials::{BearerToken, Credentials};
    /// use skillpub_client::{Client, HttpTransport};
    ///
    /// let site = url::Url::parse("https://skills.example.com")?;
    /// let token = BearerToken::new(&std::env::var("SKILLS_TOKEN")?)?;
    /// let client = Client::new(HttpTransport::new(Duration::from_secs(10)))
    ///     .with_credentials(Credentials::new(&site)?.with_bearer(&token));
    /// let index = client.discover(site.as_str())?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// The credentials in force, if any.
    #[must_use]
    pub fn credentials(&self) -> Option<&Credentials> {
        self.credentials.as_ref()
    }

    /// Sends one request with the client's policy, limits, deadline and credentials (on
    /// their origin only), following redirects.
    ///
    /// # Errors
    ///
    /// See [`FetchError`].
    pub fn request(
        &self,
        method: &Method,
        url: &Url,
        headers: &[(&str, &str)],
    ) -> Result<Fetched, FetchError> {
        let request = Outgoing {
            method,
            url,
            headers,
            credentials: self.credentials.as_ref(),
        };
        send_as(
            &self.transport,
            &self.policy,
            &self.limits,
            &request,
            self.deadline,
        )
    }

    /// The index URL for a target: an index URL (a path ending in `.json`) as given, or the
    /// `.well-known/agent-skills/index.json` under the target's path, so that a site mounted
    /// under a prefix is found there; the same as [`index_url`](crate::index_url), which needs
    /// no transport type.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_client::{Client, HttpTransport};
    ///
    /// let index = |target| Client::<HttpTransport>::index_url(target).unwrap().to_string();
    /// assert_eq!(index("https://example.com"), "https://example.com/.well-known/agent-skills/index.json");
    /// assert_eq!(index("https://example.com/tenant/"), "https://example.com/tenant/.well-known/agent-skills/index.json");
    /// assert_eq!(index("https://example.com/v1/skills.json"), "https://example.com/v1/skills.json");
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::BadTarget`] when the target is not an http(s) URL.
    pub fn index_url(target: &str) -> Result<Url, ClientError> {
        index_url(target)
    }

    /// Fetches and parses the index of a target (an origin, an origin with a path prefix, or
    /// an index URL; see [`index_url`](Self::index_url)).
    ///
    /// # Errors
    ///
    /// When the index cannot be fetched or used at all.
    pub fn discover(&self, target: &str) -> Result<Index, ClientError> {
        let url = Self::index_url(target)?;
        let response = self.request(
            &Method::GET,
            &url,
            &[("accept", JSON), ("accept-encoding", ACCEPT_ENCODING)],
        )?;
        if response.status != StatusCode::OK {
            return Err(ClientError::Status {
                url: response.url.to_string(),
                status: response.status,
            });
        }
        index::parse(&response.url, &response.body).map_err(|error| ClientError::Index {
            url: response.url.to_string(),
            error,
        })
    }

    /// Fetches an entry's artifact (sending [`ACCEPT_ENCODING`](crate::fetch::ACCEPT_ENCODING)),
    /// checks the digest of the decoded body before using a byte of it, unpacks an archive
    /// within the limits, and validates the skill (its name must equal the entry's).
    ///
    /// # Errors
    ///
    /// See [`ClientError`]; a digest mismatch is [`ClientError::DigestMismatch`].
    pub fn fetch(&self, entry: &Entry) -> Result<FetchedSkill, ClientError> {
        let response = self.request(
            &Method::GET,
            &entry.url,
            &[("accept-encoding", ACCEPT_ENCODING)],
        )?;
        self.verify(entry, response)
    }

    /// Verifies a response to `GET entry.url` as [`fetch`](Self::fetch) does: status, digest,
    /// archive, skill.
    ///
    /// # Errors
    ///
    /// See [`ClientError`].
    pub fn verify(&self, entry: &Entry, response: Fetched) -> Result<FetchedSkill, ClientError> {
        if response.status != StatusCode::OK {
            return Err(ClientError::Status {
                url: response.url.to_string(),
                status: response.status,
            });
        }
        let actual = Digest::of(&response.body);
        if actual != entry.digest {
            return Err(ClientError::DigestMismatch {
                skill: entry.name.clone(),
                url: response.url.to_string(),
                expected: entry.digest,
                actual,
            });
        }
        let (skill_md, files, notes) = match entry.kind {
            ArtifactKind::SkillMd => (response.body.clone(), Vec::new(), Vec::new()),
            ArtifactKind::Archive => {
                let format = unpack::detect(
                    response.media_type().as_deref(),
                    response.url.path(),
                    &response.body,
                )
                .ok_or_else(|| ClientError::UnknownArchive {
                    skill: entry.name.clone(),
                    url: response.url.to_string(),
                })?;
                let unpacked = unpack::unpack(format, &response.body, &self.limits, self.deadline)
                    .map_err(|error| ClientError::Unpack {
                        skill: entry.name.clone(),
                        error,
                    })?;
                let (skill_md, files): (Vec<_>, Vec<_>) = unpacked
                    .files
                    .into_iter()
                    .partition(|file| file.path == SKILL_MD);
                let skill_md = skill_md
                    .into_iter()
                    .next()
                    .map(|file| file.bytes)
                    .unwrap_or_default();
                (skill_md, files, unpacked.notes)
            }
        };
        let frontmatter = validate(&entry.name, &skill_md)?;
        Ok(FetchedSkill {
            response,
            frontmatter,
            skill_md,
            files,
            notes,
        })
    }
}

/// The index URL for a target, whatever the transport: an index URL (a path ending in
/// `.json`) as given, or the `.well-known/agent-skills/index.json` under the target's path, so
/// that a site mounted under a prefix is found there. [`Client::index_url`] is the same.
///
/// # Example
///
/// ```
/// let index = |target| skillpub_client::index_url(target).unwrap().to_string();
/// assert_eq!(index("https://example.com"), "https://example.com/.well-known/agent-skills/index.json");
/// assert_eq!(index("https://example.com/tenant/"), "https://example.com/tenant/.well-known/agent-skills/index.json");
/// assert_eq!(index("https://example.com/v1/skills.json"), "https://example.com/v1/skills.json");
/// ```
///
/// # Errors
///
/// [`ClientError::BadTarget`] when the target is not an http(s) URL.
pub fn index_url(target: &str) -> Result<Url, ClientError> {
    let mut url = Url::parse(target).map_err(|_| ClientError::BadTarget(target.to_owned()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(ClientError::BadTarget(target.to_owned()));
    }
    url.set_fragment(None);
    if !url.path().ends_with(".json") {
        let prefix = url.path().trim_end_matches('/').to_owned();
        url.set_path(&format!("{prefix}{INDEX_PATH}"));
    }
    Ok(url)
}

/// Validates a fetched `SKILL.md` with the Agent Skills rules ([`SkillMd::parse`]), the entry
/// name as its folder name. Only the `SKILL.md` is judged: the supporting files are not held
/// to the publisher's rules (URL-safe names, 512 files, 16 MiB), since a client accepts what
/// the draft allows, within its own limits.
fn validate(name: &str, skill_md: &[u8]) -> Result<Frontmatter, ClientError> {
    SkillMd::parse(skill_md.to_vec(), Some(name))
        .map(SkillMd::into_frontmatter)
        .map_err(|errors| ClientError::Invalid {
            skill: name.to_owned(),
            errors,
        })
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use std::error::Error;
    use std::io::Write;
    use std::net::TcpListener;
    use std::time::Duration;

    use skillpub_core::ErrorKind;
    use skillpub_testkit::serve_raw;

    use super::*;
    use crate::HttpTransport;
    use crate::source::SourceError;

    fn client() -> Client<HttpTransport> {
        Client::new(HttpTransport::allowing_private(Duration::from_secs(5))).with_policy(
            HostPolicy {
                allow_private: true,
                allowlist: None,
            },
        )
    }

    /// The errors from `error` down, each as `Error::source` gives it.
    fn chain<'a>(error: &'a (dyn Error + 'static)) -> Vec<&'a (dyn Error + 'static)> {
        std::iter::successors(Some(error), |&error| error.source()).collect()
    }

    /// An entry of `kind` whose digest matches `bytes`, and the answer that served them.
    fn served(kind: ArtifactKind, path: &str, bytes: &[u8]) -> (Entry, Fetched) {
        let url = Url::parse(&format!("https://example.com/{path}")).unwrap();
        let entry = Entry {
            name: "greeting".into(),
            kind,
            description: "Greets.".into(),
            raw_url: path.into(),
            url: url.clone(),
            digest: Digest::of(bytes),
        };
        let fetched = Fetched {
            url,
            status: StatusCode::OK,
            headers: http::HeaderMap::new(),
            body: bytes.to_vec(),
            encoded_digest: None,
            credentialed: false,
        };
        (entry, fetched)
    }

    #[test]
    fn a_refused_request_is_the_source_of_the_client_error() {
        let strict = Client::new(HttpTransport::new(Duration::from_secs(5)));
        let error = strict.discover("http://127.0.0.1:9").unwrap_err();
        let source = error.source().and_then(|e| e.downcast_ref::<FetchError>());
        assert!(
            matches!(source, Some(FetchError::PrivateHost(_))),
            "{error:?}"
        );
    }

    #[test]
    fn the_chain_reaches_what_the_http_stack_said() {
        let closed = TcpListener::bind("127.0.0.1:0").unwrap();
        let origin = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        let error = client().discover(&origin).unwrap_err();
        let chain = chain(&error);
        assert!(
            matches!(
                chain[1].downcast_ref::<FetchError>(),
                Some(FetchError::Transport { .. })
            ),
            "{chain:?}"
        );
        let below = chain[2]
            .downcast_ref::<SourceError>()
            .expect("the transport's error");
        assert!(below.downcast_ref::<ureq::Error>().is_some(), "{below:?}");
    }

    #[test]
    fn an_index_that_is_not_json_is_the_source() {
        let addr = serve_raw(|mut stream| {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 6\r\nConnection: close\r\n\r\n<html>",
            );
        });
        let origin = format!("http://{addr}");
        let error = client().discover(&origin).unwrap_err();
        let source = error.source().and_then(|e| e.downcast_ref::<IndexError>());
        assert!(matches!(source, Some(IndexError::NotJson(_))), "{error:?}");
    }

    #[test]
    fn a_refused_archive_is_the_source() {
        let mut tar = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_size(1);
        header.set_mode(0o644);
        header.set_cksum();
        // `append_data` refuses `..`, as an honest tool would; write the name by hand.
        header.as_gnu_mut().unwrap().name[..4].copy_from_slice(b"../x");
        header.set_cksum();
        tar.append(&header, &b"x"[..]).unwrap();
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(&tar.into_inner().unwrap()).unwrap();
        let archive = gzip.finish().unwrap();
        let (entry, fetched) = served(ArtifactKind::Archive, "greeting.tar.gz", &archive);
        let error = client().verify(&entry, fetched).unwrap_err();
        let source = error.source().and_then(|e| e.downcast_ref::<UnpackError>());
        assert_eq!(
            source,
            Some(&UnpackError::Traversal("../x".into())),
            "{error}"
        );

        let (entry, fetched) = served(ArtifactKind::Archive, "greeting.zip", b"PK\x03\x04broken");
        let error = client().verify(&entry, fetched).unwrap_err();
        let chain = chain(&error);
        let corrupt = chain[1].downcast_ref::<UnpackError>();
        assert!(
            matches!(corrupt, Some(UnpackError::Corrupt(_))),
            "{chain:?}"
        );
        let below = chain[2]
            .downcast_ref::<SourceError>()
            .expect("the reader's error");
        assert!(below.downcast_ref::<zip::result::ZipError>().is_some());
    }

    #[test]
    fn an_invalid_skill_md_has_the_core_errors_as_source() {
        let skill_md = b"---\nname: Greeting\ndescription: Greets.\n---\n";
        let (entry, fetched) = served(ArtifactKind::SkillMd, "SKILL.md", skill_md);
        let error = client().verify(&entry, fetched).unwrap_err();
        let errors = error
            .source()
            .and_then(|e| e.downcast_ref::<Errors>())
            .expect("the core's errors");
        assert!(
            errors
                .as_slice()
                .iter()
                .any(|e| matches!(e.kind(), ErrorKind::NameUppercase { .. })),
            "{errors}"
        );
    }
}
