//! A hardened HTTP/1.1 server for an axum [`Router`]: what every skillpub example and
//! `skillpub serve` run, and what your own service can run too (feature `server`).
//!
//! `axum::serve` has no header-read timeout and no request-body timeout: a connection that sends
//! nothing, half a request head or a body that never ends stays open forever, and about a
//! thousand of them take a server offline at the usual limit of 1,024 open files. [`serve`]
//! takes the same arguments, and does this in each situation (each knob is a method of
//! [`Serve`]; [`bind`] makes the listener):
//!
#![doc = include_str!("../docs/serve.md")]
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use axum::{Router, routing::get};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let app = Router::new().route("/", get(|| async { "hello" }));
//! let listener = skillpub_axum::serve::bind("0.0.0.0:3000").await?;
//! // The defaults suit most services; each knob is shown here with its default.
//! skillpub_axum::serve(listener, app)
//!     .header_read_timeout(Duration::from_secs(10))
//!     .idle_timeout(Duration::from_secs(75))
//!     .send_timeout(Duration::from_secs(60))
//!     .body_read_timeout(Duration::from_secs(20))
//!     .request_read_timeout(Duration::from_secs(60))
//!     .body_budget(64 << 20)
//!     .max_header_size(32 << 10)
//!     .grace_period(Duration::from_secs(10))
//!     .await?; // returns after Ctrl-C or SIGTERM, once the connections are closed
//! # Ok(())
//! # }
//! ```
//!
//! # A server of your own
//!
#![doc = include_str!("../docs/serve-yourself.md")]

mod accept;
mod activity;
mod bind;
mod body;
mod connection;
mod io;
mod limits;
mod signal;

use std::fmt;
use std::future::{Future, IntoFuture};
use std::num::NonZeroUsize;
use std::ops::RangeInclusive;
use std::pin::Pin;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;

use activity::Timeouts;
pub use bind::{BindError, LISTEN_BACKLOG, bind};
use limits::Limits;

/// How long a connection may take to send a complete request head, by default.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a keep-alive connection may wait for its next request, by default: nginx's
/// `keepalive_timeout`, longer than the 60 s after which common load balancers drop idle
/// connections, so that they close first and never reuse a connection the server is closing.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(75);

/// How long the socket may refuse the bytes of a response, by default: nginx's
/// `send_timeout`.
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(60);

/// How long the app may wait for the next byte of a request body, by default: a third of
/// nginx's `client_body_timeout` (60 s), Apache's `mod_reqtimeout` default (`body=20`), twice
/// the header timeout. A client that sends no byte of its body for 20 s has stalled.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(20);

/// How long a whole request, head and body, may take to arrive, by default: 4 MiB (rmcp's
/// largest MCP request) at 70 KB/s, and a fifth of Node.js's `requestTimeout` (300 s), which
/// serves uploads of any size. Counted from the moment the header timeout counts from.
pub const DEFAULT_REQUEST_READ_TIMEOUT: Duration = Duration::from_secs(60);

/// The bytes of request bodies the app may hold at once across every connection, by default:
/// 16 MCP requests of rmcp's largest size (4 MiB), or 32 of axum's default body limit (2 MB).
pub const DEFAULT_BODY_BUDGET: usize = 64 << 20;

/// The smallest body budget accepted: more than hyper's read buffer (some 400 KiB), so that
/// any piece of a body hyper hands over fits in a budget nobody else holds.
pub const MIN_BODY_BUDGET: usize = 1 << 20;

/// The largest request head (request line and header fields) taken, by default: nginx's
/// (`large_client_header_buffers 4 8k`), twice Node.js's 16 KiB. hyper's own bound is its read
/// buffer, 408 KiB, which let a thousand connections that each send a head of 400 KB and
/// never end it hold 400 MB until the header timeout closed them.
pub const DEFAULT_MAX_HEADER_SIZE: usize = 32 << 10;

/// The range of [`Serve::max_header_size`]: from a head with a long URL and a few cookies, to
/// hyper's read buffer, which bounds a head whatever is set.
pub const HEADER_SIZE_RANGE: RangeInclusive<usize> = (4 << 10)..=(408 << 10);

/// How long requests in flight may take to finish after the shutdown signal, by default.
pub const DEFAULT_GRACE_PERIOD: Duration = Duration::from_secs(10);

/// The longest timeout or grace period accepted: a bound longer than an hour protects nothing.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// Serves `app` on `listener` with the guarantees of the [module documentation](self).
///
/// Configure it with the methods of [`Serve`], then `.await` it: it runs until the shutdown
/// signal (Ctrl-C or SIGTERM unless [`with_graceful_shutdown`](Serve::with_graceful_shutdown)
/// replaces it) and the drain that follows.
///
/// # Example
///
/// ```no_run
/// use axum::{Router, routing::get};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let app = Router::new().route("/", get(|| async { "hello" }));
/// let listener = skillpub_axum::serve::bind("127.0.0.1:3000").await?;
/// skillpub_axum::serve(listener, app).await?;
/// # Ok(())
/// # }
/// ```
pub fn serve(listener: TcpListener, app: Router) -> Serve {
    Serve {
        listener,
        app,
        header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
        idle_timeout: DEFAULT_IDLE_TIMEOUT,
        send_timeout: DEFAULT_SEND_TIMEOUT,
        body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
        request_read_timeout: DEFAULT_REQUEST_READ_TIMEOUT,
        body_budget: DEFAULT_BODY_BUDGET,
        max_header_size: DEFAULT_MAX_HEADER_SIZE,
        grace_period: DEFAULT_GRACE_PERIOD,
        max_connections: None,
        shutdown: None,
    }
}

/// A server being configured; `.await` it to run it. Made by [`serve`].
///
/// The knobs are checked when it starts: a value out of range makes the future return a
/// [`ServeError`] before it accepts anything.
#[must_use = "a server does nothing until it is awaited"]
pub struct Serve {
    listener: TcpListener,
    app: Router,
    header_read_timeout: Duration,
    idle_timeout: Duration,
    send_timeout: Duration,
    body_read_timeout: Duration,
    request_read_timeout: Duration,
    body_budget: usize,
    max_header_size: usize,
    grace_period: Duration,
    max_connections: Option<usize>,
    shutdown: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl Serve {
    /// How long a connection may take to send a complete request head, counted from its
    /// accept or from the first byte of its next request (default
    /// [`DEFAULT_HEADER_READ_TIMEOUT`], 10 s). More than zero, at most [`MAX_TIMEOUT`].
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// let server = skillpub_axum::serve(listener, app)
    ///     .header_read_timeout(std::time::Duration::from_secs(5));
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may wait for its next request (default
    /// [`DEFAULT_IDLE_TIMEOUT`], 75 s). More than zero, at most [`MAX_TIMEOUT`].
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// let server = skillpub_axum::serve(listener, app)
    ///     .idle_timeout(std::time::Duration::from_secs(30));
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How long the socket may refuse the bytes of a response before the connection is closed
    /// (default [`DEFAULT_SEND_TIMEOUT`], 60 s): a client that stops reading. Any byte the
    /// socket takes starts it again. More than zero, at most [`MAX_TIMEOUT`].
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// let server = skillpub_axum::serve(listener, app)
    ///     .send_timeout(std::time::Duration::from_secs(20));
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn send_timeout(mut self, timeout: Duration) -> Self {
        self.send_timeout = timeout;
        self
    }

    /// How long the app may wait for the next byte of a request body before the connection is
    /// closed (default [`DEFAULT_BODY_READ_TIMEOUT`], 20 s), as nginx's `client_body_timeout`
    /// does: a client that sends `Content-Length: 100000`, one byte, then nothing. Only the
    /// time the app spends waiting counts: an app busy elsewhere is not the client's fault.
    /// More than zero, at most [`MAX_TIMEOUT`].
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// let server = skillpub_axum::serve(listener, app)
    ///     .body_read_timeout(std::time::Duration::from_secs(60));
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// How long a whole request, head and body, may take to arrive before the connection is
    /// closed (default [`DEFAULT_REQUEST_READ_TIMEOUT`], 60 s): a body that trickles in a
    /// byte at a time, each within the body timeout, forever. Counted from the moment the
    /// header timeout counts from, until the body has ended or the app has dropped it; a
    /// value shorter than the header timeout bounds the head too. Raise it for an app that
    /// takes large uploads. More than zero, at most [`MAX_TIMEOUT`].
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// // Uploads of up to 100 MB at 1 MB/s.
    /// let server = skillpub_axum::serve(listener, app)
    ///     .request_read_timeout(std::time::Duration::from_secs(100));
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn request_read_timeout(mut self, timeout: Duration) -> Self {
        self.request_read_timeout = timeout;
        self
    }

    /// The bytes of request bodies the app may hold at once, across every connection (default
    /// [`DEFAULT_BODY_BUDGET`], 64 MiB). Each body byte the app reads is counted until the app
    /// has answered (its response head) and the body has ended, whichever comes later: an
    /// event stream or a large answer read slowly holds no part of it. A request that declares
    /// more than the whole budget gets `413`; one that declares more than the room left (or a
    /// body of unknown length when none is left) gets `503` with `Retry-After: 1`, both before
    /// the app sees it. A body whose next bytes are refused fails for the app, and the server
    /// answers in place of the app's answer: `413` once the body alone would be larger than
    /// the whole budget (a chunked one that never ends, say), else `503` with
    /// `Retry-After: 1` (other bodies took the room since). Each refusal closes the connection,
    /// and a page of any origin may read it (see the [module documentation](self)). Raise it
    /// for an app that streams uploads larger than the budget. At least [`MIN_BODY_BUDGET`].
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// let server = skillpub_axum::serve(listener, app).body_budget(256 << 20);
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn body_budget(mut self, bytes: usize) -> Self {
        self.body_budget = bytes;
        self
    }

    /// The largest request head accepted, request line and header fields (default
    /// [`DEFAULT_MAX_HEADER_SIZE`], 32 KiB). A longer head gets `431 Request Header Fields Too
    /// Large` and its connection is closed, as soon as that many bytes have come without the
    /// end of the head: the memory a connection can hold while it sends its head is about
    /// twice this. Within [`HEADER_SIZE_RANGE`].
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// // Behind a proxy that sends large identity headers.
    /// let server = skillpub_axum::serve(listener, app).max_header_size(64 << 10);
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn max_header_size(mut self, bytes: usize) -> Self {
        self.max_header_size = bytes;
        self
    }

    /// How long requests in flight may take to finish after the shutdown signal before their
    /// connections are closed (default [`DEFAULT_GRACE_PERIOD`], 10 s). Zero closes them at
    /// once; at most [`MAX_TIMEOUT`].
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// // Kubernetes kills a pod 30 s after SIGTERM: finish well before.
    /// let server = skillpub_axum::serve(listener, app)
    ///     .grace_period(std::time::Duration::from_secs(20));
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace_period = grace;
        self
    }

    /// Caps the open connections (default: no cap but the open-file limit). At the cap, a
    /// connection is closed to make room as when the open files run out (the oldest quiet
    /// one, else the one waiting longest for a request body, else the oldest event stream),
    /// and new connections wait in the listen backlog while every connection is busy. At
    /// least 1.
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
    /// # let app = axum::Router::new();
    /// let server = skillpub_axum::serve(listener, app).max_connections(10_000);
    /// # drop(server);
    /// # Ok(())
    /// # }
    /// ```
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = Some(max);
        self
    }

    /// Shuts down when `signal` resolves, instead of on Ctrl-C or SIGTERM.
    ///
    /// # Example
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// let server = tokio::spawn(
    ///     skillpub_axum::serve(listener, axum::Router::new())
    ///         .with_graceful_shutdown(async move {
    ///             let _ = stopped.await;
    ///         })
    ///         .into_future(),
    /// );
    /// stop.send(()).expect("the server listens");
    /// server.await??; // returns once every connection is closed
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_graceful_shutdown(
        mut self,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> Self {
        self.shutdown = Some(Box::pin(signal));
        self
    }

    /// The knobs, checked.
    fn limits(&self) -> Result<Limits, ServeError> {
        Ok(Limits {
            timeouts: Timeouts {
                header_read: positive("header_read_timeout", self.header_read_timeout)?,
                idle: positive("idle_timeout", self.idle_timeout)?,
                send: positive("send_timeout", self.send_timeout)?,
                body_read: positive("body_read_timeout", self.body_read_timeout)?,
                request_read: positive("request_read_timeout", self.request_read_timeout)?,
            },
            body_budget: if self.body_budget >= MIN_BODY_BUDGET {
                self.body_budget
            } else {
                return Err(ServeError::BodyBudget {
                    value: self.body_budget,
                });
            },
            max_header_size: if HEADER_SIZE_RANGE.contains(&self.max_header_size) {
                self.max_header_size
            } else {
                return Err(ServeError::HeaderSize {
                    value: self.max_header_size,
                });
            },
            grace_period: at_most_max("grace_period", self.grace_period)?,
            max_connections: match self.max_connections {
                None => None,
                Some(max) => Some(NonZeroUsize::new(max).ok_or(ServeError::NoConnections)?),
            },
        })
    }

    async fn run(self) -> Result<(), ServeError> {
        let limits = self.limits()?;
        match self.shutdown {
            Some(shutdown) => accept::run(self.listener, self.app, limits, shutdown).await,
            None => {
                let shutdown = signal::ctrl_c_or_terminate().map_err(ServeError::Signal)?;
                accept::run(self.listener, self.app, limits, shutdown).await;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Serve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serve")
            .field("listener", &self.listener)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("send_timeout", &self.send_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("request_read_timeout", &self.request_read_timeout)
            .field("body_budget", &self.body_budget)
            .field("max_header_size", &self.max_header_size)
            .field("grace_period", &self.grace_period)
            .field("max_connections", &self.max_connections)
            .field(
                "shutdown",
                &if self.shutdown.is_some() {
                    "custom"
                } else {
                    "Ctrl-C or SIGTERM"
                },
            )
            .finish_non_exhaustive()
    }
}

impl IntoFuture for Serve {
    type Output = Result<(), ServeError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// Why a server could not run.
///
/// # Example
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use std::time::Duration;
///
/// use skillpub_axum::serve::ServeError;
///
/// let listener = skillpub_axum::serve::bind("127.0.0.1:0").await?;
/// let error = skillpub_axum::serve(listener, axum::Router::new())
///     .header_read_timeout(Duration::ZERO)
///     .await
///     .unwrap_err();
/// assert!(matches!(error, ServeError::OutOfRange { knob: "header_read_timeout", .. }));
/// assert_eq!(
///     error.to_string(),
///     "`header_read_timeout` is 0ns; give more than zero and at most 3600s"
/// );
/// # Ok(())
/// # }
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A timeout is zero, or a timeout or the grace period is longer than [`MAX_TIMEOUT`].
    #[error("`{knob}` is {value:?}; give {}", allowed(.knob))]
    OutOfRange {
        /// The method that set it, such as `header_read_timeout`.
        knob: &'static str,
        /// The value given.
        value: Duration,
    },
    /// `max_connections(0)`.
    #[error("`max_connections` is 0; give at least 1, or leave it unset for no cap")]
    NoConnections,
    /// A body budget below [`MIN_BODY_BUDGET`].
    #[error("`body_budget` is {value} bytes; give at least {MIN_BODY_BUDGET} (1 MiB)")]
    BodyBudget {
        /// The value given.
        value: usize,
    },
    /// A head size out of [`HEADER_SIZE_RANGE`].
    #[error(
        "`max_header_size` is {value} bytes; give {} to {} (4 KiB to 408 KiB)",
        HEADER_SIZE_RANGE.start(),
        HEADER_SIZE_RANGE.end()
    )]
    HeaderSize {
        /// The value given.
        value: usize,
    },
    /// The Ctrl-C or SIGTERM handler could not be installed.
    #[error(
        "cannot listen for Ctrl-C and SIGTERM: {0}; pass your own signal to `with_graceful_shutdown`"
    )]
    Signal(#[source] std::io::Error),
}

/// The message, so that `?` out of `main` prints it and not the fields.
impl fmt::Debug for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The values a knob accepts, for [`ServeError::OutOfRange`].
fn allowed(knob: &str) -> String {
    let least = if knob == "grace_period" {
        "zero"
    } else {
        "more than zero"
    };
    format!("{least} and at most {MAX_TIMEOUT:?}")
}

fn positive(knob: &'static str, value: Duration) -> Result<Duration, ServeError> {
    if value.is_zero() {
        return Err(ServeError::OutOfRange { knob, value });
    }
    at_most_max(knob, value)
}

fn at_most_max(knob: &'static str, value: Duration) -> Result<Duration, ServeError> {
    if value > MAX_TIMEOUT {
        return Err(ServeError::OutOfRange { knob, value });
    }
    Ok(value)
}

#[cfg(test)]
mod tests;
