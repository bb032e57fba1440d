//! A catalog that can be replaced while it is served: [`LiveCatalog`], and the answers each
//! server prepares from every catalog it publishes ([`LiveView`], [`Snapshot`]).
//!
//! One replacement is two phases under one writer lock: every view prepares its answers for
//! the new catalog (off the request path, while requests go on with the old ones), then every
//! view's current snapshot is swapped, and only then are the listeners told. A request loads
//! one snapshot and answers from it alone, so it never mixes two catalogs; a snapshot is freed
//! when the last request that loaded it drops it.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};

use crate::catalog::Catalog;
use crate::parallel;

/// A handle to the catalog being served, which [`replace`](Self::replace) swaps for another
/// while requests go on. Cheap to clone: every clone is the same handle.
///
/// Servers follow it through a [`LiveView`]: skillpub-axum's live router and skillpub-mcp's
/// live service each register one, which prepares that server's answers from every catalog
/// before it is published, so a request costs what it costs with a fixed catalog, plus one
/// load of the current snapshot.
///
/// # Example
///
/// Skills held at run time, such as rows of a database or an upload, become a catalog with
/// [`Skill::new`](crate::Skill::new) and [`SkillFile::new`](crate::SkillFile::new):
///
/// ```
/// use skillpub_core::{Catalog, LiveCatalog, Skill, SkillFile};
///
/// // Rows read from a database: a name, the SKILL.md, and its supporting files.
/// let rows = vec![(
///     "pdf".to_owned(),
///     b"---\nname: pdf\ndescription: Fills PDF forms.\n---\nSee references/forms.md.\n".to_vec(),
///     vec![("references/forms.md".to_owned(), b"# Forms\n".to_vec())],
/// )];
/// let skills = rows.into_iter().map(|(name, skill_md, files)| {
///     let files = files.into_iter().map(|(path, bytes)| SkillFile::new(path, bytes, false));
///     // The folder is the name, so the catalog checks that the frontmatter agrees.
///     Skill::new(Some(name), skill_md).with_files(files.collect())
/// });
/// let live = LiveCatalog::new(Catalog::new(skills)?);
/// assert!(live.catalog().get("pdf").is_some());
///
/// // An admin edits the skills: build the new catalog, then publish it in one swap.
/// let edited = Skill::new(
///     Some("pdf".to_owned()),
///     "---\nname: pdf\ndescription: Fills and signs PDF forms.\n---\n",
/// );
/// let previous = live.replace(Catalog::new([edited])?);
/// assert_eq!(previous.get("pdf").unwrap().frontmatter().description(), "Fills PDF forms.");
/// assert_eq!(live.catalog().get("pdf").unwrap().frontmatter().description(), "Fills and signs PDF forms.");
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Clone)]
pub struct LiveCatalog(Arc<Shared>);

struct Shared {
    /// The catalog itself, as a view that prepares nothing.
    catalog: Arc<Cell<()>>,
    /// Serializes replacements and the registration of views.
    writer: Mutex<Writer>,
}

/// What the writer lock guards. The generation is not here: under the lock it is always
/// the current catalog's.
struct Writer {
    /// Every view registered and not yet dropped.
    views: Vec<Weak<dyn Stage>>,
}

/// One catalog with what a view prepared from it: everything one request is answered from.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, LiveCatalog};
///
/// let live = LiveCatalog::new(Catalog::new(Vec::<skillpub_core::Skill>::new())?);
/// let sizes = live.view(|catalog| catalog.index().len());
/// let snapshot = sizes.load();
/// assert_eq!(*snapshot.prepared(), snapshot.catalog().index().len());
/// assert_eq!(snapshot.generation(), 0);
/// # Ok::<(), skillpub_core::Errors>(())
/// ```
#[derive(Debug)]
pub struct Snapshot<T> {
    catalog: Catalog,
    generation: u64,
    prepared: T,
}

impl<T> Snapshot<T> {
    /// The catalog this snapshot was prepared from.
    #[must_use]
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Which catalog of the handle this is: 0 for the one it was made with, one more for
    /// each [`replace`](LiveCatalog::replace).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// What the view prepared from [`catalog`](Self::catalog).
    #[must_use]
    pub fn prepared(&self) -> &T {
        &self.prepared
    }
}

/// Something a server prepares from every catalog of a [`LiveCatalog`], and the snapshot it
/// answers the next request from. Made by [`LiveCatalog::view`]; cheap to clone. Once every
/// clone is dropped, replacements stop preparing it.
pub struct LiveView<T> {
    cell: Arc<Cell<T>>,
}

/// The published snapshot of one view, how to prepare the next one, and who to tell.
struct Cell<T> {
    current: RwLock<Arc<Snapshot<T>>>,
    prepare: Box<dyn Fn(&Catalog) -> T + Send + Sync>,
    listeners: Mutex<Vec<Listener<T>>>,
}

type Listener<T> = Box<dyn Fn(&Arc<Snapshot<T>>) + Send + Sync>;

impl LiveCatalog {
    /// A handle that serves `catalog` until it is replaced.
    #[must_use]
    pub fn new(catalog: Catalog) -> Self {
        let catalog = Arc::new(Cell::new(
            Snapshot {
                catalog,
                generation: 0,
                prepared: (),
            },
            |_: &Catalog| (),
        ));
        Self(Arc::new(Shared {
            catalog,
            writer: Mutex::new(Writer { views: Vec::new() }),
        }))
    }

    /// The catalog being served now.
    #[must_use]
    pub fn catalog(&self) -> Catalog {
        self.0.catalog.load().catalog.clone()
    }

    /// The generation of the catalog being served now: 0 for the first, one more for each
    /// replacement.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.0.catalog.load().generation
    }

    /// Publishes `catalog` and returns the one it replaces.
    ///
    /// Every view first prepares its answers for `catalog` (requests meanwhile are answered
    /// from the current ones), then every view's snapshot is swapped, then the listeners are
    /// told. When it returns, every request that starts is answered from `catalog`; requests
    /// in flight finish with the snapshot they loaded, which is freed after the last of them.
    /// Replacements are serialized: two at once publish one after the other, whole.
    pub fn replace(&self, catalog: Catalog) -> Catalog {
        let mut writer = self.writer();
        let generation = self.0.catalog.load().generation + 1;
        writer.views.retain(|view| view.strong_count() > 0);
        let views: Vec<Arc<dyn Stage>> = writer.views.iter().filter_map(Weak::upgrade).collect();
        // Each view prepares on a core of its own (a router and an MCP service, say), so a
        // replacement takes about as long as the slowest view rather than their sum.
        let threads = parallel::threads(views.len(), None);
        let mut staged: Vec<Box<dyn Staged + Send + '_>> =
            parallel::map(views.iter().collect(), threads, |view| {
                view.stage(&catalog, generation)
            });
        // The old snapshots are dropped after the writer lock is released: freeing a large
        // catalog takes time that no replacement or reader should wait for.
        let replaced: Vec<Box<dyn Send>> = staged.iter_mut().map(|view| view.publish()).collect();
        let previous = self.0.catalog.swap(Arc::new(Snapshot {
            catalog,
            generation,
            prepared: (),
        }));
        for view in &staged {
            view.announce();
        }
        drop(staged);
        drop(writer);
        drop(replaced);
        previous.catalog.clone()
    }

    /// Registers a view: `prepare` runs now on the current catalog, and on every catalog
    /// given to [`replace`](Self::replace) before it is published. It should be a pure
    /// function of the catalog (it runs under the writer lock, so it must not replace the
    /// catalog itself).
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, LiveCatalog, Skill};
    ///
    /// let live = LiveCatalog::new(Catalog::new(Vec::<Skill>::new())?);
    /// let names = live.view(|catalog| catalog.skills().iter().map(|s| s.name().to_owned()).collect::<Vec<_>>());
    /// assert!(names.load().prepared().is_empty());
    /// live.replace(Catalog::new([Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n")])?);
    /// assert_eq!(names.load().prepared(), &["pdf"]);
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn view<T, F>(&self, prepare: F) -> LiveView<T>
    where
        T: Send + Sync + 'static,
        F: Fn(&Catalog) -> T + Send + Sync + 'static,
    {
        let mut writer = self.writer();
        let current = self.0.catalog.load();
        let first = Snapshot {
            catalog: current.catalog.clone(),
            generation: current.generation,
            prepared: prepare(&current.catalog),
        };
        let cell = Arc::new(Cell::new(first, prepare));
        writer.views.retain(|view| view.strong_count() > 0);
        let stage: Arc<dyn Stage> = cell.clone();
        writer.views.push(Arc::downgrade(&stage));
        LiveView { cell }
    }

    fn writer(&self) -> MutexGuard<'_, Writer> {
        // A panic in a view's `prepare` leaves the writer consistent: nothing was swapped.
        self.0.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl From<Catalog> for LiveCatalog {
    /// A handle for a catalog that may never change, such as one host among live ones.
    fn from(catalog: Catalog) -> Self {
        Self::new(catalog)
    }
}

impl fmt::Debug for LiveCatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let current = self.0.catalog.load();
        f.debug_struct("LiveCatalog")
            .field("generation", &current.generation)
            .field("skills", &current.catalog.skills().len())
            .finish_non_exhaustive()
    }
}

impl<T> LiveView<T> {
    /// The snapshot to answer a request from: load it once per request, and answer from it
    /// alone. It stays whole however long it is held; it is freed once it is replaced and
    /// the last holder drops it.
    #[must_use]
    pub fn load(&self) -> Arc<Snapshot<T>> {
        self.cell.load()
    }

    /// Calls `answer` with the current snapshot, without counting a reference to it: for an
    /// answer made at once (a prepared HTTP response), the cheapest way to read it. A
    /// replacement waits for `answer` to return before it swaps this view, so keep it short
    /// and never wait in it; use [`load`](Self::load) to hold a snapshot longer.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, LiveCatalog};
    ///
    /// let live = LiveCatalog::new(Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let index = live.view(|catalog| catalog.index().bytes().clone());
    /// let length = index.read(|snapshot| snapshot.prepared().len());
    /// assert_eq!(length, live.catalog().index().len());
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn read<R>(&self, answer: impl FnOnce(&Snapshot<T>) -> R) -> R {
        // A swap is one assignment, so even a poisoned lock holds a whole snapshot.
        let current = self
            .cell
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        answer(&current)
    }

    /// Calls `listener` with each snapshot this view publishes from now on, after every
    /// view of the replacement has been swapped, so that whatever the listener tells (MCP
    /// sessions, say) already sees the new catalog. Listeners run in the replacing thread,
    /// in order, one replacement at a time: keep them short (send on a channel).
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::mpsc;
    ///
    /// use skillpub_core::{Catalog, LiveCatalog, Skill};
    ///
    /// let live = LiveCatalog::new(Catalog::new(Vec::<Skill>::new())?);
    /// let count = live.view(|catalog| catalog.skills().len());
    /// let (sender, receiver) = mpsc::channel();
    /// count.subscribe(move |snapshot| {
    ///     let _ = sender.send((snapshot.generation(), *snapshot.prepared()));
    /// });
    /// live.replace(Catalog::new([Skill::from_static("---\nname: pdf\ndescription: Reads PDFs.\n---\n")])?);
    /// assert_eq!(receiver.try_recv(), Ok((1, 1)));
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn subscribe(&self, listener: impl Fn(&Arc<Snapshot<T>>) + Send + Sync + 'static) {
        lock(&self.cell.listeners).push(Box::new(listener));
    }
}

impl<T> Clone for LiveView<T> {
    fn clone(&self) -> Self {
        Self {
            cell: Arc::clone(&self.cell),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for LiveView<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveView")
            .field("current", &self.load())
            .finish_non_exhaustive()
    }
}

impl<T> Cell<T> {
    fn new(first: Snapshot<T>, prepare: impl Fn(&Catalog) -> T + Send + Sync + 'static) -> Self {
        Self {
            current: RwLock::new(Arc::new(first)),
            prepare: Box::new(prepare),
            listeners: Mutex::new(Vec::new()),
        }
    }

    fn load(&self) -> Arc<Snapshot<T>> {
        // A swap is one assignment, so even a poisoned lock holds a whole snapshot.
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Makes `next` current; returns the snapshot it replaces.
    fn swap(&self, next: Arc<Snapshot<T>>) -> Arc<Snapshot<T>> {
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        std::mem::replace(&mut *current, next)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A view as the writer sees it, whatever it prepares.
trait Stage: Send + Sync {
    /// Prepares the snapshot of `catalog`, to publish later.
    fn stage<'a>(&'a self, catalog: &Catalog, generation: u64) -> Box<dyn Staged + Send + 'a>;
}

/// A prepared snapshot waiting for its swap.
trait Staged {
    /// Makes it current; returns the snapshot it replaces, to be dropped later.
    fn publish(&mut self) -> Box<dyn Send>;
    /// Tells the view's listeners.
    fn announce(&self);
}

impl<T: Send + Sync + 'static> Stage for Cell<T> {
    fn stage<'a>(&'a self, catalog: &Catalog, generation: u64) -> Box<dyn Staged + Send + 'a> {
        Box::new(Pending {
            cell: self,
            snapshot: Arc::new(Snapshot {
                catalog: catalog.clone(),
                generation,
                prepared: (self.prepare)(catalog),
            }),
        })
    }
}

/// A view's next snapshot.
struct Pending<'a, T> {
    cell: &'a Cell<T>,
    snapshot: Arc<Snapshot<T>>,
}

impl<T: Send + Sync + 'static> Staged for Pending<'_, T> {
    fn publish(&mut self) -> Box<dyn Send> {
        Box::new(self.cell.swap(Arc::clone(&self.snapshot)))
    }

    fn announce(&self) {
        for listener in lock(&self.cell.listeners).iter() {
            listener(&self.snapshot);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;
    use crate::Skill;

    fn catalog(names: &[&str]) -> Catalog {
        Catalog::new(names.iter().map(|name| {
            Skill::new(
                None,
                format!("---\nname: {name}\ndescription: Does {name}.\n---\n"),
            )
        }))
        .unwrap()
    }

    fn names(catalog: &Catalog) -> Vec<String> {
        catalog
            .skills()
            .iter()
            .map(|s| s.name().to_owned())
            .collect()
    }

    #[test]
    fn replace_publishes_the_new_catalog_and_returns_the_old_one() {
        let live = LiveCatalog::new(catalog(&["a"]));
        let view = live.view(names);
        assert_eq!(view.load().prepared(), &["a"]);
        let previous = live.replace(catalog(&["b", "c"]));
        assert_eq!(names(&previous), ["a"]);
        assert_eq!(names(&live.catalog()), ["b", "c"]);
        assert_eq!(live.generation(), 1);
        let snapshot = view.load();
        assert_eq!(snapshot.prepared(), &["b", "c"]);
        assert_eq!(
            names(snapshot.catalog()),
            ["b", "c"],
            "the same catalog as prepared"
        );
        assert_eq!(snapshot.generation(), 1);
    }

    #[test]
    fn a_view_registered_late_starts_from_the_current_catalog() {
        let live = LiveCatalog::new(catalog(&["a"]));
        live.replace(catalog(&["b"]));
        let view = live.view(names);
        assert_eq!(view.load().prepared(), &["b"]);
        assert_eq!(view.load().generation(), 1);
    }

    #[test]
    fn a_snapshot_is_freed_when_its_last_holder_drops_it() {
        let live = LiveCatalog::new(catalog(&["a"]));
        let view = live.view(names);
        let held = view.load();
        let weak = Arc::downgrade(&held);
        live.replace(catalog(&["b"]));
        assert_eq!(
            Arc::strong_count(&held),
            1,
            "only the request that loaded it holds it"
        );
        assert_eq!(held.prepared(), &["a"], "whole while it is held");
        drop(held);
        assert!(weak.upgrade().is_none(), "freed with its last holder");
    }

    #[test]
    fn a_dropped_view_is_no_longer_prepared() {
        let live = LiveCatalog::new(catalog(&["a"]));
        let (sender, prepared) = mpsc::channel();
        let view = live.view(move |catalog| {
            sender.send(names(catalog)).unwrap();
        });
        assert_eq!(prepared.try_recv().unwrap(), ["a"]);
        live.replace(catalog(&["b"]));
        assert_eq!(prepared.try_recv().unwrap(), ["b"]);
        drop(view);
        live.replace(catalog(&["c"]));
        assert!(prepared.try_recv().is_err(), "not prepared once dropped");
    }

    #[test]
    fn listeners_hear_of_a_snapshot_once_every_view_serves_it() {
        let live = LiveCatalog::new(catalog(&["a"]));
        let first = live.view(names);
        let second = live.view(names);
        let (sender, heard) = mpsc::channel();
        let other = second.clone();
        first.subscribe(move |snapshot| {
            let seen_by_second = other.load().generation();
            sender
                .send((snapshot.generation(), seen_by_second))
                .unwrap();
        });
        live.replace(catalog(&["b"]));
        live.replace(catalog(&["c"]));
        assert_eq!(heard.try_iter().collect::<Vec<_>>(), [(1, 1), (2, 2)]);
    }

    #[test]
    fn views_prepare_at_the_same_time_on_several_cores() {
        if parallel::available().get() < 2 {
            eprintln!("skipped: one core, so the views prepare one after the other");
            return;
        }
        // Each view, once armed, waits for the other to start preparing: only views that
        // prepare at the same time both see the other one.
        let armed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let barrier = Arc::new(std::sync::Barrier::new(2));
        let (sender, met) = mpsc::channel();
        let live = LiveCatalog::new(catalog(&["a"]));
        let views: Vec<_> = (0..2)
            .map(|_| {
                let (armed, barrier, sender) = (armed.clone(), barrier.clone(), sender.clone());
                live.view(move |catalog| {
                    if armed.load(std::sync::atomic::Ordering::SeqCst) {
                        barrier.wait();
                        sender.send(()).unwrap();
                    }
                    names(catalog)
                })
            })
            .collect();
        armed.store(true, std::sync::atomic::Ordering::SeqCst);
        let replacing = std::thread::spawn(move || live.replace(catalog(&["b"])));
        for _ in 0..2 {
            met.recv_timeout(std::time::Duration::from_secs(10))
                .expect("the two views prepare at the same time");
        }
        replacing.join().unwrap();
        assert!(views.iter().all(|view| view.load().prepared() == &["b"]));
    }

    #[test]
    fn concurrent_replacements_publish_whole_catalogs_in_order() {
        let live = LiveCatalog::new(catalog(&["a"]));
        let view = live.view(|catalog| (names(catalog), catalog.skills().len()));
        std::thread::scope(|scope| {
            for thread in 0..4 {
                let live = &live;
                scope.spawn(move || {
                    for round in 0..25 {
                        let name = format!("t{thread}-{round}");
                        live.replace(catalog(&[&name, "z"]));
                    }
                });
            }
            for _ in 0..200 {
                let snapshot = view.load();
                let (names, count) = snapshot.prepared();
                assert_eq!(names.len(), *count, "prepared from one catalog");
                assert_eq!(names, &self::names(snapshot.catalog()));
            }
        });
        assert_eq!(live.generation(), 100);
        assert_eq!(view.load().generation(), 100);
    }
}
