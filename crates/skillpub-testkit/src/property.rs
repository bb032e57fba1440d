//! The proptest configuration every property test of the workspace runs with.

use proptest::test_runner::Config;

/// `cases` cases, unless `PROPTEST_CASES` asks for another number. Failures are not written
/// to files: a failure found becomes a named regression test instead.
///
/// # Example
///
/// ```
/// use skillpub_testkit::property_config;
///
/// let config = property_config(64);
/// assert!(config.failure_persistence.is_none());
/// if std::env::var_os("PROPTEST_CASES").is_none() {
///     assert_eq!(config.cases, 64);
/// }
/// ```
#[must_use]
pub fn property_config(cases: u32) -> Config {
    let mut config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = cases;
    }
    config
}
