//! Where a store is: a folder, or an S3 bucket and prefix.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use object_store::ObjectStore;
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;

use crate::error::StoreError;

/// How long one request to object storage may take before it fails.
#[cfg(feature = "s3")]
const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// A store of artifacts shared by replicas, or the target of an export: a folder, or an S3
/// bucket and prefix. Cheap to clone: every clone is the same store.
#[derive(Clone)]
pub struct Store {
    pub(crate) objects: Arc<dyn ObjectStore>,
    /// The prefix every key starts with (empty for a folder, which is its own root).
    pub(crate) prefix: Arc<str>,
    /// The location as given, for messages.
    pub(crate) location: Arc<str>,
    /// Whether objects carry the HTTP policy's headers (object storage does; a folder's files
    /// cannot, and its web server sets them).
    pub(crate) headers: bool,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.location)
    }
}

impl Store {
    /// The store at `location`: `s3://bucket` or `s3://bucket/prefix` (feature `s3`), with the
    /// endpoint, region and keys of the standard variables every S3 tool reads
    /// (`AWS_ENDPOINT_URL`, `AWS_REGION` or `AWS_DEFAULT_REGION`, `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`); an `http://` endpoint is allowed as
    /// given (a local S3-compatible server). Anything else is a folder, which must exist.
    ///
    /// Nothing is read or written yet: a bucket that does not exist, or credentials that are
    /// refused, are errors of the first operation.
    ///
    /// # Errors
    ///
    /// A folder that does not exist, an `s3://` location without a bucket or with an empty
    /// segment, or S3 settings that cannot be used.
    ///
    /// # Example
    ///
    /// ```
    /// let folder = std::env::temp_dir();
    /// let store = skillpub_store::Store::open(folder.to_str().unwrap())?;
    /// assert_eq!(store.to_string(), folder.to_str().unwrap());
    /// assert!(skillpub_store::Store::open("s3://").is_err());
    /// # Ok::<(), skillpub_store::StoreError>(())
    /// ```
    pub fn open(location: &str) -> Result<Self, StoreError> {
        Self::open_with(location, &[])
    }

    /// The store at `location`, as [`open`](Self::open) says, with `settings` in place of the
    /// variables of the same names (`("AWS_ENDPOINT_URL", "http://127.0.0.1:9000")`): for a
    /// program that holds its settings elsewhere than in its environment.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open), and a setting that is not one of the S3 variables.
    pub fn open_with(location: &str, settings: &[(&str, &str)]) -> Result<Self, StoreError> {
        let refused = |why: &str| StoreError::Location {
            location: location.to_owned(),
            why: why.to_owned(),
        };
        if let Some(rest) = location.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            let prefix = prefix.trim_end_matches('/');
            if bucket.is_empty() {
                return Err(refused(
                    "it names no bucket; give s3://bucket or s3://bucket/prefix",
                ));
            }
            if !prefix.is_empty() && Key::parse(prefix).is_err() {
                return Err(refused(
                    "its prefix has an empty, `.` or `..` segment; give segments separated by one `/`",
                ));
            }
            let objects = s3(bucket, settings).map_err(|why| refused(&why))?;
            return Ok(Self {
                objects,
                prefix: prefix.into(),
                location: location.into(),
                headers: true,
            });
        }
        let folder = Path::new(location);
        if !folder.is_dir() {
            return Err(refused(
                "it is not a folder that exists; create it (a volume every replica mounts), or give s3://bucket/prefix",
            ));
        }
        let objects = LocalFileSystem::new_with_prefix(folder)
            .map_err(|error| refused(&error.to_string()))?
            .with_automatic_cleanup(true);
        Ok(Self {
            objects: Arc::new(objects),
            prefix: "".into(),
            location: location.into(),
            headers: false,
        })
    }

    /// The key of `path` (a path the router serves, `/.well-known/...`, or one of the store's
    /// own records): the prefix, then the path without its leading `/`.
    pub(crate) fn key(&self, path: &str) -> Key {
        let path = path.trim_start_matches('/');
        if self.prefix.is_empty() {
            Key::from(path)
        } else {
            Key::from(format!("{}/{path}", self.prefix))
        }
    }

    /// The path of `key` below the prefix, with a leading `/` (the inverse of
    /// [`key`](Self::key)).
    pub(crate) fn path_of(&self, key: &Key) -> String {
        let key = key.as_ref();
        let below = if self.prefix.is_empty() {
            key
        } else {
            key.strip_prefix(&*self.prefix)
                .and_then(|rest| rest.strip_prefix('/'))
                .unwrap_or(key)
        };
        format!("/{below}")
    }

    /// The error of an operation on `key`.
    pub(crate) fn error(&self, key: &Key, error: &object_store::Error) -> StoreError {
        StoreError::of(&self.location, key.as_ref(), error)
    }
}

/// The S3 store of `bucket`, configured from the environment and `settings`.
#[cfg(feature = "s3")]
fn s3(bucket: &str, settings: &[(&str, &str)]) -> Result<Arc<dyn ObjectStore>, String> {
    use object_store::ClientOptions;
    use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};

    let setting = |name: &str| {
        settings
            .iter()
            .find(|(given, _)| *given == name)
            .map(|(_, value)| (*value).to_owned())
            .or_else(|| std::env::var(name).ok())
    };

    // rustls without a provider of its own (see Cargo.toml): ring, once per process. A
    // provider installed already (by the application) is kept.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let endpoint = setting("AWS_ENDPOINT_URL").or_else(|| setting("AWS_ENDPOINT"));
    let allow_http = endpoint
        .as_deref()
        .is_some_and(|e| e.starts_with("http://"));
    let options = ClientOptions::new()
        .with_timeout(REQUEST_TIMEOUT)
        .with_allow_http(allow_http);
    // Two retries within 10 s, not the default ten within three minutes: a replica's
    // request waits on a read of the store, and a deploy on its writes.
    let retry = object_store::RetryConfig {
        max_retries: 2,
        retry_timeout: std::time::Duration::from_secs(10),
        ..object_store::RetryConfig::default()
    };
    let mut builder = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_client_options(options)
        .with_retry(retry);
    if setting("AWS_REGION").is_none() && setting("AWS_DEFAULT_REGION").is_none() {
        builder = builder.with_region("us-east-1");
    }
    for (name, value) in settings {
        let key: AmazonS3ConfigKey = name
            .to_ascii_lowercase()
            .parse()
            .map_err(|_| format!("`{name}` is not a setting of S3 (give AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, ...)"))?;
        builder = builder.with_config(key, *value);
    }
    builder
        .build()
        .map(|store| Arc::new(store) as Arc<dyn ObjectStore>)
        .map_err(|error| error.to_string())
}

#[cfg(not(feature = "s3"))]
fn s3(_bucket: &str, _settings: &[(&str, &str)]) -> Result<Arc<dyn ObjectStore>, String> {
    Err("this build has no S3 support: enable the feature `s3` of skillpub-store".to_owned())
}
