//! Unusable trust files are moved aside loudly, never dropped; unwritable locations fail with a
//! clear error and lose nothing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use shellgate_store::{Outcome, StoreError, TrustStore, VerbPattern};

/// Whether a store operation that must succeed changed the file.
fn changed(outcome: Result<Outcome, StoreError>) -> bool {
    outcome.unwrap().changed
}

fn pattern(text: &str) -> VerbPattern {
    text.parse().unwrap()
}

/// A new directory, the path of its `trust.toml` (not written yet) and a store over it.
fn new_store() -> (tempfile::TempDir, PathBuf, TrustStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let store = TrustStore::open_with_home(&path, None).unwrap().store;
    (dir, path, store)
}

/// Opens a store over `content` and returns (where it went, the reason, the store).
fn quarantine(dir: &Path, content: &[u8]) -> (PathBuf, String, TrustStore) {
    let path = dir.join("trust.toml");
    std::fs::write(&path, content).unwrap();
    let opened = TrustStore::open_with_home(&path, None).unwrap();
    let quarantine = opened.quarantined.expect("the file must be quarantined");
    assert_eq!(quarantine.original, path);
    assert!(!path.exists(), "the bad file must be moved away");
    assert_eq!(
        std::fs::read(&quarantine.moved_to).unwrap(),
        content,
        "nothing lost"
    );
    assert!(opened.store.snapshot("personal").is_empty());
    assert_eq!(opened.store.audiences().count(), 0);
    (quarantine.moved_to, quarantine.reason, opened.store)
}

fn quarantine_name(moved_to: &Path) -> String {
    moved_to.file_name().unwrap().to_string_lossy().into_owned()
}

/// `trust.toml.quarantine-YYYYMMDDTHHMMSSZ` with an optional `-N`.
fn assert_quarantine_name(name: &str, suffix: Option<&str>) {
    let rest = name.strip_prefix("trust.toml.quarantine-").unwrap();
    let (stamp, tail) = rest.split_at(16);
    assert!(
        stamp.len() == 16 && stamp.as_bytes()[8] == b'T' && stamp.ends_with('Z'),
        "{name}"
    );
    assert!(
        stamp.chars().filter(char::is_ascii_digit).count() == 14,
        "{name}"
    );
    match suffix {
        None => assert_eq!(tail, "", "{name}"),
        Some(_) => assert!(
            tail.strip_prefix('-')
                .is_some_and(|n| n.parse::<u32>().is_ok()),
            "{name}"
        ),
    }
}

#[test]
fn unknown_version_is_quarantined_and_the_store_starts_empty() {
    let dir = tempfile::tempdir().unwrap();
    let (moved_to, reason, mut store) = quarantine(
        dir.path(),
        b"version = 2\n[audience.personal]\npatterns = [\"git push *\"]\n",
    );
    assert_eq!(
        reason,
        "unknown version `2`; this shellgate reads version 1"
    );
    assert_quarantine_name(&quarantine_name(&moved_to), None);
    assert_eq!(moved_to.parent().unwrap(), dir.path());
    // The store works afterwards and a new file is written.
    assert!(changed(store.add_pattern("personal", &pattern("ls *"))));
    assert!(dir.path().join("trust.toml").exists());
}

#[test]
fn garbage_is_quarantined_with_the_reason() {
    let cases: [(&[u8], &str); 5] = [
        (b"\xff\xfe\x00garbage", "not valid UTF-8 at byte 0"),
        (
            b"version = 1\n[audience.personal\n",
            "not valid TOML: line 2, column 19: unclosed table, expected `]`",
        ),
        (
            b"[audience.personal]\npatterns = []\n",
            "it has no `version`; this shellgate reads version 1",
        ),
        (
            b"version = 1\n[audience.personal]\npatterns = [\"rm\"]\n",
            "line 3, column 13: `rm` has no trailing argument glob",
        ),
        (
            b"version = 1\n[audience.personal]\nzones = [{ path = \"/\", access = \"write\" }]\n",
            "line 3, column 19: zone `/` is too broad",
        ),
    ];
    for (content, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (_, reason, _) = quarantine(dir.path(), content);
        assert_eq!(reason, expected);
    }
}

#[test]
fn a_directory_in_place_of_the_file_is_left_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("inside.txt"), "keep me").unwrap();
    let Err(err) = TrustStore::open_with_home(&path, None) else {
        panic!("a directory in place of the trust file opened as a store");
    };
    assert_eq!(
        err.to_string(),
        format!(
            "trust file `{}` is unusable (it is not a regular file but a directory, a device or a pipe) and cannot be moved aside",
            path.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(path.join("inside.txt")).unwrap(),
        "keep me"
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["trust.toml"]);
}

#[cfg(unix)]
#[test]
fn a_named_pipe_in_place_of_the_file_is_not_opened_or_moved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let status = Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(status.success());
    assert!(TrustStore::open_with_home(&path, None).is_err());
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(
        &std::fs::symlink_metadata(&path).unwrap().file_type()
    ));
}

#[test]
fn quarantine_never_overwrites_an_earlier_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for n in 0..4 {
        let content = format!("garbage {n} [");
        let (moved_to, _, _) = quarantine(dir.path(), content.as_bytes());
        names.push((moved_to, content));
    }
    for (moved_to, content) in &names {
        assert_eq!(&std::fs::read_to_string(moved_to).unwrap(), content);
    }
    let mut unique: Vec<_> = names.iter().map(|(p, _)| p.clone()).collect();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 4);
    // Within one second the later ones get `-N`.
    assert_quarantine_name(&quarantine_name(&names[0].0), None);
}

#[test]
fn a_file_that_goes_bad_while_open_is_quarantined_on_reload() {
    let (_dir, path, mut store) = new_store();
    assert!(changed(store.add_pattern("personal", &pattern("ls *"))));
    std::fs::write(&path, "version = 7\n").unwrap();
    match store.reload_if_changed().unwrap() {
        shellgate_store::Reload::Quarantined(q) => {
            assert_eq!(
                q.reason,
                "unknown version `7`; this shellgate reads version 1"
            );
            assert_eq!(
                std::fs::read_to_string(q.moved_to).unwrap(),
                "version = 7\n"
            );
        }
        other => panic!("expected a quarantine, got {other:?}"),
    }
    assert!(
        store.snapshot("personal").is_empty(),
        "grants from the bad file must not linger"
    );
}

#[test]
fn a_file_that_goes_bad_before_a_write_is_quarantined_then_written() {
    let (_dir, path, mut store) = new_store();
    std::fs::write(&path, "{{{").unwrap();
    let outcome = store.add_pattern("personal", &pattern("ls *")).unwrap();
    assert!(outcome.changed);
    let quarantine = outcome.quarantined.unwrap();
    assert_eq!(std::fs::read_to_string(quarantine.moved_to).unwrap(), "{{{");
    assert_eq!(store.snapshot("personal").patterns, vec![pattern("ls *")]);
}

/// Root ignores permission bits, so "unwritable" is made root-proof: the trust file's parent
/// is a regular file, which no one can create entries in.
#[test]
fn a_parent_that_is_a_file_is_a_clear_error_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("config");
    std::fs::write(&blocker, "not a directory").unwrap();
    let path = blocker.join("trust.toml");
    let err = TrustStore::open_with_home(&path, None).unwrap_err();
    assert!(matches!(err, StoreError::Read { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("cannot read trust file `{}`", path.display())
    );
    let source = std::error::Error::source(&err).unwrap().to_string();
    assert!(source.starts_with("Not a directory"), "{source}");
    assert_eq!(
        std::fs::read_to_string(&blocker).unwrap(),
        "not a directory"
    );
}

/// Child: one add against `SHELLGATE_TEST_TRUST`; prints the error and exits 3 on failure.
#[test]
#[ignore = "helper process for a_full_disk_is_a_clear_error_and_loses_nothing"]
fn helper_one_add() {
    let path = PathBuf::from(std::env::var_os("SHELLGATE_TEST_TRUST").unwrap());
    let mut store = TrustStore::open_with_home(&path, None).unwrap().store;
    if let Err(err) = store.add_pattern("personal", &pattern("make *")) {
        let source = std::error::Error::source(&err)
            .map(ToString::to_string)
            .unwrap_or_default();
        println!("ERROR {err} | {source}");
        std::process::exit(3);
    }
}

/// The other root-proof way to make writing fail: the writer runs with `ulimit -f 0` (file
/// size limit 0, `SIGXFSZ` ignored), so every write of a byte fails with `EFBIG` — like a full
/// disk. The existing file must stay byte-identical and no temporary file may remain.
#[test]
fn a_full_disk_is_a_clear_error_and_loses_nothing() {
    let (dir, path, mut store) = new_store();
    assert!(changed(store.add_pattern("personal", &pattern("ls *"))));
    let before = std::fs::read(&path).unwrap();
    let output = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" helper_one_add --exact --ignored --nocapture")
        .arg(std::env::current_exe().unwrap())
        .env("SHELLGATE_TEST_TRUST", &path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    let line = stdout
        .lines()
        .find(|line| line.starts_with("ERROR "))
        .unwrap();
    let expected = format!(
        "ERROR cannot write trust file `{}` | File too large (os error 27)",
        path.display()
    );
    assert!(line.starts_with(&expected), "{line}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["trust.toml", "trust.toml.lock"]);
}
