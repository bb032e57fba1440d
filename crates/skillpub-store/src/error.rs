//! Why the store could not be used, said so that the fix is plain.

/// Why a store could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The location is neither a folder nor `s3://bucket[/prefix]`.
    #[error("`{location}` is not a store: {why}")]
    Location {
        /// The location given.
        location: String,
        /// What is wrong with it.
        why: String,
    },
    /// The bucket does not exist.
    #[error(
        "the bucket of `{location}` does not exist: create it (`aws s3 mb s3://<bucket>`), or check AWS_ENDPOINT_URL and AWS_REGION ({detail})"
    )]
    NoBucket {
        /// The store.
        location: String,
        /// What the service said.
        detail: String,
    },
    /// The credentials were refused.
    #[error(
        "the credentials were refused by `{location}`: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), and that they may list, read and write the prefix ({detail})"
    )]
    Credentials {
        /// The store.
        location: String,
        /// What the service said.
        detail: String,
    },
    /// A read or write of one object failed.
    #[error("`{key}` of `{location}`: {detail}")]
    Object {
        /// The store.
        location: String,
        /// The object's key.
        key: String,
        /// What failed.
        detail: String,
    },
    /// An export stopped part way: what it had put, and that the index was not changed.
    #[error(
        "the export to `{location}` stopped after {uploaded} of {total} uploads: {source}. The index was not changed, so the previous export still serves every file it names; run the export again to resume (what is there is not uploaded again)"
    )]
    Partial {
        /// The store.
        location: String,
        /// The uploads done.
        uploaded: usize,
        /// The uploads to do.
        total: usize,
        /// What stopped it.
        source: Box<StoreError>,
    },
}

impl StoreError {
    /// The error of an operation on `key` of the store at `location`, told apart by what the
    /// service said: a missing bucket, refused credentials, or anything else.
    pub(crate) fn of(location: &str, key: &str, error: &object_store::Error) -> Self {
        let detail = error.to_string();
        let location = location.to_owned();
        let said = |words: &[&str]| words.iter().any(|word| detail.contains(word));
        if said(&["NoSuchBucket", "bucket does not exist"]) {
            Self::NoBucket { location, detail }
        } else if matches!(
            error,
            object_store::Error::PermissionDenied { .. }
                | object_store::Error::Unauthenticated { .. }
        ) || said(&[
            "InvalidAccessKeyId",
            "SignatureDoesNotMatch",
            "AccessDenied",
            "403 Forbidden",
        ]) {
            Self::Credentials { location, detail }
        } else {
            Self::Object {
                location,
                key: key.to_owned(),
                detail,
            }
        }
    }
}
