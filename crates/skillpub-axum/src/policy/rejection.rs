//! The error answers: why a request under the folders gets no artifact, as a status and a
//! small JSON body.

use bytes::Bytes;
use http::header::{ALLOW, CONTENT_TYPE, VARY};
use http::{HeaderValue, StatusCode};

use super::prepared::Prepared;
use super::settings::Policy;
use super::settings::{ALLOWED_METHODS, METHODS};

const JSON: HeaderValue = HeaderValue::from_static(skillpub_core::media::JSON);

/// Why a request under `/.well-known/agent-skills/` gets no artifact.
///
/// # Example
///
/// ```
/// use skillpub_axum::Rejection;
///
/// assert_eq!(Rejection::NotFound.status(), http::StatusCode::NOT_FOUND);
/// assert!(Rejection::NotFound.body_text().starts_with(r#"{"error":"not_found""#));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// No skill or file is published at this exact path.
    NotFound,
    /// The path exists, but only `GET`, `HEAD` and `OPTIONS` are answered.
    MethodNotAllowed,
    /// `If-Match` names none of the artifact's entity tags.
    PreconditionFailed,
    /// `Accept-Encoding` refuses every content coding the artifact is served in, identity
    /// included.
    NotAcceptable,
}

impl Rejection {
    /// The status code.
    #[must_use]
    pub fn status(self) -> StatusCode {
        match self {
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
            Self::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        }
    }

    /// The JSON body, one line.
    #[must_use]
    pub fn body_text(self) -> String {
        let (code, message) = match self {
            Self::NotFound => (
                "not_found",
                "No skill or file is published at this path; index.json in this folder lists every skill.",
            ),
            Self::MethodNotAllowed => ("method_not_allowed", "Skills are read-only."),
            Self::PreconditionFailed => (
                "precondition_failed",
                "If-Match names none of this file's entity tags; fetch it again.",
            ),
            Self::NotAcceptable => (
                "not_acceptable",
                "Accept-Encoding refuses every coding this file is served in; accept identity.",
            ),
        };
        format!("{{\"error\":\"{code}\",\"message\":\"{message}\",\"allow\":\"{METHODS}\"}}\n")
    }
}

impl Policy {
    /// The answer for a rejection: its status, a small JSON body and short-lived caching;
    /// `405` says which methods are allowed, `406` that the answer depends on
    /// `Accept-Encoding`.
    pub(super) fn error(&self, rejection: Rejection) -> Prepared {
        self.error_cached(rejection, &self.error_cache_control)
    }

    /// The answer for a rejection, cached as `cache_control` says.
    pub(super) fn error_cached(
        &self,
        rejection: Rejection,
        cache_control: &HeaderValue,
    ) -> Prepared {
        let body = Bytes::from(rejection.body_text());
        let mut headers = self.common(cache_control);
        headers.insert(CONTENT_TYPE, JSON);
        match rejection {
            Rejection::MethodNotAllowed => {
                headers.insert(ALLOW, ALLOWED_METHODS);
            }
            Rejection::NotAcceptable => {
                if let Some(vary) = self.vary(true) {
                    headers.insert(VARY, vary);
                }
            }
            Rejection::NotFound | Rejection::PreconditionFailed => {}
        }
        Prepared::with_content(rejection.status(), headers, body)
    }
}
