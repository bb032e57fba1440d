//! The HTTP policy, all of it: which answer a request gets (by path, method, content coding
//! and conditional headers), content types, content codings, caching, validators, CORS, error
//! bodies, and the rules of answers without content. The router only hands the folders'
//! requests to a table of prepared answers; everything a request can change is decided here.
//! The crate docs list every answer (section "HTTP policy").
//!
//! Every answer is prepared here, when the router is built or, for the variants in another
//! content coding, once on first demand, on the encoder's threads; a request only picks one.
//! One file per concern:
//!
//! - `settings`: the knobs of the policy, their defaults, and the headers every answer shares;
//! - `shared`: the answers every path of a router shares, prepared when it is built;
//! - `table`: every path a catalog serves, canonical and addressed, to the answers of its
//!   artifact, with those of replaced catalogs still retained; the answers shared by the
//!   paths of the same bytes;
//! - `address`: which of its two paths an answer is for, and the header that names the other;
//! - `method`: the methods answered, and which prepared answer a request gets;
//! - `resource`: the answers of one artifact, one variant per content coding, with its entity
//!   tag;
//! - `template`: the headers every answer of one kind shares, prepared once per router, and
//!   how an artifact's answer is made from them;
//! - `accept_encoding`: which content coding a request prefers;
//! - `encoder`: the threads that make the encoded variants, off the async workers;
//! - `deferred`: a variant being made, which requests await without blocking a thread;
//! - `conditional`: `If-Match` and `If-None-Match`;
//! - `cors`: the preflight answer;
//! - `private`: the private policy's settings, and the CORS of a credentialed answer;
//! - `rejection`: the error answers;
//! - `stored`: the answers of addressed artifacts read from a shared store;
//! - `prepared`: a prepared answer, and how answers without content (`304`, `204`) are sent.

mod accept_encoding;
mod address;
mod conditional;
mod cors;
mod deferred;
mod encoder;
mod method;
mod prepared;
mod private;
mod rejection;
mod resource;
mod settings;
mod shared;
mod stored;
mod table;
mod template;

pub use cors::PREFLIGHT_HEADERS;
pub(crate) use cors::RefusedPreflight;
pub(crate) use method::{Answer, Answers, answer};
pub use private::{
    DEFAULT_CHALLENGE, DEFAULT_CREDENTIAL_HEADERS, PRIVATE_ADDRESSED_CACHE_CONTROL,
    PRIVATE_CACHE_CONTROL, PRIVATE_ERROR_CACHE_CONTROL, Private, PrivateError,
};
pub(crate) use private::{Rules, allow_credentials};
pub use rejection::Rejection;
pub use settings::ALLOWED_METHODS;
pub(crate) use settings::Policy;
pub use settings::{
    ADDRESSED_CACHE_CONTROL, ADDRESSED_MISS_CACHE_CONTROL, COMMON_HEADERS, DEFAULT_CACHE_CONTROL,
    DEFAULT_CORS_MAX_AGE, DEFAULT_ERROR_CACHE_CONTROL,
};
pub(crate) use shared::Shared;
pub(crate) use stored::Fetcher;
pub(crate) use table::Table;
