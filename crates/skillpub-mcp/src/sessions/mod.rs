//! Sessions of the Streamable HTTP transport for the protocol versions before 2026-07-28,
//! kept by skillpub in front of rmcp's stateless transport: a capped table of small
//! records, expired by the time since their client's last request and, when full, making room
//! by ending the least recently used idle one, and an event stream per session that tells of
//! catalog changes without queueing them.

mod registry;
mod service;
mod stream;

pub(crate) use registry::{Limits, Sessions};
pub(crate) use service::Endpoint;
