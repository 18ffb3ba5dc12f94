//! Byte-exact snapshots of written trust files, comment survival, skipped no-op writes,
//! reloading after another writer's change, and host grants (an old file without `hosts` still
//! loads; a too broad host quarantines the file).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use shellgate_store::{
    Access, Grants, HostGrant, Outcome, Reload, SessionGrants, StoreError, TrustStore, VerbPattern,
    ZoneGrant, ZonePath,
};

const FRESH: &str = include_str!("../../../tests/data/store/fresh.toml");
const COMMENTED: &str = include_str!("../../../tests/data/store/commented.toml");
const COMMENTED_AFTER: &str = include_str!("../../../tests/data/store/commented.after.toml");

fn home() -> Option<PathBuf> {
    Some(PathBuf::from("/home/u"))
}

fn zone(text: &str) -> ZonePath {
    ZonePath::new(text, home().as_deref()).unwrap()
}

/// Whether a store operation that must succeed changed the file.
fn changed(outcome: Result<Outcome, StoreError>) -> bool {
    outcome.unwrap().changed
}

fn pattern(text: &str) -> VerbPattern {
    text.parse().unwrap()
}

fn host(text: &str) -> HostGrant {
    text.parse().unwrap()
}

/// A new directory holding `trust.toml` with `text`, and the file's path.
fn trust_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// One edit of a trust file, as `shellgate approvals` makes them: audience, then grant.
enum Edit<'a> {
    AddZone(&'a str, &'a str, Access),
    AddPattern(&'a str, &'a str),
    RevokeZone(&'a str, &'a str),
    RevokePattern(&'a str, &'a str),
}

/// Makes each edit in turn, asserting that each changes the file.
fn edit(store: &mut TrustStore, edits: &[Edit<'_>]) {
    for e in edits {
        let outcome = match *e {
            Edit::AddZone(audience, z, access) => store.add_zone(audience, &zone(z), access),
            Edit::AddPattern(audience, p) => store.add_pattern(audience, &pattern(p)),
            Edit::RevokeZone(audience, z) => store.revoke_zone(audience, &zone(z)),
            Edit::RevokePattern(audience, p) => store.revoke_pattern(audience, &pattern(p)),
        };
        assert!(changed(outcome));
    }
}

fn open(path: &Path) -> TrustStore {
    let opened = TrustStore::open_with_home(path, home()).unwrap();
    assert_eq!(opened.quarantined, None);
    opened.store
}

#[test]
fn a_new_file_is_written_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/dir/trust.toml");
    let mut store = open(&path);
    assert!(!path.exists(), "opening must not create the file");
    edit(
        &mut store,
        &[
            Edit::AddZone("personal", "/home/u/proj", Access::Write),
            Edit::AddPattern("personal", "git push origin main *"),
            Edit::AddZone("personal", "/tmp/build/", Access::Read),
            Edit::AddPattern("ci", "cargo   test *"),
        ],
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), FRESH);
    assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
    assert_eq!(
        store.snapshot("personal"),
        Grants {
            zones: vec![
                ZoneGrant {
                    path: zone("/home/u/proj"),
                    access: Access::Write
                },
                ZoneGrant {
                    path: zone("/tmp/build"),
                    access: Access::Read
                },
            ],
            patterns: vec![pattern("git push origin main *")],
            hosts: Vec::new(),
        }
    );
    // Revoking everything leaves the tables, with empty lists.
    edit(
        &mut store,
        &[
            Edit::RevokePattern("personal", "git push origin main *"),
            Edit::RevokePattern("ci", "cargo test *"),
            Edit::RevokeZone("personal", "/home/u/proj"),
            Edit::RevokeZone("personal", "/tmp/build"),
        ],
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "# shellgate trust file: what this person approved with \"Always\".\n\
         # Edit it by hand or with `shellgate approvals`; comments and order are kept.\n\
         version = 1\n\n[audience.personal]\nzones = []\npatterns = []\n\n[audience.ci]\npatterns = []\n"
    );
}

#[test]
fn hand_written_comments_and_order_survive_edits() {
    let (_dir, path) = trust_file(COMMENTED);
    let mut store = open(&path);
    // `~/src/shellgate` was written by hand; it matches its expanded form.
    assert_eq!(
        store.snapshot("personal").zones.first(),
        Some(&ZoneGrant {
            path: zone("/home/u/src/shellgate"),
            access: Access::Write
        })
    );
    edit(
        &mut store,
        &[
            Edit::AddPattern("personal", "make test-*"),
            Edit::AddZone("personal", "~/notes", Access::Read),
            Edit::AddZone("personal", "/home/u/src/shellgate", Access::Read),
            Edit::RevokePattern("personal", "cargo publish *"),
            Edit::AddPattern("ci", "cargo clippy *"),
            Edit::RevokeZone("personal", "/tmp/scratch"),
        ],
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), COMMENTED_AFTER);
}

#[test]
fn a_write_that_changes_nothing_is_skipped() {
    let (dir, path) = trust_file(COMMENTED);
    let before = std::fs::metadata(&path).unwrap();
    let mut store = open(&path);
    let cases = [
        store
            .add_pattern("personal", &pattern("git  push origin main *"))
            .unwrap(),
        store
            .add_zone("personal", &zone("/home/u/src/shellgate/"), Access::Write)
            .unwrap(),
        store
            .revoke_pattern("personal", &pattern("not granted *"))
            .unwrap(),
        store.revoke_zone("nobody", &zone("/tmp/scratch")).unwrap(),
    ];
    for outcome in cases {
        assert!(!outcome.changed);
        assert_eq!(outcome.quarantined, None);
    }
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (after.ino(), after.mtime_nsec(), after.len()),
        (before.ino(), before.mtime_nsec(), before.len())
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), COMMENTED);
    // A revoke on a missing file creates nothing.
    let missing = dir.path().join("missing.toml");
    assert!(!changed(
        open(&missing).revoke_pattern("personal", &pattern("ls *"))
    ));
    assert!(!missing.exists());
}

#[test]
fn another_writers_revocation_applies_without_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let mut gate = open(&path);
    let mut cli = open(&path);
    assert!(changed(cli.add_pattern("personal", &pattern("git push *"))));
    assert_eq!(gate.reload_if_changed().unwrap(), Reload::Reloaded);
    assert_eq!(
        gate.snapshot("personal").patterns,
        vec![pattern("git push *")]
    );
    assert_eq!(gate.reload_if_changed().unwrap(), Reload::Unchanged);
    assert!(changed(
        cli.revoke_pattern("personal", &pattern("git push *"))
    ));
    assert_eq!(gate.reload_if_changed().unwrap(), Reload::Reloaded);
    assert!(gate.snapshot("personal").is_empty());
    // Deleting the file revokes everything.
    assert!(changed(cli.add_pattern("personal", &pattern("ls *"))));
    assert_eq!(gate.reload_if_changed().unwrap(), Reload::Reloaded);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(gate.reload_if_changed().unwrap(), Reload::Reloaded);
    assert!(gate.snapshot("personal").is_empty());
    assert_eq!(gate.reload_if_changed().unwrap(), Reload::Unchanged);
}

/// An in-place edit of the same size, within the same timestamp tick and on the same inode,
/// leaves size, inode and (coarse) times alike; the racy-window check must still see it.
#[test]
fn a_same_size_in_place_edit_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let text = |p: &str| format!("version = 1\n[audience.personal]\npatterns = [\"{p}\"]\n");
    std::fs::write(&path, text("aa *")).unwrap();
    let mut gate = open(&path);
    for p in ["bb *", "cc *", "aa *"] {
        std::fs::write(&path, text(p)).unwrap();
        assert_eq!(gate.reload_if_changed().unwrap(), Reload::Reloaded, "{p}");
        assert_eq!(gate.snapshot("personal").patterns, vec![pattern(p)]);
    }
}

#[test]
fn a_symlinked_trust_file_is_updated_through_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let dotfiles = dir.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    let target = dotfiles.join("trust.toml");
    std::fs::write(&target, COMMENTED).unwrap();
    let link = dir.path().join("trust.toml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let mut store = open(&link);
    assert!(changed(
        store.add_pattern("personal", &pattern("make test-*"))
    ));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&target)
            .unwrap()
            .contains("\"make test-*\"")
    );
    assert_eq!(store.path(), std::fs::canonicalize(&target).unwrap());
}

#[test]
fn hosts_round_trip_through_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let mut store = open(&path);
    assert!(changed(store.add_host("personal", &host("api.github.com"))));
    assert!(changed(store.add_host("personal", &host("*.Example.com."))));
    assert!(!changed(
        store.add_host("personal", &host("API.github.com"))
    ));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "# shellgate trust file: what this person approved with \"Always\".\n\
         # Edit it by hand or with `shellgate approvals`; comments and order are kept.\n\
         version = 1\n\n\
         [audience.personal]\n\
         hosts = [\n    \"api.github.com\",\n    \"*.example.com\",\n]\n"
    );
    let reopened = open(&path);
    assert_eq!(
        reopened.snapshot("personal").hosts,
        vec![host("api.github.com"), host("*.example.com")]
    );
}

#[test]
fn removing_a_host_keeps_the_other_content() {
    let (_dir, path) = trust_file(
        "version = 1\n\n# mine\n[audience.personal]\npatterns = [\"cargo test *\"] # tests\n\
         hosts = [\n    \"api.github.com\", # the API\n    \"pypi.org\",\n]\n",
    );
    let mut store = open(&path);
    assert!(changed(store.revoke_host("personal", &host("PYPI.org"))));
    assert!(!changed(store.revoke_host("personal", &host("pypi.org"))));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "version = 1\n\n# mine\n[audience.personal]\npatterns = [\"cargo test *\"] # tests\n\
         hosts = [\n    \"api.github.com\", # the API\n]\n"
    );
    let grants = store.snapshot("personal");
    assert_eq!(grants.hosts, vec![host("api.github.com")]);
    assert_eq!(
        grants.patterns,
        vec!["cargo test *".parse::<VerbPattern>().unwrap()]
    );
}

#[test]
fn a_file_without_hosts_still_loads() {
    let (_dir, path) = trust_file("version = 1\n[audience.personal]\npatterns = [\"a *\"]\n");
    let store = open(&path);
    assert!(store.snapshot("personal").hosts.is_empty());
    assert_eq!(store.snapshot("personal").patterns.len(), 1);
}

#[test]
fn a_too_broad_host_quarantines_the_file_with_its_line() {
    let (_dir, path) = trust_file("version = 1\n[audience.personal]\nhosts = [\"*.com\"]\n");
    let opened = TrustStore::open_with_home(&path, None).unwrap();
    let quarantine = opened.quarantined.unwrap();
    assert_eq!(
        quarantine.reason,
        "line 3, column 10: `*.com` would trust too many hosts: it covers a whole top-level domain"
    );
    assert!(opened.store.snapshot("personal").is_empty());
}

#[test]
fn session_hosts_live_in_memory() {
    let mut sessions = SessionGrants::new();
    assert!(sessions.add_host("s1", &host("pypi.org")));
    assert!(!sessions.add_host("s1", &host("pypi.org")));
    assert_eq!(sessions.snapshot("s1").hosts, vec![host("pypi.org")]);
    assert!(sessions.revoke_host("s1", &host("pypi.org")));
    assert!(sessions.snapshot("s1").is_empty());
}
