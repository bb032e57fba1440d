//! Binding a listener with a backlog fit for a flood.

use std::net::SocketAddr;
use std::{fmt, io};

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
/// A [`BindError`] that names the address and says what to do, when the address does not
/// resolve, or no address it resolves to can be bound. Its `Debug` prints the same message, so
/// `?` out of `main` reads well.
///
/// # Example
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
/// assert!(listener.local_addr()?.ip().is_loopback());
///
/// let taken = listener.local_addr()?;
/// let error = skillpub_axum::serve::bind(taken).await.unwrap_err();
/// assert_eq!(error.addr(), taken.to_string());
/// assert!(error.to_string().starts_with(&format!("cannot listen on {taken}: ")));
/// assert!(error.to_string().ends_with("; stop what listens there, or choose a free port"));
/// # Ok(())
/// # }
/// ```
pub async fn bind(addr: impl ToSocketAddrs + fmt::Display) -> Result<TcpListener, BindError> {
    let name = addr.to_string();
    let error = |source| BindError {
        addr: name.clone(),
        source,
    };
    let mut last_error = None;
    for resolved in tokio::net::lookup_host(addr).await.map_err(error)? {
        match bind_one(resolved) {
            Ok(listener) => return Ok(listener),
            Err(source) => last_error = Some(source),
        }
    }
    Err(error(last_error.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the address resolves to no socket address",
        )
    })))
}

/// An address [`bind`] could not listen on: which one, why, and what to do about it.
#[derive(thiserror::Error)]
#[error("cannot listen on {addr}: {source}{}", advice(.source.kind()))]
pub struct BindError {
    addr: String,
    #[source]
    source: io::Error,
}

impl BindError {
    /// The address as it was given.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// What the system said, for a caller that tells cases apart by [`io::ErrorKind`].
    pub fn io_error(&self) -> &io::Error {
        &self.source
    }
}

/// The message, so that `?` out of `main` prints it and not the fields.
impl fmt::Debug for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// For a caller that returns `io::Result`: the same kind, with the whole message.
impl From<BindError> for io::Error {
    fn from(error: BindError) -> Self {
        io::Error::new(error.source.kind(), error)
    }
}

/// The usual fix for the usual failures.
fn advice(kind: io::ErrorKind) -> &'static str {
    match kind {
        io::ErrorKind::AddrInUse => "; stop what listens there, or choose a free port",
        io::ErrorKind::AddrNotAvailable => {
            "; this machine has no such address: use one of its own, 127.0.0.1 or 0.0.0.0"
        }
        io::ErrorKind::PermissionDenied => {
            "; ports below 1024 need privileges: choose a port of 1024 or more"
        }
        _ => "; give a HOST:PORT such as 127.0.0.1:3000",
    }
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
