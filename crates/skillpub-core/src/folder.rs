//! Reading skills from a folder on disk. The build helper (`skillpub-build`) and
//! [`Catalog::from_dir`](crate::Catalog::from_dir) share this walk, so a folder is judged the
//! same at build time and at run time.
//!
//! This is the one module of the crate that touches the file system, and it is compiled only
//! with the feature `fs` (on by default).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::catalog::{Catalog, CatalogBuilder};
use crate::error::{Error, ErrorKind, Errors};
use crate::file::{MAX_BYTES_PER_SKILL, SKILL_MD, SkillFile};
use crate::io_error::IoError;
use crate::skill::Skill;
use crate::skill_files;
use crate::skipped::Skipped;

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
    /// [`Skill::files`]. A symbolic link inside the folder is given as its target.
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
    /// let folder = skillpub_core::read_skills_folder(&dir)?;
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

/// Whether a folder holds `SKILL.md` in any letter case (a wrong case is reported later).
fn has_skill_md(folder: &Path) -> bool {
    fs::read_dir(folder).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .eq_ignore_ascii_case(SKILL_MD)
        })
    })
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
    /// ([`validate_file_path`](crate::validate_file_path)), are the catalog's:
    /// [`SkillsFolder::builder`] and [`Catalog::from_dir`] apply them.
    #[must_use]
    pub fn read(root: impl AsRef<Path>) -> Self {
        let root = root.as_ref();
        let mut walk = Self::default();
        let result = match fs::metadata(root) {
            Err(error) => Err(ErrorKind::Io(IoError::new(root, error))),
            Ok(meta) if !meta.is_dir() => Err(ErrorKind::NotAFolder),
            Ok(_) => Ok(()),
        };
        if let Err(kind) = result {
            let label = root.display().to_string();
            walk.errors.push(Error::new(&label, &label, None, kind));
            return walk;
        }
        walk.folders.push(root.to_path_buf());
        if has_skill_md(root) {
            walk.skill(root);
        } else {
            for entry in walk.entries(root, root) {
                if entry.is_symlink && entry.path.is_dir() {
                    let label = folder_name(&entry.path);
                    walk.fail(&label, &entry.path, ErrorKind::SymlinkedFolder);
                } else if !entry.is_dir {
                    // Files beside the skill folders, such as a README, are not skills.
                } else if has_skill_md(&entry.path) {
                    walk.folders.push(entry.path.clone());
                    walk.skill(&entry.path);
                } else {
                    walk.skipped.push(Skipped {
                        path: entry.path,
                        reason: NO_SKILL_MD,
                    });
                }
            }
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
    is_dir: bool,
    is_symlink: bool,
}

/// The walk, which fills a `SkillsFolder` as it goes.
impl SkillsFolder {
    fn fail(&mut self, skill: &str, path: &Path, kind: ErrorKind) {
        let label = path.display().to_string();
        self.errors.push(Error::new(skill, &label, None, kind));
    }

    /// The entries of `folder`, sorted by name, without hidden ones; names that are not
    /// UTF-8 are reported.
    fn entries(&mut self, folder: &Path, skill_root: &Path) -> Vec<Entry> {
        let skill = folder_name(skill_root);
        let read = match fs::read_dir(folder) {
            Ok(read) => read,
            Err(error) => {
                self.fail(&skill, folder, ErrorKind::Io(IoError::new(folder, error)));
                return Vec::new();
            }
        };
        let mut entries = Vec::new();
        for entry in read {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    self.fail(&skill, folder, ErrorKind::Io(IoError::new(folder, error)));
                    continue;
                }
            };
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                self.fail(&skill, &path, ErrorKind::NameNotUtf8);
                continue;
            };
            if name.starts_with('.') {
                self.skipped.push(Skipped {
                    path,
                    reason: HIDDEN,
                });
                continue;
            }
            let kind = entry.file_type().ok();
            let is_dir = kind.is_some_and(|kind| kind.is_dir());
            let is_symlink = kind.is_some_and(|kind| kind.is_symlink());
            entries.push(Entry {
                path,
                name,
                is_dir,
                is_symlink,
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        entries
    }

    /// Reads one skill folder: every entry is resolved first, the limits are judged on the
    /// sizes the file system reports, and only then is anything read. The catalog checks the
    /// paths and judges the limits again on the bytes read, with the same rule, so a file that
    /// grew meanwhile is caught there; each read stops at the limit, so that one cannot fill
    /// the memory either.
    fn skill(&mut self, root: &Path) {
        let name = folder_name(root);
        let mut skill_md = None;
        let mut skill_md_seen = false;
        let mut found = Vec::new();
        let mut pending = vec![(root.to_path_buf(), String::new())];
        while let Some((folder, prefix)) = pending.pop() {
            for entry in self.entries(&folder, root) {
                let relative = format!("{prefix}{}", entry.name);
                if entry.is_dir {
                    self.folders.push(entry.path.clone());
                    pending.push((entry.path, format!("{relative}/")));
                    continue;
                }
                let at_root_skill_md = prefix.is_empty() && relative.eq_ignore_ascii_case(SKILL_MD);
                skill_md_seen |= at_root_skill_md;
                if at_root_skill_md && relative != SKILL_MD {
                    self.fail(
                        &name,
                        &entry.path,
                        ErrorKind::SkillMdCase { found: relative },
                    );
                    continue;
                }
                let Some((source, meta)) = self.regular_file(&name, root, &entry.path) else {
                    continue;
                };
                if relative == SKILL_MD {
                    skill_md = Some((source, meta.len()));
                } else {
                    found.push((relative, source, is_executable(&meta), meta.len()));
                }
            }
        }
        let Some((skill_md_path, skill_md_len)) = skill_md else {
            // A SKILL.md that was there but refused has been reported already.
            if !skill_md_seen {
                self.fail(&name, root, ErrorKind::MissingSkillMd);
            }
            return;
        };
        let sizes: Vec<(&str, u64)> = std::iter::once((SKILL_MD, skill_md_len))
            .chain(found.iter().map(|(path, .., len)| (path.as_str(), *len)))
            .collect();
        let over_limits = skill_files::over_limits(&sizes);
        let within_limits = over_limits.is_empty();
        for kind in over_limits {
            self.fail(&name, &root.join(SKILL_MD), kind);
        }
        if skill_md_len > MAX_BYTES_PER_SKILL {
            return;
        }
        let mut budget = Budget(MAX_BYTES_PER_SKILL);
        let Some(skill_md) = self.read_file(&name, &skill_md_path, &mut budget) else {
            return;
        };
        let mut files = Vec::new();
        let mut file_sources = Vec::new();
        if within_limits {
            found.sort_by(|a, b| a.0.cmp(&b.0));
            for (relative, source, executable, _) in found {
                if let Some(content) = self.read_file(&name, &source, &mut budget) {
                    files.push(SkillFile::new(relative, content, executable));
                    file_sources.push(source);
                }
            }
        }
        let folder = root.display().to_string();
        self.skills.push(SkillSource {
            skill: Skill::new(Some(folder), skill_md).with_files(files),
            skill_md_source: skill_md_path,
            file_sources,
        });
    }

    /// Reads a file, at most one byte past what is left of the skill's budget: enough for the
    /// catalog to see the limit broken, never more. A read error is reported.
    ///
    /// The buffer is allocated at the file's size, so that the bytes, served for as long as
    /// the catalog lives, hold no spare capacity (growing it as the read goes would leave up
    /// to half of it unused).
    fn read_file(&mut self, skill: &str, path: &Path, budget: &mut Budget) -> Option<Vec<u8>> {
        let limit = budget.0 + 1;
        let result = fs::File::open(path).and_then(|file| {
            let size = file.metadata().map_or(0, |meta| meta.len()).min(limit);
            let mut content = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
            file.take(limit).read_to_end(&mut content)?;
            Ok(content)
        });
        match result {
            Ok(content) => {
                budget.0 = budget.0.saturating_sub(content.len() as u64);
                Some(content)
            }
            Err(error) => {
                self.fail(skill, path, ErrorKind::Io(IoError::new(path, error)));
                None
            }
        }
    }

    /// Resolves a file: regular files as they are, links only when they stay inside the skill
    /// folder, avoid hidden files and point to a regular file. Returns the path to read and
    /// its metadata.
    fn regular_file(
        &mut self,
        skill: &str,
        root: &Path,
        path: &Path,
    ) -> Option<(PathBuf, fs::Metadata)> {
        let link = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(error) => {
                self.fail(skill, path, ErrorKind::Io(IoError::new(path, error)));
                return None;
            }
        };
        let source = if link.file_type().is_symlink() {
            let written = fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            let (Ok(target), Ok(root)) = (fs::canonicalize(path), fs::canonicalize(root)) else {
                self.fail(skill, path, ErrorKind::BrokenSymlink { target: written });
                return None;
            };
            let Ok(inside) = target.strip_prefix(&root) else {
                let target = target.display().to_string();
                self.fail(skill, path, ErrorKind::SymlinkOutside { target });
                return None;
            };
            let hidden = inside
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
            if hidden {
                self.fail(skill, path, ErrorKind::LinkToHidden { target: written });
                return None;
            }
            target
        } else {
            path.to_path_buf()
        };
        let meta = match fs::metadata(&source) {
            Ok(meta) => meta,
            Err(error) => {
                self.fail(skill, path, ErrorKind::Io(IoError::new(path, error)));
                return None;
            }
        };
        if meta.is_dir() {
            self.fail(skill, path, ErrorKind::SymlinkedFolder);
            return None;
        }
        if !meta.is_file() {
            self.fail(skill, path, ErrorKind::NotARegularFile);
            return None;
        }
        Some((source, meta))
    }
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
mod tests {
    use super::*;

    #[test]
    fn a_read_stops_one_byte_past_the_budget_so_the_catalog_sees_the_limit_broken() {
        let path = std::env::temp_dir().join(format!("skillpub-budget-{}", std::process::id()));
        fs::write(&path, b"0123456789").unwrap();
        let mut walk = SkillsFolder::default();
        let mut budget = Budget(4);
        let read = walk.read_file("pdf", &path, &mut budget);
        fs::remove_file(&path).unwrap();
        assert_eq!(read.as_deref(), Some(&b"01234"[..]));
        assert_eq!(budget.0, 0);
        assert!(walk.errors.is_empty());
    }

    #[test]
    fn a_file_is_read_into_a_buffer_of_its_size_with_no_spare_capacity() {
        let path = std::env::temp_dir().join(format!("skillpub-capacity-{}", std::process::id()));
        fs::write(&path, vec![b'x'; 9_000]).unwrap();
        let mut walk = SkillsFolder::default();
        let read = walk.read_file("pdf", &path, &mut Budget(MAX_BYTES_PER_SKILL));
        fs::remove_file(&path).unwrap();
        let read = read.unwrap();
        assert_eq!((read.len(), read.capacity()), (9_000, 9_000));
    }
}
