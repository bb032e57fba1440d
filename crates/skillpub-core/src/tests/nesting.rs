//! A router nested under a prefix: the URLs written for clients carry it, the served paths
//! do not.

use crate::{
    Catalog, CatalogBuilder, ErrorKind, Skill, SkillFile,
    index::UrlStyle,
    paths::{BasePath, BasePathProblem},
};

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n";
const NOTES: &str = "---\nname: notes\ndescription: Takes notes.\n---\n";

fn builder(style: UrlStyle, base_path: &str) -> CatalogBuilder {
    let mut builder = CatalogBuilder::new();
    builder
        .skill(Skill::new(None, PDF).with_files(vec![SkillFile::new(
            "references/forms.md",
            "# Forms\n",
            false,
        )]))
        .skill(Skill::from_static(NOTES))
        .url_style(style)
        .base_path(base_path)
        .legacy_index(true)
        .api_catalog(true);
    builder
}

fn absolute() -> UrlStyle {
    UrlStyle::Absolute("https://example.com".parse().unwrap())
}

fn artifact(catalog: &Catalog, path: &str) -> serde_json::Value {
    let artifact = catalog.artifacts().find(|a| a.path() == path).unwrap();
    serde_json::from_slice(artifact.bytes()).unwrap()
}

/// `url` with `<pdf>` and `<notes>` replaced by the segments that address the listed
/// artifacts of those skills in `catalog` (`sha256-<hex>`).
fn addressed(catalog: &Catalog, url: &str) -> String {
    let segment = |digest| crate::paths::address_segment(digest);
    let pdf = catalog.get("pdf").unwrap();
    let tar_gz = pdf
        .archive(crate::index::ArchiveFormat::TarGz)
        .unwrap()
        .digest();
    let notes = catalog.get("notes").unwrap().skill_md().digest();
    url.replace("<pdf>", &segment(tar_gz))
        .replace("<notes>", &segment(notes))
}

/// One line per case: URL style, base path, then the index `url` of the archive skill and of
/// the `SKILL.md` skill (`<pdf>` and `<notes>` stand for the segments of their digests), the
/// index URL, and the API catalog's anchor and item.
macro_rules! urls {
    ($name:ident, $style:expr, $base:expr, $archive:expr, $skill_md:expr, $index:expr, $anchor:expr) => {
        #[test]
        fn $name() {
            let catalog = builder($style, $base).build().unwrap();
            let (archive, skill_md) = (
                addressed(&catalog, $archive),
                addressed(&catalog, $skill_md),
            );
            assert_eq!(catalog.base_path(), $base);
            assert_eq!(catalog.get("pdf").unwrap().url(), archive);
            assert_eq!(catalog.get("notes").unwrap().url(), skill_md);
            assert_eq!(catalog.index_url(), $index);
            let index = artifact(&catalog, "/.well-known/agent-skills/index.json");
            assert_eq!(index["skills"][0]["url"], skill_md, "notes sorts first");
            assert_eq!(index["skills"][1]["url"], archive);
            let linkset = artifact(&catalog, "/.well-known/api-catalog");
            assert_eq!(linkset["linkset"][0]["anchor"], $anchor);
            assert_eq!(linkset["linkset"][0]["item"][0]["href"], $index);
        }
    };
}

urls!(
    path_absolute_at_the_root,
    UrlStyle::PathAbsolute,
    "",
    "/.well-known/agent-skills/<pdf>/pdf.tar.gz",
    "/.well-known/agent-skills/<notes>/notes/SKILL.md",
    "/.well-known/agent-skills/index.json",
    "/.well-known/api-catalog"
);
urls!(
    path_absolute_under_a_prefix,
    UrlStyle::PathAbsolute,
    "/tenant",
    "/tenant/.well-known/agent-skills/<pdf>/pdf.tar.gz",
    "/tenant/.well-known/agent-skills/<notes>/notes/SKILL.md",
    "/tenant/.well-known/agent-skills/index.json",
    "/tenant/.well-known/api-catalog"
);
urls!(
    path_absolute_under_a_deep_prefix,
    UrlStyle::PathAbsolute,
    "/acme/skills-v2",
    "/acme/skills-v2/.well-known/agent-skills/<pdf>/pdf.tar.gz",
    "/acme/skills-v2/.well-known/agent-skills/<notes>/notes/SKILL.md",
    "/acme/skills-v2/.well-known/agent-skills/index.json",
    "/acme/skills-v2/.well-known/api-catalog"
);
urls!(
    relative_urls_need_no_prefix,
    UrlStyle::Relative,
    "/tenant",
    "<pdf>/pdf.tar.gz",
    "<notes>/notes/SKILL.md",
    "/tenant/.well-known/agent-skills/index.json",
    "/tenant/.well-known/api-catalog"
);
urls!(
    absolute_urls_put_the_prefix_after_the_origin,
    absolute(),
    "/tenant",
    "https://example.com/tenant/.well-known/agent-skills/<pdf>/pdf.tar.gz",
    "https://example.com/tenant/.well-known/agent-skills/<notes>/notes/SKILL.md",
    "https://example.com/tenant/.well-known/agent-skills/index.json",
    "https://example.com/tenant/.well-known/api-catalog"
);

#[test]
fn served_paths_and_the_legacy_index_do_not_change() {
    let root = builder(UrlStyle::PathAbsolute, "").build().unwrap();
    let nested = builder(UrlStyle::PathAbsolute, "/tenant").build().unwrap();
    let paths = |c: &Catalog| {
        c.artifacts()
            .map(|a| a.path().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(paths(&nested), paths(&root));
    let legacy = "/.well-known/skills/index.json";
    assert_eq!(artifact(&nested, legacy), artifact(&root, legacy));
    assert!(
        !serde_json::to_string(&artifact(&nested, legacy))
            .unwrap()
            .contains("tenant")
    );
}

#[test]
fn a_relative_index_resolves_under_the_prefix() {
    let catalog = builder(UrlStyle::Relative, "/tenant").build().unwrap();
    let index_url = catalog.index_url();
    let base = &index_url[..=index_url.rfind('/').unwrap()];
    let notes = catalog.get("notes").unwrap();
    assert_eq!(
        format!("{base}{}", notes.url()),
        format!("/tenant{}", notes.skill_md().addressed_path().unwrap())
    );
}

#[test]
fn without_addressed_urls_the_index_names_the_canonical_paths_in_every_style() {
    for (style, base, notes) in [
        (
            UrlStyle::PathAbsolute,
            "",
            "/.well-known/agent-skills/notes/SKILL.md",
        ),
        (UrlStyle::Relative, "/tenant", "notes/SKILL.md"),
        (
            absolute(),
            "/tenant",
            "https://example.com/tenant/.well-known/agent-skills/notes/SKILL.md",
        ),
    ] {
        let catalog = builder(style, base).addressed_urls(false).build().unwrap();
        assert_eq!(catalog.get("notes").unwrap().url(), notes);
        let addressed = builder(UrlStyle::PathAbsolute, base).build().unwrap();
        assert_eq!(
            catalog.served().map(|(path, _)| path).collect::<Vec<_>>(),
            addressed.served().map(|(path, _)| path).collect::<Vec<_>>(),
            "both paths are served either way"
        );
    }
}

/// One line per case: a base path the catalog refuses, and the problem. A `BasePath` made of
/// it elsewhere (for the `Link` layer) is refused with the same problem and message.
macro_rules! refused {
    ($name:ident, $base:expr, $problem:pat) => {
        #[test]
        fn $name() {
            let errors = builder(UrlStyle::PathAbsolute, $base).build().unwrap_err();
            assert_eq!(errors.len(), 1, "{errors}");
            let error = &errors.as_slice()[0];
            assert_eq!(error.field(), Some("base_path"));
            assert!(
                matches!(error.kind(), ErrorKind::BasePath { base_path, problem: $problem } if base_path == $base),
                "{error}"
            );
            let invalid = BasePath::new($base).unwrap_err();
            assert!(matches!(invalid.problem(), $problem), "{invalid}");
            assert_eq!(invalid.path(), $base);
            assert_eq!(invalid.to_string(), error.kind().to_string());
        }
    };
}

refused!(relative_prefix, "tenant", BasePathProblem::Relative);
refused!(root_slash, "/", BasePathProblem::TrailingSlash);
refused!(trailing_slash, "/tenant/", BasePathProblem::TrailingSlash);
refused!(empty_segment, "/a//b", BasePathProblem::EmptySegment);
refused!(dot_dot, "/a/../b", BasePathProblem::DotSegment);
refused!(percent, "/t%65nant", BasePathProblem::PercentEncoded);
refused!(query, "/tenant?a=b", BasePathProblem::Characters { .. });

#[test]
fn a_bad_prefix_is_reported_with_every_skill_problem() {
    let mut builder = builder(UrlStyle::PathAbsolute, "/tenant/");
    builder.skill(Skill::from_static("---\nname: Bad\ndescription: d\n---\n"));
    let errors = builder.build().unwrap_err();
    let text = errors.to_string();
    assert!(
        text.starts_with("2 problems in the skills:\n  `CatalogBuilder::base_path`: the base path `/tenant/` ends with `/`"),
        "{text}"
    );
    let codes: Vec<&str> = errors.as_slice().iter().map(crate::Error::code).collect();
    assert_eq!(codes, ["base-path.invalid", "name.uppercase"]);
    assert_eq!(errors.as_slice()[1].skill(), "Bad");
}
