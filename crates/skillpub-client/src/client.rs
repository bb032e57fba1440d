//! The client a host uses: discover an index, fetch an entry's artifact, verify it before
//! anything else, unpack it safely and validate the skill.

use std::time::Instant;

use http::{Method, StatusCode};
use skillpub_core::{Digest, Errors, Frontmatter, INDEX_PATH, SKILL_MD, SkillMd};
use url::Url;

use crate::fetch::{ACCEPT_ENCODING, FetchError, Fetched, Limits, Policy, Transport, send};
use crate::index::{self, ArtifactKind, Entry, Index, IndexError};
use crate::unpack::{self, UnpackError, UnpackedFile};

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
    policy: Policy,
    limits: Limits,
    deadline: Option<Instant>,
}

/// Why a skill or an index could not be used. Each names what it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The target is not a URL.
    #[error("`{0}` is not a URL; give an origin such as https://example.com or an index URL")]
    BadTarget(String),
    /// A request failed.
    #[error(transparent)]
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
        error: UnpackError,
    },
    /// The skill does not pass the Agent Skills rules.
    #[error("skill `{skill}` is invalid:\n{errors}")]
    Invalid {
        /// The skill.
        skill: String,
        /// Every problem.
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
    pub notes: Vec<String>,
}

impl<T: Transport> Client<T> {
    /// A client with the default limits that refuses local and private hosts.
    pub fn new(transport: T) -> Self {
        Self {
            transport,
            policy: Policy::default(),
            limits: Limits::default(),
            deadline: None,
        }
    }

    /// Sets a deadline for everything done through this client: every request and redirect
    /// hop, every body read and every archive unpacked ends by then, or fails with
    /// [`FetchError::Deadline`] or [`UnpackError::Deadline`]. Without one (the default), each
    /// request is bounded by the transport's timeout only.
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
    pub fn with_policy(mut self, policy: Policy) -> Self {
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

    /// Sends one request with the client's policy, limits and deadline, following redirects.
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
        send(
            &self.transport,
            &self.policy,
            &self.limits,
            method,
            url,
            headers,
            self.deadline,
        )
    }

    /// The index URL for a target: an index URL (a path ending in `.json`) as given, or the
    /// `.well-known/agent-skills/index.json` under the target's path, so that a site mounted
    /// under a prefix is found there.
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
            &[
                ("accept", "application/json"),
                ("accept-encoding", ACCEPT_ENCODING),
            ],
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

    /// Fetches an entry's artifact (sending [`ACCEPT_ENCODING`](crate::ACCEPT_ENCODING)),
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
