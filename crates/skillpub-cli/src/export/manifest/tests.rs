use skillpub_core::Digest;
use skillpub_testkit::Scratch;

use super::{Generation, MANIFEST, Manifest};

fn manifest() -> Manifest {
    let hex = Digest::of(b"x").hex();
    Manifest {
        generations: vec![
            Generation {
                exported: 100,
                replaced: Some(200),
                index: Digest::of(b"one").to_string(),
                files: vec![
                    format!("sha256-{hex}/pdf/SKILL.md"),
                    format!("sha256-{hex}/pdf.tar.gz"),
                ],
            },
            Generation {
                exported: 200,
                replaced: None,
                index: Digest::of(b"two").to_string(),
                files: vec![format!("sha256-{hex}/pdf.zip")],
            },
        ],
    }
}

#[test]
fn a_manifest_reads_back_as_written() {
    let folder = Scratch::new("manifest-round-trip");
    let path = folder.write(MANIFEST, manifest().to_json());
    assert_eq!(Manifest::read(&path), Ok(Some(manifest())));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("{\n  \"skillpub-export\": 1,\n  \"generations\": [\n    {\"exported\":100,\"replaced\":200,"), "{text}");
}

#[test]
fn no_manifest_is_none() {
    let folder = Scratch::new("manifest-none");
    assert_eq!(Manifest::read(&folder.path().join(MANIFEST)), Ok(None));
}

macro_rules! refused {
    ($name:ident, $text:expr, $problem:expr) => {
        #[test]
        fn $name() {
            let folder = Scratch::new("manifest-refused");
            let path = folder.write(MANIFEST, $text);
            let error = Manifest::read(&path).unwrap_err();
            assert!(
                error.starts_with(&format!(
                    "cannot read the export manifest `{}`: ",
                    path.display()
                )),
                "{error}"
            );
            assert!(error.contains($problem), "{error}");
            assert!(error.contains("restore it, or remove it"), "{error}");
        }
    };
}

refused!(
    half_written_json,
    "{\"skillpub-export\": 1, \"gener",
    "it is not JSON"
);
refused!(not_an_object, "[]", "it is not a JSON object");
refused!(
    another_format,
    "{\"generations\": []}",
    "it has no `\"skillpub-export\": 1`"
);
refused!(
    a_later_version,
    "{\"skillpub-export\": 2, \"generations\": []}",
    "it is version 2 of the format"
);
refused!(
    no_generations,
    "{\"skillpub-export\": 1}",
    "it has no `generations` list"
);
refused!(
    a_bad_time,
    "{\"skillpub-export\": 1, \"generations\": [{\"exported\": \"yesterday\"}]}",
    "generation 1 has a `exported` that is not a whole number of seconds"
);
refused!(
    an_earlier_generation_not_replaced,
    format!(
        "{{\"skillpub-export\": 1, \"generations\": [{{\"exported\": 1, \"index\": \"{d}\", \"files\": []}}, {{\"exported\": 2, \"index\": \"{d}\", \"files\": []}}]}}",
        d = Digest::of(b"").to_string()
    ),
    "generation 1 has no `replaced` time, yet a later generation follows it"
);
refused!(
    a_bad_index,
    "{\"skillpub-export\": 1, \"generations\": [{\"exported\": 1, \"index\": \"md5:00\", \"files\": []}]}",
    "generation 1 has no `index` digest"
);
refused!(
    a_file_outside_the_addressed_ones,
    format!(
        "{{\"skillpub-export\": 1, \"generations\": [{{\"exported\": 1, \"index\": \"{}\", \"files\": [\"../../etc/passwd\"]}}]}}",
        Digest::of(b"").to_string()
    ),
    "generation 1 lists \"../../etc/passwd\", which is not an addressed file"
);

#[test]
fn a_folder_in_its_place_is_a_clear_error() {
    let folder = Scratch::new("manifest-folder");
    let path = folder.folder(MANIFEST);
    let error = Manifest::read(&path).unwrap_err();
    assert!(error.contains(&format!("`{}`", path.display())), "{error}");
    assert!(error.contains("remove it"), "{error}");
}
