//! The accept loop: one task per connection, room made by closing connections (the oldest quiet
//! ones first) when file descriptors run out or the connection cap is reached, and the drain on
//! shutdown.

use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::sleep;

use super::activity::Connections;
use super::body::Budget;
use super::connection;
use super::limits::Limits;

/// How many connections are reclaimed at once when `accept` fails: nginx's figure when
/// its worker runs out of connections.
const RECLAIM_BATCH: usize = 32;

/// How long to wait for a connection to close after `accept` failed, before trying again,
/// when none closes sooner (the descriptors may be held by something else than connections).
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// Accepts connections until `shutdown` resolves, then drains them within the grace period.
pub(super) async fn run(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let connections = Connections::new();
    let budget = Budget::new(limits.body_budget);
    let (draining, draining_seen) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    'serving: loop {
        while tasks.try_join_next().is_some() {}
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
            Some(_) = tasks.join_next() => continue,
        };
        match accepted {
            Ok((stream, _peer)) => {
                // At the cap: close a reclaimable connection, and hold this one until a place
                // is free.
                while limits
                    .max_connections
                    .is_some_and(|max| tasks.len() >= max.get())
                {
                    connections.reclaim(1);
                    if !wait_for_a_close(&mut tasks, shutdown.as_mut()).await {
                        break 'serving;
                    }
                    while tasks.try_join_next().is_some() {}
                }
                let open = connections.open();
                tasks.spawn(connection::serve(
                    stream,
                    app.clone(),
                    open,
                    limits.timeouts,
                    limits.max_header_size,
                    Arc::clone(&budget),
                    draining_seen.clone(),
                ));
            }
            Err(error) if is_about_one_connection(&error) => {}
            Err(_) => {
                // Out of file descriptors (EMFILE, ENFILE) or of memory for sockets: make room
                // by closing connections (quiet ones, then those stuck in a request body, then
                // event streams), and try again once one has closed, so that a flood of idle
                // or slow connections or of held streams cannot lock new clients out.
                connections.reclaim(RECLAIM_BATCH);
                if !wait_for_a_close(&mut tasks, shutdown.as_mut()).await {
                    break;
                }
            }
        }
    }
    drop(listener);
    // Quiet connections close at once, busy ones after their response; none outlives the grace
    // period.
    let _ = draining.send(true);
    let mut grace = pin!(sleep(limits.grace_period));
    loop {
        tokio::select! {
            biased;
            next = tasks.join_next() => if next.is_none() {
                return;
            },
            () = &mut grace => {
                tasks.shutdown().await;
                return;
            }
        }
    }
}

/// Waits until a connection closes, or [`RETRY_PAUSE`] at most; false if the shutdown signal
/// came first.
async fn wait_for_a_close(
    tasks: &mut JoinSet<()>,
    shutdown: Pin<&mut impl Future<Output = ()>>,
) -> bool {
    tokio::select! {
        biased;
        () = shutdown => false,
        Some(_) = tasks.join_next() => true,
        () = sleep(RETRY_PAUSE) => true,
    }
}

/// An `accept` error about the connection being accepted (it was reset before it could be
/// taken, say), after which the next `accept` can succeed at once.
fn is_about_one_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::NetworkDown
    )
}
