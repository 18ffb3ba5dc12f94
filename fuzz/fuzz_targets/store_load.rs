//! Arbitrary bytes as a trust file: written to a scratch directory, opened with
//! `TrustStore::open_with_home`, then (when usable) edited with `add_pattern` and opened again.
//! The store has no public pure parse entry point, so this goes through the file system; point
//! `TMPDIR` at a tmpfs (`scripts/fuzz.sh` uses `/dev/shm` when it exists) to keep it fast.
//!
//! Each run checks:
//! * opening a file we just wrote never fails with an I/O error;
//! * an unusable file is moved aside whole (same bytes) and the store starts empty;
//! * adding a pattern to a usable file keeps every other audience's grants, and the file it
//!   writes opens again with the pattern in it; a refused edit leaves the file untouched.
#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use shellgate_store::{Grants, TrustStore, VerbPattern};

/// The audience the edit adds to.
const AUDIENCE: &str = "fuzz-probe";

/// A scratch directory for this process.
static DIR: LazyLock<PathBuf> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("shellgate-fuzz-store-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir
});

static PATTERN: LazyLock<VerbPattern> = LazyLock::new(|| "cargo test *".parse().unwrap());

fn home() -> Option<PathBuf> {
    Some(PathBuf::from("/home/u"))
}

fn clear(dir: &Path) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            fs::remove_dir_all(&path).unwrap();
        } else {
            fs::remove_file(&path).unwrap();
        }
    }
}

fn snapshot(store: &TrustStore) -> Vec<(String, Grants)> {
    store
        .audiences()
        .map(|(name, grants)| (name.to_owned(), grants.clone()))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let dir = &*DIR;
    clear(dir);
    let path = dir.join("trust.toml");
    fs::write(&path, data).unwrap();
    let opened = TrustStore::open_with_home(&path, home()).unwrap();
    if let Some(quarantine) = &opened.quarantined {
        assert!(!quarantine.reason.is_empty());
        assert_eq!(
            opened.store.audiences().count(),
            0,
            "a quarantined store kept grants"
        );
        assert!(!path.exists(), "the unusable file is still in place");
        assert_eq!(
            fs::read(&quarantine.moved_to).unwrap(),
            data,
            "quarantine changed the bytes"
        );
        return;
    }
    let mut store = opened.store;
    let before = snapshot(&store);
    match store.add_pattern(AUDIENCE, &PATTERN) {
        Ok(outcome) => {
            assert!(
                outcome.quarantined.is_none(),
                "a usable file was quarantined on edit"
            );
            let again = TrustStore::open_with_home(&path, home()).unwrap();
            assert!(
                again.quarantined.is_none(),
                "the edited file is unusable: {:?}\n{}",
                again.quarantined,
                String::from_utf8_lossy(&fs::read(&path).unwrap_or_default())
            );
            assert_eq!(
                snapshot(&again.store),
                snapshot(&store),
                "the store and its file disagree"
            );
            let after = again.store.snapshot(AUDIENCE);
            assert!(
                after.patterns.contains(&PATTERN),
                "the pattern is not in the file"
            );
            for (name, grants) in &before {
                let now = again.store.snapshot(name);
                if name == AUDIENCE {
                    assert_eq!(now.zones, grants.zones, "the edit changed `{name}`'s zones");
                    assert!(
                        grants.patterns.iter().all(|p| now.patterns.contains(p)),
                        "the edit dropped a pattern of `{name}`"
                    );
                } else {
                    assert_eq!(&now, grants, "the edit changed audience `{name}`");
                }
            }
        }
        Err(error) => {
            assert!(!error.to_string().is_empty());
            if path.exists() {
                assert_eq!(
                    fs::read(&path).unwrap(),
                    data,
                    "a refused edit changed the file"
                );
            }
        }
    }
});
