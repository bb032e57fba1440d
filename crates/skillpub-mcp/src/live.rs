//! [`LiveMcpSkills`]: the skills of a [`LiveCatalog`] over MCP. Every catalog the handle
//! publishes is prepared with the same options before it is swapped in, so `skills/list`
//! answers from the new catalog as soon as [`LiveCatalog::replace`] returns; the lists that
//! changed are counted, so that connected clients are told of exactly those.

use std::sync::{Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{ServerCapabilities, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionSink};
use skillpub_core::{LiveCatalog, live::LiveView};
use tokio::sync::watch;

use crate::config::ConfigError;
use crate::options::Surfaces;
use crate::skills::{McpSkills, McpSkillsBuilder};

/// How many times each list a client can be told about has changed: a client that saw
/// `before` is told of every list that differs in `after`. The tools are the same for every
/// catalog, so their list never changes; the prompts are empty for every catalog when they
/// are off, so their version moves only when they are on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Versions {
    /// `skills/list` and `resources/list` (told as `notifications/resources/list_changed`:
    /// the skills extension has no notification of its own).
    resources: u64,
    prompts: u64,
}

/// One catalog prepared for MCP, with the versions of its lists.
#[derive(Debug)]
pub(crate) struct Versioned {
    skills: McpSkills,
    versions: Versions,
}

/// A [`LiveCatalog`] served over MCP: the answers of [`McpSkills`] for the catalog the
/// handle holds at each moment, and change notifications for connected clients. Cheap to
/// clone. Made by [`McpSkills::live`].
///
/// Serve it with [`streamable_http_service`](Self::streamable_http_service): with
/// [`HttpOptions::with_stateful`](crate::HttpOptions::with_stateful), clients of the protocol
/// versions with sessions get `notifications/resources/list_changed` on their session's stream
/// after a replacement that changes `skills/list` or `resources/list` (and
/// `notifications/prompts/list_changed` when [`prompts`](McpSkillsBuilder::prompts) is on
/// and the prompts changed); clients of 2026-07-28, which has no sessions, get the same
/// through `subscriptions/listen`, in either mode.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, LiveCatalog, Skill};
/// use skillpub_mcp::{HttpOptions, McpSkills};
///
/// let live = LiveCatalog::new(Catalog::new(Vec::<Skill>::new())?);
/// let mcp = McpSkills::live(live.clone()).prompts(true).build()?;
/// let app: axum::Router = axum::Router::new()
///     .merge(skillpub_axum::live_router(live.clone()))
///     .nest_service("/mcp", mcp.streamable_http_service(HttpOptions::default().with_stateful(true))?);
/// assert!(mcp.current().list_skills(None)?.skills.is_empty());
///
/// live.replace(Catalog::new([Skill::from_static(
///     "---\nname: greeting\ndescription: Greets the user by name.\n---\nSay hello.\n",
/// )])?);
/// assert_eq!(mcp.current().list_skills(None)?.skills.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct LiveMcpSkills {
    view: LiveView<Versioned>,
    changes: watch::Receiver<Versions>,
    surfaces: Surfaces,
}

impl McpSkills {
    /// Options for serving the catalog `live` holds at each moment; `build` returns a
    /// [`LiveMcpSkills`]. Every option applies to every catalog the handle publishes.
    pub fn live(live: LiveCatalog) -> McpSkillsBuilder<LiveCatalog> {
        McpSkillsBuilder::from_source(live)
    }
}

impl McpSkillsBuilder<LiveCatalog> {
    /// Prepares every answer of the current catalog now, and of every catalog the handle
    /// publishes later, before it is swapped in.
    ///
    /// # Errors
    ///
    /// A prefix that is not URI-safe, or a page size of zero.
    pub fn build(self) -> Result<LiveMcpSkills, ConfigError> {
        let (live, options) = self.checked_options()?;
        let surfaces = options.surfaces;
        let last: Mutex<Option<(McpSkills, Versions)>> = Mutex::new(None);
        let view = live.view(move |catalog| {
            let skills = McpSkills::prepare(&options, catalog);
            let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
            let versions = match &*last {
                None => Versions::default(),
                Some((before, versions)) => versions.after(before, &skills),
            };
            *last = Some((skills.clone(), versions));
            Versioned { skills, versions }
        });
        let (sender, changes) = watch::channel(view.load().prepared().versions);
        view.subscribe(move |snapshot| {
            sender.send_replace(snapshot.prepared().versions);
        });
        Ok(LiveMcpSkills {
            view,
            changes,
            surfaces,
        })
    }
}

impl Versions {
    /// These versions once a client is told that `list` changed, up to its version in `now`
    /// (a list's version only grows, so an older one changes nothing).
    pub(crate) fn told(self, list: List, now: Self) -> Self {
        match list {
            List::Resources => Self {
                resources: self.resources.max(now.resources),
                ..self
            },
            List::Prompts => Self {
                prompts: self.prompts.max(now.prompts),
                ..self
            },
        }
    }

    #[cfg(test)]
    pub(crate) fn new(resources: u64, prompts: u64) -> Self {
        Self { resources, prompts }
    }

    /// The versions of `after`, prepared from the catalog that follows `before`'s.
    fn after(self, before: &McpSkills, after: &McpSkills) -> Self {
        let [resources, prompts] = after.lists_differ(before);
        Self {
            resources: self.resources + u64::from(resources),
            prompts: self.prompts + u64::from(prompts),
        }
    }
}

impl LiveMcpSkills {
    /// The skills of the current catalog, to answer one request from (a handler of your own
    /// calls this once per request and answers from the result alone).
    #[must_use]
    pub fn current(&self) -> McpSkills {
        self.view.load().prepared().skills.clone()
    }

    /// The capabilities to declare: those of [`McpSkills::capabilities`], with
    /// `listChanged` on `resources`, and on `prompts` when prompts are on. (The tools are
    /// the same for every catalog, so their list never changes.)
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_core::{Catalog, LiveCatalog};
    /// use skillpub_mcp::McpSkills;
    ///
    /// let live = LiveCatalog::new(Catalog::new(Vec::<skillpub_core::Skill>::new())?);
    /// let capabilities = McpSkills::live(live).build()?.capabilities();
    /// assert_eq!(capabilities.resources.unwrap().list_changed, Some(true));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn capabilities(&self) -> ServerCapabilities {
        let mut capabilities = self.current().capabilities();
        let mut resources = capabilities.resources.unwrap_or_default();
        resources.list_changed = Some(true);
        capabilities.resources = Some(resources);
        if let Some(prompts) = &mut capabilities.prompts {
            prompts.list_changed = Some(true);
        }
        capabilities
    }

    /// The `subscriptions/listen` filter this server honours: `resourcesListChanged`, and
    /// `promptsListChanged` when prompts are on.
    pub(crate) fn subscription_filter(&self) -> SubscriptionFilter {
        let filter = SubscriptionFilter::builder().resources_list_changed();
        if self.surfaces.prompts {
            filter.prompts_list_changed().build()
        } else {
            filter.build()
        }
    }

    /// Changes from now on.
    pub(crate) fn changes(&self) -> Changes {
        let mut changes = self.changes.clone();
        let seen = *changes.borrow_and_update();
        Changes { changes, seen }
    }

    /// The versions of the lists now.
    pub(crate) fn versions(&self) -> Versions {
        *self.changes.borrow()
    }

    /// Changes since a client saw the lists of `seen`: the first call to
    /// [`Changes::next`] tells at once of every list that differs now.
    pub(crate) fn changes_since(&self, seen: Versions) -> Changes {
        Changes {
            changes: self.changes.clone(),
            seen,
        }
    }
}

/// The lists that change, as a client that saw the catalog of some moment learns of them.
#[derive(Debug)]
pub(crate) struct Changes {
    changes: watch::Receiver<Versions>,
    seen: Versions,
}

/// A list a client can be told has changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    Resources,
    Prompts,
}

impl Changes {
    /// The lists that changed since the last call (or since the versions it started from),
    /// waiting for a replacement that changes a list this server offers when none did;
    /// `None` once the handle is gone. Changes coalesce: a list that changed several times
    /// since is told once.
    pub(crate) async fn next(&mut self) -> Option<Vec<List>> {
        loop {
            let now = *self.changes.borrow_and_update();
            let mut lists = Vec::new();
            if now.resources != self.seen.resources {
                lists.push(List::Resources);
            }
            if now.prompts != self.seen.prompts {
                lists.push(List::Prompts);
            }
            self.seen = now;
            if !lists.is_empty() {
                return Some(lists);
            }
            self.changes.changed().await.ok()?;
        }
    }
}

/// Where a client is told that a list changed: a session's peer, the stream of one
/// `subscriptions/listen` request, or a session's event stream over HTTP.
pub(crate) trait Listener {
    /// Tells of one changed list, whose lists are at the versions `now`; `false` once it
    /// cannot be told any more.
    async fn tell(&self, list: List, now: Versions) -> bool;
}

impl Listener for Peer<RoleServer> {
    async fn tell(&self, list: List, _now: Versions) -> bool {
        match list {
            List::Resources => self.notify_resource_list_changed().await,
            List::Prompts => self.notify_prompt_list_changed().await,
        }
        .is_ok()
    }
}

impl Listener for SubscriptionSink {
    async fn tell(&self, list: List, _now: Versions) -> bool {
        match list {
            List::Resources => self.notify_resource_list_changed().await,
            List::Prompts => self.notify_prompt_list_changed().await,
        }
        .is_ok()
    }
}

impl Changes {
    /// Tells `listener` of every change until `until` resolves or it cannot be told any more.
    pub(crate) async fn tell(mut self, listener: &impl Listener, until: impl Future<Output = ()>) {
        let mut until = std::pin::pin!(until);
        loop {
            let lists = tokio::select! {
                () = &mut until => return,
                lists = self.next() => match lists {
                    Some(lists) => lists,
                    None => return,
                },
            };
            for list in lists {
                if !listener.tell(list, self.seen).await {
                    return;
                }
            }
        }
    }
}
