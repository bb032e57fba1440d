//! Binding a listener with a backlog fit for a flood.

use std::io;
use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket, ToSocketAddrs};

/// The listen backlog that [`bind`] asks for (the system may cap it, as Linux does at
/// `net.core.somaxconn`, 4096 by default): room for a burst of connections to wait while the
/// server catches up. Rust's and tokio's own `bind` ask for 128; when that queue overflows the
/// system drops new connection attempts, and clients try again only after a second.
pub const LISTEN_BACKLOG: u32 = 4096;

/// Binds a TCP listener like [`TcpListener::bind`] does, with a [`LISTEN_BACKLOG`] of 4096
/// instead of 128, so that a flood of connections does not make the kernel drop new ones.
///
/// # Errors
///
/// When the address does not resolve, or no address it resolves to can be bound.
///
/// # Example
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
/// assert!(listener.local_addr()?.ip().is_loopback());
/// # Ok(())
/// # }
/// ```
pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
    let mut last_error = None;
    for addr in tokio::net::lookup_host(addr).await? {
        match bind_one(addr) {
            Ok(listener) => return Ok(listener),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the address resolves to no socket address",
        )
    }))
}

fn bind_one(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    // As `TcpListener::bind` does: a restarted server can bind again at once.
    #[cfg(not(windows))]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}
