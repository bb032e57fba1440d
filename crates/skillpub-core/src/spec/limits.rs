//! The limits and allowed fields, as values: the one place each is written, read by the rules,
//! by the messages that name them and by clients that hold fetched skills to them. Nothing
//! here imports anything, so every other file can use it.

/// Longest skill name, in characters.
pub const MAX_NAME_LENGTH: usize = 64;

/// Longest `description`, in Unicode scalar values.
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;

/// Longest `compatibility`, in Unicode scalar values.
pub const MAX_COMPATIBILITY_LENGTH: usize = 500;

/// The top-level frontmatter fields that the Agent Skills specification defines.
pub const ALLOWED_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Most files one skill may have, `SKILL.md` included (the SEP-2640 limit).
pub const MAX_FILES_PER_SKILL: usize = 512;

/// Most bytes one skill may have, `SKILL.md` included (the SEP-2640 limit, 16 MiB).
pub const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;

/// Deepest nesting accepted in frontmatter; `metadata` needs two levels.
pub const MAX_YAML_DEPTH: usize = 16;

/// Most YAML nodes accepted in one frontmatter block.
pub const MAX_YAML_NODES: usize = 10_000;

/// Most scalar bytes accepted in one frontmatter block.
pub const MAX_YAML_SCALAR_BYTES: usize = 1 << 20;
