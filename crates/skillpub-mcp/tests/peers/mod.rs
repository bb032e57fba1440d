//! What the MCP tests share: the app they serve, rmcp's client in both protocol eras, raw
//! POSTs to `/mcp`, and the well-known routes read over TCP. The generic helpers are in
//! `skillpub-testkit`.

use std::net::SocketAddr;

use axum::Router;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use skillpub_core::Catalog;
use skillpub_mcp::{HttpOptions, McpSkills};
use skillpub_testkit::{Response, request, request_with_body, serve};

/// The well-known routes of `catalog` and `skills` at `/mcp`, on a free port of 127.0.0.1.
pub(crate) async fn serve_mcp(
    skills: McpSkills,
    catalog: Catalog,
    options: HttpOptions,
) -> SocketAddr {
    let app = Router::new()
        .merge(skillpub_axum::router(catalog))
        .nest_service("/mcp", skills.streamable_http_service(options).unwrap());
    serve(app).await
}

/// A client of the 2025-11-25 era, which initializes a session.
pub(crate) async fn legacy_client(addr: SocketAddr) -> RunningService<RoleClient, ()> {
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    ().serve(transport).await.unwrap()
}

/// A client of the 2026-07-28 era, which discovers the server instead.
pub(crate) async fn modern_client(addr: SocketAddr) -> RunningService<RoleClient, ()> {
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    ().serve_with_lifecycle(transport, lifecycle).await.unwrap()
}

/// An `initialize` of the 2025-11-25 era, as a raw HTTP client sends it.
pub(crate) const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// Posts a JSON-RPC message to `/mcp` with the headers of a Streamable HTTP client (a JSON
/// body, JSON or an event stream accepted) and `headers` besides; the answer, whatever it is.
pub(crate) async fn post_mcp(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> Response {
    let mut all = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    all.extend_from_slice(headers);
    request_with_body(addr, "POST", "/mcp", &all, body.as_bytes()).await
}

/// The JSON-RPC error of a failed request.
pub(crate) fn protocol_error(error: ServiceError) -> rmcp::ErrorData {
    match error {
        ServiceError::McpError(error) => error,
        other => panic!("not a protocol error: {other}"),
    }
}

/// GET over the well-known routes: the body of a `200`.
pub(crate) async fn http_get(addr: SocketAddr, path: &str) -> Vec<u8> {
    let response = request(addr, "GET", path, &[]).await;
    assert_eq!(response.status, 200, "{path}");
    response.body
}
