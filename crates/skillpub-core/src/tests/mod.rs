//! Tests of the crate as a whole, by topic.

mod archives;
mod codes;
mod extras;
#[cfg(feature = "fs")]
mod folders;
mod nesting;
mod start_up;
mod validation;
