#![doc = include_str!("docs/lib.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use skillpub_core::{
    Catalog, CatalogBuilder, Error, ErrorKind, Errors, LiveCatalog, Skill, SkillFile,
    include_skills, skill,
};

/// The data model, all of skillpub-core: skills, frontmatter and its validation, digests, the
/// catalog, the discovery index, archives, well-known paths and limits.
///
/// Named `model` rather than `core` so that `use skillpub::*;` next to `use core::...;` is not
/// ambiguous.
#[doc(inline)]
pub use skillpub_core as model;

/// The axum side, all of skillpub-axum: the router for `/.well-known/agent-skills/`, its
/// builder and HTTP policy, and the discovery `Link` layer.
///
/// Named `web` rather than `axum` so that `use skillpub::*;` next to `use axum::Router;` is not
/// ambiguous.
#[cfg(feature = "axum")]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
#[doc(inline)]
pub use skillpub_axum as web;

#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
#[doc(inline)]
pub use skillpub_client as client;

#[cfg(feature = "check")]
#[cfg_attr(docsrs, doc(cfg(feature = "check")))]
#[doc(inline)]
pub use skillpub_check as check;

#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
#[doc(inline)]
pub use skillpub_check::testing;

#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
#[doc(inline)]
pub use skillpub_mcp as mcp;

/// The authoring advice of `skillpub lint` and `skillpub check`, all of skillpub-advice:
/// [`advise`](skillpub_advice::advise) on a checked `SKILL.md`, its rules and their codes.
#[cfg(feature = "advice")]
#[cfg_attr(docsrs, doc(cfg(feature = "advice")))]
#[doc(inline)]
pub use skillpub_advice as advice;
