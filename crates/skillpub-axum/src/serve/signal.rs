//! The default shutdown signal: Ctrl-C (SIGINT), or SIGTERM as sent by `kill`, systemd, Docker
//! and Kubernetes.

use std::future::Future;
use std::io;

/// Listens for Ctrl-C and SIGTERM from now on; the future resolves on the first of them.
///
/// # Errors
///
/// When the signal handlers cannot be installed.
#[cfg(unix)]
pub(super) fn ctrl_c_or_terminate() -> io::Result<impl Future<Output = ()> + Send> {
    use tokio::signal::unix::{SignalKind, signal};

    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

/// Listens for Ctrl-C from now on; the future resolves on the first one.
///
/// # Errors
///
/// When the console handler cannot be installed.
#[cfg(windows)]
pub(super) fn ctrl_c_or_terminate() -> io::Result<impl Future<Output = ()> + Send> {
    let mut ctrl_c = tokio::signal::windows::ctrl_c()?;
    Ok(async move {
        ctrl_c.recv().await;
    })
}
