//! [`Endpoint`]: the Streamable HTTP transport of a skills server, rmcp's stateless
//! transport with the sessions of [`Sessions`] in front of it when
//! [`HttpOptions::stateful`](crate::HttpOptions::stateful) is on.
//!
//! Every request is answered by rmcp's stateless transport: the handler answers each one from
//! the catalog of that moment and keeps nothing per client, so a session adds nothing to how
//! a request is answered. What a session is, is done here, for the requests of the protocol
//! versions before 2026-07-28 (a request whose `MCP-Protocol-Version` names 2026-07-28 or
//! later has no session and goes straight through):
//!
//! - an `initialize` without `Mcp-Session-Id` takes a place among the sessions (or gets
//!   `503`), and its answer carries the new session's id;
//! - any other request with `Mcp-Session-Id` names an open session (or gets `404`) and marks
//!   it busy while it runs; one without it gets `400`, as the transport's sessions require
//!   (`server/discover` aside);
//! - `GET` opens the session's event stream (`405` when the catalog is fixed: nothing ever
//!   changes, so there is nothing to tell); `DELETE` ends the session.
//!
//! rmcp checks `Host` and `Origin` for every request it answers. For those answered here
//! (`GET`, `DELETE` and the refusals), a `GET` without a body goes to rmcp first: it answers
//! `405` only when `Host` and `Origin` pass, and its `403` or `400` is the answer otherwise.

use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;

use bytes::{Buf, Bytes, BytesMut};
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, Uri, header};
use http_body::Body;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty, Full};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ProtocolVersion};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;

use super::answers;
use super::registry::Sessions;
use super::stream::event_stream;
use crate::live::LiveMcpSkills;
use crate::server::SkillsServer;

/// What every answer of the transport is.
pub(crate) type BoxResponse = Response<BoxBody<Bytes, Infallible>>;

/// The most bytes a request body may have: rmcp's limit, which it is given too.
pub(crate) const MAX_BODY: usize = 4 * 1024 * 1024;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// The Streamable HTTP transport of a skills server, sessions included: what
/// [`McpService`](crate::McpService) caps the event streams of. Cheap to clone; every clone
/// serves the same sessions.
#[derive(Clone)]
pub(crate) struct Endpoint {
    shared: Arc<Shared>,
}

struct Shared {
    rmcp: StreamableHttpService<SkillsServer, NeverSessionManager>,
    /// With sessions: the sessions, and the live catalog whose changes their streams tell.
    sessions: Option<(Arc<Sessions>, Option<LiveMcpSkills>)>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sessions = self.shared.sessions.as_ref().map(|(sessions, _)| sessions);
        f.debug_struct("Endpoint")
            .field("sessions", &sessions)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    pub(crate) fn new(
        rmcp: StreamableHttpService<SkillsServer, NeverSessionManager>,
        sessions: Option<(Arc<Sessions>, Option<LiveMcpSkills>)>,
    ) -> Self {
        Self {
            shared: Arc::new(Shared { rmcp, sessions }),
        }
    }
}

impl Endpoint {
    /// The answer to `request`.
    pub(crate) async fn handle<B>(&self, request: Request<B>) -> BoxResponse
    where
        B: Body + Send + 'static,
        B::Error: fmt::Display,
    {
        self.shared.answer(request).await
    }
}

impl Shared {
    async fn answer<B>(&self, request: Request<B>) -> BoxResponse
    where
        B: Body + Send + 'static,
        B::Error: fmt::Display,
    {
        let Some((sessions, live)) = &self.sessions else {
            return self.rmcp.handle(request).await;
        };
        if is_modern(request.headers()) {
            return self.rmcp.handle(request).await;
        }
        let session = request
            .headers()
            .get(SESSION_ID)
            .map(|id| id.to_str().unwrap_or_default().to_owned());
        match (request.method(), session) {
            (&Method::POST, Some(id)) => {
                let Some(busy) = sessions.enter(&id) else {
                    let head = (request.uri(), request.headers());
                    return self.refuse(head, answers::session_not_found).await;
                };
                let response = self.rmcp.handle(request).await;
                drop(busy);
                response
            }
            (&Method::POST, None) => self.post_without_session(request, sessions, live).await,
            (&Method::GET, session) => {
                let head = (request.uri(), request.headers());
                self.get(head, session, sessions, live).await
            }
            (&Method::DELETE, session) => {
                let head = (request.uri(), request.headers());
                if let Some(refused) = self.checked(head, session.as_deref()).await {
                    return refused;
                }
                match session {
                    Some(id) if sessions.close(&id) => answers::session_ended(),
                    _ => answers::session_not_found(),
                }
            }
            _ => self.rmcp.handle(request).await,
        }
    }

    /// A `POST` without a session: an `initialize` opens one, `server/discover` needs none,
    /// anything else is refused as the transport's sessions require.
    async fn post_without_session<B>(
        &self,
        request: Request<B>,
        sessions: &Arc<Sessions>,
        live: &Option<LiveMcpSkills>,
    ) -> BoxResponse
    where
        B: Body + Send + 'static,
        B::Error: fmt::Display,
    {
        // rmcp refuses these before it reads the body, and so does this.
        if !is_json_post(request.headers()) {
            return self.rmcp.handle(request).await;
        }
        let (parts, body) = request.into_parts();
        let bytes = match read_body(body).await {
            Ok(bytes) => bytes,
            Err(refused) => return refused,
        };
        let kind = match serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) {
            Ok(ClientJsonRpcMessage::Request(message)) => match message.request {
                ClientRequest::InitializeRequest(_) => Kind::Initialize,
                ClientRequest::DiscoverRequest(_) => Kind::Sessionless,
                _ => Kind::InSession,
            },
            Ok(_) => Kind::InSession,
            // rmcp answers what it cannot parse with its own error.
            Err(_) => Kind::Sessionless,
        };
        let (uri, headers) = (parts.uri.clone(), parts.headers.clone());
        let head = (&uri, &headers);
        let request = Request::from_parts(parts, Full::new(bytes));
        match kind {
            Kind::Initialize => {}
            Kind::Sessionless => return self.rmcp.handle(request).await,
            Kind::InSession => return self.refuse(head, answers::session_required).await,
        }
        let versions = live
            .as_ref()
            .map(LiveMcpSkills::versions)
            .unwrap_or_default();
        match sessions.reserve() {
            Ok(reservation) => {
                let response = self.rmcp.handle(request).await;
                let (mut parts, body) = response.into_parts();
                let answered = body.collect().await.map(|body| body.to_bytes());
                let Ok(answered) = answered;
                if parts.status == StatusCode::OK && is_result(&parts.headers, &answered) {
                    let session = reservation.open(versions);
                    if let Ok(value) = HeaderValue::from_str(&session) {
                        parts.headers.insert(SESSION_ID, value);
                    }
                }
                Response::from_parts(parts, Full::new(answered).boxed())
            }
            Err(full) => self.refuse(head, || answers::sessions_full(full)).await,
        }
    }

    /// A session's `GET`: its event stream, when the catalog is live.
    async fn get(
        &self,
        head: Head<'_>,
        session: Option<String>,
        sessions: &Arc<Sessions>,
        live: &Option<LiveMcpSkills>,
    ) -> BoxResponse {
        if let Some(refused) = self.checked(head, session.as_deref()).await {
            return refused;
        }
        if !accepts_event_stream(head.1) {
            return answers::not_acceptable();
        }
        let Some(live) = live else {
            return answers::no_event_stream();
        };
        let Some((open, ended, versions)) = session.and_then(|id| sessions.open_stream(&id)) else {
            return answers::session_not_found();
        };
        event_stream(live.changes_since(versions), ended, open)
    }

    /// rmcp's answer to a request whose `Host` or `Origin` it refuses, a bad
    /// `MCP-Protocol-Version`, or a missing session: `None` when none of these applies.
    async fn checked(&self, head: Head<'_>, session: Option<&str>) -> Option<BoxResponse> {
        if let Some(refused) = self.origin_refused(head).await {
            return Some(refused);
        }
        if let Some(version) = head.1.get(PROTOCOL_VERSION) {
            let known = version.to_str().is_ok_and(|version| {
                ProtocolVersion::KNOWN_VERSIONS
                    .iter()
                    .any(|known| known.as_str() == version)
            });
            if !known {
                return Some(answers::unsupported_version(version));
            }
        }
        session.is_none().then(answers::session_required)
    }

    /// `answer()`, unless rmcp refuses the request's `Host` or `Origin`.
    async fn refuse(&self, head: Head<'_>, answer: impl FnOnce() -> BoxResponse) -> BoxResponse {
        match self.origin_refused(head).await {
            Some(refused) => refused,
            None => answer(),
        }
    }

    /// rmcp's `403` (or `400`) when it refuses the `Host` (from the headers or the URI) or
    /// the `Origin` of a request: it answers a `GET` with `405` when both pass, having no
    /// `GET` of its own.
    async fn origin_refused(&self, (uri, headers): Head<'_>) -> Option<BoxResponse> {
        let mut probe = Request::new(Empty::<Bytes>::new());
        *probe.method_mut() = Method::GET;
        *probe.uri_mut() = uri.clone();
        *probe.headers_mut() = headers.clone();
        probe.headers_mut().remove(PROTOCOL_VERSION);
        let answer = self.rmcp.handle(probe).await;
        (answer.status() != StatusCode::METHOD_NOT_ALLOWED).then_some(answer)
    }
}

/// The URI and headers of a request, for the checks of its `Host` and `Origin`.
type Head<'a> = (&'a Uri, &'a HeaderMap);

/// What a `POST` without `Mcp-Session-Id` is.
enum Kind {
    /// `initialize`, which opens a session.
    Initialize,
    /// `server/discover`, or what rmcp refuses anyway: answered without a session.
    Sessionless,
    /// Anything else, which needs a session.
    InSession,
}

/// Whether a request is of protocol 2026-07-28 or later, which has no sessions: its
/// `MCP-Protocol-Version` (required on every such request) names one of them.
fn is_modern(headers: &HeaderMap) -> bool {
    headers
        .get(PROTOCOL_VERSION)
        .and_then(|version| version.to_str().ok())
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28.as_str())
}

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";

/// The media types of a header (`Accept`, `Content-Type`), without their parameters.
fn media_types(headers: &HeaderMap, name: header::HeaderName) -> impl Iterator<Item = &str> {
    headers
        .get_all(name)
        .into_iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|media| media.split(';').next().unwrap_or_default().trim())
}

fn is(wanted: &str) -> impl Fn(&str) -> bool + '_ {
    move |media| media.eq_ignore_ascii_case(wanted)
}

/// Whether a `POST` is JSON and accepts both answers, as the transport requires.
fn is_json_post(headers: &HeaderMap) -> bool {
    let accepts = |wanted| media_types(headers, header::ACCEPT).any(is(wanted));
    media_types(headers, header::CONTENT_TYPE).any(is(JSON))
        && accepts(JSON)
        && accepts(EVENT_STREAM)
}

fn accepts_event_stream(headers: &HeaderMap) -> bool {
    media_types(headers, header::ACCEPT).any(is(EVENT_STREAM))
}

/// Whether rmcp's answer is a JSON-RPC result (not an error): the `initialize` succeeded.
fn is_result(headers: &HeaderMap, body: &[u8]) -> bool {
    media_types(headers, header::CONTENT_TYPE).any(is(JSON))
        && serde_json::from_slice::<serde_json::Value>(body)
            .is_ok_and(|message| message.get("result").is_some())
}

/// The whole body, at most [`MAX_BODY`] bytes.
async fn read_body<B>(body: B) -> Result<Bytes, BoxResponse>
where
    B: Body,
    B::Error: fmt::Display,
{
    let mut body = std::pin::pin!(body);
    let mut read = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| answers::unreadable_body(&error))?;
        if let Ok(mut data) = frame.into_data() {
            if read.len() + data.remaining() > MAX_BODY {
                return Err(answers::payload_too_large());
            }
            while data.has_remaining() {
                let chunk = data.chunk();
                let length = chunk.len();
                read.extend_from_slice(chunk);
                data.advance(length);
            }
        }
    }
    Ok(read.freeze())
}
