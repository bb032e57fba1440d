//! The rules every skill is held to, as values and checks: the limits and allowed fields of
//! the Agent Skills specification and SEP-2640, the bounds on frontmatter YAML, the name rule
//! of the discovery draft and the rule of supporting file paths; and the [`Severity`] of a
//! finding, by the force of the rule it is about.
//!
//! The catalog applies them all (see the [crate docs' rules](crate#rules)); they are public so
//! that a client holds a fetched skill to the same values, and a tool checks a name or a path
//! on its own.
//!
//! # Example
//!
//! ```
//! use skillpub_core::spec::{self, PathProblem};
//!
//! assert!(spec::validate_name("pdf-processing").is_empty());
//! assert_eq!(spec::validate_file_path("../secret"), Err(PathProblem::NotRelative));
//! assert!(spec::ALLOWED_FIELDS.contains(&"allowed-tools"));
//! assert_eq!(spec::MAX_NAME_LENGTH, 64);
//! ```

pub(crate) mod limits;
pub(crate) mod name;
pub(crate) mod path;
pub(crate) mod severity;

pub use limits::{
    ALLOWED_FIELDS, MAX_BYTES_PER_SKILL, MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH,
    MAX_FILES_PER_SKILL, MAX_NAME_LENGTH, MAX_YAML_DEPTH, MAX_YAML_NODES, MAX_YAML_SCALAR_BYTES,
};
pub use name::validate_name;
pub use path::{PathProblem, validate_file_path};
pub use severity::Severity;
