//! What one grant and one reload check cost: `cargo bench -p shellgate-store`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs,
    reason = "bench code: a failed step should fail loudly; criterion's macros generate undocumented items"
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use shellgate_store::{Access, Reload, TrustStore, VerbPattern, ZonePath};

/// A store holding a realistic number of grants (10 zones, 20 patterns).
fn populated(path: &std::path::Path) -> TrustStore {
    let mut store = TrustStore::open_with_home(path, None).unwrap().store;
    for n in 0..10 {
        let zone = ZonePath::new(&format!("/home/u/project{n}"), None).unwrap();
        assert!(
            store
                .add_zone("personal", &zone, Access::Write)
                .unwrap()
                .changed
        );
    }
    for n in 0..20 {
        let pattern: VerbPattern = format!("tool{n} sub *").parse().unwrap();
        assert!(store.add_pattern("personal", &pattern).unwrap().changed);
    }
    store
}

/// Adds `pattern` when `add`, else revokes it (a change either way); then flips `add`.
fn toggle(store: &mut TrustStore, pattern: &VerbPattern, add: &mut bool) {
    let outcome = if *add {
        store.add_pattern("personal", pattern).unwrap()
    } else {
        store.revoke_pattern("personal", pattern).unwrap()
    };
    assert!(outcome.changed);
    *add = !*add;
}

fn trust(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let mut store = populated(&path);
    let pattern: VerbPattern = "git push origin main *".parse().unwrap();

    // Lock, read, edit, validate, write a temp file, fsync, rename, fsync the directory.
    let mut add = true;
    c.bench_function("add or revoke one pattern (lock+write+fsync)", |b| {
        b.iter(|| {
            toggle(&mut store, &pattern, &mut add);
        });
    });

    // Past the racy window a reload check is one stat.
    let mut reader = TrustStore::open_with_home(&path, None).unwrap().store;
    std::thread::sleep(shellgate_store::RACY_WINDOW + Duration::from_millis(100));
    assert_eq!(reader.reload_if_changed().unwrap(), Reload::Unchanged);
    c.bench_function("reload check, unchanged (stat)", |b| {
        b.iter(|| {
            assert_eq!(
                black_box(reader.reload_if_changed().unwrap()),
                Reload::Unchanged
            )
        });
    });

    // After another writer's change: stat, read, validate, swap in the new grants.
    let mut writer = TrustStore::open_with_home(&path, None).unwrap().store;
    let mut add = !writer.snapshot("personal").patterns.contains(&pattern);
    c.bench_function(
        "reload after another writer's change (stat+read+parse)",
        |b| {
            b.iter_batched(
                || {
                    toggle(&mut writer, &pattern, &mut add);
                },
                |()| assert_eq!(reader.reload_if_changed().unwrap(), Reload::Reloaded),
                BatchSize::PerIteration,
            );
        },
    );
}

criterion_group!(benches, trust);
criterion_main!(benches);
