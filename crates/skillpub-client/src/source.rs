//! Errors from below the client (the HTTP stack, a decoder, an archive reader), kept whole so
//! that [`Error::source`] walks down to them, yet cheap to clone and comparable, as the
//! client's own errors are.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// An error from a layer below the client: what the HTTP stack, a content decoder or an
/// archive reader said. It is the [`source`](Error::source) of the client error that carries
/// it, so code can [`downcast_ref`](SourceError::downcast_ref) to the original type.
///
/// Two are equal when their messages are: the original types are rarely comparable.
///
/// # Example
///
/// ```
/// use std::error::Error;
/// use skillpub_client::SourceError;
///
/// let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
/// let error = SourceError::new(io);
/// assert_eq!(error.to_string(), "refused");
/// assert_eq!(
///     error.downcast_ref::<std::io::Error>().map(std::io::Error::kind),
///     Some(std::io::ErrorKind::ConnectionRefused)
/// );
/// ```
#[derive(Clone)]
pub struct SourceError(Arc<dyn Error + Send + Sync>);

impl SourceError {
    /// Keeps `error` (any error, or a message: `SourceError::new("corrupt")`).
    pub fn new(error: impl Into<Box<dyn Error + Send + Sync>>) -> Self {
        Self(Arc::from(error.into()))
    }

    /// The original error, when it is a `E`.
    #[must_use]
    pub fn downcast_ref<E: Error + 'static>(&self) -> Option<&E> {
        self.0.downcast_ref()
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Stands for the original error: its message, and its own source.
impl Error for SourceError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for SourceError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for SourceError {}
