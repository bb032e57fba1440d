//! Every check of `skillpub check` against sites built for it, run in process through the
//! client's `ServiceTransport` (no network, no port), one file per topic with its own site.
//! What only the binary adds (exit codes, output formats, flags, real TCP and proxies) is
//! tested in `skillpub-cli`'s `tests/check.rs`.

mod archives;
mod basics;
mod caching;
mod codings;
mod concurrency;
mod grade;
mod isitagentready;
mod pages;
mod private;
mod report;
mod site;
