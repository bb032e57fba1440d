//! `skillpub export SKILLS_DIR OUT_DIR`: the catalog as a static tree, byte-identical to what
//! the router serves, with server configuration for nginx and for static hosts that read a
//! `_headers` file.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use skillpub_core::{
    API_CATALOG_PATH, ArchiveFormat, Artifact, Catalog, CatalogBuilder, LEGACY_PATH, Origin,
    SkillsFolder, UrlStyle, WELL_KNOWN_PATH,
};

/// The nginx snippet written next to the tree.
pub(crate) const NGINX_SNIPPET: &str = "skillpub.nginx.conf";
/// The static-host headers file written next to the tree.
pub(crate) const HEADERS_FILE: &str = "_headers";

/// The headers on every answer, as the router sends them with its default policy.
fn common_headers() -> impl Iterator<Item = (&'static str, &'static str)> {
    std::iter::once(("cache-control", skillpub_axum::DEFAULT_CACHE_CONTROL_TEXT))
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
        Err(error) => {
            eprintln!("skillpub export: {error}; the previous export, if any, is unchanged");
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
    let mut problems: Vec<String> = folder.errors().iter().map(ToString::to_string).collect();
    let mut builder = CatalogBuilder::new();
    builder
        .skills(folder.skills().iter().map(|source| source.skill().clone()))
        .url_style(style)
        .archive_format(match args.archive {
            Archive::TarGz => ArchiveFormat::TarGz,
            Archive::Zip => ArchiveFormat::Zip,
        })
        .legacy_index(args.legacy)
        .api_catalog(args.api_catalog);
    let built = builder.build();
    if let Err(errors) = &built {
        problems.extend(errors.as_slice().iter().map(ToString::to_string));
    }
    match built {
        Ok(catalog) if problems.is_empty() => Ok(catalog),
        _ => Err(format!(
            "skillpub export: nothing was written; {} problem{}:\n  {}",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" },
            problems.join("\n  ")
        )),
    }
}

/// Writes the tree into a temporary folder beside the target, then swaps it in, so that a
/// failed export leaves the previous one in place. Returns how many files were written.
pub(crate) fn write_tree(catalog: &Catalog, out_dir: &Path) -> std::io::Result<usize> {
    let well_known = out_dir.join(".well-known");
    fs::create_dir_all(&well_known)?;
    let staging = well_known.join(format!(".skillpub-staging-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    let written = stage(catalog, &staging);
    let written = match written {
        Ok(written) => written,
        Err(error) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(error);
        }
    };
    // Swap in each top-level entry the export owns: the folders, then the single files.
    let owned = [
        WELL_KNOWN_PATH
            .trim_start_matches("/.well-known/")
            .trim_end_matches('/'),
        LEGACY_PATH
            .trim_start_matches("/.well-known/")
            .trim_end_matches('/'),
        API_CATALOG_PATH.trim_start_matches("/.well-known/"),
    ];
    for name in owned {
        swap(&staging.join(name), &well_known.join(name))?;
    }
    fs::remove_dir_all(&staging)?;
    replace_file(&out_dir.join(NGINX_SNIPPET), nginx(catalog).as_bytes())?;
    replace_file(
        &out_dir.join(HEADERS_FILE),
        headers_file(catalog).as_bytes(),
    )?;
    Ok(written)
}

/// Writes every artifact under `staging`, named by its path below `/.well-known/`.
fn stage(catalog: &Catalog, staging: &Path) -> std::io::Result<usize> {
    let mut written = 0;
    for artifact in catalog.artifacts() {
        let path = staging.join(relative(artifact));
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&path, artifact.bytes())?;
        written += 1;
    }
    Ok(written)
}

/// An artifact's path below `/.well-known/`.
fn relative(artifact: &Artifact) -> &str {
    artifact.path().trim_start_matches("/.well-known/")
}

/// Replaces `target` with `staged` (either may be absent): the old one is moved aside first and
/// removed only once the new one is in place.
fn swap(staged: &Path, target: &Path) -> std::io::Result<()> {
    let old = target.with_extension(format!("skillpub-old-{}", std::process::id()));
    let had_old = target.exists();
    if had_old {
        fs::rename(target, &old)?;
    }
    if staged.exists()
        && let Err(error) = fs::rename(staged, target)
    {
        if had_old {
            let _ = fs::rename(&old, target);
        }
        return Err(error);
    }
    if had_old {
        if old.is_dir() {
            fs::remove_dir_all(&old)
        } else {
            fs::remove_file(&old)
        }?;
    }
    Ok(())
}

/// Writes a file through a temporary file and a rename.
fn replace_file(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temporary = target.with_extension(format!("skillpub-new-{}", std::process::id()));
    fs::write(&temporary, bytes)?;
    fs::rename(&temporary, target)
}

/// The nginx configuration: one exact `location` per published file with its exact
/// `Content-Type`, and a JSON 404 for everything else under the folders. Every answer gets the
/// router's headers.
pub(crate) fn nginx(catalog: &Catalog) -> String {
    let mut conf = String::from(
        "# Generated by `skillpub export`. Include it in the `server { }` block whose `root` is the\n\
         # export folder:  include /path/to/export/skillpub.nginx.conf;\n\
         # Each published file gets its exact Content-Type; anything else under the folders is a\n\
         # JSON 404, never a fallback page. Archives are served as they are: never gzip them again.\n\n",
    );
    let headers = |conf: &mut String, indent: &str| {
        for (name, value) in common_headers() {
            let _ = writeln!(conf, "{indent}add_header {name} \"{value}\" always;");
        }
    };
    let mut folders = vec![WELL_KNOWN_PATH];
    if catalog.has_legacy_index() {
        folders.push(LEGACY_PATH);
    }
    for folder in folders {
        let _ = writeln!(conf, "location ^~ {folder} {{");
        conf.push_str("    default_type application/json;\n");
        headers(&mut conf, "    ");
        let body = skillpub_axum::Rejection::NotFound.body_text();
        let _ = writeln!(conf, "    return 404 '{}\\n';\n}}\n", body.trim_end());
    }
    for artifact in catalog.artifacts() {
        let _ = writeln!(conf, "location = {} {{", artifact.path());
        let _ = writeln!(
            conf,
            "    types {{ }}\n    default_type \"{}\";",
            artifact.media_type().replace('"', "\\\"")
        );
        conf.push_str("    gzip off;\n");
        headers(&mut conf, "    ");
        conf.push_str("    try_files $uri =404;\n}\n");
    }
    conf
}

/// The `_headers` file of static hosts (Netlify, Cloudflare Pages): the common headers for the
/// folders, and each file's exact `Content-Type`.
pub(crate) fn headers_file(catalog: &Catalog) -> String {
    let mut text =
        String::from("# Generated by `skillpub export` for static hosts that read `_headers`.\n");
    let mut folders = vec![WELL_KNOWN_PATH];
    if catalog.has_legacy_index() {
        folders.push(LEGACY_PATH);
    }
    for folder in folders {
        let _ = writeln!(text, "{folder}*");
        for (name, value) in common_headers() {
            let _ = writeln!(text, "  {name}: {value}");
        }
    }
    for artifact in catalog.artifacts() {
        let _ = writeln!(
            text,
            "{}\n  Content-Type: {}",
            artifact.path(),
            artifact.media_type()
        );
    }
    text
}
