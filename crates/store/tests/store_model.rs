//! The trust store agrees with a `BTreeMap` model under random add, revoke and reload
//! sequences, seen through the writing store, a second store that only reloads, and a reopen.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use shellgate_store::{Access, Grants, Reload, TrustStore, VerbPattern, ZonePath};

const AUDIENCES: [&str; 2] = ["personal", "ci"];
const PATTERNS: [&str; 5] = [
    "git push *",
    "git push origin main *",
    "cargo test *",
    "rm /tmp/build/*",
    "make test-*",
];
const ZONES: [&str; 4] = [
    "/home/u/proj",
    "/tmp/build",
    "/home/u/proj/sub",
    "/srv/data",
];

/// (audience, "zone" | "pattern", key) → access (patterns carry none).
type Model = BTreeMap<(String, &'static str, String), Option<Access>>;

#[derive(Clone, Debug)]
enum Op {
    AddPattern(usize, usize),
    RevokePattern(usize, usize),
    AddZone(usize, usize, bool),
    RevokeZone(usize, usize),
    /// Drop the writing store and open the file afresh.
    Reopen,
    /// Let the second store catch up through `reload_if_changed`.
    ReloadOther,
}

fn op() -> impl Strategy<Value = Op> {
    let aud = 0..AUDIENCES.len();
    prop_oneof![
        3 => (aud.clone(), 0..PATTERNS.len()).prop_map(|(a, p)| Op::AddPattern(a, p)),
        2 => (aud.clone(), 0..PATTERNS.len()).prop_map(|(a, p)| Op::RevokePattern(a, p)),
        3 => (aud.clone(), 0..ZONES.len(), any::<bool>()).prop_map(|(a, z, w)| Op::AddZone(a, z, w)),
        2 => (aud, 0..ZONES.len()).prop_map(|(a, z)| Op::RevokeZone(a, z)),
        1 => Just(Op::Reopen),
        2 => Just(Op::ReloadOther),
    ]
}

fn view(store: &TrustStore) -> Model {
    let mut model = Model::new();
    for audience in AUDIENCES {
        let Grants {
            zones, patterns, ..
        } = store.snapshot(audience);
        for zone in zones {
            let old = model.insert(
                (audience.to_owned(), "zone", zone.path.to_string()),
                Some(zone.access),
            );
            assert!(old.is_none(), "duplicate zone {}", zone.path);
        }
        for pattern in patterns {
            let old = model.insert((audience.to_owned(), "pattern", pattern.to_string()), None);
            assert!(old.is_none(), "duplicate pattern {pattern}");
        }
    }
    model
}

fn open(path: &Path) -> TrustStore {
    let opened = TrustStore::open_with_home(path, None).unwrap();
    assert_eq!(opened.quarantined, None);
    opened.store
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn store_agrees_with_a_btreemap(ops in proptest::collection::vec(op(), 1..30)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trust.toml");
        let mut store = open(&path);
        let mut other = open(&path);
        let mut model = Model::new();
        let mut other_saw: Option<Vec<u8>> = None;
        for op in ops {
            match op {
                Op::AddPattern(a, p) => {
                    let key = (AUDIENCES[a].to_owned(), "pattern", PATTERNS[p].to_owned());
                    let expect = !model.contains_key(&key);
                    model.insert(key, None);
                    let pattern: VerbPattern = PATTERNS[p].parse().unwrap();
                    let outcome = store.add_pattern(AUDIENCES[a], &pattern).unwrap();
                    prop_assert_eq!(outcome.changed, expect);
                }
                Op::RevokePattern(a, p) => {
                    let key = (AUDIENCES[a].to_owned(), "pattern", PATTERNS[p].to_owned());
                    let expect = model.remove(&key).is_some();
                    let pattern: VerbPattern = PATTERNS[p].parse().unwrap();
                    let outcome = store.revoke_pattern(AUDIENCES[a], &pattern).unwrap();
                    prop_assert_eq!(outcome.changed, expect);
                }
                Op::AddZone(a, z, write) => {
                    let access = if write { Access::Write } else { Access::Read };
                    let key = (AUDIENCES[a].to_owned(), "zone", ZONES[z].to_owned());
                    let expect = model.insert(key, Some(access)) != Some(Some(access));
                    let zone = ZonePath::new(ZONES[z], None).unwrap();
                    let outcome = store.add_zone(AUDIENCES[a], &zone, access).unwrap();
                    prop_assert_eq!(outcome.changed, expect);
                }
                Op::RevokeZone(a, z) => {
                    let key = (AUDIENCES[a].to_owned(), "zone", ZONES[z].to_owned());
                    let expect = model.remove(&key).is_some();
                    let zone = ZonePath::new(ZONES[z], None).unwrap();
                    let outcome = store.revoke_zone(AUDIENCES[a], &zone).unwrap();
                    prop_assert_eq!(outcome.changed, expect);
                }
                Op::Reopen => store = open(&path),
                Op::ReloadOther => {
                    let now = std::fs::read(&path).ok();
                    let reload = other.reload_if_changed().unwrap();
                    let expected = if now == other_saw { Reload::Unchanged } else { Reload::Reloaded };
                    other_saw = now;
                    prop_assert_eq!(reload, expected);
                    prop_assert_eq!(view(&other), model.clone());
                }
            }
            prop_assert_eq!(view(&store), model.clone());
        }
        // The file on disk says the same to a fresh reader, and is plain TOML.
        prop_assert_eq!(view(&open(&path)), model.clone());
        if path.exists() {
            let text = std::fs::read_to_string(&path).unwrap();
            let table: toml::Table = toml::from_str(&text).unwrap();
            prop_assert_eq!(table.get("version").and_then(toml::Value::as_integer), Some(1));
        }
    }
}
