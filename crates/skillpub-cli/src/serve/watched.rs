//! A skills folder followed for `serve --watch`: a new snapshot is read only once the folder
//! has been quiet for [`DEBOUNCE`], and it counts only if nothing changed while it was read, so
//! a file saved in several writes is never published half-written.
//!
//! Changes are noticed through file-system events (inotify, FSEvents, ReadDirectoryChangesW),
//! which cost nothing while the folder is idle. A walk of the folder every [`SAFETY_NET`]
//! catches what events miss (a network file system, a replaced root folder); where events are
//! unavailable, the walk runs every [`POLL`] instead.

use std::fs::Permissions;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant, SystemTime};

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// How long the folder must be quiet before it is read: long enough for an editor's save (or
/// a copy) to finish, short enough to feel immediate.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(300);
/// How often the folder is walked while events are available, for the changes they miss.
const SAFETY_NET: Duration = Duration::from_secs(30);
/// How often the folder is walked where events are unavailable.
const POLL: Duration = Duration::from_secs(2);

/// A skills folder read with `load` in consistent snapshots.
pub(crate) struct Folder<L> {
    dir: PathBuf,
    load: L,
    /// The events, while they work; the watcher stops when dropped.
    events: Option<(RecommendedWatcher, Receiver<notify::Result<Event>>)>,
    /// The fingerprint of the last snapshot.
    seen: Fingerprint,
}

impl<T, L: FnMut(&Path) -> T> Folder<L> {
    /// A folder that is only walked: [`next`](Self::next) looks every [`POLL`].
    pub(crate) fn new(dir: PathBuf, load: L) -> Self {
        Self {
            dir,
            load,
            events: None,
            seen: Fingerprint::default(),
        }
    }

    /// A folder followed through file-system events, or walked every [`POLL`] where they are
    /// unavailable (which it says). Events start before the first read, so that no change is
    /// missed between the two.
    pub(crate) fn with_events(dir: PathBuf, load: L) -> Self {
        let mut folder = Self::new(dir, load);
        let (sender, receiver) = channel();
        let started = notify::recommended_watcher(sender).and_then(|mut watcher| {
            watcher.watch(&folder.dir, RecursiveMode::Recursive)?;
            Ok(watcher)
        });
        match started {
            Ok(watcher) => folder.events = Some((watcher, receiver)),
            Err(error) => eprintln!(
                "skillpub serve: file-system events are unavailable for {} ({error}); looking for changes every {} s instead",
                folder.dir.display(),
                POLL.as_secs()
            ),
        }
        folder
    }

    /// Reads a snapshot: loads the folder, and loads it again (once it is quiet) until nothing
    /// changed while it was read.
    pub(crate) fn read(&mut self) -> T {
        loop {
            let before = fingerprint(&self.dir);
            let loaded = (self.load)(&self.dir);
            let after = fingerprint(&self.dir);
            let changed_meanwhile = self.drain();
            if before == after && !changed_meanwhile {
                self.seen = after;
                return loaded;
            }
            self.settle();
        }
    }

    /// Waits until the folder changes and then settles, and reads the new snapshot.
    pub(crate) fn next(&mut self) -> T {
        self.wait_for_change();
        self.settle();
        self.read()
    }

    /// Returns once an event reports a change, or a walk finds one: every [`SAFETY_NET`] (or
    /// [`POLL`] without events), and when events were lost.
    fn wait_for_change(&mut self) {
        loop {
            let interval = if self.events.is_some() {
                SAFETY_NET
            } else {
                POLL
            };
            if self.event_within(interval) == Some(Signal::Change)
                || fingerprint(&self.dir) != self.seen
            {
                return;
            }
        }
    }

    /// Returns once the folder has been quiet for [`DEBOUNCE`].
    fn settle(&mut self) {
        loop {
            if self.events.is_some() {
                if self.event_within(DEBOUNCE).is_none() {
                    return;
                }
            } else {
                let before = fingerprint(&self.dir);
                std::thread::sleep(DEBOUNCE);
                if fingerprint(&self.dir) == before {
                    return;
                }
            }
        }
    }

    /// The first event within `time` that is not a mere access; without events, sleeps `time`
    /// and returns `None`. Events that stop are [`Signal::Lost`], and walks take over.
    fn event_within(&mut self, time: Duration) -> Option<Signal> {
        let Some((_, receiver)) = &self.events else {
            std::thread::sleep(time);
            return None;
        };
        let deadline = Instant::now() + time;
        loop {
            match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(event) => {
                    if let Some(signal) = signal(&event) {
                        return Some(signal);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => {
                    eprintln!(
                        "skillpub serve: file-system events stopped for {}; looking for changes every {} s instead",
                        self.dir.display(),
                        POLL.as_secs()
                    );
                    self.events = None;
                    return Some(Signal::Lost);
                }
            }
        }
    }

    /// Takes every pending event; says whether one reported a change. Lost events do not
    /// count here: the read that calls this compares fingerprints anyway.
    fn drain(&mut self) -> bool {
        let Some((_, receiver)) = &self.events else {
            return false;
        };
        receiver.try_iter().fold(false, |changed, event| {
            changed | (signal(&event) == Some(Signal::Change))
        })
    }
}

/// What an event says about the folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signal {
    /// A file or folder was created, written, renamed, removed or changed its permissions.
    Change,
    /// Events were lost (the kernel's queue overflowed) or failed: only a walk can tell. Not a
    /// change in itself, or a read of many files, whose own events overflow the queue, would
    /// start another read, forever.
    Lost,
}

/// What `event` says; `None` for an access, which reading the folder (ours included) causes.
fn signal(event: &notify::Result<Event>) -> Option<Signal> {
    match event {
        Ok(event) => match event.kind {
            EventKind::Access(_) => None,
            EventKind::Other => Some(Signal::Lost),
            _ => Some(Signal::Change),
        },
        Err(_) => Some(Signal::Lost),
    }
}

/// Every file and folder under a skills folder with its size, modification time and
/// permissions (an archive keeps the executable bit), sorted by path.
#[derive(Debug, Default, PartialEq, Eq)]
struct Fingerprint(Vec<(PathBuf, u64, Option<SystemTime>, Permissions)>);

/// The fingerprint of `dir` now.
fn fingerprint(dir: &Path) -> Fingerprint {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                pending.push(path.clone());
            }
            found.push((path, meta.len(), meta.modified().ok(), meta.permissions()));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Fingerprint(found)
}

#[cfg(test)]
mod tests;
