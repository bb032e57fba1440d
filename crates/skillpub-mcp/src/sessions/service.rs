//! [`Endpoint`]: the Streamable HTTP transport of a skills server behind the guard, rmcp's
//! stateless transport with the sessions of [`Sessions`] in front of it when
//! [`HttpOptions::with_stateful`](crate::HttpOptions::with_stateful) is on, and every event
//! stream counted against the cap of [`Streams`].
//!
//! Every request is answered by rmcp's stateless transport: the handler answers each one from
//! the catalog of that moment and keeps nothing per client, so a session adds nothing to how
//! a request is answered. What a session is, is done here, for the requests of the protocol
//! versions before 2026-07-28, as rmcp's own sessions do:
//!
//! - a request whose `MCP-Protocol-Version` is a known version from 2026-07-28 on has no
//!   session and goes straight through; one whose version is unknown gets `400`, unless it
//!   names its version in its `_meta` too (a later client negotiating: rmcp tells it which
//!   versions are served);
//! - an `initialize` without `Mcp-Session-Id` takes a place among the sessions (that of the
//!   least recently used idle session when all are taken, or `503` when every one is busy),
//!   and its answer carries the new session's id;
//! - any other request with `Mcp-Session-Id` names an open session (or gets `404`) and marks
//!   it busy while it runs; one without it gets `400`, as the transport's sessions require
//!   (`server/discover` aside);
//! - `GET` opens the session's event stream (`405` when the catalog is fixed: nothing ever
//!   changes, so there is nothing to tell); `DELETE` ends the session.

use std::fmt;
use std::sync::Arc;

use http::{HeaderValue, Method, Response, StatusCode};
use http_body_util::BodyExt;
use http_body_util::Full;
use rmcp::model::ProtocolVersion;
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use serde::Deserialize;

use super::registry::{NoStream, Sessions};
use super::stream::event_stream;
use crate::answers::{self, BoxResponse};
use crate::live::LiveMcpSkills;
use crate::media;
use crate::request::{Incoming, Message};
use crate::server::SkillsServer;
use crate::streams::{Streams, held};

/// The Streamable HTTP transport of a skills server, sessions included. Cheap to clone;
/// every clone serves the same sessions and counts the same streams.
#[derive(Clone)]
pub(crate) struct Endpoint {
    shared: Arc<Shared>,
}

struct Shared {
    rmcp: StreamableHttpService<SkillsServer, NeverSessionManager>,
    /// With sessions: the sessions, and the live catalog whose changes their streams tell.
    sessions: Option<(Arc<Sessions>, Option<LiveMcpSkills>)>,
    streams: Arc<Streams>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sessions = self.shared.sessions.as_ref().map(|(sessions, _)| sessions);
        f.debug_struct("Endpoint")
            .field("sessions", &sessions)
            .field("streams", &self.shared.streams)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    pub(crate) fn new(
        rmcp: StreamableHttpService<SkillsServer, NeverSessionManager>,
        sessions: Option<(Arc<Sessions>, Option<LiveMcpSkills>)>,
        streams: Arc<Streams>,
    ) -> Self {
        Self {
            shared: Arc::new(Shared {
                rmcp,
                sessions,
                streams,
            }),
        }
    }

    /// The cap on open event streams.
    pub(crate) fn streams(&self) -> &Streams {
        &self.shared.streams
    }

    /// The answer to `request`, which the guard let through.
    pub(crate) async fn handle(&self, request: Incoming) -> BoxResponse {
        self.shared.answer(request).await
    }

    /// rmcp's answer to `request`, sessions aside: for a request it refuses from its headers.
    pub(crate) async fn forward(&self, request: Incoming) -> BoxResponse {
        self.shared.forward(request).await
    }
}

/// Which sessions a request's `MCP-Protocol-Version` puts it in.
enum Era<'a> {
    /// None, or a known version before 2026-07-28: the requests that have sessions.
    Sessions,
    /// A known version from 2026-07-28 on, which has no sessions.
    Sessionless,
    /// A version rmcp does not know.
    Unknown(&'a HeaderValue),
}

impl<'a> Era<'a> {
    fn of(version: Option<&'a HeaderValue>) -> Self {
        let Some(version) = version else {
            return Self::Sessions;
        };
        let known = version.to_str().ok().and_then(|text| {
            ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .find(|known| known.as_str() == text)
        });
        match known {
            Some(known) if known.has_initialize() => Self::Sessions,
            Some(_) => Self::Sessionless,
            None => Self::Unknown(version),
        }
    }
}

impl Shared {
    async fn answer(&self, request: Incoming) -> BoxResponse {
        let Some((sessions, live)) = &self.sessions else {
            return self.forward(request).await;
        };
        match Era::of(request.protocol_version()) {
            Era::Sessions => {}
            Era::Sessionless => return self.forward(request).await,
            Era::Unknown(version) => {
                let negotiates = request.head.method == Method::POST
                    && request
                        .message()
                        .is_some_and(|message| message.names_its_version());
                if negotiates {
                    return self.forward(request).await;
                }
                return answers::unsupported_version(version);
            }
        }
        let method = request.head.method.clone();
        let session = request.session().map(str::to_owned);
        match (method, session) {
            (Method::POST, Some(id)) => {
                let Some(busy) = sessions.enter(&id) else {
                    return answers::session_not_found();
                };
                let response = self.forward(request).await;
                drop(busy);
                response
            }
            (Method::POST, None) => self.post_without_session(request, sessions, live).await,
            (Method::GET, session) => self.get(&request, session, sessions, live.as_ref()),
            (Method::DELETE, Some(id)) if sessions.close(&id) => answers::session_ended(),
            (Method::DELETE, Some(_)) => answers::session_not_found(),
            (Method::DELETE, None) => answers::session_required(),
            _ => self.forward(request).await,
        }
    }

    /// A `POST` without a session: an `initialize` opens one, `server/discover` needs none,
    /// anything else is refused as the transport's sessions require.
    async fn post_without_session(
        &self,
        request: Incoming,
        sessions: &Arc<Sessions>,
        live: &Option<LiveMcpSkills>,
    ) -> BoxResponse {
        let Some(message) = request.message() else {
            // rmcp answers what it cannot parse with its own error.
            return self.forward(request).await;
        };
        if message.is_request_for("server/discover") {
            return self.forward(request).await;
        }
        if !message.is_request_for("initialize") {
            return answers::session_required();
        }
        let versions = live
            .as_ref()
            .map(LiveMcpSkills::versions)
            .unwrap_or_default();
        let reservation = match sessions.reserve() {
            Ok(reservation) => reservation,
            Err(busy) => return answers::too_many_sessions(busy.max),
        };
        let response = self.forward(request).await;
        let (mut parts, body) = response.into_parts();
        if parts.status != StatusCode::OK || !media::content_type_is(&parts.headers, JSON_MIME_TYPE)
        {
            return Response::from_parts(parts, body);
        }
        let Ok(answered) = body.collect().await.map(|body| body.to_bytes());
        if is_result(&answered) {
            let session = reservation.open(versions);
            if let Ok(value) = HeaderValue::from_str(&session) {
                parts.headers.insert(HEADER_SESSION_ID, value);
            }
        }
        Response::from_parts(parts, Full::new(answered).boxed())
    }

    /// A session's `GET`: its event stream, when the catalog is live and a stream may open.
    fn get(
        &self,
        request: &Incoming,
        session: Option<String>,
        sessions: &Arc<Sessions>,
        live: Option<&LiveMcpSkills>,
    ) -> BoxResponse {
        let Some(id) = session else {
            return answers::session_required();
        };
        if !media::accepts(request.headers(), EVENT_STREAM_MIME_TYPE) {
            return answers::not_acceptable();
        }
        let Some(live) = live else {
            return answers::no_event_stream();
        };
        match sessions.open_stream(&id, || self.streams.take()) {
            Ok((open, ended, versions, slot)) => {
                event_stream(live.changes_since(versions), ended, open, slot)
            }
            Err(NoStream::NoSession) => answers::session_not_found(),
            Err(NoStream::NotAdmitted) => answers::too_many_streams(self.streams.max(), None),
        }
    }

    /// rmcp's answer, an event stream counted against the cap: beyond it, the stream is
    /// dropped (which ends its request) and the answer is `503`.
    async fn forward(&self, request: Incoming) -> BoxResponse {
        let body = request.body.clone();
        let response = self.rmcp.handle(request.into_request()).await;
        if !media::is_event_stream(response.headers()) {
            return response;
        }
        match self.streams.take() {
            Some(slot) => held(response, slot),
            None => {
                let id = Message::of(&body).and_then(|message| message.id);
                answers::too_many_streams(self.streams.max(), id)
            }
        }
    }
}

/// Whether rmcp's answer is a JSON-RPC result (not an error): the `initialize` succeeded.
fn is_result(body: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Answer {
        result: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Answer>(body).is_ok_and(|answer| answer.result.is_some())
}
