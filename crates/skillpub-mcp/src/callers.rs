//! [`McpCallers`]: the skills each caller is served over MCP, chosen per request from a key
//! the app computes from the HTTP request (rmcp hands the request's parts, extensions
//! included, to every handler).

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use http::request::Parts;
use rmcp::RoleServer;
use rmcp::model::ServerCapabilities;
use rmcp::service::RequestContext;

use crate::config::ConfigError;
use crate::http::HttpOptions;
use crate::live::LiveMcpSkills;
use crate::server::{Choose, SkillsServer};
use crate::service::McpService;
use crate::skills::McpSkills;

/// The key of a request: computed from its HTTP parts, once per request.
type KeyFn<K> = dyn Fn(&Parts) -> Option<K> + Send + Sync;

/// The skills of an MCP endpoint that serves callers differently: a key computed from each
/// HTTP request (by [`by_extension`](Self::by_extension), from what the app's auth
/// middleware put into the request's extensions, or by [`by`](Self::by)), the skills of each
/// key, and optionally skills for every other request. Every method (`skills/list`,
/// `skills/get`, `resources/*`, prompts, tools, and the instructions of `initialize`) answers
/// from the caller's skills alone, so a URI of another caller's skill is as unknown as one
/// that no one serves (`-32602`), and a caller with neither skills of its own nor a default
/// is served an empty catalog.
///
/// Who a caller is stays the app's business, as for the HTTP routes
/// (`skillpub_axum::Callers`): put its auth middleware in front of the endpoint.
///
/// # Example
///
/// ```
/// use skillpub_core::{Catalog, Skill};
/// use skillpub_mcp::{HttpOptions, McpCallers, McpSkills};
///
/// /// What the app's auth middleware puts into the extensions of a request it let in.
/// #[derive(Debug, Clone, PartialEq, Eq, Hash)]
/// struct Staff;
///
/// let public = Catalog::new([Skill::from_static(
///     "---\nname: greeting\ndescription: Greets the user by name.\n---\n",
/// )])?;
/// let internal = Catalog::new([Skill::from_static(
///     "---\nname: deploy\ndescription: Deploys the internal services.\n---\n",
/// )])?;
/// let mcp = McpCallers::by_extension::<Staff>()
///     .caller(Staff, McpSkills::new(internal))
///     .default_skills(McpSkills::new(public))
///     .streamable_http_service(HttpOptions::default().with_private(true))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub struct McpCallers<K> {
    key: Arc<KeyFn<K>>,
    skills: HashMap<K, Skills>,
    default: Option<Skills>,
}

/// The skills of one caller: fixed, or those a live handle holds at each moment.
#[derive(Debug, Clone)]
enum Skills {
    Fixed(McpSkills),
    Live(LiveMcpSkills),
}

impl Skills {
    fn current(&self) -> McpSkills {
        match self {
            Self::Fixed(skills) => skills.clone(),
            Self::Live(live) => live.current(),
        }
    }

    fn capabilities(&self) -> ServerCapabilities {
        match self {
            Self::Fixed(skills) => skills.capabilities(),
            Self::Live(live) => live.capabilities(),
        }
    }
}

impl<K> McpCallers<K>
where
    K: Eq + Hash + Send + Sync + 'static,
{
    /// The key of a request is the `T` in its HTTP extensions (put there by the app's auth
    /// middleware), `None` when it has none.
    pub fn by_extension<T>() -> Self
    where
        T: Into<K> + Clone + Send + Sync + 'static,
    {
        Self::by(|parts| parts.extensions.get::<T>().cloned().map(Into::into))
    }

    /// The key of a request is what `key` computes from its HTTP parts.
    pub fn by(key: impl Fn(&Parts) -> Option<K> + Send + Sync + 'static) -> Self {
        Self {
            key: Arc::new(key),
            skills: HashMap::new(),
            default: None,
        }
    }

    /// Serves `skills` to the requests whose key is `key`; skills given before for the same
    /// key are replaced.
    pub fn caller(mut self, key: K, skills: McpSkills) -> Self {
        self.skills.insert(key, Skills::Fixed(skills));
        self
    }

    /// Serves the catalog `live` holds at each moment to the requests whose key is `key`:
    /// each request is answered from the catalog of that moment. Clients are not told of
    /// changes (`list_changed`) on an endpoint of skills per caller; they list again.
    pub fn live_caller(mut self, key: K, live: LiveMcpSkills) -> Self {
        self.skills.insert(key, Skills::Live(live));
        self
    }

    /// Serves `skills` to the requests without a key, or whose key has no skills.
    pub fn default_skills(mut self, skills: McpSkills) -> Self {
        self.default = Some(Skills::Fixed(skills));
        self
    }

    /// Serves the catalog `live` holds at each moment to the requests without a key, or
    /// whose key has no skills.
    pub fn live_default_skills(mut self, live: LiveMcpSkills) -> Self {
        self.default = Some(Skills::Live(live));
        self
    }

    /// A tower service for the Streamable HTTP transport, as
    /// [`McpSkills::streamable_http_service`]. The capabilities are those of every caller's
    /// skills together (`prompts` and `tools` when any caller's skills offer them).
    ///
    /// # Errors
    ///
    /// As [`McpSkills::streamable_http_service`].
    pub fn streamable_http_service(self, options: HttpOptions) -> Result<McpService, ConfigError> {
        let empty = Skills::Fixed(McpSkills::new(
            skillpub_core::Catalog::new(Vec::<skillpub_core::Skill>::new())
                .expect("an empty catalog is valid"),
        ));
        let mut capabilities = crate::server::capabilities();
        for skills in self.skills.values().chain(&self.default) {
            let theirs = skills.capabilities();
            capabilities.prompts = capabilities.prompts.or(theirs.prompts);
            capabilities.tools = capabilities.tools.or(theirs.tools);
        }
        let chosen = Chosen {
            key: self.key,
            skills: self.skills,
            fallback: self.default.unwrap_or(empty),
            capabilities,
        };
        crate::http::service(SkillsServer::callers(Arc::new(chosen)), None, &options)
    }
}

impl<K> fmt::Debug for McpCallers<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpCallers")
            .field("keys", &self.skills.len())
            .field("default", &self.default.is_some())
            .finish_non_exhaustive()
    }
}

/// An [`McpCallers`] made into a service.
struct Chosen<K> {
    key: Arc<KeyFn<K>>,
    skills: HashMap<K, Skills>,
    /// The default skills, or an empty catalog.
    fallback: Skills,
    capabilities: ServerCapabilities,
}

impl<K> fmt::Debug for Chosen<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chosen")
            .field("keys", &self.skills.len())
            .finish_non_exhaustive()
    }
}

impl<K> Choose for Chosen<K>
where
    K: Eq + Hash + Send + Sync + 'static,
{
    fn skills(&self, context: &RequestContext<RoleServer>) -> McpSkills {
        self.skills_of(context.extensions.get::<Parts>())
    }

    fn skills_of(&self, parts: Option<&Parts>) -> McpSkills {
        parts
            .and_then(|parts| (self.key)(parts))
            .and_then(|key| self.skills.get(&key))
            .unwrap_or(&self.fallback)
            .current()
    }

    fn capabilities(&self) -> ServerCapabilities {
        self.capabilities.clone()
    }
}
