//! The export's record of its generations, `OUT_DIR/.skillpub-export.json`: for each export
//! whose addressed files are still in the tree, when it was exported, when the next export
//! replaced it, the digest of its `index.json`, and the addressed files it published. It is
//! staged and put in place with the tree (one rename, never half-written) and read back by
//! the next export, which decides from it what to keep (see [`super::retention`]).
//!
//! ```json
//! {
//!   "skillpub-export": 1,
//!   "generations": [
//!     { "exported": 1767225600, "replaced": 1767229200, "index": "sha256:…",
//!       "files": ["sha256-…/pdf/SKILL.md"] },
//!     { "exported": 1767229200, "index": "sha256:…", "files": ["sha256-…/pdf/SKILL.md"] }
//!   ]
//! }
//! ```
//!
//! Times are seconds since the Unix epoch; the generations are listed oldest first, the last
//! is the tree in place (it has no `replaced` yet); `files` are below
//! `.well-known/agent-skills/`.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use serde_json::{Map, Value};

use skillpub_core::paths::{WELL_KNOWN_PATH, is_addressed_artifact};

/// The manifest's file name in the output folder, next to the export's lock.
pub(crate) const MANIFEST: &str = ".skillpub-export.json";
/// The key that names the format, and the one version this export reads and writes.
const FORMAT_KEY: &str = "skillpub-export";
const FORMAT_VERSION: u64 = 1;

/// One export, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Generation {
    /// When it was exported, in seconds since the Unix epoch.
    pub(crate) exported: u64,
    /// When the next export replaced it; `None` while it is the tree in place.
    pub(crate) replaced: Option<u64>,
    /// The digest (`sha256:<hex>`) of its `index.json`.
    pub(crate) index: String,
    /// The addressed files it published, below `.well-known/agent-skills/`, sorted.
    pub(crate) files: Vec<String>,
}

/// Every generation recorded, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub(crate) generations: Vec<Generation>,
}

impl Manifest {
    /// Reads the manifest at `path`: `Ok(None)` when there is none, an error that names the
    /// file and the fix when it cannot be read or is not a manifest of this format.
    pub(crate) fn read(path: &Path) -> Result<Option<Self>, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(unreadable(path, &error.to_string())),
        };
        Self::parse(&text)
            .map(Some)
            .map_err(|problem| unreadable(path, &problem))
    }

    /// Reads a manifest's text; the problem, without the file's name, when it is not one.
    fn parse(text: &str) -> Result<Self, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|error| format!("it is not JSON ({error})"))?;
        let object = value.as_object().ok_or("it is not a JSON object")?;
        match object.get(FORMAT_KEY).and_then(Value::as_u64) {
            Some(FORMAT_VERSION) => {}
            Some(other) => {
                return Err(format!(
                    "it is version {other} of the format; this skillpub reads version {FORMAT_VERSION}"
                ));
            }
            None => return Err(format!("it has no `\"{FORMAT_KEY}\": {FORMAT_VERSION}`")),
        }
        let generations = object
            .get("generations")
            .and_then(Value::as_array)
            .ok_or("it has no `generations` list")?;
        let last = generations.len().saturating_sub(1);
        let generations = generations
            .iter()
            .enumerate()
            .map(|(n, value)| {
                generation(value, n == last)
                    .map_err(|problem| format!("generation {} {problem}", n + 1))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { generations })
    }

    /// The manifest as JSON text, one generation per line.
    pub(crate) fn to_json(&self) -> String {
        let mut text = format!("{{\n  \"{FORMAT_KEY}\": {FORMAT_VERSION},\n  \"generations\": [");
        for (n, generation) in self.generations.iter().enumerate() {
            let mut object = Map::new();
            object.insert("exported".to_owned(), generation.exported.into());
            if let Some(replaced) = generation.replaced {
                object.insert("replaced".to_owned(), replaced.into());
            }
            object.insert("index".to_owned(), generation.index.clone().into());
            object.insert("files".to_owned(), generation.files.clone().into());
            let separator = if n == 0 { "" } else { "," };
            let _ = write!(text, "{separator}\n    {}", Value::Object(object));
        }
        text.push_str("\n  ]\n}\n");
        text
    }
}

/// One generation read back; `current` for the last, which has no `replaced`.
fn generation(value: &Value, current: bool) -> Result<Generation, String> {
    let object = value.as_object().ok_or("is not a JSON object")?;
    let time = |key: &str| {
        object
            .get(key)
            .map(|time| {
                time.as_u64()
                    .ok_or_else(|| format!("has a `{key}` that is not a whole number of seconds"))
            })
            .transpose()
    };
    let exported = time("exported")?.ok_or("has no `exported` time")?;
    let replaced = time("replaced")?;
    if replaced.is_none() && !current {
        return Err("has no `replaced` time, yet a later generation follows it".to_owned());
    }
    let index = object
        .get("index")
        .and_then(Value::as_str)
        .filter(|digest| digest.parse::<skillpub_core::Digest>().is_ok())
        .ok_or("has no `index` digest (`sha256:` and 64 hex digits)")?
        .to_owned();
    let files = object
        .get("files")
        .and_then(Value::as_array)
        .ok_or("has no `files` list")?
        .iter()
        .map(|file| match file.as_str() {
            Some(file) if is_addressed_file(file) => Ok(file.to_owned()),
            _ => Err(format!(
                "lists {file}, which is not an addressed file (`sha256-<hex>/<name>/SKILL.md`, `sha256-<hex>/<name>.tar.gz` or `.zip`)"
            )),
        })
        .collect::<Result<_, _>>()?;
    Ok(Generation {
        exported,
        replaced,
        index,
        files,
    })
}

/// Whether `file` (below `.well-known/agent-skills/`) is an addressed `SKILL.md` or archive:
/// `sha256-<64 lowercase hex>/<name>/SKILL.md`, or `.../<name>.tar.gz` or `.zip`, with a valid
/// skill name. Nothing else is ever read or kept, whatever a manifest says.
pub(crate) fn is_addressed_file(file: &str) -> bool {
    is_addressed_artifact(&format!("{WELL_KNOWN_PATH}{file}"))
}

/// The message for a manifest that cannot be read: which file, why, what it is for, and the
/// fix.
fn unreadable(path: &Path, problem: &str) -> String {
    format!(
        "cannot read the export manifest `{}`: {problem}. It records which files of earlier exports stay in the tree for the clients and caches that still hold their index; restore it, or remove it (this export then keeps every addressed file now in the tree for --keep-for, and records them afresh)",
        path.display()
    )
}

#[cfg(test)]
mod tests;
