use std::time::Duration;

use skillpub_core::Digest;
use skillpub_testkit::Scratch;

use super::super::manifest::is_addressed_file;
use super::{Retention, duration, earlier_generations, read_verified};
use crate::export::manifest::{Generation, Manifest};

/// A generation replaced at `replaced`, named by its `exported` time.
fn replaced_at(exported: u64, replaced: u64) -> Generation {
    Generation {
        exported,
        replaced: Some(replaced),
        index: Digest::of(exported.to_string().as_bytes()).to_string(),
        files: Vec::new(),
    }
}

fn kept(retention: Retention, previous: &[(u64, u64)], now: u64) -> Vec<u64> {
    let previous = previous.iter().map(|&(e, r)| replaced_at(e, r)).collect();
    retention
        .select(previous, now)
        .iter()
        .map(|generation| generation.exported)
        .collect()
}

const HOUR: u64 = 3600;

#[test]
fn a_generation_stays_while_it_was_replaced_within_keep_for_whatever_the_count() {
    let retention = Retention {
        generations: 1,
        keep_for: Duration::from_secs(HOUR),
    };
    // Five exports within the hour: every index could still be held, all stay.
    let previous = [(10, 20), (20, 30), (30, 40), (40, 50), (50, 60)];
    assert_eq!(kept(retention, &previous, 100), [10, 20, 30, 40, 50]);
    // Exported long ago, replaced a minute ago: its index was served until then.
    assert_eq!(kept(retention, &[(0, 100 * HOUR - 60)], 100 * HOUR), [0]);
}

#[test]
fn the_count_keeps_the_last_replaced_generations_whatever_their_age() {
    let retention = Retention {
        generations: 2,
        keep_for: Duration::from_secs(HOUR),
    };
    let day = 24 * HOUR;
    let previous = [
        (0, day),
        (day, 2 * day),
        (2 * day, 3 * day),
        (3 * day, 4 * day),
    ];
    assert_eq!(kept(retention, &previous, 10 * day), [2 * day, 3 * day]);
    // Both rules at once: the last two by count, an older one by age, the oldest by neither.
    let previous = [
        (0, day),
        (day, 10 * day - 120),
        (10 * day - 120, 10 * day - 60),
        (10 * day - 60, 10 * day),
    ];
    assert_eq!(
        kept(retention, &previous, 10 * day),
        [day, 10 * day - 120, 10 * day - 60]
    );
}

#[test]
fn nothing_is_kept_when_both_are_zero_and_a_clock_gone_back_keeps_everything_by_age() {
    let none = Retention {
        generations: 0,
        keep_for: Duration::ZERO,
    };
    assert_eq!(kept(none, &[(10, 20), (20, 30)], 30), Vec::<u64>::new());
    let hour = Retention {
        generations: 0,
        keep_for: Duration::from_secs(HOUR),
    };
    assert_eq!(kept(hour, &[(10, 5000), (5000, 9000)], 100), [10, 5000]);
}

macro_rules! addressed {
    ($name:ident, $file:expr, $expected:expr) => {
        #[test]
        fn $name() {
            let hex = Digest::of(b"x").hex();
            let file = $file
                .replace("{hex}", &hex)
                .replace("{HEX}", &hex.to_uppercase());
            assert_eq!(is_addressed_file(&file), $expected, "{file}");
        }
    };
}

addressed!(a_skill_md_is_addressed, "sha256-{hex}/pdf/SKILL.md", true);
addressed!(a_tar_gz_is_addressed, "sha256-{hex}/pdf.tar.gz", true);
addressed!(a_zip_is_addressed, "sha256-{hex}/pdf.zip", true);
addressed!(a_canonical_path_is_not, "pdf/SKILL.md", false);
addressed!(the_index_is_not, "sha256-{hex}/index.json", false);
addressed!(
    a_supporting_file_is_not,
    "sha256-{hex}/pdf/reference.md",
    false
);
addressed!(a_climb_is_not, "sha256-{hex}/../pdf/SKILL.md", false);
addressed!(a_deeper_name_is_not, "sha256-{hex}/a/b/SKILL.md", false);
addressed!(an_invalid_name_is_not, "sha256-{hex}/PDF/SKILL.md", false);
addressed!(uppercase_hex_is_not, "sha256-{HEX}/pdf/SKILL.md", false);
addressed!(a_short_digest_is_not, "sha256-abc/pdf/SKILL.md", false);

#[test]
fn durations_take_a_unit_and_refuse_the_rest() {
    assert_eq!(duration("0"), Ok(Duration::ZERO));
    assert_eq!(duration("90s"), Ok(Duration::from_secs(90)));
    assert_eq!(duration("90m"), Ok(Duration::from_secs(5400)));
    assert_eq!(duration("2h"), Ok(Duration::from_secs(7200)));
    assert_eq!(duration("1d"), Ok(Duration::from_secs(86_400)));
    for bad in [
        "",
        "1",
        "1.5h",
        "h",
        "-1d",
        "1w",
        "1 d",
        "99999999999999999999d",
    ] {
        let error = duration(bad).unwrap_err();
        assert!(error.contains("such as 90m or 1d"), "{bad}: {error}");
    }
}

/// A tree with one addressed `SKILL.md` holding `bytes` under its digest, and its index.
fn tree(bytes: &[u8]) -> (Scratch, String) {
    let tree = Scratch::new("retention-tree");
    let file = format!("sha256-{}/pdf/SKILL.md", Digest::of(bytes).hex());
    tree.write(&file, bytes);
    tree.write("index.json", "{}");
    (tree, file)
}

#[test]
fn a_kept_file_is_read_only_with_the_bytes_its_name_says() {
    let (tree, file) = tree(b"---\nname: pdf\n---\n");
    assert_eq!(
        read_verified(tree.path(), &file).unwrap(),
        b"---\nname: pdf\n---\n"
    );
    tree.write(&file, "changed by hand");
    let error = read_verified(tree.path(), &file).unwrap_err();
    assert!(
        error.contains("does not hold the bytes its name's digest says"),
        "{error}"
    );
    std::fs::remove_file(tree.path().join(&file)).unwrap();
    assert!(read_verified(tree.path(), &file).is_err());
}

#[test]
fn without_a_manifest_the_tree_in_place_is_an_earlier_generation_with_every_addressed_file() {
    let (tree, file) = tree(b"bytes");
    tree.write("pdf/SKILL.md", "bytes");
    let generations = earlier_generations(None, tree.path(), 1000);
    assert_eq!(
        generations,
        [Generation {
            exported: 1000,
            replaced: Some(1000),
            index: Digest::of(b"{}").to_string(),
            files: vec![file],
        }]
    );
    // No tree, no manifest: nothing earlier.
    let empty = Scratch::new("retention-empty");
    assert_eq!(earlier_generations(None, empty.path(), 1000), []);
}

#[test]
fn the_recorded_tree_in_place_is_marked_replaced_now_and_an_unrecorded_one_is_added() {
    let (tree, file) = tree(b"bytes");
    let recorded = |index: String| Manifest {
        generations: vec![
            replaced_at(1, 2),
            Generation {
                exported: 2,
                replaced: None,
                index,
                files: vec![file.clone()],
            },
        ],
    };
    let in_place = Digest::of(b"{}").to_string();
    let generations = earlier_generations(Some(recorded(in_place.clone())), tree.path(), 50);
    assert_eq!(generations.len(), 2);
    assert_eq!(generations[1].replaced, Some(50));
    // A crash between the tree and the manifest: the manifest's last is not the tree in place.
    let other = Digest::of(b"another index").to_string();
    let generations = earlier_generations(Some(recorded(other)), tree.path(), 50);
    assert_eq!(generations.len(), 3);
    assert_eq!(generations[1].replaced, Some(50));
    assert_eq!(generations[2].index, in_place);
    assert_eq!(generations[2].files, [file]);
}
