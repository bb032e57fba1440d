//! `skillpub export SKILLS_DIR OUT_DIR`: the catalog as a static tree, byte-identical to what
//! the router serves, with server configuration for nginx and for static hosts that read a
//! `_headers` file.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use skillpub_core::{
    Catalog, Error,
    folder::SkillsFolder,
    index::{ArchiveFormat, UrlStyle},
    media,
    origin::Origin,
    paths::{
        ADDRESS_PREFIX, API_CATALOG_PATH, AddressedPath, LEGACY_PATH, SKILL_MD, TAR_GZ_SUFFIX,
        WELL_KNOWN_PATH, ZIP_SUFFIX,
    },
    spec::MAX_NAME_LENGTH,
};

mod manifest;
mod retention;
mod swap;

use crate::output::{say, unknown_fields_hint};
use manifest::{Generation, MANIFEST, Manifest};
pub(crate) use retention::{DEFAULT_KEEP_FOR, DEFAULT_KEEP_GENERATIONS, Retention, duration};
use retention::{earlier_generations, read_verified, unix_now};
use skillpub_store::Store;
use swap::{Failure, Part, Staging};

/// The nginx snippet written next to the tree.
pub(crate) const NGINX_SNIPPET: &str = "skillpub.nginx.conf";
/// The static-host headers file written next to the tree.
pub(crate) const HEADERS_FILE: &str = "_headers";

/// The tree's folder below `.well-known/`, where the index, the canonical files and the
/// addressed files are.
const TREE: &str = "agent-skills/";

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
    /// The web root to write `.well-known/agent-skills/` (and the server configuration) into,
    /// or object storage, `s3://bucket/prefix` (endpoint, region and keys from the AWS_*
    /// variables): every artifact first, the index last.
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
    /// How many earlier exports keep their addressed files in the tree, whatever their age.
    #[arg(long, value_name = "N", default_value = retention::DEFAULT_KEEP_GENERATIONS)]
    keep_generations: usize,
    /// How long an earlier export keeps its addressed files after the next one replaced it
    /// (s, m, h or d: `90m`, `1d`), whatever the count.
    #[arg(long, value_name = "DURATION", default_value = retention::DEFAULT_KEEP_FOR, value_parser = retention::duration)]
    keep_for: Duration,
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
    let retention = Retention {
        generations: args.keep_generations,
        keep_for: args.keep_for,
    };
    if let Some(location) = args.out_dir.to_str().filter(|out| out.starts_with("s3://")) {
        return to_object_storage(&catalog, location, retention);
    }
    match write_tree(&catalog, &args.out_dir, retention) {
        Ok(written) => {
            for warning in &written.warnings {
                eprintln!("skillpub export: warning: not kept: {warning}");
            }
            say!(
                "exported {} files to {} and kept {} addressed files of {} earlier exports; serve them with {} (nginx) or {} (static hosts)",
                written.files,
                args.out_dir.join(".well-known").display(),
                written.kept,
                written.generations,
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

/// Exports `catalog` to the object storage at `location`; says whether it worked, and the
/// settings the bucket and its CDN need.
fn to_object_storage(catalog: &Catalog, location: &str, retention: Retention) -> bool {
    let Some(runtime) = crate::output::current_thread("export") else {
        return false;
    };
    let exported = Store::open(location)
        .and_then(|store| runtime.block_on(store.export(catalog, retention.for_store())));
    match exported {
        Ok(exported) => {
            say!(
                "exported {} files to {location}: {} uploaded ({} bytes), {} there already; removed {} files of skills no longer published and {} addressed files of {} earlier generations past --keep-for and --keep-generations\n{}",
                exported.files,
                exported.uploaded,
                exported.bytes,
                exported.files - exported.uploaded,
                exported.removed,
                exported.pruned.files,
                exported.pruned.removed,
                skillpub_store::cdn_settings(location)
            );
            true
        }
        Err(error) => {
            eprintln!("skillpub export: {error}");
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

/// Every path an export may own, in the order they are put in place: the tree first, then
/// the manifest that records it, the server configuration last. A site's own `api-catalog` or
/// `skills/` is only replaced when this export writes one, since only staged parts are put in
/// place.
fn parts(out_dir: &Path) -> Vec<Part> {
    let well_known = out_dir.join(".well-known");
    let tree = [WELL_KNOWN_PATH, LEGACY_PATH, API_CATALOG_PATH].map(|path| {
        let name = path
            .trim_start_matches("/.well-known/")
            .trim_end_matches('/');
        Part::new(name, well_known.join(name), path.ends_with('/'))
    });
    let files = [MANIFEST, NGINX_SNIPPET, HEADERS_FILE]
        .map(|name| Part::new(name, out_dir.join(name), false));
    tree.into_iter().chain(files).collect()
}

/// What an export wrote.
#[derive(Debug)]
pub(crate) struct Written {
    /// How many files of this export's tree were written.
    pub(crate) files: usize,
    /// How many addressed files of earlier exports were kept.
    pub(crate) kept: usize,
    /// How many earlier exports still have their files in the tree.
    pub(crate) generations: usize,
    /// The files of earlier exports that could not be kept, and why.
    pub(crate) warnings: Vec<String>,
}

/// Stages the tree (with the addressed files of the earlier exports that `retention` keeps),
/// its manifest and both configuration files beside the target, then puts them in place all
/// or nothing, holding the output folder's lock (see [`swap`]).
pub(crate) fn write_tree(
    catalog: &Catalog,
    out_dir: &Path,
    retention: Retention,
) -> Result<Written, Failure> {
    let staging = Staging::begin(out_dir, parts(out_dir))?;
    let manifest = Manifest::read(&out_dir.join(MANIFEST)).map_err(Failure::Unchanged)?;
    let tree = out_dir.join(".well-known").join(TREE);
    let now = unix_now();
    let mut earlier = retention.select(earlier_generations(manifest, &tree, now), now);
    let mut files = 0;
    let mut published = BTreeSet::new();
    for (path, artifact) in catalog.served() {
        staging.write(relative(path), artifact.bytes())?;
        files += 1;
        if artifact.addressed_path() == Some(path) {
            published.insert(below_tree(path).to_owned());
        }
    }
    let mut kept = BTreeSet::new();
    let mut warnings = Vec::new();
    for generation in &mut earlier {
        let mut held = Vec::new();
        for file in std::mem::take(&mut generation.files) {
            if published.contains(&file) || kept.contains(&file) {
                held.push(file);
                continue;
            }
            match read_verified(&tree, &file) {
                Ok(bytes) => {
                    staging.write(&format!("{TREE}{file}"), &bytes)?;
                    kept.insert(file.clone());
                    held.push(file);
                }
                Err(warning) => warnings.push(warning),
            }
        }
        generation.files = held;
    }
    let generations = earlier.len();
    earlier.push(Generation {
        exported: now,
        replaced: None,
        index: catalog.index().digest().to_string(),
        files: published.into_iter().collect(),
    });
    let manifest = Manifest {
        generations: earlier,
    };
    staging.write(MANIFEST, manifest.to_json().as_bytes())?;
    staging.write(NGINX_SNIPPET, nginx(catalog).as_bytes())?;
    staging.write(HEADERS_FILE, headers_file(catalog, &kept).as_bytes())?;
    staging.commit()?;
    Ok(Written {
        files,
        kept: kept.len(),
        generations,
        warnings,
    })
}

/// A served path below `/.well-known/`.
fn relative(path: &str) -> &str {
    path.trim_start_matches("/.well-known/")
}

/// A path of the tree below `/.well-known/agent-skills/`.
fn below_tree(path: &str) -> &str {
    path.trim_start_matches(WELL_KNOWN_PATH)
}

/// The nginx configuration: one exact `location` per published file with its exact
/// `Content-Type`, revalidated on every use; the addressed files (this export's and the ones
/// kept from earlier exports) matched by pattern and cached as immutable, so that they are
/// served as soon as the tree is in place, before nginx is reloaded; a JSON 404 for everything
/// else under the folders (and for a listed file that is missing), CORS preflight answered
/// with 204. Every answer gets the router's headers.
pub(crate) fn nginx(catalog: &Catalog) -> String {
    let mut conf = String::from(
        "# Generated by `skillpub export`. Include it in the `server { }` block whose `root` is the\n\
         # export folder:  include /path/to/export/skillpub.nginx.conf;\n\
         # The index names addressed files (sha256-<hex>/...), whose bytes never change: they are\n\
         # matched by pattern, served as soon as an export is in place and cached as immutable, the\n\
         # ones kept from earlier exports too. The index and the canonical files have a location\n\
         # each and are revalidated on every use: reload nginx after every export\n\
         # (`nginx -t && nginx -s reload`) for the canonical paths of new skills. Anything else under\n\
         # the folders is a JSON 404, never a fallback page. Archives are served as they are: never\n\
         # gzip them again. nginx makes its own ETag (modification time and size), not the digest,\n\
         # and add_header here replaces the server's add_header lines (such as HSTS) on these paths:\n\
         # repeat them if needed.\n\n",
    );
    let _ = writeln!(conf, "location ^~ {WELL_KNOWN_PATH} {{");
    for (tail, media_type) in [
        (format!("/{SKILL_MD}"), media::MARKDOWN),
        (TAR_GZ_SUFFIX.to_owned(), media::GZIP),
        (ZIP_SUFFIX.to_owned(), media::ZIP),
    ] {
        let pattern = format!(
            "^{}{}[0-9a-f]{{64}}/(?<{CANONICAL}>[a-z0-9-]{{1,{MAX_NAME_LENGTH}}}{})$",
            regex_escape(WELL_KNOWN_PATH),
            regex_escape(ADDRESS_PREFIX),
            regex_escape(&tail)
        );
        let _ = writeln!(conf, "    location ~ \"{pattern}\" {{");
        let mut file = String::new();
        let link = format!("<{WELL_KNOWN_PATH}${CANONICAL}>; rel=\"canonical\"");
        served_file(
            &mut file,
            media_type,
            skillpub_axum::ADDRESSED_CACHE_CONTROL,
            Some(("link", &link)),
            ADDRESSED_MISSING,
        );
        for line in file.lines() {
            let _ = writeln!(conf, "    {line}");
        }
        conf.push_str("    }\n");
    }
    not_found(&mut conf, skillpub_axum::DEFAULT_ERROR_CACHE_CONTROL);
    conf.push_str("}\n\n");
    if catalog.has_legacy_index() {
        let _ = writeln!(conf, "location ^~ {LEGACY_PATH} {{");
        not_found(&mut conf, skillpub_axum::DEFAULT_ERROR_CACHE_CONTROL);
        conf.push_str("}\n\n");
    }
    for (location, cache_control) in [
        (MISSING, skillpub_axum::DEFAULT_ERROR_CACHE_CONTROL),
        (
            ADDRESSED_MISSING,
            skillpub_axum::ADDRESSED_MISS_CACHE_CONTROL,
        ),
    ] {
        let _ = writeln!(conf, "location {location} {{");
        not_found(&mut conf, cache_control);
        conf.push_str("}\n\n");
    }
    for artifact in catalog.artifacts() {
        let _ = writeln!(conf, "location = {} {{", artifact.path());
        served_file(
            &mut conf,
            artifact.media_type(),
            skillpub_axum::DEFAULT_CACHE_CONTROL,
            artifact
                .addressed_path()
                .map(|addressed| ("content-location", addressed)),
            MISSING,
        );
        conf.push_str("}\n");
    }
    conf
}

/// The location of the JSON 404 of a listed file that is missing.
const MISSING: &str = "@skillpub_missing";
/// The location of the JSON 404 of a missing addressed file, which no cache may keep (see
/// [`skillpub_axum::ADDRESSED_MISS_CACHE_CONTROL`]).
const ADDRESSED_MISSING: &str = "@skillpub_addressed_missing";

/// The name of the capture that holds an addressed file's canonical path below the folder, in
/// the snippet's patterns.
const CANONICAL: &str = "skillpub_canonical";

/// The body of a location that serves a file of the tree with `media_type`, `cache_control`
/// and the header that names its other path (`Content-Location` on a canonical path, `Link`
/// on an addressed one), as the router does; the JSON 404 of the location `missing` when it is
/// missing, 204 to a preflight.
fn served_file(
    conf: &mut String,
    media_type: &str,
    cache_control: &str,
    other_path: Option<(&str, &str)>,
    missing: &str,
) {
    let _ = writeln!(
        conf,
        "    types {{ }}\n    default_type \"{}\";\n    gzip off;",
        media_type.replace('"', "\\\"")
    );
    headers(conf, cache_control);
    if let Some((name, value)) = other_path {
        let _ = writeln!(
            conf,
            "    add_header {name} \"{}\" always;",
            value.replace('"', "\\\"")
        );
    }
    conf.push_str("    if ($request_method = OPTIONS) {\n        return 204;\n    }\n");
    let _ = writeln!(conf, "    try_files $uri {missing};");
}

/// `text` with the characters that mean something in a PCRE pattern escaped.
fn regex_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// The body of a location that answers the router's JSON 404 with `cache_control` (and 204 to
/// a preflight).
fn not_found(conf: &mut String, cache_control: &str) {
    conf.push_str("    types { }\n    default_type application/json;\n");
    headers(conf, cache_control);
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
/// folders, and for each file its exact `Content-Type` and its `Cache-Control`: immutable for
/// the addressed files (this export's and the `kept` ones of earlier exports, below
/// `.well-known/agent-skills/`), revalidated for the index and the canonical files. Each path
/// gets its `Cache-Control` from one rule only, since hosts join the values of every rule that
/// matches.
pub(crate) fn headers_file(catalog: &Catalog, kept: &BTreeSet<String>) -> String {
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
        for (name, value) in skillpub_axum::COMMON_HEADERS {
            let _ = writeln!(text, "  {name}: {value}");
        }
    }
    let mut file = |path: &str, media_type: &str, cache_control: &str, other: String| {
        let _ = writeln!(
            text,
            "{path}\n  Content-Type: {media_type}\n  Cache-Control: {cache_control}{other}"
        );
    };
    for artifact in catalog.artifacts() {
        let content_location = artifact
            .addressed_path()
            .map(|addressed| format!("\n  Content-Location: {addressed}"))
            .unwrap_or_default();
        file(
            artifact.path(),
            artifact.media_type(),
            skillpub_axum::DEFAULT_CACHE_CONTROL,
            content_location,
        );
    }
    let link = |canonical: &str| format!("\n  Link: <{canonical}>; rel=\"canonical\"");
    for artifact in catalog.artifacts() {
        if let Some(addressed) = artifact.addressed_path() {
            file(
                addressed,
                artifact.media_type(),
                skillpub_axum::ADDRESSED_CACHE_CONTROL,
                link(artifact.path()),
            );
        }
    }
    for kept in kept {
        let path = format!("{WELL_KNOWN_PATH}{kept}");
        let canonical = AddressedPath::parse(&path).map(|a| a.canonical_path());
        file(
            &path,
            AddressedPath::parse(&path)
                .and_then(|a| a.media_type())
                .unwrap_or(media::MARKDOWN),
            skillpub_axum::ADDRESSED_CACHE_CONTROL,
            canonical.as_deref().map(link).unwrap_or_default(),
        );
    }
    text
}
