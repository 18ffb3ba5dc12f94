//! What one grant and one reload check cost: `cargo bench -p shellgate-store`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
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

fn trust(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let mut store = populated(&path);
    let pattern: VerbPattern = "git push origin main *".parse().unwrap();

    // Lock, read, edit, validate, write a temp file, fsync, rename, fsync the directory.
    let mut add = true;
    c.bench_function("add or revoke one pattern (lock+write+fsync)", |b| {
        b.iter(|| {
            let outcome = if add {
                store.add_pattern("personal", &pattern).unwrap()
            } else {
                store.revoke_pattern("personal", &pattern).unwrap()
            };
            assert!(outcome.changed);
            add = !add;
        });
    });

    // Reload check right after a change: the fingerprint is racy, so the content is compared.
    let mut reader = TrustStore::open_with_home(&path, None).unwrap().store;
    c.bench_function(
        "reload check, unchanged, inside the racy window (stat+read)",
        |b| {
            b.iter(|| {
                assert_eq!(
                    black_box(reader.reload_if_changed().unwrap()),
                    Reload::Unchanged
                )
            });
        },
    );

    // Past the racy window a reload check is one stat.
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
}

criterion_group!(benches, trust);
criterion_main!(benches);
