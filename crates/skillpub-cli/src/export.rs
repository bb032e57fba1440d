//! `skillpub export SKILLS_DIR OUT_DIR`: the catalog as a static tree, byte-identical to what
//! the router serves, with server configuration for nginx and for static hosts that read a
//! `_headers` file.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use skillpub_core::{
    Catalog, Error,
    folder::SkillsFolder,
    index::{ArchiveFormat, UrlStyle},
    origin::Origin,
    paths::{API_CATALOG_PATH, LEGACY_PATH, WELL_KNOWN_PATH},
};

mod swap;

use crate::output::unknown_fields_hint;
use swap::{Failure, Part, Staging};

/// The nginx snippet written next to the tree.
pub(crate) const NGINX_SNIPPET: &str = "skillpub.nginx.conf";
/// The static-host headers file written next to the tree.
pub(crate) const HEADERS_FILE: &str = "_headers";

/// The headers on every answer, as the router sends them with its default policy.
fn common_headers() -> impl Iterator<Item = (&'static str, &'static str)> {
    std::iter::once(("cache-control", skillpub_axum::DEFAULT_CACHE_CONTROL))
        .chain(skillpub_axum::COMMON_HEADERS)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Style {
    PathAbsolute,
    Relative,
    Absolute,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Archive {
    TarGz,
    Zip,
}

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A skill folder or a folder of skill folders.
    skills_dir: PathBuf,
    /// The web root to write `.well-known/agent-skills/` (and the server configuration) into.
    out_dir: PathBuf,
    /// How the index writes each `url`.
    #[arg(long, value_enum, default_value = "path-absolute")]
    url_style: Style,
    /// The public origin for `--url-style absolute`, such as `https://example.com`.
    #[arg(long)]
    origin: Option<String>,
    /// Which archive the index lists for multi-file skills.
    #[arg(long, value_enum, default_value = "tar-gz")]
    archive: Archive,
    /// Also write the legacy 0.1.0 layout under `.well-known/skills/`.
    #[arg(long)]
    legacy: bool,
    /// Also write an RFC 9727 API catalog at `.well-known/api-catalog`.
    #[arg(long)]
    api_catalog: bool,
    /// Accept frontmatter fields beyond the Agent Skills ones (they are published as written).
    #[arg(long)]
    allow_unknown_fields: bool,
}

/// Builds the catalog and writes the tree; says whether it worked.
pub(crate) fn run(args: &Args) -> bool {
    let catalog = match catalog(args) {
        Ok(catalog) => catalog,
        Err(message) => {
            eprintln!("{message}");
            return false;
        }
    };
    for skipped in catalog.skipped() {
        eprintln!("skillpub export: warning: {skipped}");
    }
    match write_tree(&catalog, &args.out_dir) {
        Ok(count) => {
            println!(
                "exported {count} files to {}; serve them with {} (nginx) or {} (static hosts)",
                args.out_dir.join(".well-known").display(),
                args.out_dir.join(NGINX_SNIPPET).display(),
                args.out_dir.join(HEADERS_FILE).display()
            );
            true
        }
        Err(failure) => {
            eprintln!("skillpub export: {failure}");
            false
        }
    }
}

fn catalog(args: &Args) -> Result<Catalog, String> {
    let style = match (args.url_style, &args.origin) {
        (Style::Absolute, Some(origin)) => {
            UrlStyle::Absolute(origin.parse::<Origin>().map_err(|e| e.to_string())?)
        }
        (Style::Absolute, None) => {
            return Err("--url-style absolute needs --origin https://your.site".to_owned());
        }
        (_, Some(_)) => return Err("--origin is only used with --url-style absolute".to_owned()),
        (Style::PathAbsolute, None) => UrlStyle::PathAbsolute,
        (Style::Relative, None) => UrlStyle::Relative,
    };
    let folder = SkillsFolder::read(&args.skills_dir);
    let mut builder = folder.builder();
    builder
        .url_style(style)
        .archive_format(match args.archive {
            Archive::TarGz => ArchiveFormat::TarGz,
            Archive::Zip => ArchiveFormat::Zip,
        })
        .legacy_index(args.legacy)
        .api_catalog(args.api_catalog)
        .allow_unknown_fields(args.allow_unknown_fields);
    let built = builder.build();
    // The folder's problems, then the build's: walked once for the list and for the hint.
    let problems: Vec<&Error> = folder
        .errors()
        .iter()
        .chain(built.as_ref().err().into_iter().flatten())
        .collect();
    if problems.is_empty()
        && let Ok(catalog) = built
    {
        return Ok(catalog);
    }
    Err(format!(
        "skillpub export: nothing was written; {} problem{}:\n  {}{}",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        problems
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n  "),
        unknown_fields_hint(problems.iter().copied())
    ))
}

/// Every path an export may own, in the order they are put in place: the tree first, the
/// server configuration last. A site's own `api-catalog` or `skills/` is only replaced when
/// this export writes one, since only staged parts are put in place.
fn parts(out_dir: &Path) -> Vec<Part> {
    let well_known = out_dir.join(".well-known");
    let tree = [WELL_KNOWN_PATH, LEGACY_PATH, API_CATALOG_PATH].map(|path| {
        let name = path
            .trim_start_matches("/.well-known/")
            .trim_end_matches('/');
        Part::new(name, well_known.join(name), path.ends_with('/'))
    });
    let configs =
        [NGINX_SNIPPET, HEADERS_FILE].map(|name| Part::new(name, out_dir.join(name), false));
    tree.into_iter().chain(configs).collect()
}

/// Stages the tree and both configuration files beside the target, then puts them in place
/// all or nothing, holding the output folder's lock (see [`swap`]). Returns how many files of
/// the tree were written.
pub(crate) fn write_tree(catalog: &Catalog, out_dir: &Path) -> Result<usize, Failure> {
    let staging = Staging::begin(out_dir, parts(out_dir))?;
    let mut written = 0;
    for (path, artifact) in catalog.served() {
        staging.write(relative(path), artifact.bytes())?;
        written += 1;
    }
    staging.write(NGINX_SNIPPET, nginx(catalog).as_bytes())?;
    staging.write(HEADERS_FILE, headers_file(catalog).as_bytes())?;
    staging.commit()?;
    Ok(written)
}

/// A served path below `/.well-known/`.
fn relative(path: &str) -> &str {
    path.trim_start_matches("/.well-known/")
}

/// The nginx configuration: one exact `location` per published file with its exact
/// `Content-Type`, a JSON 404 for everything else under the folders (and for a listed file
/// that is missing), CORS preflight answered with 204. Every answer gets the router's headers.
pub(crate) fn nginx(catalog: &Catalog) -> String {
    let mut conf = String::from(
        "# Generated by `skillpub export`. Include it in the `server { }` block whose `root` is the\n\
         # export folder:  include /path/to/export/skillpub.nginx.conf;\n\
         # Reload nginx after every export (`nginx -t && nginx -s reload`): each published file has\n\
         # its own location, with its exact Content-Type; anything else under the folders is a JSON\n\
         # 404, never a fallback page. Archives are served as they are: never gzip them again.\n\
         # nginx makes its own ETag (modification time and size), not the digest, and add_header here\n\
         # replaces the server's add_header lines (such as HSTS) on these paths: repeat them if needed.\n\n",
    );
    let mut folders = vec![WELL_KNOWN_PATH];
    if catalog.has_legacy_index() {
        folders.push(LEGACY_PATH);
    }
    for folder in folders {
        let _ = writeln!(conf, "location ^~ {folder} {{");
        not_found(&mut conf);
        conf.push_str("}\n\n");
    }
    conf.push_str("location @skillpub_missing {\n");
    not_found(&mut conf);
    conf.push_str("}\n\n");
    for (path, artifact) in catalog.served() {
        let _ = writeln!(conf, "location = {path} {{");
        let _ = writeln!(
            conf,
            "    types {{ }}\n    default_type \"{}\";\n    gzip off;",
            artifact.media_type().replace('"', "\\\"")
        );
        headers(&mut conf, skillpub_axum::DEFAULT_CACHE_CONTROL);
        conf.push_str("    if ($request_method = OPTIONS) {\n        return 204;\n    }\n");
        conf.push_str("    try_files $uri @skillpub_missing;\n}\n");
    }
    conf
}

/// The body of a location that answers the router's JSON 404 (and 204 to a preflight).
fn not_found(conf: &mut String) {
    conf.push_str("    types { }\n    default_type application/json;\n");
    headers(conf, skillpub_axum::DEFAULT_ERROR_CACHE_CONTROL);
    conf.push_str("    if ($request_method = OPTIONS) {\n        return 204;\n    }\n");
    let body = skillpub_axum::Rejection::NotFound.body_text();
    let _ = writeln!(conf, "    return 404 '{}\\n';", body.trim_end());
}

/// The router's headers: caching, the common ones, and those a preflight needs.
fn headers(conf: &mut String, cache_control: &str) {
    let max_age = skillpub_axum::DEFAULT_CORS_MAX_AGE.as_secs().to_string();
    let lines = std::iter::once(("cache-control", cache_control))
        .chain(skillpub_axum::COMMON_HEADERS)
        .chain(skillpub_axum::PREFLIGHT_HEADERS)
        .chain(std::iter::once((
            "access-control-max-age",
            max_age.as_str(),
        )));
    for (name, value) in lines {
        let _ = writeln!(conf, "    add_header {name} \"{value}\" always;");
    }
}

/// The `_headers` file of static hosts (Netlify, Cloudflare Pages): the common headers for the
/// folders, and each file's exact `Content-Type`.
pub(crate) fn headers_file(catalog: &Catalog) -> String {
    let mut text =
        String::from("# Generated by `skillpub export` for static hosts that read `_headers`.\n");
    let mut rules = vec![format!("{WELL_KNOWN_PATH}*")];
    if catalog.has_legacy_index() {
        rules.push(format!("{LEGACY_PATH}*"));
    }
    if catalog.artifacts().any(|a| a.path() == API_CATALOG_PATH) {
        rules.push(API_CATALOG_PATH.to_owned());
    }
    for rule in rules {
        let _ = writeln!(text, "{rule}");
        for (name, value) in common_headers() {
            let _ = writeln!(text, "  {name}: {value}");
        }
    }
    for (path, artifact) in catalog.served() {
        let _ = writeln!(text, "{path}\n  Content-Type: {}", artifact.media_type());
    }
    text
}
