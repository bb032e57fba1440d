//! A catalog that can be replaced while it is served: [`LiveCatalog`], and the answers each
//! server prepares from every catalog it publishes ([`LiveView`], [`Snapshot`]).
//!
//! One replacement is two phases under one writer lock: every view prepares its answers for
//! the new catalog (off the request path, while requests go on with the old ones), then every
//! view's current snapshot is swapped, and only then are the listeners told. A request loads
//! one snapshot and answers from it alone, so it never mixes two catalogs; a snapshot is freed
//! when the last request that loaded it drops it.
//!
//! Each snapshot also holds what is [retained](Retained) of the catalogs replaced before it
//! (their addressed artifacts, for a grace period: [`Retention`]). When a grace period ends, a
//! thread of the handle (started while something is retained, ended when nothing is) prepares
//! the views that serve retained artifacts again without them, so their memory is freed
//! without waiting for the next replacement.

mod retention;

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, RwLock, Weak};
use std::time::Instant;

pub use retention::{Retained, Retention};

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
    /// Serializes replacements, sweeps and the registration of views.
    writer: Mutex<Writer>,
    retention: Retention,
    /// The thread that frees retained artifacts at the end of their grace period.
    sweeper: Arc<Sweeper>,
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
    retained: Arc<Retained>,
    prepared: T,
}

impl<T> Snapshot<T> {
    /// The catalog this snapshot was prepared from.
    #[must_use]
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// What is retained of the catalogs replaced before it, as it was prepared with (see
    /// [`LiveCatalog::view_with_retained`]).
    #[must_use]
    pub fn retained(&self) -> &Retained {
        &self.retained
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
    prepare: Box<Prepare<T>>,
    /// Whether `prepare` reads what is retained, so that the end of a grace period prepares
    /// the view again.
    retains: bool,
    listeners: Mutex<Vec<Listener<T>>>,
}

type Prepare<T> = dyn Fn(&Catalog, &Retained) -> T + Send + Sync;

type Listener<T> = Box<dyn Fn(&Arc<Snapshot<T>>) + Send + Sync>;

impl LiveCatalog {
    /// A handle that serves `catalog` until it is replaced, and retains the addressed
    /// artifacts of replaced catalogs as [`Retention::default`] says (one hour, 16 catalogs).
    #[must_use]
    pub fn new(catalog: Catalog) -> Self {
        Self::with_retention(catalog, Retention::default())
    }

    /// A handle that serves `catalog` until it is replaced, and retains the addressed
    /// artifacts of replaced catalogs as `retention` says.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use skillpub_core::{Catalog, LiveCatalog, live::Retention};
    ///
    /// let catalog = Catalog::new(Vec::<skillpub_core::Skill>::new())?;
    /// let live = LiveCatalog::with_retention(catalog, Retention::new(Duration::from_secs(600), 4));
    /// assert_eq!(live.retention().grace_period(), Duration::from_secs(600));
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    #[must_use]
    pub fn with_retention(catalog: Catalog, retention: Retention) -> Self {
        let catalog = Arc::new(Cell::new(
            Snapshot {
                catalog,
                generation: 0,
                retained: Arc::default(),
                prepared: (),
            },
            Box::new(|_: &Catalog, _: &Retained| ()),
            false,
        ));
        Self(Arc::new(Shared {
            catalog,
            writer: Mutex::new(Writer { views: Vec::new() }),
            retention,
            sweeper: Arc::default(),
        }))
    }

    /// How this handle retains the artifacts of replaced catalogs.
    #[must_use]
    pub fn retention(&self) -> Retention {
        self.0.retention
    }

    /// What is retained now of the catalogs replaced so far (see [`Retention`]).
    #[must_use]
    pub fn retained(&self) -> Arc<Retained> {
        Arc::clone(&self.0.catalog.load().retained)
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
        let current = self.0.catalog.load();
        let generation = current.generation + 1;
        let retained = Arc::new(current.retained.after(
            &current.catalog,
            &catalog,
            self.0.retention,
            Instant::now(),
        ));
        drop(current);
        let previous = self.publish(&mut writer, catalog, generation, retained, Announce::Yes);
        drop(writer);
        self.sweep_later();
        previous
    }

    /// Prepares every view (every view that serves retained artifacts, for a sweep) for
    /// `catalog` and `retained`, swaps them, then the handle's own snapshot, then tells the
    /// listeners of a replacement. Returns the catalog replaced.
    fn publish(
        &self,
        writer: &mut Writer,
        catalog: Catalog,
        generation: u64,
        retained: Arc<Retained>,
        announce: Announce,
    ) -> Catalog {
        writer.views.retain(|view| view.strong_count() > 0);
        let views: Vec<Arc<dyn Stage>> = writer
            .views
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|view| announce == Announce::Yes || view.retains())
            .collect();
        let next = Next {
            catalog: &catalog,
            generation,
            retained: &retained,
        };
        // Each view prepares on a core of its own (a router and an MCP service, say), so a
        // replacement takes about as long as the slowest view rather than their sum.
        let threads = parallel::threads(views.len(), None);
        let mut staged: Vec<Box<dyn Staged + Send + '_>> =
            parallel::map(views.iter().collect(), threads, |view| view.stage(&next));
        // The old snapshots are dropped after the writer lock is released: freeing a large
        // catalog takes time that no replacement or reader should wait for.
        let replaced: Vec<Box<dyn Send>> = staged.iter_mut().map(|view| view.publish()).collect();
        let previous = self.0.catalog.swap(Arc::new(Snapshot {
            catalog,
            generation,
            retained,
            prepared: (),
        }));
        if announce == Announce::Yes {
            for view in &staged {
                view.announce();
            }
        }
        drop(staged);
        drop(replaced);
        previous.catalog.clone()
    }

    /// Frees what is retained past its grace period, if anything is: the views that serve
    /// retained artifacts are prepared again without them (the catalog and its generation
    /// stay, and no listener is told).
    fn sweep(&self, now: Instant) {
        let mut writer = self.writer();
        let current = self.0.catalog.load();
        if let Some(pruned) = current.retained.pruned(now) {
            let (catalog, generation) = (current.catalog.clone(), current.generation);
            drop(current);
            self.publish(
                &mut writer,
                catalog,
                generation,
                Arc::new(pruned),
                Announce::No,
            );
        }
    }

    /// Makes sure the sweeper runs while something is retained: it waits for the end of the
    /// next grace period, sweeps, and ends once nothing is retained. If no thread can be
    /// started, retained artifacts still stop being served at the end of their grace period
    /// (views check it) and are freed at the next replacement.
    fn sweep_later(&self) {
        if self.0.catalog.load().retained.is_empty() {
            return;
        }
        let mut state = lock(&self.0.sweeper.state);
        if state.running {
            self.0.sweeper.wake.notify_one();
            return;
        }
        let shared = Arc::downgrade(&self.0);
        let sweeper = Arc::clone(&self.0.sweeper);
        let started = std::thread::Builder::new()
            .name("skillpub-retention".to_owned())
            .spawn(move || sweeper.run(&shared));
        state.running = started.is_ok();
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
        self.register(Box::new(move |catalog, _| prepare(catalog)), false)
    }

    /// Registers a view that also serves what is [retained](Retained) of replaced catalogs:
    /// as [`view`](Self::view), and `prepare` gets what is retained along with the catalog;
    /// it also runs, with the same catalog, when a grace period ends, so that what it made of
    /// the artifacts retained until then is freed.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, LiveCatalog, Skill};
    ///
    /// let skill = |body: &str| Skill::new(None, format!("---\nname: pdf\ndescription: Reads PDFs.\n---\n{body}\n"));
    /// let live = LiveCatalog::new(Catalog::new([skill("v1")])?);
    /// let old = live.catalog().get("pdf").unwrap().skill_md().addressed_path().unwrap().to_owned();
    /// // An addressed path to the bytes it serves, with those of replaced catalogs.
    /// let served = live.view_with_retained(|catalog, retained| {
    ///     let current = catalog.served().map(|(path, a)| (path.to_owned(), a.bytes().clone()));
    ///     let kept = retained.artifacts().map(|(a, _)| (a.addressed_path().unwrap().to_owned(), a.bytes().clone()));
    ///     current.chain(kept).collect::<std::collections::HashMap<_, _>>()
    /// });
    /// live.replace(Catalog::new([skill("v2")])?);
    /// assert!(served.load().prepared()[&old].ends_with(b"v1\n"));
    /// # Ok::<(), skillpub_core::Errors>(())
    /// ```
    pub fn view_with_retained<T, F>(&self, prepare: F) -> LiveView<T>
    where
        T: Send + Sync + 'static,
        F: Fn(&Catalog, &Retained) -> T + Send + Sync + 'static,
    {
        self.register(Box::new(prepare), true)
    }

    fn register<T>(&self, prepare: Box<Prepare<T>>, retains: bool) -> LiveView<T>
    where
        T: Send + Sync + 'static,
    {
        let mut writer = self.writer();
        let current = self.0.catalog.load();
        let first = Snapshot {
            catalog: current.catalog.clone(),
            generation: current.generation,
            retained: Arc::clone(&current.retained),
            prepared: prepare(&current.catalog, &current.retained),
        };
        let cell = Arc::new(Cell::new(first, prepare, retains));
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

/// Whether a publication is a replacement, which listeners hear of, or a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Announce {
    Yes,
    No,
}

/// What the views prepare for.
struct Next<'a> {
    catalog: &'a Catalog,
    generation: u64,
    retained: &'a Arc<Retained>,
}

/// The thread of a handle that frees retained artifacts when their grace period ends.
#[derive(Default)]
struct Sweeper {
    state: Mutex<SweeperState>,
    /// Wakes the thread early: the handle is gone, or a replacement changed what is retained.
    wake: Condvar,
}

#[derive(Default)]
struct SweeperState {
    running: bool,
    /// The handle is gone.
    stopped: bool,
}

impl Sweeper {
    /// Sweeps at the end of each grace period until nothing is retained or the handle is
    /// dropped. It holds the handle only while it sweeps, so that waiting never keeps a
    /// dropped handle's catalogs alive.
    fn run(&self, shared: &Weak<Shared>) {
        let mut state = lock(&self.state);
        loop {
            if state.stopped {
                return;
            }
            let Some(live) = shared.upgrade().map(LiveCatalog) else {
                state.running = false;
                return;
            };
            let now = Instant::now();
            let next = live.0.catalog.load().retained.next_end();
            match next {
                None => {
                    state.running = false;
                    return;
                }
                Some(end) if end <= now => {
                    drop(state);
                    live.sweep(now);
                    drop(live);
                    state = lock(&self.state);
                }
                Some(end) => {
                    drop(live);
                    state = self
                        .wake
                        .wait_timeout(state, end - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        lock(&self.sweeper.state).stopped = true;
        self.sweeper.wake.notify_one();
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
    fn new(first: Snapshot<T>, prepare: Box<Prepare<T>>, retains: bool) -> Self {
        Self {
            current: RwLock::new(Arc::new(first)),
            prepare,
            retains,
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
    /// Prepares the snapshot of `next`, to publish later.
    fn stage<'a>(&'a self, next: &Next<'_>) -> Box<dyn Staged + Send + 'a>;
    /// Whether it serves retained artifacts.
    fn retains(&self) -> bool;
}

/// A prepared snapshot waiting for its swap.
trait Staged {
    /// Makes it current; returns the snapshot it replaces, to be dropped later.
    fn publish(&mut self) -> Box<dyn Send>;
    /// Tells the view's listeners.
    fn announce(&self);
}

impl<T: Send + Sync + 'static> Stage for Cell<T> {
    fn stage<'a>(&'a self, next: &Next<'_>) -> Box<dyn Staged + Send + 'a> {
        Box::new(Pending {
            cell: self,
            snapshot: Arc::new(Snapshot {
                catalog: next.catalog.clone(),
                generation: next.generation,
                retained: Arc::clone(next.retained),
                prepared: (self.prepare)(next.catalog, next.retained),
            }),
        })
    }

    fn retains(&self) -> bool {
        self.retains
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

    /// A catalog with one skill, `pdf`, whose body is `body`.
    fn pdf(body: &str) -> Catalog {
        Catalog::new([Skill::new(
            None,
            format!("---\nname: pdf\ndescription: Reads PDFs.\n---\n{body}\n"),
        )])
        .unwrap()
    }

    fn addressed(catalog: &Catalog) -> String {
        let skill_md = catalog.get("pdf").unwrap().skill_md();
        skill_md.addressed_path().unwrap().to_owned()
    }

    #[test]
    fn a_retaining_view_is_prepared_with_the_replaced_artifacts_and_a_plain_one_is_not_again() {
        let live = LiveCatalog::new(pdf("v1"));
        let old = addressed(&live.catalog());
        let (sender, prepared) = mpsc::channel();
        let retaining = live.view_with_retained(move |_, retained| {
            let paths: Vec<String> = retained
                .artifacts()
                .map(|(a, _)| a.addressed_path().unwrap().to_owned())
                .collect();
            sender.send(paths.clone()).unwrap();
            paths
        });
        let plain = live.view(names);
        assert_eq!(prepared.try_recv().unwrap(), Vec::<String>::new());
        live.replace(pdf("v2"));
        assert_eq!(retaining.load().prepared(), std::slice::from_ref(&old));
        assert_eq!(prepared.try_recv().unwrap(), std::slice::from_ref(&old));
        assert_eq!(live.retained().len(), 1);
        let snapshot = plain.load();
        assert!(
            snapshot.retained().get(&old, Instant::now()).is_some(),
            "every snapshot holds it"
        );
    }

    #[test]
    fn at_the_end_of_the_grace_period_the_retained_artifacts_are_freed_without_a_replacement() {
        let grace = std::time::Duration::from_millis(200);
        let live = LiveCatalog::with_retention(pdf("v1"), Retention::new(grace, 4));
        let (sender, heard) = mpsc::channel();
        let retaining = live.view_with_retained(|_, retained| retained.len());
        retaining.subscribe(move |snapshot| sender.send(snapshot.generation()).unwrap());
        let old = addressed(&live.catalog());
        live.replace(pdf("v2"));
        assert_eq!(*retaining.load().prepared(), 1);
        assert!(live.retained().get(&old, Instant::now()).is_some());
        let started = Instant::now();
        while *retaining.load().prepared() != 0 {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "swept after the grace period"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(live.retained().is_empty());
        assert_eq!(live.generation(), 1, "a sweep is no replacement");
        assert_eq!(
            heard.try_iter().collect::<Vec<_>>(),
            [1],
            "and no listener hears of it"
        );
        let running = || lock(&live.0.sweeper.state).running;
        let started = Instant::now();
        while running() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the sweeper ends"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
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
