//! The walk between its two steps: whatever is swapped in after an entry was looked at and
//! before it is read is judged again when it is opened, and each read is bounded.

use super::*;

/// A scratch folder holding the skill `pdf`, with `SKILL.md`, `references/key.md` and a
/// secret beside the skill.
struct Skill {
    dir: PathBuf,
}

impl Skill {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("skillpub-walk-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("pdf/references")).unwrap();
        fs::write(
            dir.join("pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Reads PDFs.\n---\n",
        )
        .unwrap();
        fs::write(dir.join("pdf/references/key.md"), "public\n").unwrap();
        fs::write(dir.join("secret.md"), "SECRET\n").unwrap();
        Self { dir }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }

    /// Looks at every entry, lets `swap` change the folder, then reads: the supporting
    /// files read and the problems.
    fn walk_then(&self, swap: impl FnOnce()) -> (Vec<SkillFile>, Vec<ErrorKind>) {
        let walk = self.walk_and_read(swap);
        let files = walk.skills[0].skill.files().to_vec();
        let kinds = walk.errors.iter().map(|e| e.kind().clone()).collect();
        (files, kinds)
    }

    fn walk_and_read(&self, swap: impl FnOnce()) -> SkillsFolder {
        let root = self.path("pdf");
        let mut walk = SkillsFolder::default();
        let mut dir = Dir::open(&root).unwrap();
        let listing = list(&mut dir, None);
        let walked = walk.walk(&root, dir, listing).unwrap();
        swap();
        walk.read_walked(walked);
        walk
    }
}

impl Drop for Skill {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn a_file_swapped_for_a_link_outside_after_the_look_is_refused_not_read() {
    let skill = Skill::new("file-link");
    let (files, kinds) = skill.walk_then(|| {
        let key = skill.path("pdf/references/key.md");
        fs::remove_file(&key).unwrap();
        std::os::unix::fs::symlink(skill.path("secret.md"), &key).unwrap();
    });
    assert!(files.is_empty(), "{files:?}");
    assert!(
        matches!(&kinds[..], [ErrorKind::SymlinkOutside { target }] if target.ends_with("secret.md")),
        "{kinds:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_folder_swapped_for_a_link_after_the_look_is_refused_not_followed() {
    let skill = Skill::new("folder-link");
    fs::create_dir_all(skill.path("elsewhere")).unwrap();
    fs::write(skill.path("elsewhere/key.md"), "SECRET\n").unwrap();
    let (files, kinds) = skill.walk_then(|| {
        fs::rename(skill.path("pdf/references"), skill.path("moved")).unwrap();
        std::os::unix::fs::symlink(skill.path("elsewhere"), skill.path("pdf/references")).unwrap();
    });
    assert!(files.is_empty(), "{files:?}");
    assert!(
        matches!(&kinds[..], [ErrorKind::SymlinkOutside { target }] if target.ends_with("elsewhere")),
        "{kinds:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_swapped_in_after_the_look_is_refused_without_waiting_for_a_writer() {
    let skill = Skill::new("fifo");
    let (files, kinds) = skill.walk_then(|| {
        let key = skill.path("pdf/references/key.md");
        fs::remove_file(&key).unwrap();
        mkfifo(&key);
    });
    assert!(files.is_empty(), "{files:?}");
    assert_eq!(kinds, [ErrorKind::NotARegularFile]);
}

#[test]
fn a_folder_where_a_file_was_is_refused() {
    let skill = Skill::new("folder-for-file");
    let (files, kinds) = skill.walk_then(|| {
        let key = skill.path("pdf/references/key.md");
        fs::remove_file(&key).unwrap();
        fs::create_dir(&key).unwrap();
        fs::write(key.join("inner.md"), "x").unwrap();
    });
    assert!(files.is_empty(), "{files:?}");
    assert_eq!(kinds, [ErrorKind::NotARegularFile]);
}

#[test]
fn a_file_that_grows_past_the_limit_after_the_look_is_read_only_one_byte_past_it() {
    let skill = Skill::new("grows");
    let walk = skill.walk_and_read(|| {
        let key = fs::File::options()
            .write(true)
            .open(skill.path("pdf/references/key.md"))
            .unwrap();
        // Sparse: no disk space, but reading it whole would take 64 MiB of memory.
        key.set_len(4 * MAX_BYTES_PER_SKILL).unwrap();
    });
    let skill_md_len = fs::metadata(skill.path("pdf/SKILL.md")).unwrap().len();
    assert!(walk.errors.is_empty(), "{:?}", walk.errors);
    let read = walk.skills[0].skill.files()[0].bytes().len() as u64;
    assert_eq!(read, MAX_BYTES_PER_SKILL - skill_md_len + 1);
    let errors = walk.catalog().unwrap_err();
    assert!(
        matches!(errors.as_slice()[0].kind(), ErrorKind::TooLarge { bytes, .. } if *bytes == MAX_BYTES_PER_SKILL + 1),
        "{errors}"
    );
}

#[cfg(unix)]
#[test]
fn the_executable_bit_is_the_one_of_the_file_read() {
    use std::os::unix::fs::PermissionsExt;
    let skill = Skill::new("mode");
    let (files, _) = skill.walk_then(|| {
        let key = skill.path("pdf/references/key.md");
        fs::set_permissions(&key, fs::Permissions::from_mode(0o755)).unwrap();
    });
    assert_eq!(files.len(), 1);
    assert!(
        files[0].is_executable(),
        "the mode of the file opened for reading"
    );
}

#[test]
fn a_read_stops_at_its_limit_whatever_the_size_said() {
    let path = std::env::temp_dir().join(format!("skillpub-budget-{}", std::process::id()));
    fs::write(&path, b"0123").unwrap();
    let file = fs::File::open(&path).unwrap();
    let size = file.metadata().unwrap().len();
    // The file grows after its size was taken.
    fs::write(&path, b"0123456789").unwrap();
    let read = read_bounded(file, size, 6).unwrap();
    fs::remove_file(&path).unwrap();
    assert_eq!(read, b"012345");
}

#[test]
fn a_file_is_read_into_a_buffer_of_its_size_with_no_spare_capacity() {
    let bytes = vec![b'x'; 9_000];
    let read = read_bounded(&bytes[..], 9_000, MAX_BYTES_PER_SKILL + 1).unwrap();
    assert_eq!((read.len(), read.capacity()), (9_000, 9_000));
}

/// A scratch folder holding the skill `pdf` with `files` more files, spread over `folders`
/// (the skill's own folder when empty), and how many entries the walk read from listings,
/// and what it found.
fn walk_counting(name: &str, folders: &[&str], files: usize) -> (usize, Vec<ErrorKind>) {
    let dir = std::env::temp_dir().join(format!("skillpub-limit-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let skill = dir.join("pdf");
    fs::create_dir_all(&skill).unwrap();
    fs::write(
        skill.join(SKILL_MD),
        "---\nname: pdf\ndescription: Reads PDFs.\n---\n",
    )
    .unwrap();
    let folders: Vec<PathBuf> = if folders.is_empty() {
        vec![skill.clone()]
    } else {
        folders.iter().map(|folder| skill.join(folder)).collect()
    };
    for (at, folder) in (0..files).zip(folders.iter().cycle()) {
        fs::create_dir_all(folder).unwrap();
        fs::write(folder.join(format!("{at}.txt")), "x").unwrap();
    }
    ENTRIES_READ.with(|read| read.set(0));
    let walk = SkillsFolder::read(&skill);
    let read = ENTRIES_READ.with(std::cell::Cell::get);
    fs::remove_dir_all(&dir).unwrap();
    let kinds = walk.errors.iter().map(|e| e.kind().clone()).collect();
    (read, kinds)
}

const OVER: ErrorKind = ErrorKind::TooManyFiles {
    count: MAX_FILES_PER_SKILL + 1,
    limit: MAX_FILES_PER_SKILL,
};

#[test]
fn the_walk_stops_one_file_past_the_limit() {
    // SKILL.md and exactly the limit: refused, after reading every entry.
    let (read, kinds) = walk_counting("one-more", &[], MAX_FILES_PER_SKILL);
    assert_eq!(kinds, [OVER]);
    assert_eq!(read, MAX_FILES_PER_SKILL + 1);
    // Four times the limit in the skill's folder: the listing stops one file past it.
    let (read, kinds) = walk_counting("flat", &[], 4 * MAX_FILES_PER_SKILL);
    assert_eq!(kinds, [OVER]);
    assert_eq!(read, MAX_FILES_PER_SKILL + 1);
    // In two folders: the root's three entries, then the one folder listed stops at the
    // limit with SKILL.md; the other is never listed.
    let (read, kinds) = walk_counting("nested", &["a", "b"], 4 * MAX_FILES_PER_SKILL);
    assert_eq!(kinds, [OVER]);
    assert_eq!(read, 3 + MAX_FILES_PER_SKILL);
}

#[test]
fn a_skill_at_the_limit_is_read_whole() {
    let (read, kinds) = walk_counting("at-limit", &["a", "b"], MAX_FILES_PER_SKILL - 1);
    assert_eq!(kinds, []);
    assert_eq!(read, 3 + MAX_FILES_PER_SKILL - 1);
}
