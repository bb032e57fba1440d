//! Reading skills from a folder on disk (feature `fs`): [`read_skills_folder`], what it left
//! out ([`Skipped`]) and the I/O errors it met ([`IoError`]). The build helper
//! (`skillpub-build`) and [`Catalog::from_dir`](crate::Catalog::from_dir) share this walk, so
//! a folder is judged the same at build time and at run time; the rules are in the [crate
//! docs](crate#reading-a-folder).
//!
//! This is the one module of the crate that touches the file system, and it is compiled only
//! with the feature `fs` (on by default). Every entry is looked at without following or
//! opening it, and every file is read through a descriptor opened without following links and
//! judged on that descriptor, never on a name; on Unix each skill folder is held by its
//! descriptor, so that nothing renamed under the walk takes the read outside it.

mod beneath;
mod entry;
#[cfg(any(not(unix), test))]
mod portable;
#[cfg(unix)]
mod unix;

#[cfg(not(unix))]
use portable as open;
#[cfg(unix)]
use unix as open;

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::catalog::{Catalog, CatalogBuilder};
use crate::error::{Error, ErrorKind, Errors};
use crate::file::SkillFile;
use crate::paths::SKILL_MD;
use crate::skill::Skill;
use crate::skill_files;
use crate::spec::limits::{MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL};
use beneath::{Beneath, Refusal};
use entry::{Listed, Node, Seen};
use open::Dir;

pub use crate::io_error::IoError;
pub use crate::skipped::Skipped;

/// A skill read from disk, with where each of its files came from.
#[derive(Debug, Clone)]
pub struct SkillSource {
    skill: Skill,
    skill_md_source: PathBuf,
    file_sources: Vec<PathBuf>,
}

impl SkillSource {
    /// The skill, with its supporting files sorted by path.
    #[must_use]
    pub fn skill(&self) -> &Skill {
        &self.skill
    }

    /// The file the `SKILL.md` was read from.
    #[must_use]
    pub fn skill_md_source(&self) -> &Path {
        &self.skill_md_source
    }

    /// The files the supporting files were read from, in the order of
    /// [`Skill::files`]. A symbolic link is given as the file it leads to inside the folder.
    #[must_use]
    pub fn file_sources(&self) -> &[PathBuf] {
        &self.file_sources
    }
}

/// Everything read from a skills folder.
#[derive(Debug, Clone, Default)]
pub struct SkillsFolder {
    skills: Vec<SkillSource>,
    skipped: Vec<Skipped>,
    folders: Vec<PathBuf>,
    errors: Vec<Error>,
}

impl SkillsFolder {
    /// The skills, sorted by folder.
    #[must_use]
    pub fn skills(&self) -> &[SkillSource] {
        &self.skills
    }

    /// What was left out: hidden files and folders (names starting with `.`), and folders
    /// without a `SKILL.md` in a folder of skills.
    #[must_use]
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Every folder walked, the given one first; a build script watches them for changes.
    #[must_use]
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// A catalog builder that holds the skills, for options such as
    /// [`CatalogBuilder::allow_unknown_fields`]; the catalog it builds also lists what was
    /// skipped ([`Catalog::skipped`]).
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("skillpub-builder-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(dir.join("pdf")).unwrap();
    /// # std::fs::write(dir.join("pdf/SKILL.md"), "---\nname: pdf\ndescription: d\nx-team: docs\n---\n").unwrap();
    /// let folder = skillpub_core::folder::read_skills_folder(&dir)?;
    /// assert!(folder.catalog().is_err(), "x-team is not an Agent Skills field");
    /// let catalog = folder.builder().allow_unknown_fields(true).build()?;
    /// assert_eq!(catalog.skills().len(), 1);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[must_use]
    pub fn builder(&self) -> CatalogBuilder {
        let mut builder = CatalogBuilder::new();
        builder.skills(self.skills.iter().map(|source| source.skill.clone()));
        builder.skipped = self.skipped.clone();
        builder
    }

    /// Builds a catalog from the skills with the default options.
    ///
    /// # Errors
    ///
    /// Every problem of every skill; see [`Catalog::new`].
    pub fn catalog(&self) -> Result<Catalog, Errors> {
        self.builder().build()
    }
}

const HIDDEN: &str = "hidden files and folders are not published";
const NO_SKILL_MD: &str = "the folder has no SKILL.md, so it is not a skill";

/// A folder's entries, as its listing describes them.
type Listing = io::Result<Vec<(OsString, Listed)>>;

/// Whether a folder's listing holds `SKILL.md` in any letter case (a wrong case is reported
/// later).
fn has_skill_md(listing: &Listing) -> bool {
    listing.as_ref().is_ok_and(|entries| {
        entries
            .iter()
            .any(|(name, _)| name.to_string_lossy().eq_ignore_ascii_case(SKILL_MD))
    })
}

/// Whether an entry counts against the file limit as it is listed: a regular file that the
/// walk does not skip (hidden) or refuse for its name (not UTF-8). A link or an entry of an
/// unknown kind counts once the walk has found it to be a file.
fn is_listed_file(name: &OsStr, listed: Listed) -> bool {
    listed == Listed::File && name.to_str().is_some_and(|name| !name.starts_with('.'))
}

#[cfg(test)]
thread_local! {
    /// How many entries this thread has read from listings, for the tests of the file limit.
    static ENTRIES_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Reads the listing of `dir`: every entry, or, given `files`, the entries until that many of
/// them count against the file limit, so that a skill folder of a million files is known to be
/// over the limit after reading one more file than it allows.
fn list(dir: &mut Dir, files: Option<usize>) -> Listing {
    let mut entries = Vec::new();
    let mut counted = 0;
    let mut listing = dir.entries()?;
    while files.is_none_or(|files| counted < files) {
        let Some(entry) = listing.next() else { break };
        let (name, listed) = entry?;
        #[cfg(test)]
        ENTRIES_READ.with(|read| read.set(read.get() + 1));
        counted += usize::from(is_listed_file(&name, listed));
        entries.push((name, listed));
    }
    Ok(entries)
}

/// The listing of a folder that may be a skill, and whether it is one. It is when it holds
/// `SKILL.md`, asked first, so that its listing stops one file past the limit; else the
/// listing is read whole, and a `SKILL.md` in another letter case also makes a skill (the
/// walk reports the case).
fn list_folder(dir: &mut Dir) -> (Listing, bool) {
    if dir.look(OsStr::new(SKILL_MD)).is_ok() {
        return (list(dir, Some(MAX_FILES_PER_SKILL + 1)), true);
    }
    let listing = list(dir, None);
    let is_skill = has_skill_md(&listing);
    (listing, is_skill)
}

/// Reads a skill folder (one that holds a `SKILL.md`) or a folder of skill folders, and
/// fails on any problem of the walk; see [`SkillsFolder::read`] for what is read, skipped and
/// refused. The skills themselves are judged by the catalog built from it
/// ([`SkillsFolder::catalog`], [`SkillsFolder::builder`]).
///
/// # Errors
///
/// Every problem found, each naming its file.
pub fn read_skills_folder(root: impl AsRef<Path>) -> Result<SkillsFolder, Errors> {
    let mut folder = SkillsFolder::read(root);
    if folder.errors.is_empty() {
        Ok(folder)
    } else {
        Err(Errors::new(std::mem::take(&mut folder.errors)))
    }
}

impl SkillsFolder {
    /// Reads a skill folder (one that holds a `SKILL.md`) or a folder of skill folders, and
    /// keeps going after problems, so that a linter can report them all: the problems are in
    /// [`errors`](Self::errors), and a skill with a refused file is kept without that file.
    ///
    /// What is read, skipped (and listed in [`skipped`](Self::skipped)) and refused is the
    /// table of [Reading a folder](crate#reading-a-folder). This walk refuses what only a
    /// folder can have (names, links, special files) and skills over the limits, judged on
    /// the sizes the file system reports before anything is read (with the catalog's rule and
    /// message); `SKILL.md` goes through the same checks. The rules every skill follows
    /// wherever it comes from, such as paths that a URL or an archive cannot carry
    /// ([`validate_file_path`](crate::spec::validate_file_path)), are the catalog's:
    /// [`SkillsFolder::builder`] and [`Catalog::from_dir`] apply them.
    #[must_use]
    pub fn read(root: impl AsRef<Path>) -> Self {
        let root = root.as_ref();
        let mut walk = Self::default();
        let mut dir = match Dir::open(root) {
            Ok(dir) => dir,
            Err(error) => {
                let kind = if error.kind() == io::ErrorKind::NotADirectory {
                    ErrorKind::NotAFolder
                } else {
                    ErrorKind::Io(IoError::new(root, error))
                };
                let label = root.display().to_string();
                walk.errors.push(Error::new(&label, &label, None, kind));
                return walk;
            }
        };
        walk.folders.push(root.to_path_buf());
        let (listing, is_skill) = list_folder(&mut dir);
        if is_skill {
            walk.skill(root, dir, listing);
        } else {
            walk.skills_in(&dir, root, listing);
        }
        walk
    }

    /// The problems found while reading.
    #[must_use]
    pub fn errors(&self) -> &[Error] {
        &self.errors
    }
}

impl Catalog {
    /// Reads a skill folder or a folder of skill folders and builds a catalog from it, with
    /// the default options ([`SkillsFolder::builder`] takes options).
    ///
    /// What the walk leaves out without failing (hidden files and folders, subfolders without
    /// a `SKILL.md`) is listed by [`Catalog::skipped`]: show it to whoever runs your service,
    /// since a folder skipped by mistake is a skill that silently goes missing. The library
    /// itself prints nothing: a library writing to stderr would bypass the application's
    /// logging and could not be turned off, so it returns the warnings as data instead, as it
    /// returns errors. `skillpub-build` prints them as `cargo:warning` lines.
    ///
    /// # Example
    ///
    /// ```
    /// let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    /// let catalog = skillpub_core::Catalog::from_dir(skills)?;
    /// for skipped in catalog.skipped() {
    ///     eprintln!("warning: {skipped}");
    /// }
    /// assert!(catalog.get("greeting").is_some());
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Every problem of the folder and of every skill; see [`read_skills_folder`].
    pub fn from_dir(root: impl AsRef<Path>) -> Result<Self, Errors> {
        read_skills_folder(root)?.catalog()
    }
}

/// The bytes a skill may still read.
struct Budget(u64);

/// A directory entry that passed the name checks.
struct Entry {
    path: PathBuf,
    name: String,
    os_name: OsString,
    listed: Listed,
}

/// A file found in a skill folder, looked at and not read yet.
struct Found {
    /// Its path inside the skill, `/`-separated.
    relative: String,
    /// The entry, for the messages.
    path: PathBuf,
    /// Where it was found (for a link, the file it leads to).
    source: PathBuf,
    /// Its path beneath the skill folder, links resolved: what is opened to read it.
    resolved: Vec<OsString>,
    /// Its size when it was looked at.
    len: u64,
}

/// A skill folder walked, its files looked at and not read yet.
struct Walked {
    name: String,
    root: PathBuf,
    beneath: Beneath,
    skill_md: Found,
    files: Vec<Found>,
}

/// What looking at an entry found.
enum Look {
    Folder,
    File(Found),
}

/// The walk, which fills a `SkillsFolder` as it goes.
impl SkillsFolder {
    fn fail(&mut self, skill: &str, path: &Path, kind: ErrorKind) {
        let label = path.display().to_string();
        self.errors.push(Error::new(skill, &label, None, kind));
    }

    /// Reports why `path` was not opened.
    fn refuse(&mut self, skill: &str, path: &Path, refusal: Refusal) {
        let kind = match refusal {
            Refusal::Outside(target) => ErrorKind::SymlinkOutside { target },
            Refusal::Broken(written) => ErrorKind::BrokenSymlink {
                target: written.display().to_string(),
            },
            Refusal::Hidden(written) => ErrorKind::LinkToHidden {
                target: written.display().to_string(),
            },
            Refusal::LinkedFolder => ErrorKind::SymlinkedFolder,
            Refusal::NotAFile => ErrorKind::NotARegularFile,
            Refusal::Io(error) => ErrorKind::Io(IoError::new(path, error)),
        };
        self.fail(skill, path, kind);
    }

    /// The entries of the folder at `path`, from its listing, sorted by name, without hidden
    /// ones; names that are not UTF-8 are reported.
    fn entries(&mut self, listing: Listing, path: &Path, skill_root: &Path) -> Vec<Entry> {
        let skill = folder_name(skill_root);
        let listed = match listing {
            Ok(listed) => listed,
            Err(error) => {
                self.fail(&skill, path, ErrorKind::Io(IoError::new(path, error)));
                return Vec::new();
            }
        };
        let mut entries = Vec::new();
        for (os_name, listed) in listed {
            let entry_path = path.join(&os_name);
            let Some(name) = os_name.to_str().map(str::to_owned) else {
                self.fail(&skill, &entry_path, ErrorKind::NameNotUtf8);
                continue;
            };
            if name.starts_with('.') {
                self.skipped.push(Skipped {
                    path: entry_path,
                    reason: HIDDEN,
                });
                continue;
            }
            entries.push(Entry {
                path: entry_path,
                name,
                os_name,
                listed,
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        entries
    }

    /// Reads the skill folders in a folder of skills (at `root`), and what is beside them.
    fn skills_in(&mut self, dir: &Dir, root: &Path, listing: Listing) {
        for entry in self.entries(listing, root, root) {
            let node = match entry.listed {
                // Files beside the skill folders, such as a README, are not skills.
                Listed::File | Listed::Special => continue,
                Listed::Link => None,
                Listed::Folder | Listed::Unknown => match dir.open_folder(&entry.os_name) {
                    Ok(node) => Some(node),
                    Err(error) => {
                        let label = folder_name(root);
                        let kind = ErrorKind::Io(IoError::new(&entry.path, error));
                        self.fail(&label, &entry.path, kind);
                        continue;
                    }
                },
            };
            match node {
                Some(Node::Folder(mut folder)) => {
                    let (listing, is_skill) = list_folder(&mut folder);
                    if is_skill {
                        self.folders.push(entry.path.clone());
                        self.skill(&entry.path, folder, listing);
                    } else {
                        self.skipped.push(Skipped {
                            path: entry.path,
                            reason: NO_SKILL_MD,
                        });
                    }
                }
                None | Some(Node::Link(_)) => {
                    // Only to choose the message: a link to a folder is an error, a link to a
                    // file beside the skills is ignored as the file would be. Nothing is read.
                    if fs::metadata(&entry.path).is_ok_and(|meta| meta.is_dir()) {
                        let label = folder_name(&entry.path);
                        self.fail(&label, &entry.path, ErrorKind::SymlinkedFolder);
                    }
                }
                Some(Node::File(..) | Node::Special) => {}
            }
        }
    }

    /// Reads one skill folder, held open, with its listing: [`walk`](Self::walk) looks at
    /// every entry, then [`read_walked`](Self::read_walked) reads.
    fn skill(&mut self, root: &Path, dir: Dir, listing: Listing) {
        if let Some(walked) = self.walk(root, dir, listing) {
            self.read_walked(walked);
        }
    }

    /// Looks at every entry of a skill folder without reading any, so that the limits can be
    /// judged on the sizes first. `None` when there is no `SKILL.md` to read, or when the
    /// skill has more files than the limit: the walk stops as soon as it has counted one file
    /// more than [`MAX_FILES_PER_SKILL`], reading no further listing.
    fn walk(&mut self, root: &Path, dir: Dir, listing: Listing) -> Option<Walked> {
        let name = folder_name(root);
        let beneath = Beneath::new(dir, root);
        let mut skill_md = None;
        let mut skill_md_seen = false;
        let mut files = Vec::new();
        // The files counted so far, `SKILL.md` included.
        let mut counted = 0;
        let mut root_listing = Some(listing);
        let mut pending = vec![(Vec::<OsString>::new(), root.to_path_buf(), String::new())];
        while let Some((components, path, prefix)) = pending.pop() {
            // The root first, held by `beneath`, whose listing was read to find its SKILL.md.
            let (opened, listing) = match root_listing.take() {
                Some(listing) => (None, listing),
                None => match beneath.folder(&components) {
                    Ok(mut folder) => {
                        let left = MAX_FILES_PER_SKILL + 1 - counted;
                        let listing = list(&mut folder, Some(left));
                        (Some(folder), listing)
                    }
                    Err(refusal) => {
                        self.refuse(&name, &path, refusal);
                        continue;
                    }
                },
            };
            if let Ok(entries) = &listing {
                counted += entries
                    .iter()
                    .filter(|(name, listed)| is_listed_file(name, *listed))
                    .count();
            }
            if self.over_file_limit(&name, root, counted) {
                return None;
            }
            let folder = opened.as_ref().unwrap_or(beneath.root());
            for entry in self.entries(listing, &path, root) {
                let relative = format!("{prefix}{}", entry.name);
                let mut inside = components.clone();
                inside.push(entry.os_name.clone());
                let at_root_skill_md = prefix.is_empty() && relative.eq_ignore_ascii_case(SKILL_MD);
                if entry.listed != Listed::Folder {
                    skill_md_seen |= at_root_skill_md;
                    if at_root_skill_md && relative != SKILL_MD {
                        self.fail(
                            &name,
                            &entry.path,
                            ErrorKind::SkillMdCase { found: relative },
                        );
                        continue;
                    }
                }
                let looked = if entry.listed == Listed::Folder {
                    Look::Folder
                } else {
                    match self.look(&name, &beneath, folder, &components, &entry, &relative) {
                        Some(looked) => looked,
                        None => continue,
                    }
                };
                if matches!(looked, Look::File(_)) && entry.listed != Listed::File {
                    counted += 1;
                    if self.over_file_limit(&name, root, counted) {
                        return None;
                    }
                }
                match looked {
                    Look::Folder => {
                        self.folders.push(entry.path.clone());
                        pending.push((inside, entry.path, format!("{relative}/")));
                    }
                    Look::File(found) if relative == SKILL_MD => skill_md = Some(found),
                    Look::File(found) => files.push(found),
                }
            }
        }
        let Some(skill_md) = skill_md else {
            // A SKILL.md that was there but refused has been reported already.
            if !skill_md_seen {
                self.fail(&name, root, ErrorKind::MissingSkillMd);
            }
            return None;
        };
        Some(Walked {
            name,
            root: root.to_path_buf(),
            beneath,
            skill_md,
            files,
        })
    }

    /// Reports a skill that has more files than [`MAX_FILES_PER_SKILL`] (`counted`, as far as
    /// the walk counted), as the catalog's rule does; whether it has.
    fn over_file_limit(&mut self, skill: &str, root: &Path, counted: usize) -> bool {
        let over = counted > MAX_FILES_PER_SKILL;
        if over {
            let limit = MAX_FILES_PER_SKILL;
            let kind = ErrorKind::TooManyFiles {
                count: counted,
                limit,
            };
            self.fail(skill, &root.join(SKILL_MD), kind);
        }
        over
    }

    /// Looks at an entry that is not listed as a folder, without opening or following it
    /// (what is read is judged when it is opened, by [`read_file`](Self::read_file)); a link
    /// is followed by the walk's own rules, beneath the skill, to the file it leads to.
    fn look(
        &mut self,
        skill: &str,
        beneath: &Beneath,
        folder: &Dir,
        components: &[OsString],
        entry: &Entry,
        relative: &str,
    ) -> Option<Look> {
        if entry.listed == Listed::Special {
            self.fail(skill, &entry.path, ErrorKind::NotARegularFile);
            return None;
        }
        let seen = match folder.look(&entry.os_name) {
            Ok(seen) => seen,
            Err(error) => {
                self.refuse(skill, &entry.path, Refusal::Io(error));
                return None;
            }
        };
        let mut resolved = components.to_vec();
        resolved.push(entry.os_name.clone());
        let (source, len) = match seen {
            Seen::Folder => return Some(Look::Folder),
            Seen::Special => {
                self.fail(skill, &entry.path, ErrorKind::NotARegularFile);
                return None;
            }
            Seen::File { len } => (entry.path.clone(), len),
            Seen::Link(target) => match beneath.link(components, &target) {
                Ok(opened) => {
                    resolved = opened.components;
                    (beneath.path_of(&resolved), opened.meta.len())
                }
                Err(refusal) => {
                    self.refuse(skill, &entry.path, refusal);
                    return None;
                }
            },
        };
        Some(Look::File(Found {
            relative: relative.to_owned(),
            path: entry.path.clone(),
            source,
            resolved,
            len,
        }))
    }

    /// Reads the files of a walked skill: the limits are judged on the sizes seen by the
    /// walk, and only then is anything read, each file opened again beneath the skill folder
    /// and judged on the open file. The catalog checks the paths and judges the limits again
    /// on the bytes read, with the same rule, so a file that grew meanwhile is caught there;
    /// each read stops at the limit, so that one cannot fill the memory either.
    fn read_walked(&mut self, walked: Walked) {
        let Walked {
            name,
            root,
            mut beneath,
            skill_md,
            mut files,
        } = walked;
        let sizes: Vec<(&str, u64)> = std::iter::once((SKILL_MD, skill_md.len))
            .chain(
                files
                    .iter()
                    .map(|found| (found.relative.as_str(), found.len)),
            )
            .collect();
        let over_limits = skill_files::over_limits(&sizes);
        let within_limits = over_limits.is_empty();
        for kind in over_limits {
            self.fail(&name, &root.join(SKILL_MD), kind);
        }
        if skill_md.len > MAX_BYTES_PER_SKILL {
            return;
        }
        let mut budget = Budget(MAX_BYTES_PER_SKILL);
        let Some((skill_md_bytes, _)) = self.read_file(&name, &mut beneath, &skill_md, &mut budget)
        else {
            return;
        };
        let mut read = Vec::new();
        let mut file_sources = Vec::new();
        if within_limits {
            files.sort_by(|a, b| a.relative.cmp(&b.relative));
            for found in files {
                if let Some((content, executable)) =
                    self.read_file(&name, &mut beneath, &found, &mut budget)
                {
                    read.push(SkillFile::new(found.relative, content, executable));
                    file_sources.push(found.source);
                }
            }
        }
        let folder = root.display().to_string();
        self.skills.push(SkillSource {
            skill: Skill::new(Some(folder), skill_md_bytes).with_files(read),
            skill_md_source: skill_md.source,
            file_sources,
        });
    }

    /// Opens a file again beneath the skill folder and reads it, at most one byte past what
    /// is left of the skill's budget: enough for the catalog to see the limit broken, never
    /// more, whatever size the file claims. Returns the bytes and whether the open file is
    /// executable. A refusal or a read error is reported.
    fn read_file(
        &mut self,
        skill: &str,
        beneath: &mut Beneath,
        found: &Found,
        budget: &mut Budget,
    ) -> Option<(Vec<u8>, bool)> {
        let opened = match beneath.file(&found.resolved) {
            Ok(opened) => opened,
            Err(refusal) => {
                self.refuse(skill, &found.path, refusal);
                return None;
            }
        };
        match read_bounded(opened.file, opened.meta.len(), budget.0 + 1) {
            Ok(content) => {
                budget.0 = budget.0.saturating_sub(content.len() as u64);
                Some((content, is_executable(&opened.meta)))
            }
            Err(error) => {
                let path = &found.path;
                self.fail(skill, path, ErrorKind::Io(IoError::new(path, error)));
                None
            }
        }
    }
}

/// Reads `file` to its end, but never more than `limit` bytes, whatever its size said.
///
/// The buffer is allocated at the size the file gave (`size`, at most `limit`), so that the
/// bytes, served for as long as the catalog lives, hold no spare capacity (growing it as the
/// read goes would leave up to half of it unused).
fn read_bounded(file: impl Read, size: u64, limit: u64) -> io::Result<Vec<u8>> {
    let mut content = Vec::with_capacity(usize::try_from(size.min(limit)).unwrap_or(0));
    file.take(limit).read_to_end(&mut content)?;
    Ok(content)
}

fn folder_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(unix)]
fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests;
