//! Tests of the crate as a whole, by topic.

mod archives;
mod codes;
mod extras;
mod nesting;
mod secrets;
mod start_up;
mod validation;
