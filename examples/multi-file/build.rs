//! Embeds every skill in `examples/skills/` and fails the build if one is invalid.

fn main() {
    skillpub_build::embed("../skills");
}
